// Opening a trace for a command: map it, rebuild its heap history (with a progress line on a
// terminal), and print its warnings and anomalies one line each.
#pragma once

#include <iosfwd>
#include <memory>
#include <optional>
#include <string>

#include "graph/heap_graph.h"
#include "heap/heap_history.h"
#include "trace/trace_reader.h"
#include "util/result.h"

namespace memcity::cli {

struct LoadedTrace {
    std::unique_ptr<TraceFile> trace;
    std::unique_ptr<HeapHistory> history;
};

struct LoadOptions {
    bool reachability = true;
    bool progress = true;  // only shown when stderr is a terminal
};

Result<LoadedTrace> loadTrace(const std::string& path, const LoadOptions& options = {});

// One line per warning and per anomaly kind. With `errors_are_errors` integrity errors are
// printed as "error:" (memcity info), otherwise as "warning:".
void printDiagnostics(const LoadedTrace& t, std::ostream& err, bool errors_are_errors);

// Where the bundled demo trace lives (empty when it cannot be found).
std::string demoTracePath();

}  // namespace memcity::cli
