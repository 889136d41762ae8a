// Opening a heap dump where a trace is expected (`memcity FILE.hprof`, `memcity report
// FILE.hprof`, ...): the dump is imported once into a trace in the user's cache, which later
// opens of the same dump (same path, size and time) reuse.
#pragma once

#include <chrono>
#include <cstdint>
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

// The cache's imports (a directory per dump under `imports`), pruned: an import not opened for
// `max_age` goes, then the least recently opened ones until the rest take at most `max_bytes`;
// `keep` (the import just made or opened) stays. A ".part" file (an import that did not finish)
// older than a day goes too. Opening an import marks it as used (its trace's modification time).
struct PruneResult {
    size_t removed = 0;  // imports
    uint64_t freed = 0;  // bytes
};
PruneResult pruneImports(const std::string& imports, const std::string& keep, uint64_t max_bytes,
                         std::chrono::seconds max_age);
// The cache's size limit: MEMCITY_CACHE_MAX (a size: 500m, 20g), else 8 GiB.
uint64_t importCacheLimit();

}  // namespace memcity::cli
