#include "classify/churn.h"

#include <tuple>

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

// Checks a churn window and its chain: "" when they are fine, else why not.
std::string windowError(const HeapHistory& history, uint32_t from, uint32_t to,
                        const ClassifierChain& chain) {
    if (to >= history.gcCount()) return history.gcRangeError(to);
    if (from >= to)
        return history.trace().path() + ": a churn window needs two GCs, --from before --to (got " +
               std::to_string(from) + ".." + std::to_string(to) + ")";
    if (chain.needsReferences())
        return "'" + chain.spec() +
               "' reads references, which objects that died between snapshots never had; churn takes chains "
               "that read none";
    return "";
}

// The window's deaths of objects born in it, in the order they died (ends[k]: how many died by
// GC from + 1 + k), and, when `survived` is given, the objects born in it alive at GC `to`.
Status windowDeaths(const HeapHistory& history, uint32_t from, uint32_t to, ObjectStore& died,
                    std::vector<size_t>& ends, ObjectStore* survived) {
    const ShapeTable& shapes = history.shapes();
    const uint64_t born_from = history.watermarks()[from];
    ends.assign(to - from, 0);
    // From `from`'s heap on (the replay starts at the checkpoint before it), so that no death in
    // the window is missed.
    Status s = history.forEachHeap(
        from, to,
        [&](const HeapView& heap) {
            if (heap.gc() > from) ends[heap.gc() - from - 1] = died.size();
            if (heap.gc() < to) return true;
            // Positions are in id order: the window's survivors are the live tail from born_from.
            if (survived)
                for (size_t pos = heap.store().lowerBound(born_from); pos < heap.positions(); ++pos)
                    if (heap.alive(pos)) copyObject(heap.store(), pos, shapes, *survived);
            return false;
        },
        [&](const ObjectStore& store, size_t pos, uint32_t gc) {
            if (gc > from && gc <= to && store.id(pos) >= born_from) copyObject(store, pos, shapes, died);
        });
    return s;
}

// A heap of the objects [0, end) of `store` (no references) at GC `gc`.
HeapView storeView(const HeapHistory& history, const ObjectStore& store, size_t end, uint32_t gc) {
    return HeapView(store, end, gc, history.shapes(), history.trace().symbols(),
                    history.trace().header().object_alignment, history.watermarks(), end, 0,
                    history.sampling());
}

}  // namespace

Result<TreeSeries> churnSeries(const HeapHistory& history, uint32_t from, uint32_t to,
                               const ClassifierChain& chain, const SeriesOptions& options) {
    if (std::string e = windowError(history, from, to, chain); !e.empty()) return Error{e};
    ObjectStore died;
    std::vector<size_t> ends;
    if (Status s = windowDeaths(history, from, to, died, ends, nullptr); !s) return s.error();
    SeriesOptions o = options;
    o.from = from + 1;
    o.to = to;
    // The store is in the order objects died, not by id: every column is counted whole.
    o.incremental = false;
    o.lossless_path.reset();
    o.before_heap = nullptr;
    o.include_gc = nullptr;
    o.prepare_heap = nullptr;
    TreeSeriesBuilder builder(history.trace().symbols(), chain, o);
    for (uint32_t g = from + 1; g <= to; ++g)
        if (Status s = builder.add(storeView(history, died, ends[g - from - 1], g)); !s) return s.error();
    return builder.take();
}

Result<HeapChurn> HeapChurn::build(const HeapHistory& history, uint32_t from, uint32_t to,
                                   const ClassifierChain& chain, const TreeOptions& options) {
    if (std::string e = windowError(history, from, to, chain); !e.empty()) return Error{e};
    ObjectStore died, survived;
    std::vector<size_t> ends;
    if (Status s = windowDeaths(history, from, to, died, ends, &survived); !s) return s.error();

    HeapChurn churn;
    churn.from_ = from;
    churn.to_ = to;
    churn.duration_ns_ = history.gcs()[to].end_ns - history.gcs()[from].end_ns;
    churn.sampled_ = history.sampled();
    churn.nodes_.push_back({"Overall", "", 0, {}, {}, {}, {}, {}});
    TreeMerger<ChurnNode> merger(churn.nodes_);
    for (auto [store, cohort, sums] :
         {std::tuple{&died, &ChurnNode::died, &ChurnNode::died_sampled},
          std::tuple{&survived, &ChurnNode::survived, &ChurnNode::survived_sampled}}) {
        const HeapView view = storeView(history, *store, store->size(), to);
        // (A lambda cannot capture a structured binding in clang 14.)
        ChurnCounts ChurnNode::*slot = cohort;
        SampleSums ChurnNode::*sampled = sums;
        merger.merge(ClassificationTree::build(view, chain, options), [&](ChurnNode& n, const TreeNode& t) {
            (n.*slot).objects += t.objects;
            (n.*slot).bytes += t.bytes;
            n.*sampled += t.sampled;
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
