// The dominator tree as a browsable view (MAT's and VisualVM's main view): the objects one node
// immediately dominates, as rows sorted by what they retain, or grouped by a classifier (MAT's
// "group by class"), for `memcity dominators` and the explorer's dominator view. Pure: it reads a
// HeapGraph and its DominatorTree (graph/dominators.h) and builds no UI.
//
// Sizes are of the graph's heap: for a sampled trace's graph, the whole heap at the snapshot
// (HeapGraph::whole()), every object counted for itself, not estimates.
#pragma once

#include <cstdint>
#include <span>
#include <string>
#include <vector>

#include "classify/classifier.h"
#include "graph/dominators.h"
#include "graph/heap_graph.h"
#include "util/result.h"

namespace memcity {

// One row of a dominator-tree level: either one object, or (grouped) the objects of one group,
// or (DominatorRowOptions::max_rows) the rows left out, summed.
struct DominatorRow {
    // "java.util.HashMap#1234" (type name, '#', object id) for an object; the group's value as
    // its classifier names it; "12 more" for the rows left out.
    std::string label;
    uint32_t position = kNoPosition;  // the object's position; kNoPosition for a group row
    std::vector<uint32_t> members;    // a group row's objects (positions), by retained bytes, most first
    uint64_t objects = 0;             // objects in the row (1 for an object)
    uint64_t shallow_bytes = 0;       // their shallow bytes
    uint64_t retained_objects = 0,
             retained_bytes = 0;  // what they retain (sum over members' dominator subtrees)
    // > 0 only on the last row of a cut list: how many rows it sums (its members are empty).
    uint64_t more = 0;
};

struct DominatorRowOptions {
    // The most rows to return; the rest are summed in one last row (DominatorRow::more). 0: all.
    // With a cut, labels are made for the rows returned only, so a level of millions of objects
    // costs a partial sort.
    size_t max_rows = 0;
};

// The objects `node` immediately dominates (node = tree.superRoot() for the top level), as rows
// sorted by retained bytes (most first; ties by ascending position / label). With a chain (may be
// null or empty): grouped by the chain's first classifier's value (MAT's "group by class"), a
// group row per value. A classifier of several values (a hierarchy, a set, paths) groups an object
// by its first value, so that every object is in one row and the rows' sums add up.
// Contract: `tree` is graph.dominators()'s (or computed for graph.heap() and graph.snapshot());
// node <= tree.superRoot(). Errors: a tree of another number of positions than the graph's.
Result<std::vector<DominatorRow>> dominatorRows(const HeapGraph& graph, const DominatorTree& tree,
                                                uint32_t node, const ClassifierChain* group_by,
                                                const DominatorRowOptions& options = {});

// The same for the union of what several nodes immediately dominate (a group row's members, to
// expand it), grouped by `group_by` (may be null: one row per object). Nodes must not dominate one
// another (siblings, as a group row's members are), so that no object is counted twice.
Result<std::vector<DominatorRow>> dominatorRowsOf(const HeapGraph& graph, const DominatorTree& tree,
                                                  std::span<const uint32_t> nodes, const Classifier* group_by,
                                                  const DominatorRowOptions& options = {});

// "java.util.HashMap#1234": the label of the object at `pos` of graph.heap().
std::string dominatorObjectLabel(const HeapGraph& graph, uint32_t pos);

// Per position: the ancestor just below the super-root of its dominator tree (itself for an
// object the super-root dominates directly), kNoPosition for a position no root reaches. O(n).
std::vector<uint32_t> topDominators(const DominatorTree& tree);

}  // namespace memcity
