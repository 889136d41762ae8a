// Churn by cause (VMIL19 §3.4.2, the short-lived objects analysis): the objects born in a window
// of GCs (after GC `from` ended, before GC `to` ended), split into those that died within it (at a
// GC in (from, to]) and those still alive at its end, grouped by a classifier chain. The rebuilt
// heaps hold only what survives a GC; the churn replays the window's deaths to see the rest.
//
// The chain must read no references (the dead were never in a snapshot). Every object is
// classified as the heap of GC `to` would classify it: `age` counts GCs up to the window's end.
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include "classify/series.h"
#include "classify/tree.h"
#include "heap/heap_history.h"
#include "heap/sizes.h"
#include "util/result.h"

namespace memcity {

using ChurnCounts = Sizes;

struct ChurnNode {
    std::string label;
    std::string classifier;  // the spec of the classifier that made it ("" for the root)
    Key key = 0;             // its classifier's value (frameKey for the site classifier)
    ChurnCounts died;        // born and dead within the window
    ChurnCounts survived;    // born within the window, alive at its end
    std::vector<uint32_t> children;
    // A sampled trace's churn: died and survived are estimates, and these their sums.
    SampleSums died_sampled, survived_sampled;
};

class HeapChurn {
public:
    // Errors: a range out of the history or with from >= to, a chain that reads references, a
    // failed replay. Contract: `chain` outlives the call.
    static Result<HeapChurn> build(const HeapHistory& history, uint32_t from, uint32_t to,
                                   const ClassifierChain& chain, const TreeOptions& options = {});

    static constexpr uint32_t kRoot = 0;
    const ChurnNode& node(uint32_t id) const { return nodes_[id]; }
    size_t size() const { return nodes_.size(); }
    uint32_t fromGc() const { return from_; }
    // Of a sampled trace: every count is an estimate (ChurnNode::died_sampled...).
    bool sampled() const { return sampled_; }
    uint32_t toGc() const { return to_; }
    // From the end of GC `from` to the end of GC `to`.
    double seconds() const { return static_cast<double>(duration_ns_) / 1e9; }
    // `value` per second of the window (0 for an empty window).
    double rate(uint64_t value) const {
        return duration_ns_ > 0 ? static_cast<double>(value) / seconds() : 0;
    }
    // The node at the end of a path of labels below the root, or kNoNode.
    uint32_t find(const std::vector<std::string>& labels) const;
    // Children by the died objects' metric, then the survivors', largest first.
    std::vector<uint32_t> sortedChildren(uint32_t id, Metric metric) const;

private:
    std::vector<ChurnNode> nodes_;
    uint32_t from_ = 0, to_ = 0;
    int64_t duration_ns_ = 0;
    bool sampled_ = false;
};

// The window's short-lived objects GC by GC, as a tree series (the explorer's churn mode, shown
// by the same city, sunburst and table as a heap): the column of GC g (from < g <= to) holds the
// objects born after GC `from` ended that died at a GC in (from, g]. Columns are cumulative, so
// the last one is the window's whole churn (HeapChurn's `died`, node for node) and a group's
// growth between two GCs is what of it died young in between. Errors as HeapChurn::build's, and
// a cancelled build (options.progress). Contract: `chain` outlives the series.
Result<TreeSeries> churnSeries(const HeapHistory& history, uint32_t from, uint32_t to,
                               const ClassifierChain& chain, const SeriesOptions& options = {});

}  // namespace memcity
