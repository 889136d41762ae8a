// The heap diff as a view (ICPE18 §5.3): a diff laid onto a tree series by label path, the
// cohort that dominates a group, and the city and the sunburst coloured by it. Exact answers from
// the buggy stack (ICPE18 §5.3): between its full GCs 3 and 4, 1,000 TestObjects were born at
// BuggyMain.main:47, 1,000 died and 9,000 stayed from main:43.
#include <gtest/gtest.h>

#include "scene/city_layout.h"
#include "scene/city_state.h"
#include "scene/cohorts.h"
#include "scene/radial_scene.h"
#include "scene/scene_fixture.h"

namespace memcity::scene {
namespace {

using testing::Fixture;
using testing::fixtureOf;

const std::string kTestObject = "at.jku.data.TestObject";
const std::string kFill = "at.jku.BuggyMain.fill(BuggyMain.java:21)";
const std::vector<std::string> kRefill = {kTestObject, kFill, "at.jku.BuggyMain.main(BuggyMain.java:47)"};
const std::vector<std::string> kFirst = {kTestObject, kFill, "at.jku.BuggyMain.main(BuggyMain.java:43)"};

struct Laid {
    Fixture f;
    HeapDiff diff;
    SeriesDiff laid;
};

Laid buggyDiff(uint32_t from = 3, uint32_t to = 4) {
    Fixture f = fixtureOf(testing::scenarioTrace("buggy-stack"), "type,site(callers=1)");
    auto diff = HeapDiff::between(*f.history, from, to, *f.chain);
    EXPECT_TRUE(diff.ok()) << (diff.ok() ? "" : diff.error().message);
    SeriesDiff laid = SeriesDiff::lay(*diff, *f.series);
    return {std::move(f), std::move(*diff), std::move(laid)};
}

TEST(SeriesDiff, EachDiffGroupLandsOnTheSeriesNodeOfItsPath) {
    const Laid l = buggyDiff();
    const TreeSeries& s = *l.f.series;
    EXPECT_EQ(l.laid.baseGc(), 3u);
    EXPECT_EQ(l.laid.gc(), 4u);
    const uint32_t refill = s.find(kRefill), first = s.find(kFirst), type = s.find({kTestObject});
    ASSERT_NE(refill, kNoNode);
    ASSERT_NE(first, kNoNode);
    EXPECT_EQ(l.laid.at(type).born.objects, 1'000u);
    EXPECT_EQ(l.laid.at(type).died.objects, 1'000u);
    EXPECT_EQ(l.laid.at(type).permanent.objects, 9'000u);
    EXPECT_EQ(l.laid.at(refill).born.objects, 1'000u);
    EXPECT_EQ(l.laid.at(refill).died.objects + l.laid.at(refill).permanent.objects, 0u);
    EXPECT_EQ(l.laid.at(first).died.objects, 1'000u);
    EXPECT_EQ(l.laid.at(first).permanent.objects, 9'000u);
    const DiffNode& root = l.diff.node(HeapDiff::kRoot);
    const CohortCounts& all = l.laid.at(TreeSeries::kRoot);
    EXPECT_EQ(all.born, root.born);
    EXPECT_EQ(all.died, root.died);
    EXPECT_EQ(all.permanent, root.permanent);
    EXPECT_EQ(l.laid.unplaced(), CohortCounts{});
    // Other groups sum their nodes; unknown ids read zero.
    const uint32_t both[] = {refill, first};
    EXPECT_EQ(l.laid.sum(both).born.objects, 1'000u);
    EXPECT_EQ(l.laid.sum(both).permanent.objects, 9'000u);
    EXPECT_EQ(l.laid.at(999'999), CohortCounts{});
}

TEST(SeriesDiff, GroupsTheSeriesLacksAreCountedAsUnplaced) {
    // The life-cycle trace's one B (24 B, at GC 2) is dead at GC 3: a series of GC 3 alone has no
    // node for type B, so the diff from GC 2 cannot place it.
    SeriesOptions window;
    window.from = 3;
    window.to = 3;
    Fixture f = fixtureOf(testing::lifecycleTrace(), "type", window);
    ASSERT_EQ(f.series->find({"B"}), kNoNode);
    auto diff = HeapDiff::between(*f.history, 2, 3, *f.chain);
    ASSERT_TRUE(diff.ok());
    const uint32_t b = diff->find({"B"});
    ASSERT_NE(b, kNoNode);
    EXPECT_EQ(diff->node(b).died.objects, 1u);
    const SeriesDiff laid = SeriesDiff::lay(*diff, *f.series);
    EXPECT_EQ(laid.unplaced().died, (SeriesCounts{1, 24}));
    EXPECT_EQ(laid.unplaced().born, SeriesCounts{});
    EXPECT_EQ(laid.at(TreeSeries::kRoot).died.objects, diff->node(HeapDiff::kRoot).died.objects);
}

TEST(SeriesDiff, TheLargestCohortDominatesAndTiesGoToWhatIsNew) {
    CohortCounts c;
    EXPECT_EQ(dominantCohort(c, Metric::kBytes), std::nullopt);
    c.died = {3, 300};
    c.permanent = {5, 200};
    EXPECT_EQ(dominantCohort(c, Metric::kBytes), Cohort::kDied);
    EXPECT_EQ(dominantCohort(c, Metric::kObjects), Cohort::kPermanent);
    c.born = {5, 300};
    EXPECT_EQ(dominantCohort(c, Metric::kBytes), Cohort::kBorn);
    EXPECT_EQ(dominantCohort(c, Metric::kObjects), Cohort::kBorn);
    EXPECT_EQ(cohortName(Cohort::kPermanent), "permanent");
}

TEST(SeriesDiff, TheCityAndTheSunburstTakeTheDominantCohortsColour) {
    const Laid l = buggyDiff();
    const TreeSeries& s = *l.f.series;
    const uint32_t refill = s.find(kRefill), first = s.find(kFirst);
    CityLayoutOptions lo;
    lo.prune.enabled = false;
    auto layout = buildCityLayout(s, lo);
    ASSERT_TRUE(layout.ok());
    CityStateOptions so;
    so.diff = &l.laid;
    const double t = static_cast<double>(s.gcCount() - 1);  // GC 4, the diff's
    const CityState city = cityAt(*layout, s, t, so);
    const BuildingState& born = city.buildings[layout->findBuilding(refill)];
    const BuildingState& kept = city.buildings[layout->findBuilding(first)];
    EXPECT_EQ(born.color, cohortColor(Cohort::kBorn, 255));  // opaque: what a diff is read for
    EXPECT_EQ(kept.color, cohortColor(Cohort::kPermanent, so.unsuspicious_alpha));
    // Without a diff: the trend's colours.
    const CityState trend = cityAt(*layout, s, t, CityStateOptions{});
    EXPECT_EQ(trend.buildings[layout->findBuilding(first)].color,
              palette::trendColor(trend.buildings[layout->findBuilding(first)].trend,
                                  trend.buildings[layout->findBuilding(first)].alpha));

    RadialLayoutOptions ro;
    ro.view = RadialView::kGlobal;
    ro.prune.enabled = false;
    const RadialLayout radial = layoutRadial(s, t, ro);
    RadialSceneOptions rso;
    rso.diff = &l.laid;
    render::DrawList dl;
    const RadialScene scene = buildRadialScene(s, radial, {{0.0f, 0.0f}, {600.0f, 600.0f}}, rso, dl);
    bool saw_born = false, saw_kept = false;
    for (size_t i = 0; i < radial.items.size(); ++i) {
        if (radial.items[i].isOther() || scene.colors[i] == 0) continue;
        if (radial.items[i].node == refill) {
            EXPECT_EQ(scene.colors[i], cohortColor(Cohort::kBorn));
            saw_born = true;
        }
        if (radial.items[i].node == first) {
            EXPECT_EQ(scene.colors[i], cohortColor(Cohort::kPermanent));
            saw_kept = true;
        }
    }
    EXPECT_TRUE(saw_born);
    EXPECT_TRUE(saw_kept);
}

}  // namespace
}  // namespace memcity::scene
