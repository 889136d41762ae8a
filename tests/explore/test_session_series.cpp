// Session, its series and time: classifier edits that keep the selection where it still exists,
// a range's series, playback that stops on events.
#include <gtest/gtest.h>

#include <algorithm>
#include <chrono>
#include <filesystem>
#include <fstream>
#include <string>
#include <thread>

#include "classify/churn.h"
#include "explore/session.h"
#include "explore/session_fixtures.h"
#include "hprof/import_cache.h"
#include "scene/camera.h"
#include "scene/city_state.h"
#include "synth/synth.h"
#include "unit/hprof_builder.h"
#include "unit/trace_builder.h"

namespace memcity::explore {
namespace {

TEST(Session, ClassifierEditsRecomputeAndKeepTheSelectionWhereItExists) {
    auto s = opened(scenario("growing-map"), "package,type");
    ASSERT_TRUE(s->selectPath("java / java.util; java / java.lang / java.lang.String").ok());
    ASSERT_TRUE(s->drillPath("java / java.util").ok());
    ASSERT_EQ(s->selection().size(), 2u);

    // A bad entry is refused with its error, and nothing changes.
    ChainConfig bad = s->chain();
    bad.classifiers.push_back("site(callers=x)");
    Status refused = s->applyChain(bad);
    ASSERT_FALSE(refused.ok());
    EXPECT_NE(refused.error().message.find("classifier 3:"), std::string::npos) << refused.error().message;
    EXPECT_EQ(s->chain().spec(), "package,type");

    // One level more: every selected path still exists (with new ids).
    ChainConfig deeper = s->chain();
    deeper.classifiers.push_back("site");
    ASSERT_TRUE(s->applyChain(deeper).ok());
    s->waitSettled();
    EXPECT_EQ(s->chain().spec(), "package,type,site");
    EXPECT_EQ(
        s->series()->size() > 0 && s->series()->find({"java", "java.util", "java.util.HashMap"}) != kNoNode,
        true);
    ASSERT_EQ(s->selection().size(), 2u);
    EXPECT_EQ(s->nameOf(s->selection()[0]), "java / java.util");
    EXPECT_EQ(s->nameOf(s->selection()[1]), "java / java.lang / java.lang.String");
    EXPECT_EQ(s->nameOf(s->drillRoot()), "java / java.util");

    // Type first: neither path is a group of the new tree.
    ChainConfig reordered = s->chain();
    ASSERT_TRUE(moveEntry(reordered.classifiers, 1, -1));
    EXPECT_EQ(reordered.spec(), "type,package,site");
    ASSERT_TRUE(s->applyChain(reordered).ok());
    s->waitSettled();
    EXPECT_TRUE(s->selection().empty());
    EXPECT_EQ(s->drillRoot(), TreeSeries::kRoot);

    // Metric and sort lay the same series out again without recomputing it.
    const TreeSeries* before = s->series();
    ChainConfig by_objects = s->chain();
    by_objects.metric = Metric::kObjects;
    ASSERT_TRUE(s->applyChain(by_objects).ok());
    EXPECT_EQ(s->series(), before);
    EXPECT_FALSE(s->recomputing());
}

TEST(Session, RangeRecomputesTheSeriesOverItsGcs) {
    auto s = opened(scenario("growing-map"), "package,type");
    s->setRange(GcRange{9, 4});  // either order
    ASSERT_TRUE(s->range().has_value());
    EXPECT_EQ(s->range()->from, 4u);
    ASSERT_TRUE(s->seriesOverRange().ok());
    s->waitSettled();
    EXPECT_EQ(s->series()->firstGc(), 4u);
    EXPECT_EQ(s->series()->lastGc(), 9u);
    EXPECT_FALSE(s->goToGc(2).ok());
    EXPECT_TRUE(s->goToGc(6).ok());
    EXPECT_EQ(s->currentGc(), 6u);
}

// Playback stops by itself where asked (GCspy's event filters): at a full GC, at a window's start,
// when the selection grows by more than N between GCs; each stop says why, once.
TEST(Session, PlaybackStopsOnEvents) {
    auto s = opened(scenario("buggy-stack"), "type");  // full GCs 3 and 4 (of 0..4)
    ASSERT_TRUE(s->goToGc(0).ok());
    s->setPlayStops({.full_gc = true});
    s->cursor().play();
    for (int frame = 0; frame < 600 && s->cursor().playing(); ++frame)
        s->advance(1.0 / 60);
    EXPECT_FALSE(s->cursor().playing());
    EXPECT_EQ(s->currentGc(), 3u);
    EXPECT_EQ(s->cursor().t(), 3.0);
    EXPECT_EQ(s->takeStop(), "stopped: GC 3 is a full GC");
    EXPECT_EQ(s->takeStop(), "");

    auto churn = opened(scenario("churn"), "type");  // windows start at GC 8 (docs/windows.md)
    ASSERT_FALSE(churn->windows().empty());
    const uint32_t start = churn->windows()[0].first_gc;
    ASSERT_TRUE(churn->goToGc(0).ok());
    churn->setPlayStops({.window_start = true});
    churn->cursor().play();
    churn->advance(100.0);  // one long step passes many GCs: it stops at the first that qualifies
    EXPECT_EQ(churn->currentGc(), start);
    EXPECT_NE(churn->lastStop().find("starts a"), std::string::npos) << churn->lastStop();
    ASSERT_TRUE(churn->selectWindow(0).ok());
    churn->waitSettled();
    EXPECT_EQ(churn->series()->firstGc(), churn->windows()[0].first_gc);
    EXPECT_EQ(churn->series()->lastGc(), churn->windows()[0].last_gc);
    EXPECT_FALSE(churn->selectWindow(99).ok());

    // The growing map's Location cache grows at every GC after the warm-up (by more than a byte,
    // by far less than 1 MiB).
    auto gm = opened(scenario("growing-map"), "type");
    const uint32_t location = gm->series()->find({"com.dynatrace.easytravel.jpa.business.Location"});
    ASSERT_NE(location, kNoNode);
    gm->select(location, false);
    ASSERT_TRUE(gm->goToGc(12).ok());
    gm->setPlayStops({.grows_over = 1});
    gm->cursor().play();
    gm->advance(100.0);
    EXPECT_EQ(gm->currentGc(), 13u);
    EXPECT_NE(gm->lastStop().find("the selection grew by"), std::string::npos) << gm->lastStop();
    ASSERT_TRUE(gm->goToGc(12).ok());
    gm->setPlayStops({.grows_over = 1u << 20});
    gm->cursor().play();
    gm->advance(100.0);
    EXPECT_EQ(gm->currentGc(), gm->series()->lastGc());  // played to the end
}

}  // namespace
}  // namespace memcity::explore
