#include "classify/diff.h"

#include <algorithm>
#include <map>

namespace memcity {
namespace {

// Objects whose mark is `want`: the born, dead or permanent ones of a diff.
class MarkFilter final : public Filter {
public:
    MarkFilter(const std::vector<uint8_t>& marks, uint8_t want) : marks_(marks), want_(want) {}
    std::string spec() const override { return "(diff)"; }
    bool shapeOnly() const override { return false; }
    bool accept(const HeapView&, size_t pos) const override { return marks_[pos] == want_; }

private:
    const std::vector<uint8_t>& marks_;
    uint8_t want_;
};

// Marks each live position of `a` with 1 when its object is also live in `b` (both are in id order).
std::vector<uint8_t> alsoIn(const HeapView& a, const HeapView& b) {
    std::vector<uint8_t> marks(a.positions(), 0);
    size_t j = 0;
    for (size_t i = 0; i < a.positions(); ++i) {
        if (!a.alive(i)) continue;
        const uint64_t id = a.id(i);
        while (j < b.positions() && (b.id(j) < id || !b.alive(j)))
            ++j;
        if (j < b.positions() && b.id(j) == id) marks[i] = 1;
    }
    return marks;
}

}  // namespace

HeapDiff HeapDiff::build(const HeapView& a, const HeapView& b, const ClassifierChain& chain,
                         const TreeOptions& options) {
    HeapDiff diff;
    diff.from_ = a.gc();
    diff.to_ = b.gc();
    diff.nodes_.push_back({"Overall", "", {}, {}, {}, {}});
    const std::vector<uint8_t> a_in_b = alsoIn(a, b), b_in_a = alsoIn(b, a);

    // (parent, label) -> node, so the three trees meet where their labels do.
    std::map<std::pair<uint32_t, std::string>, uint32_t> index;
    auto merge = [&](const HeapView& heap, const std::vector<uint8_t>& marks, uint8_t want,
                     DiffCounts DiffNode::*slot) {
        MarkFilter filter(marks, want);
        TreeOptions o = options;
        o.extra_filter = &filter;
        const ClassificationTree tree = ClassificationTree::build(heap, chain, o);
        // Depth first, with the diff node each tree node lands in.
        std::vector<std::pair<uint32_t, uint32_t>> stack{{ClassificationTree::kRoot, kRoot}};
        while (!stack.empty()) {
            auto [t, d] = stack.back();
            stack.pop_back();
            const TreeNode& n = tree.node(t);
            (diff.nodes_[d].*slot).objects += n.objects;
            (diff.nodes_[d].*slot).bytes += n.bytes;
            for (uint32_t c : n.children) {
                const std::string label = tree.label(c);
                auto [it, added] = index.try_emplace({d, label}, static_cast<uint32_t>(diff.nodes_.size()));
                if (added) {
                    diff.nodes_.push_back({label, tree.classifierSpec(c), {}, {}, {}, {}});
                    diff.nodes_[d].children.push_back(it->second);
                }
                stack.emplace_back(c, it->second);
            }
        }
    };
    merge(b, b_in_a, 0, &DiffNode::born);
    merge(a, a_in_b, 0, &DiffNode::died);
    merge(b, b_in_a, 1, &DiffNode::permanent);
    return diff;
}

uint32_t HeapDiff::find(const std::vector<std::string>& labels) const {
    uint32_t at = kRoot;
    for (const std::string& l : labels) {
        const auto& kids = nodes_[at].children;
        auto it = std::find_if(kids.begin(), kids.end(), [&](uint32_t c) { return nodes_[c].label == l; });
        if (it == kids.end()) return kNoNode;
        at = *it;
    }
    return at;
}

std::vector<uint32_t> HeapDiff::sortedChildren(uint32_t id, Metric metric) const {
    std::vector<uint32_t> kids = nodes_[id].children;
    auto total = [&](uint32_t n) {
        const DiffNode& d = nodes_[n];
        return metric == Metric::kObjects ? d.born.objects + d.died.objects + d.permanent.objects
                                          : d.born.bytes + d.died.bytes + d.permanent.bytes;
    };
    std::stable_sort(kids.begin(), kids.end(), [&](uint32_t x, uint32_t y) {
        if (total(x) != total(y)) return total(x) > total(y);
        return nodes_[x].label < nodes_[y].label;
    });
    return kids;
}

}  // namespace memcity
