// The memory city (Memory Cities, VISSOFT'20; STAG20 §5.1 "static position animation"): districts
// are the inner nodes of a tree series' meta tree, buildings its leaves, laid out once for the
// whole series by a squarified treemap, so nothing moves while time does; a building's footprint
// area is proportional to its node's peak value over the series, its height shows the value now.
//
// Structure. The root is the city's ground plate (district 0). Below a district stand its
// children in the series' sort order (one order for the whole series), pruned as TreeSeries::
// prunedChildren prunes them (the children that hold 90% of the parent at every GC, at most 9):
// a shown child with children of its own is a district (up to max_depth), any other shown child
// is a building, and everything else under the district becomes ONE "Other" building standing
// last, whose id is otherIdOf(the district's node). A child that holds nothing at any GC takes no
// space and is left out.
//
// Geometry. x and z run from 0 to options.size, y is up. Each district's plate rests on its
// parent's: a depth-d plate spans y in [d, d + 1] * plate_height, and a building stands on its
// district's plate top. Children are laid out inside the district's plate shrunk by half a
// street on every side; each child's cell is shrunk by another half street, so siblings are one
// street apart (street * street_decay^depth of the district; never more than max_street_share of
// the cell's shorter side on each side, nor max_building_gap_share for a building's cell).
// Footprints are proportional to peaks exactly when the street is 0; with streets, a small cell
// loses a larger share of its area.
//
// Storage. Districts in preorder; each one's subtree is a contiguous range of districts and of
// buildings (the buildings standing on its own plate first), which lets culling and merging skip
// whole subtrees.
#pragma once

#include <array>
#include <cstdint>
#include <string>
#include <vector>

#include "classify/series.h"
#include "classify/tree.h"
#include "scene/geometry.h"
#include "util/result.h"

namespace memcity::scene {

// Building ids are series node ids, except the "Other" building of a district: kOtherBit | the
// district's node id. Series ids stay below 2^31.
inline constexpr uint32_t kOtherBit = 0x80000000u;
constexpr uint32_t otherIdOf(uint32_t district_node) {
    return district_node | kOtherBit;
}
constexpr bool isOtherId(uint32_t id) {
    return (id & kOtherBit) != 0;
}
constexpr uint32_t otherParentOf(uint32_t other_id) {
    return other_id & ~kOtherBit;
}
inline constexpr uint32_t kNoIndex = UINT32_MAX;

// Index of a metric in per-metric arrays.
constexpr size_t metricIndex(Metric metric) {
    return metric == Metric::kObjects ? 0 : 1;
}

struct CityLayoutOptions {
    Metric metric = Metric::kBytes;             // what footprints (peaks), the order and pruning read
    SortStrategy sort = SortStrategy::kGrowth;  // the fixed order of every node's children
    PruneOptions prune;                         // which children are shown (enabled = false: all)
    uint32_t max_depth = 8;                     // nodes at this depth are buildings even with children (>= 1)
    float size = 1000.0f;                       // side of the square city, world units
    float street = 12.0f;                       // street between the districts of depth 1 (world units)
    float street_decay = 0.55f;                 // each level deeper multiplies the street by this
    float max_street_share = 0.15f;             // at most this share of a cell's shorter side, per side
    float max_building_gap_share = 0.08f;       // the same for buildings' cells (keeps >= 70% of a lot)
    float plate_height = 2.0f;                  // thickness of a district plate, world units
    float height = 250.0f;                      // the tallest building at its peak, world units (CityState)
    unsigned threads = 2;  // threads reading the series' columns (the same city with any)
};

struct CityDistrict {
    uint32_t node = 0;                     // series node id (district 0: TreeSeries::kRoot)
    uint32_t depth = 0;                    // edges from the root
    uint32_t parent = kNoIndex;            // index into CityLayout::districts; kNoIndex for the root
    float x0 = 0, z0 = 0, x1 = 0, z1 = 0;  // plate footprint, world units
    float y0 = 0, y1 = 0;                  // plate bottom and top
    uint32_t district_end = 0;             // districts (index, district_end) lie inside this one
    uint32_t building_begin = 0, direct_end = 0, building_end = 0;  // see "Storage" above
    float max_building_side = 0;  // the longest footprint side of the buildings inside
    double weight = 0;            // sum of the buildings' peaks inside (layout metric)
    uint32_t label = 0;           // index into CityLayout::labels
};

struct CityBuilding {
    uint32_t id = 0;                       // series node id, or otherIdOf(the district's node)
    uint32_t district = 0;                 // the district whose plate it stands on (index)
    float x0 = 0, z0 = 0, x1 = 0, z1 = 0;  // footprint, world units
    float base = 0;                        // y of its foot: its district's plate top
    // Peak value over the series per metric (metricIndex), never 0 for the layout metric.
    std::array<double, 2> peak{};
    // "Other": CityLayout::group_ids[group_begin, group_mid) are the folded children and
    // [group_mid, group_end) the district's shown children; its value at a GC is the larger of
    // the folded children's sum and the district's value minus its shown children's sum (objects
    // a one-to-hierarchy path leaves at the district count there; a one-to-many classifier may
    // count an object in several children, then the sum holds). Empty ranges otherwise.
    uint32_t group_begin = 0, group_mid = 0, group_end = 0;

    float area() const { return (x1 - x0) * (z1 - z0); }
};

constexpr uint64_t valueOf(const SeriesCounts& c, Metric metric) {
    return metric == Metric::kObjects ? c.objects : c.bytes;
}

// Every node's counts at the GC with index `index` of series.gcs() (index < gcCount()), zero for
// the nodes it does not hold: out.size() becomes series.size().
void readColumn(const TreeSeries& series, size_t index, std::vector<SeriesCounts>& out);

// Every node's children in the series' fixed order and how many of them are shown, with every
// node's peaks: the same order and pruning as TreeSeries::sortedChildren / prunedChildren, for all
// nodes at once, reading each column of the series once.
struct SeriesOrder {
    std::vector<uint32_t> child_begin;          // size() + 1 offsets into children
    std::vector<uint32_t> children;             // each node's children in the sort order
    std::vector<uint32_t> shown_count;          // the first shown_count[id] children are shown
    std::array<std::vector<uint64_t>, 2> peak;  // per metric (metricIndex), per node
    // Per metric and node: the peak of what its Other building holds with shown_count children
    // shown (see CityBuilding::group_begin); 0 for a leaf.
    std::array<std::vector<uint64_t>, 2> other_peak;

    std::span<const uint32_t> childrenOf(uint32_t id) const {
        return {children.data() + child_begin[id], children.data() + child_begin[id + 1]};
    }
};
// `threads` split the GCs between them (the result does not depend on how many).
SeriesOrder orderSeries(const TreeSeries& series, SortStrategy sort, Metric metric, const PruneOptions& prune,
                        unsigned threads = 1);

struct CityLayout {
    CityLayoutOptions options;
    std::vector<CityDistrict> districts;  // preorder; [0] is the root
    std::vector<CityBuilding> buildings;  // see "Storage"
    std::vector<uint32_t> group_ids;      // the "Other" buildings' node lists
    std::vector<std::string> labels;      // the distinct district labels (districtLabel)
    Bounds bounds;                        // the plates and the tallest building at its peak (options.height)
    std::array<double, 2> global_peak{};  // the largest building peak per metric (metricIndex)
    size_t node_count = 0;                // series.size() when laid out
    size_t gc_count = 0;                  // series.gcCount() when laid out

    // series.label(node) of district `index`.
    const std::string& districtLabel(size_t index) const { return labels[districts[index].label]; }
    // Index of the building showing `id` (a node or an Other id), or kNoIndex.
    // Both finds are linear scans.
    uint32_t findBuilding(uint32_t id) const;
    // Index of the district of node `id`, or kNoIndex.
    uint32_t findDistrict(uint32_t id) const;
};

// Lays out the city of `series` once for all its GCs. Errors: a series without GCs, options out of
// range (size, height or plate height not positive, max_depth 0, negative streets).
// The layout holds no reference to the series; CityState reads the series' columns again, so
// pass the same series to cityAt.
Result<CityLayout> buildCityLayout(const TreeSeries& series, const CityLayoutOptions& options = {});

}  // namespace memcity::scene
