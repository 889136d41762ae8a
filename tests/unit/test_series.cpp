// Tree series: the meta tree, per-GC counts, sort orders, pruning, interpolation and lossless ids,
// on tiny hand-made traces with exact answers and on the growing-map and buggy-stack scenarios.
#include <gtest/gtest.h>

#include "classify/series.h"
#include "classify/shape_counter.h"
#include "classify/tree.h"
#include "graph/heap_graph.h"
#include "heap/heap_history.h"
#include "synth/synth.h"
#include "unit/loaded_heap.h"
#include "unit/trace_builder.h"

namespace memcity {
namespace {

using testing::TraceBuilder;

using Loaded = testing::LoadedHistory;

Loaded load(const std::string& path) {
    return Loaded(path);
}

Loaded scenario(const std::string& name) {
    const std::string path = testing::tempPath("series-" + name);
    EXPECT_TRUE(synth::synthesize(name, path, {}).ok());
    return load(path);
}

ClassifierChain chainOf(std::string_view spec) {
    auto c = parseChain(spec);
    EXPECT_TRUE(c.ok()) << (c.ok() ? "" : c.error().message);
    return c.ok() ? std::move(*c) : ClassifierChain{};
}

TreeSeries seriesOf(const HeapHistory& h, const ClassifierChain& chain, SeriesOptions options = {}) {
    auto s = TreeSeries::build(h, chain, options);
    EXPECT_TRUE(s.ok()) << (s.ok() ? "" : s.error().message);
    if (!s) std::abort();
    return std::move(*s);
}

// The counts of the node at `path`, one per GC of the series.
std::vector<SeriesCounts> countsOf(const TreeSeries& s, const std::vector<std::string>& path) {
    const uint32_t id = s.find(path);
    EXPECT_NE(id, kNoNode) << "no node " << ::testing::PrintToString(path);
    std::vector<SeriesCounts> out;
    for (uint32_t g = s.firstGc(); g <= s.lastGc(); ++g)
        out.push_back(id == kNoNode ? SeriesCounts{~0ull, ~0ull} : s.counts(id, g));
    return out;
}

std::vector<std::string> labels(const TreeSeries& s, const std::vector<uint32_t>& ids) {
    std::vector<std::string> out;
    for (uint32_t id : ids)
        out.push_back(s.label(id));
    return out;
}

using Ids = std::vector<uint64_t>;

}  // namespace

std::ostream& operator<<(std::ostream& o, const SeriesCounts& c) {
    return o << "{" << c.objects << " objects, " << c.bytes << " B}";
}

namespace {

// Four GCs (type, site; A 16 B, B 24 B, int[n] 16 + 4n B rounded to 8):
//   GC 0: A 0, A 1 (Main.run:10), B 2 (Main.other:20)
//   GC 1: + int[10] 3 (Main.run:10); B 2 dies                 -> no B
//   GC 2: + B 4, A 5 (Main.other:20); A 0 dies                -> B is back
//   GC 3: + int[100] 6 (Main.other:20), A 7 (Main.run:10); B 4 and int[] 3 die
std::string lifecycleTrace() {
    TraceBuilder b("series-life");
    b.alloc(0).alloc(1).alloc(2, 2, 2);
    b.gc(0, 3);
    b.allocArray(3, 3, 10, 1);
    b.gc(1, 4, {2});
    b.alloc(4, 2, 2).alloc(5, 1, 2);
    b.gc(2, 6, {0});
    b.allocArray(6, 3, 100, 2).alloc(7);
    b.gc(3, 8, {3, 4});
    return b.finish();
}

const std::string kRun = "Main.run(Main.java:10)";
const std::string kOther = "Main.other(Main.java:20)";

TEST(Series, NodesKeepTheirIdWhenTheyVanishAndComeBack) {
    Loaded l = load(lifecycleTrace());
    ClassifierChain chain = chainOf("type");
    for (unsigned threads : {1u, 2u}) {
        SeriesOptions o;
        o.threads = threads;
        TreeSeries s = seriesOf(*l.history, chain, o);
        EXPECT_TRUE(s.countedPerShape());
        EXPECT_EQ(s.firstGc(), 0u);
        EXPECT_EQ(s.lastGc(), 3u);
        EXPECT_EQ(s.gcCount(), 4u);
        EXPECT_EQ(s.size(), 4u);  // Overall, A, B, int[]
        using C = SeriesCounts;
        EXPECT_EQ(countsOf(s, {}), (std::vector<C>{{3, 56}, {3, 88}, {4, 112}, {4, 464}}));
        EXPECT_EQ(countsOf(s, {"A"}), (std::vector<C>{{2, 32}, {2, 32}, {2, 32}, {3, 48}}));
        EXPECT_EQ(countsOf(s, {"B"}), (std::vector<C>{{1, 24}, {0, 0}, {1, 24}, {0, 0}}));
        EXPECT_EQ(countsOf(s, {"int[]"}), (std::vector<C>{{0, 0}, {1, 56}, {1, 56}, {1, 416}}));
        const uint32_t b = s.find({"B"}), ints = s.find({"int[]"});
        EXPECT_EQ(s.node(b).first_gc, 0u);
        EXPECT_EQ(s.node(ints).first_gc, 1u);
        EXPECT_EQ(s.node(b).parent, TreeSeries::kRoot);
        EXPECT_EQ(s.node(b).level, 1u);
        EXPECT_EQ(s.node(b).depth, 1u);
        EXPECT_EQ(s.classifierSpec(b), "type");
        EXPECT_EQ(s.root().children.size(), 3u);
        // Outside the series everything reads 0.
        EXPECT_EQ(s.counts(TreeSeries::kRoot, 4), (C{0, 0}));
        EXPECT_EQ(s.values(b, Metric::kObjects), (std::vector<uint64_t>{1, 0, 1, 0}));
        EXPECT_EQ(s.growth(ints, Metric::kBytes), 416);
        EXPECT_EQ(s.growth(b, Metric::kBytes), -24);
    }
}

TEST(Series, TwoLevelsAndAWindow) {
    Loaded l = load(lifecycleTrace());
    ClassifierChain chain = chainOf("type,site");
    TreeSeries s = seriesOf(*l.history, chain);
    using C = SeriesCounts;
    EXPECT_EQ(countsOf(s, {"A", kRun}), (std::vector<C>{{2, 32}, {2, 32}, {1, 16}, {2, 32}}));
    EXPECT_EQ(countsOf(s, {"A", kOther}), (std::vector<C>{{0, 0}, {0, 0}, {1, 16}, {1, 16}}));
    EXPECT_EQ(countsOf(s, {"B", kOther}), (std::vector<C>{{1, 24}, {0, 0}, {1, 24}, {0, 0}}));
    EXPECT_EQ(countsOf(s, {"int[]", kRun}), (std::vector<C>{{0, 0}, {1, 56}, {1, 56}, {0, 0}}));
    EXPECT_EQ(countsOf(s, {"int[]", kOther}), (std::vector<C>{{0, 0}, {0, 0}, {0, 0}, {1, 416}}));
    EXPECT_EQ(s.node(s.find({"int[]", kOther})).first_gc, 3u);
    EXPECT_EQ(s.path(s.find({"A", kOther})), "A / " + kOther);
    EXPECT_EQ(s.find({"A", "nowhere"}), kNoNode);
    EXPECT_EQ(s.size(), 9u);

    // The same over GCs 1..2 only: nodes first seen at GC 3 do not exist.
    SeriesOptions o;
    o.from = 1;
    o.to = 2;
    TreeSeries w = seriesOf(*l.history, chain, o);
    EXPECT_EQ(w.firstGc(), 1u);
    EXPECT_EQ(w.lastGc(), 2u);
    EXPECT_EQ(countsOf(w, {"A", kRun}), (std::vector<C>{{2, 32}, {1, 16}}));
    EXPECT_EQ(countsOf(w, {"B", kOther}), (std::vector<C>{{0, 0}, {1, 24}}));
    EXPECT_EQ(w.find({"int[]", kOther}), kNoNode);
    EXPECT_EQ(w.counts(w.find({"A"}), 0), (C{0, 0}));  // before the window
}

TEST(Series, PerHeapChainsCountEveryObjectAtEveryGc) {
    // age is not a shape property: each heap is classified by ClassificationTree and merged.
    // Watermarks 3, 4, 6, 8: ids 0-2 are born in epoch 0, 3 in 1, 4-5 in 2, 6-7 in 3.
    Loaded l = load(lifecycleTrace());
    ClassifierChain chain = chainOf("age,type");
    for (unsigned threads : {1u, 2u}) {
        SeriesOptions o;
        o.threads = threads;
        TreeSeries s = seriesOf(*l.history, chain, o);
        EXPECT_FALSE(s.countedPerShape());
        using C = SeriesCounts;
        EXPECT_EQ(countsOf(s, {}), (std::vector<C>{{3, 56}, {3, 88}, {4, 112}, {4, 464}}));
        EXPECT_EQ(countsOf(s, {"age 1"}), (std::vector<C>{{3, 56}, {1, 56}, {2, 40}, {2, 432}}));
        EXPECT_EQ(countsOf(s, {"age 1", "B"}), (std::vector<C>{{1, 24}, {0, 0}, {1, 24}, {0, 0}}));
        EXPECT_EQ(countsOf(s, {"age 1", "A"}), (std::vector<C>{{2, 32}, {0, 0}, {1, 16}, {1, 16}}));
        EXPECT_EQ(countsOf(s, {"age 2"}), (std::vector<C>{{0, 0}, {2, 32}, {1, 56}, {1, 16}}));
        EXPECT_EQ(countsOf(s, {"age 2", "int[]"}), (std::vector<C>{{0, 0}, {0, 0}, {1, 56}, {0, 0}}));
        EXPECT_EQ(countsOf(s, {"age 4", "A"}), (std::vector<C>{{0, 0}, {0, 0}, {0, 0}, {1, 16}}));
    }
}

TEST(Series, FiltersLeaveObjectsOutAtEveryGc) {
    Loaded l = load(lifecycleTrace());
    for (const char* filter : {"type == \"A\"", "type == \"A\" && age >= 2"}) {
        ClassifierChain chain = chainOf("type");
        auto f = parseFilter(filter);
        ASSERT_TRUE(f.ok()) << f.error().message;
        chain.filters.push_back(std::move(*f));
        TreeSeries s = seriesOf(*l.history, chain);
        using C = SeriesCounts;
        if (std::string(filter) == "type == \"A\"") {
            EXPECT_TRUE(s.countedPerShape());
            EXPECT_EQ(countsOf(s, {}), (std::vector<C>{{2, 32}, {2, 32}, {2, 32}, {3, 48}}));
            EXPECT_EQ(s.filtered(1), (C{1, 56}));
            EXPECT_EQ(s.filtered(3), (C{1, 416}));
        } else {
            EXPECT_FALSE(s.countedPerShape());
            // Old A objects: none at GC 0, ids 0-1 at GC 1, id 1 at GC 2, ids 1 and 5 at GC 3.
            EXPECT_EQ(countsOf(s, {}), (std::vector<C>{{0, 0}, {2, 32}, {1, 16}, {2, 32}}));
            EXPECT_EQ(s.filtered(0), (C{3, 56}));
        }
        EXPECT_EQ(s.root().children.size(), 1u);
    }
}

// An object whose stack holds both methods goes under both `calls` children, and counts once
// above them.
TEST(Series, OneToManyIsNotCountedTwice) {
    TraceBuilder b("series-many");
    Frame frames[] = {{1, 10}, {2, 20}};
    b.writer().defineSite(3, frames);
    b.alloc(0, 1, 3).alloc(1, 1, 1).alloc(2, 2, 2);  // A (both), A (run), B (other)
    b.gc(0, 3);
    b.alloc(3, 1, 3);  // A (both)
    b.gc(1, 4, {1});
    Loaded l = load(b.finish());
    using C = SeriesCounts;
    for (const char* spec : {"calls", "calls,age"}) {  // per shape, per heap
        ClassifierChain chain = chainOf(spec);
        SeriesOptions o;
        o.lossless_path = std::vector<std::string>{"Main.other"};
        TreeSeries s = seriesOf(*l.history, chain, o);
        EXPECT_EQ(s.countedPerShape(), std::string(spec) == "calls");
        EXPECT_EQ(countsOf(s, {}), (std::vector<C>{{3, 56}, {3, 56}})) << spec;
        EXPECT_EQ(countsOf(s, {"Main.run"}), (std::vector<C>{{2, 32}, {2, 32}})) << spec;
        EXPECT_EQ(countsOf(s, {"Main.other"}), (std::vector<C>{{2, 40}, {3, 56}})) << spec;
        EXPECT_EQ(s.selectedIds(0), (Ids{0, 2})) << spec;
        EXPECT_EQ(s.selectedIds(1), (Ids{0, 2, 3})) << spec;
    }
}

// GC 0: A x5, B x3, int[1] x1; GC 1: A x2 (three died), B x7, int[1] x6 (int[1]: 24 B).
std::string ordersTrace() {
    TraceBuilder b("series-orders");
    for (uint64_t id = 0; id < 5; ++id)
        b.alloc(id, 1);
    for (uint64_t id = 5; id < 8; ++id)
        b.alloc(id, 2);
    b.allocArray(8, 3, 1);
    b.gc(0, 9);
    for (uint64_t id = 9; id < 13; ++id)
        b.alloc(id, 2);
    for (uint64_t id = 13; id < 18; ++id)
        b.allocArray(id, 3, 1);
    b.gc(1, 18, {0, 1, 2});
    return b.finish();
}

TEST(Series, SortStrategiesFixOneOrder) {
    Loaded l = load(ordersTrace());
    ClassifierChain chain = chainOf("type");
    TreeSeries s = seriesOf(*l.history, chain);
    const uint32_t root = TreeSeries::kRoot;
    using V = std::vector<std::string>;
    // Objects: A 5 -> 2, B 3 -> 7, int[] 1 -> 6.
    EXPECT_EQ(labels(s, s.sortedChildren(root, SortStrategy::kStartSize, Metric::kObjects)),
              (V{"A", "B", "int[]"}));
    EXPECT_EQ(labels(s, s.sortedChildren(root, SortStrategy::kEndSize, Metric::kObjects)),
              (V{"B", "int[]", "A"}));
    EXPECT_EQ(labels(s, s.sortedChildren(root, SortStrategy::kGrowth, Metric::kObjects)),
              (V{"int[]", "B", "A"}));
    // Bytes: A 80 -> 32, B 72 -> 168, int[] 24 -> 144.
    EXPECT_EQ(labels(s, s.sortedChildren(root, SortStrategy::kStartSize, Metric::kBytes)),
              (V{"A", "B", "int[]"}));
    EXPECT_EQ(labels(s, s.sortedChildren(root, SortStrategy::kEndSize, Metric::kBytes)),
              (V{"B", "int[]", "A"}));
    EXPECT_EQ(labels(s, s.sortedChildren(root, SortStrategy::kGrowth, Metric::kBytes)),
              (V{"int[]", "B", "A"}));
    EXPECT_EQ(s.growth(s.find({"A"}), Metric::kBytes), -48);
    EXPECT_EQ(s.growth(s.find({"int[]"}), Metric::kBytes), 120);
}

TEST(Series, TiesAreBrokenByEndThenStartThenLabel) {
    // A: 2 -> 2, B: 1 -> 1: both grow by 0; the end value puts A first.
    TraceBuilder b("series-ties");
    b.alloc(0, 1).alloc(1, 1).alloc(2, 2).allocArray(3, 3, 1);
    b.gc(0, 4);
    b.gc(1, 4, {3});  // int[]: 1 -> 0
    Loaded l = load(b.finish());
    ClassifierChain chain = chainOf("type");
    TreeSeries s = seriesOf(*l.history, chain);
    using V = std::vector<std::string>;
    EXPECT_EQ(labels(s, s.sortedChildren(TreeSeries::kRoot, SortStrategy::kGrowth, Metric::kObjects)),
              (V{"A", "B", "int[]"}));
    EXPECT_EQ(labels(s, s.sortedChildren(TreeSeries::kRoot, SortStrategy::kEndSize, Metric::kObjects)),
              (V{"A", "B", "int[]"}));
    // A and B hold 1 object each at the start (by objects A wins on its end value 2 > 1); by
    // start size int[] (1) ties with B (1) and B's larger end puts it before int[].
    EXPECT_EQ(labels(s, s.sortedChildren(TreeSeries::kRoot, SortStrategy::kStartSize, Metric::kObjects)),
              (V{"A", "B", "int[]"}));
}

TEST(Series, PruningKeepsAPrefixThatCoversEveryGc) {
    Loaded l = load(ordersTrace());
    ClassifierChain chain = chainOf("type");
    TreeSeries s = seriesOf(*l.history, chain);
    const uint32_t root = TreeSeries::kRoot;
    using V = std::vector<std::string>;
    // Totals: 9 objects at GC 0, 15 at GC 1.
    PruneOptions p;
    // 90%: int[] + B hold 4 of 9 at GC 0, so A is needed too.
    SeriesPrunedChildren all = s.prunedChildren(root, SortStrategy::kGrowth, Metric::kObjects, p);
    EXPECT_EQ(labels(s, all.shown), (V{"int[]", "B", "A"}));
    EXPECT_TRUE(all.folded.empty());
    // 40%: int[] alone holds 1/9 at GC 0; int[] + B hold 4/9 and 13/15.
    p.share = 0.4;
    SeriesPrunedChildren growth = s.prunedChildren(root, SortStrategy::kGrowth, Metric::kObjects, p);
    EXPECT_EQ(labels(s, growth.shown), (V{"int[]", "B"}));
    EXPECT_EQ(labels(s, growth.folded), (V{"A"}));
    EXPECT_EQ(s.sum(growth.folded, 0, Metric::kObjects), 5u);
    EXPECT_EQ(s.sum(growth.folded, 1, Metric::kObjects), 2u);
    // By start size A comes first: 5/9 at GC 0 but only 2/15 at GC 1, so B joins it; int[] is
    // folded although it is the second largest at GC 1.
    SeriesPrunedChildren start = s.prunedChildren(root, SortStrategy::kStartSize, Metric::kObjects, p);
    EXPECT_EQ(labels(s, start.shown), (V{"A", "B"}));
    EXPECT_EQ(labels(s, start.folded), (V{"int[]"}));
    // At most N children.
    p.share = 0.9;
    p.max_children = 1;
    SeriesPrunedChildren one = s.prunedChildren(root, SortStrategy::kEndSize, Metric::kObjects, p);
    EXPECT_EQ(labels(s, one.shown), (V{"B"}));
    EXPECT_EQ(labels(s, one.folded), (V{"int[]", "A"}));
    EXPECT_EQ(s.sum(one.folded, 1, Metric::kBytes), 176u);
    p.enabled = false;
    EXPECT_EQ(s.prunedChildren(root, SortStrategy::kEndSize, Metric::kObjects, p).shown.size(), 3u);
}

TEST(Series, ValuesBetweenGcsAreInterpolated) {
    Loaded l = load(ordersTrace());
    ClassifierChain chain = chainOf("type");
    TreeSeries s = seriesOf(*l.history, chain);
    const uint32_t root = TreeSeries::kRoot, b = s.find({"B"}), a = s.find({"A"});
    EXPECT_DOUBLE_EQ(s.valueAt(root, 0.0, Metric::kObjects), 9.0);
    EXPECT_DOUBLE_EQ(s.valueAt(root, 0.25, Metric::kObjects), 10.5);
    EXPECT_DOUBLE_EQ(s.valueAt(root, 1.0, Metric::kObjects), 15.0);
    EXPECT_DOUBLE_EQ(s.valueAt(root, -3.0, Metric::kObjects), 9.0);  // clamped
    EXPECT_DOUBLE_EQ(s.valueAt(root, 7.5, Metric::kObjects), 15.0);
    EXPECT_DOUBLE_EQ(s.valueAt(b, 0.5, Metric::kObjects), 5.0);
    EXPECT_DOUBLE_EQ(s.valueAt(a, 0.5, Metric::kBytes), 56.0);  // 80 -> 32
    const uint32_t ab[] = {a, b};
    EXPECT_DOUBLE_EQ(s.sumAt(ab, 0.5, Metric::kObjects), 8.5);
}

TEST(Series, LosslessModeKeepsTheIdsOfOneNode) {
    Loaded l = load(lifecycleTrace());
    {
        ClassifierChain chain = chainOf("type");
        SeriesOptions o;
        o.lossless_path = std::vector<std::string>{"A"};
        TreeSeries s = seriesOf(*l.history, chain, o);
        EXPECT_TRUE(s.lossless());
        EXPECT_EQ(s.selectedNode(), s.find({"A"}));
        EXPECT_EQ(s.selectedIds(0), (Ids{0, 1}));
        EXPECT_EQ(s.selectedIds(1), (Ids{0, 1}));
        EXPECT_EQ(s.selectedIds(2), (Ids{1, 5}));
        EXPECT_EQ(s.selectedIds(3), (Ids{1, 5, 7}));
        EXPECT_EQ(s.selectedIds(4), Ids{});
        EXPECT_EQ(s.commonIds(0, 3), (Ids{1}));
        EXPECT_EQ(s.commonIds(2, 3), (Ids{1, 5}));
    }
    {
        ClassifierChain chain = chainOf("type");
        SeriesOptions o;
        o.lossless_path = std::vector<std::string>{"B"};
        TreeSeries s = seriesOf(*l.history, chain, o);
        EXPECT_EQ(s.selectedIds(0), (Ids{2}));
        EXPECT_EQ(s.selectedIds(1), Ids{});
        EXPECT_EQ(s.selectedIds(2), (Ids{4}));
        EXPECT_EQ(s.selectedIds(3), Ids{});
    }
    for (bool incremental : {true, false}) {
        // A node first seen at the last GC; and the root keeps every live object.
        ClassifierChain chain = chainOf("type,site");
        SeriesOptions o;
        o.incremental = incremental;
        o.lossless_path = std::vector<std::string>{"int[]", kOther};
        TreeSeries s = seriesOf(*l.history, chain, o);
        EXPECT_EQ(s.selectedNode(), s.find({"int[]", kOther}));
        EXPECT_EQ(s.selectedIds(2), Ids{});
        EXPECT_EQ(s.selectedIds(3), (Ids{6}));
        o.lossless_path = std::vector<std::string>{};
        TreeSeries all = seriesOf(*l.history, chain, o);
        EXPECT_EQ(all.selectedNode(), TreeSeries::kRoot);
        EXPECT_EQ(all.selectedIds(2), (Ids{1, 3, 4, 5}));
        EXPECT_EQ(all.selectedIds(3), (Ids{1, 5, 6, 7}));
    }
    {
        // A per-heap chain: the objects of age 1 at each GC.
        ClassifierChain chain = chainOf("age,type");
        SeriesOptions o;
        o.lossless_path = std::vector<std::string>{"age 1"};
        TreeSeries s = seriesOf(*l.history, chain, o);
        EXPECT_EQ(s.selectedIds(0), (Ids{0, 1, 2}));
        EXPECT_EQ(s.selectedIds(1), (Ids{3}));
        EXPECT_EQ(s.selectedIds(2), (Ids{4, 5}));
        EXPECT_EQ(s.selectedIds(3), (Ids{6, 7}));
        o.lossless_path = std::vector<std::string>{"age 2", "int[]"};
        TreeSeries deep = seriesOf(*l.history, chain, o);
        EXPECT_EQ(deep.selectedIds(1), Ids{});
        EXPECT_EQ(deep.selectedIds(2), (Ids{3}));
        EXPECT_EQ(deep.selectedIds(3), Ids{});
    }
    {
        // A path no object reaches, and no lossless mode.
        ClassifierChain chain = chainOf("type");
        SeriesOptions o;
        o.lossless_path = std::vector<std::string>{"Nothing"};
        TreeSeries s = seriesOf(*l.history, chain, o);
        EXPECT_EQ(s.selectedNode(), kNoNode);
        EXPECT_EQ(s.selectedIds(1), Ids{});
        TreeSeries off = seriesOf(*l.history, chain);
        EXPECT_FALSE(off.lossless());
        EXPECT_EQ(off.selectedNode(), kNoNode);
    }
}

TEST(Series, BadWindowsAreRefused) {
    Loaded l = load(lifecycleTrace());
    ClassifierChain chain = chainOf("type");
    SeriesOptions o;
    o.from = 2;
    o.to = 1;
    auto r = TreeSeries::build(*l.history, chain, o);
    ASSERT_FALSE(r.ok());
    EXPECT_NE(r.error().message.find("starts at GC 2, after its last GC 1"), std::string::npos)
        << r.error().message;
    o.from = 0;
    o.to = 4;
    r = TreeSeries::build(*l.history, chain, o);
    ASSERT_FALSE(r.ok());
    EXPECT_NE(r.error().message.find("GC 4 is out of range: the trace has 4 GCs (0..3)"), std::string::npos)
        << r.error().message;
    o.from = 9;
    o.to = SeriesOptions::kLastGc;
    EXPECT_FALSE(TreeSeries::build(*l.history, chain, o).ok());
    // A hook that fails, and a cancelled build.
    o.from = 0;
    o.before_heap = [](const HeapView& heap) -> Status {
        if (heap.gc() == 2) return Error{"no snapshot for GC 2"};
        return {};
    };
    r = TreeSeries::build(*l.history, chain, o);
    ASSERT_FALSE(r.ok());
    EXPECT_EQ(r.error().message, "no snapshot for GC 2");
    o.before_heap = nullptr;
    std::vector<uint32_t> seen;
    o.progress = Progress([&](const ProgressReport& p) {
        seen.push_back(static_cast<uint32_t>(p.position));
        return p.position < 1;
    });
    r = TreeSeries::build(*l.history, chain, o);
    ASSERT_FALSE(r.ok());
    EXPECT_EQ(seen, (std::vector<uint32_t>{0, 1}));
}

// The incremental counter counts again only the epochs that lost objects, and agrees with a
// full count at every GC.
TEST(Series, ShapeCounterCountsOnlyChangedEpochs) {
    Loaded l = load(lifecycleTrace());
    ShapeCounter incremental({1, true}), full({2, false});
    std::vector<size_t> counted;
    Status st = l.history->forEachHeap(0, 3, [&](const HeapView& heap) {
        incremental.update(heap);
        full.update(heap);
        counted.push_back(incremental.countedEpochs());
        EXPECT_EQ(full.countedEpochs(), heap.gc() + 1u);
        EXPECT_EQ(incremental.counts().size(), full.counts().size());
        for (size_t sh = 0; sh < full.counts().size(); ++sh) {
            EXPECT_EQ(incremental.counts()[sh].objects, full.counts()[sh].objects) << "GC " << heap.gc();
            EXPECT_EQ(incremental.counts()[sh].bytes, full.counts()[sh].bytes) << "GC " << heap.gc();
        }
        return true;
    });
    ASSERT_TRUE(st.ok());
    // GC 1: epoch 0 lost B 2; GC 2: epoch 0 lost A 0, epoch 1 kept int[] 3; GC 3: epoch 0 kept
    // A 1, epochs 1 and 2 lost int[] 3 and B 4. Plus the new epoch each time.
    EXPECT_EQ(counted, (std::vector<size_t>{1, 2, 2, 3}));
}

// With old epochs merged (at most 3 here), the counts and the kept ids still match a full count
// and a direct scan at every GC.
TEST(Series, ShapeCounterMergesOldEpochs) {
    Loaded l = scenario("gc-hotspot");
    ShapeCounter merged({2, true, 3}), full({1, false});
    size_t gcs = 0;
    Status st =
        l.history->forEachHeap(0, static_cast<uint32_t>(l.history->gcCount() - 1), [&](const HeapView& heap) {
            merged.update(heap);
            full.update(heap);
            ++gcs;
            EXPECT_LE(merged.countedEpochs(), 4u);  // the 3 kept and the new one
            for (size_t sh = 0; sh < full.counts().size(); ++sh) {
                EXPECT_EQ(merged.counts()[sh].objects, full.counts()[sh].objects) << "GC " << heap.gc();
                EXPECT_EQ(merged.counts()[sh].bytes, full.counts()[sh].bytes) << "GC " << heap.gc();
            }
            std::vector<uint8_t> marked(heap.shapes().size());
            for (size_t sh = 0; sh < marked.size(); sh += 2)
                marked[sh] = 1;
            Ids direct;
            heap.forEachLive([&](size_t pos) {
                if (marked[heap.shapeId(pos)]) direct.push_back(heap.id(pos));
            });
            EXPECT_EQ(merged.collectIds(heap, marked), direct) << "GC " << heap.gc();
            return true;
        });
    ASSERT_TRUE(st.ok());
    EXPECT_EQ(gcs, 18u);
}

// Object 1 is born before GC 0 ended but written after GC 1 (a late allocation): it joins epoch 0
// at GC 1 just as object 0 leaves it, so epoch 0 holds two objects at both GCs although its
// content changed. Such a trace is counted in full.
TEST(Series, LateAllocationsAreCountedInFull) {
    TraceBuilder b("series-late");
    b.alloc(0).alloc(2);
    b.gc(0, 3);
    b.alloc(3, 2);
    b.gc(1, 4, {0});
    b.alloc(1, 2);  // still part of the heap of GC 1, which completes when GC 2 starts
    b.gc(2, 4);
    Loaded l = load(b.finish());
    ASSERT_EQ(l.history->diagnostics()[Anomaly::kLateAlloc].count, 1u);
    ClassifierChain chain = chainOf("type");
    TreeSeries s = seriesOf(*l.history, chain);
    using C = SeriesCounts;
    EXPECT_EQ(countsOf(s, {"A"}), (std::vector<C>{{2, 32}, {1, 16}, {1, 16}}));
    EXPECT_EQ(countsOf(s, {"B"}), (std::vector<C>{{0, 0}, {2, 48}, {2, 48}}));
}

TEST(Series, IncrementalCountsEqualFullCountsAndSingleTrees) {
    Loaded l = scenario("gc-hotspot");  // the index dies at the end of the hotspot: old epochs lose objects
    ClassifierChain chain = chainOf("type,site(callers=1)");
    SeriesOptions o;
    o.threads = 2;
    TreeSeries fast = seriesOf(*l.history, chain, o);
    o.threads = 1;
    o.incremental = false;
    TreeSeries full = seriesOf(*l.history, chain, o);
    ASSERT_EQ(fast.size(), full.size());
    ASSERT_EQ(fast.gcCount(), 18u);
    for (uint32_t id = 0; id < fast.size(); ++id) {
        ASSERT_EQ(fast.path(id), full.path(id));
        for (uint32_t g = fast.firstGc(); g <= fast.lastGc(); ++g)
            ASSERT_EQ(fast.counts(id, g), full.counts(id, g)) << fast.path(id) << " at GC " << g;
    }
    // Every node of the single tree of a GC has the series' counts at that GC.
    for (uint32_t g : {7u, 13u, fast.lastGc()}) {
        auto heap = l.history->heapAt(g);
        ASSERT_TRUE(heap.ok());
        ClassificationTree tree = ClassificationTree::build(heap->view(), chain);
        for (uint32_t t = 0; t < tree.size(); ++t) {
            std::vector<std::string> path;
            for (uint32_t at = t; at != ClassificationTree::kRoot; at = tree.node(at).parent)
                path.insert(path.begin(), tree.label(at));
            const uint32_t id = fast.find(path);
            ASSERT_NE(id, kNoNode) << tree.path(t);
            EXPECT_EQ(fast.counts(id, g), (SeriesCounts{tree.node(t).objects, tree.node(t).bytes}))
                << tree.path(t);
        }
    }
}

// The growing map of STAG20 §7.2 at scale 1, over its serving phase (GCs 3..26): sorted by
// absolute growth in bytes, the types and sites that the scenario says grow come first.
TEST(Series, GrowingMapGrowersComeFirst) {
    Loaded l = scenario("growing-map");
    SeriesOptions o;
    o.from = 3;
    o.threads = 2;
    using V = std::vector<std::string>;
    const std::string location = "com.dynatrace.easytravel.jpa.business.Location";
    const std::string query_key = "com.dynatrace.easytravel.business.JourneyService$QueryKey";
    const std::string node = "java.util.concurrent.ConcurrentHashMap$Node";
    const std::string search =
        "com.dynatrace.easytravel.business.LocationSearch.search(LocationSearch.java:44)";
    const std::string find_locations =
        "com.dynatrace.easytravel.business.JourneyService.findLocations(JourneyService.java:74)";
    {
        ClassifierChain chain = chainOf("type");
        TreeSeries s = seriesOf(*l.history, chain, o);
        ASSERT_EQ(s.lastGc(), 26u);
        std::vector<uint32_t> sorted =
            s.sortedChildren(TreeSeries::kRoot, SortStrategy::kGrowth, Metric::kBytes);
        V top = labels(s, {sorted.begin(), sorted.begin() + 8});
        std::sort(top.begin(), top.end());
        V growers{"byte[]",           location,
                  query_key,          "java.lang.Object[]",
                  "java.lang.String", "java.util.ArrayList",
                  "java.util.Date",   node};
        std::sort(growers.begin(), growers.end());
        EXPECT_EQ(top, growers);
        EXPECT_EQ(s.label(sorted[8]), node + "[]");  // the cache's table
        for (size_t i = 9; i < sorted.size(); ++i)
            EXPECT_EQ(s.growth(sorted[i], Metric::kBytes), 0) << s.label(sorted[i]);  // the steady parts
        // R = 4,000 requests: R QueryKeys and map nodes, 2.5 R + 200 Locations at the end.
        EXPECT_EQ(s.value(s.find({query_key}), 26, Metric::kObjects), 4'000u);
        EXPECT_EQ(s.value(s.find({node}), 26, Metric::kObjects), 4'000u);
        EXPECT_EQ(s.value(s.find({location}), 26, Metric::kObjects), 10'200u);
        EXPECT_EQ(s.value(s.find({"com.dynatrace.easytravel.jpa.business.Booking"}), 26, Metric::kObjects),
                  50u);
        // The eight growers hold 90% of the heap at every GC of the phase: the rest is "Other".
        SeriesPrunedChildren kids =
            s.prunedChildren(TreeSeries::kRoot, SortStrategy::kGrowth, Metric::kBytes);
        EXPECT_EQ(std::vector<uint32_t>(sorted.begin(), sorted.begin() + 8), kids.shown);
        EXPECT_EQ(kids.folded.size(), sorted.size() - 8);
    }
    {
        ClassifierChain chain = chainOf("site");
        TreeSeries s = seriesOf(*l.history, chain, o);
        std::vector<uint32_t> sorted =
            s.sortedChildren(TreeSeries::kRoot, SortStrategy::kGrowth, Metric::kBytes);
        EXPECT_EQ(s.label(sorted[0]), search);
        SeriesPrunedChildren kids =
            s.prunedChildren(TreeSeries::kRoot, SortStrategy::kGrowth, Metric::kBytes);
        EXPECT_NE(std::find(kids.shown.begin(), kids.shown.end(), s.find({find_locations})),
                  kids.shown.end());
    }
    {
        ClassifierChain chain = chainOf("type,site(callers=1)");
        TreeSeries s = seriesOf(*l.history, chain, o);
        const uint32_t loc = s.find({location});
        const std::vector<uint32_t> kids = s.sortedChildren(loc, SortStrategy::kGrowth, Metric::kBytes);
        EXPECT_EQ(s.label(kids[0]), search);
        const std::vector<uint32_t> callers =
            s.sortedChildren(kids[0], SortStrategy::kGrowth, Metric::kBytes);
        EXPECT_EQ(s.label(callers[0]),
                  "com.dynatrace.easytravel.business.JourneyService.findLocations(JourneyService.java:77)");
        const uint32_t qk = s.find({query_key});
        ASSERT_EQ(s.node(qk).children.size(), 1u);
        EXPECT_EQ(s.label(s.node(qk).children[0]), find_locations);
    }
}

// The buggy stack of ICPE18 §5.3 at scale 1: N = 10,000 TestObjects at GC a (3) and GC b (4);
// between them 1,000 were replaced, so 9,000 of the ids are the same.
TEST(Series, BuggyStackTestObjectsOverTime) {
    Loaded l = scenario("buggy-stack");
    const std::string test_object = "at.jku.data.TestObject";
    ClassifierChain chain = chainOf("type");
    SeriesOptions o;
    o.lossless_path = std::vector<std::string>{test_object};
    TreeSeries s = seriesOf(*l.history, chain, o);
    ASSERT_EQ(s.gcCount(), 5u);
    // Filling: the young generation fills at 2,049, 4,097 and 8,193 objects (the array doubles).
    EXPECT_EQ(s.values(s.find({test_object}), Metric::kObjects),
              (std::vector<uint64_t>{2'049, 4'097, 8'193, 10'000, 10'000}));
    EXPECT_EQ(s.value(s.find({test_object}), 4, Metric::kBytes), 160'000u);
    EXPECT_EQ(s.selectedIds(3).size(), 10'000u);
    EXPECT_EQ(s.selectedIds(4).size(), 10'000u);
    EXPECT_EQ(s.commonIds(3, 4).size(), 9'000u);
    // Of the 2,049 at GC 0, the refill overwrote the 1,000 in slots 0..999.
    EXPECT_EQ(s.commonIds(0, 4).size(), 1'049u);

    // By site and caller: the refill (main:47) holds exactly the 1,000 ids born between a and b.
    ClassifierChain by_site = chainOf("type,site(callers=1)");
    o.lossless_path = std::vector<std::string>{test_object, "at.jku.BuggyMain.fill(BuggyMain.java:21)",
                                               "at.jku.BuggyMain.main(BuggyMain.java:47)"};
    TreeSeries refill = seriesOf(*l.history, by_site, o);
    EXPECT_EQ(refill.values(refill.selectedNode(), Metric::kObjects),
              (std::vector<uint64_t>{0, 0, 0, 0, 1'000}));
    const Ids born = refill.selectedIds(4);
    const Ids a = s.selectedIds(3), b = s.selectedIds(4);
    Ids only_b;
    std::set_difference(b.begin(), b.end(), a.begin(), a.end(), std::back_inserter(only_b));
    EXPECT_EQ(born, only_b);
}

// A series over chosen GCs only: values and interpolation between the GCs it holds.
TEST(Series, ChosenGcsOnly) {
    Loaded l = scenario("buggy-stack");
    ClassifierChain chain = chainOf("type");
    SeriesOptions o;
    o.include_gc = [](uint32_t gc) { return gc % 2 == 0; };
    TreeSeries s = seriesOf(*l.history, chain, o);
    EXPECT_EQ(s.gcs(), (std::vector<uint32_t>{0, 2, 4}));
    const uint32_t t = s.find({"at.jku.data.TestObject"});
    EXPECT_EQ(s.values(t, Metric::kObjects), (std::vector<uint64_t>{2'049, 8'193, 10'000}));
    EXPECT_EQ(s.value(t, 1, Metric::kObjects), 0u);  // not in the series
    EXPECT_DOUBLE_EQ(s.valueAt(t, 1.0, Metric::kObjects), (2'049.0 + 8'193.0) / 2);
    EXPECT_DOUBLE_EQ(s.valueAt(t, 3.0, Metric::kObjects), (8'193.0 + 10'000.0) / 2);
    EXPECT_EQ(s.growth(t, Metric::kObjects), 10'000 - 2'049);
    o.include_gc = [](uint32_t) { return false; };
    EXPECT_FALSE(TreeSeries::build(*l.history, chain, o).ok());
}

// STAG20 §7.2 with the containing-data-structure classifier (it reads references: each GC's
// snapshot is attached to its heap): the leaking cache ranks first by growth.
TEST(Series, GrowingMapCacheRanksFirstByStructure) {
    Loaded l = scenario("growing-map");
    ClassifierChain chain = chainOf("structure,type");
    std::unique_ptr<HeapState> state;
    std::unique_ptr<HeapGraph> graph;
    SeriesOptions o;
    o.include_gc = [&](uint32_t gc) { return l.history->gcs()[gc].has_snapshot; };
    o.prepare_heap = [&](const HeapView& replayed) -> Result<HeapView> {
        graph.reset();
        state = std::make_unique<HeapState>(replayed);
        auto snap = l.history->snapshotFor(*state);
        if (!snap) return snap.error();
        graph = std::make_unique<HeapGraph>(state->view(), std::move(**snap));
        return state->view().withGraph(graph.get());
    };
    TreeSeries s = seriesOf(*l.history, chain, o);
    EXPECT_EQ(s.gcCount(), l.history->gcCount());
    const auto top = s.sortedChildren(TreeSeries::kRoot, SortStrategy::kGrowth, Metric::kBytes);
    ASSERT_FALSE(top.empty());
    EXPECT_EQ(s.label(top[0]),
              "java.util.concurrent.ConcurrentHashMap (allocated in "
              "com.dynatrace.easytravel.business.JourneyService.<init>(JourneyService.java:51))");
    const uint32_t keys =
        s.find({s.label(top[0]), "com.dynatrace.easytravel.business.JourneyService$QueryKey"});
    ASSERT_NE(keys, kNoNode);
    EXPECT_EQ(s.value(keys, s.lastGc(), Metric::kObjects), 4'000u);
    // It grows at every GC of the serving phase (3..26).
    const std::vector<uint64_t> v = s.values(top[0], Metric::kBytes);
    for (size_t g = 4; g < v.size(); ++g)
        EXPECT_GT(v[g], v[g - 1]) << "GC " << g;
}

}  // namespace
}  // namespace memcity

namespace memcity {
namespace {

// The explorer builds the series while the history is still being rebuilt, from the heaps the
// build hands out: the same series as TreeSeries::build afterwards, column for column.
TEST(SeriesBuilder, FedDuringTheHistoryBuildEqualsTheSeriesBuiltAfter) {
    const std::string path = testing::tempPath("series-stream-growing-map");
    ASSERT_TRUE(synth::synthesize("growing-map", path, {}).ok());
    auto file = TraceFile::open(path);
    ASSERT_TRUE(file.ok());
    const ClassifierChain chain = chainOf("package,type,site");
    TreeSeriesBuilder builder(file->symbols(), chain, {});
    std::vector<size_t> sizes_seen;
    HistoryOptions ho;
    ho.on_heap = [&](const HeapView& heap, const GcRecord&) {
        EXPECT_TRUE(builder.add(heap).ok());
        sizes_seen.push_back(builder.series().gcCount());
        return true;
    };
    auto history = HeapHistory::build(*file, ho);
    ASSERT_TRUE(history.ok());
    const TreeSeries streamed = builder.take();
    const TreeSeries built = seriesOf(*history, chain);
    ASSERT_EQ(streamed.gcs(), built.gcs());
    ASSERT_EQ(streamed.size(), built.size());
    EXPECT_EQ(sizes_seen.front(), 1u);  // the first GC is there as soon as its heap is
    EXPECT_EQ(sizes_seen.back(), built.gcCount());
    for (uint32_t id = 0; id < built.size(); ++id) {
        ASSERT_EQ(streamed.path(id), built.path(id));
        for (uint32_t g : built.gcs())
            ASSERT_EQ(streamed.counts(id, g), built.counts(id, g)) << built.path(id) << " at GC " << g;
    }
}

TEST(SeriesBuilder, RefusesAGcOutOfOrderAndStaysSpent) {
    Loaded l = scenario("buggy-stack");
    const ClassifierChain chain = chainOf("type");
    TreeSeriesBuilder builder(l.file->symbols(), chain, {});
    auto h3 = l.history->heapAt(3);
    auto h2 = l.history->heapAt(2);
    ASSERT_TRUE(h3.ok() && h2.ok());
    ASSERT_TRUE(builder.add(h3->view()).ok());
    Status st = builder.add(h2->view());
    ASSERT_FALSE(st.ok());
    EXPECT_EQ(st.error().message, "the tree series was handed GC 2 after GC 3");
    EXPECT_FALSE(builder.add(h3->view()).ok());
    EXPECT_EQ(builder.series().gcCount(), 1u);
}

}  // namespace
}  // namespace memcity
