#include "explore/tree_table.h"

#include <algorithm>
#include <array>
#include <charconv>
#include <cmath>
#include <utility>

#include "scene/city_layout.h"
#include "scene/estimates.h"
#include "util/json.h"

namespace memcity::explore {

std::string_view columnTitle(TableColumn column) {
    switch (column) {
        case TableColumn::kName: return "Name";
        case TableColumn::kObjects: return "Objects";
        case TableColumn::kObjectsShare: return "% Objects";
        case TableColumn::kBytes: return "Bytes";
        case TableColumn::kBytesShare: return "% Bytes";
        case TableColumn::kDeepBytes: return "Deep bytes";
        case TableColumn::kRetainedBytes: return "Retained bytes";
        case TableColumn::kObjectsGrowth: return "Objects growth";
        case TableColumn::kBytesGrowth: return "Bytes growth";
        case TableColumn::kBornBytes: return "Born";
        case TableColumn::kDiedBytes: return "Died";
        case TableColumn::kPermanentBytes: return "Permanent";
        case TableColumn::kSamples: return "Samples";
    }
    return "";
}

TreeTable::TreeTable(const TreeSeries& series, const TreeTableOptions& options)
    : series_(&series), options_(options) {
    expanded_.insert(TreeSeries::kRoot);
}

void TreeTable::setOptions(const TreeTableOptions& options) {
    const PruneOptions& a = options_.prune;
    const PruneOptions& b = options.prune;
    if (a.enabled != b.enabled || a.share != b.share || a.max_children != b.max_children ||
        options_.prune_sort != options.prune_sort || options_.prune_metric != options.prune_metric)
        children_.clear();
    options_ = options;
}

void TreeTable::setSeries(const TreeSeries& series) {
    series_ = &series;
    children_.clear();
}

void TreeTable::sortBy(TableColumn column, bool descending) {
    options_.sort_column = column;
    options_.descending = descending;
}

void TreeTable::setExpanded(uint32_t node, bool expanded) {
    if (node >= series_->size()) return;  // Other ids have the top bit set: never below size()
    if (!expanded) {
        expanded_.erase(node);
    } else if (!series_->node(node).children.empty()) {
        expanded_.insert(node);
    }
}

void TreeTable::collapseAll() {
    expanded_.clear();
    expanded_.insert(TreeSeries::kRoot);
}

std::vector<uint32_t> TreeTable::expandedNodes() const {
    std::vector<uint32_t> out(expanded_.begin(), expanded_.end());
    std::sort(out.begin(), out.end());
    return out;
}

const TreeTable::Children& TreeTable::childrenOf(uint32_t node) const {
    if (cached_nodes_ != series_->size() || cached_gcs_ != series_->gcCount()) {
        children_.clear();
        cached_nodes_ = series_->size();
        cached_gcs_ = series_->gcCount();
    }
    auto it = children_.find(node);
    if (it != children_.end()) return it->second;
    SeriesPrunedChildren pruned =
        series_->prunedChildren(node, options_.prune_sort, options_.prune_metric, options_.prune);
    Children c{std::move(pruned.shown), std::move(pruned.folded)};
    return children_.emplace(node, std::move(c)).first->second;
}

bool TreeTable::foldedUnder(uint32_t parent, uint32_t child) const {
    if (!options_.prune.enabled) return false;
    const std::vector<uint32_t>& folded = childrenOf(parent).folded;
    return std::find(folded.begin(), folded.end(), child) != folded.end();
}

uint32_t TreeTable::reveal(uint32_t node) {
    uint32_t target = node;
    if (scene::isOtherId(node)) target = scene::otherParentOf(node);
    if (target >= series_->size()) return kNoNode;
    std::vector<uint32_t> chain;  // target, its parent, ..., the root
    for (uint32_t n = target; n != kNoNode; n = series_->node(n).parent)
        chain.push_back(n);
    std::reverse(chain.begin(), chain.end());
    for (size_t i = 0; i + 1 < chain.size(); ++i) {
        setExpanded(chain[i], true);
        if (foldedUnder(chain[i], chain[i + 1])) return scene::otherIdOf(chain[i]);
    }
    if (scene::isOtherId(node)) {
        setExpanded(target, true);
        if (!options_.prune.enabled || childrenOf(target).folded.empty()) return target;
    }
    return node;
}

std::span<const uint32_t> TreeTable::folded(uint32_t other_id) const {
    if (!scene::isOtherId(other_id) || !options_.prune.enabled) return {};
    const uint32_t parent = scene::otherParentOf(other_id);
    if (parent >= series_->size()) return {};
    return childrenOf(parent).folded;
}

namespace {

// Siblings' order (see the header's "Order"): true when `a` stands before `b`.
struct RowOrder {
    TableColumn column;
    bool descending;

    // <0, 0, >0 as a is smaller than, equal to, larger than b in `column`.
    static int compare(double a, double b) { return a < b ? -1 : (a > b ? 1 : 0); }

    bool operator()(const TableRow& a, const TableRow& b) const {
        if (a.other != b.other) return b.other;
        int c = 0;
        switch (column) {
            case TableColumn::kName: c = a.label.compare(b.label); break;
            case TableColumn::kObjects: c = compare(a.objects, b.objects); break;
            case TableColumn::kObjectsShare: c = compare(a.objects_share, b.objects_share); break;
            case TableColumn::kBytes: c = compare(a.bytes, b.bytes); break;
            case TableColumn::kBytesShare: c = compare(a.bytes_share, b.bytes_share); break;
            case TableColumn::kObjectsGrowth: c = compare(a.objects_growth, b.objects_growth); break;
            case TableColumn::kBytesGrowth: c = compare(a.bytes_growth, b.bytes_growth); break;
            case TableColumn::kDeepBytes:
            case TableColumn::kRetainedBytes:
                if (a.sizes.has_value() != b.sizes.has_value()) return a.sizes.has_value();  // unknown last
                if (a.sizes) {
                    const bool deep = column == TableColumn::kDeepBytes;
                    const uint64_t x = deep ? a.sizes->deep_bytes : a.sizes->retained_bytes;
                    const uint64_t y = deep ? b.sizes->deep_bytes : b.sizes->retained_bytes;
                    c = x < y ? -1 : (x > y ? 1 : 0);
                }
                break;
            case TableColumn::kSamples: {
                const uint64_t x = a.sampled ? a.sampled->samples : 0, y = b.sampled ? b.sampled->samples : 0;
                c = x < y ? -1 : (x > y ? 1 : 0);
                break;
            }
            case TableColumn::kBornBytes:
            case TableColumn::kDiedBytes:
            case TableColumn::kPermanentBytes: {
                if (a.cohorts.has_value() != b.cohorts.has_value()) return a.cohorts.has_value();
                if (a.cohorts) {
                    const scene::Cohort k = column == TableColumn::kBornBytes   ? scene::Cohort::kBorn
                                            : column == TableColumn::kDiedBytes ? scene::Cohort::kDied
                                                                                : scene::Cohort::kPermanent;
                    const uint64_t x = a.cohorts->of(k).bytes, y = b.cohorts->of(k).bytes;
                    c = x < y ? -1 : (x > y ? 1 : 0);
                }
                break;
            }
        }
        if (c != 0) return descending ? c > 0 : c < 0;
        if (a.label != b.label) return a.label < b.label;
        return a.id < b.id;
    }
};

// What every row of one build shares.
struct BuildContext {
    const TreeSeries& series;
    const SizeLookup& sizes;
    const scene::SeriesDiff* diff;
    double t = 0, base = 0;
    double root_objects = 0, root_bytes = 0;

    void fill(TableRow& row, std::span<const uint32_t> ids) const {
        row.objects = series.sumAt(ids, t, Metric::kObjects);
        row.bytes = series.sumAt(ids, t, Metric::kBytes);
        row.objects_share = root_objects > 0 ? 100.0 * row.objects / root_objects : 0.0;
        row.bytes_share = root_bytes > 0 ? 100.0 * row.bytes / root_bytes : 0.0;
        row.objects_growth = row.objects - series.sumAt(ids, base, Metric::kObjects);
        row.bytes_growth = row.bytes - series.sumAt(ids, base, Metric::kBytes);
        if (sizes) row.sizes = sizes(row.id);
        if (diff) row.cohorts = diff->sum(ids);
        if (series.sampled()) row.sampled = scene::sampledSumAt(series, ids, t);
    }
};

}  // namespace

void TreeTable::build(double t, const SizeLookup& sizes, const scene::SeriesDiff* diff, uint32_t max_depth,
                      bool all, std::vector<TableRow>& out) const {
    out.clear();
    const TreeSeries& s = *series_;
    if (s.size() == 0) return;
    const BuildContext ctx{s,
                           sizes,
                           diff,
                           t,
                           options_.base_time.value_or(static_cast<double>(s.firstGc())),
                           s.valueAt(TreeSeries::kRoot, t, Metric::kObjects),
                           s.valueAt(TreeSeries::kRoot, t, Metric::kBytes)};
    const RowOrder order{options_.sort_column, options_.descending};

    auto opens = [&](uint32_t node, uint32_t depth) {
        if (s.node(node).children.empty()) return false;
        return all ? depth < max_depth : isExpanded(node);
    };
    auto nodeRow = [&](uint32_t node, uint32_t depth) {
        TableRow row;
        row.id = node;
        row.parent = s.node(node).parent;
        row.depth = depth;
        row.has_children = !s.node(node).children.empty();
        row.expanded = opens(node, depth);
        row.label = s.label(node);
        const uint32_t ids[] = {node};
        ctx.fill(row, ids);
        return row;
    };
    // Appends the rows below `node` (whose own row, if any, is at depth - 1), in preorder.
    auto emit = [&](auto& self, uint32_t node, uint32_t depth) -> void {
        if (all && depth > max_depth) return;
        std::span<const uint32_t> shown = s.node(node).children, folded;
        if (options_.prune.enabled) {
            const Children& c = childrenOf(node);
            shown = c.shown;
            folded = c.folded;
        }
        std::vector<TableRow> siblings;
        siblings.reserve(shown.size() + 1);
        for (uint32_t child : shown) {
            TableRow row = nodeRow(child, depth);
            if (options_.hide_empty && row.objects == 0 && row.bytes == 0) continue;
            siblings.push_back(std::move(row));
        }
        if (!folded.empty()) {
            TableRow row;
            row.id = scene::otherIdOf(node);
            row.parent = node;
            row.depth = depth;
            row.other = true;
            row.folded_count = static_cast<uint32_t>(folded.size());
            row.label = "Other (" + std::to_string(folded.size()) + ")";
            ctx.fill(row, folded);
            if (!options_.hide_empty || row.objects != 0 || row.bytes != 0)
                siblings.push_back(std::move(row));
        }
        std::sort(siblings.begin(), siblings.end(), order);
        for (TableRow& row : siblings) {
            const bool open = row.expanded;
            const uint32_t id = row.id;
            out.push_back(std::move(row));
            if (open) self(self, id, depth + 1);
        }
    };

    if (options_.show_root) {
        out.push_back(nodeRow(TreeSeries::kRoot, 0));
        if (out.back().expanded) emit(emit, TreeSeries::kRoot, 1);
    } else {
        emit(emit, TreeSeries::kRoot, 0);
    }
}

void TreeTable::update(double t, const SizeLookup& sizes, const scene::SeriesDiff* diff) {
    t_ = t;
    build(t, sizes, diff, 0, false, rows_);
}

std::vector<TableRow> TreeTable::rowsToDepth(double t, uint32_t max_depth, const SizeLookup& sizes,
                                             const scene::SeriesDiff* diff) const {
    std::vector<TableRow> out;
    build(t, sizes, diff, max_depth, true, out);
    return out;
}

std::optional<size_t> TreeTable::rowOf(uint32_t id) const {
    for (size_t i = 0; i < rows_.size(); ++i)
        if (rows_[i].id == id) return i;
    return std::nullopt;
}

std::vector<uint32_t> TreeTable::missingSizes() const {
    std::vector<uint32_t> out;
    for (const TableRow& row : rows_)
        if (!row.sizes) out.push_back(row.id);
    return out;
}

// ---- export ----

namespace {

// Shortest exact decimal without an exponent ("56", "42.5", "-8").
std::string plainNumber(double v) {
    if (v == 0) v = 0;  // no "-0"
    char buf[400];
    auto [end, ec] = std::to_chars(buf, buf + sizeof buf, v, std::chars_format::fixed);
    return ec == std::errc() ? std::string(buf, end) : std::string("0");
}

std::string shareNumber(double v) {
    if (v == 0) v = 0;
    char buf[400];
    auto [end, ec] = std::to_chars(buf, buf + sizeof buf, v, std::chars_format::fixed, 2);
    return ec == std::errc() ? std::string(buf, end) : std::string("0.00");
}

// Every exported field of one row, as text; sizes empty when unknown.
struct ExportFields {
    std::string path, name, depth, objects, objects_pct, bytes, bytes_pct, deep, retained, objects_growth,
        bytes_growth;
    std::array<std::string, 6> cohorts;  // born, died, permanent: objects then bytes each
    std::array<std::string, 5> sampled;  // objects low, high, bytes low, high, samples
};

constexpr std::array<const char*, 6> kCohortFields = {"born_objects", "born_bytes",        "died_objects",
                                                      "died_bytes",   "permanent_objects", "permanent_bytes"};

constexpr std::array<const char*, 5> kSampledFields = {"objects_low", "objects_high", "bytes_low",
                                                       "bytes_high", "samples"};

bool anyCohorts(std::span<const TableRow> rows) {
    return std::any_of(rows.begin(), rows.end(), [](const TableRow& r) { return r.cohorts.has_value(); });
}

bool anySampled(std::span<const TableRow> rows) {
    return std::any_of(rows.begin(), rows.end(), [](const TableRow& r) { return r.sampled.has_value(); });
}

std::vector<ExportFields> exportFields(std::span<const TableRow> rows) {
    std::vector<ExportFields> out;
    out.reserve(rows.size());
    struct Open {
        uint32_t depth;
        std::string path;  // the path down to and including this row
    };
    std::vector<Open> open;  // the rows above the current one that hold it
    for (const TableRow& row : rows) {
        while (!open.empty() && open.back().depth >= row.depth)
            open.pop_back();
        const bool root = !row.other && row.id == TreeSeries::kRoot;
        std::string path;
        if (!root) {
            path = open.empty() ? std::string() : open.back().path;
            if (!path.empty()) path += " / ";
            path += row.label;
        }
        open.push_back({row.depth, path});
        ExportFields f;
        f.path = std::move(path);
        f.name = row.label;
        f.depth = std::to_string(row.depth);
        f.objects = plainNumber(row.objects);
        f.objects_pct = shareNumber(row.objects_share);
        f.bytes = plainNumber(row.bytes);
        f.bytes_pct = shareNumber(row.bytes_share);
        if (row.sizes) {
            f.deep = std::to_string(row.sizes->deep_bytes);
            f.retained = std::to_string(row.sizes->retained_bytes);
        }
        f.objects_growth = plainNumber(row.objects_growth);
        f.bytes_growth = plainNumber(row.bytes_growth);
        if (row.cohorts)
            for (size_t c = 0; c < scene::kCohortCount; ++c) {
                const SeriesCounts& v = row.cohorts->of(static_cast<scene::Cohort>(c));
                f.cohorts[2 * c] = std::to_string(v.objects);
                f.cohorts[2 * c + 1] = std::to_string(v.bytes);
            }
        if (row.sampled) {
            const Estimate o = row.sampled->objectsEstimate(), b = row.sampled->bytesEstimate();
            f.sampled = {plainNumber(std::round(o.low)), plainNumber(std::round(o.high)),
                         plainNumber(std::round(b.low)), plainNumber(std::round(b.high)),
                         std::to_string(row.sampled->samples)};
        }
        out.push_back(std::move(f));
    }
    return out;
}

void appendCsvField(std::string& out, std::string_view field) {
    if (field.find_first_of(",\"\r\n") == std::string_view::npos) {
        out += field;
        return;
    }
    out += '"';
    for (char c : field) {
        if (c == '"') out += '"';
        out += c;
    }
    out += '"';
}

}  // namespace

std::string tableCsv(std::span<const TableRow> rows) {
    std::string out =
        "path,name,depth,objects,objects_pct,bytes,bytes_pct,deep_bytes,retained_bytes,objects_growth,"
        "bytes_growth";
    const bool cohorts = anyCohorts(rows), sampled = anySampled(rows);
    if (cohorts)
        for (const char* name : kCohortFields)
            out += std::string(",") + name;
    if (sampled)
        for (const char* name : kSampledFields)
            out += std::string(",") + name;
    out += "\r\n";
    for (const ExportFields& f : exportFields(rows)) {
        appendCsvField(out, f.path);
        out += ',';
        appendCsvField(out, f.name);
        for (const std::string* field : {&f.depth, &f.objects, &f.objects_pct, &f.bytes, &f.bytes_pct,
                                         &f.deep, &f.retained, &f.objects_growth, &f.bytes_growth}) {
            out += ',';
            out += *field;
        }
        if (cohorts)
            for (const std::string& field : f.cohorts)
                out += ',' + field;
        if (sampled)
            for (const std::string& field : f.sampled)
                out += ',' + field;
        out += "\r\n";
    }
    return out;
}

std::string tableJson(std::span<const TableRow> rows) {
    const std::vector<ExportFields> fields = exportFields(rows);
    if (fields.empty()) return "[]\n";
    const bool cohorts = anyCohorts(rows), sampled = anySampled(rows);
    std::string out = "[\n";
    for (size_t i = 0; i < fields.size(); ++i) {
        const ExportFields& f = fields[i];
        auto orNull = [](const std::string& v) { return v.empty() ? std::string("null") : v; };
        out += "  {\"path\": " + jsonString(f.path) + ", \"name\": " + jsonString(f.name) +
               ", \"depth\": " + f.depth + ", \"objects\": " + f.objects +
               ", \"objects_pct\": " + f.objects_pct + ", \"bytes\": " + f.bytes +
               ", \"bytes_pct\": " + f.bytes_pct + ", \"deep_bytes\": " + orNull(f.deep) +
               ", \"retained_bytes\": " + orNull(f.retained) + ", \"objects_growth\": " + f.objects_growth +
               ", \"bytes_growth\": " + f.bytes_growth;
        if (cohorts)
            for (size_t k = 0; k < f.cohorts.size(); ++k)
                out += std::string(", \"") + kCohortFields[k] + "\": " + orNull(f.cohorts[k]);
        if (sampled)
            for (size_t k = 0; k < f.sampled.size(); ++k)
                out += std::string(", \"") + kSampledFields[k] + "\": " + orNull(f.sampled[k]);
        out += "}";
        out += i + 1 < fields.size() ? ",\n" : "\n";
    }
    out += "]\n";
    return out;
}

}  // namespace memcity::explore
