// The panels' two tables agree: explore::panelTable() (names, settings keys, menu entries, flags)
// and app::panelDraws() (each panel's drawing and side), both made from MEMCITY_PANELS; and
// layoutFor gives a side its space from the sides the draw table names.
#include <gtest/gtest.h>
#include <imgui.h>

#include <set>
#include <string>
#include <string_view>

#include "app/ui.h"
#include "explore/settings.h"

namespace memcity::app {
namespace {

TEST(Panels, EveryPanelHasOneDrawInTheTablesOrder) {
    const auto panels = explore::panelTable();
    const auto draws = panelDraws();
    ASSERT_EQ(draws.size(), panels.size());
    std::set<std::string_view> names, keys, menus;
    for (size_t i = 0; i < panels.size(); ++i) {
        ASSERT_NE(draws[i], nullptr) << panels[i].name;
        EXPECT_NE(draws[i]->draw, nullptr) << panels[i].name;
        EXPECT_EQ(draws[i]->name, panels[i].name) << "entry " << i;
        EXPECT_TRUE(names.insert(panels[i].name).second) << "two panels are called " << panels[i].name;
        EXPECT_TRUE(keys.insert(panels[i].key).second) << "two panels have the key " << panels[i].key;
        EXPECT_TRUE(menus.insert(panels[i].menu).second) << "two panels have the entry " << panels[i].menu;
        EXPECT_EQ(explore::findPanel(panels[i].name), &panels[i]);
    }
}

TEST(Panels, TheTablesAreTheOnesTheWindowHadBefore) {
    // The View menu's order, the scripts' words and where each panel sits, as before the tables.
    const std::pair<std::string_view, PanelSide> expected[] = {
        {"chain", PanelSide::kLeft},      {"table", PanelSide::kLeft},      {"inspector", PanelSide::kRight},
        {"timeline", PanelSide::kBottom}, {"stats", PanelSide::kStatusBar},
    };
    const auto draws = panelDraws();
    ASSERT_EQ(draws.size(), std::size(expected));
    for (size_t i = 0; i < draws.size(); ++i) {
        EXPECT_EQ(draws[i]->name, expected[i].first);
        EXPECT_EQ(draws[i]->side, expected[i].second) << draws[i]->name;
    }
    const explore::PanelSettings defaults;
    EXPECT_TRUE(defaults.chain_editor && defaults.table && defaults.inspector && defaults.timeline);
    EXPECT_FALSE(defaults.stats);
}

class PanelLayout : public ::testing::Test {
protected:
    void SetUp() override { ImGui::CreateContext(); }
    void TearDown() override { ImGui::DestroyContext(); }

    Layout layout(const explore::PanelSettings& panels) {
        explore::Settings settings;
        settings.panels = panels;
        return layoutFor(glm::vec2(1600.0f, 900.0f), glm::vec2(1.0f), 1.0f, settings);
    }
};

TEST_F(PanelLayout, ASideHasItsSpaceWhileOneOfItsPanelsIsShown) {
    const Layout all = layout({});
    EXPECT_FLOAT_EQ(all.left.width(), 1600.0f * 0.24f);
    EXPECT_FLOAT_EQ(all.right.width(), 1600.0f * 0.25f);
    EXPECT_GT(all.bottom.height(), 0.0f);

    explore::PanelSettings p;
    p.chain_editor = false;  // the table keeps the left column
    EXPECT_FLOAT_EQ(layout(p).left.width(), all.left.width());
    p.table = false;
    EXPECT_TRUE(layout(p).left.empty());
    EXPECT_FLOAT_EQ(layout(p).center.min.x, 0.0f);

    p = {};
    p.inspector = false;
    EXPECT_TRUE(layout(p).right.empty());
    EXPECT_FLOAT_EQ(layout(p).center.max.x, 1600.0f);

    p = {};
    p.timeline = false;
    EXPECT_TRUE(layout(p).bottom.empty());
    EXPECT_FLOAT_EQ(layout(p).center.max.y, all.bottom.max.y);

    p = {};
    p.stats = true;  // in the status bar: it takes no space
    const Layout stats = layout(p);
    EXPECT_EQ(stats.left.min, all.left.min);
    EXPECT_EQ(stats.center.max, all.center.max);
    EXPECT_EQ(stats.bottom.min, all.bottom.min);
}

}  // namespace
}  // namespace memcity::app
