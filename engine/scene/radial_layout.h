// Adjacency layouts of a tree series (STAG20 §3-5): the sunburst and the icicle share
// one layout in a normalised space. Each item is a node of the series (or an "Other" group of
// folded children) on a ring / row `depth` below the layout's root, covering [start, end) of
// the full circle (sunburst) or the full width (icicle).
//
// Time: `t` is a fractional GC index (GcRecord::index) as in TreeSeries::valueAt. The layout at
// a GC of the series is exact; between two GCs of the series each item's start and end are
// interpolated linearly, so the layout at 2.5 is the mean of the layouts at 2 and 3 (tweening).
// The items, their order and their nesting depend only on the options, never on t: positions
// slide as values change but nodes never swap places, and a node with value 0 at t keeps its
// item with zero extent (so appearing and vanishing nodes grow from / shrink to nothing).
//
// Invariants, at every t:
//   - children lie inside their parent's interval, in the sort strategy's order;
//   - a node's children ("Other" included) fill its interval exactly when they hold its whole
//     value (every object went one level further). A node holding objects of its own (a path of
//     a one-to-hierarchy classifier ended there) leaves that share empty at the end of its
//     interval; children whose values add up to more than the node (one-to-many classifiers)
//     are scaled down to fill it.
//   - the root spans [0, 1) unscaled (nothing when its value is 0), or [0, value(root, t) / max over the
//   series) scaled.
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include "classify/series.h"

namespace memcity::scene {

enum class RadialView : uint8_t {
    kLocal,   // the drill root and `local_levels` levels below it (STAG20 §4.3, the "local view")
    kGlobal,  // the whole tree from the series root down to `global_levels`, the drill branch flagged
};

enum class RadialScale : uint8_t {
    kUnscaled,  // the root always spans the whole circle / width (best for reading labels)
    kScaled,    // the root spans its value at t over its largest value at any GC of the series:
                // the heap size over the largest heap when the root is the series root (§5.2)
};

// RadialItem::flags.
enum RadialItemFlags : uint32_t {
    kRadialItemNone = 0,
    kRadialItemOther = 1u << 0,      // an "Other" group: the folded children of `node`
    kRadialItemOnBranch = 1u << 1,   // on the drill-down branch: an ancestor of the drill root, the
                                     // drill root, or below it (every item of the local view)
    kRadialItemDrillRoot = 1u << 2,  // the drill root itself (in the global view: the marked sector)
};

inline constexpr uint32_t kNoItem = ~uint32_t{0};

struct RadialItem {
    uint32_t node = kNoNode;         // the series node; for an "Other" group, the parent whose folded
                                     // children it holds (RadialLayout::others[other] lists them)
    uint32_t other = kNoItem;        // "Other" groups: index into RadialLayout::others
    uint32_t parent_item = kNoItem;  // index into RadialLayout::items; kNoItem for the root
    uint32_t depth = 0;              // ring (sunburst) or row (icicle); 0 = the layout's root
    double start = 0, end = 0;       // fractions of the full circle / width, 0 <= start <= end <= 1
    double value = 0;                // objects or bytes (the layout's metric) at t
    uint32_t flags = kRadialItemNone;

    bool isOther() const { return (flags & kRadialItemOther) != 0; }
    double extent() const { return end - start; }
};

// The children of `parent` that pruning folded into one "Other" item, in the sort order.
struct RadialOther {
    uint32_t parent = kNoNode;
    std::vector<uint32_t> folded;
};

struct RadialLayoutOptions {
    Metric metric = Metric::kBytes;
    SortStrategy sort = SortStrategy::kGrowth;  // fixes the order of siblings for the whole series
    PruneOptions prune;                         // defaults: 90% of the branch, at most 9, rest "Other"
    uint32_t drill_root = TreeSeries::kRoot;    // a node of the series (an unknown id means the root)
    RadialView view = RadialView::kLocal;
    RadialScale scale = RadialScale::kUnscaled;
    uint32_t local_levels = 2;   // local view: levels below the drill root (the paper's two)
    uint32_t global_levels = 8;  // global view: levels below the series root
};

struct RadialLayout {
    // Preorder: a parent before its children, siblings in the sort order, an "Other" group after
    // its shown siblings. items[0] is the root (the drill root in the local view, the series root
    // in the global view). Empty only for a series without GCs.
    std::vector<RadialItem> items;
    std::vector<RadialOther> others;
    double t = 0;                   // the time laid out, clamped to the series
    uint32_t root = kNoNode;        // the node of items[0]
    uint32_t drill_root = kNoNode;  // the drill root the options asked for (after validation)
    uint32_t levels = 0;            // rings / rows used: 1 + the deepest item's depth
    double root_max = 0;            // the root's largest value over the series (the scaled reference)
    Metric metric = Metric::kBytes;
    SortStrategy sort = SortStrategy::kGrowth;
};

// Lays out `series` at fractional GC time `t` (clamped to the series). Cost: one prunedChildren
// per shown inner node, plus two passes over the items.
RadialLayout layoutRadial(const TreeSeries& series, double t, const RadialLayoutOptions& options = {});

// Ids for picking and selection: a node's id, or for an "Other" group its parent's id with the
// top bit set (a node has at most one "Other" group; series ids stay far below 2^31).
inline constexpr uint32_t kOtherPickBit = 1u << 31;
inline constexpr uint32_t kNoPick = ~uint32_t{0};
constexpr uint32_t otherPickId(uint32_t parent) {
    return parent | kOtherPickBit;
}
constexpr bool isOtherPickId(uint32_t id) {
    return id != kNoPick && (id & kOtherPickBit) != 0;
}
constexpr uint32_t pickIdNode(uint32_t id) {
    return id == kNoPick ? kNoNode : id & ~kOtherPickBit;
}
uint32_t pickIdOf(const RadialItem& item);

// The item's text: the node's label, or "Other (N)" for a group of N folded children.
std::string radialItemLabel(const TreeSeries& series, const RadialLayout& layout, const RadialItem& item);

// The value of an item (node or "Other" group) at fractional time `t`, by the layout's metric.
double radialItemValueAt(const TreeSeries& series, const RadialLayout& layout, const RadialItem& item,
                         double t);

// The breadcrumb of the drill-down: "Overall" then the labels down to the drill root.
std::vector<std::string> drillPath(const TreeSeries& series, uint32_t drill_root);

}  // namespace memcity::scene
