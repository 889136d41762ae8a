// memcity dominators FILE [--gc N] [--depth K] [--top M] [--group-by CHAIN] [--json]
//
// The immediate-dominator tree of the heap at a GC with a reference snapshot (MAT's and
// VisualVM's dominator tree): the objects no single object dominates, then what each of them
// dominates, K levels deep, M rows a level (the rest summed in one row), each with what it
// retains; or, with --group-by, each level's objects grouped by the chain (MAT's "group by
// class": level d by the chain's classifier d, the last one for the levels below).
//
// A sampled trace: its graph at a snapshot GC is the whole heap made whole there, so the tree
// and every figure are of the whole heap, exact, not estimates.
#include <cstdio>
#include <iostream>

#include "classify/plugin_classifier.h"
#include "cli/commands.h"
#include "cli/json_writer.h"
#include "cli/one_trace.h"
#include "cli/sampled_output.h"
#include "cli/text_format.h"
#include "graph/dominator_view.h"
#include "scene/estimates.h"

namespace memcity::cli {
namespace {

struct Walk {
    const HeapGraph& graph;
    const DominatorTree& tree;
    const ClassifierChain* chain;  // null: no grouping
    size_t depth = 2;
    DominatorRowOptions rows;
    uint64_t reached_bytes = 0;  // what the shares are of

    const Classifier* groupAt(size_t level) const {
        if (!chain) return nullptr;
        return chain->classifiers[std::min(level, chain->classifiers.size() - 1)].get();
    }
    // The rows below `row` (an object, a group, or the super-root when null) at `level`.
    Result<std::vector<DominatorRow>> below(const DominatorRow* row, size_t level) const {
        const uint32_t root = tree.superRoot();
        std::span<const uint32_t> nodes(&root, 1);
        if (row)
            nodes = row->position != kNoPosition ? std::span<const uint32_t>(&row->position, 1)
                                                 : std::span<const uint32_t>(row->members);
        return dominatorRowsOf(graph, tree, nodes, groupAt(level), rows);
    }
    std::string percent(uint64_t bytes) const {
        char buf[16];
        std::snprintf(
            buf, sizeof buf, "%6.1f%%",
            reached_bytes ? 100.0 * static_cast<double>(bytes) / static_cast<double>(reached_bytes) : 0.0);
        return buf;
    }
};

Status printText(const Walk& w, const DominatorRow* parent, size_t level) {
    auto rows = w.below(parent, level);
    if (!rows) return rows.error();
    for (const DominatorRow& r : *rows) {
        std::string label = r.more ? "… " + r.label : r.label;
        if (r.position == kNoPosition && !r.more)
            label += " (" + formatCountOf(r.objects, "object", "objects") + ")";
        std::printf("  %14s %12s %s %12s  %s%s\n", formatCount(r.retained_objects).c_str(),
                    formatBytes(r.retained_bytes).c_str(), w.percent(r.retained_bytes).c_str(),
                    formatBytes(r.shallow_bytes).c_str(), std::string(level * 2, ' ').c_str(),
                    printable(label, 200).c_str());
        if (!r.more && level + 1 < w.depth)
            if (Status st = printText(w, &r, level + 1); !st) return st;
    }
    return {};
}

Status writeJson(const Walk& w, JsonWriter& j, const DominatorRow* parent, size_t level) {
    auto rows = w.below(parent, level);
    if (!rows) return rows.error();
    const HeapView& heap = w.graph.heap();
    j.beginArray();
    for (const DominatorRow& r : *rows) {
        j.beginObject().field("label", r.label);
        if (r.position != kNoPosition)
            j.field("id", heap.id(r.position)).field("type", heap.symbols().type(heap.type(r.position)).name);
        j.field("objects", r.objects).field("shallow_bytes", r.shallow_bytes);
        j.field("retained_objects", r.retained_objects).field("retained_bytes", r.retained_bytes);
        j.field("retained_percent", w.reached_bytes ? 100.0 * static_cast<double>(r.retained_bytes) /
                                                          static_cast<double>(w.reached_bytes)
                                                    : 0.0);
        if (r.more) j.field("more", r.more);
        if (!r.more && level + 1 < w.depth) {
            j.key("children");
            if (Status st = writeJson(w, j, &r, level + 1); !st) return st;
        }
        j.endObject();
    }
    j.endArray();
    return {};
}

int runDominators(const Words& words) {
    auto args = oneTraceArgs("dominators", words);
    if (!args) return args.status();
    auto gc_opt = args->unsignedValue("--gc", UINT64_MAX);
    auto depth_opt = args->unsignedValue("--depth", 2, 1, 64);
    auto top_opt = args->unsignedValue("--top", 10, 1, 1'000'000);
    for (const auto* r : {&gc_opt, &depth_opt, &top_opt})
        if (!*r) {
            std::cerr << r->error().message << "\n";
            return 1;
        }
    std::optional<ClassifierChain> chain;
    if (auto spec = args->value("--group-by")) {
        auto parsed = parseChain(*spec);
        if (!parsed) {
            std::cerr << "memcity dominators: --group-by: " << parsed.error().message << "\n";
            return 1;
        }
        if (parsed->classifiers.empty()) {
            std::cerr << "memcity dominators: --group-by: expected a classifier chain, e.g. type\n";
            return 1;
        }
        chain = std::move(*parsed);
    }
    // Without the reachable figures of every snapshot GC (a walk of each, 10 s of a 14 s open of a
    // 10 M-object trace): the tree walks its own snapshot, and loadGraph refuses one that is
    // incomplete.
    auto loaded = loadOrSay(args->positionals()[0], {.reachability = false});
    if (!loaded) return 1;
    const HeapHistory& h = *loaded->history;
    const std::string& file = loaded->trace->path();
    auto snap = snapshotHeapOrSay("dominators", *loaded,
                                  args->has("--gc") ? std::optional<uint64_t>(*gc_opt) : std::nullopt,
                                  "the dominator tree needs one");
    if (!snap) return 1;
    const uint64_t gc = snap->gc;
    const HeapGraph& graph = *snap->graph;
    const Result<DominatorTree>& tree = graph.dominators();
    if (!tree) {
        std::cerr << "memcity dominators: " << file << ": " << tree.error().message << "\n";
        return 1;
    }
    // Shares are of the bytes reached from the roots, as Eclipse MAT's are of the reachable heap
    // (the explorer's dominator view and `suspects` say the same).
    Walk w{graph, *tree, chain ? &*chain : nullptr, *depth_opt, {*top_opt}, tree->reachedBytes()};
    const bool sampled = h.sampled();
    auto fail = [&](const Error& e) {
        std::cerr << "memcity dominators: " << file << ": " << e.message << "\n";
        return 1;
    };

    if (args->has("--json")) {
        JsonWriter j;
        j.beginObject();
        j.field("file", file).field("gc", gc).field("snapshot_gc", static_cast<uint64_t>(graph.snapshotGc()));
        jsonSampling(j, h);
        j.field("whole_heap", sampled);
        j.key("group_by");
        chain ? j.value(chain->spec()) : j.null();
        j.field("depth", *depth_opt).field("top", *top_opt);
        j.key("heap").beginObject();
        j.field("objects", graph.heap().liveObjects()).field("bytes", graph.heap().liveBytes()).endObject();
        j.key("reached").beginObject();
        j.field("objects", tree->reachedObjects()).field("bytes", tree->reachedBytes()).endObject();
        j.key("rows");
        if (Status st = writeJson(w, j, nullptr, 0); !st) return fail(st.error());
        j.endObject();
        if (chain)
            if (Status st = pluginErrors(*chain); !st) return fail(st.error());
        std::cout << j.str();
        return 0;
    }

    std::cout << file << ", GC " << gc << ": dominator tree (references from the snapshot of GC "
              << graph.snapshotGc() << ")";
    if (chain) std::cout << ", grouped by " << chain->spec();
    std::cout << "\n";
    if (sampled)
        std::cout << "  sampled trace: the tree and its figures are of the whole heap made whole at the "
                     "snapshot, every object counted (exact, not estimates)\n";
    const uint64_t unreached_objects = graph.heap().liveObjects() - tree->reachedObjects();
    std::cout << "  heap: " << formatCountOf(graph.heap().liveObjects(), "object", "objects") << ", "
              << formatBytes(graph.heap().liveBytes())
              << "; reached from the GC roots: " << formatCountOf(tree->reachedObjects(), "object", "objects")
              << ", " << formatBytes(tree->reachedBytes());
    if (unreached_objects)
        std::cout << "; " << formatCountOf(unreached_objects, "object", "objects")
                  << " alive whose roots the JVM did not report are in no subtree";
    std::cout << "\n\n";
    std::printf("  %14s %12s %7s %12s  %s\n", "retained objs", "retained", "reached", "shallow",
                chain ? "group (objects) / object" : "object");
    if (Status st = printText(w, nullptr, 0); !st) return fail(st.error());
    if (chain)
        if (Status st = pluginErrors(*chain); !st) return fail(st.error());
    return 0;
}

}  // namespace

extern const Command kDominators{
    .name = "dominators",
    .summary = "the dominator tree at a GC: what holds the heap, by retained size",
    .usage = R"(usage: memcity dominators FILE [--gc N] [--depth K] [--top M] [--group-by CHAIN] [--json]

Prints the immediate-dominator tree of the heap at GC N (default: the last GC with a reference
snapshot), as Eclipse MAT's and VisualVM's dominator tree: first the objects no single object
dominates (rooted objects, objects several roots share), then what each of them dominates, K
levels deep. Each row gives what it retains (the objects that would be freed with it: its
dominator subtree), as objects, bytes and a share of the live heap, and its own shallow bytes.
Rows are sorted by retained bytes; M rows a level, the rest summed in one '… N more' row.
With --group-by each level's objects are grouped by the chain (MAT's "group by class"): level
d by the chain's d-th classifier, the last one for the levels below; a group expands into what
its objects dominate. A sampled trace's tree is of the whole heap at the snapshot (exact).
docs/dominators.md explains the tree and the 'dominator' classifier.

)",
    .options =
        {
            {"--gc", "N", "", "the GC (it must have a reference snapshot; 'memcity gcs' marks them)"},
            {"--depth", "K", "", "levels of the tree to print (default 2, at most 64)"},
            {"--top", "M", "", "rows a level (default 10); the rest are summed in one row"},
            {"--group-by", "C", "", "group each level's objects by classifier chain C, e.g. type"},
            {"--json", "", "", "print JSON instead (docs/dominators.md describes its shape)"},
        },
    .run = [](const Words& a, const Services&) { return runDominators(a); },
};

}  // namespace memcity::cli
