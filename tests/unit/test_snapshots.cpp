// Reference snapshots: loading against a heap, reachability, weak references, anomalies.
#include <gtest/gtest.h>

#include "heap/heap_history.h"
#include "synth/synth.h"
#include "unit/trace_builder.h"
#include "util/bytes.h"

namespace memcity {
namespace {

using testing::TraceBuilder;
using E = std::vector<Edge>;

std::unique_ptr<TraceFile> openTrace(const std::string& path) {
    auto f = TraceFile::open(path);
    EXPECT_TRUE(f.ok()) << (f.ok() ? "" : f.error().message);
    return std::make_unique<TraceFile>(std::move(*f));
}

// 0 (root) -> 1 -> 2 -> 0 is a cycle; 0 holds 4 only weakly; 3 -> 5 hang in the air; 6 died.
TraceBuilder& program(TraceBuilder& t) {
    for (uint64_t id = 0; id < 7; ++id)
        t.alloc(id);
    t.gc(0, 7, {6});
    t.snapshot(0,
               {{0, E{TraceBuilder::strong(1), TraceBuilder::weak(4)}},
                {1, E{TraceBuilder::strong(2)}},
                {2, E{TraceBuilder::strong(0)}},
                {3, E{TraceBuilder::strong(5)}}},
               {TraceBuilder::staticRoot(0)});
    return t;
}

TEST(Snapshots, ReachabilityFollowsStrongReferencesOnly) {
    TraceBuilder t("reach");
    auto f = openTrace(program(t).finish());
    auto h = HeapHistory::build(*f);
    ASSERT_TRUE(h.ok()) << h.error().message;
    const GcRecord& g = h->gcs()[0];
    EXPECT_TRUE(g.has_snapshot);
    EXPECT_EQ(g.live_objects, 6u);
    EXPECT_EQ(g.reachable_objects, 3u);
    EXPECT_EQ(g.reachable_bytes, 48u);
    EXPECT_EQ(g.unreached_objects, 3u);  // 3, 4 (weakly held) and 5
    EXPECT_EQ(g.unreached_bytes, 48u);
    EXPECT_EQ(g.snapshot_edges, 4u);  // the weak edge is not in the graph
    EXPECT_EQ(g.snapshot_roots, 1u);
    EXPECT_EQ(h->diagnostics().errorCount(), 0u);

    auto heap = h->heapAt(0);
    ASSERT_TRUE(heap.ok());
    auto snap = h->snapshotFor(*heap);
    ASSERT_TRUE(snap.ok()) << snap.error().message;
    ASSERT_TRUE(snap->has_value());
    const HeapSnapshot& s = **snap;
    EXPECT_EQ(s.gc, 0u);
    EXPECT_EQ(s.weak_edges, 1u);
    ASSERT_EQ(s.roots.size(), 1u);
    HeapView v = heap->view();
    EXPECT_EQ(v.id(s.roots[0].position), 0u);
    EXPECT_EQ(s.roots[0].kind, 8u);
    std::vector<uint64_t> from0;
    s.graph.forEachTarget(v.find(0), [&](uint32_t p) { from0.push_back(v.id(p)); });
    EXPECT_EQ(from0, (std::vector<uint64_t>{1}));
}

TEST(Snapshots, LaterHeapsUseTheLatestEarlierSnapshot) {
    TraceBuilder t("later");
    program(t);
    t.alloc(7).gc(1, 8, {1});  // 1 dies: the path 0 -> 1 -> 2 breaks
    auto f = openTrace(t.finish());
    auto h = HeapHistory::build(*f);
    ASSERT_TRUE(h.ok());
    EXPECT_FALSE(h->gcs()[1].has_snapshot);
    auto heap = h->heapAt(1);
    ASSERT_TRUE(heap.ok());
    auto snap = h->snapshotFor(*heap);
    ASSERT_TRUE(snap.ok() && snap->has_value());
    EXPECT_EQ((*snap)->gc, 0u);
    EXPECT_EQ((*snap)->dropped_edges, 2u);      // 0 -> 1 and 1's own list
    EXPECT_EQ((*snap)->graph.edgeCount(), 2u);  // 2 -> 0 and 3 -> 5
}

TEST(Snapshots, NoSnapshotMeansNone) {
    TraceBuilder t("none");
    t.alloc(0).gc(0, 1);
    auto f = openTrace(t.finish());
    auto h = HeapHistory::build(*f);
    auto heap = h->heapAt(0);
    auto snap = h->snapshotFor(*heap);
    ASSERT_TRUE(snap.ok());
    EXPECT_FALSE(snap->has_value());
    EXPECT_FALSE(h->gcs()[0].has_snapshot);
}

TEST(Snapshots, WalkBeforeTheDeathsArriveStillCountsTheFinalHeap) {
    // The recorder's walk can be written before the GC's deaths reach the trace.
    TraceBuilder t("order");
    for (uint64_t id = 0; id < 4; ++id)
        t.alloc(id);
    t.gcStart(0).gcEnd(0, 4);
    t.snapshot(0, {{0, E{TraceBuilder::strong(1)}}}, {TraceBuilder::staticRoot(0)});
    t.deaths(0, {2, 3});
    t.alloc(4).gc(1, 5);
    auto f = openTrace(t.finish());
    auto h = HeapHistory::build(*f);
    ASSERT_TRUE(h.ok());
    const GcRecord& g = h->gcs()[0];
    EXPECT_EQ(g.live_objects, 2u);
    EXPECT_EQ(g.reachable_objects, 2u);
    EXPECT_EQ(g.unreached_objects, 0u);
}

TEST(Snapshots, DanglingAndNewerReferencesAreCounted) {
    TraceBuilder t("dangling");
    t.alloc(0).alloc(1).alloc(2).gc(0, 3, {2});
    t.alloc(3);  // born after GC 0; the walk ran later and saw it
    t.snapshot(0,
               {{0, E{TraceBuilder::strong(1), TraceBuilder::strong(2), TraceBuilder::strong(3)}},
                {2, E{TraceBuilder::strong(0)}}},
               {TraceBuilder::staticRoot(0), TraceBuilder::staticRoot(42)});
    t.gc(1, 4);
    auto f = openTrace(t.finish());
    auto h = HeapHistory::build(*f);
    ASSERT_TRUE(h.ok());
    const Diagnostics& d = h->diagnostics();
    EXPECT_EQ(d[Anomaly::kDanglingEdge].count, 1u);    // 0 -> 2, which died
    EXPECT_EQ(d[Anomaly::kDanglingSource].count, 1u);  // 2 died at GC 0
    EXPECT_EQ(d[Anomaly::kNewerEdge].count, 1u);       // root 42 is past the watermark
    EXPECT_EQ(d[Anomaly::kDanglingRoot].count, 0u);
    EXPECT_EQ(h->gcs()[0].reachable_objects, 2u);
    EXPECT_EQ(h->gcs()[0].live_objects, 2u);
}

TEST(Snapshots, InconsistentSnapshotIsNotUsed) {
    WriterOptions o;
    o.compress = false;
    TraceBuilder t("inconsistent", o);
    t.alloc(0).alloc(1).gc(0, 2);
    ByteWriter refs;  // REFS of GC 0: object 0 -> 1
    refs.varint(0);
    refs.svarint(0);
    refs.varint(1);
    refs.svarint(1);
    refs.varint(0);
    t.writer().writeChunkPayload(static_cast<uint16_t>(format::ChunkKind::kRefs), refs.bytes(), 0);
    ByteWriter roots;  // claims 5 sources and 9 edges
    for (uint64_t v : std::initializer_list<uint64_t>{0, 1, 5, 9, 0})
        roots.varint(v);
    t.writer().writeChunkPayload(static_cast<uint16_t>(format::ChunkKind::kRoots), roots.bytes(), 0);
    t.gc(1, 2);
    auto f = openTrace(t.finish());
    auto h = HeapHistory::build(*f);
    ASSERT_TRUE(h.ok());
    EXPECT_EQ(h->diagnostics()[Anomaly::kIncompleteSnapshot].count, 1u);
    EXPECT_NE(h->diagnostics()[Anomaly::kIncompleteSnapshot].first.find(
                  "lists 1 objects and 1 references, its roots chunk says 5 and 9"),
              std::string::npos)
        << h->diagnostics()[Anomaly::kIncompleteSnapshot].first;
    EXPECT_FALSE(h->gcs()[0].has_snapshot);
    EXPECT_TRUE(h->snapshots().empty());
}

TEST(Snapshots, SnapshotCutOffByTruncationIsANote) {
    WriterOptions o;
    o.compress = false;
    o.chunk_bytes = 16;
    TraceBuilder t("cutsnap", o);
    for (uint64_t id = 0; id < 50; ++id)
        t.alloc(id);
    t.gc(0, 50);
    t.writer().beginSnapshot(0);
    for (uint64_t id = 0; id + 1 < 50; ++id)
        t.writer().snapshotObject(id, E{TraceBuilder::strong(id + 1)});
    t.writer().flush();
    // Cut the file after the REFS chunks, before the ROOTS chunk.
    std::string path = t.path();
    t.writer().snapshotRoot(TraceBuilder::staticRoot(0));
    t.writer().endSnapshot();
    t.finish();
    auto full = TraceFile::open(path);
    ASSERT_TRUE(full.ok());
    uint64_t cut = 0;
    for (const ChunkRef& c : full->chunks())
        if (c.kind == static_cast<uint16_t>(format::ChunkKind::kRoots)) cut = c.offset + 10;
    auto bytes = testing::readFile(path);
    bytes.resize(cut);
    std::string cut_path = testing::tempPath("cutsnap2");
    testing::writeFile(cut_path, bytes);
    auto f = openTrace(cut_path);
    EXPECT_TRUE(f->truncated());
    auto h = HeapHistory::build(*f);
    ASSERT_TRUE(h.ok());
    EXPECT_EQ(h->diagnostics()[Anomaly::kSnapshotCutOff].count, 1u);
    EXPECT_EQ(h->diagnostics().errorCount(), 0u);

    EXPECT_FALSE(h->gcs()[0].has_snapshot);
}

// A thread's buffer of allocations can be written after the snapshot that names its objects. Cut
// between the two (a killed JVM), the snapshot's roots and references to those objects are notes
// of the cut, not contradictions; in the whole trace they resolve.
TEST(Snapshots, ObjectsAllocatedInTheCutOffPartAreANote) {
    WriterOptions o;
    o.compress = false;
    TraceBuilder t("cutalloc", o);
    for (uint64_t id = 0; id < 10; ++id)
        t.alloc(id);
    t.gc(0, 12);  // 10 and 11 were allocated before GC 0; their events come later
    t.snapshot(0, {{0, E{TraceBuilder::strong(11)}}},
               {TraceBuilder::staticRoot(0), TraceBuilder::staticRoot(10)});
    t.flush();
    t.alloc(10).alloc(11);
    t.flush();
    t.gc(1, 12);
    const std::string path = t.finish();

    auto whole = openTrace(path);
    auto h = HeapHistory::build(*whole);
    ASSERT_TRUE(h.ok());
    EXPECT_EQ(h->diagnostics()[Anomaly::kCutOffAlloc].count, 0u);
    EXPECT_EQ(h->diagnostics().errorCount(), 0u);

    uint64_t cut = 0;
    for (const ChunkRef& c : whole->chunks())
        if (c.kind == static_cast<uint16_t>(format::ChunkKind::kRoots)) cut = c.end();
    ASSERT_NE(cut, 0u);
    auto bytes = testing::readFile(path);
    bytes.resize(cut + 10);
    const std::string cut_path = testing::tempPath("cutalloc2");
    testing::writeFile(cut_path, bytes);
    auto f = openTrace(cut_path);
    EXPECT_TRUE(f->truncated());
    auto c = HeapHistory::build(*f);
    ASSERT_TRUE(c.ok());
    auto heap = c->heapAt(0);
    ASSERT_TRUE(heap.ok());
    auto snap = c->snapshotFor(*heap);
    ASSERT_TRUE(snap.ok() && snap->has_value());
    EXPECT_EQ((*snap)->roots.size(), 1u);  // the root of 10 is dropped
    EXPECT_EQ(c->diagnostics()[Anomaly::kCutOffAlloc].count, 2u)
        << c->diagnostics()[Anomaly::kCutOffAlloc].first;
    EXPECT_EQ(c->diagnostics().errorCount(), 0u);
}

// A from-roots producer (format::kSnapshotsFromRoots) lists what its walk reached: 0 (root) ->
// 1 -> 2 -> 0, and 3 (root, no references). 4 and 5 are alive but unreached (old garbage).
std::string fromRootsTrace(bool flag, const std::function<void(TraceBuilder&)>& extra = {}) {
    TraceBuilder t("from-roots");
    if (flag) t.writer().meta(format::kMetaSnapshots, format::kSnapshotsFromRoots);
    for (uint64_t id = 0; id < 6; ++id)
        t.alloc(id, id == 3 ? 2 : 1);
    t.gc(0, 6);
    if (extra) {
        extra(t);
    } else {
        t.snapshot(0,
                   {{0, E{TraceBuilder::strong(1)}},
                    {1, E{TraceBuilder::strong(2)}},
                    {2, E{TraceBuilder::strong(0)}}},
                   {TraceBuilder::staticRoot(0), TraceBuilder::staticRoot(3)});
    }
    t.gc(1, 6);
    return t.finish();
}

struct Reach {
    GcRecord gc;
    bool walked = true;
};

// GC 0's figures as the history build finds them, and whether its snapshot took the walk.
Reach reachOf(const std::string& path) {
    auto f = openTrace(path);
    auto h = HeapHistory::build(*f);
    EXPECT_TRUE(h.ok()) << h.error().message;
    Reach r{h->gcs()[0]};
    auto heap = h->heapAt(0);
    EXPECT_TRUE(heap.ok());
    SnapshotLoadOptions lo;
    lo.watermark = h->watermarks()[0];
    lo.from_roots = f->metaValue(format::kMetaSnapshots) != nullptr;
    ReachScratch scratch;
    auto s = snapshotReachability(*f, h->snapshots()[0], heap->view(), lo, scratch);
    EXPECT_TRUE(s.ok()) << s.error().message;
    if (s.ok()) {
        r.walked = s->walked;
        EXPECT_EQ(s->reach.reachable_bytes, r.gc.reachable_bytes);
        EXPECT_EQ(s->edges, r.gc.snapshot_edges);
    }
    return r;
}

TEST(Snapshots, AFromRootsListingIsReachableWithoutAWalk) {
    const Reach fast = reachOf(fromRootsTrace(true));
    const Reach walked = reachOf(fromRootsTrace(false));
    EXPECT_FALSE(fast.walked);
    EXPECT_TRUE(walked.walked);
    for (const Reach* r : {&fast, &walked}) {
        EXPECT_EQ(r->gc.reachable_objects, 4u);
        EXPECT_EQ(r->gc.reachable_bytes, 3 * 16u + 24);  // 3 is a B (24 bytes)
        EXPECT_EQ(r->gc.unreached_objects, 2u);
        EXPECT_EQ(r->gc.unreached_bytes, 32u);
        EXPECT_EQ(r->gc.snapshot_edges, 3u);
        EXPECT_EQ(r->gc.snapshot_roots, 2u);
    }
}

// What a from-roots listing cannot say alone takes the walk: an object held only weakly is
// listed but not strongly reachable; a listed object the heap lacks is an anomaly to name.
TEST(Snapshots, AFromRootsListingWalksWhereItCannotTell) {
    const Reach weak = reachOf(fromRootsTrace(true, [](TraceBuilder& t) {
        t.snapshot(0,
                   {{0, E{TraceBuilder::strong(1), TraceBuilder::weak(4)}}, {4, E{TraceBuilder::strong(5)}}},
                   {TraceBuilder::staticRoot(0)});
    }));
    EXPECT_TRUE(weak.walked);
    EXPECT_EQ(weak.gc.reachable_objects, 2u);  // 0 and 1; 4 and 5 hang on a weak reference
    EXPECT_EQ(weak.gc.unreached_objects, 4u);

    const std::string dangling = fromRootsTrace(true, [](TraceBuilder& t) {
        t.snapshot(0, {{0, E{TraceBuilder::strong(1), TraceBuilder::strong(7)}}},
                   {TraceBuilder::staticRoot(0)});
    });
    const Reach d = reachOf(dangling);
    EXPECT_TRUE(d.walked);
    EXPECT_EQ(d.gc.reachable_objects, 2u);
    auto f = openTrace(dangling);
    auto h = HeapHistory::build(*f);
    ASSERT_TRUE(h.ok());
    EXPECT_EQ(h->diagnostics()[Anomaly::kNewerEdge].count, 1u);  // 7 is past GC 0's watermark
}

// On a scenario written with the flag, every snapshot's figures from the build (none walked)
// equal those of the full snapshot loaded with its graph and walked, on one thread and on two
// (small chunks: most snapshots span several, which the two threads share).
TEST(Snapshots, FromRootsFiguresEqualTheWalkOnAScenario) {
    const std::string path = testing::tempPath("from-roots-gm");
    synth::SynthOptions options;
    options.writer.chunk_bytes = 4096;
    ASSERT_TRUE(synth::synthesize("growing-map", path, options).ok());
    auto f = openTrace(path);
    ASSERT_NE(f->metaValue(format::kMetaSnapshots), nullptr);
    auto h = HeapHistory::build(*f);
    ASSERT_TRUE(h.ok()) << h.error().message;
    size_t checked = 0;
    ReachScratch scratch;
    Status s = h->forEachHeap(0, static_cast<uint32_t>(h->gcCount() - 1), [&](const HeapView& view) {
        const GcRecord& g = h->gcs()[view.gc()];
        if (!g.has_snapshot) return true;
        const SnapshotInfo* info = nullptr;
        for (const SnapshotInfo& i : h->snapshots())
            if (i.gc == view.gc()) info = &i;
        EXPECT_NE(info, nullptr);
        SnapshotLoadOptions lo;
        lo.watermark = h->watermarks()[view.gc()];
        auto snap = loadSnapshot(*f, *info, view.store(), lo);
        EXPECT_TRUE(snap.ok());
        const Reachability r = computeReachability(*snap, view.store(), view.positions(), view.shapes(),
                                                   view.symbols(), view.alignment());
        EXPECT_EQ(g.reachable_objects, r.reachable_objects) << "GC " << view.gc();
        EXPECT_EQ(g.reachable_bytes, r.reachable_bytes) << "GC " << view.gc();
        EXPECT_EQ(g.unreached_objects, r.unreached_objects) << "GC " << view.gc();
        EXPECT_EQ(g.unreached_bytes, r.unreached_bytes) << "GC " << view.gc();
        EXPECT_EQ(g.snapshot_edges, snap->graph.edgeCount()) << "GC " << view.gc();
        EXPECT_EQ(g.snapshot_roots, snap->roots.size()) << "GC " << view.gc();
        lo.from_roots = true;
        for (unsigned threads : {1u, 2u}) {
            lo.threads = threads;
            auto fast = snapshotReachability(*f, *info, view, lo, scratch);
            EXPECT_TRUE(fast.ok()) << fast.error().message;
            if (!fast.ok()) return false;
            EXPECT_FALSE(fast->walked) << "GC " << view.gc();
            EXPECT_EQ(fast->reach.reachable_objects, r.reachable_objects)
                << "GC " << view.gc() << ", " << threads;
            EXPECT_EQ(fast->reach.unreached_bytes, r.unreached_bytes)
                << "GC " << view.gc() << ", " << threads;
        }
        ++checked;
        return true;
    });
    ASSERT_TRUE(s.ok()) << s.error().message;
    EXPECT_EQ(checked, h->gcCount());
}

}  // namespace
}  // namespace memcity
