// Leak suspects (MAT's "Leak Suspects" report): one call that chains what memcity has —
// the leak windows of the GC series (windows/windows.h), the heap and its references at a
// snapshot GC (HeapGraph) and the dominator tree (HeapGraph::dominators) — into ranked findings,
// each with its evidence as numbers, and no output attached (engine/cli/cmd_suspects.cpp prints it).
//
//   1. The leak window: the widest leak window findWindows reports (its start is where the
//      growth begins); none: the trace has no leak, and the report says why.
//   2. The growth: the objects alive and reached at the snapshot GC that were born after the
//      window's first GC (HeapView::birthGc > first_gc): what accumulated over the window.
//      A sampled trace knows the birth GC of its samples only (the objects its snapshot alone
//      lists have none): the growth is the samples born in the window and reached at the
//      snapshot, each weighed by what it stands for (heap/sampling.h): estimates with intervals.
//   3. Accumulation points: each dominator subtree of the super-root that holds at least
//      min_share of the growth's bytes is walked down, into the child that holds the most growth,
//      while that child holds at least descend_share of it; where the walk stops is the
//      accumulation point. A sampled trace walks the whole heap's tree (the heap made whole at
//      the snapshot) by the samples' weighted growth or, when fewer than min_samples samples
//      are growth, by retained bytes (PointBasis says which). A point that is an array or lies inside a data
//      structure is lifted to its owner: the array of a HashMap or ArrayList is the collection's detail, the
//      collection is what a person recognises ("via" names the array).
//   4. For each point: its retained size, the shortest path of strong references from a GC root
//      to it (weak, soft and phantom referents are not in the snapshot's graph, so no path runs
//      through them), and the growth it holds by type, allocation site (with callers) and thread.
//      Retained sizes and paths are exact in a sampled trace too (the whole heap is known at the
//      snapshot); the growth it holds, by type, site and thread, is estimated from its samples.
//   5. The biggest retained groups at the GC: the top-level dominators (the super-root's children)
//      by type, and the single objects that retain the most.
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <utility>
#include <vector>

#include "heap/heap_history.h"
#include "heap/sampling.h"
#include "heap/sizes.h"
#include "util/result.h"
#include "windows/windows.h"

namespace memcity {

struct SuspectsOptions {
    WindowOptions windows;        // how the leak windows are found
    std::optional<uint32_t> gc;   // the snapshot GC; none: the last GC with a reference snapshot
    double min_share = 0.10;      // a suspect holds at least this share of the growth's bytes
    double descend_share = 0.80;  // the walk goes into a child holding at least this share of its node's
    size_t max_suspects = 3;
    size_t max_names = 8;   // entries of each by-type, by-site and by-thread list
    size_t max_frames = 4;  // frames of a site's call chain, the allocating frame first
    size_t max_groups = 8;  // entries of the biggest retained groups and objects
    // A sampled trace whose growth rests on fewer samples than this finds its accumulation
    // points from retained bytes instead (PointBasis::kRetained).
    uint64_t min_samples = 30;
};

// A name with objects and their shallow bytes (lists: bytes most first, then objects, then name).
// In a sampled report objects and bytes are the estimates, rounded, and `sampled` the samples
// behind them (its intervals: SampleSums::objectsEstimate, bytesEstimate); in an exact one
// `sampled` is empty.
struct SuspectName {
    std::string name;
    uint64_t objects = 0, bytes = 0;
    SampleSums sampled;

    SuspectName() = default;
    SuspectName(std::string name_, uint64_t objects_, uint64_t bytes_, const SampleSums& sampled_ = {})
        : name(std::move(name_)), objects(objects_), bytes(bytes_), sampled(sampled_) {}
    bool operator==(const SuspectName& o) const {
        const SampleSums &a = sampled, &b = o.sampled;
        return name == o.name && objects == o.objects && bytes == o.bytes && a.samples == b.samples &&
               a.sample_bytes == b.sample_bytes && a.objects == b.objects && a.bytes == b.bytes &&
               a.var_objects == b.var_objects && a.var_bytes == b.var_bytes;
    }
};

// What the accumulation points were walked down the dominator tree by.
enum class PointBasis {
    kGrowth,         // the growth's bytes, counted (an exact trace)
    kSampledGrowth,  // the growth's bytes as the samples estimate them (weighted)
    kRetained,       // retained bytes: a sampled trace with too few growth samples to follow
};

// One object of the path from a GC root down to an accumulation point.
struct SuspectStep {
    uint64_t id = 0;
    std::string type;
    bool operator==(const SuspectStep&) const = default;
};

struct Suspect {
    uint64_t id = 0;            // the accumulation point's object id
    std::string type;           // its type name
    std::string via;            // the type of the object the walk stopped at when lifted to its owner, or ""
    Sizes retained;             // its dominator subtree (what freeing it alone would free)
    Sizes growth;               // the growth objects in that subtree (a sampled report's: estimates, rounded)
    SampleSums growth_sampled;  // a sampled report's: the growth samples in that subtree
    double share = 0;           // growth.bytes / the whole growth's bytes (0 without growth)
    std::string root;           // the root identity the path starts from ("static field Shop.HISTORY"),
                                // "" when no root path is known
    std::vector<SuspectStep> path;                   // from the root object down to the point, both included
    std::vector<SuspectName> types, sites, threads;  // the growth it holds; sites "a ← b ← c"
};

// The biggest retainers at the GC: objects (by id and type) and what they alone retain.
struct SuspectRetainer {
    uint64_t id = 0;
    std::string type;
    Sizes retained;
};

struct SuspectsReport {
    WindowReport windows;        // every window findWindows found, with its notes
    std::optional<Window> leak;  // the leak window used: the widest (lowest first_gc); none: no leak
    bool has_snapshot = false;   // a snapshot GC was found (the rest below needs one)
    uint32_t gc = 0;             // the snapshot GC analysed
    Sizes reached;               // reached from the roots at that GC (the dominator tree's)
    Sizes growth;                // the growth objects (born after leak->first_gc), reached
                                 // (a sampled report's: the estimates, rounded)
    bool sampled = false;        // a sampled trace's: growth figures are estimates from samples
    SampleSums growth_sampled;   // a sampled report's: the growth samples behind `growth`
    PointBasis basis = PointBasis::kGrowth;  // what the suspects were found by
    std::vector<SuspectName> growth_types;   // the growth by type
    std::vector<Suspect> suspects;           // ranked: most growth bytes first
    // The top-level dominators by type (objects and bytes: what they retain) and the single objects
    // retaining the most.
    std::vector<SuspectName> retained_groups;
    std::vector<SuspectRetainer> largest;
    std::vector<std::string> notes;  // one line each: why something is missing (no leak, no snapshot)
};

// The report for trace `h`. Errors, one line: invalid window options; options.gc out of range or
// without a reference snapshot ("GC 5 has no reference snapshot; the nearest are GCs 4 and 8 ...");
// a heap or dominator tree that cannot be built. A trace without any snapshot is no error: the
// windows are reported and a note says the rest needs a snapshot.
Result<SuspectsReport> findSuspects(const HeapHistory& h, const SuspectsOptions& options = {});

}  // namespace memcity
