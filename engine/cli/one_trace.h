// The start that every command reading one trace shares: its arguments parsed, --help answered,
// one trace named, the trace loaded; each failure one line on stderr.
#pragma once

#include <memory>
#include <optional>
#include <string>
#include <string_view>

#include "cli/args.h"
#include "cli/commands.h"
#include "cli/load.h"
#include "cli/or_exit.h"
#include "graph/heap_graph.h"

namespace memcity::cli {

// The arguments of `memcity COMMAND WORDS`, or the status the command exits with here: 0 after
// printing its help, 1 after a bad option or other than one trace file ("memcity COMMAND:
// expected one trace file (see 'memcity COMMAND --help')").
OrExit<Args> oneTraceArgs(std::string_view command, const Words& words);

// The trace at `path` loaded, or nothing after printing "error: PATH: ..." (exit status 1).
std::optional<LoadedTrace> loadOrSay(const std::string& path, const LoadOptions& options = {});

// The heap at one GC with its references, for the commands that read a reference snapshot.
struct SnapshotHeap {
    uint32_t gc = 0;
    std::unique_ptr<HeapState> heap;   // (the graph reads it: its address stays put)
    std::unique_ptr<HeapGraph> graph;  // its references
};

// The heap of `loaded` at GC `gc` (nullopt: the last GC with a reference snapshot) and its
// references, after the trace's load diagnostics; or nothing after printing one line "memcity
// COMMAND: FILE: ...": no snapshot in the trace ("...; NEEDS"), a GC out of range, a GC without a
// snapshot (naming the nearest that have one).
std::optional<SnapshotHeap> snapshotHeapOrSay(std::string_view command, const LoadedTrace& loaded,
                                              std::optional<uint64_t> gc, std::string_view needs);

}  // namespace memcity::cli
