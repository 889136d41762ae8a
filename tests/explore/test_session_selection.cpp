// Session, its selection and drill-down: one selection shared by the views, picking in the
// composed city, drill-down kept across time.
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

// A click in the composed city selects the building under the pointer; the selection is drawn
// selected in the next frame, and the inspector follows it.
TEST(Session, ClickingABuildingSelectsItInEveryView) {
    auto s = opened(scenario("growing-map"), "package,type");
    ASSERT_TRUE(s->selectPath(
                     "com / com.dynatrace / com.dynatrace.easytravel / com.dynatrace.easytravel.jpa / "
                     "com.dynatrace.easytravel.jpa.business / com.dynatrace.easytravel.jpa.business.Location")
                    .ok());
    ASSERT_EQ(s->selection().size(), 1u);
    const uint32_t location = s->selection().front();
    s->clearSelection();
    EXPECT_TRUE(s->selection().empty());

    const glm::vec2 pixel = pixelOfBuilding(*s, location);
    const auto pick = s->pick(pixel);
    ASSERT_TRUE(pick.has_value());
    EXPECT_EQ(pick->id, location);
    EXPECT_FALSE(pick->district);
    s->select(pick->id);
    render::DrawList list;
    s->compose(kRect, kFramebuffer, list);
    size_t selected = 0;
    for (const render::BoxInstance& box : list.boxes)
        if (box.flags & render::kFlagSelected) {
            ++selected;
            EXPECT_EQ(box.id, location);
        }
    EXPECT_EQ(selected, 1u);
    // The same selection in the sunburst: the node's sector is drawn selected.
    s->setView(scene::ViewKind::kSunburst);
    s->drill(s->series()->node(location).parent);
    s->compose(kRect, kFramebuffer, list);
    bool arc_selected = false;
    for (const render::Arc& a : list.arcs)
        arc_selected = arc_selected || (a.id == location && (a.flags & render::kFlagSelected));
    EXPECT_TRUE(arc_selected);
    // Outside the view nothing is picked; shift-click toggles.
    EXPECT_FALSE(s->pick({10.0f, 10.0f}).has_value());
    s->select(location, true);
    EXPECT_TRUE(s->selection().empty());
    s->select(location, true);
    EXPECT_EQ(s->selection(), std::vector<uint32_t>{location});
}

TEST(Session, DrillDownIsKeptAcrossTimeAndTheCentreGoesBackUp) {
    auto s = opened(scenario("growing-map"), "package,type,site");
    s->setView(scene::ViewKind::kSunburst);
    ASSERT_TRUE(s->drillPath("java / java.util").ok());
    const uint32_t drilled = s->drillRoot();
    EXPECT_EQ(s->nameOf(drilled), "java / java.util");
    std::vector<uint32_t> trail = s->drillTrail();
    ASSERT_EQ(trail.size(), 3u);
    EXPECT_EQ(trail.front(), TreeSeries::kRoot);
    render::DrawList list;
    for (uint64_t gc : {0ull, 5ull, 12ull, 20ull}) {
        ASSERT_TRUE(s->goToGc(gc).ok());
        s->compose(kRect, kFramebuffer, list);
        EXPECT_EQ(s->drillRoot(), drilled) << "at GC " << gc;
    }
    s->cursor().seek(7.5);
    s->compose(kRect, kFramebuffer, list);
    EXPECT_EQ(s->drillRoot(), drilled);
    // The local view's centre is the drill root: a click there goes back up.
    const float split = kRect.min.x + kRect.width() * 0.58f;
    const glm::vec2 centre((kRect.min.x + split) * 0.5f, (kRect.min.y + 22.0f + kRect.max.y) * 0.5f);
    const auto pick = s->pick(centre);
    ASSERT_TRUE(pick.has_value());
    EXPECT_TRUE(pick->drill_root);
    EXPECT_EQ(pick->id, drilled);
    s->drillUp();
    EXPECT_EQ(s->nameOf(s->drillRoot()), "java");
    s->drillUp();
    EXPECT_EQ(s->drillRoot(), TreeSeries::kRoot);
    s->drillUp();
    EXPECT_EQ(s->drillRoot(), TreeSeries::kRoot);
    // A leaf drills to its parent (the sunburst needs children to show).
    ASSERT_TRUE(s->selectPath("java / java.util / java.util.HashMap").ok());
    const uint32_t map = s->selection().front();
    const uint32_t leaf = s->series()->node(map).children.front();
    s->drill(leaf);
    EXPECT_EQ(s->drillRoot(), map);
}

}  // namespace
}  // namespace memcity::explore
