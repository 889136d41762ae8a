// What ClassificationTree and TreeSeries share about their nodes (each node has a parent, a
// level — 1 + the index of the classifier that made it — a key and children): a node's label,
// its path of labels, and finding a node by such a path.
#pragma once

#include <string>
#include <vector>

#include "classify/classifier.h"

namespace memcity::tree_nodes {

inline constexpr uint32_t kRoot = 0;
inline constexpr uint32_t kNone = ~uint32_t{0};

// "Overall" for the root, "(none)" for a one-to-many classifier's missing value, else the
// classifier's name for the key at its depth within the classifier's path of values.
template <class Node>
std::string label(const std::vector<Node>& nodes, const ClassifierChain& chain, const SymbolTable& symbols,
                  uint32_t id) {
    const Node& n = nodes[id];
    if (id == kRoot) return "Overall";
    if (n.key == kNoValueKey) return "(none)";
    size_t depth = 0;
    for (uint32_t at = n.parent; at != kNone && nodes[at].level == n.level; at = nodes[at].parent)
        ++depth;
    return chain.classifiers[n.level - 1]->pathLabel(symbols, n.key, depth);
}

// The labels from the root's child down to `id`, joined by " / ".
template <class Node, class Label>
std::string path(const std::vector<Node>& nodes, uint32_t id, const Label& label_of) {
    std::vector<uint32_t> up;
    for (uint32_t at = id; at != kRoot && at != kNone; at = nodes[at].parent)
        up.push_back(at);
    std::string s;
    for (auto it = up.rbegin(); it != up.rend(); ++it)
        s += (s.empty() ? "" : " / ") + label_of(*it);
    return s;
}

// The node at the end of a path of labels below the root, or kNone.
template <class Node, class Label>
uint32_t find(const std::vector<Node>& nodes, const std::vector<std::string>& labels, const Label& label_of) {
    uint32_t at = kRoot;
    for (const std::string& l : labels) {
        uint32_t found = kNone;
        for (uint32_t c : nodes[at].children)
            if (label_of(c) == l) {
                found = c;
                break;
            }
        if (found == kNone) return kNone;
        at = found;
    }
    return at;
}

}  // namespace memcity::tree_nodes
