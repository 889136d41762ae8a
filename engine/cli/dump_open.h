// A heap dump where a trace is expected on the command line (`memcity report FILE.hprof`, ...):
// its imported trace from the cache (hprof/import_cache.h), imported now if the cache has none.
#pragma once

#include <string>
#include <vector>

#include "util/result.h"

namespace memcity::cli {

// The trace for the dump at `path`, imported now if the cache has none ("importing ..." on
// stderr). Errors name the dump.
Result<std::string> traceOfDump(const std::string& path);

// `words` is a command and its arguments: replaces each of its positionals that names a heap dump
// with the dump's trace. Returns the first error.
Status openDumpsIn(std::vector<std::string>& words);

}  // namespace memcity::cli
