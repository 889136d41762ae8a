// memcity diff FILE --from A --to B [--classify CHAIN] [--filter EXPR] [--metric objects|bytes]
//              [--depth D] [--all] [--json]
#include <cstdio>
#include <iostream>

#include "classify/diff.h"
#include "classify/plugin_classifier.h"
#include "cli/args.h"
#include "cli/classify_args.h"
#include "cli/commands.h"
#include "cli/json_writer.h"
#include "cli/load.h"
#include "cli/sampled_output.h"
#include "cli/text_format.h"
#include "util/parallel.h"

namespace memcity::cli {
namespace {

constexpr size_t kShownChildren = 9;

struct DiffView {
    const HeapDiff& diff;
    Metric metric;
    bool all;
    uint64_t depth;
};

std::string metricText(const DiffCounts& c, Metric m) {
    return m == Metric::kObjects ? formatCount(c.objects) : formatBytes(c.bytes);
}

void printRow(const DiffView& v, const DiffNode& n, size_t indent, const std::string& name) {
    if (v.diff.sampled()) {
        const bool bytes = v.metric == Metric::kBytes;
        std::printf("%s %s %s  %s%s\n", padLeft(estimateText(n.born_sampled, bytes), 32).c_str(),
                    padLeft(estimateText(n.died_sampled, bytes), 32).c_str(),
                    padLeft(estimateText(n.permanent_sampled, bytes), 32).c_str(),
                    std::string(indent * 2, ' ').c_str(), printable(name, 160).c_str());
        return;
    }
    std::printf("%14s %14s %14s  %s%s\n", metricText(n.born, v.metric).c_str(),
                metricText(n.died, v.metric).c_str(), metricText(n.permanent, v.metric).c_str(),
                std::string(indent * 2, ' ').c_str(), printable(name, 160).c_str());
}

void printNode(const DiffView& v, uint32_t id, size_t indent) {
    const DiffNode& n = v.diff.node(id);
    printRow(v, n, indent, n.label);
    if (indent >= v.depth) return;
    const std::vector<uint32_t> kids = v.diff.sortedChildren(id, v.metric);
    DiffNode other;
    size_t folded = 0;
    for (size_t i = 0; i < kids.size(); ++i) {
        if (v.all || i < kShownChildren) {
            printNode(v, kids[i], indent + 1);
            continue;
        }
        const DiffNode& k = v.diff.node(kids[i]);
        other.born += k.born, other.died += k.died, other.permanent += k.permanent;
        other.born_sampled += k.born_sampled, other.died_sampled += k.died_sampled;
        other.permanent_sampled += k.permanent_sampled;
        ++folded;
    }
    if (folded) printRow(v, other, indent + 1, "Other (" + formatCountOf(folded, "group", "groups") + ")");
}

void counts(JsonWriter& j, const char* key, const DiffCounts& c, const SampleSums* sampled) {
    j.key(key).beginObject();
    j.field("objects", c.objects).field("bytes", c.bytes);
    if (sampled) {
        jsonEstimate(j, "objects_estimate", *sampled, false);
        jsonEstimate(j, "bytes_estimate", *sampled, true);
    }
    j.endObject();
}

void jsonNode(const DiffView& v, JsonWriter& j, uint32_t id, size_t level) {
    const DiffNode& n = v.diff.node(id);
    j.beginObject();
    j.field("name", n.label);
    if (!n.classifier.empty()) j.field("classifier", n.classifier);
    const bool s = v.diff.sampled();
    counts(j, "born", n.born, s ? &n.born_sampled : nullptr);
    counts(j, "died", n.died, s ? &n.died_sampled : nullptr);
    counts(j, "permanent", n.permanent, s ? &n.permanent_sampled : nullptr);
    if (level < v.depth && !n.children.empty()) {
        j.key("children").beginArray();
        for (uint32_t c : v.diff.sortedChildren(id, v.metric))
            jsonNode(v, j, c, level + 1);
        j.endArray();
    }
    j.endObject();
}

int runDiff(const Words& words) {
    auto opened = openTwoGcCommand(words, "diff", "objects", {});
    if (!opened) return opened.status();
    TwoGcCommand& cmd = *opened;
    const ClassifyArgs& opts = cmd.classify;
    const HeapHistory& h = *cmd.loaded.history;
    const std::string& path = cmd.loaded.trace->path();
    TreeOptions options;
    options.threads = defaultThreads();
    auto built = HeapDiff::between(h, cmd.from, cmd.to, opts.chain, options);
    if (!built) {
        std::cerr << "memcity diff: " << path << ": " << built.error().message << "\n";
        return 1;
    }
    const HeapDiff& diff = *built;
    if (Status st = pluginErrors(opts.chain); !st) {
        std::cerr << "memcity diff: " << st.error().message << "\n";
        return 1;
    }
    const DiffView v{diff, opts.metric, opts.all, opts.depth};
    if (cmd.args.has("--json")) {
        JsonWriter j;
        j.beginObject();
        j.field("file", path).field("from", uint64_t{cmd.from}).field("to", uint64_t{cmd.to});
        j.field("classifiers", opts.chain.spec()).field("metric", opts.metric_name);
        jsonSampling(j, h);
        j.key("tree");
        jsonNode(v, j, HeapDiff::kRoot, 0);
        j.endObject();
        std::cout << j.str();
        return 0;
    }
    std::cout << path << ", GC " << cmd.from << " -> GC " << cmd.to << ", by " << opts.chain.spec() << " ("
              << opts.metric_name << ")\n";
    sayEstimates(h, std::cout);
    if (diff.sampled())
        std::printf("%32s %32s %32s  %s\n", "born", "died", "permanent", "group");
    else
        std::printf("%14s %14s %14s  %s\n", "born", "died", "permanent", "group");
    printNode(v, HeapDiff::kRoot, 0);
    return 0;
}

}  // namespace

extern const Command kDiff{
    .name = "diff",
    .summary = "born, died and permanent objects between two GCs, by group",
    .usage = R"(usage: memcity diff FILE --from A --to B [--classify CHAIN] [--filter EXPR]
                    [--metric objects|bytes] [--depth D] [--all] [--json]

Compares the heaps of GC A and GC B: objects live at B only were born, those live at A only
died, those live at both are permanent (ICPE18, 5.3). They are grouped by a classifier chain
(default type; see 'memcity report --help'): born and permanent objects as they are at B, dead
ones as they were at A. Each level lists its 9 largest groups, the rest as "Other".
Classifiers that read references (structure, roots, ...) need a reference snapshot at both GCs.

)",
    .options =
        {
            {"--from", "A", "", ""},
            {"--to", "B", "", "the two GCs (A <= B)"},
            {"--classify", "C", "", "the classifier chain (default type)"},
            {"--filter", "EXPR", "", "compare only the objects for which EXPR is true"},
            {"--metric", "M", "", "objects (the default) or bytes"},
            {"--depth", "D", "", "levels to show below the root (default: all)"},
            {"--all", "", "", "every group"},
            {"--json", "", "", "print JSON instead (docs/cli.md describes its shape)"},
        },
    .run = [](const Words& a, const Services&) { return runDiff(a); },
};

}  // namespace memcity::cli
