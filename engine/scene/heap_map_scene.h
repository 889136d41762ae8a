// GCspy's heap view (docs/heapmap.md): each of the collector's spaces as a band of tiles in
// address order, coloured by one stream (used bytes, objects, age, the selection's share, what
// dies at the next GC), with a line per space, and under them a history graph: one space's
// address range (rows) over the GCs (two columns each: before and after the GC).
#pragma once

#include <cstdint>
#include <span>
#include <string>
#include <string_view>
#include <vector>

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

// One space at one GC, for the history graph.
struct SpaceHistoryEntry {
    uint32_t gc = 0;
    SpaceState state;
};

struct HeapMapInputs {
    std::string title;                       // the trace's name
    std::span<const GcRecord> gcs;           // every GC of the trace
    std::string history_space;               // the space the history graph shows ("" : none)
    std::vector<SpaceHistoryEntry> history;  // its state at each GC shown, in order
};

struct HeapMapViewOptions {
    HeapStream stream = HeapStream::kUsed;
    float tile_px = 10.0f;  // a tile's side, the gap included
    bool title_bar = true;
    MeasureText measure;
};

class HeapMapScene {
public:
    HeapMapScene(HeapMapInputs inputs, HeapMapViewOptions options, glm::vec2 size);

    // Where the bands go (for fittingTileBytes): below the title, above the history graph.
    PixelRect bandsRect() const;
    // Draws `map` (GC g); with `next` (GC g + 1, the same tiles) and f in (0, 1), every tile's
    // value is tweened from map's towards next's.
    void compose(const HeapMap& map, const HeapMap* next, double f, render::DrawList& out);

private:
    void drawHistory(uint32_t gc, PixelRect rect, render::DrawList& out) const;

    HeapMapInputs inputs_;
    HeapMapViewOptions options_;
    glm::vec2 size_;
};

// A tile's value in [0, 1] for a stream; `scale` is the frame's largest objects count or age.
double tileValue(const HeapTile& tile, HeapStream stream, uint64_t tile_bytes, double scale);
// The colour ramp of the tiles: dark blue (0) through teal and yellow to red (1).
uint32_t heatColor(double value);

}  // namespace memcity::scene
