#include "classify/series.h"

#include <algorithm>
#include <cmath>
#include <iterator>
#include <unordered_map>

#include "classify/shape_counter.h"
#include "classify/tree_nodes.h"
#include "graph/heap_graph.h"

namespace memcity {
namespace {

struct ChildKey {
    uint32_t parent;
    uint32_t level;
    Key key;
    bool operator==(const ChildKey&) const = default;
};

struct ChildKeyHash {
    size_t operator()(const ChildKey& k) const {
        uint64_t h = (k.key ^ (uint64_t{k.parent} << 32 | k.level)) * 0x9e3779b97f4a7c15ull;
        return static_cast<size_t>(h ^ (h >> 31) ^ k.parent);
    }
};

void putVarint(std::vector<uint8_t>& out, uint64_t v) {
    while (v >= 0x80) {
        out.push_back(static_cast<uint8_t>(v | 0x80));
        v >>= 7;
    }
    out.push_back(static_cast<uint8_t>(v));
}

std::vector<uint8_t> encodeIds(const std::vector<uint64_t>& ids) {
    std::vector<uint8_t> out;
    out.reserve(ids.size() * 2);
    uint64_t last = 0;
    for (uint64_t id : ids) {
        putVarint(out, id - last);
        last = id;
    }
    out.shrink_to_fit();
    return out;
}

}  // namespace

std::string_view sortStrategyName(SortStrategy sort) {
    switch (sort) {
        case SortStrategy::kStartSize: return "start";
        case SortStrategy::kEndSize: return "end";
        case SortStrategy::kGrowth: return "growth";
    }
    return "growth";
}

std::optional<SortStrategy> parseSortStrategy(std::string_view name) {
    for (SortStrategy s : {SortStrategy::kStartSize, SortStrategy::kEndSize, SortStrategy::kGrowth})
        if (name == sortStrategyName(s)) return s;
    return std::nullopt;
}

// The forward pass that fills a TreeSeries (see series.h for the two ways of counting).
class SeriesBuilder {
public:
    SeriesBuilder(TreeSeries& series, const ClassifierChain& chain, const SeriesOptions& options,
                  bool incremental)
        : s_(series), chain_(chain), options_(options), counter_({options.threads, incremental}) {
        s_.nodes_.emplace_back();
        s_.nodes_[TreeSeries::kRoot].first_gc = options.from;
        work_.resize(1);
        if (options.lossless_path) {
            s_.lossless_ = true;
            path_ = *options.lossless_path;
            on_path_.push_back(1);
            if (path_.empty()) s_.selected_ = TreeSeries::kRoot;
        } else {
            on_path_.push_back(0);
        }
    }

    // Classifies one heap into the next column. False (with `error`) stops the pass.
    bool onHeap(const HeapView& replayed) {
        if (options_.include_gc && !options_.include_gc(replayed.gc())) return true;
        if (options_.before_heap) {
            if (Status st = options_.before_heap(replayed); !st) {
                error_ = st.error();
                return false;
            }
        }
        std::optional<HeapView> prepared;
        if (options_.prepare_heap) {
            auto v = options_.prepare_heap(replayed);
            if (!v) {
                error_ = v.error();
                return false;
            }
            prepared.emplace(*v);
        }
        const HeapView& heap = prepared ? *prepared : replayed;
        // A sampled heap's groups are estimates: each heap is classified with its samples'
        // weights (ClassificationTree), not counted per shape (a sampled heap is small).
        if (s_.gcs_.empty() && heap.sampled()) {
            s_.sampled_ = true;
            s_.per_shape_ = false;
        }
        gc_ = heap.gc();
        s_.gcs_.push_back(gc_);
        std::vector<uint64_t> ids;
        if (s_.per_shape_)
            countPerShape(heap, &ids);
        else
            countPerHeap(heap, &ids);
        finishColumn();
        if (s_.lossless_) s_.ids_.push_back(encodeIds(ids));
        const uint32_t from = options_.from, to = options_.to;
        const double fraction = to != SeriesOptions::kLastGc && to >= gc_ && gc_ >= from
                                    ? static_cast<double>(gc_ - from + 1) / static_cast<double>(to - from + 1)
                                    : 0.0;
        if (!options_.progress.report({.fraction = fraction, .position = gc_, .total = to})) {
            error_ = Error{"the tree series was cancelled at GC " + std::to_string(gc_)};
            return false;
        }
        return true;
    }

    const std::optional<Error>& error() const { return error_; }
    size_t counterMemory() const { return counter_.memoryBytes(); }

private:
    static constexpr uint8_t kUnclassified = 0, kAccepted = 1, kFilteredOut = 2;
    struct ShapeInfo {
        uint32_t begin = 0, count = 0;  // its nodes in shape_nodes_
        uint8_t state = kUnclassified;
    };

    // The child of `parent` for (level, key), made on first sight.
    uint32_t child(uint32_t parent, uint32_t level, Key key) {
        auto [it, added] = index_.try_emplace({parent, level, key}, static_cast<uint32_t>(s_.nodes_.size()));
        if (!added) return it->second;
        const uint32_t id = it->second;
        SeriesNode n;
        n.parent = parent;
        n.level = level;
        n.depth = s_.nodes_[parent].depth + 1;
        n.key = key;
        n.first_gc = gc_;
        s_.nodes_.push_back(std::move(n));
        s_.nodes_[parent].children.push_back(id);
        work_.emplace_back();
        if (s_.sampled_) work_sampled_.emplace_back();
        // Lossless mode: is the new node on the selected path?
        const uint32_t d = s_.nodes_[parent].depth;
        const bool on = on_path_[parent] && d < path_.size() && s_.label(id) == path_[d];
        on_path_.push_back(on ? 1 : 0);
        if (on && d + 1 == path_.size()) selectSelected(id);
        return id;
    }

    void selectSelected(uint32_t id) {
        s_.selected_ = id;
        selected_path_.clear();
        for (uint32_t at = id; at != TreeSeries::kRoot; at = s_.nodes_[at].parent)
            selected_path_.push_back(at);
        std::reverse(selected_path_.begin(), selected_path_.end());
    }

    void add(uint32_t id, uint64_t objects, uint64_t bytes) {
        SeriesCounts& c = work_[id];
        if (c.objects == 0 && c.bytes == 0) touched_.push_back(id);
        c.objects += objects;
        c.bytes += bytes;
    }

    // The nodes one object reaches (each once), made as needed: the walk of ClassificationTree.
    void reach(const HeapView& heap, size_t pos, std::vector<uint32_t>& reached) {
        current_.assign(1, TreeSeries::kRoot);
        reached.assign(1, TreeSeries::kRoot);
        for (size_t level = 0; level < chain_.classifiers.size(); ++level) {
            const Classifier& c = *chain_.classifiers[level];
            keys_.clear();
            c.classify(heap, pos, keys_);
            if (keys_.empty()) keys_.push_back(kNoValueKey);
            const auto lvl = static_cast<uint32_t>(level + 1);
            next_.clear();
            for (uint32_t node : current_) {
                if (c.cardinality() == Cardinality::kHierarchy) {
                    uint32_t at = node;
                    for (Key k : keys_) {
                        at = child(at, lvl, k);
                        reached.push_back(at);
                    }
                    next_.push_back(at);
                } else {
                    for (Key k : keys_) {
                        const uint32_t at = child(node, lvl, k);
                        reached.push_back(at);
                        next_.push_back(at);
                    }
                }
            }
            std::sort(next_.begin(), next_.end());
            next_.erase(std::unique(next_.begin(), next_.end()), next_.end());
            current_.swap(next_);
        }
        std::sort(reached.begin(), reached.end());
        reached.erase(std::unique(reached.begin(), reached.end()), reached.end());
    }

    // Whether an object passes the filters and reaches the selected node (without making nodes).
    bool reachesSelected(const HeapView& heap, size_t pos) {
        for (const auto& f : chain_.filters)
            if (!f->accept(heap, pos)) return false;
        size_t p = 0;  // nodes of the selected path matched so far
        for (size_t level = 0; level < chain_.classifiers.size() && p < selected_path_.size(); ++level) {
            const Classifier& c = *chain_.classifiers[level];
            const auto lvl = static_cast<uint32_t>(level + 1);
            keys_.clear();
            c.classify(heap, pos, keys_);
            if (keys_.empty()) keys_.push_back(kNoValueKey);
            if (c.cardinality() == Cardinality::kHierarchy) {
                for (Key k : keys_) {
                    if (p == selected_path_.size()) break;
                    const SeriesNode& n = s_.nodes_[selected_path_[p]];
                    if (n.level != lvl || n.key != k) return false;
                    ++p;
                }
            } else {
                const SeriesNode& n = s_.nodes_[selected_path_[p]];
                if (n.level != lvl || std::find(keys_.begin(), keys_.end(), n.key) == keys_.end())
                    return false;
                ++p;
            }
        }
        return p == selected_path_.size();
    }

    // Every classifier and filter reads only the shape: each shape is classified once, on its
    // first live object, and the live objects are counted per shape.
    void countPerShape(const HeapView& heap, std::vector<uint64_t>* ids) {
        counter_.update(heap);
        const std::vector<ShapeCount>& totals = counter_.counts();
        shapes_.resize(totals.size());
        marks_.resize(totals.size(), 0);
        SeriesCounts filtered;
        for (uint32_t sh = 0; sh < totals.size(); ++sh) {
            const ShapeCount& t = totals[sh];
            if (t.objects == 0) continue;
            if (shapes_[sh].state == kUnclassified) classifyShape(heap, sh);
            const ShapeInfo& info = shapes_[sh];
            if (info.state == kFilteredOut) {
                filtered.objects += t.objects;
                filtered.bytes += t.bytes;
                continue;
            }
            for (uint32_t i = info.begin; i < info.begin + info.count; ++i)
                add(shape_nodes_[i], t.objects, t.bytes);
        }
        s_.filtered_.push_back(filtered);
        if (s_.lossless_ && s_.selected_ != kNoNode) *ids = counter_.collectIds(heap, marks_);
    }

    void classifyShape(const HeapView& heap, uint32_t sh) {
        size_t pos = counter_.representative(sh);
        if (pos == SIZE_MAX) {  // not expected (see ShapeCounter::representative): look for one
            for (pos = 0; pos < heap.positions() && heap.shapeId(pos) != sh; ++pos) {
            }
        }
        ShapeInfo& info = shapes_[sh];
        info.state = kAccepted;
        for (const auto& f : chain_.filters)
            if (!f->accept(heap, pos)) info.state = kFilteredOut;
        if (info.state == kFilteredOut) return;
        reach(heap, pos, reached_);
        info.begin = static_cast<uint32_t>(shape_nodes_.size());
        info.count = static_cast<uint32_t>(reached_.size());
        shape_nodes_.insert(shape_nodes_.end(), reached_.begin(), reached_.end());
        if (s_.selected_ != kNoNode && std::binary_search(reached_.begin(), reached_.end(), s_.selected_))
            marks_[sh] = 1;
    }

    // Some classifier or filter reads more than the shape: the heap is classified on its own
    // (ClassificationTree counts it per signature) and its tree merged into the meta tree.
    void countPerHeap(const HeapView& heap, std::vector<uint64_t>* ids) {
        TreeOptions to;
        to.threads = options_.threads;
        const ClassificationTree tree = ClassificationTree::build(heap, chain_, to);
        meta_.resize(tree.size());
        meta_[0] = TreeSeries::kRoot;
        if (s_.sampled_) work_sampled_.resize(work_.size());
        add(TreeSeries::kRoot, tree.root().objects, tree.root().bytes);
        if (s_.sampled_) work_sampled_[TreeSeries::kRoot] += tree.root().sampled;
        for (uint32_t i = 1; i < tree.size(); ++i) {
            const TreeNode& n = tree.node(i);
            meta_[i] = child(meta_[n.parent], n.level, n.key);
            add(meta_[i], n.objects, n.bytes);
            if (s_.sampled_) work_sampled_[meta_[i]] += n.sampled;
        }
        s_.filtered_.push_back({tree.filteredObjects(), tree.filteredBytes()});
        if (!s_.lossless_ || s_.selected_ == kNoNode) return;
        if (s_.selected_ == TreeSeries::kRoot && chain_.filters.empty()) {
            heap.forEachLive([&](size_t pos) { ids->push_back(heap.id(pos)); });
            return;
        }
        heap.forEachLive([&](size_t pos) {
            if (reachesSelected(heap, pos)) ids->push_back(heap.id(pos));
        });
    }

    // Moves the counts of this GC into a column, dense or sparse, whichever is smaller.
    void finishColumn() {
        TreeSeries::Column col;
        col.nodes = static_cast<uint32_t>(s_.nodes_.size());
        std::sort(touched_.begin(), touched_.end());
        const size_t sparse_bytes = touched_.size() * (sizeof(uint32_t) + sizeof(SeriesCounts));
        if (sparse_bytes < size_t{col.nodes} * sizeof(SeriesCounts)) {
            col.dense = false;
            col.ids = touched_;
            col.values.reserve(touched_.size());
            for (uint32_t id : touched_)
                col.values.push_back(work_[id]);
            if (s_.sampled_)
                for (uint32_t id : touched_)
                    col.sampled.push_back(work_sampled_[id]);
        } else {
            col.values.assign(col.nodes, SeriesCounts{});
            for (uint32_t id : touched_)
                col.values[id] = work_[id];
            if (s_.sampled_) {
                col.sampled.assign(col.nodes, SampleSums{});
                for (uint32_t id : touched_)
                    col.sampled[id] = work_sampled_[id];
            }
        }
        for (uint32_t id : touched_)
            work_[id] = {};
        if (s_.sampled_)
            for (uint32_t id : touched_)
                work_sampled_[id] = {};
        touched_.clear();
        s_.columns_.push_back(std::move(col));
    }

    TreeSeries& s_;
    const ClassifierChain& chain_;
    const SeriesOptions& options_;
    uint32_t gc_ = 0;
    std::optional<Error> error_;
    std::unordered_map<ChildKey, uint32_t, ChildKeyHash> index_;
    std::vector<SeriesCounts> work_;        // this GC's counts per node
    std::vector<SampleSums> work_sampled_;  // a sampled series': their sums
    std::vector<uint32_t> touched_;         // nodes with counts in work_
    // Lossless mode.
    std::vector<std::string> path_;
    std::vector<uint8_t> on_path_;         // per node: its labels match the path's
    std::vector<uint32_t> selected_path_;  // the selected node and its ancestors, root excluded
    // Per-shape counting.
    ShapeCounter counter_;
    std::vector<ShapeInfo> shapes_;
    std::vector<uint32_t> shape_nodes_;
    std::vector<uint8_t> marks_;  // per shape: reaches the selected node
    // Per-heap counting.
    std::vector<uint32_t> meta_;  // tree node -> meta node
    // Scratch.
    std::vector<uint32_t> current_, next_, reached_;
    std::vector<Key> keys_;
};

TreeSeriesBuilder::TreeSeriesBuilder(const SymbolTable& symbols, const ClassifierChain& chain,
                                     SeriesOptions options)
    : options_(std::move(options)) {
    series_.chain_ = &chain;
    series_.symbols_ = &symbols;
    series_.from_ = options_.from;
    series_.per_shape_ = chain.shapeOnly();
    builder_ = std::make_unique<SeriesBuilder>(series_, chain, options_, options_.incremental);
}

TreeSeriesBuilder::~TreeSeriesBuilder() = default;

Status TreeSeriesBuilder::add(const HeapView& heap) {
    if (failed_) return *failed_;
    const uint32_t gc = heap.gc();
    if (gc < options_.from || gc > options_.to) return {};
    if (!series_.gcs_.empty() && gc <= series_.gcs_.back()) {
        failed_ = Error{"the tree series was handed GC " + std::to_string(gc) + " after GC " +
                        std::to_string(series_.gcs_.back())};
        return *failed_;
    }
    if (!builder_->onHeap(heap)) {
        failed_ = builder_->error().value_or(Error{"the tree series stopped at GC " + std::to_string(gc)});
        return *failed_;
    }
    return {};
}

Result<TreeSeries> TreeSeries::build(const HeapHistory& history, const ClassifierChain& chain,
                                     const SeriesOptions& options) {
    const std::string& file = history.trace().path();
    if (history.gcCount() == 0) return Error{file + ": the trace has no GCs"};
    const uint32_t to =
        options.to == SeriesOptions::kLastGc ? static_cast<uint32_t>(history.gcCount() - 1) : options.to;
    if (options.from >= history.gcCount()) return Error{history.gcRangeError(options.from)};
    if (to >= history.gcCount()) return Error{history.gcRangeError(to)};
    if (options.from > to)
        return Error{file + ": the series starts at GC " + std::to_string(options.from) +
                     ", after its last GC " + std::to_string(to)};

    SeriesOptions o = options;
    o.to = to;
    // Late allocations put objects into epochs already counted, and a duplicate id may replace
    // an object by another of the same id: count everything at every GC then.
    const Diagnostics& d = history.diagnostics();
    o.incremental =
        options.incremental && d[Anomaly::kLateAlloc].count == 0 && d[Anomaly::kDuplicateAlloc].count == 0;
    TreeSeriesBuilder builder(history.trace().symbols(), chain, o);
    Status added;
    Status st = history.forEachHeap(options.from, to, [&](const HeapView& heap) {
        added = builder.add(heap);
        return added.ok();
    });
    if (!added) return added.error();
    if (!st) return st.error();
    size_t expected = 0;
    for (uint32_t g = options.from; g <= to; ++g)
        expected += !options.include_gc || options.include_gc(g);
    if (expected == 0)
        return Error{file + ": none of GCs " + std::to_string(options.from) + ".." + std::to_string(to) +
                     " was chosen for the series"};
    TreeSeries series = builder.take();
    if (series.columns_.size() != expected || series.gcs_.size() != expected)
        return Error{file + ": the heaps of GCs " + std::to_string(options.from) + ".." + std::to_string(to) +
                     " could not all be rebuilt"};
    return series;
}

size_t TreeSeries::indexOf(uint32_t gc) const {
    auto it = std::lower_bound(gcs_.begin(), gcs_.end(), gc);
    return it != gcs_.end() && *it == gc ? static_cast<size_t>(it - gcs_.begin()) : gcs_.size();
}

const TreeSeries::Column* TreeSeries::column(uint32_t gc) const {
    const size_t i = indexOf(gc);
    return i < columns_.size() ? &columns_[i] : nullptr;
}

SeriesCounts TreeSeries::counts(uint32_t id, uint32_t gc) const {
    const Column* c = column(gc);
    if (!c || id >= c->nodes) return {};
    if (c->dense) return c->values[id];
    auto it = std::lower_bound(c->ids.begin(), c->ids.end(), id);
    if (it == c->ids.end() || *it != id) return {};
    return c->values[static_cast<size_t>(it - c->ids.begin())];
}

SampleSums TreeSeries::sampledCounts(uint32_t id, uint32_t gc) const {
    const Column* c = column(gc);
    if (!c || id >= c->nodes || c->sampled.empty()) return {};
    if (c->dense) return c->sampled[id];
    auto it = std::lower_bound(c->ids.begin(), c->ids.end(), id);
    if (it == c->ids.end() || *it != id) return {};
    return c->sampled[static_cast<size_t>(it - c->ids.begin())];
}

SampleSums TreeSeries::sampledSum(std::span<const uint32_t> ids, uint32_t gc) const {
    SampleSums total;
    for (uint32_t id : ids)
        total += sampledCounts(id, gc);
    return total;
}

uint64_t TreeSeries::value(uint32_t id, uint32_t gc, Metric metric) const {
    const SeriesCounts c = counts(id, gc);
    return metric == Metric::kObjects ? c.objects : c.bytes;
}

double TreeSeries::valueAt(uint32_t id, double t, Metric metric) const {
    const uint32_t ids[] = {id};
    return sumAt(ids, t, metric);
}

std::vector<uint64_t> TreeSeries::values(uint32_t id, Metric metric) const {
    std::vector<uint64_t> out;
    out.reserve(gcs_.size());
    for (uint32_t g : gcs_)
        out.push_back(value(id, g, metric));
    return out;
}

int64_t TreeSeries::growth(uint32_t id, Metric metric) const {
    if (columns_.empty()) return 0;
    return static_cast<int64_t>(value(id, lastGc(), metric)) -
           static_cast<int64_t>(value(id, firstGc(), metric));
}

uint64_t TreeSeries::sum(std::span<const uint32_t> ids, uint32_t gc, Metric metric) const {
    uint64_t total = 0;
    for (uint32_t id : ids)
        total += value(id, gc, metric);
    return total;
}

double TreeSeries::sumAt(std::span<const uint32_t> ids, double t, Metric metric) const {
    if (columns_.empty()) return 0;
    const double first = firstGc(), last = lastGc();
    t = std::clamp(t, first, last);
    // Between the two GCs of the series around t (consecutive unless include_gc chose).
    auto next = std::upper_bound(gcs_.begin(), gcs_.end(), static_cast<uint32_t>(std::floor(t)));
    const uint32_t g0 = *(next - 1);
    const double a = static_cast<double>(sum(ids, g0, metric));
    if (next == gcs_.end()) return a;
    const uint32_t g1 = *next;
    const double b = static_cast<double>(sum(ids, g1, metric));
    return a + (b - a) * (t - static_cast<double>(g0)) / static_cast<double>(g1 - g0);
}

SeriesCounts TreeSeries::filtered(uint32_t gc) const {
    const size_t i = indexOf(gc);
    return i < filtered_.size() ? filtered_[i] : SeriesCounts{};
}

std::string TreeSeries::label(uint32_t id) const {
    return tree_nodes::label(nodes_, *chain_, *symbols_, id);
}

std::string TreeSeries::classifierSpec(uint32_t id) const {
    const SeriesNode& n = nodes_[id];
    return n.level == 0 ? std::string() : chain_->classifiers[n.level - 1]->spec();
}

std::string TreeSeries::path(uint32_t id) const {
    return tree_nodes::path(nodes_, id, [this](uint32_t n) { return label(n); });
}

uint32_t TreeSeries::find(const std::vector<std::string>& labels) const {
    return tree_nodes::find(nodes_, labels, [this](uint32_t n) { return label(n); });
}

std::vector<uint32_t> TreeSeries::sortedChildren(uint32_t id, SortStrategy strategy, Metric metric) const {
    struct Entry {
        uint32_t id;
        int64_t primary;
        uint64_t start, end;
        std::string label;
    };
    std::vector<Entry> entries;
    entries.reserve(nodes_[id].children.size());
    const uint32_t first = firstGc(), last = lastGc();
    for (uint32_t c : nodes_[id].children) {
        Entry e{c, 0, value(c, first, metric), value(c, last, metric), label(c)};
        switch (strategy) {
            case SortStrategy::kStartSize: e.primary = static_cast<int64_t>(e.start); break;
            case SortStrategy::kEndSize: e.primary = static_cast<int64_t>(e.end); break;
            case SortStrategy::kGrowth:
                e.primary = static_cast<int64_t>(e.end) - static_cast<int64_t>(e.start);
                break;
        }
        entries.push_back(std::move(e));
    }
    std::sort(entries.begin(), entries.end(), [](const Entry& a, const Entry& b) {
        if (a.primary != b.primary) return a.primary > b.primary;
        if (a.end != b.end) return a.end > b.end;
        if (a.start != b.start) return a.start > b.start;
        if (a.label != b.label) return a.label < b.label;
        return a.id < b.id;
    });
    std::vector<uint32_t> out;
    out.reserve(entries.size());
    for (const Entry& e : entries)
        out.push_back(e.id);
    return out;
}

SeriesPrunedChildren TreeSeries::prunedChildren(uint32_t id, SortStrategy strategy, Metric metric,
                                                const PruneOptions& options) const {
    SeriesPrunedChildren out;
    std::vector<uint32_t> sorted = sortedChildren(id, strategy, metric);
    if (!options.enabled) {
        out.shown = std::move(sorted);
        return out;
    }
    const std::vector<uint64_t> whole = values(id, metric);
    std::vector<uint64_t> shown(whole.size(), 0);
    bool covered = false;
    for (uint32_t c : sorted) {
        if (covered || out.shown.size() >= options.max_children) {
            out.folded.push_back(c);
            continue;
        }
        out.shown.push_back(c);
        covered = true;
        for (size_t g = 0; g < whole.size(); ++g) {
            shown[g] += value(c, gcs_[g], metric);
            if (whole[g] != 0 &&
                static_cast<double>(shown[g]) < options.share * static_cast<double>(whole[g]))
                covered = false;
        }
    }
    return out;
}

std::vector<uint64_t> TreeSeries::selectedIds(uint32_t gc) const {
    std::vector<uint64_t> out;
    const size_t i = indexOf(gc);
    if (i >= ids_.size()) return out;
    const std::vector<uint8_t>& bytes = ids_[i];
    uint64_t last = 0, v = 0;
    unsigned shift = 0;
    for (uint8_t b : bytes) {
        v |= uint64_t{b & 0x7fu} << shift;
        if (b & 0x80) {
            shift += 7;
            continue;
        }
        last += v;
        out.push_back(last);
        v = 0;
        shift = 0;
    }
    return out;
}

std::vector<uint64_t> TreeSeries::commonIds(uint32_t gc_a, uint32_t gc_b) const {
    const std::vector<uint64_t> a = selectedIds(gc_a), b = selectedIds(gc_b);
    std::vector<uint64_t> out;
    std::set_intersection(a.begin(), a.end(), b.begin(), b.end(), std::back_inserter(out));
    return out;
}

size_t TreeSeries::memoryBytes() const {
    size_t n = sizeof(*this) + nodes_.capacity() * sizeof(SeriesNode) + columns_.capacity() * sizeof(Column) +
               filtered_.capacity() * sizeof(SeriesCounts) + ids_.capacity() * sizeof(std::vector<uint8_t>);
    for (const SeriesNode& node : nodes_)
        n += node.children.capacity() * sizeof(uint32_t);
    for (const Column& c : columns_)
        n += c.ids.capacity() * sizeof(uint32_t) + c.values.capacity() * sizeof(SeriesCounts) +
             c.sampled.capacity() * sizeof(SampleSums);
    for (const auto& v : ids_)
        n += v.capacity();
    return n;
}

Result<TreeSeries> buildWindowSeries(const HeapHistory& h, const ClassifierChain& chain,
                                     SeriesOptions options) {
    if (!chain.needsReferences()) return TreeSeries::build(h, chain, options);
    const uint32_t to =
        std::min<uint32_t>(options.to, h.gcCount() == 0 ? 0 : static_cast<uint32_t>(h.gcCount() - 1));
    if (!hasSnapshotIn(h, options.from, to))
        return Error{h.trace().path() + ": the chain reads references, and none of GCs " +
                     std::to_string(options.from) + ".." + std::to_string(to) +
                     " has a reference snapshot ('memcity gcs' marks them)"};
    std::unique_ptr<HeapState> state;
    std::unique_ptr<HeapGraph> graph;
    options.include_gc = [&h](uint32_t gc) { return h.gcs()[gc].has_snapshot; };
    options.prepare_heap = [&](const HeapView& replayed) -> Result<HeapView> {
        graph.reset();
        state = std::make_unique<HeapState>(replayed);
        auto g = loadGraph(h, *state);
        if (!g) return g.error();
        graph = std::move(*g);
        return state->view().withGraph(graph.get());
    };
    return TreeSeries::build(h, chain, options);
}

}  // namespace memcity
