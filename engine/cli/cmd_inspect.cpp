// memcity inspect FILE [--gc N] [--classify CHAIN] [--filter EXPR] [--node PATH[;PATH...]]
//                 [--paths K] [--json]
//
// An object group — one or several classification tree nodes — at one GC (ManLang18 §4.4): its
// objects and shallow size, deep size (transitive closure), retained size (GC closure), the GC
// roots that reference it directly and the roots closest to it, its shortest paths to the roots
// aggregated by type, what it retains, by type, and the group's objects that retain the most
// on their own (the dominator tree).
//
// A sampled trace at a GC with a reference snapshot (its heap made whole there): the group's
// objects are estimated from its samples as everywhere, and the rest is about the group's
// sampled objects, exact for them over the whole heap's references; it is never the group's
// retained size, which samples do not estimate.
#include <cstdio>
#include <functional>
#include <iostream>

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
#include "graph/group_report.h"
#include "scene/estimates.h"
#include "util/parallel.h"

namespace memcity::cli {
namespace {

// Objects of one set of positions (a closure, the roots reaching a group).
class SetFilter final : public Filter {
public:
    explicit SetFilter(const Bitset& set) : set_(set) {}
    std::string spec() const override { return "(set)"; }
    bool shapeOnly() const override { return false; }
    bool accept(const HeapView&, size_t pos) const override { return set_.test(pos); }

private:
    const Bitset& set_;
};

// The objects of `set` classified by `chain`, two levels, nine groups a level, largest first.
void printSetTree(const HeapView& view, const ClassifierChain& chain, const Bitset& set,
                  const TreeOptions& options, const char* title) {
    SetFilter filter(set);
    TreeOptions o = options;
    o.extra_filter = &filter;
    const ClassificationTree tree = ClassificationTree::build(view, chain, o);
    std::cout << "\n" << title << ", by " << chain.spec() << ":\n";
    if (tree.root().objects == 0) std::cout << "  nothing\n";
    std::function<void(uint32_t, size_t)> print = [&](uint32_t id, size_t depth) {
        const std::vector<uint32_t> kids = tree.sortedChildren(id, Metric::kBytes);
        for (size_t i = 0; i < kids.size() && i < 9; ++i) {
            const TreeNode& n = tree.node(kids[i]);
            std::printf("  %14s objects %12s  %s%s\n", formatCount(n.objects).c_str(),
                        formatBytes(n.bytes).c_str(), std::string(depth * 2, ' ').c_str(),
                        printable(tree.label(kids[i]), 160).c_str());
            if (depth + 1 < 2) print(kids[i], depth + 1);
        }
        if (kids.size() > 9)
            std::printf("  %14s         %12s  %sand %zu more groups\n", "", "",
                        std::string(depth * 2, ' ').c_str(), kids.size() - 9);
    };
    print(ClassificationTree::kRoot, 0);
}

int runInspect(const Words& words) {
    auto args = oneTraceArgs("inspect", words);
    if (!args) return args.status();
    auto opts = readClassifyArgs(*args, "inspect", "type,site", "bytes");
    if (!opts) {
        std::cerr << opts.error().message << "\n";
        return 1;
    }
    auto gc_opt = args->unsignedValue("--gc", UINT64_MAX);
    auto paths_opt = args->unsignedValue("--paths", 10, 1, 1000);
    if (!gc_opt || !paths_opt) {
        std::cerr << (gc_opt ? paths_opt.error() : gc_opt.error()).message << "\n";
        return 1;
    }
    std::optional<ClassifierChain> closure_chain;
    if (auto spec = args->value("--closure-by")) {
        auto parsed = parseChain(*spec);
        if (!parsed) {
            std::cerr << "memcity inspect: --closure-by: " << parsed.error().message << "\n";
            return 1;
        }
        closure_chain = std::move(*parsed);
    }
    auto loaded = loadOrSay(args->positionals()[0]);
    if (!loaded) return 1;
    const HeapHistory& h = *loaded->history;
    const std::string& file = loaded->trace->path();
    auto snap = snapshotHeapOrSay("inspect", *loaded,
                                  args->has("--gc") ? std::optional<uint64_t>(*gc_opt) : std::nullopt,
                                  "inspect needs one");
    if (!snap) return 1;
    const uint64_t gc = snap->gc;
    const std::unique_ptr<HeapState>& heap = snap->heap;
    const HeapGraph& graph = *snap->graph;
    const HeapView view = heap->view().withGraph(&graph);
    TreeOptions options;
    options.threads = defaultThreads();
    const ClassifierChain& chain = opts->chain;
    const ClassificationTree tree = ClassificationTree::build(view, chain, options);

    // The group: the union of the named nodes.
    std::vector<uint32_t> nodes;
    for (const auto& labels : parseNodePaths(args->value("--node").value_or(""))) {
        const uint32_t id = tree.find(labels);
        if (id == kNoNode) {
            std::string path;
            for (const std::string& l : labels)
                path += (path.empty() ? "" : " / ") + l;
            // Name the level that did not match, with what it offers.
            std::vector<std::string> prefix;
            uint32_t at = ClassificationTree::kRoot;
            for (const std::string& l : labels) {
                prefix.push_back(l);
                const uint32_t next = tree.find(prefix);
                if (next == kNoNode) break;
                at = next;
            }
            std::string offers;
            const std::vector<uint32_t> kids = tree.sortedChildren(at, Metric::kBytes);
            for (size_t i = 0; i < kids.size() && i < 5; ++i)
                offers += (offers.empty() ? "" : "; ") + tree.label(kids[i]);
            std::cerr << "memcity inspect: no node '" << path << "' at GC " << gc << " by " << chain.spec()
                      << (offers.empty() ? std::string()
                                         : " (under '" + tree.label(at) + "': " + offers + ")")
                      << "\n";
            return 1;
        }
        nodes.push_back(id);
    }
    Bitset group(view.positions());
    for (const Bitset& m : tree.members(view, nodes, options))
        group |= m;
    // A sampled trace's: what the samples stand for, and the heap made whole at the snapshot, in
    // which the report places them (its positions begin with theirs).
    const bool sampled = view.sampled();
    SampleSums estimate;
    if (sampled) group.forEach([&](size_t pos) { estimate.add(view.weight(pos), view.size(pos)); });
    const HeapView closure_view = graph.whole() ? graph.heap().withGraph(&graph) : view;

    GroupReportOptions report_options;
    report_options.max_paths = *paths_opt;
    report_options.threads = options.threads;
    auto report = buildGroupReport(graph, graph.fit(group), report_options);
    if (!report) {
        std::cerr << "memcity inspect: " << file << ": " << report.error().message << "\n";
        return 1;
    }
    const GroupClosure& c = report->closure;
    const RootPaths& paths = report->paths;
    const SymbolTable& symbols = view.symbols();
    std::vector<std::string> names;
    for (uint32_t id : nodes)
        names.push_back(tree.path(id).empty() ? "Overall" : tree.path(id));
    if (nodes.empty()) names.push_back("Overall");

    if (args->has("--json")) {
        JsonWriter j;
        j.beginObject();
        j.field("file", file).field("gc", gc).field("snapshot_gc", static_cast<uint64_t>(graph.snapshotGc()));
        j.field("classifiers", chain.spec());
        jsonSampling(j, h);
        j.key("nodes").beginArray();
        for (const std::string& n : names)
            j.value(n);
        j.endArray();
        if (sampled) {
            // The group's estimate; the sizes, roots and paths below are its sampled objects'
            // (exact for them), and "heap" the whole heap at the snapshot (exact).
            jsonEstimate(j, "objects_estimate", estimate, false);
            jsonEstimate(j, "bytes_estimate", estimate, true);
            j.field("sampled_objects", c.shallow.objects);
        }
        auto sizes = [&](const char* name, const Sizes& s) {
            j.key(name).beginObject().field("objects", s.objects).field("bytes", s.bytes).endObject();
        };
        sizes("shallow", c.shallow);
        sizes("deep", c.deep);
        sizes("retained", c.retained);
        sizes("unreached", c.unreached);
        sizes("heap", report->heap);
        auto list = [&](const char* name, const std::vector<CountedName>& v) {
            j.key(name).beginArray();
            for (const CountedName& k : v)
                j.beginObject()
                    .field("name", k.name)
                    .field("objects", k.objects)
                    .field("bytes", k.bytes)
                    .endObject();
            j.endArray();
        };
        list("direct_roots", report->direct_roots);
        list("closest_roots", report->closest_roots);
        list("reaching_roots", report->reaching_roots);
        j.key("root_paths").beginObject();
        j.field("reached_objects", paths.reached_objects).field("unreached_objects", paths.unreached_objects);
        j.field("other_paths", paths.other_paths).field("other_objects", paths.other_objects);
        j.key("paths").beginArray();
        for (const RootPath& p : paths.paths) {
            j.beginObject();
            j.field("root", graph.rootIdentityLabel(p.root_identity));
            j.field("objects", p.objects).field("shortest", static_cast<uint64_t>(p.shortest));
            j.key("steps").beginArray();
            for (const RootPathStep& s : p.steps)
                j.beginObject()
                    .field("type", symbols.type(s.type).name)
                    .field("repeated", s.repeated)
                    .endObject();
            j.endArray();
            j.endObject();
        }
        j.endArray();
        j.endObject();
        list("retained_by_type", report->retained_by_type);
        j.key("largest_objects").beginArray();
        for (const SingleRetainer& o : report->largest_objects) {
            j.beginObject().field("id", o.id).field("type", symbols.type(o.type).name);
            j.key("retained")
                .beginObject()
                .field("objects", o.retained.objects)
                .field("bytes", o.retained.bytes)
                .endObject();
            j.endObject();
        }
        j.endArray();
        j.endObject();
        std::cout << j.str();
        return 0;
    }

    std::cout << file << ", GC " << gc
              << (sampled ? " (references from its snapshot, the heap made whole there), by "
                          : " (references from its snapshot), by ")
              << chain.spec() << "\n";
    for (const std::string& n : names)
        std::cout << "  group: " << printable(n, 160) << "\n";
    if (sampled) {
        sayEstimates(h, std::cout);
        std::cout << "  the group: " << estimateText(estimate, false) << " objects, "
                  << estimateText(estimate, true) << " from "
                  << formatCountOf(estimate.samples, "sample", "samples") << "\n";
    }
    // What the sizes are a share of: the heap of the report (a sampled trace's made whole).
    const uint64_t heap_bytes = report->heap.bytes;
    auto pct = [&](uint64_t b) {
        char buf[16];
        std::snprintf(buf, sizeof buf, "%5.1f%%",
                      heap_bytes ? 100.0 * static_cast<double>(b) / static_cast<double>(heap_bytes) : 0.0);
        return std::string(buf);
    };
    auto row = [&](const char* what, const Sizes& s, const char* note) {
        std::printf("  %-10s %14s objects %12s %s  %s\n", what, formatCount(s.objects).c_str(),
                    formatBytes(s.bytes).c_str(), pct(s.bytes).c_str(), note);
    };
    std::cout << "\n";
    if (sampled) {
        std::cout << "its " << formatCountOf(c.shallow.objects, "sampled object", "sampled objects")
                  << " (exact for them), in the whole heap of GC " << gc << ": "
                  << formatCountOf(report->heap.objects, "object", "objects") << ", "
                  << formatBytes(report->heap.bytes) << " (exact)\n";
        row("shallow", c.shallow, "the sampled objects themselves");
        row("deep", c.deep, "everything they reach");
        row("retained", c.retained, "what would be freed with them (not the group's retained size)");
    } else {
        row("shallow", c.shallow, "the group's own objects");
        row("deep", c.deep, "its transitive closure: everything it reaches");
        row("retained", c.retained, "its GC closure: what would be freed with it");
    }
    if (c.unreached.objects) row("unreached", c.unreached, "alive, root not reported");
    if (sampled)
        std::cout << "  note: what the samples retain together is not what the group retains, so the group's "
                     "retained size is not estimated\n";
    // Whose roots, paths and retained objects these are.
    const std::string who = sampled ? "its sampled objects" : "the group";
    auto table = [&](const char* title, const std::vector<CountedName>& v, const char* none) {
        std::cout << "\n" << title << "\n";
        if (v.empty()) std::cout << "  " << none << "\n";
        for (const CountedName& k : v)
            std::printf("  %14s objects %12s  %s\n", formatCount(k.objects).c_str(),
                        formatBytes(k.bytes).c_str(), printable(k.name, 160).c_str());
    };
    const std::string none_reach = "none: no reported root reaches " + who;
    table(("GC roots referencing " + who + " directly:").c_str(), report->direct_roots, "none");
    table((sampled ? "closest GC roots of its sampled objects (the roots fewest references away from each):"
                   : "closest GC roots (the roots fewest references away from each object):"),
          report->closest_roots, none_reach.c_str());
    table(("every GC root reaching " + who + " (its rooted objects, by root):").c_str(),
          report->reaching_roots, none_reach.c_str());
    std::cout << (sampled ? "\nshortest paths from its sampled objects to the GC roots, by type (objects, "
                            "references):\n"
                          : "\nshortest paths to the GC roots, by type (objects, references):\n");
    for (const RootPath& p : paths.paths)
        std::printf("  %14s %4u  %s\n", formatCount(p.objects).c_str(), p.shortest,
                    printable(describePath(graph, p), 400).c_str());
    if (paths.other_paths)
        std::printf("  %14s       and %s more paths\n", formatCount(paths.other_objects).c_str(),
                    formatCount(paths.other_paths).c_str());
    if (paths.unreached_objects)
        std::printf("  %14s       alive, root not reported\n", formatCount(paths.unreached_objects).c_str());
    table(sampled ? "retained by its sampled objects, by type:" : "retained objects by type:",
          report->retained_by_type, "nothing");
    std::cout << (sampled ? "\nits sampled objects that retain the most on their own (dominator tree):\n"
                          : "\nthe group's objects that retain the most on their own (dominator tree):\n");
    if (report->largest_objects.empty()) std::cout << "  " << none_reach << "\n";
    for (const SingleRetainer& o : report->largest_objects)
        std::printf("  %14s objects %12s  object %llu, %s\n", formatCount(o.retained.objects).c_str(),
                    formatBytes(o.retained.bytes).c_str(), static_cast<unsigned long long>(o.id),
                    printable(symbols.type(o.type).name, 160).c_str());
    if (closure_chain) {
        // (Sets of the report's heap: a sampled trace's is the whole heap, each object for itself.)
        printSetTree(
            closure_view, *closure_chain, report->deep_set, options,
            sampled ? "deep (everything its sampled objects reach)" : "deep (everything it reaches)");
        printSetTree(closure_view, *closure_chain, report->retained_set, options,
                     sampled ? "retained (freed with its sampled objects)" : "retained (freed with it)");
        printSetTree(closure_view, *closure_chain, report->reaching_set, options,
                     sampled ? "rooted objects reaching its sampled objects" : "rooted objects reaching it");
        if (Status st = pluginErrors(*closure_chain); !st) {
            std::cerr << "memcity inspect: " << st.error().message << "\n";
            return 1;
        }
    }
    return 0;
}

}  // namespace

extern const Command kInspect{
    .name = "inspect",
    .summary = "one object group: deep and retained size, its GC roots, paths to them",
    .usage = R"(usage: memcity inspect FILE [--gc N] [--classify CHAIN] [--filter EXPR]
                       [--node PATH[;PATH...]] [--paths K] [--closure-by CHAIN] [--json]

Inspects an object group at GC N (default: the last GC with a reference snapshot): one or
several nodes of the classification tree (as 'memcity report' shows it), given by their
labels from the top, separated by '/'; several nodes are separated by ';' and inspected as one
group (shared ownership). Without --node the whole heap.

Prints the group's objects and shallow size, its deep size (its transitive closure: all it
reaches), its retained size (its GC closure: what would be freed if the group were), objects
alive that no reported root reaches, the GC roots referencing it directly, the closest roots
of its objects, every root that reaches it, the shortest paths from its objects to a root aggregated by type (a run of one
type, as in a linked list, is one step), what it retains by type, and the group's objects that
retain the most on their own (their dominator subtrees) (ManLang18, 3-4).

)",
    .options =
        {
            {"--gc", "N", "", "the GC (it must have a reference snapshot; 'memcity gcs' marks them)"},
            {"--classify", "C", "", "the classifier chain the node paths refer to (default type,site)"},
            {"--filter", "EXPR", "", "classify only the objects for which EXPR is true"},
            {"--node", "PATHS", "", "e.g. 'java.util.HashMap / IdCache.<clinit>(IdCache.java:9)'"},
            {"--paths", "K", "", "root paths to list (default 10)"},
            {"--closure-by", "C", "",
             "also the deep and retained closures and the rooted objects reaching the\ngroup, each "
             "classified by chain C (two levels)"},
            {"--json", "", "", "print JSON instead (docs/cli.md describes its shape)"},
        },
    .run = [](const Words& a, const Services&) { return runInspect(a); },
};

}  // namespace memcity::cli
