// memcity report FILE --gc N [--classify CHAIN] [--filter EXPR] [--metric objects|bytes]
//                [--depth D] [--all] [--retained] [--json]
#include <cstdio>
#include <iostream>

#include <unordered_map>

#include "classify/classifier.h"
#include "classify/plugin_classifier.h"
#include "classify/tree.h"
#include "cli/args.h"
#include "cli/classify_args.h"
#include "cli/commands.h"
#include "cli/json_writer.h"
#include "cli/load.h"
#include "cli/one_trace.h"
#include "cli/sampled_output.h"
#include "cli/text_format.h"
#include "graph/closure.h"
#include "scene/estimates.h"
#include "util/parallel.h"

namespace memcity::cli {
namespace {

struct ReportView {
    const ClassificationTree& tree;
    Metric metric;
    PruneOptions prune;
    uint64_t depth;                                            // levels below the root to show
    std::unordered_map<uint32_t, GroupClosure> closures = {};  // --retained: per shown node
};

// The nodes the report shows, in the order it shows them.
void shownNodes(const ReportView& v, uint32_t id, size_t level, std::vector<uint32_t>& out) {
    out.push_back(id);
    if (level >= v.depth) return;
    for (uint32_t c : v.tree.prunedChildren(id, v.metric, v.prune).shown)
        shownNodes(v, c, level + 1, out);
}

std::string percent(uint64_t part, uint64_t whole) {
    char buf[16];
    std::snprintf(buf, sizeof buf, "%5.1f%%",
                  whole ? 100.0 * static_cast<double>(part) / static_cast<double>(whole) : 0.0);
    return buf;
}

void printRow(const ReportView& v, uint64_t objects, uint64_t bytes, size_t indent, const std::string& name,
              const GroupClosure* c = nullptr, const SampleSums* sampled = nullptr) {
    const TreeNode& root = v.tree.root();
    if (sampled) {
        // Estimates: each with its interval and the samples it rests on.
        std::printf("%s %s %s %s %8s", padLeft(estimateText(*sampled, true), 30).c_str(),
                    percent(bytes, root.bytes).c_str(), padLeft(estimateText(*sampled, false), 32).c_str(),
                    percent(objects, root.objects).c_str(), formatCount(sampled->samples).c_str());
    } else {
        std::printf("%12s %s %14s %s", formatBytes(bytes).c_str(), percent(bytes, root.bytes).c_str(),
                    formatCount(objects).c_str(), percent(objects, root.objects).c_str());
    }
    if (!v.closures.empty()) {
        const uint64_t whole = v.closures.at(ClassificationTree::kRoot).deep.bytes;
        if (c)
            std::printf(" %12s %12s %s", formatBytes(c->deep.bytes).c_str(),
                        formatBytes(c->retained.bytes).c_str(), percent(c->retained.bytes, whole).c_str());
        else
            std::printf(" %12s %12s %6s", "", "", "");
    }
    std::printf("  %s%s\n", std::string(indent * 2, ' ').c_str(), printable(name, 160).c_str());
}

void printNode(const ReportView& v, uint32_t id, size_t indent) {
    const TreeNode& n = v.tree.node(id);
    auto closure = v.closures.find(id);
    printRow(v, n.objects, n.bytes, indent, v.tree.label(id),
             closure == v.closures.end() ? nullptr : &closure->second,
             v.tree.sampled() ? &n.sampled : nullptr);
    if (indent >= v.depth) return;
    PrunedChildren kids = v.tree.prunedChildren(id, v.metric, v.prune);
    for (uint32_t c : kids.shown)
        printNode(v, c, indent + 1);
    if (kids.other_groups)
        printRow(v, kids.other_objects, kids.other_bytes, indent + 1,
                 "Other (" + formatCountOf(kids.other_groups, "group", "groups") + ")", nullptr,
                 v.tree.sampled() ? &kids.other_sampled : nullptr);
}

void jsonNode(const ReportView& v, JsonWriter& j, uint32_t id, size_t level) {
    const TreeNode& n = v.tree.node(id);
    j.beginObject();
    j.field("name", v.tree.label(id));
    if (id != ClassificationTree::kRoot) j.field("classifier", v.tree.classifierSpec(id));
    j.field("objects", n.objects).field("bytes", n.bytes);
    if (v.tree.sampled()) {
        jsonEstimate(j, "objects_estimate", n.sampled, false);
        jsonEstimate(j, "bytes_estimate", n.sampled, true);
    }
    if (auto c = v.closures.find(id); c != v.closures.end()) {
        auto sizes = [&](const char* name, const Sizes& s) {
            j.key(name).beginObject().field("objects", s.objects).field("bytes", s.bytes).endObject();
        };
        sizes("deep", c->second.deep);
        sizes("retained", c->second.retained);
        sizes("unreached", c->second.unreached);
    }
    if (level < v.depth && !n.children.empty()) {
        PrunedChildren kids = v.tree.prunedChildren(id, v.metric, v.prune);
        j.key("children").beginArray();
        for (uint32_t c : kids.shown)
            jsonNode(v, j, c, level + 1);
        j.endArray();
        if (kids.other_groups) {
            j.key("other").beginObject();
            j.field("groups", static_cast<uint64_t>(kids.other_groups))
                .field("objects", kids.other_objects)
                .field("bytes", kids.other_bytes);
            if (v.tree.sampled()) {
                jsonEstimate(j, "objects_estimate", kids.other_sampled, false);
                jsonEstimate(j, "bytes_estimate", kids.other_sampled, true);
            }
            j.endObject();
        }
    }
    j.endObject();
}

int runReport(const Words& words) {
    auto args = oneTraceArgs("report", words);
    if (!args) return args.status();
    auto opts = readClassifyArgs(*args, "report", "type,site", "bytes");
    if (!opts) {
        std::cerr << opts.error().message << "\n";
        return 1;
    }
    const ClassifierChain& chain = opts->chain;
    auto gc_opt = args->unsignedValue("--gc", UINT64_MAX);
    if (!gc_opt) {
        std::cerr << gc_opt.error().message << "\n";
        return 1;
    }
    auto loaded = loadOrSay(args->positionals()[0]);
    if (!loaded) return 1;
    const HeapHistory& h = *loaded->history;
    if (h.gcCount() == 0) {
        std::cerr << "memcity report: " << loaded->trace->path() << ": the trace has no GCs\n";
        return 1;
    }
    // A group's retained size is not estimated from samples: what the samples retain together is
    // not what the group retains (inspect shows what a group's sampled objects retain).
    if (h.sampled() && args->has("--retained")) {
        const std::string at = scene::snapshotGcsText(h.gcs());
        std::cerr << "memcity report: " << loaded->trace->path()
                  << ": --retained: a sampled recording's groups have no retained size (what their samples "
                     "retain is not what the groups retain); "
                  << (at.empty()
                          ? std::string(scene::kNoSnapshotsReason)
                          : "'memcity inspect --gc G --node PATH' shows what a group's sampled objects "
                            "retain at its snapshots (" +
                                at + ")")
                  << "\n";
        return 1;
    }
    // Classifiers that read references, and retained sizes, need the GC's reference snapshot;
    // without --gc they take the last GC that has one (a sampled recording's references exist
    // there only: its samples are classified by them, as estimates).
    const bool references = chain.needsReferences() || args->has("--retained");
    uint64_t gc = h.gcCount() - 1;
    if (args->has("--gc")) {
        gc = *gc_opt;
    } else if (references) {
        if (auto last = lastSnapshotGc(h)) gc = *last;
    }
    if (gc >= h.gcCount()) {
        std::cerr << "memcity report: " << h.gcRangeError(gc) << "\n";
        return 1;
    }
    printDiagnostics(*loaded, std::cerr, false);
    auto heap = h.heapAt(static_cast<uint32_t>(gc));
    if (!heap) {
        std::cerr << "error: " << heap.error().message << "\n";
        return 1;
    }
    std::unique_ptr<HeapGraph> graph;
    if (references) {
        auto g = loadGraph(h, *heap);
        if (!g) {
            std::cerr << "memcity report: " << loaded->trace->path() << ": " << g.error().message << "\n";
            return 1;
        }
        graph = std::move(*g);
    }
    const HeapView view = heap->view().withGraph(graph.get());
    TreeOptions options;
    options.threads = defaultThreads();
    const ClassificationTree tree = ClassificationTree::build(view, chain, options);
    if (Status st = pluginErrors(chain); !st) {
        std::cerr << "memcity report: " << st.error().message << "\n";
        return 1;
    }
    ReportView v{tree, opts->metric, {}, opts->depth};
    v.prune.enabled = !opts->all;
    if (args->has("--retained")) {
        std::vector<uint32_t> nodes;
        shownNodes(v, ClassificationTree::kRoot, 0, nodes);
        const std::vector<GroupClosure> closures =
            closuresOf(*graph, tree.members(view, nodes, options), options.threads);
        for (size_t i = 0; i < nodes.size(); ++i)
            v.closures.emplace(nodes[i], closures[i]);
    }

    if (args->has("--json")) {
        JsonWriter j;
        j.beginObject();
        j.field("file", loaded->trace->path()).field("gc", gc).field("classifiers", chain.spec());
        j.key("filter");
        if (opts->filter)
            j.value(*opts->filter);
        else
            j.null();
        j.field("metric", opts->metric_name);
        jsonSampling(j, h);
        if (graph) j.field("snapshot_gc", static_cast<uint64_t>(graph->snapshotGc()));
        j.field("filtered_objects", tree.filteredObjects()).field("filtered_bytes", tree.filteredBytes());
        j.key("tree");
        jsonNode(v, j, ClassificationTree::kRoot, 0);
        j.endObject();
        std::cout << j.str();
        return 0;
    }
    std::cout << loaded->trace->path() << ", GC " << gc << ": ";
    if (tree.sampled())
        std::cout << estimateText(tree.root().sampled, false) << " objects, "
                  << estimateText(tree.root().sampled, true);
    else
        std::cout << formatCountOf(tree.root().objects, "object", "objects") << ", "
                  << formatBytes(tree.root().bytes);
    std::cout << ", by " << chain.spec();
    if (opts->filter)
        std::cout << " (filter " << printable(*opts->filter, 80) << ": "
                  << formatCountOf(tree.filteredObjects(), "object", "objects") << " left out)";
    std::cout << "\n";
    sayEstimates(h, std::cout);
    if (tree.sampled())
        std::printf("%30s %6s %32s %6s %8s  %s\n", "bytes (95% interval)", "%", "objects (95% interval)", "%",
                    "samples", "group");
    else if (v.closures.empty())
        std::printf("%12s %6s %14s %6s  %s\n", "bytes", "%", "objects", "%", "group");
    else
        std::printf("%12s %6s %14s %6s %12s %12s %6s  %s\n", "bytes", "%", "objects", "%", "deep", "retained",
                    "%", "group");
    printNode(v, ClassificationTree::kRoot, 0);
    return 0;
}

}  // namespace

extern const Command kReport{
    .name = "report",
    .summary = "the heap at one GC as a classification tree: type, site, thread, age...",
    .usage = R"(usage: memcity report FILE [--gc N] [--classify CHAIN] [--filter EXPR]
                      [--metric objects|bytes] [--depth D] [--all] [--json]

Groups the live objects at GC N (default: the last GC) by a chain of classifiers, one tree
level each, and prints the tree with objects and bytes per group. Children are listed largest
first until they hold 90% of their parent, at most 9; the rest are summed up as "Other".

CHAIN is a comma-separated list (default type,site); docs/classifiers.md describes each:
)",
    .usage_end = [] { return classifierListing() + "\n"; },
    .options =
        {
            {"--gc", "N", "",
             "the GC whose heap to classify (default: the last; with references or\n--retained, the last GC "
             "with a reference snapshot)"},
            {"--classify", "C", "", "the classifier chain (default type,site)"},
            {"--filter", "EXPR", "",
             "classify only the objects for which EXPR is true (docs/expressions.md),\ne.g. 'type ~ "
             "\"java.util.*\" && age >= 3'"},
            {"--metric", "M", "", "objects or bytes: what orders the groups (default bytes)"},
            {"--depth", "D", "", "levels to show below the root (default: all)"},
            {"--all", "", "", "every group, no \"Other\""},
            {"--retained", "", "",
             "add each shown group's deep size (everything it reaches) and retained size\n(what would be "
             "freed with it), from the GC's reference snapshot"},
            {"--json", "", "", "print JSON instead (docs/cli.md describes its shape)"},
        },
    .run = [](const Words& a, const Services&) { return runReport(a); },
};

}  // namespace memcity::cli
