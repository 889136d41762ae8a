// A sampled trace's reference snapshot (heap/whole_heap.h): its GC's heap made whole by the
// objects the walk listed besides the samples. Checked against the same run recorded whole:
// synth's growing-map written exact and sampled, with snapshots at the same GCs. At each, the
// sampled trace's whole heap must be the exact twin's, type by type, with the same references:
// the same reachable figures, the same retained bytes per type, the same GC roots.
#include <gtest/gtest.h>

#include <map>
#include <string>

#include "classify/classifier.h"
#include "graph/dominators.h"
#include "graph/group_report.h"
#include "graph/heap_graph.h"
#include "synth/synth.h"
#include "trace/event_decoder.h"
#include "unit/loaded_heap.h"
#include "unit/trace_builder.h"

namespace memcity {
namespace {

struct Twins {
    std::unique_ptr<testing::LoadedHistory> exact, sampled;
};

const Twins& twins() {
    static Twins t = [] {
        Twins out;
        synth::SynthOptions o;
        o.scale = 2;
        o.refs_every = 10;
        const std::string exact = testing::tempPath("snap-exact");
        EXPECT_TRUE(synth::synthesize("growing-map", exact, o).ok());
        o.writer.sampling_interval = 16 << 10;
        const std::string sampled = testing::tempPath("snap-sampled");
        EXPECT_TRUE(synth::synthesize("growing-map", sampled, o).ok());
        out.exact = std::make_unique<testing::LoadedHistory>(exact);
        out.sampled = std::make_unique<testing::LoadedHistory>(sampled);
        return out;
    }();
    return t;
}

// Per type name: objects, bytes, and what its objects retain one by one (summed, and the most).
struct TypeFacts {
    uint64_t objects = 0, bytes = 0, retained_sum = 0, retained_max = 0;
    bool operator==(const TypeFacts&) const = default;
};

std::map<std::string, TypeFacts> factsOf(const HeapGraph& g) {
    const HeapView& heap = g.heap();
    auto dom = computeDominators(heap, g.snapshot());
    EXPECT_TRUE(dom.ok());
    std::map<std::string, TypeFacts> out;
    heap.forEachLive([&](size_t pos) {
        TypeFacts& f = out[heap.symbols().types()[heap.type(pos)].name];
        f.objects++;
        f.bytes += heap.size(pos);
        f.retained_sum += dom->retainedBytes(pos);
        f.retained_max = std::max(f.retained_max, dom->retainedBytes(pos));
    });
    return out;
}

// Root identity label -> objects it references directly.
std::map<std::string, uint64_t> rootsOf(const HeapGraph& g) {
    std::map<std::string, uint64_t> out;
    for (size_t pos = 0; pos < g.size(); ++pos)
        for (uint32_t id : g.directRoots(pos))
            out[g.rootIdentityLabel(id)]++;
    return out;
}

std::unique_ptr<HeapGraph> graphAt(const testing::LoadedHistory& t, uint32_t gc, HeapState& heap) {
    auto s = t.history->heapAt(gc);
    EXPECT_TRUE(s.ok());
    heap = std::move(*s);
    auto g = loadGraph(*t.history, heap);
    EXPECT_TRUE(g.ok()) << (g.ok() ? "" : g.error().message);
    return g.ok() ? std::move(*g) : nullptr;
}

TEST(SampledSnapshot, MakesItsGcsHeapWholeAsTheExactTwinSeesIt) {
    const Twins& t = twins();
    ASSERT_TRUE(t.exact->history && t.sampled->history);
    const HeapHistory& exact = *t.exact->history;
    const HeapHistory& sampled = *t.sampled->history;
    ASSERT_TRUE(sampled.sampled());
    ASSERT_EQ(exact.gcCount(), sampled.gcCount());
    EXPECT_EQ(t.sampled->history->diagnostics().errorCount() + t.sampled->history->diagnostics().noteCount(),
              0u);
    int compared = 0;
    for (uint32_t gc = 0; gc < exact.gcCount(); ++gc) {
        const GcRecord& e = exact.gcs()[gc];
        const GcRecord& s = sampled.gcs()[gc];
        ASSERT_EQ(e.has_snapshot, s.has_snapshot) << "GC " << gc;
        if (!s.has_snapshot) continue;
        SCOPED_TRACE("GC " + std::to_string(gc));
        // What the roots reach, counted as the history is built.
        EXPECT_EQ(s.reachable_objects, e.reachable_objects);
        EXPECT_EQ(s.reachable_bytes, e.reachable_bytes);
        EXPECT_EQ(s.snapshot_roots, e.snapshot_roots);
        EXPECT_EQ(s.snapshot_edges, e.snapshot_edges);

        HeapState eh, sh;
        auto eg = graphAt(*t.exact, gc, eh);
        auto sg = graphAt(*t.sampled, gc, sh);
        ASSERT_TRUE(eg && sg);
        ASSERT_NE(sg->whole(), nullptr);
        EXPECT_EQ(eg->whole(), nullptr);
        // The samples keep their positions; the rest follow them.
        EXPECT_EQ(sg->whole()->samplePositions(), sh.view().positions());
        EXPECT_EQ(sg->size(), eg->size());
        EXPECT_EQ(sg->heap().liveObjects(), e.live_objects);
        EXPECT_EQ(sg->heap().liveBytes(), e.live_bytes);
        EXPECT_EQ(sg->reachableBytes(), eg->reachableBytes());
        for (size_t pos = 0; pos < sh.view().positions(); ++pos)
            ASSERT_EQ(sg->heap().id(pos), sh.view().id(pos));
        EXPECT_EQ(factsOf(*sg), factsOf(*eg));
        EXPECT_EQ(rootsOf(*sg), rootsOf(*eg));
        ++compared;
    }
    EXPECT_GE(compared, 5);
}

TEST(SampledSnapshot, AGroupOfSamplesIsReportedOverTheWholeHeap) {
    const Twins& t = twins();
    ASSERT_TRUE(t.sampled->history);
    const HeapHistory& h = *t.sampled->history;
    uint32_t gc = 0;
    for (uint32_t g = 0; g < h.gcCount(); ++g)
        if (h.gcs()[g].has_snapshot) gc = g;
    HeapState heap;
    auto graph = graphAt(*t.sampled, gc, heap);
    ASSERT_TRUE(graph);
    // Every sample alive at the GC: what they reach and retain are objects of the whole heap.
    Bitset samples(heap.view().positions());
    heap.view().forEachLive([&](size_t pos) { samples.set(pos); });
    ASSERT_FALSE(samples.empty());
    auto report = buildGroupReport(*graph, graph->fit(samples));
    ASSERT_TRUE(report.ok()) << report.error().message;
    EXPECT_EQ(report->closure.shallow.objects, heap.view().liveObjects());
    EXPECT_GT(report->closure.deep.objects, report->closure.shallow.objects);
    EXPECT_GE(report->closure.retained.objects, report->closure.shallow.objects);
    EXPECT_LE(report->closure.deep.bytes, graph->heap().liveBytes());
    EXPECT_FALSE(report->paths.paths.empty());
    // The heap they are a share of is the whole one.
    EXPECT_EQ(report->heap.objects, graph->heap().liveObjects());
    // A group the size of the whole heap is taken as it is.
    EXPECT_EQ(graph->fit(report->deep_set).size(), graph->size());
}

TEST(SampledSnapshot, ItsGcsWithoutSnapshotHaveNoReferences) {
    const Twins& t = twins();
    ASSERT_TRUE(t.sampled->history);
    const HeapHistory& h = *t.sampled->history;
    uint32_t gc = 1;
    while (gc < h.gcCount() && h.gcs()[gc].has_snapshot)
        ++gc;
    ASSERT_LT(gc, h.gcCount());
    auto heap = h.heapAt(gc);
    ASSERT_TRUE(heap.ok());
    // Objects the walk alone listed may have died since: no earlier snapshot stands in.
    auto snap = h.snapshotFor(*heap);
    ASSERT_TRUE(snap.ok());
    EXPECT_FALSE(snap->has_value());
    auto graph = loadGraph(h, *heap);
    ASSERT_FALSE(graph.ok());
    EXPECT_NE(graph.error().message.find("has no reference snapshot"), std::string::npos);
}

// A hand-made sampled trace: one sample (object 1, alive at GC 0, whose watermark is 2), and a
// snapshot that lists two more objects, 10 and 12: 1 -> 10 -> 12, 1 a JNI global.
std::string handMade(const std::string& stem) {
    WriterOptions o;
    o.sampling_interval = 1000;
    testing::TraceBuilder b(stem, o);
    TraceWriter& w = b.writer();
    b.alloc(1);
    b.gc(0, 2);
    w.beginSnapshot(0);
    AllocEvent a;
    a.id = 10;
    a.type = 1;
    w.snapshotUnsampled(a);
    a.id = 12;
    w.snapshotUnsampled(a);
    const Edge from_sample[] = {testing::TraceBuilder::strong(10)};
    const Edge from_ten[] = {testing::TraceBuilder::strong(12)};
    w.snapshotObject(1, from_sample);
    w.snapshotObject(10, from_ten);
    w.snapshotRoot(Root::make(static_cast<uint32_t>(format::RootKind::kJniGlobal), 1, {}));
    w.endSnapshot();
    return b.finish();
}

TEST(SampledSnapshot, AHandMadeSnapshotRetainsWhatItsSampleHolds) {
    testing::LoadedHistory t(handMade("whole-hand"));
    ASSERT_TRUE(t.history);
    EXPECT_EQ(t.history->diagnostics().errorCount() + t.history->diagnostics().noteCount(), 0u);
    const GcRecord& g = t.history->gcs()[0];
    ASSERT_TRUE(g.has_snapshot);
    auto heap = t.history->heapAt(0);
    ASSERT_TRUE(heap.ok());
    auto graph = loadGraph(*t.history, *heap);
    ASSERT_TRUE(graph.ok()) << graph.error().message;
    const HeapGraph& hg = **graph;
    ASSERT_EQ(hg.size(), 3u);
    EXPECT_EQ(hg.whole()->unsampledObjects(), 2u);
    // Sample 1 -> 10 -> 12 (object 11 is not there): the sample retains all three.
    EXPECT_EQ(g.reachable_objects, 3u);
    Bitset sample(heap->view().positions());
    sample.set(0);
    auto report = buildGroupReport(hg, hg.fit(sample));
    ASSERT_TRUE(report.ok());
    EXPECT_EQ(report->closure.retained.objects, 3u);
    EXPECT_EQ(report->closure.shallow.objects, 1u);
}

// A sampled snapshot whose sample's neighbours and data structure were not sampled: sample 1 (an
// A) is held by an unsampled Object[] 10 (a JNI global) and holds an unsampled B 12.
std::string heldByTheUnsampled(const std::string& stem) {
    WriterOptions o;
    o.sampling_interval = 1000;
    testing::TraceBuilder b(stem, o);
    TraceWriter& w = b.writer();
    b.alloc(1);
    b.gc(0, 2);
    w.beginSnapshot(0);
    AllocEvent array;
    array.id = 10;
    array.type = 4;
    array.length = 1;
    w.snapshotUnsampled(array);
    AllocEvent held;
    held.id = 12;
    held.type = 2;
    w.snapshotUnsampled(held);
    const Edge from_array[] = {testing::TraceBuilder::strong(1)};
    const Edge from_sample[] = {testing::TraceBuilder::strong(12)};
    w.snapshotObject(10, from_array);
    w.snapshotObject(1, from_sample);
    w.snapshotRoot(Root::make(static_cast<uint32_t>(format::RootKind::kJniGlobal), 10, {}));
    w.endSnapshot();
    return b.finish();
}

// The labels `spec` (one classifier) gives the object at `pos`, its paths joined by " / ".
std::vector<std::string> labelsOf(const HeapView& view, size_t pos, const std::string& spec) {
    auto chain = parseChain(spec);
    EXPECT_TRUE(chain.ok()) << spec;
    if (!chain) return {};
    const Classifier& c = *chain->classifiers.front();
    std::vector<Key> keys;
    c.classify(view, pos, keys);
    std::vector<std::string> out;
    if (c.cardinality() != Cardinality::kPaths) {
        for (Key k : keys)
            out.push_back(c.label(view.symbols(), k));
        return out;
    }
    std::string path;
    size_t depth = 0;
    for (Key k : keys) {
        if (k == kPathEnd) {
            out.push_back(path);
            path.clear();
            depth = 0;
            continue;
        }
        path += (depth ? " / " : "") + c.pathLabel(view.symbols(), k, depth);
        ++depth;
    }
    return out;
}

TEST(SampledSnapshot, ReferenceClassifiersReadTheUnsampledNeighboursInTheWholeHeap) {
    testing::LoadedHistory t(heldByTheUnsampled("whole-neighbours"));
    ASSERT_TRUE(t.history);
    auto heap = t.history->heapAt(0);
    ASSERT_TRUE(heap.ok());
    auto graph = loadGraph(*t.history, *heap);
    ASSERT_TRUE(graph.ok()) << graph.error().message;
    ASSERT_EQ((*graph)->size(), 3u);
    // As classifiers get it: the samples' heap (one position), the whole heap's references.
    const HeapView view = heap->view().withGraph(graph->get());
    ASSERT_EQ(view.positions(), 1u);
    using Labels = std::vector<std::string>;
    EXPECT_EQ(labelsOf(view, 0, "points-to(type)"), Labels{"B"});
    EXPECT_EQ(labelsOf(view, 0, "pointed-from(type)"), Labels{"Object[]"});
    // A nested transformer reads the neighbour's references too.
    EXPECT_EQ(labelsOf(view, 0, "points-to(points-to(type))"), Labels{"references nothing"});
    EXPECT_EQ(labelsOf(view, 0, "structure"),
              Labels{"Object[] (allocated in " + view.symbols().siteLabel(0) + ")"});
    EXPECT_EQ(labelsOf(view, 0, "in-degree"), Labels{"referenced 1 time"});
    EXPECT_EQ(labelsOf(view, 0, "roots"), Labels{"JNI global"});
}

// The objects a snapshot lists stand above every sample: one that does not (a corrupt or
// hostile file) makes the snapshot unusable, said in one line that names the chunk's offset,
// and the GC keeps its estimates; inspecting it says there is no snapshot.
TEST(SampledSnapshot, AListedObjectAmongTheSamplesMakesTheSnapshotUnusable) {
    WriterOptions o;
    o.sampling_interval = 1000;
    testing::TraceBuilder b("whole-bad", o);
    TraceWriter& w = b.writer();
    b.alloc(1);
    b.alloc(5);
    b.gc(0, 6);
    w.beginSnapshot(0);
    AllocEvent a;
    a.id = 3;
    a.type = 1;
    w.snapshotUnsampled(a);
    const Edge from_sample[] = {testing::TraceBuilder::strong(3)};
    w.snapshotObject(1, from_sample);
    w.snapshotRoot(Root::make(static_cast<uint32_t>(format::RootKind::kJniGlobal), 1, {}));
    w.endSnapshot();
    testing::LoadedHistory t(b.finish());
    ASSERT_TRUE(t.history);
    EXPECT_FALSE(t.history->gcs()[0].has_snapshot);
    EXPECT_EQ(t.history->diagnostics().errorCount(), 1u);
    const std::string said = t.history->diagnostics()[Anomaly::kIncompleteSnapshot].first;
    EXPECT_NE(said.find("object 3 of the snapshot of GC 0 is not above the heap's objects (5)"),
              std::string::npos)
        << said;
    EXPECT_NE(said.find("offset"), std::string::npos) << said;
    auto heap = t.history->heapAt(0);
    ASSERT_TRUE(heap.ok());
    EXPECT_FALSE(loadGraph(*t.history, *heap).ok());
}

// A walk its producer abandoned after some of it was written (another GC overtook it) is
// dropped quietly: no anomaly, no snapshot at that GC, the next one's taken as usual.
TEST(SampledSnapshot, AnAbandonedWalkIsDroppedQuietly) {
    WriterOptions o;
    o.sampling_interval = 1000;
    o.chunk_bytes = 16;  // (its objects reach the file before it is abandoned)
    testing::TraceBuilder b("whole-abandoned", o);
    TraceWriter& w = b.writer();
    b.alloc(1);
    b.gc(0, 2);
    w.beginSnapshot(0);
    for (uint64_t id : {uint64_t{20}, uint64_t{10}, uint64_t{30}}) {
        AllocEvent a;
        a.id = id;
        a.type = 1;
        w.snapshotUnsampled(a);
    }
    w.cancelSnapshot();
    b.gc(1, 3);
    w.beginSnapshot(1);
    AllocEvent a;
    a.id = 40;
    a.type = 1;
    w.snapshotUnsampled(a);
    const Edge from_sample[] = {testing::TraceBuilder::strong(40)};
    w.snapshotObject(1, from_sample);
    w.snapshotRoot(Root::make(static_cast<uint32_t>(format::RootKind::kJniGlobal), 1, {}));
    w.endSnapshot();
    testing::LoadedHistory t(b.finish());
    ASSERT_TRUE(t.history);
    EXPECT_EQ(t.history->diagnostics().errorCount() + t.history->diagnostics().noteCount(), 0u);
    EXPECT_FALSE(t.history->gcs()[0].has_snapshot);
    ASSERT_TRUE(t.history->gcs()[1].has_snapshot);
    EXPECT_EQ(t.history->gcs()[1].reachable_objects, 2u);
}

}  // namespace
}  // namespace memcity
