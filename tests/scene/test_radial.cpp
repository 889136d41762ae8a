// Sunburst and icicle: the adjacency layout of a tree series (extents, order, tweening, scaling,
// local and global views, pruning) and the draw lists and picking built from it, on tiny
// hand-made traces with exact answers.
#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <map>

#include "scene/camera.h"
#include "scene/radial_layout.h"
#include "scene/radial_scene.h"
#include "scene/scene_fixture.h"
#include "scene/views.h"
#include "unit/trace_builder.h"

namespace memcity::scene {
namespace {

using memcity::testing::TraceBuilder;
using testing::Fixture;
using testing::fixtureOf;

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
    Fixture l = fixtureOf(ordersTrace(), "type");
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
    Fixture l = fixtureOf(deepTrace(), "type,site,thread");
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
    Fixture l = fixtureOf(deepTrace(), "type,site,thread");
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
    Fixture l = fixtureOf(deepTrace(), "type,site,thread");
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
    Fixture l = fixtureOf(ordersTrace(), "type");
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
    Fixture l = fixtureOf(deepTrace(), "type,site,thread");
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
    Fixture l = fixtureOf(deepTrace(), "type,site,thread");
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
    Fixture l = fixtureOf(lengthsTrace(), "length");
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
        Fixture l = fixtureOf(path, "calls");
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
        Fixture l = fixtureOf(path, "site(callers=1)");
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
    Fixture l = fixtureOf(deepTrace(), "type,site,thread");
    const TreeSeries& s = *l.series;
    EXPECT_EQ(drillPath(s, TreeSeries::kRoot), (std::vector<std::string>{"Overall"}));
    EXPECT_EQ(drillPath(s, s.find({"B", kOther, "worker"})),
              (std::vector<std::string>{"Overall", "B", kOther, "worker"}));
}

// ---- Draw lists and picking ----

constexpr PixelRect kViewport{{10.0f, 20.0f}, {410.0f, 440.0f}};

// Angle of fraction f, as the scene draws it.
float angleOf(double f) {
    return kSunburstStartAngle + static_cast<float>(f) * kTwoPi;
}

glm::vec2 arcMid(const render::Arc& a) {
    const float am = 0.5f * (a.a0 + a.a1), rm = 0.5f * (a.r0 + a.r1);
    return a.center + rm * glm::vec2(std::cos(am), std::sin(am));
}

TEST(RadialScene, SunburstArcsFollowTheLayout) {
    Fixture l = fixtureOf(deepTrace(), "type,site,thread");
    const TreeSeries& s = *l.series;
    RadialLayoutOptions lo;
    lo.view = RadialView::kGlobal;
    const RadialLayout layout = layoutRadial(s, 2.0, lo);
    RadialSceneOptions so;
    render::DrawList dl;
    const RadialScene scene = buildRadialScene(s, layout, kViewport, so, dl);
    // The rings: 4 levels in a square of the viewport less padding and the breadcrumb band.
    const float radius = 0.5f * std::min(400.0f - 12.0f, 420.0f - 12.0f - 18.0f);
    EXPECT_FLOAT_EQ(scene.ring_px, radius / 4.0f);
    size_t drawn = 0;
    for (const RadialItem& item : layout.items)
        drawn += item.extent() > 0;
    ASSERT_EQ(dl.arcs.size(), drawn);
    EXPECT_TRUE(dl.rects.empty());
    for (const render::Arc& a : dl.arcs) {
        const auto it = std::find_if(layout.items.begin(), layout.items.end(),
                                     [&](const RadialItem& item) { return pickIdOf(item) == a.id; });
        ASSERT_NE(it, layout.items.end());
        EXPECT_LT(a.a0, a.a1);
        // Inside the item's angles, short of them by at most the gap.
        const float gap = so.sector_gap_px / (0.5f * (a.r0 + a.r1));
        EXPECT_GE(a.a0, angleOf(it->start) - 1e-5f);
        EXPECT_LE(a.a1, angleOf(it->end) + 1e-5f);
        EXPECT_NEAR(a.a1 - a.a0, static_cast<float>(it->extent()) * kTwoPi, gap + 1e-5f);
        // Rings of equal thickness, the root a disc.
        EXPECT_FLOAT_EQ(a.r1, static_cast<float>(it->depth + 1) * scene.ring_px);
        if (it->depth == 0) {
            EXPECT_EQ(a.r0, 0.0f);
        } else {
            EXPECT_FLOAT_EQ(a.r0, static_cast<float>(it->depth) * scene.ring_px + so.ring_gap_px);
        }
        EXPECT_EQ(a.center, scene.center);
    }
    EXPECT_NEAR(dl.arcs[0].a1 - dl.arcs[0].a0, kTwoPi, 1e-5f);  // the unscaled root: a whole disc
}

TEST(RadialScene, PickReturnsTheItemUnderThePixel) {
    Fixture l = fixtureOf(lengthsTrace(), "type,length");
    const TreeSeries& s = *l.series;
    for (RadialShape shape : {RadialShape::kSunburst, RadialShape::kIcicle}) {
        for (RadialView view : {RadialView::kLocal, RadialView::kGlobal}) {
            SCOPED_TRACE(::testing::Message()
                         << "shape " << static_cast<int>(shape) << " view " << static_cast<int>(view));
            RadialLayoutOptions lo;
            lo.view = view;
            lo.metric = Metric::kObjects;
            const RadialLayout layout = layoutRadial(s, 1.0, lo);
            RadialSceneOptions so;
            so.shape = shape;
            render::DrawList dl;
            const RadialScene scene = buildRadialScene(s, layout, kViewport, so, dl);
            size_t checked = 0, others = 0;
            auto check = [&](glm::vec2 p, uint32_t id) {
                const RadialHit hit = pickRadial(scene, p);
                EXPECT_EQ(hit.pick_id, id);
                ASSERT_NE(hit.item, kNoItem);
                EXPECT_EQ(pickIdOf(layout.items[hit.item]), id);
                EXPECT_EQ(hit.other, isOtherPickId(id));
                EXPECT_EQ(hit.node, pickIdNode(id));
                ++checked;
                others += hit.other;
            };
            for (const render::Arc& a : dl.arcs)
                check(arcMid(a), a.id);
            for (const render::Rect& r : dl.rects)
                check(0.5f * (r.min + r.max), r.id);
            EXPECT_EQ(checked, layout.items.size());
            EXPECT_EQ(others, 1u);
            // Misses: outside the viewport, and beyond the last ring / in the padding.
            EXPECT_EQ(pickRadial(scene, {0.0f, 0.0f}).item, kNoItem);
            EXPECT_EQ(pickRadial(scene, kViewport.max + glm::vec2(5.0f)).item, kNoItem);
            if (shape == RadialShape::kSunburst) {
                EXPECT_EQ(pickRadial(scene, scene.center).node, layout.root);
                const float outside = scene.ring_px * static_cast<float>(scene.levels) + 1.0f;
                EXPECT_EQ(pickRadial(scene, scene.center + glm::vec2(outside, 0.0f)).item, kNoItem);
            }
        }
    }
}

TEST(RadialScene, IcicleRowsRunTopDown) {
    Fixture l = fixtureOf(ordersTrace(), "type");
    const TreeSeries& s = *l.series;
    RadialLayoutOptions lo;
    lo.scale = RadialScale::kScaled;
    const RadialLayout layout = layoutRadial(s, 0.0, lo);  // the heap at GC 0 is 176 of 344 bytes
    RadialSceneOptions so;
    so.shape = RadialShape::kIcicle;
    so.breadcrumb = false;
    render::DrawList dl;
    const RadialScene scene = buildRadialScene(s, layout, kViewport, so, dl);
    ASSERT_EQ(dl.rects.size(), 4u);
    EXPECT_TRUE(dl.arcs.empty());
    const PixelRect chart = kViewport.inset(so.padding_px);
    EXPECT_EQ(scene.chart.min, chart.min);
    EXPECT_FLOAT_EQ(scene.ring_px, chart.height() / 2.0f);
    const render::Rect& root = dl.rects[0];
    EXPECT_EQ(root.id, TreeSeries::kRoot);
    EXPECT_FLOAT_EQ(root.min.y, chart.min.y);
    EXPECT_FLOAT_EQ(root.max.y, chart.min.y + scene.ring_px - so.ring_gap_px);
    // Scaled: the root is 176/344 of the width (less the gap), its children fill it in the row below.
    EXPECT_NEAR(root.max.x - root.min.x, 176.0f / 344.0f * chart.width() - so.sector_gap_px, 1e-3f);
    float x = chart.min.x;
    for (size_t i = 1; i < 4; ++i) {
        const render::Rect& r = dl.rects[i];
        EXPECT_FLOAT_EQ(r.min.y, chart.min.y + scene.ring_px);
        EXPECT_NEAR(r.min.x, x + 0.5f * so.sector_gap_px, 1e-3f);
        x = chart.min.x + static_cast<float>(layout.items[i].end) * chart.width();
        EXPECT_NEAR(r.max.x, x - 0.5f * so.sector_gap_px, 1e-3f);
    }
    EXPECT_NEAR(x, root.max.x + 0.5f * so.sector_gap_px, 1e-3f);
}

// The width a label was checked with (the fallback estimate).
float widthOf(const render::Label& label) {
    return estimateTextWidth(label.text, label.size_px);
}

TEST(RadialScene, LabelsOnlyWhereTheyFit) {
    Fixture l = fixtureOf(deepTrace(), "type,site,thread");
    const TreeSeries& s = *l.series;
    RadialLayoutOptions lo;
    lo.view = RadialView::kGlobal;
    const RadialLayout layout = layoutRadial(s, 2.0, lo);
    for (RadialShape shape : {RadialShape::kSunburst, RadialShape::kIcicle}) {
        RadialSceneOptions so;
        so.shape = shape;
        so.breadcrumb = false;
        render::DrawList dl;
        buildRadialScene(s, layout, kViewport, so, dl);
        ASSERT_FALSE(dl.labels.empty());
        for (const render::Label& label : dl.labels) {
            EXPECT_EQ(label.anchor, render::TextAnchor::kCenter);
            const float w = widthOf(label);
            bool inside = false;
            if (shape == RadialShape::kIcicle) {
                for (const render::Rect& r : dl.rects)
                    inside = inside || (label.pos.x > r.min.x && label.pos.x < r.max.x &&
                                        label.pos.y > r.min.y && label.pos.y < r.max.y &&
                                        w <= r.max.x - r.min.x && label.size_px <= r.max.y - r.min.y);
            } else {
                // Every corner of the text's box within one arc's radii and angles.
                for (const render::Arc& a : dl.arcs) {
                    bool all = true;
                    for (glm::vec2 c : {glm::vec2(-0.5f, -0.5f), glm::vec2(0.5f, -0.5f),
                                        glm::vec2(-0.5f, 0.5f), glm::vec2(0.5f, 0.5f)}) {
                        const glm::vec2 d = label.pos + c * glm::vec2(w, label.size_px) - a.center;
                        const float r = glm::length(d);
                        float ang = std::atan2(d.y, d.x);
                        while (ang < a.a0)
                            ang += kTwoPi;
                        const bool full = a.a1 - a.a0 >= kTwoPi - 1e-4f;
                        all = all && r >= a.r0 && r <= a.r1 && (full || ang <= a.a1);
                    }
                    const float arc_len = (a.a1 - a.a0) * 0.5f * (a.r0 + a.r1);
                    inside = inside || (all && (a.r0 == 0 || arc_len >= w));
                }
            }
            EXPECT_TRUE(inside) << label.text;
        }
        // A measure that finds every text too wide leaves no label; one that finds them all
        // narrow labels every sector with room for the text's height.
        so.measure = [](std::string_view, float) { return 1e6f; };
        render::DrawList none;
        buildRadialScene(s, layout, kViewport, so, none);
        EXPECT_TRUE(none.labels.empty());
        std::vector<std::string> measured;
        so.measure = [&](std::string_view text, float) {
            measured.emplace_back(text);
            return 1.0f;
        };
        render::DrawList all;
        buildRadialScene(s, layout, kViewport, so, all);
        EXPECT_FALSE(measured.empty());
        EXPECT_EQ(all.labels.size(), shape == RadialShape::kSunburst ? all.arcs.size() : all.rects.size());
    }
}

TEST(RadialScene, LongLabelsAreShortenedOrLeftOut) {
    EXPECT_EQ(fitText("Overall", 10.0f, 100.0f, nullptr), "Overall");          // 38.5 px
    EXPECT_EQ(fitText("java.util.HashMap", 10.0f, 40.0f, nullptr), "java..");  // 6 chars: 33 px
    EXPECT_EQ(fitText("java.util.HashMap", 10.0f, 20.0f, nullptr), std::nullopt);
    EXPECT_FLOAT_EQ(estimateTextWidth("äbc", 10.0f), 16.5f);  // code points, not bytes
}

TEST(RadialScene, BreadcrumbShowsTheDrillPath) {
    Fixture l = fixtureOf(deepTrace(), "type,site,thread");
    const TreeSeries& s = *l.series;
    RadialLayoutOptions lo;
    lo.drill_root = s.find({"A", kRun});
    const RadialLayout layout = layoutRadial(s, 2.0, lo);
    RadialSceneOptions so;
    so.measure = [](std::string_view text, float) { return static_cast<float>(text.size()); };
    render::DrawList dl;
    buildRadialScene(s, layout, kViewport, so, dl);
    ASSERT_FALSE(dl.labels.empty());
    const render::Label& crumb = dl.labels[0];
    EXPECT_EQ(crumb.text, "Overall / A / " + kRun);
    EXPECT_EQ(crumb.anchor, render::TextAnchor::kTopLeft);
    EXPECT_EQ(crumb.pos, kViewport.min + glm::vec2(so.padding_px));
    // Too narrow for the whole path: its tail.
    so.measure = [](std::string_view text, float) { return 10.0f * static_cast<float>(text.size()); };
    render::DrawList narrow;
    buildRadialScene(s, layout, {{0.0f, 0.0f}, {300.0f, 300.0f}}, so, narrow);
    ASSERT_FALSE(narrow.labels.empty());
    EXPECT_EQ(narrow.labels[0].text, ".. / " + kRun);
}

TEST(RadialScene, ColoursFlagsAndTheGlobalViewsBranch) {
    Fixture l = fixtureOf(ordersTrace(), "type");
    const TreeSeries& s = *l.series;
    const uint32_t a = s.find({"A"}), b = s.find({"B"}), ints = s.find({"int[]"});
    RadialLayoutOptions lo;
    const RadialLayout at1 = layoutRadial(s, 1.0, lo);
    // Trend from GC 0 to t: A 80 -> 32 shrinks, int[] 24 -> 144 grows strongly; at GC 0 all stable.
    EXPECT_EQ(radialItemColor(s, at1, itemOf(at1, a), RadialColoring::kTrend),
              palette::trendColor(Trend::kShrinking));
    EXPECT_EQ(radialItemColor(s, at1, itemOf(at1, ints), RadialColoring::kTrend),
              palette::trendColor(Trend::kStronglyGrowing));
    const RadialLayout at0 = layoutRadial(s, 0.0, lo);
    EXPECT_EQ(radialItemColor(s, at0, itemOf(at0, ints), RadialColoring::kTrend),
              palette::trendColor(Trend::kStable));
    // Categories: the top-level node's place in the sort order (int[], B, A).
    EXPECT_EQ(radialItemColor(s, at1, itemOf(at1, ints), RadialColoring::kCategory),
              palette::categoryColor(0));
    EXPECT_EQ(radialItemColor(s, at1, itemOf(at1, a), RadialColoring::kCategory), palette::categoryColor(2));

    // Selection and hover flags, by pick id.
    RadialSceneOptions so;
    so.selected = {b};
    so.hovered = a;
    render::DrawList dl;
    buildRadialScene(s, at1, kViewport, so, dl);
    for (const render::Arc& arc : dl.arcs) {
        EXPECT_EQ((arc.flags & render::kFlagSelected) != 0, arc.id == b);
        EXPECT_EQ((arc.flags & render::kFlagHighlighted) != 0, arc.id == a);
    }

    // The global view drilled into B: B's branch is highlighted, the rest dimmed, B has a rim.
    lo.view = RadialView::kGlobal;
    lo.drill_root = b;
    const RadialLayout g = layoutRadial(s, 1.0, lo);
    render::DrawList gl;
    buildRadialScene(s, g, kViewport, RadialSceneOptions{}, gl);
    ASSERT_EQ(gl.arcs.size(), 5u);  // root, int[], B and its rim, A
    size_t rims = 0;
    for (const render::Arc& arc : gl.arcs) {
        const bool branch = arc.id == b || arc.id == TreeSeries::kRoot;
        EXPECT_EQ((arc.flags & render::kFlagHighlighted) != 0, branch) << arc.id;
        EXPECT_EQ(render::alphaOf(arc.color), branch ? 255 : RadialSceneOptions{}.off_branch_alpha) << arc.id;
        if (arc.id == b && arc.color == palette::kSelection) {
            ++rims;
            EXPECT_FLOAT_EQ(arc.r1 - arc.r0, 3.0f);
        }
    }
    EXPECT_EQ(rims, 1u);
}

TEST(RadialScene, LocalAndGlobalSideBySide) {
    Fixture l = fixtureOf(deepTrace(), "type,site,thread");
    const TreeSeries& s = *l.series;
    RadialLayoutOptions lo;
    lo.drill_root = s.find({"B"});
    const RadialLayout local = layoutRadial(s, 1.0, lo);
    lo.view = RadialView::kGlobal;
    const RadialLayout global = layoutRadial(s, 1.0, lo);
    const PixelRect left{{0.0f, 0.0f}, {300.0f, 300.0f}}, right{{300.0f, 0.0f}, {600.0f, 300.0f}};
    render::DrawList dl;
    RadialSceneOptions so;
    const RadialScene ls = buildRadialScene(s, local, left, so, dl);
    const size_t local_arcs = dl.arcs.size();
    so.breadcrumb = false;
    const RadialScene gs = buildRadialScene(s, global, right, so, dl);
    ASSERT_GT(dl.arcs.size(), local_arcs);
    for (size_t i = 0; i < dl.arcs.size(); ++i) {
        const PixelRect& box = i < local_arcs ? left : right;
        const render::Arc& arc = dl.arcs[i];
        EXPECT_TRUE(box.contains(arc.center - glm::vec2(arc.r1)) &&
                    box.contains(arc.center + glm::vec2(arc.r1 - 1)));
    }
    // The same pixel offset picks in each view's own layout: B is the local centre.
    EXPECT_EQ(pickRadial(ls, ls.center).node, s.find({"B"}));
    EXPECT_EQ(pickRadial(gs, gs.center).node, TreeSeries::kRoot);
}

// STAG20's timeline-based view on the growing map: the pinned GCs and the cursor's, in order,
// each a scaled tree in which the leaking Location cache is larger than in the one before.
// The growing map by type, its Location cache, and the inputs of a view of it.
struct GrowingMapView {
    Fixture f = fixtureOf(testing::scenarioTrace("growing-map"), "type");
    const TreeSeries& s = *f.series;
    const uint32_t location = s.find({"com.dynatrace.easytravel.jpa.business.Location"});
    ViewInputs in = inputsOf(s);

    static ViewInputs inputsOf(const TreeSeries& series) {
        ViewInputs i;
        i.series = &series;
        return i;
    }
};

TEST(TimelineTrees, TheGrowingCacheGrowsInEveryPinnedTree) {
    GrowingMapView g;
    const TreeSeries& s = g.s;
    const uint32_t location = g.location;
    ASSERT_NE(location, kNoNode);
    const ViewInputs& in = g.in;
    ViewOptions vo;
    vo.kind = ViewKind::kTimelineTrees;
    vo.scale = RadialScale::kScaled;
    vo.pins = {20, 5, 12, 12, 999};  // out of order, repeated, one the series lacks
    vo.selected = {location};
    auto c = ViewComposer::prepare(in, vo, {1200.0f, 500.0f});
    ASSERT_TRUE(c.ok()) << c.error().message;
    const double t = c->indexTimeOf(26);
    EXPECT_EQ(c->treeGcs(t), (std::vector<uint32_t>{5, 12, 20, 26}));
    EXPECT_EQ(c->treeGcs(c->indexTimeOf(12)), (std::vector<uint32_t>{5, 12, 20}));  // the cursor on a pin
    render::DrawList out;
    c->compose(t, out);
    const auto& trees = c->treeScenes();
    ASSERT_EQ(trees.size(), 4u);
    double previous = 0;
    for (size_t i = 0; i < trees.size(); ++i) {
        const RadialScene& tree = trees[i];
        auto it = std::find_if(tree.items.begin(), tree.items.end(), [&](const RadialItem& item) {
            return item.node == location && !item.isOther();
        });
        ASSERT_NE(it, tree.items.end()) << "tree " << i;
        EXPECT_GT(it->extent(), previous) << "tree " << i;  // scaled: absolute growth shows
        previous = it->extent();
        // Side by side, left to right; a click on a tree's centre names its GC.
        if (i > 0) {
            EXPECT_GT(tree.center.x, trees[i - 1].center.x);
        }
        const auto pick = c->pick(tree.center);
        ASSERT_TRUE(pick.has_value());
        EXPECT_EQ(pick->tree_gc, c->treeGcs(t)[i]);
        EXPECT_EQ(pick->id, TreeSeries::kRoot);
    }
    // Scaled: the cursor's root spans its heap over the series' largest heap.
    const std::vector<uint64_t> heap = s.values(TreeSeries::kRoot, Metric::kBytes);
    EXPECT_NEAR(trees.back().items[0].extent(),
                static_cast<double>(s.value(TreeSeries::kRoot, 26, Metric::kBytes)) /
                    static_cast<double>(*std::max_element(heap.begin(), heap.end())),
                1e-9);
}

// The same pins as small cities on one layout: the Location cache's building stands on the same
// lot in every city and is taller in each than in the one before; a click names the city's GC.
TEST(TimelineTrees, AsCitiesTheCacheStandsStillAndGrows) {
    GrowingMapView g;
    const uint32_t location = g.location;
    ASSERT_NE(location, kNoNode);
    const ViewInputs& in = g.in;
    ViewOptions vo;
    vo.kind = ViewKind::kTimelineTrees;
    vo.trees_cities = true;
    vo.pins = {5, 12, 20};
    const glm::vec2 size{1200.0f, 500.0f};
    auto c = ViewComposer::prepare(in, vo, size);
    ASSERT_TRUE(c.ok()) << c.error().message;
    const double t = c->indexTimeOf(26);
    render::DrawList out;
    c->compose(t, out);
    EXPECT_TRUE(c->treeScenes().empty());
    ASSERT_EQ(c->treeCities().size(), 4u);
    const uint32_t b = c->cityLayout().findBuilding(location);
    std::vector<const render::BoxInstance*> boxes;
    for (const render::BoxInstance& box : out.boxes)
        if (box.id == location) boxes.push_back(&box);
    ASSERT_EQ(boxes.size(), 4u);  // one per city, in the row's order
    float previous = 0;
    for (size_t i = 0; i < boxes.size(); ++i) {
        const float height = c->treeCities()[i].buildings[b].height;
        EXPECT_GT(height, previous) << "city " << i;
        previous = height;
        EXPECT_FLOAT_EQ(boxes[i]->max.y - boxes[i]->min.y, height);
        if (i == 0) continue;
        // The same lot, one city further along x.
        EXPECT_FLOAT_EQ(boxes[i]->min.z, boxes[0]->min.z);
        EXPECT_FLOAT_EQ(boxes[i]->min.x - boxes[i - 1]->min.x, boxes[1]->min.x - boxes[0]->min.x);
        EXPECT_GT(boxes[i]->min.x, boxes[i - 1]->max.x);
    }
    // A click on a roof selects the group in that city's GC.
    for (size_t i = 0; i < boxes.size(); ++i) {
        const glm::vec3 roof = 0.5f * (boxes[i]->min + boxes[i]->max) +
                               glm::vec3(0.0f, 0.5f * (boxes[i]->max.y - boxes[i]->min.y), 0.0f);
        const auto at = projectToPixel(out.camera, size, roof);
        ASSERT_TRUE(at.has_value());
        const auto pick = c->pick(glm::vec2(*at));
        ASSERT_TRUE(pick.has_value()) << "city " << i;
        EXPECT_EQ(pick->id, location) << "city " << i;
        EXPECT_EQ(pick->tree_gc, c->treeGcs(t)[i]);
    }
}

}  // namespace
}  // namespace memcity::scene
