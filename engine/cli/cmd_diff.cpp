// memcity diff FILE --from A --to B [--classify CHAIN] [--filter EXPR] [--metric objects|bytes]
//              [--depth D] [--all] [--json]
#include <cstdio>
#include <iostream>
#include <thread>

#include "classify/diff.h"
#include "classify/plugin_classifier.h"
#include "cli/args.h"
#include "cli/classify_args.h"
#include "cli/commands.h"
#include "cli/json_writer.h"
#include "cli/load.h"
#include "cli/text_format.h"

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

void printRow(const DiffView& v, const DiffCounts& born, const DiffCounts& died, const DiffCounts& permanent,
              size_t indent, const std::string& name) {
    std::printf("%14s %14s %14s  %s%s\n", metricText(born, v.metric).c_str(),
                metricText(died, v.metric).c_str(), metricText(permanent, v.metric).c_str(),
                std::string(indent * 2, ' ').c_str(), printable(name, 160).c_str());
}

void add(DiffCounts& to, const DiffCounts& c) {
    to.objects += c.objects;
    to.bytes += c.bytes;
}

void printNode(const DiffView& v, uint32_t id, size_t indent) {
    const DiffNode& n = v.diff.node(id);
    printRow(v, n.born, n.died, n.permanent, indent, n.label);
    if (indent >= v.depth) return;
    const std::vector<uint32_t> kids = v.diff.sortedChildren(id, v.metric);
    DiffCounts born, died, permanent;
    size_t folded = 0;
    for (size_t i = 0; i < kids.size(); ++i) {
        if (v.all || i < kShownChildren) {
            printNode(v, kids[i], indent + 1);
            continue;
        }
        const DiffNode& k = v.diff.node(kids[i]);
        add(born, k.born), add(died, k.died), add(permanent, k.permanent);
        ++folded;
    }
    if (folded)
        printRow(v, born, died, permanent, indent + 1,
                 "Other (" + formatCountOf(folded, "group", "groups") + ")");
}

void counts(JsonWriter& j, const char* key, const DiffCounts& c) {
    j.key(key).beginObject();
    j.field("objects", c.objects).field("bytes", c.bytes);
    j.endObject();
}

void jsonNode(const DiffView& v, JsonWriter& j, uint32_t id, size_t level) {
    const DiffNode& n = v.diff.node(id);
    j.beginObject();
    j.field("name", n.label);
    if (!n.classifier.empty()) j.field("classifier", n.classifier);
    counts(j, "born", n.born);
    counts(j, "died", n.died);
    counts(j, "permanent", n.permanent);
    if (level < v.depth && !n.children.empty()) {
        j.key("children").beginArray();
        for (uint32_t c : v.diff.sortedChildren(id, v.metric))
            jsonNode(v, j, c, level + 1);
        j.endArray();
    }
    j.endObject();
}

}  // namespace

int runDiff(const Words& words) {
    auto args = Args::parse("diff", words,
                            {{"--from", true, ""},
                             {"--to", true, ""},
                             {"--classify", true, ""},
                             {"--filter", true, ""},
                             {"--metric", true, ""},
                             {"--depth", true, ""},
                             {"--all", false, ""},
                             {"--json", false, ""}});
    if (!args) {
        std::cerr << args.error().message << "\n";
        return 1;
    }
    if (args->help()) return printHelp("diff");
    if (args->positionals().size() != 1) {
        std::cerr << "memcity diff: expected one trace file (see 'memcity diff --help')\n";
        return 1;
    }
    if (!args->has("--from") || !args->has("--to")) {
        std::cerr << "memcity diff: --from A and --to B are required\n";
        return 1;
    }
    auto opts = readClassifyArgs(*args, "diff", "type", "objects");
    if (!opts) {
        std::cerr << opts.error().message << "\n";
        return 1;
    }
    auto from = args->unsignedValue("--from", 0);
    auto to = args->unsignedValue("--to", 0);
    for (const Result<uint64_t>* r : {&from, &to})
        if (!*r) {
            std::cerr << r->error().message << "\n";
            return 1;
        }
    auto loaded = loadTrace(args->positionals()[0]);
    if (!loaded) {
        std::cerr << "error: " << loaded.error().message << "\n";
        return 1;
    }
    const HeapHistory& h = *loaded->history;
    for (uint64_t gc : {*from, *to})
        if (gc >= h.gcCount()) {
            std::cerr << "memcity diff: " << h.gcRangeError(gc) << "\n";
            return 1;
        }
    if (*from > *to) {
        std::cerr << "memcity diff: --from " << *from << " is after --to " << *to << "\n";
        return 1;
    }
    printDiagnostics(*loaded, std::cerr, false);
    auto a = h.heapAt(static_cast<uint32_t>(*from));
    auto b = a ? h.heapAt(static_cast<uint32_t>(*to)) : Result<HeapState>(a.error());
    if (!b) {
        std::cerr << "error: " << b.error().message << "\n";
        return 1;
    }
    TreeOptions options;
    options.threads = std::thread::hardware_concurrency() >= 2 ? 2 : 1;
    // Classifiers that read references need both GCs' snapshots: born and permanent objects are
    // classified with B's references, the dead with A's.
    std::unique_ptr<HeapGraph> graph_a, graph_b;
    if (opts->chain.needsReferences()) {
        for (auto [state, graph] : {std::pair{&*a, &graph_a}, std::pair{&*b, &graph_b}}) {
            auto g = loadGraph(h, *state);
            if (!g) {
                std::cerr << "memcity diff: " << loaded->trace->path() << ": " << g.error().message << "\n";
                return 1;
            }
            *graph = std::move(*g);
        }
    }
    const HeapDiff diff = HeapDiff::build(a->view().withGraph(graph_a.get()),
                                          b->view().withGraph(graph_b.get()), opts->chain, options);
    if (Status st = pluginErrors(opts->chain); !st) {
        std::cerr << "memcity diff: " << st.error().message << "\n";
        return 1;
    }
    const DiffView v{diff, opts->metric, opts->all, opts->depth};
    if (args->has("--json")) {
        JsonWriter j;
        j.beginObject();
        j.field("file", loaded->trace->path()).field("from", *from).field("to", *to);
        j.field("classifiers", opts->chain.spec()).field("metric", opts->metric_name);
        j.key("tree");
        jsonNode(v, j, HeapDiff::kRoot, 0);
        j.endObject();
        std::cout << j.str();
        return 0;
    }
    std::cout << loaded->trace->path() << ", GC " << *from << " -> GC " << *to << ", by "
              << opts->chain.spec() << " (" << opts->metric_name << ")\n";
    std::printf("%14s %14s %14s  %s\n", "born", "died", "permanent", "group");
    printNode(v, HeapDiff::kRoot, 0);
    return 0;
}

}  // namespace memcity::cli
