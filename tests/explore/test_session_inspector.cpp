// Session, the inspector and the table's sizes on scenarios with known answers.
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

// ManLang18 §5.1 through the explorer's inspector: the id cache's map alone retains 1,251,136
// bytes at the last GC of multi-cache (scale 1), held by the static field IdCache.idCache.
TEST(Session, InspectorShowsRootsAndRetainedSizesOfTheSelection) {
    auto s = opened(scenario("multi-cache"), "type,site");
    ASSERT_TRUE(
        s->selectPath("java.util.HashMap / jku.anttracks.example.data.IdCache.<clinit>(IdCache.java:9)")
            .ok());
    s->waitSettled();
    ASSERT_TRUE(s->inspectionCurrent()) << s->inspectionError();
    const Inspection& in = *s->inspection();
    EXPECT_EQ(in.gc, s->history()->gcCount() - 1);
    ASSERT_TRUE(in.closure.has_value());
    EXPECT_EQ(in.closure->retained.bytes, 1251136u);
    EXPECT_EQ(in.closure->retained.objects, 40002u);
    ASSERT_FALSE(in.direct_roots.empty());
    EXPECT_EQ(in.direct_roots.front().name, "static field jku.anttracks.example.data.IdCache.idCache");
    ASSERT_FALSE(in.paths.empty());
    EXPECT_EQ(in.paths.front().text.rfind("static field jku.anttracks.example.data.IdCache.idCache", 0), 0u);
    const std::string text = formatInspection(in);
    EXPECT_NE(text.find("retained: 40002 objects, 1251136 B"), std::string::npos) << text;

    // Both maps: together they retain far more than each alone (shared ownership).
    ASSERT_TRUE(
        s->selectPath("java.util.HashMap / jku.anttracks.example.data.NameCache.<clinit>(NameCache.java:9)",
                      true)
            .ok());
    s->waitSettled();
    ASSERT_TRUE(s->inspectionCurrent());
    EXPECT_EQ(s->inspection()->closure->retained.bytes, 5222272u);
    EXPECT_EQ(s->inspection()->names.size(), 2u);

    // The inspector follows the cursor; born / died / permanent since the range's start.
    s->setRange(GcRange{2, 5});
    ASSERT_TRUE(s->goToGc(5).ok());
    s->waitSettled();
    ASSERT_TRUE(s->inspectionCurrent());
    EXPECT_EQ(s->inspection()->gc, 5u);
    ASSERT_TRUE(s->inspection()->base_gc.has_value());
    EXPECT_EQ(*s->inspection()->base_gc, 2u);
    EXPECT_EQ(s->baseGc(), 2u);
    // The curve: one value per GC of the series.
    EXPECT_EQ(s->selectionCurve(Metric::kBytes).size(), s->series()->gcCount());
}

TEST(Session, TableSizesArriveForTheNodesAsked) {
    auto s = opened(scenario("multi-cache"), "type,site");
    const uint32_t map = s->series()->find({"java.util.HashMap"});
    ASSERT_NE(map, kNoNode);
    EXPECT_FALSE(s->sizesOf(map).has_value());
    s->requestSizes({map, TreeSeries::kRoot});
    s->waitSettled();
    const auto sizes = s->sizesOf(map);
    ASSERT_TRUE(sizes.has_value());
    EXPECT_GE(sizes->retained.bytes, 5222272u);  // every HashMap of the heap, the two caches included
    EXPECT_GE(sizes->deep.bytes, sizes->retained.bytes);
    ASSERT_TRUE(s->sizesOf(TreeSeries::kRoot).has_value());
}

}  // namespace
}  // namespace memcity::explore
