// The heap map of one GC as the views draw it (heap/heap_map.h): its spaces, its objects placed
// by their addresses, the selected groups' bytes and the bytes that die at the next GC per tile.
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include "classify/classifier.h"
#include "heap/heap_history.h"
#include "heap/heap_map.h"
#include "util/result.h"

namespace memcity {

struct HeapMapRequest {
    uint32_t gc = 0;
    uint64_t tile_bytes = 64 << 10;
    // Groups of the chain's tree at the GC (label paths below the root) whose objects are the
    // selection; none: no selection.
    const ClassifierChain* chain = nullptr;
    std::vector<std::vector<std::string>> selected;
    bool dying = true;  // find what dies at the next GC (one more replay step)
    unsigned threads = 1;
};

// Errors: a GC out of range, a GC with neither spaces nor addresses, a replay or snapshot
// failure. A GC without addresses gives the spaces' tops only (HeapMap::addresses false).
Result<HeapMap> heapMapAt(const HeapHistory& history, const HeapMapRequest& request);

// A tile size for drawing `spaces` as tiles of about `tile_px` pixels into `area` pixels (less
// a header line of `header_px` per space): the smallest power of two from 512 B that fits.
uint64_t fittingTileBytes(const GcSpacesEvent& spaces, double area_w, double area_h, double tile_px,
                          double header_px);

}  // namespace memcity
