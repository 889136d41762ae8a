// memcity's subcommands. Each takes the words after its name and returns the exit status:
// 0 success, 1 bad input or usage (a one-line "memcity CMD: ..." or "error: FILE: ..." on
// stderr), 2 `info` read the trace but found integrity errors.
#pragma once

#include <sys/types.h>

#include <functional>
#include <string>
#include <string_view>
#include <vector>

#include "cli/args.h"

namespace memcity::cli {

using Words = std::vector<std::string>;

int runOverview(const Words& args);  // memcity [FILE]
int runInfo(const Words& args);
int runGcs(const Words& args);
int runSpaces(const Words& args);
int runSynth(const Words& args);
int runImport(const Words& args);
// Shows a trace while it is written (the explorer's, given by main): the window on it, or
// without a display a line per GC, until `recording` says the recording ended or the window is
// closed. `window` is the window's options (--script FILE).
using LiveView = std::function<void(const std::string& trace, const std::function<bool()>& recording,
                                    const Words& window)>;
int runRecord(const Words& args, const LiveView& live = {});
int runAttach(const Words& args, const LiveView& live = {});
int runDetach(const Words& args);
int runSnapshot(const Words& args);
int runDump(const Words& args, const LiveView& live = {});
int runReport(const Words& args);
int runDiff(const Words& args);
int runChurn(const Words& args);
int runExport(const Words& args);
int runInspect(const Words& args);
int runDominators(const Words& args);
int runWindows(const Words& args);
int runSuspects(const Words& args);
int runSeries(const Words& args);
int runRender(const Words& args);
// render --view heapmap (render_heapmap.cpp), with the options already parsed.
int renderHeapMap(const Args& args);

// What commands get from the program around them (the explorer's parts, where it has them).
struct Services {
    LiveView live;  // empty: memcity was built without the explorer
};

// The commands, one entry each, the one place a command and its options are described:
// `memcity NAME ARGS...` runs `run`, which parses ARGS with `options` (Args::parse(NAME, ARGS));
// `memcity NAME --help` prints `usage` and then the options with their help.
struct CommandHelp {
    std::string_view name;
    std::string_view summary;
    std::string_view usage;  // the synopsis and what the command does, up to its options
    std::vector<OptionSpec> options;
    int (*run)(const Words& args, const Services& services);
};
const std::vector<CommandHelp>& commandHelp();
const CommandHelp* findCommand(std::string_view name);
// Prints the command's help to stdout and returns 0.
int printHelp(std::string_view name);

}  // namespace memcity::cli
