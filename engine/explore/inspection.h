// What the explorer's inspector shows about the selection (one or several tree nodes) at one GC,
// computed on a worker thread into plain values and strings (nothing in it points into a heap):
// the group's counts, shallow / deep / retained sizes, the GC roots that keep it alive, its
// shortest paths to them aggregated by type, what it retains by type, the objects that retain the
// most on their own, and the objects born, dead and permanent since a base GC (ICPE18 §5.3).
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include "classify/tree.h"
#include "explore/worker.h"
#include "graph/closure.h"
#include "graph/group_report.h"
#include "heap/heap_history.h"
#include "util/result.h"

namespace memcity::explore {

struct InspectionRequest {
    uint64_t id = 0;                               // echoed in the result (the caller's request counter)
    std::vector<std::vector<std::string>> groups;  // label paths below the root; empty: the whole heap
    std::vector<std::string> names;                // what the inspector titles each group
    // Object ids (ascending): when not empty, the one group inspected is these objects (those
    // alive at each heap read) and `groups` is not read.
    std::vector<uint64_t> objects;
    uint32_t gc = 0;                  // the GC looked at
    std::optional<uint32_t> base_gc;  // born / died / permanent since this GC (< gc)
    unsigned threads = 1;
};

struct InspectedPath {
    // "static field ShopServer.AUDIT_HISTORY → ConcurrentHashMap → …"; a path of more than
    // kPathShownSteps steps keeps its first and last steps around "… N more …".
    std::string text;
    uint64_t objects = 0;
    uint32_t shortest = 0;  // references
};

struct InspectedObject {
    uint64_t id = 0;
    std::string type;
    Sizes retained;
};

struct Inspection {
    uint64_t request = 0;
    uint32_t gc = 0;
    std::vector<std::string> names;
    Sizes heap;     // the live heap at gc
    Sizes objects;  // the group at gc (its shallow size)
    // A sampled recording's (heap/sampling.h): heap and objects above are estimates (rounded),
    // born / died / permanent too, and these the sums behind the first two (95% interval,
    // samples).
    std::optional<SampleSums> heap_sampled, objects_sampled;
    // From the reference snapshot at snapshot_gc (gc itself, or the nearest before, else after);
    // absent when the trace has none (note says so).
    std::optional<uint32_t> snapshot_gc;
    std::optional<GroupClosure> closure;  // shallow / deep / retained / unreached at snapshot_gc
    Sizes closure_heap;  // every live object at snapshot_gc: what the closure's sizes are a share of
    // A sampled recording's snapshot makes the heap of snapshot_gc whole (heap/whole_heap.h): then
    // the closure, the roots, the paths, the retained types and the largest retainers are those of
    // the group's sampled objects at snapshot_gc (this many), exact for them over the whole
    // heap's references, and closure_heap is exact. They are never the group's retained size,
    // which samples do not estimate (notes says so); objects stays the group's estimate.
    std::optional<uint64_t> closure_samples;
    std::vector<CountedName> direct_roots, closest_roots, reaching_roots, retained_by_type;
    std::vector<InspectedPath> paths;
    uint64_t other_paths = 0, other_path_objects = 0, unreached_objects = 0;
    std::vector<InspectedObject> largest_objects;
    // Since base_gc: objects born after it and alive at gc, dead since it, alive at both.
    std::optional<uint32_t> base_gc;
    std::optional<Sizes> born, died, permanent;
    std::vector<std::string> notes;  // why something is missing, one line each
    double seconds = 0;
};

inline constexpr size_t kPathShownSteps = 12;
// `text` (steps joined by " → ") with at most kPathShownSteps steps: the root and the first ones,
// "… N more …", and the last ones (the group's type at the end).
std::string shortenPath(const std::string& text);

// The inspection as text, as the inspector panel lists it (scripts print it).
std::string formatInspection(const Inspection& inspection);

// Computes the inspection. Errors: a GC out of range, a replay failure, a cancelled token.
// Contract: `history` and `chain` outlive the call (they are read, never changed).
Result<Inspection> inspect(const HeapHistory& history, const ClassifierChain& chain,
                           const InspectionRequest& request, const CancelToken& token);

// The snapshot GC an inspection of `gc` reads references from: gc itself when it has one, else
// the nearest before it, else the nearest after it; none when the trace has no snapshot.
std::optional<uint32_t> snapshotGcFor(const HeapHistory& history, uint32_t gc);

// Deep and retained sizes of many groups (the tree table's columns) at the snapshot GC for `gc`.
// Errors: no snapshot; a sampled recording (a group's retained size is not estimated from samples).
struct GroupSizes {
    Sizes deep, retained;
};
struct SizesResult {
    uint32_t snapshot_gc = 0;
    std::vector<std::optional<GroupSizes>> sizes;  // per group; none when the group is not in that heap
};
Result<SizesResult> groupSizes(const HeapHistory& history, const ClassifierChain& chain, uint32_t gc,
                               const std::vector<std::vector<std::string>>& groups, unsigned threads,
                               const CancelToken& token);

}  // namespace memcity::explore
