// Sunburst and icicle: the adjacency layout of a tree series (extents, order, tweening, scaling,
// local and global views, pruning), on tiny hand-made traces with exact answers.
#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <map>

#include "scene/radial_layout.h"
#include "scene/scene_test_util.h"
#include "unit/trace_builder.h"

namespace memcity::scene {
namespace {

using testing::LoadedSeries;
using testing::loadSeries;
using testing::TraceBuilder;

// Bytes (A 16, B 24, int[1] 24):
//   GC 0: A x5 (80), B x3 (72), int[1] x1 (24)   = 176
//   GC 1: A x2 (32), B x7 (168), int[1] x6 (144) = 344
// Growth puts int[] (+120) first, then B (+96), then A (-48).
std::string ordersTrace() {
    TraceBuilder b("radial-orders");
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

// Three levels (type, site, thread; sites 1 "run" and 2 "other", threads 1 "main", 2 "worker"):
//   GC 0: A run main, A run worker, A other main, B run main, B other worker
//   GC 1: + A run main, B other worker, B other main; A other main dies (A / other vanishes)
//   GC 2: + A other worker (A / other is back, under a new thread), int[4] run main (a new
//         type); B run main dies
std::string deepTrace() {
    TraceBuilder b("radial-deep");
    b.alloc(0, 1, 1, 1).alloc(1, 1, 1, 2).alloc(2, 1, 2, 1).alloc(3, 2, 1, 1).alloc(4, 2, 2, 2);
    b.gc(0, 5);
    b.alloc(5, 1, 1, 1).alloc(6, 2, 2, 2).alloc(7, 2, 2, 1);
    b.gc(1, 8, {2});
    b.alloc(8, 1, 2, 2).allocArray(9, 3, 4, 1, 1);
    b.gc(2, 10, {3});
    return b.finish();
}

// int[n] for n = 1..12, 13 - n objects each (78 objects), the same at both GCs.
std::string lengthsTrace() {
    TraceBuilder b("radial-lengths");
    uint64_t id = 0;
    for (uint64_t n = 1; n <= 12; ++n)
        for (uint64_t k = 0; k < 13 - n; ++k)
            b.allocArray(id++, 3, n);
    b.gc(0, id);
    b.gc(1, id);
    return b.finish();
}

const std::string kRun = "Main.run(Main.java:10)";
const std::string kOther = "Main.other(Main.java:20)";

// Items by node (not "Other" groups).
const RadialItem& itemOf(const RadialLayout& l, uint32_t node) {
    for (const RadialItem& item : l.items)
        if (item.node == node && !item.isOther()) return item;
    ADD_FAILURE() << "no item for node " << node;
    static RadialItem none;
    return none;
}

// Depth, nesting, containment, contiguity and (for chains where every object goes one level
// further) children filling their parent, with extents proportional to the values.
void expectConsistent(const TreeSeries& s, const RadialLayout& l, bool check_proportions) {
    ASSERT_FALSE(l.items.empty());
    EXPECT_EQ(l.items[0].parent_item, kNoItem);
    EXPECT_EQ(l.items[0].depth, 0u);
    EXPECT_DOUBLE_EQ(l.items[0].start, 0.0);
    std::vector<std::vector<size_t>> children(l.items.size());
    for (size_t i = 1; i < l.items.size(); ++i) {
        const RadialItem& item = l.items[i];
        ASSERT_LT(item.parent_item, i);
        EXPECT_EQ(item.depth, l.items[item.parent_item].depth + 1);
        children[item.parent_item].push_back(i);
    }
    constexpr double kEps = 1e-9;
    for (size_t i = 0; i < l.items.size(); ++i) {
        const RadialItem& p = l.items[i];
        EXPECT_LE(p.start, p.end);
        EXPECT_GE(p.start, 0.0);
        EXPECT_LE(p.end, 1.0 + kEps);
        EXPECT_NEAR(p.value, radialItemValueAt(s, l, p, l.t), 1e-6);
        if (children[i].empty()) continue;
        double at = p.start, sum = 0;
        for (size_t c : children[i]) {
            const RadialItem& child = l.items[c];
            EXPECT_NEAR(child.start, at, kEps) << "siblings are contiguous";
            EXPECT_GE(child.start, p.start - kEps);
            EXPECT_LE(child.end, p.end + kEps);
            if (check_proportions && p.value > 0) {
                EXPECT_NEAR(child.extent() / p.extent(), child.value / p.value, 1e-9)
                    << radialItemLabel(s, l, child);
            }
            at = child.end;
            sum += child.extent();
        }
        EXPECT_NEAR(sum, p.extent(), kEps) << "children fill " << radialItemLabel(s, l, p);
    }
}

// What must not change with time: which items there are, in which order and nesting.
std::vector<std::tuple<uint32_t, uint32_t, uint32_t, uint32_t, uint32_t>> structure(const RadialLayout& l) {
    std::vector<std::tuple<uint32_t, uint32_t, uint32_t, uint32_t, uint32_t>> out;
    for (const RadialItem& item : l.items)
        out.emplace_back(item.node, item.other, item.parent_item, item.depth, item.flags);
    return out;
}

TEST(RadialLayout, RingsSumToTheirParentWithAnglesProportionalToValues) {
    LoadedSeries l = loadSeries(ordersTrace(), "type");
    const TreeSeries& s = *l.series;
    RadialLayoutOptions o;  // bytes, by growth, unscaled, local view of the root
    RadialLayout at0 = layoutRadial(s, 0.0, o);
    ASSERT_EQ(at0.items.size(), 4u);
    EXPECT_EQ(at0.levels, 2u);
    std::vector<std::string> order;
    for (size_t i = 1; i < at0.items.size(); ++i)
        order.push_back(s.label(at0.items[i].node));
    EXPECT_EQ(order, (std::vector<std::string>{"int[]", "B", "A"}));
    // [0, 24/176), [24/176, 96/176), [96/176, 1).
    EXPECT_DOUBLE_EQ(at0.items[0].end, 1.0);
    EXPECT_NEAR(at0.items[1].end, 24.0 / 176, 1e-12);
    EXPECT_NEAR(at0.items[2].start, 24.0 / 176, 1e-12);
    EXPECT_NEAR(at0.items[2].end, 96.0 / 176, 1e-12);
    EXPECT_NEAR(at0.items[3].end, 1.0, 1e-12);
    EXPECT_DOUBLE_EQ(at0.items[3].value, 80.0);
    expectConsistent(s, at0, true);
    RadialLayout at1 = layoutRadial(s, 1.0, o);
    EXPECT_NEAR(at1.items[1].extent(), 144.0 / 344, 1e-12);
    EXPECT_NEAR(at1.items[2].extent(), 168.0 / 344, 1e-12);
    EXPECT_NEAR(at1.items[3].extent(), 32.0 / 344, 1e-12);
    expectConsistent(s, at1, true);
    // By objects: 9 then 15.
    o.metric = Metric::kObjects;
    RadialLayout objects = layoutRadial(s, 1.0, o);
    EXPECT_NEAR(itemOf(objects, s.find({"A"})).extent(), 2.0 / 15, 1e-12);
    // Time is clamped to the series.
    EXPECT_EQ(layoutRadial(s, 9.0, o).t, 1.0);
    EXPECT_EQ(layoutRadial(s, -2.0, o).t, 0.0);
}

TEST(RadialLayout, ChildrenStayInsideTheirParentsInOneOrderAtEveryTime) {
    LoadedSeries l = loadSeries(deepTrace(), "type,site,thread");
    const TreeSeries& s = *l.series;
    for (RadialView view : {RadialView::kLocal, RadialView::kGlobal}) {
        for (Metric metric : {Metric::kObjects, Metric::kBytes}) {
            for (SortStrategy sort :
                 {SortStrategy::kStartSize, SortStrategy::kEndSize, SortStrategy::kGrowth}) {
                RadialLayoutOptions o;
                o.view = view;
                o.metric = metric;
                o.sort = sort;
                const RadialLayout first = layoutRadial(s, 0.0, o);
                for (double t = 0.0; t <= 2.0; t += 0.25) {
                    SCOPED_TRACE(::testing::Message() << "t " << t << " view " << static_cast<int>(view));
                    RadialLayout at = layoutRadial(s, t, o);
                    expectConsistent(s, at, t == std::floor(t));
                    EXPECT_EQ(structure(at), structure(first)) << "the order never changes";
                    // Siblings in the strategy's order, the order the series fixes.
                    for (const RadialItem& item : at.items) {
                        if (item.isOther() || item.depth + 1 >= at.levels) continue;
                        std::vector<uint32_t> shown;
                        for (const RadialItem& child : at.items)
                            if (child.parent_item != kNoItem &&
                                at.items[child.parent_item].node == item.node &&
                                !at.items[child.parent_item].isOther() && !child.isOther())
                                shown.push_back(child.node);
                        EXPECT_EQ(shown, s.prunedChildren(item.node, sort, metric).shown);
                    }
                }
            }
        }
    }
}

TEST(RadialLayout, TweenHalfwayIsTheMeanOfTheTwoGcs) {
    LoadedSeries l = loadSeries(deepTrace(), "type,site,thread");
    const TreeSeries& s = *l.series;
    for (RadialScale scale : {RadialScale::kUnscaled, RadialScale::kScaled}) {
        RadialLayoutOptions o;
        o.view = RadialView::kGlobal;
        o.scale = scale;
        const RadialLayout a = layoutRadial(s, 1.0, o), b = layoutRadial(s, 2.0, o);
        for (double w : {0.5, 0.25}) {
            const RadialLayout mid = layoutRadial(s, 1.0 + w, o);
            ASSERT_EQ(mid.items.size(), a.items.size());
            for (size_t i = 0; i < mid.items.size(); ++i) {
                EXPECT_NEAR(mid.items[i].start, a.items[i].start + (b.items[i].start - a.items[i].start) * w,
                            1e-12);
                EXPECT_NEAR(mid.items[i].end, a.items[i].end + (b.items[i].end - a.items[i].end) * w, 1e-12);
                EXPECT_NEAR(mid.items[i].value, a.items[i].value + (b.items[i].value - a.items[i].value) * w,
                            1e-9);
            }
        }
    }
}

TEST(RadialLayout, NodesWithoutObjectsHaveZeroExtentAndFadeByTween) {
    LoadedSeries l = loadSeries(deepTrace(), "type,site,thread");
    const TreeSeries& s = *l.series;
    RadialLayoutOptions o;
    o.metric = Metric::kObjects;
    o.view = RadialView::kGlobal;
    const uint32_t a_other = s.find({"A", kOther}), ints = s.find({"int[]"});
    ASSERT_NE(a_other, kNoNode);
    ASSERT_NE(ints, kNoNode);
    // A / other: 1 object at GC 0, none at GC 1, 1 at GC 2. int[]: only at GC 2.
    EXPECT_GT(itemOf(layoutRadial(s, 0.0, o), a_other).extent(), 0.0);
    const RadialLayout at1 = layoutRadial(s, 1.0, o);
    EXPECT_EQ(itemOf(at1, a_other).extent(), 0.0);
    EXPECT_EQ(itemOf(at1, a_other).value, 0.0);
    EXPECT_EQ(itemOf(at1, ints).extent(), 0.0);
    EXPECT_EQ(itemOf(at1, s.find({"A", kOther, "main"})).extent(), 0.0);
    // Halfway to GC 2 int[] holds half its extent there (1 object of 8 there, and the root is
    // the whole circle at both GCs).
    const RadialLayout at2 = layoutRadial(s, 2.0, o);
    EXPECT_NEAR(itemOf(at2, ints).extent(), 1.0 / 8, 1e-12);
    EXPECT_NEAR(itemOf(layoutRadial(s, 1.5, o), ints).extent(), 0.5 / 8, 1e-12);
}

TEST(RadialLayout, UnscaledRootSpansTheCircleAndScaledFollowsTheHeap) {
    LoadedSeries l = loadSeries(ordersTrace(), "type");
    const TreeSeries& s = *l.series;
    RadialLayoutOptions o;
    for (double t : {0.0, 0.5, 1.0})
        EXPECT_DOUBLE_EQ(layoutRadial(s, t, o).items[0].extent(), 1.0);
    o.scale = RadialScale::kScaled;
    const RadialLayout at0 = layoutRadial(s, 0.0, o);
    EXPECT_DOUBLE_EQ(at0.root_max, 344.0);
    EXPECT_NEAR(at0.items[0].extent(), 176.0 / 344, 1e-12);
    EXPECT_NEAR(at0.items[3].extent(), 80.0 / 344, 1e-12);  // A: its bytes over the largest heap
    expectConsistent(s, at0, true);
    EXPECT_DOUBLE_EQ(layoutRadial(s, 1.0, o).items[0].extent(), 1.0);
    EXPECT_NEAR(layoutRadial(s, 0.5, o).items[0].extent(), 260.0 / 344, 1e-12);
}

TEST(RadialLayout, LocalViewShowsTheDrillRootAndTwoLevels) {
    LoadedSeries l = loadSeries(deepTrace(), "type,site,thread");
    const TreeSeries& s = *l.series;
    RadialLayoutOptions o;
    const RadialLayout top = layoutRadial(s, 2.0, o);
    EXPECT_EQ(top.levels, 3u);
    for (const RadialItem& item : top.items) {
        EXPECT_LE(item.depth, 2u);
        EXPECT_TRUE(item.flags & kRadialItemOnBranch);
    }
    EXPECT_EQ(top.items[0].flags & kRadialItemDrillRoot, kRadialItemDrillRoot);
    // Drilled into A: A is the centre, its sites and their threads around it.
    o.drill_root = s.find({"A"});
    const RadialLayout a = layoutRadial(s, 2.0, o);
    EXPECT_EQ(a.root, o.drill_root);
    EXPECT_EQ(a.items[0].node, o.drill_root);
    EXPECT_EQ(a.levels, 3u);
    EXPECT_DOUBLE_EQ(a.items[0].extent(), 1.0);
    size_t threads = 0;
    for (const RadialItem& item : a.items) {
        EXPECT_LE(item.depth, 2u);
        uint32_t top_node = item.node;
        while (s.node(top_node).parent != TreeSeries::kRoot)
            top_node = s.node(top_node).parent;
        EXPECT_EQ(top_node, o.drill_root) << s.path(item.node);
        threads += item.depth == 2;
    }
    EXPECT_EQ(threads, 4u);  // run: main, worker; other: main (empty now), worker
    expectConsistent(s, a, true);
    // One level in the local view; an unknown drill root is the series root.
    o.local_levels = 1;
    EXPECT_EQ(layoutRadial(s, 2.0, o).levels, 2u);
    o.drill_root = 12345;
    EXPECT_EQ(layoutRadial(s, 2.0, o).root, TreeSeries::kRoot);
}

TEST(RadialLayout, GlobalViewShowsEverythingAndFlagsTheDrillBranch) {
    LoadedSeries l = loadSeries(deepTrace(), "type,site,thread");
    const TreeSeries& s = *l.series;
    RadialLayoutOptions o;
    o.view = RadialView::kGlobal;
    o.drill_root = s.find({"A", kRun});
    const RadialLayout g = layoutRadial(s, 1.0, o);
    EXPECT_EQ(g.root, TreeSeries::kRoot);
    EXPECT_EQ(g.levels, 4u);
    const std::map<std::vector<std::string>, uint32_t> expected = {
        {{}, kRadialItemOnBranch},
        {{"A"}, kRadialItemOnBranch},
        {{"A", kRun}, kRadialItemOnBranch | kRadialItemDrillRoot},
        {{"A", kRun, "main"}, kRadialItemOnBranch},
        {{"A", kRun, "worker"}, kRadialItemOnBranch},
        {{"A", kOther}, 0},
        {{"A", kOther, "main"}, 0},
        {{"A", kOther, "worker"}, 0},
        {{"B"}, 0},
        {{"B", kRun}, 0},
        {{"B", kOther, "worker"}, 0},
        {{"int[]"}, 0},
        {{"int[]", kRun, "main"}, 0},
    };
    for (const auto& [path, flags] : expected)
        EXPECT_EQ(itemOf(g, s.find(path)).flags, flags) << ::testing::PrintToString(path);
    size_t marked = 0;
    for (const RadialItem& item : g.items)
        marked += (item.flags & kRadialItemDrillRoot) != 0;
    EXPECT_EQ(marked, 1u);
    // Levels are capped.
    o.global_levels = 2;
    EXPECT_EQ(layoutRadial(s, 1.0, o).levels, 3u);
}

TEST(RadialLayout, PruningFoldsTheRestIntoOther) {
    LoadedSeries l = loadSeries(lengthsTrace(), "length");
    const TreeSeries& s = *l.series;
    RadialLayoutOptions o;
    o.metric = Metric::kObjects;
    // 12, 11, ..., 4 objects (lengths 1..9) hold 72 of 78 >= 90%: lengths 10..12 (6) are folded.
    const RadialLayout g = layoutRadial(s, 0.0, o);
    ASSERT_EQ(g.items.size(), 1u + 9u + 1u);
    ASSERT_EQ(g.others.size(), 1u);
    const RadialItem& other = g.items.back();
    EXPECT_TRUE(other.isOther());
    EXPECT_EQ(other.flags & kRadialItemOther, kRadialItemOther);
    EXPECT_EQ(other.node, TreeSeries::kRoot);
    EXPECT_EQ(g.others[0].folded.size(), 3u);
    EXPECT_DOUBLE_EQ(other.value, 6.0);
    EXPECT_NEAR(other.extent(), 6.0 / 78, 1e-12);
    EXPECT_NEAR(other.end, 1.0, 1e-12);
    EXPECT_EQ(radialItemLabel(s, g, other), "Other (3)");
    EXPECT_EQ(pickIdOf(other), otherPickId(TreeSeries::kRoot));
    EXPECT_TRUE(isOtherPickId(pickIdOf(other)));
    EXPECT_EQ(pickIdNode(pickIdOf(other)), TreeSeries::kRoot);
    EXPECT_FALSE(isOtherPickId(pickIdOf(g.items[1])));
    EXPECT_EQ(s.label(g.items[1].node), "length 1");
    expectConsistent(s, g, true);
    size_t shown = 0;
    for (const RadialItem& item : g.items)
        shown += item.depth == 1 && !item.isOther();
    EXPECT_LE(shown, 9u);
    // At most 5: the Other group holds the other 28.
    o.prune.max_children = 5;
    const RadialLayout five = layoutRadial(s, 0.0, o);
    ASSERT_EQ(five.items.size(), 7u);
    EXPECT_DOUBLE_EQ(five.items.back().value, 28.0);
    // No pruning: all twelve.
    o.prune.enabled = false;
    EXPECT_EQ(layoutRadial(s, 0.0, o).items.size(), 13u);
}

// Under a one-to-many classifier the children hold more than their parent: they are scaled down
// to fill it. Under a one-to-hierarchy classifier a path may end at an inner node: its own
// objects leave their share empty at the end of its interval.
TEST(RadialLayout, ChildrenThatDoNotAddUpToTheirParent) {
    TraceBuilder b("radial-paths");
    Frame frames[] = {{1, 10}, {2, 20}};
    b.writer().defineSite(3, frames);                // run, called from other
    b.alloc(0, 1, 3).alloc(1, 1, 1).alloc(2, 2, 2);  // A (run and other), A (run), B (other)
    b.gc(0, 3);
    const std::string path = b.finish();
    {
        LoadedSeries l = loadSeries(path, "calls");
        const TreeSeries& s = *l.series;
        RadialLayoutOptions o;
        o.metric = Metric::kObjects;
        const RadialLayout g = layoutRadial(s, 0.0, o);
        ASSERT_EQ(g.items.size(), 3u);  // Overall (3), Main.run (2), Main.other (2)
        EXPECT_DOUBLE_EQ(g.items[1].value + g.items[2].value, 4.0);
        EXPECT_NEAR(g.items[1].extent(), 0.5, 1e-12);
        EXPECT_NEAR(g.items[2].end, 1.0, 1e-12);
    }
    {
        LoadedSeries l = loadSeries(path, "site(callers=1)");
        const TreeSeries& s = *l.series;
        RadialLayoutOptions o;
        o.metric = Metric::kObjects;
        const RadialLayout g = layoutRadial(s, 0.0, o);
        // Overall (3): run (2: one stops there, one goes on to its caller), other (1).
        ASSERT_EQ(g.items.size(), 4u);
        const RadialItem& run = g.items[1];
        ASSERT_EQ(g.items[2].parent_item, 1u);
        EXPECT_DOUBLE_EQ(run.value, 2.0);
        EXPECT_NEAR(run.extent(), 2.0 / 3, 1e-12);
        EXPECT_NEAR(g.items[2].start, run.start, 1e-12);
        EXPECT_NEAR(g.items[2].extent(), 1.0 / 3, 1e-12);  // half of run; the other half stays empty
        EXPECT_NEAR(g.items[3].start, run.end, 1e-12);
    }
}

TEST(RadialLayout, DrillPathNamesTheBranch) {
    LoadedSeries l = loadSeries(deepTrace(), "type,site,thread");
    const TreeSeries& s = *l.series;
    EXPECT_EQ(drillPath(s, TreeSeries::kRoot), (std::vector<std::string>{"Overall"}));
    EXPECT_EQ(drillPath(s, s.find({"B", kOther, "worker"})),
              (std::vector<std::string>{"Overall", "B", kOther, "worker"}));
}

}  // namespace
}  // namespace memcity::scene
