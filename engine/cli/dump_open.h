// Opening a heap dump where a trace is expected (`memcity FILE.hprof`, `memcity report
// FILE.hprof`, ...): the dump is imported once into a trace in the user's cache, which later
// opens of the same dump (same path, size and time) reuse.
#pragma once

#include <string>
#include <vector>

#include "util/result.h"

namespace memcity::cli {

// Whether `path` names a heap dump (HPROF, or gzip-compressed).
bool isHeapDump(const std::string& path);

// The trace for the dump at `path`, imported now if the cache has none ("importing ..." on
// stderr). Errors name the dump.
Result<std::string> traceOfDump(const std::string& path);

// Replaces each word that names a heap dump with its trace. Returns the first error.
Status openDumpsIn(std::vector<std::string>& words);

}  // namespace memcity::cli
