// GCspy's heap view (docs/heapmap.md): each of the collector's spaces as a band of tiles in
// address order, coloured by one stream (used bytes, objects, age, the selection's share, what
// dies at the next GC), with a line per space, and under them a history graph: one space's
// address range (rows) over the GCs (two columns each: before and after the GC).
#pragma once

#include <cstdint>
#include <optional>
#include <span>
#include <string>
#include <string_view>
#include <vector>

#include "classify/heap_map_at.h"
#include "heap/heap_map.h"
#include "heap/heap_state.h"
#include "render/draw_list.h"
#include "scene/screen.h"
#include "util/result.h"

namespace memcity::scene {

enum class HeapStream : uint8_t {
    kUsed,      // bytes of objects in the tile, of its size
    kObjects,   // objects that start in the tile (of the fullest tile)
    kAge,       // the mean age of its bytes, in GCs lived through (of the oldest tile)
    kSelected,  // the selected objects' share of its bytes
    kDying,     // the share of its bytes that dies at the next GC
};
inline constexpr int kHeapStreamCount = 5;
std::string_view heapStreamName(HeapStream stream);  // "used", "objects", "age", "selected", "dying"
Result<HeapStream> parseHeapStream(std::string_view name);

struct HeapMapInputs {
    std::string title;              // the trace's name
    std::span<const GcRecord> gcs;  // every GC of the trace
    std::string history_space;      // the space the history graph shows ("" : none)
    // Its state at each GC shown, in order, with its tiles where the GC has addresses
    // (spaceHistory; rows without tiles draw its extent).
    std::vector<SpaceHistoryRow> history;
    // A sampled recording (heap/sampling.h): no GC has its objects' addresses, so only the spaces'
    // tops are drawn, and the title says why.
    bool sampled = false;
};

struct HeapMapViewOptions {
    HeapStream stream = HeapStream::kUsed;
    float tile_px = 10.0f;  // a tile's side, the gap included
    bool title_bar = true;
    float top_px = 0;  // left free above the bands (the explorer's toolbar)
    MeasureText measure;
};

// A tile of the last composed frame (HeapMapScene::pick).
struct HeapTilePick {
    size_t space = 0;           // index in HeapMap::spaces
    size_t tile = 0;            // index in its tiles
    uint64_t from = 0, to = 0;  // its addresses (the last tile ends at the space's end)
    bool operator==(const HeapTilePick&) const = default;
};

class HeapMapScene {
public:
    HeapMapScene(HeapMapInputs inputs, HeapMapViewOptions options, glm::vec2 size);

    // Where the bands go (for fittingTileBytes): below the title, above the history graph.
    PixelRect bandsRect() const;
    // Draws `map` (GC g); with `next` (GC g + 1, the same tiles) and f in (0, 1), every tile's
    // value is tweened from map's towards next's.
    void compose(const HeapMap& map, const HeapMap* next, double f, render::DrawList& out);
    // The tile at `pixel` of the last composed frame, if one is drawn there.
    std::optional<HeapTilePick> pick(glm::vec2 pixel) const;
    // The tile drawn lighter (the pointer's), or none.
    void setHovered(std::optional<HeapTilePick> tile) { hovered_ = tile; }
    glm::vec2 size() const { return size_; }
    const HeapMapViewOptions& options() const { return options_; }
    // The history graph's rows replaced (its tiles computed since; the same space).
    void setHistory(std::vector<SpaceHistoryRow> rows) { inputs_.history = std::move(rows); }

private:
    void drawHistory(uint32_t gc, PixelRect rect, render::DrawList& out) const;

    // Where the last frame drew each space's tiles, for pick.
    struct Band {
        float top = 0;     // the first row's top
        size_t drawn = 0;  // tiles drawn (the band may be cut at the bottom)
        uint64_t bottom = 0, end = 0;
    };
    std::vector<Band> bands_;
    size_t per_row_ = 1;
    float tile_px_ = 0;
    uint64_t tile_bytes_ = 0;
    std::optional<HeapTilePick> hovered_;

    HeapMapInputs inputs_;
    HeapMapViewOptions options_;
    glm::vec2 size_;
};

// G1's region roles as the map draws them: a band along the top of each tile, joined across the
// tiles of one region and of one humongous object; the history graph's cells.
uint32_t roleColor(RegionRole role);

// A tile's value in [0, 1] for a stream; `scale` is the frame's largest objects count or age.
double tileValue(const HeapTile& tile, HeapStream stream, uint64_t tile_bytes, double scale);
// The colour ramp of the tiles: dark blue (0) through teal and yellow to red (1).
uint32_t heatColor(double value);

}  // namespace memcity::scene
