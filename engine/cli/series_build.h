// Building a tree series for a command (series, render): the --sort and --from/--to options,
// and the series over a window of GCs — over the GCs with a reference snapshot when the chain
// reads references, each heap compacted with its references attached.
#pragma once

#include <cstdint>
#include <string>
#include <string_view>

#include "classify/series.h"
#include "cli/args.h"
#include "cli/load.h"

namespace memcity::cli {

// "start", "end" or "growth". Error: "memcity COMMAND: --sort expects start, end or growth, got 'x'".
Result<SortStrategy> parseSort(std::string_view name, std::string_view command);

struct GcWindow {
    uint32_t from = 0, to = 0;  // inclusive GC indices
};
// --from (default 0) and --to (default the last GC), checked against the trace: an index out
// of range or from after to is a one-line error naming the command and the value.
Result<GcWindow> readGcWindow(const Args& args, const HeapHistory& history, std::string_view command);

struct SeriesBuildOptions {
    GcWindow window;
    bool progress = true;  // a progress line on stderr when it is a terminal
};

// Classifies every GC of the window (those with a snapshot when `chain` reads references).
// Errors are one line to print as is: "memcity COMMAND: ..." for a chain that reads references
// over a window without a snapshot, "error: FILE: ..." for a replay failure.
Result<TreeSeries> buildSeries(const LoadedTrace& loaded, const ClassifierChain& chain,
                               const SeriesBuildOptions& options, std::string_view command);

}  // namespace memcity::cli
