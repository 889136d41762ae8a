// Leak suspects (graph/suspects.h) on hand-made traces with exact answers: a leak into a map under
// a static field (the accumulation point is the map, its path static field -> map), a heap that
// does not grow (no leak, said plainly), a --gc without a reference snapshot, and ids that share a
// name (sites, threads, types) listed as one name.
#include <gtest/gtest.h>

#include "graph/suspects.h"
#include "unit/loaded_heap.h"
#include "unit/trace_builder.h"

namespace memcity {
namespace {

using testing::TraceBuilder;
using E = std::vector<Edge>;

// The "map": 0 (A, 16 B) -> 1 (Object[16], 80 B, its table) -> the entries (B, 24 B each), two
// entries added before each of GCs 0..4: 3, 4 before GC 0 at site 1 on thread main, then 5..12 at
// site 2 on thread worker. The map is held by the static field A.next; 2 (B) by a stack local.
// Live bytes after GCs 0..4: 168, 216, 264, 312, 360. References at GC 4 (and, with
// `no_last_snapshot`, at GC 3 only).
std::string leakingMap(bool no_last_snapshot = false) {
    TraceBuilder b(no_last_snapshot ? "suspects-no-last" : "suspects-map");
    b.alloc(0).allocArray(1, 4, 16).alloc(2, 2);
    b.alloc(3, 2).alloc(4, 2);
    b.gc(0, 5);
    uint64_t id = 5;
    for (uint32_t g = 1; g <= 4; ++g) {
        b.alloc(id, 2, 2, 2).alloc(id + 1, 2, 2, 2);
        id += 2;
        b.gc(g, id);
        if (g == (no_last_snapshot ? 3u : 4u)) {
            E entries;
            for (uint64_t e = 3; e < id; ++e)
                entries.push_back(TraceBuilder::strong(e));
            b.snapshot(g, {{0, E{TraceBuilder::strong(1)}}, {1, entries}},
                       {TraceBuilder::staticRoot(0), Root::make(4, 2, {1, 1, 0, 0})});
        }
    }
    return b.finish();
}

SuspectsOptions liveSeries() {
    SuspectsOptions o;
    o.windows.leak_series = LeakSeries::kLive;  // one snapshot only: the leak is looked for in live bytes
    return o;
}

TEST(Suspects, ALeakIntoAMapUnderAStaticFieldAccumulatesInTheMap) {
    testing::LoadedHistory l(leakingMap());
    ASSERT_TRUE(l.history);
    auto r = findSuspects(*l.history, liveSeries());
    ASSERT_TRUE(r.ok()) << r.error().message;
    ASSERT_TRUE(r->leak);
    EXPECT_EQ(r->leak->first_gc, 0u);
    EXPECT_EQ(r->leak->last_gc, 4u);
    EXPECT_EQ(r->leak->leak.first_bytes, 168u);
    EXPECT_EQ(r->leak->leak.last_bytes, 360u);
    ASSERT_TRUE(r->has_snapshot);
    EXPECT_EQ(r->gc, 4u);
    EXPECT_EQ(r->reached, (Sizes{13, 360}));
    // Born after GC 0 and reached at GC 4: entries 5..12.
    EXPECT_EQ(r->growth, (Sizes{8, 192}));
    EXPECT_EQ(r->growth_types, (std::vector<SuspectName>{{"B", 8, 192}}));

    ASSERT_EQ(r->suspects.size(), 1u);
    const Suspect& s = r->suspects[0];
    // The walk stops at the table (no entry holds 80% of the growth) and is lifted to its owner.
    EXPECT_EQ(s.id, 0u);
    EXPECT_EQ(s.type, "A");
    EXPECT_EQ(s.via, "Object[]");
    EXPECT_EQ(s.retained, (Sizes{12, 16 + 80 + 10 * 24}));
    EXPECT_EQ(s.growth, (Sizes{8, 192}));
    EXPECT_DOUBLE_EQ(s.share, 1.0);
    EXPECT_EQ(s.root, "static field A.next");
    EXPECT_EQ(s.path, (std::vector<SuspectStep>{{0, "A"}}));
    EXPECT_EQ(s.types, (std::vector<SuspectName>{{"B", 8, 192}}));
    ASSERT_EQ(s.sites.size(), 1u);
    EXPECT_EQ(s.sites[0].objects, 8u);
    EXPECT_NE(s.sites[0].name.find("Main.other"), std::string::npos) << s.sites[0].name;
    EXPECT_EQ(s.threads, (std::vector<SuspectName>{{"worker", 8, 192}}));

    // The top-level dominators: the map, and 2 under its stack local.
    EXPECT_EQ(r->retained_groups, (std::vector<SuspectName>{{"A", 12, 336}, {"B", 1, 24}}));
    ASSERT_EQ(r->largest.size(), 2u);
    EXPECT_EQ(r->largest[0].id, 0u);
    EXPECT_EQ(r->largest[1].id, 2u);
}

TEST(Suspects, AHeapThatDoesNotGrowHasNoLeak) {
    TraceBuilder b("suspects-flat");
    b.alloc(0).allocArray(1, 4, 4);
    b.gc(0, 2);
    for (uint32_t g = 1; g <= 4; ++g) {
        const uint64_t garbage = 1 + g;
        b.alloc(garbage, 2);  // born and dead by the next GC
        b.gc(g, garbage + 1, {garbage});
    }
    b.snapshot(4, {{0, E{TraceBuilder::strong(1)}}}, {TraceBuilder::staticRoot(0)});
    testing::LoadedHistory l(b.finish());
    ASSERT_TRUE(l.history);
    auto r = findSuspects(*l.history, liveSeries());
    ASSERT_TRUE(r.ok()) << r.error().message;
    EXPECT_FALSE(r->leak);
    EXPECT_TRUE(r->suspects.empty());
    EXPECT_EQ(r->growth, (Sizes{}));
    ASSERT_FALSE(r->notes.empty());
    EXPECT_EQ(r->notes[0].rfind("no leak: memory does not keep growing", 0), 0u) << r->notes[0];
    // The retained groups are still given.
    EXPECT_EQ(r->retained_groups, (std::vector<SuspectName>{{"A", 2, 48}}));
}

TEST(Suspects, AGcWithoutASnapshotIsRefusedNamingTheNearest) {
    testing::LoadedHistory l(leakingMap(true));
    ASSERT_TRUE(l.history);
    SuspectsOptions o = liveSeries();
    o.gc = 4;
    auto r = findSuspects(*l.history, o);
    ASSERT_FALSE(r.ok());
    EXPECT_NE(r.error().message.find("GC 4 has no reference snapshot"), std::string::npos)
        << r.error().message;
    EXPECT_NE(r.error().message.find("3"), std::string::npos) << r.error().message;
    o.gc = 9;
    auto out_of_range = findSuspects(*l.history, o);
    ASSERT_FALSE(out_of_range.ok());
    // Without --gc, the last snapshot GC (3) is used: entries 5..10 are the growth there.
    o.gc.reset();
    auto last = findSuspects(*l.history, o);
    ASSERT_TRUE(last.ok()) << last.error().message;
    EXPECT_EQ(last->gc, 3u);
    ASSERT_EQ(last->suspects.size(), 1u);
    EXPECT_EQ(last->suspects[0].type, "A");
}

// A map whose entries (4..11, two added before each of GCs 1..4) come from ids that share a name:
// types 2 and 6 are both "B" (one class loaded twice), sites 2 and 3 differ only below their
// allocating frame Main.other:20 (max_frames 1 shows that frame alone), and threads 3 and 4 are
// both "pool" (thread names need not be unique). Before GC 0: the map 0 (A) -> 1 (Object[16]), and 2 (type 2)
// and 3 (type 6) each under a static field. Each name is one entry with the objects of all its ids, as a
// person reads the report.
TEST(Suspects, IdsThatShareANameAreListedAsOne) {
    TraceBuilder b("suspects-shared-names");
    b.writer().defineType(6, TypeDef{"B", format::TypeKind::kInstance, 0, 24, 0, 0, 0});
    const Frame frames[] = {{2, 20}, {1, 10}};
    b.writer().defineSite(3, frames);
    b.writer().defineThread(3, "pool");
    b.writer().defineThread(4, "pool");
    b.alloc(0).allocArray(1, 4, 16).alloc(2, 2).alloc(3, 6);
    b.gc(0, 4);
    E entries;
    for (uint64_t id = 4; id < 12; ++id) {
        const uint32_t type = id % 2 == 0 ? 2 : 6;
        const uint32_t site = id < 8 ? 2 : 3;
        const uint32_t thread = id < 6 ? 2 : (id % 2 == 0 ? 3 : 4);
        b.alloc(id, type, site, thread);
        entries.push_back(TraceBuilder::strong(id));
        if (id % 2 == 1) b.gc(static_cast<uint32_t>(id / 2 - 1), id + 1);
    }
    b.snapshot(4, {{0, E{TraceBuilder::strong(1)}}, {1, entries}},
               {TraceBuilder::staticRoot(0), TraceBuilder::staticRoot(2), TraceBuilder::staticRoot(3)});
    testing::LoadedHistory l(b.finish());
    ASSERT_TRUE(l.history);
    SuspectsOptions o = liveSeries();
    o.max_frames = 1;
    auto r = findSuspects(*l.history, o);
    ASSERT_TRUE(r.ok()) << r.error().message;
    ASSERT_TRUE(r->leak);
    EXPECT_EQ(r->leak->first_gc, 0u);
    EXPECT_EQ(r->growth, (Sizes{8, 192}));
    EXPECT_EQ(r->growth_types, (std::vector<SuspectName>{{"B", 8, 192}}));
    ASSERT_EQ(r->suspects.size(), 1u);
    const Suspect& s = r->suspects[0];
    EXPECT_EQ(s.id, 0u);
    EXPECT_EQ(s.types, (std::vector<SuspectName>{{"B", 8, 192}}));
    EXPECT_EQ(s.sites, (std::vector<SuspectName>{{"Main.other(Main.java:20)", 8, 192}}));
    EXPECT_EQ(s.threads, (std::vector<SuspectName>{{"pool", 6, 144}, {"worker", 2, 48}}));
    // The top-level dominators: the map, and 2 and 3 (both "B").
    EXPECT_EQ(r->retained_groups, (std::vector<SuspectName>{{"A", 10, 16 + 80 + 8 * 24}, {"B", 2, 48}}));
}

}  // namespace
}  // namespace memcity
