// Session, the heap map in the explorer.
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

// Composes the view until a frame asks the background for nothing more (the heap map asks for
// its maps, then its history graph's tiles, as frames show what has come).
void composeSettled(Session& s, render::DrawList& list) {
    for (int frame = 0; frame < 8; ++frame) {
        s.compose(kRect, kFramebuffer, list);
        if (s.settled()) return;
        s.waitSettled();
    }
    ADD_FAILURE() << "the view still asks for work after 8 frames";
}

// The heap map in the explorer (docs/heapmap.md) on synth's simulated Serial layout: the map of
// the cursor's GC built in the background, a tile picked in the frame holding what the map says,
// a click selecting its groups, and the selection outlined where it lies.
TEST(Session, TheHeapMapShowsTheCursorsGcAndATileSelectsWhatItHolds) {
    const std::string path = scenario("growing-map");
    auto s = opened(path, "type");
    const HeapHistory& h = *s->history();
    uint32_t gc = 0;
    for (uint32_t g = 0; g < h.gcCount(); ++g)
        if (h.gcs()[g].has_addresses) gc = g;
    ASSERT_GT(gc, 0u);
    s->setView(scene::ViewKind::kHeapMap);
    ASSERT_TRUE(s->goToGc(gc));
    render::DrawList list;
    auto settle = [&] { composeSettled(*s, list); };
    settle();
    const HeapMap* map = s->heapMap().shown();
    ASSERT_NE(map, nullptr) << s->heapMap().error();
    EXPECT_EQ(map->gc, gc);
    EXPECT_TRUE(map->addresses);
    EXPECT_FALSE(list.rects.empty());
    // Every live object is in a space, outside, or without an address.
    auto heap = h.heapAt(gc);
    ASSERT_TRUE(heap);
    uint64_t bytes = map->outside_bytes + map->unplaced_bytes;
    for (const SpaceMap& space : map->spaces)
        bytes += space.bytes;
    EXPECT_EQ(bytes, heap->liveBytes());

    // A tile with objects, found by pointing at the frame: the types in it add up to the map's.
    std::optional<scene::HeapTilePick> tile;
    for (float y = kRect.min.y; y < kRect.max.y && !tile; y += 3.0f)
        for (float x = kRect.min.x; x < kRect.max.x && !tile; x += 3.0f)
            if (auto p = s->heapTileAt({x, y}); p && map->spaces[p->space].tiles[p->tile].objects > 3)
                tile = p;
    ASSERT_TRUE(tile.has_value());
    EXPECT_FALSE(s->heapTileAt(kRect.min - 1.0f).has_value());
    const auto info = s->heapMap().describe(*tile, h.trace().symbols());
    ASSERT_TRUE(info.has_value());
    EXPECT_EQ(info->to - info->from, map->tile_bytes);
    EXPECT_EQ(info->contents.objects, info->tile.objects);
    EXPECT_EQ(info->contents.bytes, info->tile.bytes);
    ASSERT_FALSE(info->type_names.empty());

    // A click selects the tile's groups: by type, the types in it that start there.
    s->selectTile(*tile);
    s->waitSettled();
    EXPECT_NE(s->takeNotice().find("selected the tile's"), std::string::npos);
    ASSERT_FALSE(s->selection().empty());
    for (uint32_t id : s->selection()) {
        const std::string name = s->nameOf(id);
        EXPECT_NE(std::find(info->type_names.begin(), info->type_names.end(), name), info->type_names.end())
            << name;
    }
    // The selection is outlined: its bytes in the map are those of its types at the GC.
    settle();
    map = s->heapMap().shown();
    ASSERT_NE(map, nullptr);
    uint64_t selected = 0, want = 0;
    for (const SpaceMap& space : map->spaces)
        for (const HeapTile& t : space.tiles)
            selected += t.selected_bytes;
    for (uint32_t id : s->selection())
        want += s->series()->counts(id, gc).bytes;
    EXPECT_EQ(selected, want);
    EXPECT_TRUE(std::any_of(list.rects.begin(), list.rects.end(),
                            [](const render::Rect& r) { return (r.flags & render::kFlagSelected) != 0; }));

    // Between two GCs the map of each is asked for, and the frame tweens them.
    s->cursor().seek(s->cursor().indexTimeOf(gc - 1) + 0.5);
    settle();
    ASSERT_NE(s->heapMap().shown(), nullptr);
    EXPECT_EQ(s->heapMap().shown()->gc, gc - 1);
    // Another view: no tiles.
    s->setView(scene::ViewKind::kCity);
    s->compose(kRect, kFramebuffer, list);
    EXPECT_FALSE(s->heapTileAt(kRect.center()).has_value());
}

// A trace without the collector's spaces (a heap dump's, G1's): the map fits the objects' range
// itself, a zoom halves its tiles; a GC with neither spaces nor addresses shows its own error,
// not the map of the GC before.
TEST(Session, TheHeapMapOfATraceWithoutSpacesFitsItselfAndSaysWhatAGcLacks) {
    testing::TraceBuilder b("no-spaces");
    for (uint64_t id = 1; id <= 64; ++id)
        b.alloc(id, id % 2 ? 1 : 2);  // A (16 B), B (24 B)
    b.gc(0, 65);
    std::vector<ObjectAddress> placed;
    for (uint64_t id = 1; id <= 64; ++id)
        placed.push_back({id, 0x10000 + (id - 1) * 32});
    b.writer().addresses(0, placed);
    b.alloc(65, 1);
    b.gc(1, 66);
    auto s = opened(b.finish(), "type");
    s->setView(scene::ViewKind::kHeapMap);
    ASSERT_TRUE(s->goToGc(0));
    render::DrawList list;
    auto settle = [&] { composeSettled(*s, list); };
    // Magnified before the first map came: the tiles are half the fitted size.
    s->heapMap().setZoom(1);
    settle();
    const HeapMap* map = s->heapMap().shown();
    ASSERT_NE(map, nullptr) << s->heapMap().error();
    ASSERT_EQ(map->spaces.size(), 1u);
    EXPECT_EQ(map->spaces[0].name, "heap");
    EXPECT_EQ(map->spaces[0].objects, 64u);
    const uint64_t magnified = map->tile_bytes;
    EXPECT_EQ(s->heapMap().tileBytes(), magnified);
    s->heapMap().setZoom(0);
    settle();
    ASSERT_NE(s->heapMap().shown(), nullptr);
    EXPECT_EQ(s->heapMap().shown()->tile_bytes, 2 * magnified);

    ASSERT_TRUE(s->goToGc(1));
    settle();
    EXPECT_NE(s->heapMap().error().find("GC 1 has neither"), std::string::npos) << s->heapMap().error();
    EXPECT_TRUE(list.rects.empty()) << "GC 0's tiles drawn for GC 1";
    ASSERT_FALSE(list.labels.empty());
    EXPECT_NE(list.labels.front().text.find("GC 1"), std::string::npos) << list.labels.front().text;
}

}  // namespace
}  // namespace memcity::explore
