// The heap map of one GC as the views draw it (heap/heap_map.h): its spaces, its objects placed
// by their addresses, the selected groups' bytes and the bytes that die at the next GC per tile.
#pragma once

#include <cstdint>
#include <functional>
#include <memory>
#include <optional>
#include <span>
#include <string>
#include <vector>

#include "classify/classifier.h"
#include "heap/heap_history.h"
#include "heap/heap_map.h"
#include "util/progress.h"
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

// G1's region table at GC `gc`'s end (`after`) or start, where the trace has it.
std::optional<GcRegionsEvent> regionTableAt(const HeapHistory& history, uint32_t gc, bool after = true);

// Why a trace has no heap map where it has neither spaces nor addresses, by the collector it
// recorded (its META "collector"): ZGC's pages and Shenandoah's regions are not laid out (what
// their JVMs export, docs/heapmap.md), or the recorder was older.
std::string noLayoutReason(const HeapHistory& history);

// Errors: a GC out of range, a GC with neither spaces nor addresses, a replay or snapshot
// failure. A GC without addresses gives the spaces' tops only (HeapMap::addresses false); under
// G1, each region's used bytes.
Result<HeapMap> heapMapAt(const HeapHistory& history, const HeapMapRequest& request);

// A GC's heap with its objects' addresses, as the explorer keeps it while its map is shown: the
// map can be built again (another tile size, selection or stream) without a replay, and a
// stretch of addresses can be asked what it holds.
struct PlacedHeap {
    HeapState heap;
    std::vector<uint64_t> addresses;          // by heap position (0: not listed)
    std::vector<AddressedObject> by_address;  // those with an address, in address order
};
// Errors: a GC out of range or without addresses, a replay failure, a corrupt ADDRS chunk.
// Sorted on up to `threads` threads.
Result<std::shared_ptr<const PlacedHeap>> placedHeapAt(const HeapHistory& history, uint32_t gc,
                                                       unsigned threads = 1);
// heapMapAt's map from a placed heap of request.gc (request.gc is the placed heap's GC).
Result<HeapMap> heapMapOf(const HeapHistory& history, const PlacedHeap& placed,
                          const HeapMapRequest& request);

// What lies in the addresses [from, to): the objects that start there, the bytes of every object
// within it (an object across `from` counts its part), and those by type, most bytes first.
struct RangeType {
    uint32_t type = 0;  // a symbol id (SymbolTable::type)
    uint64_t objects = 0, bytes = 0;
};
struct RangeContents {
    uint64_t objects = 0, bytes = 0;
    std::vector<RangeType> types;
};
RangeContents rangeContents(const PlacedHeap& placed, uint64_t from, uint64_t to);
// The leaves of `chain`'s tree at the placed heap's GC that hold the objects starting in
// [from, to), as label paths below the root, most bytes first (their bytes in the range).
struct RangeGroup {
    std::vector<std::string> labels;
    uint64_t objects = 0, bytes = 0;
};
Result<std::vector<RangeGroup>> groupsInRange(const HeapHistory& history, const PlacedHeap& placed,
                                              const ClassifierChain& chain, uint64_t from, uint64_t to,
                                              unsigned threads = 1);

// One space's history as GCspy's history graphs draw it (§6.2): a row per GC of the request
// that has the space, with its tiles where the GC has addresses, else only its extent.
struct SpaceHistoryRow {
    uint32_t gc = 0;
    SpaceState state;
    bool addresses = false;       // tiles from the objects' addresses (else none)
    uint64_t tile_bytes = 0;      // as asked, or larger where the map bounded its tiles
    std::vector<HeapTile> tiles;  // of tile_bytes from state.bottom to state.end
    // G1's grid ("G1 heap"): each region's role at the GC's start and at its end (else empty).
    std::vector<RegionRole> roles_before, roles_after;
    uint64_t region_bytes = 0;
};
struct SpaceHistoryRequest {
    std::string space;
    uint32_t from = 0, to = 0;  // GCs, both included
    uint64_t tile_bytes = 64 << 10;
    // The tiles' selected_bytes (the groups at label paths `selected` of `chain`'s tree at each
    // GC) and dying_bytes (what dies at the GC after), as HeapMapRequest's; without: zero.
    const ClassifierChain* chain = nullptr;
    std::vector<std::vector<std::string>> selected;
    bool dying = false;
    unsigned threads = 1;
};
// One forward replay over the GCs (one GC further for `dying`), and a tree of the chain at each
// GC with addresses for `selected` (where the chain reads references, at those with a snapshot:
// the others have no selection). Error: a GC out of range, a replay failure, a corrupt ADDRS
// chunk or snapshot; `progress` cancelled stops it (an empty result; it is asked at each GC).
Result<std::vector<SpaceHistoryRow>> spaceHistory(const HeapHistory& history,
                                                  const SpaceHistoryRequest& request,
                                                  const Progress& progress = {});

// What the heap map's pictures choose from the spaces: the largest space at a GC ("" where it
// has none); the GC of `gcs` whose spaces have the most capacity (null where none has spaces);
// one space's extent at each of `gcs` that has it (history rows without tiles).
std::string largestSpaceAt(const HeapHistory& history, uint32_t gc);
const GcSpacesEvent* widestSpaces(const HeapHistory& history, std::span<const uint32_t> gcs);
std::vector<SpaceHistoryRow> spaceExtents(const HeapHistory& history, const std::string& space,
                                          std::span<const uint32_t> gcs);

// A tile size for drawing `spaces` as tiles of about `tile_px` pixels into `area` pixels (less
// a header line of `header_px` per space): the smallest power of two from 512 B that fits.
uint64_t fittingTileBytes(const GcSpacesEvent& spaces, double area_w, double area_h, double tile_px,
                          double header_px);

}  // namespace memcity
