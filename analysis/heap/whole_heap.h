// WholeHeap: a sampled trace's heap at a snapshot GC, made whole.
//
// A sampled trace rebuilds only the samples alive at each GC. Its reference snapshot of GC g
// lists every other object the walk reached too (OBJECTS chunks: type, size, array length and an
// id above GC g's own, docs/trace-format.md). WholeHeap holds both: the samples at the positions
// the samples' heap gives them, then the other objects, ids ascending. The snapshot's references
// load against it, so references, GC roots, paths and deep and retained sizes are the JVM's own
// at GC g, for every object of the heap the roots reached. Estimates keep reading the samples'
// heap: a position below samplePositions() names the same object in both.
#pragma once

#include <cstdint>
#include <memory>
#include <vector>

#include "heap/heap_state.h"
#include "heap/object_store.h"
#include "heap/replayer.h"
#include "heap/shape_table.h"
#include "trace/trace_reader.h"
#include "util/result.h"

namespace memcity {

class WholeHeap {
public:
    // Copies `samples` (its positions as they are, tombstones included) and appends the
    // unsampled objects of the snapshot `info` of the samples' GC. Errors: a corrupt OBJECTS
    // chunk, one of another GC, an object whose id is not above every sample's, a count that
    // disagrees with the snapshot's roots chunk (the trace's file and offset named).
    static Result<std::unique_ptr<WholeHeap>> load(const TraceFile& trace, const SnapshotInfo& info,
                                                   const HeapView& samples);

    // Every object, each standing for itself (an exact heap: no sampling law, weights 1).
    HeapView view() const;
    const ObjectStore& store() const { return store_; }
    uint32_t gc() const { return gc_; }
    // Positions of the samples' heap: [0, samplePositions()) are its objects, the rest unsampled.
    size_t samplePositions() const { return sample_positions_; }
    uint64_t unsampledObjects() const { return unsampled_objects_; }
    size_t memoryBytes() const { return store_.memoryBytes() + shapes_.memoryBytes(); }

private:
    WholeHeap() = default;

    ObjectStore store_;
    ShapeTable shapes_;  // the samples' shapes (same ids), then the unsampled objects' (site 0, thread 0)
    std::vector<uint64_t> watermarks_;
    const SymbolTable* symbols_ = nullptr;
    uint32_t alignment_ = 8;
    uint32_t gc_ = 0;
    size_t sample_positions_ = 0;
    uint64_t live_objects_ = 0, live_bytes_ = 0;
    uint64_t unsampled_objects_ = 0, unsampled_bytes_ = 0;
};

}  // namespace memcity
