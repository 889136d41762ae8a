// GCspy's view of a heap (docs/heapmap.md): each of the collector's spaces as a row of tiles of
// `tile_bytes` in address order, with what the objects there hold, from the trace's GC_SPACES
// and the objects' addresses at a GC (trace/heap_layout.h).
#pragma once

#include <cstdint>
#include <span>
#include <string>
#include <vector>

#include "heap/heap_state.h"
#include "trace/heap_layout.h"

namespace memcity {

struct HeapTile {
    uint64_t objects = 0;  // objects that start in the tile
    uint64_t bytes = 0;    // bytes of objects in the tile (an object across tiles counts in each)
};

struct SpaceMap {
    SpaceState state;
    std::string name;
    uint64_t objects = 0, bytes = 0;  // the trace's live objects whose address is in [bottom, top)
    // Between the objects: [bottom, top) less the objects' bytes, where none overlap (dead
    // objects not yet collected, fillers, objects the trace does not have).
    uint64_t gap_bytes = 0;
    uint64_t overlaps = 0;        // objects that begin before the previous one ends (bad sizes or addresses)
    std::vector<HeapTile> tiles;  // [bottom, end) in tiles of HeapMap::tile_bytes
};

struct HeapMap {
    uint32_t gc = 0;
    uint64_t tile_bytes = 0;
    std::vector<SpaceMap> spaces;  // in address order
    // The trace's live objects without an address, and those whose address is in no space's
    // used part.
    uint64_t unplaced_objects = 0, unplaced_bytes = 0;
    uint64_t outside_objects = 0, outside_bytes = 0;
};

// The map of `heap` (a complete heap after GC `heap.gc()`): `addresses` by heap position
// (HeapHistory::addressesFor; 0 where unknown), `spaces` the GC's (nullptr: the objects' address
// range as one space named "heap").
HeapMap buildHeapMap(const HeapView& heap, std::span<const uint64_t> addresses, const GcSpacesEvent* spaces,
                     const SymbolTable& symbols, uint64_t tile_bytes);

}  // namespace memcity
