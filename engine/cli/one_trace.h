// The start that every command reading one trace shares: its arguments parsed, --help answered,
// one trace named, the trace loaded; each failure one line on stderr.
#pragma once

#include <optional>
#include <string>
#include <string_view>

#include "cli/args.h"
#include "cli/commands.h"
#include "cli/load.h"

namespace memcity::cli {

// The arguments of `memcity COMMAND WORDS`, or nothing when the command ends here with `status`:
// 0 after printing its help, 1 after a bad option or other than one trace file ("memcity
// COMMAND: expected one trace file (see 'memcity COMMAND --help')").
std::optional<Args> oneTraceArgs(std::string_view command, const Words& words, int& status);

// The trace at `path` loaded, or nothing after printing "error: PATH: ..." (exit status 1).
std::optional<LoadedTrace> loadOrSay(const std::string& path, const LoadOptions& options = {});

}  // namespace memcity::cli
