// Heap diff (ICPE18 §5.3): between the heaps of GC a and GC b, the objects that were born (live
// at b only), died (live at a only) and permanent (live at both), grouped by a classifier chain.
// Born and permanent objects are classified as they are at b, the dead ones as they were at a.
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include "classify/tree.h"
#include "heap/heap_history.h"
#include "heap/sizes.h"
#include "util/result.h"

namespace memcity {

using DiffCounts = Sizes;

struct DiffNode {
    std::string label;
    std::string classifier;  // the spec of the classifier that made it ("" for the root)
    DiffCounts born, died, permanent;
    std::vector<uint32_t> children;
    // A sampled trace's diff: born, died and permanent are estimates, and these their sums.
    SampleSums born_sampled, died_sampled, permanent_sampled;
};

class HeapDiff {
public:
    // Contract: both views come from one history (one shape and symbol table) and `chain`
    // outlives the call.
    static HeapDiff build(const HeapView& a, const HeapView& b, const ClassifierChain& chain,
                          const TreeOptions& options = {});
    // The diff of GCs a and b of `history`: rebuilds both heaps, with their reference snapshots
    // when the chain reads references. Errors: a GC out of range, a replay failure, a snapshot
    // the chain needs and a GC lacks. Contract: `chain` outlives the call.
    static Result<HeapDiff> between(const HeapHistory& history, uint32_t a, uint32_t b,
                                    const ClassifierChain& chain, const TreeOptions& options = {});

    static constexpr uint32_t kRoot = 0;
    const DiffNode& node(uint32_t id) const { return nodes_[id]; }
    size_t size() const { return nodes_.size(); }
    uint32_t fromGc() const { return from_; }
    // Of a sampled trace: every count is an estimate (DiffNode::born_sampled...).
    bool sampled() const { return sampled_; }
    uint32_t toGc() const { return to_; }
    // The node at the end of a path of labels below the root, or kNoNode.
    uint32_t find(const std::vector<std::string>& labels) const;
    // Children by born + died + permanent of the metric, largest first.
    std::vector<uint32_t> sortedChildren(uint32_t id, Metric metric) const;

private:
    std::vector<DiffNode> nodes_;
    uint32_t from_ = 0, to_ = 0;
    bool sampled_ = false;
};

}  // namespace memcity
