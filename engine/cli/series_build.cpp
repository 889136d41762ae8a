#include "cli/series_build.h"

#include <unistd.h>

#include <cstdio>
#include <memory>

#include "graph/heap_graph.h"
#include "util/parallel.h"

namespace memcity::cli {

Result<SortStrategy> parseSort(std::string_view name, std::string_view command) {
    if (auto sort = parseSortStrategy(name)) return *sort;
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
    so.threads = defaultThreads();
    const bool tty = options.progress && ::isatty(STDERR_FILENO);
    if (tty) {
        so.progress = Progress([&](const ProgressReport& r) {
            std::fprintf(stderr, "\rclassifying GC %u of %u..%u   ", static_cast<uint32_t>(r.position),
                         w.from, w.to);
            std::fflush(stderr);
            return true;
        });
    }
    // A chain that reads references over a window without a snapshot is a usage error.
    const bool usage_error = chain.needsReferences() && !hasSnapshotIn(h, w.from, w.to);
    auto series = buildWindowSeries(h, chain, so);
    if (tty) std::fprintf(stderr, "\r\033[K");
    if (!series)
        return Error{(usage_error ? "memcity " + std::string(command) + ": " : std::string("error: ")) +
                     series.error().message};
    return series;
}

}  // namespace memcity::cli
