// memcity churn FILE --from A --to B [--classify CHAIN] [--filter EXPR] [--metric objects|bytes]
//               [--depth D] [--all] [--json]
#include <cstdio>
#include <iostream>

#include "classify/churn.h"
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

struct ChurnView {
    const HeapChurn& churn;
    Metric metric;
    bool all;
    uint64_t depth;
};

uint64_t value(const ChurnCounts& c, Metric m) {
    return m == Metric::kObjects ? c.objects : c.bytes;
}

std::string text(uint64_t v, Metric m) {
    return m == Metric::kObjects ? formatCount(v) : formatBytes(v);
}

std::string rateText(const ChurnView& v, uint64_t n) {
    const double r = v.churn.rate(n);
    if (v.churn.sampled())  // an estimate's rate: "≈ 23,300,000/s"
        return formatEstimateValue({r, 0, 0, false}, v.metric == Metric::kBytes) + "/s";
    if (v.metric == Metric::kBytes) return formatBytes(static_cast<uint64_t>(r)) + "/s";
    return formatCount(static_cast<uint64_t>(r)) + "/s";
}

void printRow(const ChurnView& v, const ChurnCounts& died, const ChurnCounts& survived, size_t indent,
              const std::string& name) {
    // A sampled trace's figures are estimates: marked, as the line above the table explains.
    auto cell = [&](uint64_t n) {  // an estimate's count to three digits, as estimates are shown
        return v.churn.sampled()
                   ? formatEstimateValue({static_cast<double>(n), 0, 0, false}, v.metric == Metric::kBytes)
                   : text(n, v.metric);
    };
    std::printf("%s %s %s  %s%s\n", padLeft(cell(value(died, v.metric)), 14).c_str(),
                padLeft(rateText(v, value(died, v.metric)), v.churn.sampled() ? 16 : 14).c_str(),
                padLeft(cell(value(survived, v.metric)), 14).c_str(), std::string(indent * 2, ' ').c_str(),
                printable(name, 160).c_str());
}

void printNode(const ChurnView& v, uint32_t id, size_t indent) {
    const ChurnNode& n = v.churn.node(id);
    printRow(v, n.died, n.survived, indent, n.label);
    if (indent >= v.depth) return;
    const std::vector<uint32_t> kids = v.churn.sortedChildren(id, v.metric);
    ChurnCounts died, survived;
    size_t folded = 0;
    for (size_t i = 0; i < kids.size(); ++i) {
        if (v.all || i < kShownChildren) {
            printNode(v, kids[i], indent + 1);
            continue;
        }
        const ChurnNode& k = v.churn.node(kids[i]);
        died += k.died;
        survived += k.survived;
        ++folded;
    }
    if (folded)
        printRow(v, died, survived, indent + 1, "Other (" + formatCountOf(folded, "group", "groups") + ")");
}

void jsonNode(const ChurnView& v, JsonWriter& j, uint32_t id, size_t level) {
    const ChurnNode& n = v.churn.node(id);
    j.beginObject();
    j.field("name", n.label);
    if (!n.classifier.empty()) j.field("classifier", n.classifier);
    j.key("died").beginObject();
    j.field("objects", n.died.objects).field("bytes", n.died.bytes);
    j.field("objects_per_s", v.churn.rate(n.died.objects)).field("bytes_per_s", v.churn.rate(n.died.bytes));
    if (v.churn.sampled()) {
        jsonEstimate(j, "objects_estimate", n.died_sampled, false);
        jsonEstimate(j, "bytes_estimate", n.died_sampled, true);
    }
    j.endObject();
    j.key("survived").beginObject();
    j.field("objects", n.survived.objects).field("bytes", n.survived.bytes);
    if (v.churn.sampled()) {
        jsonEstimate(j, "objects_estimate", n.survived_sampled, false);
        jsonEstimate(j, "bytes_estimate", n.survived_sampled, true);
    }
    j.endObject();
    if (level < v.depth && !n.children.empty()) {
        j.key("children").beginArray();
        for (uint32_t c : v.churn.sortedChildren(id, v.metric))
            jsonNode(v, j, c, level + 1);
        j.endArray();
    }
    j.endObject();
}

int runChurn(const Words& words) {
    auto opened = openTwoGcCommand(words, "churn", "objects", {.reachability = false});
    if (!opened) return opened.status();
    TwoGcCommand& cmd = *opened;
    const ClassifyArgs& opts = cmd.classify;
    const std::string& path = cmd.loaded.trace->path();
    TreeOptions options;
    options.threads = defaultThreads();
    auto churn = HeapChurn::build(*cmd.loaded.history, cmd.from, cmd.to, opts.chain, options);
    if (!churn) {
        std::cerr << "memcity churn: " << churn.error().message << "\n";
        return 1;
    }
    if (Status st = pluginErrors(opts.chain); !st) {
        std::cerr << "memcity churn: " << st.error().message << "\n";
        return 1;
    }
    const ChurnView v{*churn, opts.metric, opts.all, opts.depth};
    if (cmd.args.has("--json")) {
        JsonWriter j;
        j.beginObject();
        j.field("file", path).field("from", uint64_t{cmd.from}).field("to", uint64_t{cmd.to});
        j.field("seconds", churn->seconds());
        j.field("classifiers", opts.chain.spec()).field("metric", opts.metric_name);
        jsonSampling(j, *cmd.loaded.history);
        j.key("tree");
        jsonNode(v, j, HeapChurn::kRoot, 0);
        j.endObject();
        std::cout << j.str();
        return 0;
    }
    const ChurnNode& root = churn->node(HeapChurn::kRoot);
    std::cout << path << ", born after GC " << cmd.from << " and by GC " << cmd.to << " ("
              << formatDuration(static_cast<int64_t>(churn->seconds() * 1e9)) << "): ";
    if (churn->sampled())
        std::cout << estimateText(root.died_sampled, false) << " objects ("
                  << estimateText(root.died_sampled, true) << ") died within, "
                  << estimateText(root.survived_sampled, false) << " objects ("
                  << estimateText(root.survived_sampled, true) << ") survive";
    else
        std::cout << formatCountOf(root.died.objects, "object", "objects") << " ("
                  << formatBytes(root.died.bytes) << ") died within, "
                  << formatCountOf(root.survived.objects, "object", "objects") << " ("
                  << formatBytes(root.survived.bytes) << ") survive";
    std::cout << "; by " << opts.chain.spec() << " (" << opts.metric_name << ")\n";
    sayEstimates(*cmd.loaded.history, std::cout);
    std::printf("%14s %*s %14s  %s\n", "died within", churn->sampled() ? 16 : 14, "per second", "survived",
                "group");
    printNode(v, HeapChurn::kRoot, 0);
    return 0;
}

}  // namespace

extern const Command kChurn{
    .name = "churn",
    .summary = "the objects born and dead within a window of GCs, by cause",
    .usage = R"(usage: memcity churn FILE --from A --to B [--classify CHAIN] [--filter EXPR]
                     [--metric objects|bytes] [--depth D] [--all] [--json]

The short-lived objects analysis (VMIL19, 3.4.2): the objects born after GC A ended and
before GC B ended, split into those that died within the window (at a GC after A, up to B)
and those still alive at B, grouped by a classifier chain (default type; see 'memcity report
--help') that reads no references. Each group shows what died within the window, that as a rate
over the window's time, and what survived; the groups that churn most come first. The rebuilt
heaps hold only survivors: churn replays the window's deaths to see the others. Classifiers
see every object as the heap of GC B would (age counts GCs up to B).

)",
    .options =
        {
            {"--from", "A", "", ""},
            {"--to", "B", "", "the window (A < B); 'memcity windows' suggests one"},
            {"--classify", "C", "", "the classifier chain (default type)"},
            {"--filter", "EXPR", "", "only the objects for which EXPR is true"},
            {"--metric", "M", "", "objects (the default) or bytes"},
            {"--depth", "D", "", "levels to show below the root (default: all)"},
            {"--all", "", "", "every group"},
            {"--json", "", "", "print JSON instead (docs/cli.md describes its shape)"},
        },
    .run = [](const Words& a, const Services&) { return runChurn(a); },
};

}  // namespace memcity::cli
