// The dominator tree of the object graph of one heap (ManLang18 §3.2.2).
//
// Object d dominates object x when every path from the GC roots to x passes through d. A virtual
// super-root sits above the roots (its successors are the rooted objects), so every reached
// object has one immediate dominator: an object, or the super-root when no single object guards
// it (a rooted object, an object reached from two roots). The dominator subtree of x is exactly
// what the GC could free if x alone were freed, i.e. the GC closure of the single object {x}, and
// its size is x's retained size.
//
// That is single ownership. Objects that two owners keep alive together (two caches holding the
// same products, ManLang18 §5) are retained by neither owner alone: they hang under a common
// dominator higher up, often the super-root. The group closures answer that question.
//
// Algorithm: an iterative depth-first numbering from the super-root, a compact predecessor graph
// (CSR, uint32, in depth-first numbers, reached objects only, self-loops and repeated references
// dropped), then Semi-NCA (Georgiadis): semidominators by Lengauer-Tarjan's eval with path
// compression, each immediate dominator as the nearest common ancestor, in the depth-first tree,
// of its parent and its semidominator. No recursion anywhere: heaps have 10 M+ objects.
#pragma once

#include <cstdint>
#include <functional>
#include <span>
#include <vector>

#include "heap/heap_state.h"
#include "heap/ref_graph.h"
#include "heap/snapshot.h"
#include "util/result.h"

namespace memcity {

// Writes the shallow size in bytes of positions [begin, end) to out[0 .. end - begin). May be
// called from two threads at once, on disjoint ranges.
using ShallowSizes = std::function<void(size_t begin, size_t end, uint64_t* out)>;

struct DominatorOptions {
    // 1 or 2 (more count as 2): with 2, the predecessor graph and the shallow sizes are built in
    // two halves at once; the numbering and the dominators themselves are sequential.
    unsigned threads = 1;
};

// What one computation cost. Bytes are the working arrays held at once, not the input graph.
struct DominatorStats {
    double dfs_seconds = 0;         // depth-first numbering from the super-root
    double reverse_seconds = 0;     // predecessor graph
    double dominators_seconds = 0;  // semidominators and immediate dominators
    double retained_seconds = 0;    // shallow sizes, subtree sums, children lists
    // Distinct references between reached objects (self-references left out), plus one per
    // distinct rooted object.
    uint64_t predecessor_edges = 0;
    size_t peak_bytes = 0;  // the most working memory held at once, the result's included
};

class DominatorTree {
public:
    // The immediate dominator of a position no root reaches (or a dead one).
    static constexpr uint32_t kNone = ~uint32_t{0};

    // Positions run over [0, positions()); node ids are positions plus superRoot().
    size_t positions() const { return idom_.size(); }
    uint32_t superRoot() const { return static_cast<uint32_t>(idom_.size()); }

    // The position of the immediate dominator of `pos`, superRoot() when no single object dominates
    // it, kNone when no root reaches it. Contract: pos < positions().
    uint32_t idom(size_t pos) const { return idom_[pos]; }
    bool reached(size_t pos) const { return idom_[pos] != kNone; }

    // Objects and bytes that would become unreachable if `node` alone were freed (itself
    // included): the sums over its dominator subtree. 0 for an unreached position. For the
    // super-root: every reached object. Contract: node <= superRoot().
    uint64_t retainedObjects(size_t node) const {
        return node == idom_.size() ? reached_objects_ : retained_objects_[node];
    }
    uint64_t retainedBytes(size_t node) const {
        return node == idom_.size() ? reached_bytes_ : retained_bytes_[node];
    }

    // The positions `node` immediately dominates, ascending. Contract: node <= superRoot().
    std::span<const uint32_t> children(size_t node) const {
        return {children_.data() + child_offset_[node], children_.data() + child_offset_[node + 1]};
    }

    uint64_t reachedObjects() const { return reached_objects_; }
    uint64_t reachedBytes() const { return reached_bytes_; }
    size_t memoryBytes() const;
    const DominatorStats& stats() const { return stats_; }

private:
    friend Result<DominatorTree> computeDominators(const RefGraph& graph, std::span<const uint32_t> roots,
                                                   const ShallowSizes& shallow_bytes,
                                                   const DominatorOptions& options);

    std::vector<uint32_t> idom_;              // per position: a position, superRoot() or kNone
    std::vector<uint32_t> retained_objects_;  // per position
    std::vector<uint64_t> retained_bytes_;    // per position
    std::vector<uint32_t> child_offset_;      // per node (positions, then the super-root), plus the end
    std::vector<uint32_t> children_;          // positions, grouped by their immediate dominator
    uint64_t reached_objects_ = 0, reached_bytes_ = 0;
    DominatorStats stats_;
};

// The dominator tree of `graph` below the objects at positions `roots` (any order, repeats
// allowed). `shallow_bytes` gives the size of every position; it is asked once per position,
// after the dominators are known, so that the sizes are not held beside the working arrays.
// Errors: a root outside the graph, a graph of 2^32 - 1 positions or more, or of 2^32 - 1
// references or more.
Result<DominatorTree> computeDominators(const RefGraph& graph, std::span<const uint32_t> roots,
                                        const ShallowSizes& shallow_bytes,
                                        const DominatorOptions& options = {});

// The dominator tree of a heap's object graph below the snapshot's roots; shallow sizes are the
// heap's object sizes. Contract: `snapshot` was loaded against this heap's positions
// (HeapHistory::snapshotFor); an error when its graph has another number of positions.
Result<DominatorTree> computeDominators(const HeapView& heap, const HeapSnapshot& snapshot,
                                        const DominatorOptions& options = {});

}  // namespace memcity
