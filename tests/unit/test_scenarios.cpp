// The synthetic scenarios' documented answers (docs/scenarios.md), checked on their traces.
#include <gtest/gtest.h>

#include <map>
#include <set>

#include "heap/heap_history.h"
#include "synth/synth.h"
#include "unit/trace_builder.h"

namespace memcity {
namespace {

struct Scenario {
    std::string path;
    std::unique_ptr<TraceFile> file;
    std::unique_ptr<HeapHistory> history;

    std::string meta(const std::string& key) const {
        for (const auto& [k, v] : file->meta())
            if (k == key) return v;
        ADD_FAILURE() << "no meta " << key;
        return "0";
    }
    uint64_t expect(const std::string& key) const { return std::stoull(meta("synth.expect." + key)); }
    std::pair<uint32_t, uint32_t> phase(const std::string& name) const {
        std::string v = meta("synth.phase." + name);
        auto dots = v.find("..");
        return {static_cast<uint32_t>(std::stoul(v.substr(0, dots))),
                static_cast<uint32_t>(std::stoul(v.substr(dots + 2)))};
    }
    uint32_t typeId(const std::string& name) const {
        const auto& types = file->symbols().types();
        for (uint32_t t = 0; t < types.size(); ++t)
            if (types[t].defined && types[t].name == name) return t;
        ADD_FAILURE() << "no type " << name;
        return 0;
    }
};

Scenario make(const std::string& name, uint32_t scale = 1, uint64_t seed = 1) {
    Scenario s;
    s.path = testing::tempPath(name);
    synth::SynthOptions o;
    o.scale = scale;
    o.seed = seed;
    Status st = synth::synthesize(name, s.path, o);
    EXPECT_TRUE(st.ok()) << (st.ok() ? "" : st.error().message);
    auto f = TraceFile::open(s.path);
    EXPECT_TRUE(f.ok()) << (f.ok() ? "" : f.error().message);
    s.file = std::make_unique<TraceFile>(std::move(*f));
    auto h = HeapHistory::build(*s.file);
    EXPECT_TRUE(h.ok()) << (h.ok() ? "" : h.error().message);
    s.history = std::make_unique<HeapHistory>(std::move(*h));
    return s;
}

struct Row {
    uint64_t objects = 0, bytes = 0;
};
std::map<uint32_t, Row> byType(const HeapView& v) {
    std::map<uint32_t, Row> rows;
    v.forEachLive([&](size_t p) {
        Row& r = rows[v.type(p)];
        r.objects++;
        r.bytes += v.size(p);
    });
    return rows;
}

// What every SimHeap scenario must satisfy: a sound trace, a consistent series, and, since the
// simulated GC kills exactly the unreachable objects, every live object reachable from roots.
void checkInvariants(const Scenario& s) {
    const HeapHistory& h = *s.history;
    EXPECT_EQ(h.diagnostics().errorCount(), 0u);
    EXPECT_EQ(h.diagnostics().noteCount(), 0u);
    EXPECT_FALSE(s.file->truncated());
    ASSERT_GT(h.gcCount(), 2u);
    for (size_t g = 0; g < h.gcCount(); ++g) {
        const GcRecord& r = h.gcs()[g];
        uint64_t prev = g ? h.gcs()[g - 1].live_bytes : 0;
        EXPECT_EQ(r.live_bytes, prev + r.allocated_bytes - r.freed_bytes) << "GC " << g;
        EXPECT_EQ(r.live_bytes, r.vm_heap_after) << "GC " << g;  // the simulator's own figure
        ASSERT_TRUE(r.has_snapshot) << "GC " << g;
        EXPECT_EQ(r.reachable_objects, r.live_objects) << "GC " << g;
        EXPECT_EQ(r.reachable_bytes, r.live_bytes) << "GC " << g;
        EXPECT_EQ(r.unreached_objects, 0u) << "GC " << g;
    }
}

// Bytes kept alive by a group: what becomes unreachable when the group is taken away, plus the
// group itself (a plain graph walk, the reference the closure algorithms are tested against).
uint64_t retainedBytes(const HeapView& v, const HeapSnapshot& snap, const std::set<size_t>& group) {
    auto reach = [&](bool skip_group) {
        std::vector<uint8_t> seen(v.positions(), 0);
        std::vector<uint32_t> stack;
        auto push = [&](uint32_t p) {
            if (seen[p] || (skip_group && group.count(p))) return;
            seen[p] = 1;
            stack.push_back(p);
        };
        for (const RootRef& r : snap.roots)
            push(r.position);
        while (!stack.empty()) {
            uint32_t p = stack.back();
            stack.pop_back();
            snap.graph.forEachTarget(p, push);
        }
        uint64_t bytes = 0;
        for (size_t p = 0; p < v.positions(); ++p)
            if (seen[p]) bytes += v.size(p);
        return bytes;
    };
    return reach(false) - reach(true);
}

TEST(Scenario, BuggyStackKeepsPoppedObjects) {
    Scenario s = make("buggy-stack");
    checkInvariants(s);
    const uint64_t n = 10'000;
    EXPECT_EQ(s.expect("test_objects"), n);
    const uint32_t test_object = s.typeId("at.jku.data.TestObject");
    const uint32_t object_array = s.typeId("java.lang.Object[]");
    auto a = s.history->heapAt(static_cast<uint32_t>(s.expect("gc_a")));
    auto b = s.history->heapAt(static_cast<uint32_t>(s.expect("gc_b")));
    ASSERT_TRUE(a.ok() && b.ok());
    auto rows_a = byType(a->view());
    EXPECT_EQ(rows_a[test_object].objects, n);  // all popped, none died
    EXPECT_EQ(rows_a[test_object].bytes, 16 * n);
    EXPECT_EQ(rows_a[object_array].objects, 1u);
    EXPECT_EQ(rows_a[object_array].bytes, 16u + 4 * 16384);
    EXPECT_EQ(rows_a[s.typeId("at.jku.data.BuggyStack")].objects, 1u);
    EXPECT_EQ(byType(b->view())[test_object].objects, n);

    // Born / died / permanent between GC a and GC b, by site (the paper's 100k / 100k / 900k at scale 100).
    std::set<uint64_t> in_a, in_b;
    std::map<uint64_t, std::string> site_of;
    for (const auto* heap : {&*a, &*b}) {
        HeapView v = heap->view();
        v.forEachLive([&](size_t p) {
            if (v.type(p) != test_object) return;
            (heap == &*a ? in_a : in_b).insert(v.id(p));
            auto frames = s.file->symbols().siteFrames(v.site(p));
            site_of[v.id(p)] = s.file->symbols().frameLabel(frames[1]);
        });
    }
    uint64_t permanent = 0, born = 0, died = 0;
    for (uint64_t id : in_b) {
        if (in_a.count(id)) {
            ++permanent;
        } else {
            ++born;
            EXPECT_EQ(site_of[id], "at.jku.BuggyMain.main(BuggyMain.java:47)");
        }
    }
    for (uint64_t id : in_a) {
        if (in_b.count(id)) continue;
        ++died;
        EXPECT_EQ(site_of[id], "at.jku.BuggyMain.main(BuggyMain.java:43)");
    }
    EXPECT_EQ(permanent, n - n / 10);
    EXPECT_EQ(born, n / 10);
    EXPECT_EQ(died, n / 10);
}

TEST(Scenario, MultiCacheOwnershipIsShared) {
    Scenario s = make("multi-cache");
    checkInvariants(s);
    const uint64_t q = 20'000;
    auto heap = s.history->heapAt(static_cast<uint32_t>(s.expect("final_gc")));
    ASSERT_TRUE(heap.ok());
    HeapView v = heap->view();
    auto rows = byType(v);
    EXPECT_EQ(rows[s.typeId("jku.anttracks.example.data.Product")].objects, q);
    EXPECT_EQ(rows[s.typeId("java.lang.Long")].objects, q);
    EXPECT_EQ(rows[s.typeId("java.util.HashMap$Node")].objects, 2 * q + 60);
    EXPECT_EQ(rows[s.typeId("java.util.HashMap")].objects, 22u);
    EXPECT_EQ(rows[s.typeId("int[]")].objects, 2 * q);
    EXPECT_EQ(rows[s.typeId("java.lang.String")].objects, q + 61);
    EXPECT_EQ(s.expect("table_capacity"), 32768u);

    // The two cache maps, found through their static-field roots.
    auto snap = s.history->snapshotFor(*heap);
    ASSERT_TRUE(snap.ok() && snap->has_value());
    std::map<std::string, size_t> statics;
    for (const RootRef& r : (*snap)->roots)
        if (r.kind == static_cast<uint32_t>(format::RootKind::kStaticField))
            statics[s.file->symbols().field(static_cast<uint32_t>(r.details[1])).name] = r.position;
    ASSERT_TRUE(statics.count("idCache") && statics.count("nameCache"));
    const uint64_t table = 16 + 4 * 32768;
    const uint64_t id_alone = retainedBytes(v, **snap, {statics["idCache"]});
    const uint64_t name_alone = retainedBytes(v, **snap, {statics["nameCache"]});
    const uint64_t both = retainedBytes(v, **snap, {statics["idCache"], statics["nameCache"]});
    EXPECT_EQ(id_alone, 48 + table + q * 32 + q * 24);  // map, table, nodes, Long keys
    EXPECT_EQ(name_alone, 48 + table + q * 32);         // map, table, nodes (keys are the names)
    EXPECT_EQ(both, 2 * (48 + table) + q * (2 * 32 + 24 + 40 + 24 + 32 + 40 + 24));
    EXPECT_GT(static_cast<double>(both), 0.95 * static_cast<double>(v.liveBytes()));
    EXPECT_LT(static_cast<double>(id_alone + name_alone), 0.45 * static_cast<double>(v.liveBytes()));
}

TEST(Scenario, GrowingMapGrowsAfterWarmup) {
    Scenario s = make("growing-map");
    checkInvariants(s);
    const uint64_t r = 4'000;
    EXPECT_EQ(s.expect("requests"), r);
    EXPECT_EQ(s.expect("locations"), r / 4 * 10);
    auto [w0, w1] = s.phase("warmup");
    auto [s0, s1] = s.phase("serving");
    EXPECT_EQ(w0, 0u);
    EXPECT_EQ(s0, w1 + 1);
    EXPECT_EQ(s1, s.history->gcCount() - 1);
    const auto& gcs = s.history->gcs();
    uint64_t warm_max = 0;
    for (uint32_t g = w0; g <= w1; ++g)
        warm_max = std::max(warm_max, gcs[g].reachable_bytes);
    EXPECT_LT(gcs[s0].reachable_bytes * 2, warm_max);  // the startup index is dropped
    for (uint32_t g = s0 + 1; g <= s1; ++g)
        EXPECT_GE(gcs[g].reachable_bytes, gcs[g - 1].reachable_bytes) << g;
    EXPECT_GT(gcs[s1].reachable_bytes, 4 * gcs[s0].reachable_bytes);

    auto heap = s.history->heapAt(s1);
    auto rows = byType(heap->view());
    const std::string jpa = "com.dynatrace.easytravel.jpa.business.";
    EXPECT_EQ(rows[s.typeId("com.dynatrace.easytravel.business.JourneyService$QueryKey")].objects, r);
    EXPECT_EQ(rows[s.typeId("java.util.concurrent.ConcurrentHashMap$Node")].objects, r);
    EXPECT_EQ(rows[s.typeId(jpa + "Location")].objects, r / 4 * 10 + 200);
    EXPECT_EQ(rows[s.typeId(jpa + "Journey")].objects, 200u);
    EXPECT_EQ(rows[s.typeId(jpa + "Booking")].objects, 50u);
    EXPECT_EQ(rows[s.typeId("java.util.Date")].objects, r / 4 * 10 + 400 + 50);
    // The cached objects come from findLocations' sites.
    HeapView v = heap->view();
    const uint32_t query_key = s.typeId("com.dynatrace.easytravel.business.JourneyService$QueryKey");
    v.forEachLive([&](size_t p) {
        if (v.type(p) == query_key) {
            EXPECT_EQ(
                s.file->symbols().siteLabel(v.site(p)),
                "com.dynatrace.easytravel.business.JourneyService.findLocations(JourneyService.java:74)");
        }
    });
}

// Sum of `field` over GCs [first, last], per nanosecond of the time they span (from the end of
// the GC before the first).
double perNs(const std::vector<GcRecord>& gcs, uint32_t first, uint32_t last, uint64_t GcRecord::*field) {
    uint64_t sum = 0;
    for (uint32_t g = first; g <= last; ++g)
        sum += gcs[g].*field;
    int64_t from = first ? gcs[first - 1].end_ns : 0;
    return static_cast<double>(sum) / static_cast<double>(gcs[last].end_ns - from);
}
double freedPerSecond(const std::vector<GcRecord>& gcs, uint32_t first, uint32_t last) {
    return perNs(gcs, first, last, &GcRecord::freed_bytes) * 1e9;
}
double overhead(const std::vector<GcRecord>& gcs, uint32_t first, uint32_t last) {
    return perNs(gcs, first, last, &GcRecord::pause_ns);
}

TEST(Scenario, ChurnBurstFreesFarFaster) {
    Scenario s = make("churn");
    checkInvariants(s);
    auto [c0, c1] = s.phase("calm-1");
    auto [b0, b1] = s.phase("burst");
    auto [d0, d1] = s.phase("calm-2");
    EXPECT_EQ(b0, c1 + 1);
    EXPECT_EQ(d0, b1 + 1);
    EXPECT_GE(b1 - b0 + 1, 10u);
    const auto& gcs = s.history->gcs();
    double calm = std::max(freedPerSecond(gcs, c0, c1), freedPerSecond(gcs, d0, d1 - 1));
    double burst = freedPerSecond(gcs, b0, b1);
    EXPECT_GT(burst, 10 * calm) << burst << " vs " << calm;
    auto rows = byType(s.history->heapAt(d1)->view());
    EXPECT_EQ(rows[s.typeId("com.twitter.finagle.netty4.Connection")].objects, 64u);
    EXPECT_EQ(rows[s.typeId("java.lang.Integer")].objects, 0u);
}

TEST(Scenario, GcHotspotPausesDominateTheHotspot) {
    Scenario s = make("gc-hotspot");
    checkInvariants(s);
    auto [n0, n1] = s.phase("normal-1");
    auto [h0, h1] = s.phase("hotspot");
    auto [m0, m1] = s.phase("normal-2");
    const auto& gcs = s.history->gcs();
    EXPECT_GE(h1 - h0 + 1, 5u);
    EXPECT_GE(overhead(gcs, h0, h1), 0.10);
    EXPECT_LT(overhead(gcs, n0, n1), 0.05);
    EXPECT_LT(overhead(gcs, m0 + 1, m1 - 1), 0.05);
    const uint32_t entry = s.typeId("org.example.search.IndexEntry");
    uint64_t prev = 0;
    for (uint32_t g = h0; g <= h1; ++g) {
        uint64_t n = byType(s.history->heapAt(g)->view())[entry].objects;
        EXPECT_GE(n, prev);
        prev = n;
    }
    EXPECT_GT(prev, 4000u);
    EXPECT_EQ(byType(s.history->heapAt(m1)->view())[entry].objects, 0u);
}

TEST(Scenario, SteadyStaysFlat) {
    Scenario s = make("steady");
    checkInvariants(s);
    auto rows = byType(s.history->heapAt(static_cast<uint32_t>(s.expect("final_gc")))->view());
    EXPECT_EQ(rows[s.typeId("com.example.shop.CacheEntry")].objects, 500u);
    EXPECT_EQ(rows[s.typeId("com.example.shop.Session")].objects, 20u);
    EXPECT_EQ(rows[s.typeId("java.lang.ref.WeakReference")].objects, 100u);
    const auto& gcs = s.history->gcs();
    uint64_t lo = UINT64_MAX, hi = 0;
    for (size_t g = gcs.size() / 3; g < gcs.size(); ++g) {
        lo = std::min(lo, gcs[g].reachable_bytes);
        hi = std::max(hi, gcs[g].reachable_bytes);
    }
    EXPECT_LT(static_cast<double>(hi), 1.05 * static_cast<double>(lo)) << lo << " .. " << hi;
}

TEST(Scenario, AnswersDoNotDependOnTheSeedAndScaleMultiplies) {
    Scenario a = make("buggy-stack", 2, 7);
    EXPECT_EQ(a.expect("test_objects"), 20'000u);
    auto rows = byType(a.history->heapAt(static_cast<uint32_t>(a.expect("gc_b")))->view());
    EXPECT_EQ(rows[a.typeId("at.jku.data.TestObject")].objects, 20'000u);
    Scenario g = make("growing-map", 1, 99);
    auto grows = byType(g.history->heapAt(static_cast<uint32_t>(g.expect("final_gc")))->view());
    EXPECT_EQ(grows[g.typeId("com.dynatrace.easytravel.business.JourneyService$QueryKey")].objects, 4000u);
}

TEST(Scenario, TracesAreDeterministic) {
    for (const char* name : {"churn", "big-heap"}) {
        std::string p1 = testing::tempPath("det1"), p2 = testing::tempPath("det2");
        synth::SynthOptions o;
        ASSERT_TRUE(synth::synthesize(name, p1, o).ok());
        ASSERT_TRUE(synth::synthesize(name, p2, o).ok());
        EXPECT_EQ(testing::readFile(p1), testing::readFile(p2)) << name;
    }
}

TEST(Scenario, BigHeapIsSoundAndReachable) {
    Scenario s = make("big-heap");
    const HeapHistory& h = *s.history;
    EXPECT_EQ(h.diagnostics().errorCount(), 0u);
    EXPECT_EQ(h.counts().objects_allocated, 1'000'000u);
    ASSERT_EQ(h.gcCount(), 5u);
    const GcRecord& last = h.gcs().back();
    EXPECT_TRUE(last.has_snapshot);
    EXPECT_EQ(last.unreached_objects, 0u);
    EXPECT_EQ(last.reachable_objects, last.live_objects);
    EXPECT_GE(last.live_objects, s.expect("immortal"));
}

TEST(Scenario, UnknownScenarioAndBadScale) {
    synth::SynthOptions o;
    Status s = synth::synthesize("nope", testing::tempPath("nope"), o);
    ASSERT_FALSE(s.ok());
    EXPECT_EQ(s.error().message, "unknown scenario 'nope'");
    o.scale = 0;
    EXPECT_FALSE(synth::synthesize("churn", testing::tempPath("zero"), o).ok());
}

}  // namespace
}  // namespace memcity
