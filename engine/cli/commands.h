// memcity's subcommands. Each takes the words after its name and returns the exit status:
// 0 success, 1 bad input or usage (a one-line "memcity CMD: ..." or "error: FILE: ..." on
// stderr), 2 `info` read the trace but found integrity errors.
#pragma once

#include <sys/types.h>

#include <functional>
#include <iosfwd>
#include <string>
#include <string_view>
#include <vector>

#include "cli/args.h"

namespace memcity::cli {

using Words = std::vector<std::string>;

// The terminal overview (`memcity open`, and the explorer without a display).
int runOverview(const Words& args);
// Shows a trace while it is written (the explorer's, given by main): the window on it, or
// without a display a line per GC, until `recording` says the recording ended or the window is
// closed. `window` is the window's options (--script FILE).
using LiveView = std::function<void(const std::string& trace, const std::function<bool()>& recording,
                                    const Words& window)>;
int runRender(const Words& args);  // (the suspects report draws its city with it)
// render --view heapmap (render_heapmap.cpp), with the options already parsed.
int renderHeapMap(const Args& args);

// What commands get from the program around them (the explorer's parts, where it has them).
struct Services {
    LiveView live;  // empty: memcity was built without the explorer
};

// One command, the one place it and its options are described: its cmd_*.cpp defines it as
// `extern const Command kNAME{...}` next to its run function, and commands.cpp lists it.
// `memcity NAME ARGS...` runs `run`, which parses ARGS with `options` (Args::parse(NAME, ARGS));
// `memcity NAME --help` prints `usage` and then the options with their help.
struct Command {
    std::string_view name;
    std::string_view summary;  // one line, for `memcity --help`
    std::string_view usage;    // the synopsis and what the command does, up to its options
    // Text generated from another table, printed after `usage` (report: the classifiers).
    std::string (*usage_end)() = nullptr;
    std::vector<OptionSpec> options;
    // Whether main first replaces each word that names a heap dump by the dump's imported trace
    // (dump_open.h); false for the commands that read dumps, or a program's arguments, themselves.
    bool import_dumps = true;
    int (*run)(const Words& args, const Services& services) = nullptr;
};

// The command's usage as `--help` prints it before the options: `usage`, then `usage_end()`.
std::string usageOf(const Command& command);

// Every command, in the order `memcity --help` lists them (commands.cpp).
const std::vector<std::reference_wrapper<const Command>>& commands();
// The command called `name`, or null.
const Command* findCommand(std::string_view name);

// Prints the command's help to `out` (std::cout without it) and returns 0; nothing for an
// unknown name.
int printHelp(std::string_view name, std::ostream& out);
int printHelp(std::string_view name);
// `memcity --help`, `memcity -h`, `memcity help [COMMAND]`: without `topic`, the program's usage
// and the list of commands (`version` in its first line); with it, that command's help. An
// unknown command is one line on `err` ("memcity: unknown command 'X' (see 'memcity --help')")
// and exit status 1.
int runHelp(const Words& topic, std::string_view version, std::ostream& out, std::ostream& err);

}  // namespace memcity::cli
