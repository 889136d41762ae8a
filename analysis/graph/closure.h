// Closures of object groups (ManLang18 §3.2–3.4): the transitive closure of a group (the group and
// every object it reaches), its GC closure (the objects that could be freed if the group were:
// its retained objects), the deep and retained sizes derived from them, and the shortest paths
// from a group back to its GC roots, aggregated by type. A group is any set of positions: a
// classification tree node, several nodes, or an explicit set. Closures are bit sets.
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include "graph/heap_graph.h"
#include "heap/sizes.h"
#include "util/bitset.h"

namespace memcity {

// Objects and shallow bytes of the live positions in `set`.
Sizes sizesOf(const HeapView& heap, const Bitset& set);

// The group and everything reachable from it over strong references.
Bitset transitiveClosure(const HeapGraph& graph, const Bitset& group);

// The GC closure: the objects of `transitive` (the group's transitive closure) that no GC root
// keeps alive once every reference to the group is dropped. Uses the improved algorithm of
// ManLang18 §3.2.2 (it touches only the closure and its predecessors) for closures smaller than a
// quarter of the heap, and one pass from the roots that steps around the group for larger ones
// (no reverse graph needed); both give the same set.
enum class ClosureMethod { kAuto, kLocal, kFromRoots };
Bitset gcClosure(const HeapGraph& graph, const Bitset& group, const Bitset& transitive,
                 ClosureMethod method = ClosureMethod::kAuto);

struct GroupClosure {
    Sizes shallow;    // the group itself
    Sizes deep;       // its transitive closure
    Sizes retained;   // its GC closure
    Sizes unreached;  // group objects no reported root reaches ("alive, root not reported")
};
GroupClosure closureOf(const HeapGraph& graph, const Bitset& group);

// Closures of many groups, `threads` at a time (each closure is independent).
std::vector<GroupClosure> closuresOf(const HeapGraph& graph, const std::vector<Bitset>& groups,
                                     unsigned threads);

// Shortest paths from the objects of a group back to a GC root, aggregated by type: each object
// walks its shortest path (HeapGraph::pathParent) to a root object; paths with the same root
// identity and the same sequence of types are merged, and a run of one type (a linked list)
// counts as one step.
struct RootPathStep {
    uint32_t type = 0;
    bool repeated = false;  // a run of two or more objects of this type
};
struct RootPath {
    uint32_t root_identity = 0;       // HeapGraph::rootIdentity
    std::vector<RootPathStep> steps;  // the root object's type first, the group object's last
    uint64_t objects = 0;             // group objects whose shortest path this is
    uint32_t shortest = 0;            // the shortest of their paths, in references
};
struct RootPaths {
    std::vector<RootPath> paths;     // most objects first
    uint64_t reached_objects = 0;    // group objects with a path
    uint64_t unreached_objects = 0;  // no reported root reaches them
    uint64_t other_paths = 0;        // distinct paths beyond `max_paths`
    uint64_t other_objects = 0;      // objects on those
};
RootPaths rootPaths(const HeapGraph& graph, const Bitset& group, size_t max_paths = 10);
// "static field IdCache.idCache → java.util.HashMap → java.util.HashMap$Node[] → HashMap$Node → Product"
std::string describePath(const HeapGraph& graph, const RootPath& path);

}  // namespace memcity
