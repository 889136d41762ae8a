#include "scene/city_layout.h"

#include <algorithm>
#include <cmath>
#include <functional>
#include <thread>
#include <unordered_map>

#include "util/parallel.h"

namespace memcity::scene {
namespace {

// Sorts one node's children as TreeSeries::sortedChildren does: by the strategy's key, then the
// value at the last GC, then at the first (all largest first), then by label, then by id. Labels
// are asked for only where the numbers tie.
void sortChildren(const TreeSeries& series, SortStrategy sort, const std::vector<uint64_t>& first,
                  const std::vector<uint64_t>& last, std::span<uint32_t> children) {
    auto primary = [&](uint32_t c) -> int64_t {
        switch (sort) {
            case SortStrategy::kStartSize: return static_cast<int64_t>(first[c]);
            case SortStrategy::kEndSize: return static_cast<int64_t>(last[c]);
            case SortStrategy::kGrowth: return static_cast<int64_t>(last[c]) - static_cast<int64_t>(first[c]);
        }
        return 0;
    };
    auto sameNumbers = [&](uint32_t a, uint32_t b) {
        return primary(a) == primary(b) && last[a] == last[b] && first[a] == first[b];
    };
    std::sort(children.begin(), children.end(), [&](uint32_t a, uint32_t b) {
        const int64_t pa = primary(a), pb = primary(b);
        if (pa != pb) return pa > pb;
        if (last[a] != last[b]) return last[a] > last[b];
        if (first[a] != first[b]) return first[a] > first[b];
        return a < b;
    });
    for (size_t i = 0; i < children.size();) {
        size_t j = i + 1;
        while (j < children.size() && sameNumbers(children[i], children[j]))
            ++j;
        if (j - i > 1) {
            std::vector<std::pair<std::string, uint32_t>> run;
            for (size_t k = i; k < j; ++k)
                run.emplace_back(series.label(children[k]), children[k]);
            std::sort(run.begin(), run.end());
            for (size_t k = i; k < j; ++k)
                children[k] = run[k - i].second;
        }
        i = j;
    }
}

struct Rect {
    double x0 = 0, z0 = 0, x1 = 0, z1 = 0;
    double width() const { return x1 - x0; }
    double depth() const { return z1 - z0; }
};

Rect inset(const Rect& r, double pad, double max_share) {
    pad = std::min(pad, max_share * std::min(r.width(), r.depth()));
    pad = std::max(pad, 0.0);
    return {r.x0 + pad, r.z0 + pad, r.x1 - pad, r.z1 - pad};
}

// Squarified treemap (Bruls, Huizing, van Wijk 2000) keeping the given order: rows are filled
// along the shorter side of what is left while adding an item improves the row's worst aspect
// ratio. `weights` are positive; out[i] (out.size() == weights.size()) becomes the cell of
// weights[i]; the cells tile `r` exactly.
void squarify(std::span<const double> weights, Rect r, std::span<Rect> out) {
    std::fill(out.begin(), out.end(), Rect{});
    double total = 0;
    for (double w : weights)
        total += w;
    if (weights.empty() || total <= 0 || r.width() <= 0 || r.depth() <= 0) return;
    const double scale = r.width() * r.depth() / total;
    size_t i = 0;
    while (i < weights.size()) {
        const double side = std::min(r.width(), r.depth());
        double sum = 0, lo = 0, hi = 0, worst_before = INFINITY;
        size_t j = i;
        for (; j < weights.size(); ++j) {
            const double a = weights[j] * scale;
            const double s = sum + a, l = j == i ? a : std::min(lo, a), h = j == i ? a : std::max(hi, a);
            const double worst = std::max(side * side * h / (s * s), s * s / (side * side * l));
            if (j > i && worst > worst_before) break;
            sum = s;
            lo = l;
            hi = h;
            worst_before = worst;
        }
        const bool last = j == weights.size();
        // The row takes a strip of the shorter side's length; the last row takes what is left.
        if (r.width() >= r.depth()) {
            const double thick = last ? r.width() : sum / r.depth();
            double z = r.z0;
            for (size_t k = i; k < j; ++k) {
                const double z_end = k + 1 == j ? r.z1 : z + weights[k] * scale / thick;
                out[k] = {r.x0, z, r.x0 + thick, z_end};
                z = z_end;
            }
            r.x0 = last ? r.x1 : r.x0 + thick;
        } else {
            const double thick = last ? r.depth() : sum / r.width();
            double x = r.x0;
            for (size_t k = i; k < j; ++k) {
                const double x_end = k + 1 == j ? r.x1 : x + weights[k] * scale / thick;
                out[k] = {x, r.z0, x_end, r.z0 + thick};
                x = x_end;
            }
            r.z0 = last ? r.z1 : r.z0 + thick;
        }
        i = j;
    }
}

// The tree of what the city shows, before it has geometry.
struct Item {
    uint32_t id = 0;  // node id or Other id
    uint32_t depth = 0;
    bool district = false;
    double weight = 0;                                       // layout metric; 0: left out
    std::array<double, 2> peak{};                            // buildings
    uint32_t kids_begin = 0, kids_end = 0;                   // districts: into kids
    uint32_t group_begin = 0, group_mid = 0, group_end = 0;  // Other
};

class CityBuilder {
public:
    CityBuilder(const TreeSeries& series, const CityLayoutOptions& options, CityLayout& out)
        : series_(series), o_(options), out_(out), mi_(metricIndex(options.metric)) {}

    void build() {
        order_ = orderSeries(series_, o_.sort, o_.metric, o_.prune, o_.threads);
        addDistrict(TreeSeries::kRoot, 0);
        // Weights bottom-up: kids come after their district in preorder.
        for (size_t i = items_.size(); i-- > 0;) {
            Item& it = items_[i];
            if (!it.district) {
                it.weight = it.peak[mi_];
                continue;
            }
            it.weight = 0;
            for (uint32_t k = it.kids_begin; k < it.kids_end; ++k)
                it.weight += items_[kids_[k]].weight;
        }
        const auto side = static_cast<double>(o_.size);
        place(0, Rect{0, 0, side, side}, kNoIndex);
        finish();
    }

private:
    uint32_t addDistrict(uint32_t node, uint32_t depth) {
        const auto index = static_cast<uint32_t>(items_.size());
        items_.push_back(Item{node, depth, true});
        const std::span<const uint32_t> children = order_.childrenOf(node);
        const uint32_t shown = order_.shown_count[node];
        // This district's kids go on a stack shared with the calls below (which leave it as
        // they found it), then into kids_ as one block.
        const size_t base = stack_.size();
        for (uint32_t j = 0; j < shown; ++j) {
            const uint32_t c = children[j];
            if (order_.peak[mi_][c] == 0) continue;
            if (!series_.node(c).children.empty() && depth + 1 < o_.max_depth) {
                const uint32_t kid = addDistrict(c, depth + 1);
                stack_.push_back(kid);
            } else {
                Item b{c, depth + 1, false};
                b.peak = {static_cast<double>(order_.peak[0][c]), static_cast<double>(order_.peak[1][c])};
                stack_.push_back(static_cast<uint32_t>(items_.size()));
                items_.push_back(b);
            }
        }
        // The Other building: kept when its peak is not 0.
        Item other{otherIdOf(node), depth + 1, false};
        other.peak = {static_cast<double>(order_.other_peak[0][node]),
                      static_cast<double>(order_.other_peak[1][node])};
        other.group_begin = static_cast<uint32_t>(out_.group_ids.size());
        out_.group_ids.insert(out_.group_ids.end(), children.begin() + shown, children.end());
        other.group_mid = static_cast<uint32_t>(out_.group_ids.size());
        out_.group_ids.insert(out_.group_ids.end(), children.begin(), children.begin() + shown);
        other.group_end = static_cast<uint32_t>(out_.group_ids.size());
        stack_.push_back(static_cast<uint32_t>(items_.size()));
        items_.push_back(other);

        items_[index].kids_begin = static_cast<uint32_t>(kids_.size());
        kids_.insert(kids_.end(), stack_.begin() + static_cast<ptrdiff_t>(base), stack_.end());
        items_[index].kids_end = static_cast<uint32_t>(kids_.size());
        stack_.resize(base);
        return index;
    }

    // The index of series.label(id) in out_.labels, asked once per distinct (level, key, depth
    // within the level's path): a label depends on nothing else (tree_nodes::label), and deep
    // cities repeat a few labels in thousands of districts (the same thread under every site).
    uint32_t labelOf(uint32_t id) {
        const SeriesNode& node = series_.node(id);
        uint32_t depth = 0;
        for (uint32_t at = node.parent; at != kNoNode && series_.node(at).level == node.level;
             at = series_.node(at).parent)
            ++depth;
        const LabelKey key{node.level, depth, node.key};
        auto it = labels_.find(key);
        if (it == labels_.end()) {
            it = labels_.emplace(key, static_cast<uint32_t>(out_.labels.size())).first;
            out_.labels.push_back(series_.label(id));
        }
        return it->second;
    }

    void place(uint32_t item, const Rect& r, uint32_t parent) {
        const Item& it = items_[item];
        const auto di = static_cast<uint32_t>(out_.districts.size());
        CityDistrict d;
        d.node = it.id;
        d.depth = it.depth;
        d.parent = parent;
        d.x0 = static_cast<float>(r.x0);
        d.z0 = static_cast<float>(r.z0);
        d.x1 = static_cast<float>(r.x1);
        d.z1 = static_cast<float>(r.z1);
        d.y0 = static_cast<float>(it.depth) * o_.plate_height;
        d.y1 = d.y0 + o_.plate_height;
        d.weight = it.weight;
        out_.districts.push_back(d);
        out_.districts.back().label = labelOf(it.id);

        const double pad = 0.5 * static_cast<double>(o_.street) *
                           std::pow(static_cast<double>(o_.street_decay), static_cast<double>(it.depth));
        const double share = static_cast<double>(o_.max_street_share);
        const Rect inner = inset(r, pad, share);
        // The kids that take space and their cells, on stacks shared with the calls below.
        const size_t base = stack_.size();
        weights_.clear();
        for (uint32_t k = it.kids_begin; k < it.kids_end; ++k) {
            if (items_[kids_[k]].weight <= 0) continue;
            stack_.push_back(kids_[k]);
            weights_.push_back(items_[kids_[k]].weight);
        }
        const size_t count = stack_.size() - base;
        cells_.resize(base + count);
        squarify(weights_, inner, std::span<Rect>(cells_).subspan(base, count));

        const auto first = static_cast<uint32_t>(out_.buildings.size());
        for (size_t k = base; k < base + count; ++k) {
            const Item& kid = items_[stack_[k]];
            if (kid.district) continue;
            const Rect c =
                inset(cells_[k], pad, std::min(share, static_cast<double>(o_.max_building_gap_share)));
            CityBuilding b;
            b.id = kid.id;
            b.district = di;
            b.x0 = static_cast<float>(c.x0);
            b.z0 = static_cast<float>(c.z0);
            b.x1 = static_cast<float>(c.x1);
            b.z1 = static_cast<float>(c.z1);
            b.base = d.y1;
            b.peak = kid.peak;
            b.group_begin = kid.group_begin;
            b.group_mid = kid.group_mid;
            b.group_end = kid.group_end;
            out_.buildings.push_back(b);
        }
        const auto direct = static_cast<uint32_t>(out_.buildings.size());
        for (size_t k = base; k < base + count; ++k)
            if (items_[stack_[k]].district) place(stack_[k], inset(cells_[k], pad, share), di);
        stack_.resize(base);
        cells_.resize(base);
        CityDistrict& done = out_.districts[di];
        done.building_begin = first;
        done.direct_end = direct;
        done.building_end = static_cast<uint32_t>(out_.buildings.size());
        done.district_end = static_cast<uint32_t>(out_.districts.size());
    }

    void finish() {
        float top = o_.plate_height;
        for (CityDistrict& d : out_.districts)
            top = std::max(top, d.y1);
        for (const CityBuilding& b : out_.buildings)
            for (size_t m = 0; m < 2; ++m)
                out_.global_peak[m] = std::max(out_.global_peak[m], b.peak[m]);
        // The longest footprint side inside each district, bottom-up.
        for (size_t i = out_.districts.size(); i-- > 0;) {
            CityDistrict& d = out_.districts[i];
            for (uint32_t b = d.building_begin; b < d.direct_end; ++b) {
                const CityBuilding& x = out_.buildings[b];
                d.max_building_side = std::max({d.max_building_side, x.x1 - x.x0, x.z1 - x.z0});
            }
            if (d.parent != kNoIndex) {
                CityDistrict& p = out_.districts[d.parent];
                p.max_building_side = std::max(p.max_building_side, d.max_building_side);
            }
        }
        out_.bounds = Bounds{glm::vec3(0.0f), glm::vec3(o_.size, top + o_.height, o_.size)};
    }

    const TreeSeries& series_;
    const CityLayoutOptions& o_;
    CityLayout& out_;
    const size_t mi_;
    SeriesOrder order_;
    std::vector<Item> items_;
    std::vector<uint32_t> kids_;
    // Scratch shared by the recursive calls, each using the end it found and leaving it so.
    std::vector<uint32_t> stack_;
    std::vector<Rect> cells_;
    std::vector<double> weights_;
    struct LabelKey {
        uint32_t level, depth;
        Key key;
        bool operator==(const LabelKey&) const = default;
    };
    struct LabelHash {
        size_t operator()(const LabelKey& k) const {
            return static_cast<size_t>((k.key * 0x9e3779b97f4a7c15ull) ^ (uint64_t{k.level} << 32 | k.depth));
        }
    };
    std::unordered_map<LabelKey, uint32_t, LabelHash> labels_;
};

}  // namespace

void readColumn(const TreeSeries& series, size_t index, std::vector<SeriesCounts>& out) {
    out.assign(series.size(), SeriesCounts{});
    series.forEachCount(index, [&](uint32_t id, const SeriesCounts& c) { out[id] = c; });
}

namespace {

// The pass over the columns behind orderSeries, once the order is known. Per node and GC, with W
// its value, T the sum of its children and P_k the sum of its first k children in the order:
//  - pruning: the shortest prefix that holds `share` of W at every GC at which W > 0 is the
//    longest of the shortest prefixes per GC (prefix sums only grow), capped;
//  - the Other building with k children shown holds max(T - P_k, W - P_k) = max(T, W) - P_k; k is
//    known only after the last GC, so the peak is kept for every k it may still become
//    (k = 0..min(children, cap), those below what a GC so far needed skipped; without pruning
//    only k = all children).
// Streaming the columns is most of the cost, so each is read once. Scans of disjoint ranges of
// GCs merge by taking maxima, which gives the same result as one scan of all.
struct ScanPlan {
    const TreeSeries& series;
    const SeriesOrder& order;
    bool pruning = true;
    uint32_t cap = 0;
    double share = 0;
    size_t metric = 0;
    // Positions in breadth-first order with each node's children side by side in the sort order,
    // so that a node's children (and any prefix of them) are a contiguous range of a column.
    std::vector<uint32_t> pos;
    // The nodes with children in that order, with what the scan reads of them side by side.
    struct Inner {
        uint32_t id;
        uint32_t pos;       // its own position
        uint32_t children;  // the position of its first child
        uint32_t count;     // children
        uint32_t slot;      // its candidate k are slots [slot, slot + min(count, cap)] (one without pruning)
    };
    std::vector<Inner> inner;
    size_t slots = 0;

    ScanPlan(const TreeSeries& s, const SeriesOrder& o, const PruneOptions& prune, Metric m)
        : series(s),
          order(o),
          pruning(prune.enabled),
          cap(static_cast<uint32_t>(std::min<size_t>(prune.max_children, UINT32_MAX - 1))),
          share(prune.share),
          metric(metricIndex(m)) {
        pos.assign(s.size(), 0);
        std::vector<uint32_t> queue = {TreeSeries::kRoot};
        uint32_t next = 1;
        for (size_t q = 0; q < queue.size(); ++q) {
            const uint32_t id = queue[q];
            const uint32_t count = childCount(id);
            if (count > 0) {
                inner.push_back({id, pos[id], next, count, static_cast<uint32_t>(slots)});
                slots += (pruning ? std::min(count, cap) : 0) + 1;
            }
            for (uint32_t c : o.childrenOf(id)) {
                pos[c] = next++;
                queue.push_back(c);
            }
        }
    }
    uint32_t childCount(uint32_t id) const { return order.child_begin[id + 1] - order.child_begin[id]; }
};

struct ScanState {
    std::vector<SeriesCounts> peak;      // per node
    std::vector<SeriesCounts> other;     // per slot
    std::vector<uint32_t> need;          // per inner node: the longest prefix a GC needed
    std::vector<SeriesCounts> col;       // the column being read, by position
    std::vector<SeriesCounts> prefixes;  // scratch: one node's prefix sums

    explicit ScanState(const ScanPlan& plan)
        : peak(plan.series.size()), other(plan.slots), need(plan.inner.size(), 0), col(plan.series.size()) {}

    static void keepMax(SeriesCounts& into, uint64_t objects, uint64_t bytes) {
        into.objects = std::max(into.objects, objects);
        into.bytes = std::max(into.bytes, bytes);
    }

    void scan(const ScanPlan& plan, size_t g0, size_t g1) {
        const auto n = static_cast<uint32_t>(plan.series.size());
        auto pick = [m = plan.metric](const SeriesCounts& c) { return m == 0 ? c.objects : c.bytes; };
        for (size_t g = g0; g < g1; ++g) {
            // Ids come in ascending order: the ids skipped (not in a sparse column, or created
            // after this GC) read 0.
            uint32_t next = 0;
            plan.series.forEachCount(g, [&](uint32_t id, const SeriesCounts& c) {
                for (; next < id; ++next)
                    col[plan.pos[next]] = SeriesCounts{};
                col[plan.pos[id]] = c;
                keepMax(peak[id], c.objects, c.bytes);
                next = id + 1;
            });
            for (; next < n; ++next)
                col[plan.pos[next]] = SeriesCounts{};
            for (size_t i = 0; i < plan.inner.size(); ++i) {
                const ScanPlan::Inner& node = plan.inner[i];
                const SeriesCounts* children = col.data() + node.children;
                const uint32_t count = node.count;
                const SeriesCounts& w = col[node.pos];
                SeriesCounts* slots = other.data() + node.slot;
                SeriesCounts total;
                if (!plan.pruning) {
                    for (uint32_t k = 0; k < count; ++k)
                        total += children[k];
                    keepMax(slots[0], w.objects > total.objects ? w.objects - total.objects : 0,
                            w.bytes > total.bytes ? w.bytes - total.bytes : 0);
                    continue;
                }
                const uint32_t walk = std::min(count, plan.cap), known = need[i];
                // The prefix sums P_1..P_walk, then the rest of T.
                if (prefixes.size() <= walk) prefixes.resize(walk + 1);
                SeriesCounts* prefix = prefixes.data();
                for (uint32_t k = 0; k < walk; ++k) {
                    total += children[k];
                    prefix[k + 1] = total;
                }
                for (uint32_t k = walk; k < count; ++k)
                    total += children[k];
                const uint64_t top_objects = std::max(total.objects, w.objects);
                const uint64_t top_bytes = std::max(total.bytes, w.bytes);
                if (known == 0) keepMax(slots[0], top_objects, top_bytes);
                for (uint32_t k = std::max(known, 1u); k <= walk; ++k)
                    keepMax(slots[k], top_objects - prefix[k].objects, top_bytes - prefix[k].bytes);
                // A GC where the node is empty asks nothing.
                if (pick(w) == 0 || known >= walk) continue;
                const double target = plan.share * static_cast<double>(pick(w));
                uint32_t covered_at = walk;
                for (uint32_t k = std::max(known, 1u); k < walk; ++k)
                    if (static_cast<double>(pick(prefix[k])) >= target) {
                        covered_at = k;
                        break;
                    }
                need[i] = std::max(known, covered_at);
            }
        }
    }

    void merge(const ScanState& b) {
        for (size_t i = 0; i < peak.size(); ++i)
            keepMax(peak[i], b.peak[i].objects, b.peak[i].bytes);
        for (size_t i = 0; i < other.size(); ++i)
            keepMax(other[i], b.other[i].objects, b.other[i].bytes);
        for (size_t i = 0; i < need.size(); ++i)
            need[i] = std::max(need[i], b.need[i]);
    }
};

}  // namespace

SeriesOrder orderSeries(const TreeSeries& series, SortStrategy sort, Metric metric, const PruneOptions& prune,
                        unsigned threads) {
    const size_t n = series.size(), gcs = series.gcCount();
    SeriesOrder o;
    o.child_begin.assign(n + 1, 0);
    for (uint32_t id = 0; id < n; ++id)
        o.child_begin[id + 1] = o.child_begin[id] + static_cast<uint32_t>(series.node(id).children.size());
    o.children.resize(o.child_begin[n]);
    o.shown_count.assign(n, 0);
    for (size_t m = 0; m < 2; ++m) {
        o.peak[m].assign(n, 0);
        o.other_peak[m].assign(n, 0);
    }
    if (gcs == 0) return o;

    // The order: from the first and the last column.
    std::vector<SeriesCounts> col;
    std::vector<uint64_t> first(n), last(n);
    readColumn(series, 0, col);
    for (size_t id = 0; id < n; ++id)
        first[id] = valueOf(col[id], metric);
    readColumn(series, gcs - 1, col);
    for (size_t id = 0; id < n; ++id)
        last[id] = valueOf(col[id], metric);
    for (uint32_t id = 0; id < n; ++id) {
        const std::vector<uint32_t>& c = series.node(id).children;
        std::span<uint32_t> mine(o.children.data() + o.child_begin[id], c.size());
        std::copy(c.begin(), c.end(), mine.begin());
        sortChildren(series, sort, first, last, mine);
    }

    // The rest in one pass over the columns, split into ranges of GCs over the threads.
    const ScanPlan plan(series, o, prune, metric);
    const size_t parts = std::clamp<size_t>(threads, 1, gcs);
    std::vector<ScanState> states;
    states.reserve(parts);
    for (size_t t = 0; t < parts; ++t)
        states.emplace_back(plan);
    runParts(parts, [&](size_t t) { states[t].scan(plan, gcs * t / parts, gcs * (t + 1) / parts); });
    ScanState& all = states[0];
    for (size_t t = 1; t < parts; ++t)
        all.merge(states[t]);

    for (uint32_t id = 0; id < n; ++id) {
        o.peak[0][id] = all.peak[id].objects;
        o.peak[1][id] = all.peak[id].bytes;
    }
    for (size_t i = 0; i < plan.inner.size(); ++i) {
        const ScanPlan::Inner& node = plan.inner[i];
        // At least one child is shown (unless the cap is 0), at most the cap.
        const uint32_t shown =
            plan.pruning ? std::min(std::max(all.need[i], 1u), std::min(node.count, plan.cap)) : node.count;
        o.shown_count[node.id] = shown;
        const SeriesCounts& slot = all.other[node.slot + (plan.pruning ? shown : 0)];
        o.other_peak[0][node.id] = slot.objects;
        o.other_peak[1][node.id] = slot.bytes;
    }
    return o;
}

uint32_t CityLayout::findBuilding(uint32_t id) const {
    for (size_t i = 0; i < buildings.size(); ++i)
        if (buildings[i].id == id) return static_cast<uint32_t>(i);
    return kNoIndex;
}

uint32_t CityLayout::findDistrict(uint32_t id) const {
    for (size_t i = 0; i < districts.size(); ++i)
        if (districts[i].node == id) return static_cast<uint32_t>(i);
    return kNoIndex;
}

Result<CityLayout> buildCityLayout(const TreeSeries& series, const CityLayoutOptions& options) {
    if (series.gcCount() == 0) return Error{"the series holds no GC: nothing to lay out"};
    if (!(options.size > 0) || !(options.height > 0) || !(options.plate_height > 0))
        return Error{"city size, height and plate height must be positive"};
    if (options.max_depth == 0) return Error{"max_depth must be at least 1"};
    if (!(options.street >= 0) || !(options.street_decay >= 0) || !(options.max_street_share >= 0) ||
        options.max_street_share >= 0.5f || !(options.max_building_gap_share >= 0) ||
        options.max_building_gap_share >= 0.5f)
        return Error{"streets must not be negative and take less than half a cell"};
    CityLayout out;
    out.options = options;
    out.node_count = series.size();
    out.gc_count = series.gcCount();
    CityBuilder(series, options, out).build();
    return out;
}

}  // namespace memcity::scene
