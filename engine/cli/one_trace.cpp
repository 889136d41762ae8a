#include "cli/one_trace.h"

#include <iostream>

#include "scene/estimates.h"

namespace memcity::cli {

OrExit<Args> oneTraceArgs(std::string_view command, const Words& words) {
    auto args = Args::parse(command, words);
    if (!args) {
        std::cerr << args.error().message << "\n";
        return ExitWith{1};
    }
    if (args->help()) return ExitWith{printHelp(command)};
    if (args->positionals().size() != 1) {
        std::cerr << "memcity " << command << ": expected one trace file (see 'memcity " << command
                  << " --help')\n";
        return ExitWith{1};
    }
    return std::move(*args);
}

std::optional<LoadedTrace> loadOrSay(const std::string& path, const LoadOptions& options) {
    auto loaded = loadTrace(path, options);
    if (!loaded) {
        std::cerr << "error: " << loaded.error().message << "\n";
        return std::nullopt;
    }
    return std::move(*loaded);
}

std::optional<SnapshotHeap> snapshotHeapOrSay(std::string_view command, const LoadedTrace& loaded,
                                              std::optional<uint64_t> gc, std::string_view needs) {
    const HeapHistory& h = *loaded.history;
    const std::string& file = loaded.trace->path();
    const std::optional<uint32_t> last = lastSnapshotGc(h);
    if (!gc && !last) {
        std::cerr << "memcity " << command << ": " << file << ": "
                  << (h.sampled() ? std::string(scene::kNoSnapshotsReason)
                                  : "the trace has no reference snapshot (record with --refs N)")
                  << "; " << needs << "\n";
        return std::nullopt;
    }
    const uint64_t at = gc ? *gc : *last;
    if (at >= h.gcCount()) {
        std::cerr << "memcity " << command << ": " << h.gcRangeError(at) << "\n";
        return std::nullopt;
    }
    printDiagnostics(loaded, std::cerr, false);
    SnapshotHeap out;
    out.gc = static_cast<uint32_t>(at);
    auto heap = h.heapAt(out.gc);
    if (!heap) {
        std::cerr << "error: " << heap.error().message << "\n";
        return std::nullopt;
    }
    out.heap = std::make_unique<HeapState>(std::move(*heap));
    auto graph = loadGraph(h, *out.heap);
    if (!graph) {
        std::cerr << "memcity " << command << ": " << file << ": " << graph.error().message << "\n";
        return std::nullopt;
    }
    out.graph = std::move(*graph);
    return out;
}

}  // namespace memcity::cli
