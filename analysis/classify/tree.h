// Classification trees (ICPE18 §3.4–3.6): the live objects of one heap, grouped by a chain of
// classifiers, one tree level per classifier (a one-to-hierarchy classifier adds a path of
// levels). Nodes hold counters (the counter approach of §3.5.2), and an object that a
// one-to-many classifier puts under several children counts once in every node above them.
//
// Building classifies objects by *signature*: the object's shape (type, site, thread) plus the
// values of the classifiers that read more than the shape (age, size, ...). Objects with one
// signature land in the same nodes, so the chain runs once per signature, and the pass over
// the objects only counts them per signature.
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "classify/classifier.h"
#include "heap/sampling.h"
#include "util/bitset.h"

namespace memcity {

inline constexpr uint32_t kNoNode = ~uint32_t{0};

enum class Metric : uint8_t {
    kObjects,  // number of objects
    kBytes,    // bytes of the objects themselves (shallow size)
};

// "objects" / "bytes", and back (nothing for another name).
std::string_view metricName(Metric metric);
std::optional<Metric> parseMetric(std::string_view name);

struct TreeNode {
    uint32_t parent = kNoNode;
    uint32_t level = 0;  // 0: the root; otherwise 1 + the index of the classifier that made it
    Key key = 0;
    uint64_t objects = 0, bytes = 0;  // each object once, however many children it went to
    std::vector<uint32_t> children;   // in creation order (sortedChildren orders them)
    // A sampled heap's node (ClassificationTree::sampled): objects and bytes above are the
    // estimates, rounded; these are their sums, samples and variance (heap/sampling.h).
    SampleSums sampled;
};

// Pruning for display (STAG20 §4): a node's children, largest first, are shown until they hold
// `share` of the node's value or `max_children` are shown; the rest are folded into "Other".
struct PruneOptions {
    double share = 0.9;
    size_t max_children = 9;
    bool enabled = true;  // false: every child is shown
    bool operator==(const PruneOptions&) const = default;
};

struct PrunedChildren {
    std::vector<uint32_t> shown;  // largest first
    size_t other_groups = 0;
    // Sums over the folded children (under a one-to-many classifier an object may be in several).
    uint64_t other_objects = 0, other_bytes = 0;
    SampleSums other_sampled;  // a sampled tree's: the folded children's sums
};

struct TreeOptions {
    unsigned threads = 1;  // threads for the pass over the objects
    // A filter applied with the chain's (not owned; may be null): heap diffs use it to pick
    // the born, dead or permanent objects.
    const Filter* extra_filter = nullptr;
};

class ClassificationTree {
public:
    // Classifies every live object of `heap` that passes the chain's filters.
    // Contract: `chain` and the heap's symbol table outlive the tree (labels are made from them).
    static ClassificationTree build(const HeapView& heap, const ClassifierChain& chain,
                                    const TreeOptions& options = {});

    static constexpr uint32_t kRoot = 0;
    size_t size() const { return nodes_.size(); }
    const TreeNode& node(uint32_t id) const { return nodes_[id]; }
    const TreeNode& root() const { return nodes_[kRoot]; }
    uint32_t gc() const { return gc_; }

    // Objects the filters left out, and the signatures the objects fell into.
    uint64_t filteredObjects() const { return filtered_objects_; }
    uint64_t filteredBytes() const { return filtered_bytes_; }
    // Built from a sampled heap: every node's objects and bytes are estimates (TreeNode::sampled).
    bool sampled() const { return sampled_; }
    size_t signatures() const { return signatures_; }

    // "Overall" for the root, else the classifier's name for the node's key.
    std::string label(uint32_t id) const;
    // The node's labels from the root's child down, joined by " / ".
    std::string path(uint32_t id) const;
    // The node at the end of a path of labels below the root, or kNoNode.
    uint32_t find(const std::vector<std::string>& labels) const;
    // Children by the metric, largest first; ties by label.
    std::vector<uint32_t> sortedChildren(uint32_t id, Metric metric) const;
    PrunedChildren prunedChildren(uint32_t id, Metric metric, const PruneOptions& options) const;
    // The name of the classifier that made the node's level ("" for the root).
    std::string classifierSpec(uint32_t id) const;

    // The objects of each of `nodes`: one bit set over the heap's positions per node. `heap` and
    // `options` must be those the tree was built from (the heap with its graph attached when the
    // chain reads references). One pass over the heap, `options.threads` at a time.
    std::vector<Bitset> members(const HeapView& heap, const std::vector<uint32_t>& nodes,
                                const TreeOptions& options = {}) const;

    static uint64_t value(const TreeNode& n, Metric m) { return m == Metric::kObjects ? n.objects : n.bytes; }

private:
    std::vector<TreeNode> nodes_;
    const ClassifierChain* chain_ = nullptr;
    const SymbolTable* symbols_ = nullptr;
    uint32_t gc_ = 0;
    uint64_t filtered_objects_ = 0, filtered_bytes_ = 0;
    SampleSums filtered_sampled_;
    bool sampled_ = false;
    size_t signatures_ = 0;
};

// Node paths as --node, --drill and the explorer's scripts take them: labels from the root's child down
// separated by
// '/', nodes separated by ';', spaces around labels ignored:
// "java.util.HashMap / IdCache.<clinit>(IdCache.java:9); byte[]" -> {{HashMap, IdCache...}, {byte[]}}.
std::vector<std::vector<std::string>> parseNodePaths(const std::string& text);

}  // namespace memcity
