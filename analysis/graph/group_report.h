// GroupReport: everything an inspector shows about one object group at one GC (ManLang18 §4.4),
// computed in one call with no output attached, for `memcity inspect` and the explorer's
// inspector panel:
//
//   - the group's shallow, deep (transitive closure) and retained (GC closure) sizes, and the part
//     of the group no reported root reaches;
//   - the GC roots that reference the group's objects directly, and the roots closest to them,
//     aggregated by root identity ("static field IdCache.idCache");
//   - the shortest paths from the group's objects to the roots, aggregated by type;
//   - what the group retains, by type;
//   - the group's objects that retain the most on their own (the dominator tree).
//
// A group is any set of heap positions: one or several classification tree nodes
// (ClassificationTree::members), or an explicit set.
#pragma once

#include <cstddef>
#include <cstdint>
#include <functional>
#include <string>
#include <string_view>
#include <vector>

#include "graph/closure.h"
#include "graph/dominators.h"
#include "graph/heap_graph.h"
#include "util/bitset.h"
#include "util/progress.h"
#include "util/result.h"

namespace memcity {

struct GroupReportOptions {
    size_t max_paths = 10;   // root paths listed; the rest are counted in RootPaths::other_*
    size_t max_roots = 20;   // entries of direct_roots and of closest_roots
    size_t max_types = 10;   // entries of retained_by_type
    size_t max_singles = 5;  // entries of largest_objects
    // Threads for the dominator tree (1 or 2, more count as 2); the rest is sequential.
    unsigned threads = 1;
    // Whether to fill largest_objects. It needs the dominator tree of the whole heap, whatever
    // the group's size, unless dominator_tree gives one.
    bool dominators = true;
    // A dominator tree already computed for the graph's heap and snapshot (not owned; may be
    // null): largest_objects reads it instead of computing one. Lets a caller that inspects many
    // groups of one heap pay for the tree once. Contract: made by computeDominators(graph.heap(),
    // graph.snapshot()) and outlives the call.
    const DominatorTree* dominator_tree = nullptr;
    // Told before each stage of the report (closures, roots, reaching roots, paths, types,
    // dominators), on the calling thread: ProgressReport::position is the stage (1 to 6), total
    // the stages to do. A cancel abandons the report with kGroupReportCancelled.
    Progress progress;
};

// The error message of a report abandoned through GroupReportOptions::progress.
inline constexpr std::string_view kGroupReportCancelled = "the group report was cancelled";

// A name with the group objects (or retained objects) counted under it and their shallow bytes.
struct CountedName {
    std::string name;
    uint64_t objects = 0, bytes = 0;
    bool operator==(const CountedName&) const = default;
};

// One of the group's objects and what it alone retains (its dominator subtree, itself included).
struct SingleRetainer {
    uint32_t position = 0;  // in the graph's heap
    uint64_t id = 0;        // the object's id
    uint32_t type = 0;      // symbol table type id
    Sizes retained;
    bool operator==(const SingleRetainer&) const = default;
};

// Every list of CountedName is sorted by bytes, most first, then by objects, most first, then by
// name in ascending byte order; it keeps at most the options' maximum of entries. Sizes count live
// objects and their shallow bytes.
struct GroupReport {
    GroupClosure closure;  // shallow, deep, retained and unreached sizes (closureOf)
    Sizes heap;            // every live object of the heap: what the sizes are a share of
    // The transitive closure (deep) and the GC closure (retained) as sets of positions, for a view
    // that highlights them. Sizes are graph.size() bits.
    Bitset deep_set, retained_set;
    // Root identities (HeapGraph::rootIdentityLabel) referencing group objects directly; an object
    // referenced by several roots counts under each of them.
    std::vector<CountedName> direct_roots;
    // Root identities closest to the group's objects (HeapGraph::closestRoots: a rooted object's
    // own roots); an object with several roots at the same distance counts under each of them (at
    // most HeapGraph::kMaxClosestRoots). Empty when no root reaches the group.
    std::vector<CountedName> closest_roots;
    // Every root that reaches the group (ManLang18 §4.4), not only the closest: the rooted objects
    // from which a path of strong references leads to a group object (group objects that are
    // rooted included), as positions, and by root identity (each rooted object counted, with its
    // shallow bytes, under each of its roots).
    Bitset reaching_set;
    std::vector<CountedName> reaching_roots;
    // Shortest paths to the roots aggregated by type (rootPaths with options.max_paths).
    RootPaths paths;
    // The retained objects (retained_set) by type name.
    std::vector<CountedName> retained_by_type;
    // Group objects a root reaches, by the bytes they alone retain, most first; ties in ascending
    // position (= ascending id). At most options.max_singles; empty when !dominators_computed.
    std::vector<SingleRetainer> largest_objects;
    bool dominators_computed = false;  // options.dominators was set
};

// The report of `group` in the heap of `graph` (its references: graph.snapshot()). Positions of
// `group` that are dead in graph.heap() are ignored.
// Errors: a group whose size() is not graph.size(); a dominator tree that cannot be computed (a
// heap of 2^32 - 1 positions or references or more) or a given one of another number of
// positions; kGroupReportCancelled.
// Thread safety: reads `graph` only (its derived parts are built on first use, once, safely), so
// reports of several groups of one graph may run at once.
Result<GroupReport> buildGroupReport(const HeapGraph& graph, const Bitset& group,
                                     const GroupReportOptions& options = {});

}  // namespace memcity
