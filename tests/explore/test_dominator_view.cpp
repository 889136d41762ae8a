// The tree table's dominator view without a window (explore/dominator_model.h): the rows of a
// tiny hand-made heap with exact retained sizes, expansion kept by object id as the cursor moves
// to another snapshot GC, the note at a GC without a snapshot, and a row's objects inspected.
#include <gtest/gtest.h>

#include <algorithm>
#include <string>
#include <vector>

#include "explore/session.h"
#include "unit/trace_builder.h"

namespace memcity::explore {
namespace {

using testing::TraceBuilder;

// GC 0 (snapshot): a static field holds A#0; A#0 -> A#1, B#3; A#1 -> B#2 (A 16 B, B 24 B).
// GC 1: no snapshot. GC 2 (snapshot): B#3 died, A#4 born, A#1 -> A#4.
std::string dominatorTrace() {
    TraceBuilder b("dominator-view");
    b.alloc(0, 1).alloc(1, 1).allocSized(2, 2, 24).allocSized(3, 2, 24);
    b.gc(0, 4);
    b.snapshot(0, {{0, {TraceBuilder::strong(1), TraceBuilder::strong(3)}}, {1, {TraceBuilder::strong(2)}}},
               {TraceBuilder::staticRoot(0)});
    b.gc(1, 4);
    b.alloc(4, 1);
    b.gc(2, 5, {3});
    b.snapshot(2, {{0, {TraceBuilder::strong(1)}}, {1, {TraceBuilder::strong(2), TraceBuilder::strong(4)}}},
               {TraceBuilder::staticRoot(0)});
    return b.finish();
}

std::unique_ptr<Session> openedWithDominators(const std::string& path) {
    SessionOptions o;
    o.chain = *chainConfigOf("type");
    auto s = std::make_unique<Session>(o);
    s->open(path);
    s->waitSettled();
    EXPECT_TRUE(s->loaded()) << s->load().error;
    s->showDominators(true);
    s->waitSettled();
    return s;
}

TEST(DominatorView, ExpandsTheTreeWithExactRetainedSizesAndFollowsTheCursor) {
    auto s = openedWithDominators(dominatorTrace());
    ASSERT_TRUE(s->goToGc(0).ok());
    s->waitSettled();
    DominatorModel& m = s->dominators();
    EXPECT_EQ(dominatorText(m),
              "dominator tree of snapshot GC 0\n"
              "+ A#0: retained 80 B, 4 objects, 100.0%; shallow 16 B, 1 object\n");
    ASSERT_TRUE(m.expand("/#0", true));
    ASSERT_TRUE(m.expand("/#0/#1", true));
    EXPECT_FALSE(m.expand("/#0/#3", true));  // B#3 dominates nothing
    EXPECT_EQ(dominatorText(m),
              "dominator tree of snapshot GC 0\n"
              "- A#0: retained 80 B, 4 objects, 100.0%; shallow 16 B, 1 object\n"
              "  - A#1: retained 40 B, 2 objects, 50.0%; shallow 16 B, 1 object\n"
              "      B#2: retained 24 B, 1 object, 30.0%; shallow 24 B, 1 object\n"
              "    B#3: retained 24 B, 1 object, 30.0%; shallow 24 B, 1 object\n");

    // Grouped by type (MAT's group by class): A#0 is one A at the top; the group opens into it.
    ASSERT_TRUE(m.setGroupBy("type").ok());
    ASSERT_TRUE(m.expand("/g:A", true));
    EXPECT_EQ(dominatorText(m),
              "dominator tree of snapshot GC 0, grouped by type\n"
              "- A: retained 80 B, 4 objects, 100.0%; shallow 16 B, 1 object\n"
              "  + A#0: retained 80 B, 4 objects, 100.0%; shallow 16 B, 1 object\n");
    EXPECT_FALSE(m.setGroupBy("no-such-classifier").ok());
    ASSERT_TRUE(m.setGroupBy(std::nullopt).ok());

    // GC 1 has no snapshot: the tree of GC 0 stays, and says so.
    ASSERT_TRUE(s->goToGc(1).ok());
    s->waitSettled();
    EXPECT_EQ(m.shownGc(), 0u);
    EXPECT_EQ(m.note(), "GC 1 has no reference snapshot: the dominator tree of snapshot GC 0");

    // GC 2: the heap there, A#0 and A#1 still open (by their ids); B#3 is gone, A#4 is new.
    ASSERT_TRUE(s->goToGc(2).ok());
    s->waitSettled();
    EXPECT_EQ(dominatorText(m),
              "dominator tree of snapshot GC 2\n"
              "- A#0: retained 72 B, 4 objects, 100.0%; shallow 16 B, 1 object\n"
              "  - A#1: retained 56 B, 3 objects, 77.8%; shallow 16 B, 1 object\n"
              "      B#2: retained 24 B, 1 object, 33.3%; shallow 24 B, 1 object\n"
              "      A#4: retained 16 B, 1 object, 22.2%; shallow 16 B, 1 object\n");
}

TEST(DominatorView, ARowsObjectsGoToTheInspector) {
    auto s = openedWithDominators(dominatorTrace());
    ASSERT_TRUE(s->goToGc(2).ok());
    s->waitSettled();
    DominatorModel& m = s->dominators();
    ASSERT_TRUE(m.expand("/#0", true));
    EXPECT_FALSE(s->selectDominatorRow("/#9").ok());
    const Status picked = s->selectDominatorRow("/#0/#1");
    ASSERT_TRUE(picked.ok()) << picked.error().message << "\n" << dominatorText(m);
    s->waitSettled();
    EXPECT_EQ(s->inspectedObjects(), std::vector<uint64_t>{1});
    ASSERT_TRUE(s->inspection().has_value()) << s->inspectionError();
    const Inspection& in = *s->inspection();
    EXPECT_EQ(in.names, std::vector<std::string>{"A#1 (dominator tree of GC 2)"});
    ASSERT_TRUE(in.closure.has_value());
    EXPECT_EQ(in.closure->shallow.objects, 1u);
    EXPECT_EQ(in.closure->shallow.bytes, 16u);
    EXPECT_EQ(in.closure->retained.objects, 3u);
    EXPECT_EQ(in.closure->retained.bytes, 56u);
    // Selecting a group of the series ends the objects' inspection.
    ASSERT_TRUE(s->selectPath("A").ok());
    EXPECT_TRUE(s->inspectedObjects().empty());
}

// The inspected row follows the cursor with the view: at GC 2 its objects and title are those of
// the row in GC 2's tree (A#1 retains 2 objects, 40 B at GC 0; 3 objects, 56 B at GC 2).
TEST(DominatorView, TheInspectedRowIsReadAgainAtTheNextSnapshotGc) {
    auto s = openedWithDominators(dominatorTrace());
    ASSERT_TRUE(s->goToGc(0).ok());
    s->waitSettled();
    ASSERT_TRUE(s->dominators().expand("/#0", true));
    ASSERT_TRUE(s->selectDominatorRow("/#0/#1").ok());
    s->waitSettled();
    ASSERT_TRUE(s->inspection().has_value()) << s->inspectionError();
    EXPECT_EQ(s->inspection()->names, std::vector<std::string>{"A#1 (dominator tree of GC 0)"});
    ASSERT_TRUE(s->goToGc(2).ok());
    s->waitSettled();
    ASSERT_TRUE(s->inspection().has_value()) << s->inspectionError();
    const Inspection& in = *s->inspection();
    EXPECT_EQ(in.gc, 2u);
    EXPECT_EQ(in.names, std::vector<std::string>{"A#1 (dominator tree of GC 2)"});
    ASSERT_TRUE(in.closure.has_value());
    EXPECT_EQ(in.closure->deep.objects, 3u);
    EXPECT_EQ(in.closure->deep.bytes, 56u);
    EXPECT_EQ(in.closure->retained.objects, 3u);
    EXPECT_EQ(in.closure->retained.bytes, 56u);
}

// Grouped, an object row opens into what it dominates grouped by the classifier; a group row
// into its member objects.
TEST(DominatorView, GroupedAnObjectOpensIntoGroupsAndAGroupIntoObjects) {
    auto s = openedWithDominators(dominatorTrace());
    ASSERT_TRUE(s->goToGc(0).ok());
    s->waitSettled();
    DominatorModel& m = s->dominators();
    ASSERT_TRUE(m.setGroupBy("type").ok());
    ASSERT_TRUE(m.expand("/g:A", true));
    ASSERT_TRUE(m.expand("/g:A/#0", true));
    ASSERT_TRUE(m.expand("/g:A/#0/g:A", true));
    EXPECT_EQ(dominatorText(m),
              "dominator tree of snapshot GC 0, grouped by type\n"
              "- A: retained 80 B, 4 objects, 100.0%; shallow 16 B, 1 object\n"
              "  - A#0: retained 80 B, 4 objects, 100.0%; shallow 16 B, 1 object\n"
              "    - A: retained 40 B, 2 objects, 50.0%; shallow 16 B, 1 object\n"
              "      + A#1: retained 40 B, 2 objects, 50.0%; shallow 16 B, 1 object\n"
              "    + B: retained 24 B, 1 object, 30.0%; shallow 24 B, 1 object\n");
    // The group's member is selectable in it, as a row of its own.
    ASSERT_TRUE(s->selectDominatorRow("/g:A/#0/g:A/#1").ok());
    EXPECT_EQ(s->inspectedObjects(), std::vector<uint64_t>{1});
}

// GC 0 (snapshot): static fields hold A#0 and A#5; A#0 -> B#1, B#2; A#5 -> B#3; B#4 and the
// int[]#6 are alive but no root reaches them.
std::string buildingTrace() {
    TraceBuilder b("dominator-building");
    b.alloc(0, 1).alloc(1, 2).alloc(2, 2).alloc(3, 2).alloc(4, 2).alloc(5, 1).allocArray(6, 3, 2);
    b.gc(0, 7);
    b.snapshot(0, {{0, {TraceBuilder::strong(1), TraceBuilder::strong(2)}}, {5, {TraceBuilder::strong(3)}}},
               {TraceBuilder::staticRoot(0), TraceBuilder::staticRoot(5)});
    return b.finish();
}

// A building selected while the view is shown selects the top-level row that retains the most of
// its objects (off the window's thread), or says why none is.
TEST(DominatorView, ABuildingSelectsTheTopRowThatRetainsMostOfIt) {
    auto s = openedWithDominators(buildingTrace());
    DominatorModel& m = s->dominators();
    ASSERT_TRUE(s->selectPath("B").ok());
    s->waitSettled();
    EXPECT_TRUE(m.takeScroll());
    EXPECT_FALSE(m.takeScroll());
    EXPECT_EQ(dominatorText(m),
              "dominator tree of snapshot GC 0\n"
              "building: B: A#0 retains 2 of its 4 objects (48 B)\n"
              "+ A#0: retained 64 B, 3 objects, 61.5%; shallow 16 B, 1 object [selected]\n"
              "+ A#5: retained 40 B, 2 objects, 38.5%; shallow 16 B, 1 object\n");
    // The building stays the inspected selection.
    EXPECT_TRUE(s->inspectedObjects().empty());
    EXPECT_EQ(s->selection().size(), 1u);

    // Grouped: the group the top dominator is in.
    ASSERT_TRUE(m.setGroupBy("type").ok());
    ASSERT_TRUE(s->selectPath("B").ok());
    s->waitSettled();
    EXPECT_EQ(dominatorText(m),
              "dominator tree of snapshot GC 0, grouped by type\n"
              "building: B: A#0 retains 2 of its 4 objects (48 B), in the group A\n"
              "+ A: retained 104 B, 5 objects, 100.0%; shallow 32 B, 2 objects [selected]\n");

    // No root reaches the int[]: no row.
    ASSERT_TRUE(s->selectPath("int[]").ok());
    s->waitSettled();
    EXPECT_EQ(m.selected(), "");
    EXPECT_EQ(m.locateNote(),
              "int[]: none of its 1 object at snapshot GC 0 has a dominating object: no reported root "
              "reaches them");
}

// Another trace opened while the view builds a heap: the view starts afresh for it. Object ids
// of the last trace (A#0 open, A#1 selected) mean other objects there, and its build's answer
// is not taken for the new trace's (GC 0 in both). The last trace's jobs are waited for before
// its history is freed (the sanitizer build sees a use after free otherwise).
TEST(DominatorView, AnotherTraceOpenedWhileBuildingStartsAfresh) {
    const std::string first = dominatorTrace();
    auto s = openedWithDominators(first);
    ASSERT_TRUE(s->goToGc(0).ok());
    s->waitSettled();
    DominatorModel& m = s->dominators();
    ASSERT_TRUE(m.expand("/#0", true));
    ASSERT_TRUE(s->selectDominatorRow("/#0/#1").ok());
    s->waitSettled();
    ASSERT_TRUE(s->goToGc(2).ok());
    s->update();  // asks for GC 2's heap
    s->open(buildingTrace());
    s->waitSettled();
    ASSERT_TRUE(s->loaded()) << s->load().error;
    EXPECT_EQ(m.selected(), "");
    EXPECT_TRUE(m.locateNote().empty());
    EXPECT_TRUE(s->dominatorHighlight().empty());
    EXPECT_EQ(dominatorText(m),
              "dominator tree of snapshot GC 0\n"
              "+ A#0: retained 64 B, 3 objects, 61.5%; shallow 16 B, 1 object\n"
              "+ A#5: retained 40 B, 2 objects, 38.5%; shallow 16 B, 1 object\n");
}

// Back at the snapshot GC shown before the next one's heap was built: that heap stays, no build.
TEST(DominatorView, BackToTheShownGcKeepsItsHeap) {
    auto s = openedWithDominators(dominatorTrace());
    ASSERT_TRUE(s->goToGc(0).ok());
    s->waitSettled();
    DominatorModel& m = s->dominators();
    const uint64_t adopted = m.heapsAdopted();
    ASSERT_TRUE(s->goToGc(2).ok());
    s->update();  // asks for GC 2's heap
    ASSERT_TRUE(s->goToGc(0).ok());
    s->waitSettled();
    EXPECT_EQ(m.shownGc(), 0u);
    EXPECT_EQ(m.note(), "");
    EXPECT_EQ(m.heapsAdopted(), adopted);
    ASSERT_TRUE(s->goToGc(2).ok());
    s->waitSettled();
    EXPECT_EQ(m.shownGc(), 2u);
    EXPECT_EQ(m.heapsAdopted(), adopted + 1);
}

// clearSelection() ends the row's selection and its highlight in the city; hiding the view drops
// its heap and builds it again when shown.
TEST(DominatorView, ClearingTheSelectionClearsTheRowAndTheHighlight) {
    auto s = openedWithDominators(dominatorTrace());
    ASSERT_TRUE(s->goToGc(0).ok());
    s->waitSettled();
    DominatorModel& m = s->dominators();
    ASSERT_TRUE(m.expand("/#0", true));
    ASSERT_TRUE(s->selectDominatorRow("/#0/#1").ok());
    s->waitSettled();
    EXPECT_EQ(s->dominatorHighlight().size(), 2u);  // the buildings A and B
    s->clearSelection();
    s->waitSettled();
    EXPECT_EQ(m.selected(), "");
    EXPECT_TRUE(s->dominatorHighlight().empty());
    EXPECT_EQ(s->dominatorHighlightText(), "");

    const uint64_t adopted = m.heapsAdopted();
    s->showDominators(false);
    EXPECT_EQ(m.shownGc(), std::nullopt);
    EXPECT_TRUE(m.rows().empty());
    s->showDominators(true);
    s->waitSettled();
    EXPECT_EQ(m.heapsAdopted(), adopted + 1);
    EXPECT_EQ(dominatorText(m),  // still open by A#0's id
              "dominator tree of snapshot GC 0\n"
              "- A#0: retained 80 B, 4 objects, 100.0%; shallow 16 B, 1 object\n"
              "  + A#1: retained 40 B, 2 objects, 50.0%; shallow 16 B, 1 object\n"
              "    B#3: retained 24 B, 1 object, 30.0%; shallow 24 B, 1 object\n");
}

// The city's highlight names buildings of the series it was made for: when another series
// replaces it, the ids are never those of the last one (here the chain changes, so that the
// same ids are other buildings), and the new highlight is of the new series' buildings.
TEST(DominatorView, TheHighlightFollowsTheSeries) {
    auto s = openedWithDominators(dominatorTrace());
    ASSERT_TRUE(s->goToGc(0).ok());
    s->waitSettled();
    ASSERT_TRUE(s->dominators().expand("/#0", true));
    ASSERT_TRUE(s->selectDominatorRow("/#0/#1").ok());
    s->waitSettled();
    auto labelsOfHighlight = [&] {
        std::vector<std::vector<std::string>> labels;
        for (uint32_t id : s->dominatorHighlight())
            labels.push_back(s->labelsOf(id));
        std::sort(labels.begin(), labels.end());
        return labels;
    };
    using Labels = std::vector<std::vector<std::string>>;
    EXPECT_EQ(labelsOfHighlight(), (Labels{{"A"}, {"B"}}));
    const TreeSeries* old = s->series();
    ASSERT_TRUE(s->applyChain(*chainConfigOf("type,type")).ok());
    while (s->series() == old)
        s->update();
    for (const std::vector<std::string>& l : labelsOfHighlight())
        EXPECT_EQ(l.size(), 2u) << "an id of the last series";
    s->waitSettled();
    EXPECT_EQ(labelsOfHighlight(), (Labels{{"A", "A"}, {"B", "B"}}));
}

// A group of more members than a level shows opens into its largest kMaxRowsPerLevel objects and
// one row that sums the rest: B#0..B#202 (24 B + 1 B per id, so B#202 is the largest) each held
// by a static field.
TEST(DominatorView, AGroupOfManyMembersOpensIntoItsLargestAndOneSumOfTheRest) {
    TraceBuilder b("dominator-many");
    std::vector<Root> roots;
    for (uint64_t id = 0; id < 203; ++id) {
        b.allocSized(id, 2, 24 + id);
        roots.push_back(TraceBuilder::staticRoot(id));
    }
    b.gc(0, 203);
    b.snapshot(0, {}, roots);
    auto s = openedWithDominators(b.finish());
    DominatorModel& m = s->dominators();
    ASSERT_TRUE(m.setGroupBy("type").ok());
    ASSERT_TRUE(m.expand("/g:B", true));
    const std::vector<DominatorTableRow>& rows = m.rows();
    ASSERT_EQ(rows.size(), 1 + DominatorModel::kMaxRowsPerLevel + 1);
    EXPECT_EQ(rows[0].objects, 203u);
    EXPECT_EQ(rows[1].label, "B#202");
    EXPECT_EQ(rows[200].label, "B#3");
    const DominatorTableRow& more = rows.back();
    EXPECT_TRUE(more.more);
    EXPECT_EQ(more.label, "\u2026 3 more");
    EXPECT_EQ(more.depth, 1u);
    EXPECT_EQ(more.objects, 3u);
    EXPECT_EQ(more.shallow_bytes, 24u + 25u + 26u);
    EXPECT_EQ(more.retained_bytes, 24u + 25u + 26u);
}

}  // namespace
}  // namespace memcity::explore
