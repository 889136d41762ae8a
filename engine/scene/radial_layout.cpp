#include "scene/radial_layout.h"

#include <algorithm>
#include <cmath>

namespace memcity::scene {

namespace {

// The two GCs of the series around t (equal at the ends) and the weight of the second, as in
// TreeSeries::sumAt.
struct Bracket {
    uint32_t g0 = 0, g1 = 0;
    double w = 0;
};

Bracket bracket(const TreeSeries& series, double t) {
    const std::vector<uint32_t>& gcs = series.gcs();
    auto next = std::upper_bound(gcs.begin(), gcs.end(), static_cast<uint32_t>(std::floor(t)));
    Bracket b;
    b.g0 = b.g1 = *(next - 1);
    if (next == gcs.end()) return b;
    b.g1 = *next;
    b.w = (t - static_cast<double>(b.g0)) / static_cast<double>(b.g1 - b.g0);
    return b;
}

bool isAncestorOrSelf(const TreeSeries& series, uint32_t ancestor, uint32_t node) {
    for (uint32_t at = node; at != kNoNode; at = series.node(at).parent)
        if (at == ancestor) return true;
    return false;
}

class Builder {
public:
    Builder(const TreeSeries& series, const RadialLayoutOptions& options, RadialLayout& out)
        : series_(series), options_(options), out_(out) {}

    // The items below `root`, `levels` levels deep, in preorder.
    void structure(uint32_t root, uint32_t levels) {
        out_.items.push_back(nodeItem(root, kNoItem, 0));
        grow(0, levels);
    }

    // Intervals at one GC of the series, written to starts/ends (one per item).
    void extentsAt(uint32_t gc, std::vector<double>& starts, std::vector<double>& ends) const {
        const size_t n = out_.items.size();
        starts.assign(n, 0.0);
        ends.assign(n, 0.0);
        std::vector<double> values(n), cursor(n), scale(n);
        for (size_t i = 0; i < n; ++i)
            values[i] = gcValue(out_.items[i], gc);
        // Sum the children of each item (children follow their parent in preorder).
        std::vector<double> child_sum(n, 0.0);
        for (size_t i = 1; i < n; ++i)
            child_sum[out_.items[i].parent_item] += values[i];
        double root_extent = values[0] > 0 ? 1.0 : 0.0;
        if (options_.scale == RadialScale::kScaled)
            root_extent = out_.root_max > 0 ? values[0] / out_.root_max : 0.0;
        starts[0] = 0.0;
        ends[0] = root_extent;
        for (size_t i = 0; i < n; ++i) {
            if (i > 0) {
                const uint32_t p = out_.items[i].parent_item;
                starts[i] = cursor[p];
                ends[i] = std::min(ends[p], cursor[p] + values[i] * scale[p]);
                cursor[p] = ends[i];
            }
            cursor[i] = starts[i];
            const double whole = std::max(values[i], child_sum[i]);
            scale[i] = whole > 0 ? (ends[i] - starts[i]) / whole : 0.0;
        }
    }

    double gcValue(const RadialItem& item, uint32_t gc) const {
        if (item.isOther())
            return static_cast<double>(series_.sum(out_.others[item.other].folded, gc, options_.metric));
        return static_cast<double>(series_.value(item.node, gc, options_.metric));
    }

private:
    RadialItem nodeItem(uint32_t node, uint32_t parent_item, uint32_t depth) const {
        RadialItem item;
        item.node = node;
        item.parent_item = parent_item;
        item.depth = depth;
        const uint32_t drill = out_.drill_root;
        if (isAncestorOrSelf(series_, node, drill) || isAncestorOrSelf(series_, drill, node))
            item.flags |= kRadialItemOnBranch;
        if (node == drill) item.flags |= kRadialItemDrillRoot;
        return item;
    }

    void grow(uint32_t index, uint32_t levels) {
        const RadialItem parent = out_.items[index];
        if (parent.depth >= levels || parent.isOther()) return;
        SeriesPrunedChildren children =
            series_.prunedChildren(parent.node, options_.sort, options_.metric, options_.prune);
        for (uint32_t child : children.shown) {
            const auto at = static_cast<uint32_t>(out_.items.size());
            out_.items.push_back(nodeItem(child, index, parent.depth + 1));
            grow(at, levels);
        }
        if (children.folded.empty()) return;
        RadialItem other;
        other.node = parent.node;
        other.other = static_cast<uint32_t>(out_.others.size());
        other.parent_item = index;
        other.depth = parent.depth + 1;
        other.flags = kRadialItemOther;
        // The group is on the branch when it lies below the drill root, or holds it.
        const uint32_t drill = out_.drill_root;
        bool on_branch = isAncestorOrSelf(series_, drill, parent.node);
        for (uint32_t folded : children.folded)
            on_branch = on_branch || isAncestorOrSelf(series_, folded, drill);
        if (on_branch) other.flags |= kRadialItemOnBranch;
        out_.others.push_back({parent.node, std::move(children.folded)});
        out_.items.push_back(other);
    }

    const TreeSeries& series_;
    const RadialLayoutOptions& options_;
    RadialLayout& out_;
};

}  // namespace

RadialLayout layoutRadial(const TreeSeries& series, double t, const RadialLayoutOptions& options) {
    RadialLayout out;
    out.metric = options.metric;
    out.sort = options.sort;
    if (series.gcCount() == 0 || series.size() == 0) return out;
    out.t = std::clamp(t, static_cast<double>(series.firstGc()), static_cast<double>(series.lastGc()));
    out.drill_root = options.drill_root < series.size() ? options.drill_root : TreeSeries::kRoot;
    const bool local = options.view == RadialView::kLocal;
    out.root = local ? out.drill_root : TreeSeries::kRoot;
    for (uint32_t gc : series.gcs())
        out.root_max =
            std::max(out.root_max, static_cast<double>(series.value(out.root, gc, options.metric)));

    Builder builder(series, options, out);
    builder.structure(out.root, local ? options.local_levels : options.global_levels);
    for (const RadialItem& item : out.items)
        out.levels = std::max(out.levels, item.depth + 1);

    // Exact at the two GCs around t, then linear between them.
    const Bracket b = bracket(series, out.t);
    std::vector<double> s0, e0, s1, e1;
    builder.extentsAt(b.g0, s0, e0);
    if (b.g1 != b.g0) builder.extentsAt(b.g1, s1, e1);
    for (size_t i = 0; i < out.items.size(); ++i) {
        RadialItem& item = out.items[i];
        if (b.g1 == b.g0) {
            item.start = s0[i];
            item.end = e0[i];
        } else {
            item.start = s0[i] + (s1[i] - s0[i]) * b.w;
            item.end = e0[i] + (e1[i] - e0[i]) * b.w;
        }
        item.end = std::max(item.end, item.start);
        item.value = builder.gcValue(item, b.g0);
        if (b.g1 != b.g0) item.value += (builder.gcValue(item, b.g1) - item.value) * b.w;
    }
    return out;
}

uint32_t pickIdOf(const RadialItem& item) {
    return item.isOther() ? otherPickId(item.node) : item.node;
}

std::string radialItemLabel(const TreeSeries& series, const RadialLayout& layout, const RadialItem& item) {
    if (!item.isOther()) return series.label(item.node);
    return "Other (" + std::to_string(layout.others[item.other].folded.size()) + ")";
}

double radialItemValueAt(const TreeSeries& series, const RadialLayout& layout, const RadialItem& item,
                         double t) {
    if (item.isOther()) return series.sumAt(layout.others[item.other].folded, t, layout.metric);
    return series.valueAt(item.node, t, layout.metric);
}

std::vector<std::string> drillPath(const TreeSeries& series, uint32_t drill_root) {
    std::vector<std::string> path;
    if (drill_root >= series.size()) drill_root = TreeSeries::kRoot;
    for (uint32_t at = drill_root; at != kNoNode; at = series.node(at).parent)
        path.push_back(series.label(at));
    std::reverse(path.begin(), path.end());
    return path;
}

}  // namespace memcity::scene
