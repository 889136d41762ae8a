// Session, its comparisons: the diff as a view and churn mode.
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

// The heap diff as a view (ICPE18 §5.3): born / died / permanent since the base GC at the
// cursor, in the background, following the cursor; a window's next step in one call.
TEST(Session, TheDiffShowsBornDiedAndPermanentSinceTheBaseGc) {
    auto s = opened(scenario("buggy-stack"), "type,site(callers=1)");
    EXPECT_EQ(s->diff(), nullptr);
    s->setRange(GcRange{3, 4});
    ASSERT_TRUE(s->goToGc(4).ok());
    s->showDiff(true);
    s->waitSettled();
    ASSERT_NE(s->diff(), nullptr) << s->diffError();
    EXPECT_TRUE(s->diffCurrent());
    EXPECT_EQ(s->diff()->baseGc(), 3u);
    EXPECT_EQ(s->diff()->gc(), 4u);
    const uint32_t type = s->series()->find({"at.jku.data.TestObject"});
    const uint32_t refill =
        s->series()->find({"at.jku.data.TestObject", "at.jku.BuggyMain.fill(BuggyMain.java:21)",
                           "at.jku.BuggyMain.main(BuggyMain.java:47)"});
    ASSERT_NE(refill, kNoNode);
    EXPECT_EQ(s->diff()->at(type).born.objects, 1'000u);
    EXPECT_EQ(s->diff()->at(type).died.objects, 1'000u);
    EXPECT_EQ(s->diff()->at(type).permanent.objects, 9'000u);
    EXPECT_EQ(s->diff()->at(refill).born.objects, 1'000u);
    // The city draws the born group in the born colour.
    render::DrawList list;
    s->compose(kRect, kFramebuffer, list);
    const scene::CityLayout* city = s->cityLayout();
    ASSERT_NE(city, nullptr);
    bool drawn = false;
    for (const render::BoxInstance& box : list.boxes)
        if (box.id == refill) {
            EXPECT_EQ(box.color, scene::cohortColor(scene::Cohort::kBorn));
            drawn = true;
        }
    EXPECT_TRUE(drawn);

    // The cursor moves: the diff follows it (GC 3 against itself: all permanent).
    ASSERT_TRUE(s->goToGc(3).ok());
    s->waitSettled();
    ASSERT_TRUE(s->diffCurrent());
    EXPECT_EQ(s->diff()->at(TreeSeries::kRoot).born.objects + s->diff()->at(TreeSeries::kRoot).died.objects,
              0u);
    // Before the base: no diff, and why.
    s->setRange(GcRange{4, 4});
    s->waitSettled();
    EXPECT_FALSE(s->diffCurrent());
    EXPECT_NE(s->diffError().find("before the base GC 4"), std::string::npos) << s->diffError();
    s->showDiff(false);
    s->compose(kRect, kFramebuffer, list);
    for (const render::BoxInstance& box : list.boxes) {
        if (box.id != refill) continue;
        EXPECT_NE(box.color, scene::cohortColor(scene::Cohort::kBorn));
    }

    // A window's next step: the growing map's heuristic leak window (GCs 3..26, +1,417%) as the
    // range, the series over it, the cursor at its last GC and the diff over it, where the
    // Location cache is mostly born.
    auto gm = opened(scenario("growing-map"), "type");
    const auto& all = gm->windows();
    const auto found = std::find_if(all.begin(), all.end(),
                                    [](const Window& w) { return w.kind == WindowKind::kLeakHeuristic; });
    ASSERT_NE(found, all.end());
    const Window w = *found;
    ASSERT_TRUE(gm->windowNext(static_cast<size_t>(found - all.begin())).ok());
    gm->waitSettled();
    ASSERT_TRUE(gm->range().has_value());
    EXPECT_EQ(gm->range()->from, w.first_gc);
    EXPECT_EQ(gm->range()->to, w.last_gc);
    EXPECT_EQ(gm->series()->firstGc(), gm->range()->from);
    EXPECT_EQ(gm->currentGc(), w.last_gc);
    ASSERT_TRUE(gm->diffShown());
    ASSERT_TRUE(gm->diffCurrent()) << gm->diffError();
    const uint32_t location = gm->series()->find({"com.dynatrace.easytravel.jpa.business.Location"});
    ASSERT_NE(location, kNoNode);
    EXPECT_EQ(scene::dominantCohort(gm->diff()->at(location), Metric::kBytes), scene::Cohort::kBorn);
    EXPECT_FALSE(gm->windowNext(99).ok());
}

// Churn mode (VMIL19 §3.4.2): a churn window's next step shows what died young in it, by the
// same views and table; off again, the heap's series comes back.
TEST(Session, ChurnModeShowsWhatDiedYoungInTheRange) {
    auto s = opened(scenario("churn"), "type");
    EXPECT_FALSE(s->showChurn(true).ok());  // no range yet
    const auto& all = s->windows();
    const auto found =
        std::find_if(all.begin(), all.end(), [](const Window& w) { return w.kind == WindowKind::kChurn; });
    ASSERT_NE(found, all.end());
    const Window w = *found;
    ASSERT_TRUE(s->windowNext(static_cast<size_t>(found - all.begin())).ok());
    s->waitSettled();
    ASSERT_TRUE(s->churnShown());
    EXPECT_FALSE(s->diffShown());
    ASSERT_EQ(s->range(), (GcRange{w.first_gc - 1, w.last_gc}));
    const TreeSeries* series = s->series();
    ASSERT_NE(series, nullptr) << s->seriesError();
    EXPECT_EQ(series->firstGc(), w.first_gc);
    EXPECT_EQ(series->lastGc(), w.last_gc);
    EXPECT_EQ(s->currentGc(), w.last_gc);
    // The series is the churn's: its groups and counts are churnSeries's over the range.
    auto chain = parseChain("type");
    ASSERT_TRUE(chain.ok());
    auto expected = churnSeries(*s->history(), w.first_gc - 1, w.last_gc, *chain);
    ASSERT_TRUE(expected.ok());
    const uint32_t integer = series->find({"java.lang.Integer"});
    ASSERT_NE(integer, kNoNode);
    EXPECT_EQ(series->counts(integer, w.last_gc),
              expected->counts(expected->find({"java.lang.Integer"}), w.last_gc));
    EXPECT_EQ(series->counts(TreeSeries::kRoot, w.last_gc), expected->counts(TreeSeries::kRoot, w.last_gc));
    // The inspector reads heaps: off in churn mode, saying why.
    s->select(integer);
    s->waitSettled();
    EXPECT_FALSE(s->inspection().has_value());
    EXPECT_NE(s->inspectionError().find("churn mode"), std::string::npos) << s->inspectionError();
    // A chain that reads references is refused; off again, the heap's series over the range.
    ASSERT_TRUE(s->applyChain(chainOf("pointed-from(type)")).ok());
    s->waitSettled();
    EXPECT_NE(s->seriesError(), "");
    ASSERT_TRUE(s->applyChain(chainOf("type")).ok());
    ASSERT_TRUE(s->showChurn(false).ok());
    s->waitSettled();
    EXPECT_FALSE(s->churnShown());
    EXPECT_EQ(s->series()->firstGc(), w.first_gc - 1);
    // (the burst's Integers are gone from the heap: fewer live than died young)
    const uint32_t live_integer = s->series()->find({"java.lang.Integer"});
    const uint64_t churned = expected->counts(expected->find({"java.lang.Integer"}), w.last_gc).objects;
    EXPECT_LT(live_integer == kNoNode ? 0 : s->series()->counts(live_integer, w.last_gc).objects, churned);
    ASSERT_TRUE(s->showChurn(true).ok());  // the range is still there: on again works
    s->waitSettled();
    EXPECT_TRUE(s->churnShown());
    s->showDiff(true);  // the diff is of heaps: churn mode ends
    s->waitSettled();
    EXPECT_FALSE(s->churnShown());
}

}  // namespace
}  // namespace memcity::explore
