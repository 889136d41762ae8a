// The tree table: rows of the lifecycle trace (tests/scene/scene_fixture.h) classified by type
// and site, with exact values at GCs and between them, growth, expansion, reveal, sorting by
// every column both ways, Other rows, unknown sizes, and the CSV and JSON export.
#include "explore/tree_table.h"

#include <gtest/gtest.h>

#include <map>
#include <span>
#include <string>
#include <vector>

#include "classify/diff.h"
#include "scene/city_layout.h"
#include "scene/scene_fixture.h"

namespace memcity::explore {
namespace {

using scene::testing::kOther;
using scene::testing::kRun;

// Per type (bytes / objects at GCs 0-3):
//   A      32 32 32  48 / 2 2 2 3     (A/run 32 32 16 32, A/other 0 0 16 16)
//   B      24  0 24   0 / 1 0 1 0     (B/other)
//   int[]   0 56 56 416 / 0 1 1 1     (int[]/run 0 56 56 0, int[]/other 0 0 0 416)
//   root   56 88 112 464 / 3 3 4 4
class TreeTableTest : public ::testing::Test {
protected:
    void SetUp() override {
        f_ = scene::testing::fixtureOf(scene::testing::lifecycleTrace(), "type,site");
        a_ = series().find({"A"});
        b_ = series().find({"B"});
        ints_ = series().find({"int[]"});
        a_run_ = series().find({"A", kRun});
        a_other_ = series().find({"A", kOther});
        ints_other_ = series().find({"int[]", kOther});
        ASSERT_NE(a_, kNoNode);
        ASSERT_NE(b_, kNoNode);
        ASSERT_NE(ints_, kNoNode);
        ASSERT_NE(a_run_, kNoNode);
        ASSERT_NE(a_other_, kNoNode);
        ASSERT_NE(ints_other_, kNoNode);
    }

    const TreeSeries& series() const { return *f_.series; }

    static std::vector<std::string> labels(const std::vector<TableRow>& rows) {
        std::vector<std::string> out;
        for (const TableRow& r : rows)
            out.push_back(r.label);
        return out;
    }
    static std::vector<uint32_t> depths(const std::vector<TableRow>& rows) {
        std::vector<uint32_t> out;
        for (const TableRow& r : rows)
            out.push_back(r.depth);
        return out;
    }
    // The labels of the root's children after sorting by `column`.
    std::vector<std::string> typesSortedBy(TreeTable& table, TableColumn column, bool descending, double t,
                                           const SizeLookup& sizes = {},
                                           const scene::SeriesDiff* diff = nullptr) {
        table.sortBy(column, descending);
        table.update(t, sizes, diff);
        std::vector<std::string> out = labels(table.rows());
        out.erase(out.begin());  // the root
        return out;
    }

    scene::testing::Fixture f_;
    uint32_t a_ = kNoNode, b_ = kNoNode, ints_ = kNoNode, a_run_ = kNoNode, a_other_ = kNoNode,
             ints_other_ = kNoNode;
};

TEST_F(TreeTableTest, RowsAtAGcHoldExactValuesAndShares) {
    TreeTable table(series());
    table.update(3.0);
    const std::vector<TableRow>& rows = table.rows();
    ASSERT_EQ(labels(rows), (std::vector<std::string>{"Overall", "int[]", "A", "B"}));  // bytes, descending
    EXPECT_EQ(depths(rows), (std::vector<uint32_t>{0, 1, 1, 1}));
    const TableRow& root = rows[0];
    EXPECT_EQ(root.id, TreeSeries::kRoot);
    EXPECT_EQ(root.parent, kNoNode);
    EXPECT_TRUE(root.has_children);
    EXPECT_TRUE(root.expanded);
    EXPECT_EQ(root.objects, 4.0);
    EXPECT_EQ(root.bytes, 464.0);
    EXPECT_EQ(root.objects_share, 100.0);
    EXPECT_EQ(root.bytes_share, 100.0);

    const TableRow& ints = rows[1];
    EXPECT_EQ(ints.id, ints_);
    EXPECT_EQ(ints.parent, TreeSeries::kRoot);
    EXPECT_TRUE(ints.has_children);
    EXPECT_FALSE(ints.expanded);
    EXPECT_FALSE(ints.other);
    EXPECT_EQ(ints.objects, 1.0);
    EXPECT_EQ(ints.bytes, 416.0);
    EXPECT_DOUBLE_EQ(ints.objects_share, 25.0);
    EXPECT_DOUBLE_EQ(ints.bytes_share, 100.0 * 416.0 / 464.0);
    EXPECT_EQ(ints.objects_growth, 1.0);  // against GC 0
    EXPECT_EQ(ints.bytes_growth, 416.0);
    EXPECT_FALSE(ints.sizes.has_value());

    const TableRow& a = rows[2];
    EXPECT_EQ(a.objects, 3.0);
    EXPECT_EQ(a.bytes, 48.0);
    EXPECT_DOUBLE_EQ(a.objects_share, 75.0);
    EXPECT_EQ(a.objects_growth, 1.0);
    EXPECT_EQ(a.bytes_growth, 16.0);
    const TableRow& b = rows[3];
    EXPECT_EQ(b.objects, 0.0);
    EXPECT_EQ(b.bytes, 0.0);
    EXPECT_EQ(b.objects_share, 0.0);
    EXPECT_EQ(b.objects_growth, -1.0);
    EXPECT_EQ(b.bytes_growth, -24.0);
    EXPECT_EQ(table.time(), 3.0);
}

TEST_F(TreeTableTest, RowsBetweenTwoGcsAreTweened) {
    TreeTable table(series());
    table.update(2.25);  // a quarter from GC 2 to GC 3
    const std::vector<TableRow>& rows = table.rows();
    ASSERT_EQ(labels(rows), (std::vector<std::string>{"Overall", "int[]", "A", "B"}));
    EXPECT_DOUBLE_EQ(rows[0].bytes, 112.0 + 0.25 * 352.0);  // 200
    EXPECT_DOUBLE_EQ(rows[0].objects, 4.0);
    EXPECT_DOUBLE_EQ(rows[1].bytes, 56.0 + 0.25 * 360.0);  // 146
    EXPECT_DOUBLE_EQ(rows[1].bytes_share, 73.0);
    EXPECT_DOUBLE_EQ(rows[2].bytes, 36.0);
    EXPECT_DOUBLE_EQ(rows[2].objects, 2.25);
    EXPECT_DOUBLE_EQ(rows[2].objects_share, 56.25);
    EXPECT_DOUBLE_EQ(rows[3].bytes, 18.0);
    EXPECT_DOUBLE_EQ(rows[3].objects, 0.75);
    EXPECT_DOUBLE_EQ(rows[3].bytes_growth, -6.0);

    table.update(1.5);  // halfway from GC 1 to GC 2
    EXPECT_DOUBLE_EQ(table.rows()[0].bytes, 100.0);
    EXPECT_DOUBLE_EQ(table.rows()[0].objects, 3.5);
    const TableRow& b = table.rows()[table.rowOf(b_).value()];
    EXPECT_DOUBLE_EQ(b.bytes, 12.0);
    EXPECT_DOUBLE_EQ(b.objects, 0.5);
    EXPECT_DOUBLE_EQ(b.bytes_share, 12.0);
}

TEST_F(TreeTableTest, GrowthIsMeasuredFromTheBaseTime) {
    TreeTableOptions o;
    o.base_time = 1.0;
    TreeTable table(series(), o);
    table.update(3.0);
    const TableRow& root = table.rows()[0];
    EXPECT_EQ(root.bytes_growth, 464.0 - 88.0);
    EXPECT_EQ(root.objects_growth, 1.0);
    EXPECT_EQ(table.rows()[table.rowOf(ints_).value()].bytes_growth, 360.0);
    EXPECT_EQ(table.rows()[table.rowOf(b_).value()].bytes_growth, 0.0);
    EXPECT_EQ(table.rows()[table.rowOf(a_).value()].objects_growth, 1.0);

    o.base_time = 2.5;  // a fractional base: 56 + 180 for int[]
    table.setOptions(o);
    table.update(3.0);
    EXPECT_DOUBLE_EQ(table.rows()[table.rowOf(ints_).value()].bytes_growth, 416.0 - 236.0);
    EXPECT_DOUBLE_EQ(table.rows()[table.rowOf(b_).value()].bytes_growth, -12.0);
}

TEST_F(TreeTableTest, ExpandAndCollapseGiveThePreorderOfTheExpandedTree) {
    TreeTable table(series());
    EXPECT_EQ(table.expandedNodes(), (std::vector<uint32_t>{TreeSeries::kRoot}));
    table.setExpanded(a_, true);
    table.setExpanded(ints_, true);
    table.setExpanded(a_run_, true);  // a leaf: never expanded
    table.setExpanded(scene::otherIdOf(a_), true);
    EXPECT_FALSE(table.isExpanded(a_run_));
    EXPECT_FALSE(table.isExpanded(scene::otherIdOf(a_)));
    table.update(3.0);
    EXPECT_EQ(labels(table.rows()),
              (std::vector<std::string>{"Overall", "int[]", kOther, kRun, "A", kRun, kOther, "B"}));
    EXPECT_EQ(depths(table.rows()), (std::vector<uint32_t>{0, 1, 2, 2, 1, 2, 2, 1}));
    const TableRow& a = table.rows()[4];
    EXPECT_TRUE(a.expanded);
    EXPECT_TRUE(a.has_children);
    const TableRow& a_run = table.rows()[5];
    EXPECT_EQ(a_run.id, a_run_);
    EXPECT_EQ(a_run.parent, a_);
    EXPECT_FALSE(a_run.has_children);
    EXPECT_FALSE(a_run.expanded);
    EXPECT_EQ(a_run.bytes, 32.0);
    EXPECT_EQ(a_run.objects, 2.0);
    EXPECT_DOUBLE_EQ(a_run.objects_share, 50.0);  // of the root, not of the parent
    EXPECT_EQ(table.rows()[3].bytes, 0.0);        // int[]/run at GC 3: still a row

    table.toggle(ints_);
    table.update(3.0);
    EXPECT_EQ(labels(table.rows()), (std::vector<std::string>{"Overall", "int[]", "A", kRun, kOther, "B"}));
    EXPECT_EQ(table.expandedNodes(), (std::vector<uint32_t>{TreeSeries::kRoot, a_}));

    table.setExpanded(TreeSeries::kRoot, false);  // the children stay expanded below it
    table.update(3.0);
    EXPECT_EQ(labels(table.rows()), (std::vector<std::string>{"Overall"}));
    EXPECT_FALSE(table.rows()[0].expanded);
    table.toggle(TreeSeries::kRoot);
    table.update(3.0);
    EXPECT_EQ(table.rows().size(), 6u);

    table.collapseAll();
    table.update(3.0);
    EXPECT_EQ(labels(table.rows()), (std::vector<std::string>{"Overall", "int[]", "A", "B"}));
}

TEST_F(TreeTableTest, WithoutTheRootItsChildrenAreTheTopRows) {
    TreeTableOptions o;
    o.show_root = false;
    TreeTable table(series(), o);
    table.setExpanded(a_, true);
    table.update(3.0);
    EXPECT_EQ(labels(table.rows()), (std::vector<std::string>{"int[]", "A", kRun, kOther, "B"}));
    EXPECT_EQ(depths(table.rows()), (std::vector<uint32_t>{0, 0, 1, 1, 0}));
    EXPECT_DOUBLE_EQ(table.rows()[0].bytes_share, 100.0 * 416.0 / 464.0);
}

TEST_F(TreeTableTest, EmptyRowsCanBeHidden) {
    TreeTableOptions o;
    o.hide_empty = true;
    TreeTable table(series(), o);
    table.setExpanded(ints_, true);
    table.update(3.0);
    EXPECT_EQ(labels(table.rows()), (std::vector<std::string>{"Overall", "int[]", kOther, "A"}));
    table.update(2.0);
    EXPECT_EQ(labels(table.rows()), (std::vector<std::string>{"Overall", "int[]", kRun, "A", "B"}));
}

TEST_F(TreeTableTest, RevealExpandsTheAncestorsAndFindsTheRow) {
    TreeTable table(series());
    table.update(3.0);
    EXPECT_FALSE(table.rowOf(ints_other_).has_value());
    EXPECT_EQ(table.reveal(ints_other_), ints_other_);
    EXPECT_TRUE(table.isExpanded(ints_));
    EXPECT_FALSE(table.isExpanded(ints_other_));
    table.update(3.0);
    EXPECT_EQ(table.rowOf(ints_other_), std::optional<size_t>(2));
    EXPECT_EQ(table.rowOf(ints_), std::optional<size_t>(1));
    EXPECT_EQ(table.rowOf(TreeSeries::kRoot), std::optional<size_t>(0));
    EXPECT_FALSE(table.rowOf(a_run_).has_value());

    table.setExpanded(TreeSeries::kRoot, false);
    EXPECT_EQ(table.reveal(a_run_), a_run_);
    table.update(3.0);
    ASSERT_TRUE(table.rowOf(a_run_).has_value());
    EXPECT_EQ(table.rows()[*table.rowOf(a_run_)].id, a_run_);

    EXPECT_EQ(table.reveal(12345), kNoNode);
    EXPECT_EQ(table.reveal(TreeSeries::kRoot), TreeSeries::kRoot);
}

TEST_F(TreeTableTest, SortsSiblingsByEveryColumnBothWaysWithTiesByLabel) {
    TreeTable table(series());
    using V = std::vector<std::string>;
    // GC 3: objects A 3, B 0, int[] 1; bytes A 48, B 0, int[] 416; growth objects A +1, B -1,
    // int[] +1 (a tie: by label), bytes A +16, B -24, int[] +416.
    EXPECT_EQ(typesSortedBy(table, TableColumn::kName, false, 3.0), (V{"A", "B", "int[]"}));
    EXPECT_EQ(typesSortedBy(table, TableColumn::kName, true, 3.0), (V{"int[]", "B", "A"}));
    EXPECT_EQ(typesSortedBy(table, TableColumn::kObjects, true, 3.0), (V{"A", "int[]", "B"}));
    EXPECT_EQ(typesSortedBy(table, TableColumn::kObjects, false, 3.0), (V{"B", "int[]", "A"}));
    EXPECT_EQ(typesSortedBy(table, TableColumn::kObjectsShare, true, 3.0), (V{"A", "int[]", "B"}));
    EXPECT_EQ(typesSortedBy(table, TableColumn::kObjectsShare, false, 3.0), (V{"B", "int[]", "A"}));
    EXPECT_EQ(typesSortedBy(table, TableColumn::kBytes, true, 3.0), (V{"int[]", "A", "B"}));
    EXPECT_EQ(typesSortedBy(table, TableColumn::kBytes, false, 3.0), (V{"B", "A", "int[]"}));
    EXPECT_EQ(typesSortedBy(table, TableColumn::kBytesShare, true, 3.0), (V{"int[]", "A", "B"}));
    EXPECT_EQ(typesSortedBy(table, TableColumn::kBytesShare, false, 3.0), (V{"B", "A", "int[]"}));
    EXPECT_EQ(typesSortedBy(table, TableColumn::kObjectsGrowth, true, 3.0), (V{"A", "int[]", "B"}));
    EXPECT_EQ(typesSortedBy(table, TableColumn::kObjectsGrowth, false, 3.0), (V{"B", "A", "int[]"}));
    EXPECT_EQ(typesSortedBy(table, TableColumn::kBytesGrowth, true, 3.0), (V{"int[]", "A", "B"}));
    EXPECT_EQ(typesSortedBy(table, TableColumn::kBytesGrowth, false, 3.0), (V{"B", "A", "int[]"}));
    // GC 2: objects A 2, B 1, int[] 1: the tie by label in both directions.
    EXPECT_EQ(typesSortedBy(table, TableColumn::kObjects, true, 2.0), (V{"A", "B", "int[]"}));
    EXPECT_EQ(typesSortedBy(table, TableColumn::kObjects, false, 2.0), (V{"B", "int[]", "A"}));

    // Deep and retained: A and int[] known (deep: a tie), B unknown: always last.
    std::map<uint32_t, NodeSizes> known{{a_, {100, 10, 3}}, {ints_, {100, 20, 3}}};
    const SizeLookup sizes = [&](uint32_t id) -> std::optional<NodeSizes> {
        auto it = known.find(id);
        return it == known.end() ? std::nullopt : std::optional<NodeSizes>(it->second);
    };
    EXPECT_EQ(typesSortedBy(table, TableColumn::kDeepBytes, true, 3.0, sizes), (V{"A", "int[]", "B"}));
    EXPECT_EQ(typesSortedBy(table, TableColumn::kDeepBytes, false, 3.0, sizes), (V{"A", "int[]", "B"}));
    EXPECT_EQ(typesSortedBy(table, TableColumn::kRetainedBytes, true, 3.0, sizes), (V{"int[]", "A", "B"}));
    EXPECT_EQ(typesSortedBy(table, TableColumn::kRetainedBytes, false, 3.0, sizes), (V{"A", "int[]", "B"}));
    EXPECT_EQ(typesSortedBy(table, TableColumn::kRetainedBytes, false, 3.0), (V{"A", "B", "int[]"}));

    // Siblings are sorted at every level; the shape stays.
    table.sortBy(TableColumn::kName, false);
    table.setExpanded(a_, true);
    table.setExpanded(ints_, true);
    table.update(3.0);
    EXPECT_EQ(labels(table.rows()), (V{"Overall", "A", kOther, kRun, "B", "int[]", kOther, kRun}));
    table.sortBy(TableColumn::kBytes, false);
    table.update(3.0);
    EXPECT_EQ(labels(table.rows()), (V{"Overall", "B", "A", kOther, kRun, "int[]", kRun, kOther}));
}

TEST_F(TreeTableTest, UnknownSizesAreListedForTheUiToRequest) {
    TreeTable table(series());
    table.setExpanded(a_, true);
    table.update(3.0);
    EXPECT_EQ(table.missingSizes(),
              (std::vector<uint32_t>{TreeSeries::kRoot, ints_, a_, a_run_, a_other_, b_}));
    std::vector<uint32_t> asked;
    const SizeLookup sizes = [&](uint32_t id) -> std::optional<NodeSizes> {
        asked.push_back(id);
        if (id == a_) return NodeSizes{200, 150, 2};
        if (id == TreeSeries::kRoot) return NodeSizes{464, 464, 2};
        return std::nullopt;
    };
    table.update(3.0, sizes);
    EXPECT_EQ(asked.size(), table.rows().size());  // once per row
    EXPECT_EQ(table.missingSizes(), (std::vector<uint32_t>{ints_, a_run_, a_other_, b_}));
    const TableRow& a = table.rows()[table.rowOf(a_).value()];
    EXPECT_EQ(a.sizes, (NodeSizes{200, 150, 2}));
}

TEST_F(TreeTableTest, PrunedChildrenEndInOneOtherRow) {
    TreeTableOptions o;
    o.prune.max_children = 1;  // by growth: int[] shown; A and B folded
    TreeTable table(series(), o);
    table.update(3.0);
    ASSERT_EQ(labels(table.rows()), (std::vector<std::string>{"Overall", "int[]", "Other (2)"}));
    const TableRow& other = table.rows()[2];
    EXPECT_EQ(other.id, scene::otherIdOf(TreeSeries::kRoot));
    EXPECT_TRUE(other.other);
    EXPECT_EQ(other.parent, TreeSeries::kRoot);
    EXPECT_EQ(other.depth, 1u);
    EXPECT_EQ(other.folded_count, 2u);
    EXPECT_FALSE(other.has_children);
    EXPECT_FALSE(other.expanded);
    EXPECT_EQ(other.bytes, 48.0);  // A 48 + B 0
    EXPECT_EQ(other.objects, 3.0);
    EXPECT_EQ(other.bytes_growth, 48.0 - 56.0);
    EXPECT_DOUBLE_EQ(other.objects_share, 75.0);
    const std::span<const uint32_t> folded = table.folded(other.id);
    EXPECT_EQ(std::vector<uint32_t>(folded.begin(), folded.end()), (std::vector<uint32_t>{a_, b_}));
    EXPECT_TRUE(table.folded(a_).empty());

    // The Other row stays last whatever the sort.
    table.sortBy(TableColumn::kBytes, false);
    table.update(1.5);
    EXPECT_EQ(labels(table.rows()), (std::vector<std::string>{"Overall", "int[]", "Other (2)"}));
    EXPECT_DOUBLE_EQ(table.rows()[2].bytes, 32.0 + 12.0);
    table.setExpanded(other.id, true);
    EXPECT_FALSE(table.isExpanded(scene::otherIdOf(TreeSeries::kRoot)));

    // Revealing a folded node gives its Other row.
    table.collapseAll();
    EXPECT_EQ(table.reveal(a_run_), scene::otherIdOf(TreeSeries::kRoot));
    EXPECT_FALSE(table.isExpanded(a_));
    EXPECT_EQ(table.reveal(scene::otherIdOf(TreeSeries::kRoot)), scene::otherIdOf(TreeSeries::kRoot));
    table.update(3.0);
    EXPECT_EQ(table.rowOf(scene::otherIdOf(TreeSeries::kRoot)), std::optional<size_t>(2));

    // share 0.5: int[] and A hold half the heap at every GC; B is folded.
    o.prune.max_children = 9;
    o.prune.share = 0.5;
    table.setOptions(o);
    table.update(0.0);
    EXPECT_EQ(labels(table.rows()), (std::vector<std::string>{"Overall", "A", "int[]", "Other (1)"}));
    EXPECT_EQ(table.rows()[3].bytes, 24.0);

    // Pruning off: every child, no Other row.
    o.prune.enabled = false;
    table.setOptions(o);
    table.update(0.0);
    EXPECT_EQ(labels(table.rows()), (std::vector<std::string>{"Overall", "A", "B", "int[]"}));
    EXPECT_TRUE(table.folded(scene::otherIdOf(TreeSeries::kRoot)).empty());
}

// The explorer shows the series while it is built (TreeSeriesBuilder): new GCs and new nodes
// change the pruning, and the table follows.
TEST_F(TreeTableTest, FollowsASeriesThatGrows) {
    TreeSeriesBuilder builder(f_.file->symbols(), *f_.chain, {});
    auto heap0 = f_.history->heapAt(0);
    ASSERT_TRUE(heap0.ok());
    ASSERT_TRUE(builder.add(heap0->view()).ok());
    TreeTableOptions o;
    o.prune.max_children = 1;
    TreeTable table(builder.series(), o);
    table.update(0.0);
    // GC 0 only: A (32 B) and B (24 B), no growth: A shown, B folded.
    EXPECT_EQ(labels(table.rows()), (std::vector<std::string>{"Overall", "A", "Other (1)"}));
    auto heap1 = f_.history->heapAt(1);
    ASSERT_TRUE(heap1.ok());
    ASSERT_TRUE(builder.add(heap1->view()).ok());
    table.update(1.0);
    // int[] appeared and grew most: shown, A and B folded.
    EXPECT_EQ(labels(table.rows()), (std::vector<std::string>{"Overall", "int[]", "Other (2)"}));
    EXPECT_EQ(table.rows()[2].bytes, 32.0);
}

TEST_F(TreeTableTest, TheWholeTreeToADepthForExport) {
    TreeTable table(series());
    const std::vector<TableRow> one = table.rowsToDepth(3.0, 1);
    EXPECT_EQ(labels(one), (std::vector<std::string>{"Overall", "int[]", "A", "B"}));
    EXPECT_TRUE(one[0].expanded);
    EXPECT_FALSE(one[1].expanded);
    const std::vector<TableRow> two = table.rowsToDepth(3.0, 2);
    EXPECT_EQ(labels(two),
              (std::vector<std::string>{"Overall", "int[]", kOther, kRun, "A", kRun, kOther, "B", kOther}));
    EXPECT_EQ(table.rowsToDepth(3.0, 0).size(), 1u);
    EXPECT_TRUE(table.rows().empty());  // the table's own rows are untouched
}

TEST_F(TreeTableTest, CsvOfTheTable) {
    TreeTable table(series());
    const SizeLookup sizes = [&](uint32_t id) -> std::optional<NodeSizes> {
        if (id == a_) return NodeSizes{200, 150, 2};
        return std::nullopt;
    };
    table.setExpanded(a_, true);
    table.update(3.0, sizes);
    EXPECT_EQ(tableCsv(table.rows()),
              "path,name,depth,objects,objects_pct,bytes,bytes_pct,deep_bytes,retained_bytes,objects_growth,"
              "bytes_growth\r\n"
              ",Overall,0,4,100.00,464,100.00,,,1,408\r\n"
              "int[],int[],1,1,25.00,416,89.66,,,1,416\r\n"
              "A,A,1,3,75.00,48,10.34,200,150,1,16\r\n"
              "A / Main.run(Main.java:10),Main.run(Main.java:10),2,2,50.00,32,6.90,,,0,0\r\n"
              "A / Main.other(Main.java:20),Main.other(Main.java:20),2,1,25.00,16,3.45,,,1,16\r\n"
              "B,B,1,0,0.00,0,0.00,,,-1,-24\r\n");
    table.update(1.5);
    const std::string csv = tableCsv(table.rows());
    EXPECT_NE(csv.find("\r\nB,B,1,0.5,14.29,12,12.00,,,-0.5,-12\r\n"), std::string::npos) << csv;
}

// The diff from GC 2 to GC 3 (ICPE18 §5.3): born ids 6 (int[]/other, 416 B) and 7 (A/run, 16),
// died 3 (int[]/run, 56) and 4 (B/other, 24), permanent 1 (A/run) and 5 (A/other), 16 B each.
TEST_F(TreeTableTest, DiffCohortsFillTheirColumnsSortAndExport) {
    auto diff = HeapDiff::between(*f_.history, 2, 3, *f_.chain);
    ASSERT_TRUE(diff.ok());
    const scene::SeriesDiff laid = scene::SeriesDiff::lay(*diff, series());
    TreeTable table(series());
    table.setExpanded(a_, true);
    table.update(3.0, {}, &laid);
    EXPECT_EQ(
        tableCsv(table.rows()),
        "path,name,depth,objects,objects_pct,bytes,bytes_pct,deep_bytes,retained_bytes,objects_growth,"
        "bytes_growth,born_objects,born_bytes,died_objects,died_bytes,permanent_objects,permanent_bytes\r\n"
        ",Overall,0,4,100.00,464,100.00,,,1,408,2,432,2,80,2,32\r\n"
        "int[],int[],1,1,25.00,416,89.66,,,1,416,1,416,1,56,0,0\r\n"
        "A,A,1,3,75.00,48,10.34,,,1,16,1,16,0,0,2,32\r\n"
        "A / Main.run(Main.java:10),Main.run(Main.java:10),2,2,50.00,32,6.90,,,0,0,1,16,0,0,1,16\r\n"
        "A / Main.other(Main.java:20),Main.other(Main.java:20),2,1,25.00,16,3.45,,,1,16,0,0,0,0,1,16\r\n"
        "B,B,1,0,0.00,0,0.00,,,-1,-24,0,0,1,24,0,0\r\n");
    const std::string json = tableJson(table.rows());
    EXPECT_NE(json.find("\"born_objects\": 2, \"born_bytes\": 432, \"died_objects\": 2, \"died_bytes\": 80, "
                        "\"permanent_objects\": 2, \"permanent_bytes\": 32}"),
              std::string::npos)
        << json;
    table.setExpanded(a_, false);
    EXPECT_EQ(typesSortedBy(table, TableColumn::kDiedBytes, true, 3.0, {}, &laid),
              (std::vector<std::string>{"int[]", "B", "A"}));
    EXPECT_EQ(typesSortedBy(table, TableColumn::kPermanentBytes, true, 3.0, {}, &laid),
              (std::vector<std::string>{"A", "B", "int[]"}));
    EXPECT_EQ(typesSortedBy(table, TableColumn::kBornBytes, false, 3.0, {}, &laid),
              (std::vector<std::string>{"B", "A", "int[]"}));
    // Without a diff the cohorts are unknown and the export has no such columns.
    table.update(3.0);
    EXPECT_FALSE(table.rows().front().cohorts.has_value());
    EXPECT_EQ(tableCsv(table.rows()).find("born_objects"), std::string::npos);
}

// Hand-made rows with awkward labels: a comma, quotes, a newline, a tab, UTF-8, control bytes.
std::vector<TableRow> awkwardRows() {
    std::vector<TableRow> rows(4);
    rows[0].id = TreeSeries::kRoot;
    rows[0].label = "Overall";
    rows[0].objects = 10;
    rows[0].bytes = 1000;
    rows[0].objects_share = rows[0].bytes_share = 100;
    rows[1].id = 1;
    rows[1].depth = 1;
    rows[1].label = "Map<K, V>";
    rows[1].objects = 2.5;
    rows[1].bytes = 1234567890123;
    rows[1].objects_share = 25;
    rows[1].bytes_share = 100.0 / 3.0;
    rows[1].bytes_growth = -7;
    rows[1].sizes = NodeSizes{5000, 4000, 1};
    rows[2].id = 2;
    rows[2].depth = 2;
    rows[2].label = "say \"hi\"\nthen\tgo";
    rows[3].id = scene::otherIdOf(1);
    rows[3].other = true;
    rows[3].depth = 2;
    rows[3].label = "Größe \xE2\x86\x92 \x01\x7f";
    rows[3].folded_count = 3;
    return rows;
}

TEST(TableExport, CsvQuotesCommasQuotesAndNewlines) {
    EXPECT_EQ(
        tableCsv(awkwardRows()),
        "path,name,depth,objects,objects_pct,bytes,bytes_pct,deep_bytes,retained_bytes,objects_growth,"
        "bytes_growth\r\n"
        ",Overall,0,10,100.00,1000,100.00,,,0,0\r\n"
        "\"Map<K, V>\",\"Map<K, V>\",1,2.5,25.00,1234567890123,33.33,5000,4000,0,-7\r\n"
        "\"Map<K, V> / say \"\"hi\"\"\nthen\tgo\",\"say \"\"hi\"\"\nthen\tgo\",2,0,0.00,0,0.00,,,0,0\r\n"
        "\"Map<K, V> / Größe \xE2\x86\x92 \x01\x7f\",Größe \xE2\x86\x92 \x01\x7f,2,0,0.00,0,0.00,,,0,0\r\n");
    EXPECT_EQ(tableCsv({}),
              "path,name,depth,objects,objects_pct,bytes,bytes_pct,deep_bytes,retained_bytes,objects_growth,"
              "bytes_growth\r\n");
}

TEST(TableExport, JsonEscapesStringsAndWritesUnknownAsNull) {
    EXPECT_EQ(
        tableJson(awkwardRows()),
        "[\n"
        "  {\"path\": \"\", \"name\": \"Overall\", \"depth\": 0, \"objects\": 10, \"objects_pct\": 100.00, "
        "\"bytes\": 1000, \"bytes_pct\": 100.00, \"deep_bytes\": null, \"retained_bytes\": null, "
        "\"objects_growth\": 0, \"bytes_growth\": 0},\n"
        "  {\"path\": \"Map<K, V>\", \"name\": \"Map<K, V>\", \"depth\": 1, \"objects\": 2.5, "
        "\"objects_pct\": "
        "25.00, \"bytes\": 1234567890123, \"bytes_pct\": 33.33, \"deep_bytes\": 5000, \"retained_bytes\": "
        "4000, "
        "\"objects_growth\": 0, \"bytes_growth\": -7},\n"
        "  {\"path\": \"Map<K, V> / say \\\"hi\\\"\\nthen\\tgo\", \"name\": \"say \\\"hi\\\"\\nthen\\tgo\", "
        "\"depth\": 2, \"objects\": 0, \"objects_pct\": 0.00, \"bytes\": 0, \"bytes_pct\": 0.00, "
        "\"deep_bytes\": "
        "null, \"retained_bytes\": null, \"objects_growth\": 0, \"bytes_growth\": 0},\n"
        "  {\"path\": \"Map<K, V> / Größe \xE2\x86\x92 \\u0001\x7f\", \"name\": \"Größe \xE2\x86\x92 "
        "\\u0001\x7f\", \"depth\": 2, \"objects\": 0, \"objects_pct\": 0.00, \"bytes\": 0, \"bytes_pct\": "
        "0.00, \"deep_bytes\": null, \"retained_bytes\": null, \"objects_growth\": 0, \"bytes_growth\": 0}\n"
        "]\n");
    EXPECT_EQ(tableJson({}), "[]\n");
}

TEST(TableExport, ColumnTitles) {
    EXPECT_EQ(columnTitle(TableColumn::kName), "Name");
    EXPECT_EQ(columnTitle(TableColumn::kBytesShare), "% Bytes");
    EXPECT_EQ(columnTitle(TableColumn::kRetainedBytes), "Retained bytes");
}

}  // namespace
}  // namespace memcity::explore
