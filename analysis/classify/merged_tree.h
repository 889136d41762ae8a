// Trees of labelled groups merged from several classification trees: a heap diff's born, died
// and permanent objects, a churn window's short-lived and surviving ones. Each cohort is
// classified by the same chain on its own; the trees meet where their label paths do.
//
// A node type has `label`, `classifier` (the spec of the classifier that made it) and
// `children`; nodes[0] is the root. A node type with a `key` too is merged by label and key (two
// frames may share a label) and keeps the key of its classifier's value.
#pragma once

#include <algorithm>
#include <cstdint>
#include <map>
#include <string>
#include <tuple>
#include <utility>
#include <vector>

#include "classify/tree.h"

namespace memcity {

template <class Node>
class TreeMerger {
public:
    explicit TreeMerger(std::vector<Node>& nodes) : nodes_(nodes) {}

    // Visits every node of `tree` with the merged node of its label path (made on first sight):
    // add(Node& merged, const TreeNode& counted).
    template <class Add>
    void merge(const ClassificationTree& tree, Add&& add) {
        std::vector<std::pair<uint32_t, uint32_t>> stack{{ClassificationTree::kRoot, 0}};
        while (!stack.empty()) {
            auto [t, m] = stack.back();
            stack.pop_back();
            const TreeNode& n = tree.node(t);
            add(nodes_[m], n);
            for (uint32_t c : n.children) {
                std::string label = tree.label(c);
                Key key = 0;
                if constexpr (requires(Node n) { n.key; }) key = tree.node(c).key;
                auto [it, added] = index_.try_emplace({m, label, key}, static_cast<uint32_t>(nodes_.size()));
                if (added) {
                    Node child{};
                    child.label = std::move(label);
                    child.classifier = tree.classifierSpec(c);
                    if constexpr (requires(Node n) { n.key; }) child.key = key;
                    nodes_.push_back(std::move(child));
                    nodes_[m].children.push_back(it->second);
                }
                stack.emplace_back(c, it->second);
            }
        }
    }

private:
    std::vector<Node>& nodes_;
    std::map<std::tuple<uint32_t, std::string, Key>, uint32_t> index_;  // (parent, label, key) -> node
};

// The node at the end of a path of labels below the root, or kNoNode.
template <class Node>
uint32_t findMergedNode(const std::vector<Node>& nodes, const std::vector<std::string>& labels) {
    uint32_t at = 0;
    for (const std::string& l : labels) {
        const auto& kids = nodes[at].children;
        auto it = std::find_if(kids.begin(), kids.end(), [&](uint32_t c) { return nodes[c].label == l; });
        if (it == kids.end()) return kNoNode;
        at = *it;
    }
    return at;
}

// Children of `id`, largest `total(node)` first (any ordered value: a count, a pair of counts);
// ties by label.
template <class Node, class Total>
std::vector<uint32_t> sortedMergedChildren(const std::vector<Node>& nodes, uint32_t id, Total&& total) {
    std::vector<uint32_t> kids = nodes[id].children;
    std::stable_sort(kids.begin(), kids.end(), [&](uint32_t x, uint32_t y) {
        const auto tx = total(nodes[x]), ty = total(nodes[y]);
        if (tx != ty) return tx > ty;
        return nodes[x].label < nodes[y].label;
    });
    return kids;
}

}  // namespace memcity
