// memcity series FILE [--classify CHAIN] [--filter EXPR] [--from A] [--to B] [--sort start|end|growth]
//                [--metric objects|bytes] [--depth D] [--all] [--json]

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <iostream>

#include "classify/series.h"
#include "cli/args.h"
#include "cli/classify_args.h"
#include "cli/commands.h"
#include "cli/json_writer.h"
#include "cli/load.h"
#include "cli/one_trace.h"
#include "cli/sampled_output.h"
#include "cli/series_build.h"
#include "cli/text_format.h"

namespace memcity::cli {
namespace {

constexpr size_t kSparkColumns = 24;

struct SeriesView {
    const TreeSeries& series;
    SortStrategy sort;
    Metric metric;
    PruneOptions prune;
    uint64_t depth;  // levels below the root to show
};

std::string metricText(uint64_t v, Metric m) {
    return m == Metric::kObjects ? formatCount(v) : formatBytes(v);
}

std::string growthText(int64_t g, Metric m) {
    if (g == 0) return "0";
    const uint64_t magnitude = g < 0 ? uint64_t{0} - static_cast<uint64_t>(g) : static_cast<uint64_t>(g);
    return (g < 0 ? "-" : "+") + metricText(magnitude, m);
}

// The values as block characters, one column per GC (or the largest of a few GCs per column),
// the row's largest at full height; a column with nothing is blank.
std::string sparkline(const std::vector<uint64_t>& values) {
    static const char* blocks[] = {" ", "▁", "▂", "▃", "▄", "▅", "▆", "▇", "█"};
    const size_t cols = std::min(values.size(), kSparkColumns);
    std::vector<uint64_t> col(cols, 0);
    for (size_t c = 0; c < cols; ++c) {
        const size_t a = c * values.size() / cols, b = std::max(a + 1, (c + 1) * values.size() / cols);
        for (size_t g = a; g < b; ++g)
            col[c] = std::max(col[c], values[g]);
    }
    const uint64_t top = cols ? *std::max_element(col.begin(), col.end()) : 0;
    std::string s;
    for (uint64_t v : col) {
        int e = 0;
        if (v > 0) {
            const double eighths = static_cast<double>(v) * 8 / static_cast<double>(top);
            e = std::clamp(static_cast<int>(eighths + 0.5), 1, 8);
        }
        s += blocks[e];
    }
    return s + std::string(kSparkColumns - cols, ' ');
}

// `sampled`: a sampled series' sums of the row's nodes at its last GC (its estimates then show
// their interval and samples there).
void printRow(const SeriesView& v, const std::vector<uint64_t>& values, size_t indent,
              const std::string& name, const SampleSums* sampled = nullptr) {
    const uint64_t first = values.front(), last = values.back();
    const int64_t growth = static_cast<int64_t>(last) - static_cast<int64_t>(first);
    if (sampled) {
        const bool bytes = v.metric == Metric::kBytes;
        std::printf("%s %s %s %8s  %s  %s%s\n", padLeft("\u2248 " + metricText(first, v.metric), 14).c_str(),
                    padLeft(estimateText(*sampled, bytes), 32).c_str(),
                    padLeft("\u2248 " + growthText(growth, v.metric), 14).c_str(),
                    formatCount(sampled->samples).c_str(), sparkline(values).c_str(),
                    std::string(indent * 2, ' ').c_str(), printable(name, 160).c_str());
        return;
    }
    std::printf("%12s %12s %12s  %s  %s%s\n", metricText(first, v.metric).c_str(),
                metricText(last, v.metric).c_str(), growthText(growth, v.metric).c_str(),
                sparkline(values).c_str(), std::string(indent * 2, ' ').c_str(),
                printable(name, 160).c_str());
}

// One value per GC summed over several nodes.
std::vector<uint64_t> sums(const SeriesView& v, const std::vector<uint32_t>& ids, Metric m) {
    std::vector<uint64_t> out;
    for (uint32_t g : v.series.gcs())
        out.push_back(v.series.sum(ids, g, m));
    return out;
}

void printNode(const SeriesView& v, uint32_t id, size_t indent) {
    const TreeSeries& s = v.series;
    const SampleSums at_last = s.sampledCounts(id, s.lastGc());
    printRow(v, s.values(id, v.metric), indent, s.label(id), s.sampled() ? &at_last : nullptr);
    if (indent >= v.depth) return;
    const SeriesPrunedChildren kids = s.prunedChildren(id, v.sort, v.metric, v.prune);
    for (uint32_t c : kids.shown)
        printNode(v, c, indent + 1);
    if (!kids.folded.empty()) {
        const SampleSums folded = s.sampledSum(kids.folded, s.lastGc());
        printRow(v, sums(v, kids.folded, v.metric), indent + 1,
                 "Other (" + formatCountOf(kids.folded.size(), "group", "groups") + ")",
                 s.sampled() ? &folded : nullptr);
    }
}

void jsonValues(JsonWriter& j, const char* key, const std::vector<uint64_t>& values) {
    j.key(key).beginArray();
    for (uint64_t x : values)
        j.value(x);
    j.endArray();
}

// A sampled series' intervals and samples, one per GC, for `ids` together.
void jsonSampled(const SeriesView& v, JsonWriter& j, const std::vector<uint32_t>& ids) {
    const TreeSeries& s = v.series;
    if (!s.sampled()) return;
    std::vector<Estimate> objects, bytes;
    std::vector<uint64_t> samples;
    for (uint32_t g : s.gcs()) {
        const SampleSums sums = s.sampledSum(ids, g);
        objects.push_back(sums.objectsEstimate());
        bytes.push_back(sums.bytesEstimate());
        samples.push_back(sums.samples);
    }
    auto bounds = [&](const char* key, const std::vector<Estimate>& e, bool high) {
        j.key(key).beginArray();
        for (const Estimate& x : e)
            j.value(static_cast<uint64_t>(std::llround(std::max(high ? x.high : x.low, 0.0))));
        j.endArray();
    };
    bounds("objects_low", objects, false);
    bounds("objects_high", objects, true);
    bounds("bytes_low", bytes, false);
    bounds("bytes_high", bytes, true);
    jsonValues(j, "samples", samples);
}

void jsonNode(const SeriesView& v, JsonWriter& j, uint32_t id, size_t level) {
    const TreeSeries& s = v.series;
    j.beginObject();
    j.field("id", id).field("name", s.label(id));
    if (id != TreeSeries::kRoot) j.field("classifier", s.classifierSpec(id));
    j.field("first_gc", s.node(id).first_gc);
    jsonValues(j, "objects", s.values(id, Metric::kObjects));
    jsonValues(j, "bytes", s.values(id, Metric::kBytes));
    jsonSampled(v, j, {id});
    if (level < v.depth && !s.node(id).children.empty()) {
        const SeriesPrunedChildren kids = s.prunedChildren(id, v.sort, v.metric, v.prune);
        j.key("children").beginArray();
        for (uint32_t c : kids.shown)
            jsonNode(v, j, c, level + 1);
        j.endArray();
        if (!kids.folded.empty()) {
            j.key("other").beginObject();
            j.field("groups", static_cast<uint64_t>(kids.folded.size()));
            jsonValues(j, "objects", sums(v, kids.folded, Metric::kObjects));
            jsonValues(j, "bytes", sums(v, kids.folded, Metric::kBytes));
            jsonSampled(v, j, kids.folded);
            j.endObject();
        }
    }
    j.endObject();
}

int runSeries(const Words& words) {
    auto args = oneTraceArgs("series", words);
    if (!args) return args.status();
    auto opts = readClassifyArgs(*args, "series", "type,site", "bytes");
    if (!opts) {
        std::cerr << opts.error().message << "\n";
        return 1;
    }
    const std::string sort_name = args->value("--sort").value_or("growth");
    auto sort = parseSort(sort_name, "series");
    if (!sort) {
        std::cerr << sort.error().message << "\n";
        return 1;
    }
    auto loaded = loadOrSay(args->positionals()[0], {.reachability = false});
    if (!loaded) return 1;
    const HeapHistory& h = *loaded->history;
    if (h.gcCount() == 0) {
        std::cerr << "memcity series: " << loaded->trace->path() << ": the trace has no GCs\n";
        return 1;
    }
    auto window = readGcWindow(*args, h, "series");
    if (!window) {
        std::cerr << window.error().message << "\n";
        return 1;
    }
    const uint64_t from = window->from, last = window->to;
    printDiagnostics(*loaded, std::cerr, false);

    auto series = buildSeries(*loaded, opts->chain, {.window = *window}, "series");
    if (!series) {
        std::cerr << series.error().message << "\n";
        return 1;
    }
    SeriesView v{*series, *sort, opts->metric, {}, opts->depth};
    v.prune.enabled = !opts->all;

    if (args->has("--json")) {
        JsonWriter j;
        j.beginObject();
        j.field("file", loaded->trace->path()).field("from", from).field("to", last);
        j.field("classifiers", opts->chain.spec());
        j.key("filter");
        if (opts->filter)
            j.value(*opts->filter);
        else
            j.null();
        j.field("metric", opts->metric_name).field("sort", sort_name);
        jsonSampling(j, h);
        j.field("meta_nodes", static_cast<uint64_t>(series->size()));
        j.key("gcs").beginArray();
        for (uint32_t g : series->gcs())
            j.value(g);
        j.endArray();
        std::vector<uint64_t> fo, fb;
        for (uint32_t g : series->gcs()) {
            fo.push_back(series->filtered(g).objects);
            fb.push_back(series->filtered(g).bytes);
        }
        jsonValues(j, "filtered_objects", fo);
        jsonValues(j, "filtered_bytes", fb);
        j.key("tree");
        jsonNode(v, j, TreeSeries::kRoot, 0);
        j.endObject();
        std::cout << j.str();
        return 0;
    }
    std::cout << loaded->trace->path() << ", GC " << from << ".." << last << " ("
              << formatCountOf(series->gcCount(), "GC", "GCs")
              << (opts->chain.needsReferences() ? " with a reference snapshot" : "") << "), by "
              << opts->chain.spec() << ", " << formatCountOf(series->size(), "group", "groups")
              << ", sorted by " << sort_name << " of " << opts->metric_name;
    if (opts->filter) std::cout << " (filter " << printable(*opts->filter, 80) << ")";
    std::cout << "\n";
    sayEstimates(h, std::cout);
    const std::string first_head = "GC " + std::to_string(series->firstGc()),
                      last_head = "GC " + std::to_string(series->lastGc());
    if (series->sampled())
        std::printf("%14s %32s %14s %8s  %-*s  %s\n", first_head.c_str(),
                    (last_head + " (95% interval)").c_str(), "growth", "samples",
                    static_cast<int>(kSparkColumns), "over time", "group");
    else
        std::printf("%12s %12s %12s  %-*s  %s\n", first_head.c_str(), last_head.c_str(), "growth",
                    static_cast<int>(kSparkColumns), "over time", "group");
    printNode(v, TreeSeries::kRoot, 0);
    return 0;
}

}  // namespace

extern const Command kSeries{
    .name = "series",
    .summary = "every GC of a window as one tree: each group's size over time, growth first",
    .usage = R"(usage: memcity series FILE [--classify CHAIN] [--filter EXPR] [--from A] [--to B]
                      [--sort start|end|growth] [--metric objects|bytes] [--depth D] [--all] [--json]

Classifies the live objects of every GC from A to B (default: all GCs) by a chain of
classifiers (default type,site; see 'memcity report --help') and merges the trees into one:
a group keeps its place at every GC, also when it vanishes and comes back (STAG20, 5).
Each row shows the group's size at the first and the last GC, its growth, and its size over
time as a small chart (one column per GC, or the largest of a few GCs per column).
With classifiers that read references (structure, roots, ...), only the GCs of the window
that have a reference snapshot.

One order of the children holds for the whole window: by growth (last minus first, the
default), by size at the first GC (start) or at the last (end). Each level shows the first
children in that order until they hold 90% of their parent at every GC, at most 9; the rest
are summed up as "Other".

)",
    .options =
        {
            {"--classify", "C", "", "the classifier chain (default type,site)"},
            {"--filter", "EXPR", "", "classify only the objects for which EXPR is true"},
            {"--from", "A", "", ""},
            {"--to", "B", "", "the first and last GC (default: the whole trace)"},
            {"--sort", "S", "", "growth (default), start or end"},
            {"--metric", "M", "", "objects or bytes (default): what is sorted and shown"},
            {"--depth", "D", "", "levels to show below the root (default: all)"},
            {"--all", "", "", "every group, no \"Other\""},
            {"--json", "", "", "print JSON instead: the tree with per-GC arrays (docs/cli.md)"},
        },
    .run = [](const Words& a, const Services&) { return runSeries(a); },
};

}  // namespace memcity::cli
