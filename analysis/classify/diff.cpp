#include "classify/diff.h"

#include "classify/merged_tree.h"
#include "graph/heap_graph.h"

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
    diff.sampled_ = a.sampled();
    diff.nodes_.push_back({"Overall", "", {}, {}, {}, {}, {}, {}, {}});
    const std::vector<uint8_t> a_in_b = alsoIn(a, b), b_in_a = alsoIn(b, a);

    TreeMerger<DiffNode> merger(diff.nodes_);
    auto merge = [&](const HeapView& heap, const std::vector<uint8_t>& marks, uint8_t want,
                     DiffCounts DiffNode::*slot, SampleSums DiffNode::*sampled) {
        MarkFilter filter(marks, want);
        TreeOptions o = options;
        o.extra_filter = &filter;
        merger.merge(ClassificationTree::build(heap, chain, o), [&](DiffNode& d, const TreeNode& n) {
            (d.*slot).objects += n.objects;
            (d.*slot).bytes += n.bytes;
            d.*sampled += n.sampled;
        });
    };
    merge(b, b_in_a, 0, &DiffNode::born, &DiffNode::born_sampled);
    merge(a, a_in_b, 0, &DiffNode::died, &DiffNode::died_sampled);
    merge(b, b_in_a, 1, &DiffNode::permanent, &DiffNode::permanent_sampled);
    return diff;
}

Result<HeapDiff> HeapDiff::between(const HeapHistory& history, uint32_t a, uint32_t b,
                                   const ClassifierChain& chain, const TreeOptions& options) {
    auto heap_a = history.heapAt(a);
    if (!heap_a) return heap_a.error();
    auto heap_b = history.heapAt(b);
    if (!heap_b) return heap_b.error();
    // Born and permanent objects are classified with b's references, the dead with a's.
    std::unique_ptr<HeapGraph> graph_a, graph_b;
    if (chain.needsReferences()) {
        for (auto [state, graph] : {std::pair{&*heap_a, &graph_a}, std::pair{&*heap_b, &graph_b}}) {
            auto g = loadGraph(history, *state);
            if (!g) return g.error();
            *graph = std::move(*g);
        }
    }
    return build(heap_a->view().withGraph(graph_a.get()), heap_b->view().withGraph(graph_b.get()), chain,
                 options);
}

uint32_t HeapDiff::find(const std::vector<std::string>& labels) const {
    return findMergedNode(nodes_, labels);
}

std::vector<uint32_t> HeapDiff::sortedChildren(uint32_t id, Metric metric) const {
    return sortedMergedChildren(nodes_, id, [&](const DiffNode& d) {
        return metric == Metric::kObjects ? d.born.objects + d.died.objects + d.permanent.objects
                                          : d.born.bytes + d.died.bytes + d.permanent.bytes;
    });
}

}  // namespace memcity
