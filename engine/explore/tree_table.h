// The tree table beside the views (as in AntTracks or Eclipse MAT): one row per visible node of a
// tree series at fractional GC time t, with its objects, bytes, shares of the root, deep and
// retained bytes, and growth since a base time. Plain data, no UI: the explorer's table panel
// draws TreeTable::rows() and calls back setExpanded / sortBy / reveal.
//
// Shape. The rows are the preorder of the expanded tree: a row, then (when it is expanded) its
// children, each with its depth. With pruning on (TreeTableOptions::prune.enabled, the default,
// the same pruning as the city and the sunburst), a node shows TreeSeries::prunedChildren's
// `shown` children and, when it folded any, one "Other (N)" row whose id is
// scene::otherIdOf(node) and whose values are TreeSeries::sumAt over the N folded children. With
// pruning off every child has a row. An "Other" row never has children.
//
// Order. Siblings are sorted by one column, ascending or descending; ties by label (ascending),
// then by id (ascending), so the order is stable from frame to frame. Unknown deep / retained
// sizes sort after every known one in both directions, and an "Other" row always stands after
// its siblings. The tree's shape never changes with the sort, only the order of siblings.
//
// Time. t is a fractional GC index, as in TreeSeries::valueAt: values at t = 2.25 are a quarter
// of the way from GC 2's to GC 3's (clamped to the series). Growth is the value at t minus the
// value at the base time (TreeTableOptions::base_time; the series' first GC by default).
//
// Cost. update() reads only the expanded nodes and their children: per expanded node its
// children list once (cached until the pruning options change), per row four valueAt calls, one
// label and one size lookup; nothing is proportional to the size of the series. Measured: about
// 60 us per update for 300 rows of a 20k-node, 200-GC series (big-heap scale 40), 0.25 ms for 1,000.
//
// A growing series (TreeSeriesBuilder: GCs and nodes added while the table shows it) is read as
// it is at each update(): the cached children lists are dropped whenever the series' node or GC
// count changed since they were made.
//
// Threads: a TreeTable is used from one thread (it caches children lists on demand).
#pragma once

#include <cstdint>
#include <functional>
#include <optional>
#include <span>
#include <string>
#include <string_view>
#include <unordered_map>
#include <unordered_set>
#include <vector>

#include "classify/series.h"
#include "heap/sampling.h"
#include "scene/cohorts.h"

namespace memcity::explore {

enum class TableColumn : uint8_t {
    kName,           // the node's label (TreeSeries::label; "Other (N)" for an Other row)
    kObjects,        // objects at t
    kObjectsShare,   // objects at t, percent of the root's objects at t
    kBytes,          // shallow bytes at t
    kBytesShare,     // bytes at t, percent of the root's bytes at t
    kDeepBytes,      // deep bytes (from the SizeLookup; unknown when it has none)
    kRetainedBytes,  // retained bytes (from the SizeLookup; unknown when it has none)
    kObjectsGrowth,  // objects at t minus objects at the base time
    kBytesGrowth,    // bytes at t minus bytes at the base time
    // A heap diff's cohorts (update's `diff`; unknown without one): bytes born since its base GC
    // and alive at its GC, dead since, alive at both.
    kBornBytes,
    kDiedBytes,
    kPermanentBytes,
    // A sampled series' (TreeSeries::sampled): the samples behind the row's estimates at t.
    kSamples,
};
inline constexpr size_t kTableColumnCount = 13;
// A column's header text ("Name", "Objects", "% Objects", ...).
std::string_view columnTitle(TableColumn column);

// Sizes of a node computed elsewhere (in the background, from a GC with a reference snapshot).
struct NodeSizes {
    uint64_t deep_bytes = 0;      // bytes of the node's objects and of everything they reach
    uint64_t retained_bytes = 0;  // bytes that would be freed with the node's objects
    uint32_t gc = 0;              // the GC whose reference snapshot they were computed from
    bool operator==(const NodeSizes&) const = default;
};
// The sizes of a row's id (a series node id, or scene::otherIdOf(parent) for an Other row: see
// TreeTable::folded), or nullopt when they are not known (yet). Called once per row per update.
using SizeLookup = std::function<std::optional<NodeSizes>(uint32_t id)>;

struct TableRow {
    uint32_t id = 0;                 // series node id, or scene::otherIdOf(parent) for an Other row
    uint32_t parent = kNoNode;       // the parent's node id; kNoNode for the root
    uint32_t depth = 0;              // indent level: 0 for the top rows
    bool has_children = false;       // the node has children in the series (never for Other rows)
    bool expanded = false;           // its children's rows follow it
    bool other = false;              // an Other row (scene::isOtherId(id))
    uint32_t folded_count = 0;       // Other rows: how many children it holds
    std::string label;               // TreeSeries::label, or "Other (N)"
    double objects = 0;              // at t (fractional between two GCs)
    double bytes = 0;                // shallow bytes at t
    double objects_share = 0;        // percent (0-100) of the root's objects at t; 0 when the root has none
    double bytes_share = 0;          // percent of the root's bytes at t; 0 when the root has none
    double objects_growth = 0;       // objects at t minus at the base time
    double bytes_growth = 0;         // bytes at t minus at the base time
    std::optional<NodeSizes> sizes;  // deep and retained bytes; nullopt: unknown
    // Born / died / permanent of the diff update() was given (an Other row: its folded children's
    // sum); nullopt without one.
    std::optional<scene::CohortCounts> cohorts;
    // A sampled series' row: objects, bytes, shares and growth above are estimates, and these the
    // sums behind objects and bytes at t (95% interval, samples: scene/estimates.h); nullopt for
    // a series of every allocation.
    std::optional<SampleSums> sampled;
};

struct TreeTableOptions {
    TableColumn sort_column = TableColumn::kBytes;
    bool descending = true;
    // Which children have rows: prune.enabled = false shows every child. The order and metric
    // pruning reads (pick the views' so the Other ids match the city's and sunburst's).
    PruneOptions prune;
    SortStrategy prune_sort = SortStrategy::kGrowth;
    Metric prune_metric = Metric::kBytes;
    // Fractional GC time growth is measured from; nullopt: the series' first GC.
    std::optional<double> base_time;
    bool show_root = true;    // the root ("Overall") is the first row; false: its children are the top rows
    bool hide_empty = false;  // leave out rows with no objects at t (the root excepted)
};

class TreeTable {
public:
    // Contract: `series` outlives the table. Only the root starts expanded.
    explicit TreeTable(const TreeSeries& series, const TreeTableOptions& options = {});

    const TreeSeries& series() const { return *series_; }
    // Shows another series (a rebuilt or a taken-over one) from the next update(); the expanded
    // node ids are kept (they mean the same nodes when it is the same meta tree grown further).
    void setSeries(const TreeSeries& series);
    const TreeTableOptions& options() const { return options_; }
    // Take effect at the next update(); changing the pruning drops the cached children lists.
    void setOptions(const TreeTableOptions& options);
    void sortBy(TableColumn column, bool descending);

    // Expansion by series node id. Other ids, leaves and unknown ids are never expanded (calls
    // with them do nothing). Take effect at the next update().
    bool isExpanded(uint32_t node) const { return expanded_.count(node) != 0; }
    void setExpanded(uint32_t node, bool expanded);
    void toggle(uint32_t node) { setExpanded(node, !isExpanded(node)); }
    void collapseAll();                           // the root stays expanded
    std::vector<uint32_t> expandedNodes() const;  // ascending

    // Expands every ancestor of `node` so that, after the next update(), a row shows it. Returns
    // the id of that row: `node` itself, or, when pruning folded the node (or one of its
    // ancestors) into an Other group, that group's Other id (the ancestors below it stay as they
    // were). kNoNode for an unknown node. Accepts Other ids (reveals the group's parent). With
    // hide_empty, a node holding nothing at t still has no row.
    uint32_t reveal(uint32_t node);

    // Rebuilds the rows at fractional GC time `t` (touches only expanded nodes; see "Cost").
    // `sizes` may be empty: every deep / retained size is then unknown.
    // `diff` (laid onto this table's series) fills the rows' cohorts.
    void update(double t, const SizeLookup& sizes = {}, const scene::SeriesDiff* diff = nullptr);
    double time() const { return t_; }
    // The rows of the last update(), in display order.
    const std::vector<TableRow>& rows() const { return rows_; }
    // The row index of a node or Other id in rows(), or nullopt (a linear scan).
    std::optional<size_t> rowOf(uint32_t id) const;
    // The ids of the rows of the last update() whose sizes are unknown, in row order: what the UI
    // asks the background to compute.
    std::vector<uint32_t> missingSizes() const;
    // The children an Other id stands for (in the pruning order); empty for anything else.
    // Valid until the next update(), setOptions() or setSeries().
    std::span<const uint32_t> folded(uint32_t other_id) const;

    // The rows of the whole tree down to `max_depth` (row depth, as TableRow::depth), expanded or
    // not, with the same pruning, sort and options: for export. Touches every node down there.
    std::vector<TableRow> rowsToDepth(double t, uint32_t max_depth, const SizeLookup& sizes = {},
                                      const scene::SeriesDiff* diff = nullptr) const;

private:
    struct Children {
        std::vector<uint32_t> shown, folded;
    };
    const Children& childrenOf(uint32_t node) const;
    bool foldedUnder(uint32_t parent, uint32_t child) const;
    void build(double t, const SizeLookup& sizes, const scene::SeriesDiff* diff, uint32_t max_depth, bool all,
               std::vector<TableRow>& out) const;

    const TreeSeries* series_;
    TreeTableOptions options_;
    std::unordered_set<uint32_t> expanded_;
    mutable std::unordered_map<uint32_t, Children> children_;  // cache (pruning on)
    mutable size_t cached_nodes_ = 0, cached_gcs_ = 0;         // the series' size when cached
    std::vector<TableRow> rows_;
    double t_ = 0;
};

// Export. Columns, in this order: path (labels from the root's child down joined by " / ";
// empty for the root; an Other row's ends in "Other (N)"), name, depth, objects, objects %,
// bytes, bytes %, deep bytes, retained bytes, objects growth, bytes growth. Paths come from the
// rows' preorder and depths (a row's ancestors are the rows above it with smaller depths; the
// row that is not an Other row and has the root's id is the root), so `rows` must be what rows() or
// rowsToDepth give, or hand-made rows in that shape. Numbers are plain (shortest exact decimal: "56", "42.5",
// "-8"), shares have 2 decimals ("12.50"), unknown sizes are empty (CSV) or null (JSON). Rows
// with a diff's cohorts (any row's) add born objects, born bytes, died objects, died bytes,
// permanent objects and permanent bytes (empty or null for a row without). Rows of a sampled
// series (any row's TableRow::sampled), whose objects and bytes are estimates, add their 95%
// intervals and the samples behind them: objects_low, objects_high, bytes_low, bytes_high (plain
// numbers, rounded to whole objects and bytes) and samples, after the cohorts' columns.

// CSV (RFC 4180): a header row, then one line per row, lines ended by CRLF; a field holding a
// comma, a quote, CR or LF is quoted, with quotes doubled.
std::string tableCsv(std::span<const TableRow> rows);
// JSON: an array of objects, one per row, keys path, name, depth, objects, objects_pct, bytes,
// bytes_pct, deep_bytes, retained_bytes, objects_growth, bytes_growth. Strings are escaped
// (quote, backslash, control characters as \n, \t, ... or \u00XX); valid UTF-8 passes through,
// and each byte of an invalid UTF-8 sequence becomes U+FFFD so the output stays valid JSON.
std::string tableJson(std::span<const TableRow> rows);
}  // namespace memcity::explore
