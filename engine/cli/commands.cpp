// The list of memcity's commands. Adding a command: define `extern const Command kNAME{...}` in
// its cmd_NAME.cpp, next to its run function, and add one line here.
#include <functional>

#include "cli/commands.h"

// One line per command, in the order `memcity --help` lists them. (The list names each command
// itself, so that the linker keeps every cmd_*.cpp of the static library.)
#define MEMCITY_COMMANDS(X) \
    X(kOpen)                \
    X(kInfo)                \
    X(kGcs)                 \
    X(kSpaces)              \
    X(kRecord)              \
    X(kAttach)              \
    X(kDetach)              \
    X(kSnapshot)            \
    X(kReport)              \
    X(kInspect)             \
    X(kDominators)          \
    X(kDiff)                \
    X(kChurn)               \
    X(kExport)              \
    X(kWindows)             \
    X(kSuspects)            \
    X(kSeries)              \
    X(kRender)              \
    X(kSynth)               \
    X(kImport)              \
    X(kDump)

namespace memcity::cli {

#define MEMCITY_DECLARE_COMMAND(k) extern const Command k;
MEMCITY_COMMANDS(MEMCITY_DECLARE_COMMAND)
#undef MEMCITY_DECLARE_COMMAND

const std::vector<std::reference_wrapper<const Command>>& commands() {
#define MEMCITY_LIST_COMMAND(k) std::cref(k),
    static const std::vector<std::reference_wrapper<const Command>> commands = {
        MEMCITY_COMMANDS(MEMCITY_LIST_COMMAND)};
#undef MEMCITY_LIST_COMMAND
    return commands;
}

const Command* findCommand(std::string_view name) {
    for (const Command& c : commands())
        if (c.name == name) return &c;
    return nullptr;
}

}  // namespace memcity::cli
