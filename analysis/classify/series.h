// Tree series (STAG20 §5): the classification trees of every GC in a window, merged
// into one *meta tree* that holds every node ever seen, with per-GC objects and bytes per node.
//
// A meta node is (parent meta node, level, key): the same group keeps the same id at every GC,
// also when it vanishes and comes back. Each GC stores a column of (objects, bytes) per meta
// node; nodes created after that GC, and nodes with no objects at it, read 0. A column is dense
// (one entry per node that existed at that GC) or, when few nodes have objects, sparse.
//
// Sort strategies (start size, end size, absolute growth) fix one order of every node's children
// for the whole series, so that a layout keeps its nodes in place while time moves (§5.1,
// "relative position animation"). Pruning keeps a prefix of that order (see prunedChildren).
//
// One forward pass over the GCs builds the series. When every classifier and filter reads only
// the object's shape, each shape is classified once for the whole series and the live objects
// are counted per shape, incrementally (ShapeCounter: only the epochs that lost objects are
// counted again); otherwise each heap is classified by ClassificationTree and merged in.
#pragma once

#include <cstdint>
#include <functional>
#include <memory>
#include <optional>
#include <span>
#include <string>
#include <string_view>
#include <vector>

#include "classify/classifier.h"
#include "classify/tree.h"
#include "heap/heap_history.h"
#include "heap/sizes.h"
#include "util/progress.h"
#include "util/result.h"

namespace memcity {

enum class SortStrategy : uint8_t {
    kStartSize,  // by the value at the first GC of the series, largest first
    kEndSize,    // by the value at the last GC, largest first
    kGrowth,     // by absolute growth (last minus first), largest first; shrinking nodes last
};

// "start", "end" or "growth", and back (nothing for another name).
std::string_view sortStrategyName(SortStrategy sort);
std::optional<SortStrategy> parseSortStrategy(std::string_view name);

using SeriesCounts = Sizes;

struct SeriesNode {
    uint32_t parent = kNoNode;
    uint32_t level = 0;  // 0: the root; otherwise 1 + the index of the classifier that made it
    uint32_t depth = 0;  // edges from the root (a one-to-hierarchy classifier adds several)
    Key key = 0;
    uint32_t first_gc = 0;           // the first GC at which the node held objects
    std::vector<uint32_t> children;  // in order of first appearance (sortedChildren orders them)
};

struct SeriesOptions {
    static constexpr uint32_t kLastGc = UINT32_MAX;
    uint32_t from = 0;        // first GC of the series
    uint32_t to = kLastGc;    // last GC of the series (kLastGc: the trace's last)
    unsigned threads = 1;     // threads that count the objects of a heap
    bool incremental = true;  // shape-only chains: count again only the epochs that lost objects
    // Lossless mode: the node at this path of labels below the root (empty: the root) keeps the
    // ids of its objects at every GC (selectedIds). Costs about 1-2 bytes per object and GC.
    std::optional<std::vector<std::string>> lossless_path;
    // Called with every heap before it is classified: the place to attach what classifiers of
    // that heap read besides the heap (a reference snapshot). An error stops the build with it.
    std::function<Status(const HeapView&)> before_heap;
    // Which GCs of the window to classify (default: every one). A series whose classifiers read
    // references takes the GCs with a reference snapshot.
    std::function<bool(uint32_t gc)> include_gc;
    // The view to classify instead of the replayed one (a compacted heap with its references
    // attached); it must stay valid until the next call. An error stops the build with it.
    std::function<Result<HeapView>(const HeapView&)> prepare_heap;
    // Told after each GC is counted (ProgressReport::position: that GC; total: `to`); a cancel
    // stops the build with an error. A callable told the GC, false to stop, converts to one.
    Progress progress;
};

// The children a display shows for one node over the whole series, and those folded into
// "Other" (the same at every GC).
struct SeriesPrunedChildren {
    std::vector<uint32_t> shown;   // in the sort order
    std::vector<uint32_t> folded;  // in the sort order
};

class TreeSeries {
public:
    // Classifies the live objects of every GC in [options.from, options.to] (those that pass the
    // chain's filters) in one forward pass over the history. Errors: an empty or out-of-range
    // window, a failing before_heap, a cancelled build, a replay failure.
    // Contract: `history` (with its trace's symbols) and `chain` outlive the series.
    static Result<TreeSeries> build(const HeapHistory& history, const ClassifierChain& chain,
                                    const SeriesOptions& options = {});

    static constexpr uint32_t kRoot = 0;
    size_t size() const { return nodes_.size(); }  // meta nodes, the root included
    const SeriesNode& node(uint32_t id) const { return nodes_[id]; }
    const SeriesNode& root() const { return nodes_[kRoot]; }
    uint32_t firstGc() const { return gcs_.empty() ? 0 : gcs_.front(); }
    uint32_t lastGc() const { return gcs_.empty() ? 0 : gcs_.back(); }
    size_t gcCount() const { return gcs_.size(); }
    // The GCs the series holds, ascending: every GC of the window unless include_gc chose.
    const std::vector<uint32_t>& gcs() const { return gcs_; }

    // "Overall" for the root, "(none)" for a one-to-many classifier's no-value node, else the
    // classifier's name for the key.
    std::string label(uint32_t id) const;
    // Labels from the root's child down, joined by " / ".
    std::string path(uint32_t id) const;
    // The node at the end of a path of labels below the root, or kNoNode.
    uint32_t find(const std::vector<std::string>& labels) const;
    // The name of the classifier that made the node's level ("" for the root).
    std::string classifierSpec(uint32_t id) const;

    // The node's objects and bytes at GC `gc`; zero when it had none or `gc` is outside the series.
    SeriesCounts counts(uint32_t id, uint32_t gc) const;
    uint64_t value(uint32_t id, uint32_t gc, Metric metric) const;
    // The value at fractional GC time `t` (clamped to the series), linear between two GCs: the
    // value a tween shows at t = 3.25 is a quarter of the way from GC 3's to GC 4's.
    double valueAt(uint32_t id, double t, Metric metric) const;
    // One value per GC of the series.
    std::vector<uint64_t> values(uint32_t id, Metric metric) const;
    // Last minus first.
    int64_t growth(uint32_t id, Metric metric) const;
    // Sums over several nodes (an "Other" group): may count an object more than once under a
    // one-to-many classifier.
    uint64_t sum(std::span<const uint32_t> ids, uint32_t gc, Metric metric) const;
    double sumAt(std::span<const uint32_t> ids, double t, Metric metric) const;
    // Every node's counts at the GC with index `index` of gcs() (contract: index < gcCount()):
    // calls f(uint32_t id, const SeriesCounts&) in ascending id order, for every node of a dense
    // column (zeros included) or only the nodes holding objects of a sparse one. The way to read
    // whole columns fast (a layout reads every node at every GC; counts() searches per call).
    template <class F>
    void forEachCount(size_t index, F&& f) const {
        const Column& c = columns_[index];
        if (c.dense) {
            for (uint32_t id = 0; id < c.nodes; ++id)
                f(id, c.values[id]);
        } else {
            for (size_t i = 0; i < c.ids.size(); ++i)
                f(c.ids[i], c.values[i]);
        }
    }
    // Objects left out by the chain's filters at GC `gc`.
    SeriesCounts filtered(uint32_t gc) const;

    // Built from a sampled trace's heaps: every count above is an estimate (heap/sampling.h), and
    // these are the sums behind a node's at a GC (its samples, its variance); empty otherwise.
    bool sampled() const { return sampled_; }
    SampleSums sampledCounts(uint32_t id, uint32_t gc) const;
    // The same over several nodes (an "Other" group).
    SampleSums sampledSum(std::span<const uint32_t> ids, uint32_t gc) const;

    // Children in the strategy's order, the same for the whole series. Ties: by the value at the
    // last GC, then at the first, then by label.
    std::vector<uint32_t> sortedChildren(uint32_t id, SortStrategy strategy, Metric metric) const;
    // The shortest prefix of sortedChildren that holds `share` of the node's value at every GC of
    // the series at which the node holds anything, at most `max_children` long (at least one
    // child); the rest is "Other". Keeping a prefix of the sort order, not the largest children
    // of each GC, keeps the shown nodes fixed while time moves (§5.1, "tree pruning revisited");
    // asking for the share at every GC means no GC hides more than 1 - share in "Other" unless
    // the cap is reached.
    SeriesPrunedChildren prunedChildren(uint32_t id, SortStrategy strategy, Metric metric,
                                        const PruneOptions& options = {}) const;

    // Lossless mode: the node whose objects were kept (kNoNode when off, or when no object ever
    // reached the path), and the ids of its objects at GC `gc`, ascending (empty outside the series).
    bool lossless() const { return lossless_; }
    uint32_t selectedNode() const { return selected_; }
    std::vector<uint64_t> selectedIds(uint32_t gc) const;
    // Ids held by the selected node at both GCs (permanent objects between them).
    std::vector<uint64_t> commonIds(uint32_t gc_a, uint32_t gc_b) const;

    // Bytes the series holds (nodes, columns, kept ids).
    size_t memoryBytes() const;
    // How it was counted: per shape (every classifier and filter read only the shape) or per heap.
    bool countedPerShape() const { return per_shape_; }

private:
    friend class SeriesBuilder;
    friend class TreeSeriesBuilder;

    // One GC's (objects, bytes) per node: dense (values[id] for id < nodes) or sparse (values[i]
    // for ids[i], ascending).
    struct Column {
        uint32_t nodes = 0;
        bool dense = true;
        std::vector<uint32_t> ids;
        std::vector<SeriesCounts> values;
        std::vector<SampleSums> sampled;  // a sampled series': per value, its sums
    };
    const Column* column(uint32_t gc) const;
    // The index of `gc` in gcs_, or gcs_.size() when the series does not hold it.
    size_t indexOf(uint32_t gc) const;

    std::vector<SeriesNode> nodes_;
    std::vector<Column> columns_;  // one per GC of gcs_
    std::vector<uint32_t> gcs_;
    std::vector<SeriesCounts> filtered_;
    const ClassifierChain* chain_ = nullptr;
    const SymbolTable* symbols_ = nullptr;
    uint32_t from_ = 0;
    bool per_shape_ = false;
    bool sampled_ = false;
    bool lossless_ = false;
    uint32_t selected_ = kNoNode;
    std::vector<std::vector<uint8_t>> ids_;  // per GC: ascending ids as varint deltas
};

class SeriesBuilder;

// Builds a series one heap at a time from heaps the caller hands in, in ascending GC order: the
// explorer feeds it the heaps of a history that is still being rebuilt (HistoryOptions::on_heap)
// and shows the series so far. TreeSeries::build is this over HeapHistory::forEachHeap.
// Contract: `symbols` and `chain` outlive the builder and the series it makes; with
// options.incremental the heaps must come from a history without late or duplicate allocations
// (known only once it is built: rebuild with TreeSeries::build when it has some).
class TreeSeriesBuilder {
public:
    TreeSeriesBuilder(const SymbolTable& symbols, const ClassifierChain& chain, SeriesOptions options);
    ~TreeSeriesBuilder();
    TreeSeriesBuilder(const TreeSeriesBuilder&) = delete;
    TreeSeriesBuilder& operator=(const TreeSeriesBuilder&) = delete;

    // Classifies the heap of the next GC into a column (nothing for a GC outside options.from..to
    // or one include_gc leaves out). Errors: a GC not after the last one added, a failing
    // before_heap or prepare_heap, a cancelled build (options.progress); the builder is then spent.
    Status add(const HeapView& heap);
    // The series so far (every GC added).
    const TreeSeries& series() const { return series_; }
    // Hands the series over; the builder is spent.
    TreeSeries take() { return std::move(series_); }

private:
    SeriesOptions options_;
    TreeSeries series_;
    std::unique_ptr<SeriesBuilder> builder_;
    std::optional<Error> failed_;
};

// The tree series of `chain` over options.from..to: over every GC of the window, or, when the
// chain reads references, over the GCs with a reference snapshot, each heap compacted with its
// references attached. Errors: those of TreeSeries::build, and a chain that reads references
// over a window without a snapshot ("the chain reads references, and none of GCs 3..9 has a
// reference snapshot"). options.include_gc and prepare_heap are this function's. It reads each
// snapshot's reference graph (graph/heap_graph.h), so it sits here above graph/, which
// includes nothing of classify/series.h.
Result<TreeSeries> buildWindowSeries(const HeapHistory& h, const ClassifierChain& chain,
                                     SeriesOptions options);

}  // namespace memcity
