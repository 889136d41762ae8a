#include "cli/series_build.h"

#include <unistd.h>

#include <cstdio>
#include <memory>
#include <thread>

#include "graph/heap_graph.h"

namespace memcity::cli {

Result<SortStrategy> parseSort(std::string_view name, std::string_view command) {
    if (name == "start") return SortStrategy::kStartSize;
    if (name == "end") return SortStrategy::kEndSize;
    if (name == "growth") return SortStrategy::kGrowth;
    return Error{"memcity " + std::string(command) + ": --sort expects start, end or growth, got '" +
                 printable(name, 40) + "'"};
}

Result<GcWindow> readGcWindow(const Args& args, const HeapHistory& history, std::string_view command) {
    const std::string prefix = "memcity " + std::string(command) + ": ";
    auto from = args.unsignedValue("--from", 0);
    if (!from) return from.error();
    auto to = args.unsignedValue("--to", history.gcCount() == 0 ? 0 : history.gcCount() - 1);
    if (!to) return to.error();
    for (uint64_t gc : {*from, *to})
        if (gc >= history.gcCount()) return Error{prefix + history.gcRangeError(gc)};
    if (*from > *to)
        return Error{prefix + "--from " + std::to_string(*from) + " is after --to " + std::to_string(*to)};
    return GcWindow{static_cast<uint32_t>(*from), static_cast<uint32_t>(*to)};
}

Result<TreeSeries> buildSeries(const LoadedTrace& loaded, const ClassifierChain& chain,
                               const SeriesBuildOptions& options, std::string_view command) {
    const HeapHistory& h = *loaded.history;
    const GcWindow w = options.window;
    SeriesOptions so;
    so.from = w.from;
    so.to = w.to;
    so.threads = std::thread::hardware_concurrency() >= 2 ? 2 : 1;
    const bool tty = options.progress && ::isatty(STDERR_FILENO);
    if (tty) {
        so.progress = [&](uint32_t gc) {
            std::fprintf(stderr, "\rclassifying GC %u of %u..%u   ", gc, w.from, w.to);
            std::fflush(stderr);
            return true;
        };
    }
    std::unique_ptr<HeapState> state;
    std::unique_ptr<HeapGraph> graph;
    if (chain.needsReferences()) {
        bool any = false;
        for (uint32_t g = w.from; g <= w.to; ++g)
            any = any || h.gcs()[g].has_snapshot;
        if (!any)
            return Error{"memcity " + std::string(command) + ": " + loaded.trace->path() +
                         ": the chain reads references, and none of GCs " + std::to_string(w.from) + ".." +
                         std::to_string(w.to) + " has a reference snapshot ('memcity gcs' marks them)"};
        so.include_gc = [&](uint32_t gc) { return h.gcs()[gc].has_snapshot; };
        so.prepare_heap = [&](const HeapView& replayed) -> Result<HeapView> {
            graph.reset();
            state = std::make_unique<HeapState>(replayed);
            auto g = loadGraph(h, *state);
            if (!g) return g.error();
            graph = std::move(*g);
            return state->view().withGraph(graph.get());
        };
    }
    auto series = TreeSeries::build(h, chain, so);
    if (tty) std::fprintf(stderr, "\r\033[K");
    if (!series) return Error{"error: " + series.error().message};
    return series;
}

}  // namespace memcity::cli
