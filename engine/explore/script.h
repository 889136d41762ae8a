// Explorer scripts (`memcity FILE --script S`): one command per line, run in order by the window
// as if a user did it, each after the previous one's work has settled (the trace loaded, the
// series and the inspector computed). Windowed smoke tests and benchmarks drive the explorer
// this way. docs/explorer.md lists the commands; `#` starts a comment line.
#pragma once

#include <string>
#include <string_view>
#include <vector>

#include "util/result.h"

namespace memcity::explore {

struct ScriptCommand {
    size_t line = 0;                // 1-based line in the script
    std::string verb;               // "gc", "select", ...
    std::vector<std::string> args;  // the words after the verb
    std::string rest;               // everything after the verb, trimmed (paths with spaces)
    std::string text;               // the whole line, trimmed (for messages)
};

// Parses script text; `name` names it in errors: "demo.script:3: unknown command 'fly-to'
// (commands: open, wait, ...)", "demo.script:5: gc expects 1 argument, got 0".
Result<std::vector<ScriptCommand>> parseScript(std::string_view text, const std::string& name);
// Reads and parses the file at `path`. Error: a file that cannot be read, naming it.
Result<std::vector<ScriptCommand>> loadScript(const std::string& path);

// The commands, with their argument counts and one line on each (for errors and docs).
struct ScriptVerb {
    std::string_view name;
    size_t min_args, max_args;  // words after the verb; max SIZE_MAX: the rest of the line
    std::string_view usage;
};
const std::vector<ScriptVerb>& scriptVerbs();

}  // namespace memcity::explore
