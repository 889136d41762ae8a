// Loading a reference snapshot (REFS + ROOTS chunks of one GC) against the positions of a heap,
// and the reachability walk over it.
#pragma once

#include <cstdint>
#include <vector>

#include "heap/diagnostics.h"
#include "heap/heap_state.h"
#include "heap/object_store.h"
#include "heap/ref_graph.h"
#include "heap/replayer.h"
#include "trace/events.h"
#include "trace/trace_reader.h"
#include "util/result.h"

namespace memcity {

struct RootRef {
    uint32_t kind = 0;      // root kind id
    uint32_t position = 0;  // of the rooted object in the heap the snapshot was loaded for
    uint32_t detail_count = 0;
    uint64_t details[format::kMaxRootDetails] = {};
};

struct HeapSnapshot {
    uint32_t gc = 0;  // the GC the references were recorded at
    RefGraph graph;   // strong references between heap positions
    std::vector<RootRef> roots;
    uint64_t weak_edges = 0;     // weak, soft and phantom references (not in the graph)
    uint64_t dropped_edges = 0;  // references whose source or target is not in the heap
    uint64_t dropped_roots = 0;  // roots whose object is not in the heap
    size_t memoryBytes() const { return graph.memoryBytes() + roots.capacity() * sizeof(RootRef); }
};

struct SnapshotLoadOptions {
    uint64_t watermark = 0;              // ids at or above it are newer than the snapshot's GC
    Diagnostics* diagnostics = nullptr;  // where to count anomalies (null: not counted)
    // The producer lists only objects reached from the roots (format::kSnapshotsFromRoots):
    // snapshotReachability can then skip the walk where no weak reference could hide one.
    bool from_roots = false;
    unsigned threads = 1;  // 2: snapshotReachability decodes a from-roots listing on two threads
};

// Loads `info` against positions [0, store.size()) of `store`, which must be normalized
// (sorted). References to dead (tombstoned) or absent objects are dropped.
Result<HeapSnapshot> loadSnapshot(const TraceFile& trace, const SnapshotInfo& info, const ObjectStore& store,
                                  const SnapshotLoadOptions& options);

struct Reachability {
    uint64_t reachable_objects = 0, reachable_bytes = 0;  // reached, live, below `cut`
    uint64_t unreached_objects = 0, unreached_bytes = 0;  // live below `cut`, not reached
};

struct SnapshotReach {
    Reachability reach;
    uint64_t edges = 0;  // strong references between objects of the heap (HeapSnapshot::graph's)
    uint64_t roots = 0;  // roots whose object is in the heap (HeapSnapshot::roots)
    bool walked = true;  // false: a from-roots listing said it all
};

// What loadSnapshot then computeReachability find, in one pass over the REFS chunks and without
// building the graph: per GC of a history build. `scratch` is reused between calls.
//
// With options.from_roots, a snapshot without weak references whose every listed object is in
// the heap below `cut` needs no walk: what it lists is what is strongly reachable. The listing
// is then marked by id, with no lookup of positions; anything else (a weak reference, an object
// the heap lacks, a repeated source) takes the walk, which also names the anomalies.
struct ReachScratch {
    std::vector<uint32_t> head;               // per position: its first target in `targets`, or ~0
    std::vector<uint32_t> count;              // per position: its number of targets
    std::vector<uint32_t> targets;            // the targets of every source, source by source
    std::vector<uint32_t> touched;            // positions whose head is set
    std::vector<uint8_t> bytes;               // a decompressed chunk
    std::vector<uint64_t> listed, sourced;    // bits by id: listed anywhere, listed as a source
    std::vector<uint64_t> listed2, sourced2;  // the second thread's
    std::vector<uint8_t> bytes2;
};
Result<SnapshotReach> snapshotReachability(const TraceFile& trace, const SnapshotInfo& info,
                                           const HeapView& heap, const SnapshotLoadOptions& options,
                                           ReachScratch& scratch);

// Marks everything strongly reachable from the roots and sums it over positions [0, cut).
// `reached` (optional) receives the bitset of reached positions.
Reachability computeReachability(const HeapSnapshot& snapshot, const ObjectStore& store, size_t cut,
                                 const ShapeTable& shapes, const SymbolTable& symbols, uint32_t alignment,
                                 std::vector<uint64_t>* reached = nullptr);

}  // namespace memcity
