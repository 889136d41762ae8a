// The dominator tree as rows (graph/dominator_view.h) and the `dominator` classifier, on a
// hand-made heap with exact answers.
#include <gtest/gtest.h>

#include "classify/tree.h"
#include "graph/dominator_view.h"
#include "unit/dominator_heap.h"
#include "unit/loaded_heap.h"
#include "unit/trace_builder.h"

namespace memcity {
namespace {

using Loaded = testing::LoadedHeap;

// The heap of unit/dominator_heap.h at GC 0.
std::string handMade() {
    return testing::dominatorHeap("dominator-view", false);
}

struct Row {
    std::string label;
    uint32_t position;
    std::vector<uint32_t> members;
    uint64_t objects, shallow, retained_objects, retained_bytes, more;
    bool operator==(const Row&) const = default;
};
std::vector<Row> plain(const Result<std::vector<DominatorRow>>& rows) {
    EXPECT_TRUE(rows.ok()) << (rows.ok() ? "" : rows.error().message);
    std::vector<Row> out;
    if (rows)
        for (const DominatorRow& r : *rows)
            out.push_back({r.label, r.position, r.members, r.objects, r.shallow_bytes, r.retained_objects,
                           r.retained_bytes, r.more});
    return out;
}

const DominatorTree& treeOf(const Loaded& l) {
    const Result<DominatorTree>& t = l.graph->dominators();
    EXPECT_TRUE(t.ok());
    return *t;
}

ClassifierChain chain(const char* spec) {
    auto c = parseChain(spec);
    EXPECT_TRUE(c.ok()) << (c.ok() ? "" : c.error().message);
    return std::move(*c);
}

constexpr uint32_t kGroup = kNoPosition;

TEST(DominatorView, TopLevelObjectsByRetainedBytes) {
    Loaded l(handMade());
    const DominatorTree& t = treeOf(l);
    EXPECT_EQ(plain(dominatorRows(*l.graph, t, t.superRoot(), nullptr)),
              (std::vector<Row>{{"A#0", 0, {}, 1, 16, 5, 152, 0},
                                {"B#5", 5, {}, 1, 24, 2, 48, 0},
                                {"A#7", 7, {}, 1, 16, 1, 16, 0}}));
    // An empty chain is no grouping.
    ClassifierChain empty;
    EXPECT_EQ(plain(dominatorRows(*l.graph, t, t.superRoot(), &empty)).size(), 3u);
    // Below an object: what it immediately dominates; a leaf dominates nothing.
    EXPECT_EQ(plain(dominatorRows(*l.graph, t, 1, nullptr)),
              (std::vector<Row>{{"int[]#3", 3, {}, 1, 56, 1, 56, 0}, {"int[]#4", 4, {}, 1, 24, 1, 24, 0}}));
    EXPECT_TRUE(plain(dominatorRows(*l.graph, t, 3, nullptr)).empty());
    EXPECT_TRUE(plain(dominatorRows(*l.graph, t, 8, nullptr)).empty());  // unreached
}

TEST(DominatorView, RowsLeftOutAreSummedInOneRow) {
    Loaded l(handMade());
    const DominatorTree& t = treeOf(l);
    EXPECT_EQ(plain(dominatorRows(*l.graph, t, t.superRoot(), nullptr, {1})),
              (std::vector<Row>{{"A#0", 0, {}, 1, 16, 5, 152, 0}, {"2 more", kGroup, {}, 2, 40, 3, 64, 2}}));
    // A cut at or past the number of rows leaves nothing out.
    EXPECT_EQ(plain(dominatorRows(*l.graph, t, t.superRoot(), nullptr, {3})).size(), 3u);
    const ClassifierChain type = chain("type");
    EXPECT_EQ(
        plain(dominatorRows(*l.graph, t, t.superRoot(), &type, {1})),
        (std::vector<Row>{{"A", kGroup, {0, 7}, 2, 32, 6, 168, 0}, {"1 more", kGroup, {}, 1, 24, 2, 48, 1}}));
}

TEST(DominatorView, GroupedByTheChainsFirstClassifier) {
    Loaded l(handMade());
    const DominatorTree& t = treeOf(l);
    // MAT's "group by class": A holds 0 and 7 (members by retained bytes), B holds 5.
    const ClassifierChain type_site = chain("type,site");
    EXPECT_EQ(
        plain(dominatorRows(*l.graph, t, t.superRoot(), &type_site)),
        (std::vector<Row>{{"A", kGroup, {0, 7}, 2, 32, 6, 168, 0}, {"B", kGroup, {5}, 1, 24, 2, 48, 0}}));
    // A classifier that reads references, of several values (paths): each object by its first.
    const ClassifierChain rooted = chain("rooted");
    EXPECT_EQ(plain(dominatorRows(*l.graph, t, t.superRoot(), &rooted)),
              (std::vector<Row>{{"static field", kGroup, {0}, 1, 16, 5, 152, 0},
                                {"stack local", kGroup, {5}, 1, 24, 2, 48, 0},
                                {"not directly rooted", kGroup, {7}, 1, 16, 1, 16, 0}}));
}

TEST(DominatorView, RowsOfSeveralNodesExpandAGroup) {
    Loaded l(handMade());
    const DominatorTree& t = treeOf(l);
    const std::vector<uint32_t> nodes{0, 5};
    // 2 and 6 tie on retained bytes: by position.
    EXPECT_EQ(plain(dominatorRowsOf(*l.graph, t, nodes, nullptr)),
              (std::vector<Row>{{"Object[]#1", 1, {}, 1, 32, 3, 112, 0},
                                {"B#2", 2, {}, 1, 24, 1, 24, 0},
                                {"B#6", 6, {}, 1, 24, 1, 24, 0}}));
    const ClassifierChain type = chain("type");
    EXPECT_EQ(plain(dominatorRowsOf(*l.graph, t, nodes, type.classifiers[0].get())),
              (std::vector<Row>{{"Object[]", kGroup, {1}, 1, 32, 3, 112, 0},
                                {"B", kGroup, {2, 6}, 2, 48, 2, 48, 0}}));
}

TEST(DominatorView, BadNodeIsAnError) {
    Loaded l(handMade());
    const DominatorTree& t = treeOf(l);
    auto r = dominatorRows(*l.graph, t, t.superRoot() + 1, nullptr);
    ASSERT_FALSE(r.ok());
    EXPECT_EQ(r.error().message, "dominator tree node 10 is out of range (the super-root is 9)");
}

TEST(DominatorView, TopDominatorsPerPosition) {
    Loaded l(handMade());
    const std::vector<uint32_t> expected{0, 0, 0, 0, 0, 5, 5, 7, kNoPosition};
    EXPECT_EQ(topDominators(treeOf(l)), expected);
    const std::span<const uint32_t> cached = l.graph->topDominators();
    EXPECT_EQ(std::vector<uint32_t>(cached.begin(), cached.end()), expected);
}

TEST(DominatorClassifier, ObjectsGoUnderTheTypeOfTheirTopLevelDominator) {
    Loaded l(handMade());
    const ClassifierChain c = chain("dominator,type");
    EXPECT_TRUE(c.needsReferences());
    const ClassificationTree tree = ClassificationTree::build(l.view(), c, {});
    std::vector<std::tuple<std::string, uint64_t, uint64_t>> top, under_a;
    for (uint32_t id : tree.sortedChildren(ClassificationTree::kRoot, Metric::kBytes))
        top.emplace_back(tree.label(id), tree.node(id).objects, tree.node(id).bytes);
    // A: 0..4 under 0 and 7 itself; B: 5 and 6 under 5; 8 is reached by no root.
    EXPECT_EQ(top, (std::vector<std::tuple<std::string, uint64_t, uint64_t>>{
                       {"A", 6, 168}, {"B", 2, 48}, {"alive, root not reported", 1, 32}}));
    const uint32_t a = tree.find({"A"});
    ASSERT_NE(a, kNoNode);
    for (uint32_t id : tree.sortedChildren(a, Metric::kBytes))
        under_a.emplace_back(tree.label(id), tree.node(id).objects, tree.node(id).bytes);
    EXPECT_EQ(under_a, (std::vector<std::tuple<std::string, uint64_t, uint64_t>>{
                           {"int[]", 2, 80}, {"A", 2, 32}, {"Object[]", 1, 32}, {"B", 1, 24}}));
}

TEST(DominatorClassifier, WithoutReferencesItSaysSo) {
    Loaded l(handMade());
    const ClassifierChain c = chain("dominator");
    const ClassificationTree tree = ClassificationTree::build(l.heap.view(), c, {});
    const std::vector<uint32_t> kids = tree.sortedChildren(ClassificationTree::kRoot, Metric::kBytes);
    ASSERT_EQ(kids.size(), 1u);
    EXPECT_EQ(tree.label(kids[0]), "no dominator tree");
    EXPECT_EQ(tree.node(kids[0]).objects, 9u);
    auto bad = parseChain("dominator(level=2)");
    ASSERT_FALSE(bad.ok());
    EXPECT_EQ(bad.error().message, "classifier 'dominator(level=2)': unknown parameter (it takes none)");
}

}  // namespace
}  // namespace memcity
