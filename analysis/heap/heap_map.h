// GCspy's view of a heap (docs/heapmap.md): each of the collector's spaces as a row of tiles of
// `tile_bytes` in address order, with what the objects there hold, from the trace's GC_SPACES
// and the objects' addresses at a GC (trace/heap_layout.h).
#pragma once

#include <algorithm>
#include <cstdint>
#include <span>
#include <string>
#include <vector>

#include "heap/heap_state.h"
#include "trace/g1_regions.h"
#include "trace/heap_layout.h"
#include "util/bitset.h"

namespace memcity {

// What a tile holds; an object across tiles counts its bytes in each, the object where it starts.
struct HeapTile {
    uint64_t objects = 0;
    uint64_t bytes = 0;
    uint64_t age_bytes = 0;       // sum over its bytes of the GCs each has lived through (age)
    uint64_t selected_bytes = 0;  // of the selected objects (HeapMapOptions::selected)
    uint64_t dying_bytes = 0;     // of the objects that die at the next GC (HeapMapOptions::dying)
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
    // The tile size asked for, or larger (doubled) where the spaces would take more than 4 M
    // tiles (address ranges of a corrupt trace).
    bool addresses = false;  // built from the objects' addresses (else the spaces' tops only)
    uint64_t tile_bytes = 0;
    std::vector<SpaceMap> spaces;  // in address order
    // The trace's live objects without an address, and those whose address is in no space's
    // used part.
    uint64_t unplaced_objects = 0, unplaced_bytes = 0;
    uint64_t outside_objects = 0, outside_bytes = 0;
    // Under G1: each region's role in address order, and their size (0: not G1). The one space
    // is the grid; tile t lies in region t * tile_bytes / region_bytes.
    std::vector<RegionRole> region_roles;
    uint64_t region_bytes = 0;
    RegionRole roleOfTile(size_t tile) const {
        if (!region_bytes) return RegionRole::kUnknown;
        const uint64_t r = tile * tile_bytes / region_bytes;
        return r < region_roles.size() ? region_roles[r] : RegionRole::kUnknown;
    }
};

// G1's heap as the map's one space (GcSpacesEvent's space id kG1HeapSpace, named "G1 heap"): the
// region grid from its first region's bottom to the last one's end, "used" the regions' used
// bytes after the GC (top - bottom) and before it (top_before - bottom); the history's reader
// makes one for every GC with a region table and no GC_SPACES.
inline constexpr uint32_t kG1HeapSpace = UINT32_MAX;
GcSpacesEvent spacesOfRegions(const GcRegionsEvent& after, uint64_t used_before);
// A space's name: the trace's SPACE symbol, or "G1 heap".
std::string spaceName(const SymbolTable& symbols, uint32_t space);

// An object with an address, in the order the map walks them (objectsByAddress).
struct AddressedObject {
    static constexpr uint32_t kLarge = UINT32_MAX;  // `size` of an object of 4 GiB or more
    uint64_t address = 0;
    uint32_t pos = 0;   // its heap position (a heap holds under 2^32 objects, as HeapGraph's)
    uint32_t size = 0;  // its bytes, or kLarge: then heap.size(pos)
    uint64_t bytes(const HeapView& heap) const { return size == kLarge ? heap.size(pos) : size; }
    // Where it ends (saturated: a corrupt trace's address and size may wrap).
    uint64_t end(const HeapView& heap) const {
        const uint64_t b = bytes(heap);
        return b > UINT64_MAX - address ? UINT64_MAX : address + b;
    }
};
// The live objects of `heap` with an address (`addresses` by position, 0: none), in address
// order: a radix sort, stable, so objects at one address (a corrupt trace's) keep id order; on
// up to `threads` threads (the order does not depend on them).
std::vector<AddressedObject> objectsByAddress(const HeapView& heap, std::span<const uint64_t> addresses,
                                              unsigned threads = 1);

struct HeapMapOptions {
    uint64_t tile_bytes = 64 << 10;
    // The objects in address order where the caller has them (objectsByAddress of the same
    // heap and addresses); empty: sorted here.
    std::span<const AddressedObject> by_address;
    unsigned threads = 1;  // for that sort, and for adding up the tiles
    // G1's region table at the GC (its end): the map's one space is its grid (spacesOfRegions),
    // HeapMap::region_roles its roles; a map without addresses fills each region's used bytes.
    const GcRegionsEvent* regions = nullptr;
    const Bitset* selected = nullptr;  // by heap position: the selected objects
    const Bitset* dying = nullptr;     // by heap position: those that die at the next GC
};

// The map of `heap` (a complete heap after GC `heap.gc()`): `addresses` by heap position
// (HeapHistory::addressesFor; 0 where unknown), `spaces` the GC's (nullptr: the objects' address
// range as one space named "heap").
HeapMap buildHeapMap(const HeapView& heap, std::span<const uint64_t> addresses, const GcSpacesEvent* spaces,
                     const SymbolTable& symbols, const HeapMapOptions& options);
inline HeapMap buildHeapMap(const HeapView& heap, std::span<const uint64_t> addresses,
                            const GcSpacesEvent* spaces, const SymbolTable& symbols, uint64_t tile_bytes) {
    HeapMapOptions options;
    options.tile_bytes = tile_bytes;
    return buildHeapMap(heap, addresses, spaces, symbols, options);
}
// Calls fn(tile, part) for each tile of space `s` (tiles of `tile_bytes` from its bottom) that
// the object at [address, address + size) covers, with the bytes it covers there; none past the
// space's end.
template <typename Fn>
void forEachTilePart(const SpaceState& s, uint64_t tile_bytes, uint64_t address, uint64_t size, Fn&& fn) {
    const uint64_t end = std::min(address + size, s.end);
    for (uint64_t at = address; at < end;) {
        const uint64_t tile = (at - s.bottom) / tile_bytes;
        const uint64_t start = tile * tile_bytes;  // from the bottom, at most at's
        const uint64_t tile_end = s.bottom + start + std::min(tile_bytes, s.capacity() - start);
        const uint64_t part = std::min(end, tile_end) - at;
        fn(static_cast<size_t>(tile), part);
        at += part;
    }
}

// The map of the spaces alone, where a GC has no addresses: every tile below a space's top
// full, the one it ends in as far as it reaches; under G1 (`regions`), each region's used bytes
// from its bottom.
HeapMap spacesOnlyMap(uint32_t gc, const GcSpacesEvent& spaces, const SymbolTable& symbols,
                      uint64_t tile_bytes, const GcRegionsEvent* regions = nullptr);

}  // namespace memcity
