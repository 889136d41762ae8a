// Loading a reference snapshot (REFS + ROOTS chunks of one GC) against the positions of a heap,
// and the reachability walk over it.
#pragma once

#include <cstdint>
#include <vector>

#include "heap/diagnostics.h"
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
};

// Loads `info` against positions [0, store.size()) of `store`, which must be normalized
// (sorted). References to dead (tombstoned) or absent objects are dropped.
Result<HeapSnapshot> loadSnapshot(const TraceFile& trace, const SnapshotInfo& info, const ObjectStore& store,
                                  const SnapshotLoadOptions& options);

struct Reachability {
    uint64_t reachable_objects = 0, reachable_bytes = 0;  // reached, live, below `cut`
    uint64_t unreached_objects = 0, unreached_bytes = 0;  // live below `cut`, not reached
};

// Marks everything strongly reachable from the roots and sums it over positions [0, cut).
// `reached` (optional) receives the bitset of reached positions.
Reachability computeReachability(const HeapSnapshot& snapshot, const ObjectStore& store, size_t cut,
                                 const ShapeTable& shapes, const SymbolTable& symbols, uint32_t alignment,
                                 std::vector<uint64_t>* reached = nullptr);

}  // namespace memcity
