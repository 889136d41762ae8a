// The table of views (scene/views.h): every ViewKind has one row, names parse back to their
// kind, and the lists the CLI and scripts print are built from it.
#include <gtest/gtest.h>

#include <set>

#include "scene/views.h"

namespace memcity::scene {
namespace {

TEST(ViewTable, EveryKindHasOneRowAndItsNameParsesBack) {
    std::set<ViewKind> kinds;
    std::set<std::string_view> names;
    for (const ViewInfo& v : viewTable()) {
        EXPECT_TRUE(kinds.insert(v.kind).second) << v.name;
        EXPECT_TRUE(names.insert(v.name).second) << v.name;
        EXPECT_EQ(&viewInfo(v.kind), &v) << v.name;
        EXPECT_EQ(viewKindName(v.kind), v.name);
        auto parsed = parseViewKind(v.name);
        ASSERT_TRUE(parsed) << v.name;
        EXPECT_EQ(*parsed, v.kind);
        EXPECT_FALSE(v.label.empty()) << v.name;
    }
    for (ViewKind k : {ViewKind::kCity, ViewKind::kSunburst, ViewKind::kIcicle, ViewKind::kTimeline,
                       ViewKind::kTimelineTrees, ViewKind::kHeapMap})
        EXPECT_TRUE(kinds.count(k)) << static_cast<int>(k);
    EXPECT_EQ(kinds.size(), 6u);
}

TEST(ViewTable, WhatEachViewIs) {
    EXPECT_FALSE(isWindowView(ViewKind::kTimeline));
    EXPECT_TRUE(isWindowView(ViewKind::kHeapMap));
    EXPECT_FALSE(viewInfo(ViewKind::kHeapMap).composed);
    EXPECT_TRUE(viewInfo(ViewKind::kTimelineTrees).composed);
    EXPECT_EQ(viewInfo(ViewKind::kTimelineTrees).label, "trees");
    EXPECT_EQ(viewInfo(ViewKind::kHeapMap).label, "heap map");
    for (ViewKind k : {ViewKind::kCity, ViewKind::kSunburst, ViewKind::kIcicle})
        EXPECT_TRUE(viewInfo(k).diff) << viewKindName(k);
    for (ViewKind k : {ViewKind::kTimeline, ViewKind::kTimelineTrees, ViewKind::kHeapMap})
        EXPECT_FALSE(viewInfo(k).diff) << viewKindName(k);
}

TEST(ViewTable, ListsAndErrorsAreBuiltFromTheTable) {
    EXPECT_EQ(viewNames(false, ", ", " or "), "city, sunburst, icicle, timeline, timeline-trees or heapmap");
    EXPECT_EQ(viewNames(true, ", ", " or "), "city, sunburst, icicle, timeline-trees or heapmap");
    EXPECT_EQ(viewNames(true, "|", "|"), "city|sunburst|icicle|timeline-trees|heapmap");
    auto bad = parseViewKind("tower");
    ASSERT_FALSE(bad);
    EXPECT_EQ(bad.error().message,
              "unknown view 'tower' (expected city, sunburst, icicle, timeline, timeline-trees or heapmap)");
}

}  // namespace
}  // namespace memcity::scene
