#include "classify/churn.h"

#include "classify/merged_tree.h"

namespace memcity {
namespace {

// Appends the object at `pos` of `store` to `out`, as it is.
void copyObject(const ObjectStore& store, size_t pos, const ShapeTable& shapes, ObjectStore& out) {
    const uint64_t id = store.id(pos);
    const uint32_t shape = store.shape[pos];
    if (shapes[shape].size != 0) {
        out.append(id, shape, kNoLength, 0);
        return;
    }
    auto it = store.explicit_sizes.find(id);
    out.append(id, shape, store.arrayLength(pos), it == store.explicit_sizes.end() ? 0 : it->second);
}

}  // namespace

Result<HeapChurn> HeapChurn::build(const HeapHistory& history, uint32_t from, uint32_t to,
                                   const ClassifierChain& chain, const TreeOptions& options) {
    const std::string& path = history.trace().path();
    if (to >= history.gcCount()) return Error{history.gcRangeError(to)};
    if (from >= to)
        return Error{path + ": a churn window needs two GCs, --from before --to (got " +
                     std::to_string(from) + ".." + std::to_string(to) + ")"};
    if (chain.needsReferences())
        return Error{"'" + chain.spec() +
                     "' reads references, which objects that died between snapshots never had; "
                     "churn takes chains that read none"};

    const ShapeTable& shapes = history.shapes();
    const uint64_t born_from = history.watermarks()[from];
    ObjectStore died, survived;
    // From `from`'s heap on (the replay starts at the checkpoint before it), so that no death in
    // the window is missed.
    Status s = history.forEachHeap(
        from, to,
        [&](const HeapView& heap) {
            if (heap.gc() < to) return true;
            // Positions are in id order: the window's survivors are the live tail from born_from.
            for (size_t pos = heap.store().lowerBound(born_from); pos < heap.positions(); ++pos)
                if (heap.alive(pos)) copyObject(heap.store(), pos, shapes, survived);
            return false;
        },
        [&](const ObjectStore& store, size_t pos, uint32_t gc) {
            if (gc > from && gc <= to && store.id(pos) >= born_from) copyObject(store, pos, shapes, died);
        });
    if (!s) return s.error();

    HeapChurn churn;
    churn.from_ = from;
    churn.to_ = to;
    churn.duration_ns_ = history.gcs()[to].end_ns - history.gcs()[from].end_ns;
    churn.nodes_.push_back({"Overall", "", {}, {}, {}});
    const std::span<const uint64_t> watermarks(history.watermarks());
    const uint32_t alignment = history.trace().header().object_alignment;
    TreeMerger<ChurnNode> merger(churn.nodes_);
    for (auto [store, cohort] :
         {std::pair{&died, &ChurnNode::died}, std::pair{&survived, &ChurnNode::survived}}) {
        const HeapView view(*store, store->size(), to, shapes, history.trace().symbols(), alignment,
                            watermarks, store->size(), 0);
        ChurnCounts ChurnNode::*slot = cohort;  // (a lambda cannot capture a structured binding in clang 14)
        merger.merge(ClassificationTree::build(view, chain, options), [&](ChurnNode& n, const TreeNode& t) {
            (n.*slot).objects += t.objects;
            (n.*slot).bytes += t.bytes;
        });
    }
    return churn;
}

uint32_t HeapChurn::find(const std::vector<std::string>& labels) const {
    return findMergedNode(nodes_, labels);
}

std::vector<uint32_t> HeapChurn::sortedChildren(uint32_t id, Metric metric) const {
    auto value = [&](const ChurnCounts& c) { return metric == Metric::kObjects ? c.objects : c.bytes; };
    return sortedMergedChildren(nodes_, id, [&](const ChurnNode& n) {
        return std::pair{value(n.died),
                         value(n.survived)};  // equal churn (often none): larger survivors first
    });
}

}  // namespace memcity
