// memcity's subcommands. Each takes the words after its name and returns the exit status:
// 0 success, 1 bad input or usage (a one-line "memcity CMD: ..." or "error: FILE: ..." on
// stderr), 2 `info` read the trace but found integrity errors.
#pragma once

#include <sys/types.h>

#include <functional>
#include <string>
#include <string_view>
#include <vector>

namespace memcity::cli {

using Words = std::vector<std::string>;

int runOverview(const Words& args);  // memcity [FILE]
int runInfo(const Words& args);
int runGcs(const Words& args);
int runSynth(const Words& args);
// `live` shows the trace as it is written (memcity record --live: the explorer's, given by main).
// `window` is the window's options (--script FILE).
using LiveView = std::function<void(const std::string& trace, pid_t program, const Words& window)>;
int runRecord(const Words& args, const LiveView& live = {});
int runReport(const Words& args);
int runDiff(const Words& args);
int runInspect(const Words& args);
int runWindows(const Words& args);
int runSeries(const Words& args);
int runRender(const Words& args);

struct CommandHelp {
    std::string_view name;
    std::string_view summary;
    std::string_view usage;  // full help text
};
const std::vector<CommandHelp>& commandHelp();
const CommandHelp* findCommand(std::string_view name);
// Prints the command's help to stdout and returns 0.
int printHelp(std::string_view name);

}  // namespace memcity::cli
