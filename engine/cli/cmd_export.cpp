// memcity export FILE (--gc N | --from A --to B) --what allocated|live|retained|churn
//                --format collapsed|pprof [--unit bytes|objects] [--stacks N] -o FILE
#include <fstream>
#include <iostream>

#include "classify/site_stacks.h"
#include "cli/args.h"
#include "cli/commands.h"
#include "cli/load.h"
#include "cli/one_trace.h"
#include "cli/site_export.h"
#include "cli/text_format.h"
#include "graph/heap_graph.h"
#include "scene/estimates.h"
#include "util/parallel.h"

namespace memcity::cli {
namespace {

std::optional<StackValue> parseWhat(std::string_view s) {
    for (StackValue w :
         {StackValue::kLive, StackValue::kRetained, StackValue::kAllocated, StackValue::kChurn})
        if (s == stackValueName(w)) return w;
    return std::nullopt;
}

int fail(const std::string& message) {
    std::cerr << "memcity export: " << message << "\n";
    return 1;
}

int runExport(const Words& words) {
    auto args = oneTraceArgs("export", words);
    if (!args) return args.status();

    // 1. The options, all checked before the trace is read.
    const std::string what_text = args->value("--what").value_or("");
    const std::optional<StackValue> what = parseWhat(what_text);
    if (!what)
        return fail(args->has("--what") ? "unknown --what '" + printable(what_text, 40) +
                                              "' (allocated, live, retained or churn)"
                                        : "--what allocated|live|retained|churn is required");
    const std::string format = args->value("--format").value_or("");
    if (format != "collapsed" && format != "pprof")
        return fail(args->has("--format")
                        ? "unknown --format '" + printable(format, 40) + "' (collapsed or pprof)"
                        : "--format collapsed|pprof is required");
    const std::string unit_text = args->value("--unit").value_or("bytes");
    const std::optional<Metric> unit = parseMetric(unit_text);
    if (!unit) return fail("unknown --unit '" + printable(unit_text, 40) + "' (bytes or objects)");
    const std::optional<std::string> output = args->value("--output");
    if (!output) return fail("-o FILE is required");
    const bool window = args->has("--from") || args->has("--to");
    if (window == args->has("--gc")) return fail("give either --gc N or --from A --to B");
    if (window && !(args->has("--from") && args->has("--to"))) return fail("--from A and --to B go together");
    auto gc = args->unsignedValue("--gc", 0);
    auto from = args->unsignedValue("--from", 0);
    auto to = args->unsignedValue("--to", 0);
    auto stacks = args->unsignedValue("--stacks", 200, 1);
    for (const Result<uint64_t>* r : {&gc, &from, &to, &stacks})
        if (!*r) {
            std::cerr << r->error().message << "\n";
            return 1;
        }

    if (args->has("--stacks") && *what != StackValue::kRetained)
        return fail("--stacks N is for --what retained (the other values add up: every stack is written)");

    // The history without its reachability walks: nothing here reads them (loadGraph does not).
    auto loaded = loadOrSay(args->positionals()[0], {.reachability = false});
    if (!loaded) return 1;
    const HeapHistory& h = *loaded->history;
    const std::string& path = loaded->trace->path();
    for (uint64_t g : window ? std::vector<uint64_t>{*from, *to} : std::vector<uint64_t>{*gc})
        if (g >= h.gcCount()) return fail(h.gcRangeError(g));
    if (window && *from >= *to)
        return fail("--from " + std::to_string(*from) + " is not before --to " + std::to_string(*to));
    // At one GC, allocated and churn are those of the GC's interval: after GC N-1 ended, by GC N.
    const bool born = *what == StackValue::kAllocated || *what == StackValue::kChurn;
    if (!window && born && *gc == 0)
        return fail(
            "--what " + what_text +
            " at GC 0: GC N's interval starts where GC N-1 ended; use --gc 1 or later, or --from/--to");
    const uint32_t end = static_cast<uint32_t>(window ? *to : *gc);
    const uint32_t start = static_cast<uint32_t>(window ? *from : *gc - 1);
    if (h.sampled() && *what == StackValue::kRetained)
        return fail(
            path +
            ": --what retained: a sampled recording's stacks have no retained size (what their samples "
            "retain is not what they retain)");

    // 2. The values per stack, as report (live, retained) and churn (allocated, churn) compute them.
    printDiagnostics(*loaded, std::cerr, false);
    SiteProfileOptions so;
    so.threads = defaultThreads();
    so.retained_stacks = static_cast<size_t>(*stacks);
    const SymbolTable& symbols = h.trace().symbols();
    Result<SiteProfile> profile = Error{};
    if (born) {
        profile = windowSiteProfile(h, start, end, *what, so);
    } else {
        auto heap = h.heapAt(end);
        if (!heap) return fail(path + ": " + heap.error().message);
        std::unique_ptr<HeapGraph> graph;
        if (*what == StackValue::kRetained) {
            auto g = loadGraph(h, *heap);
            if (!g) return fail(path + ": --what retained: " + g.error().message);
            graph = std::move(*g);
        }
        profile = heapSiteProfile(heap->view().withGraph(graph.get()), graph.get(), *what, so);
    }
    if (!profile) return fail(path + ": " + profile.error().message);

    // 3. The file.
    std::string where =
        window ? "GCs " + std::to_string(start) + " to " + std::to_string(end) : "GC " + std::to_string(end);
    std::vector<std::string> comments = {"memcity export " + path + ", " + where + ", " + what_text};
    if (profile->sampled) {
        const std::string warning =
            "a sampled recording: every value is an estimate from the recorded samples, rounded";
        std::cerr << "memcity export: " << path << ": " << warning << "\n";
        comments.push_back(warning);
    }
    const bool retained = *what == StackValue::kRetained;
    const std::string others = profile->other_stacks
                                   ? "; the other " + std::to_string(profile->other_stacks) +
                                         " stacks as one '<other stacks>' line (--stacks N: more lines)"
                                   : "";
    if (retained)
        comments.push_back("retained: each stack's own retained set (" +
                           std::to_string(profile->stacks.size() - (profile->other_stacks ? 1 : 0)) +
                           " stacks with the most live bytes" + others +
                           "); the sets overlap, so the samples do not add up: their sum is no total");
    std::string bytes;
    if (format == "collapsed") {
        bytes = collapsedStacks(*profile, symbols, *unit);
    } else {
        PprofOptions po;
        po.what = *what;
        po.default_unit = *unit;
        po.comments = comments;
        if (born) po.duration_ns = h.gcs()[end].end_ns - h.gcs()[start].end_ns;
        auto encoded = pprofProfile(*profile, symbols, po);
        if (!encoded) return fail(encoded.error().message);
        bytes = std::move(*encoded);
    }
    // "-o -": standard output (collapsed stacks piped into flamegraph.pl, say).
    if (*output == "-") {
        std::cout.write(bytes.data(), static_cast<std::streamsize>(bytes.size()));
        std::cout.flush();
        if (!std::cout) return fail("standard output: cannot write");
        return 0;
    }
    std::ofstream out(*output, std::ios::binary);
    if (out) out.write(bytes.data(), static_cast<std::streamsize>(bytes.size()));
    if (!out) return fail(printable(*output) + ": cannot write");
    out.close();
    if (!out) return fail(printable(*output) + ": cannot write");
    const bool objects = *unit == Metric::kObjects;
    std::cerr << "memcity export: " << printable(*output) << ": " << profile->stacks.size() << " stacks, ";
    if (retained)  // no sum: the retained sets overlap
        std::cerr << "each with its own retained " << (objects ? "objects" : "bytes") << " (" << where
                  << "; the sets overlap and do not add up" << others << ")";
    else
        std::cerr << (profile->sampled ? "an estimated " : "")
                  << (objects ? formatCount(profile->objects) + " objects" : formatBytes(profile->bytes))
                  << " " << what_text << " (" << where << ")";
    std::cerr << (format == "pprof" ? "; open it with 'go tool pprof -http=: " + printable(*output) + "'"
                                    : "")
              << "\n";
    return 0;
}

}  // namespace

extern const Command kExport{
    .name = "export",
    .summary = "per-allocation-stack values as collapsed stacks or a pprof profile",
    .usage = R"(usage: memcity export FILE (--gc N | --from A --to B) --what W --format F
                      [--unit bytes|objects] [--stacks N] -o FILE

Writes one value per allocation stack (the allocating frame and all its recorded callers) for
flame graph tools: collapsed stacks ("outer;...;allocating N" lines, for flamegraph.pl and
speedscope) or a gzipped pprof profile (for 'go tool pprof', Pyroscope, Grafana). W is
  live       the live objects at GC N (or B), as 'memcity report' counts them
  retained   what each stack's live objects retain at GC N (or B), as 'report --retained'
             gives it for that group; needs a reference snapshot there. Retained sets overlap:
             their sum is no total. The --stacks N stacks with the most live bytes get one each,
             the others one '<other stacks>' line together
  allocated  the objects born in the window (after GC A ended, by GC B), dead or alive at B,
             as 'memcity churn' counts them; with --gc N, the window from GC N-1 to N
  churn      the objects born and dead in the window ('memcity churn''s died within)
A sampled recording's values are estimates (said on stderr and in the pprof comments).
docs/export.md shows how to open the files.

)",
    .options =
        {
            {"--gc", "N", "", "the heap at GC N (for allocated and churn: GC N-1 to N)"},
            {"--from", "A", "", ""},
            {"--to", "B", "", "a window of GCs (A < B)"},
            {"--what", "W", "", "allocated, live, retained or churn (required)"},
            {"--format", "F", "", "collapsed or pprof (required)"},
            {"--unit", "U", "", "bytes (the default) or objects: collapsed's values, pprof's default"},
            {"--stacks", "N", "",
             "retained: the N stacks with the most live bytes each closed (default 200)"},
            {"--output", "FILE", "-o", "the file to write (required; - for standard output)"},
        },
    .run = [](const Words& a, const Services&) { return runExport(a); },
};

}  // namespace memcity::cli
