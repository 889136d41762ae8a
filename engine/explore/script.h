// Explorer scripts (`memcity FILE --script S`): one command per line, run in order by the window
// as if a user did it, each after the previous one's work has settled (the trace loaded, the
// series and the inspector computed). Windowed smoke tests and benchmarks drive the explorer
// this way. `#` starts a comment line. This is the language; the commands are the runner's
// (app/script_runner.cpp, listed in docs/explorer.md).
#pragma once

#include <cstdint>
#include <span>
#include <string>
#include <string_view>
#include <vector>

#include "util/result.h"

namespace memcity::explore {

// A command: its name, how many words it takes and one line on it (for errors and help). The
// runner's table of them (app/script_runner.cpp) is the one place a command is described; it
// derives its entries from this to add what runs them.
struct ScriptVerb {
    std::string_view name;
    size_t min_args, max_args;  // words after the verb; kRestOfLine: any number (the rest of the line)
    std::string_view usage;
};
inline constexpr size_t kRestOfLine = SIZE_MAX;

struct ScriptCommand {
    size_t line = 0;                   // 1-based line in the script
    std::string verb;                  // "gc", "select", ...
    std::vector<std::string> args;     // the words after the verb
    std::string rest;                  // everything after the verb, trimmed (paths with spaces)
    std::string text;                  // the whole line, trimmed (for messages)
    const ScriptVerb* spec = nullptr;  // the entry of the table it was parsed against
};

// Parses script text against the commands `verbs`; `name` names it in errors:
// "demo.script:3: unknown command 'fly-to' (commands: open, wait, ...)", "demo.script:5: gc
// expects 1 argument, got 0 (gc N: ...)".
Result<std::vector<ScriptCommand>> parseScript(std::string_view text, const std::string& name,
                                               std::span<const ScriptVerb* const> verbs);
// Reads and parses the file at `path`. Error: a file that cannot be read, naming it.
Result<std::vector<ScriptCommand>> loadScript(const std::string& path,
                                              std::span<const ScriptVerb* const> verbs);

}  // namespace memcity::explore
