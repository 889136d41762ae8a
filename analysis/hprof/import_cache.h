// The imports of heap dumps opened where a trace is expected (`memcity FILE.hprof`, `memcity
// report FILE.hprof`, a dump dropped on the window): each dump is imported once into a trace in
// the user's cache, which later opens of the same dump (same path, size and time) reuse.
#pragma once

#include <sys/types.h>

#include <chrono>
#include <cstdint>
#include <functional>
#include <span>
#include <string>

#include "hprof/hprof_import.h"
#include "util/progress.h"
#include "util/result.h"

namespace memcity::hprof {

// Whether `path` names a heap dump: HPROF, or a gzip file that holds HPROF (not any gzip file).
bool isHeapDump(const std::string& path);

// Where the dump at `path` is imported to in the cache: `trace` once whole, `partial` (its
// ".PID.part") while the import writes it. `ready`: the trace is there, whole (it is then marked as
// used now). Errors name the dump (or the cache directory that cannot be made).
struct CachedImport {
    std::string dump, dir, trace, partial;
    uint64_t dump_bytes = 0;
    bool ready = false;
};
Result<CachedImport> cachedImportOf(const std::string& path);

// The cache's directory: $XDG_CACHE_HOME/memcity, else $HOME/.cache/memcity, else (neither
// set) the .cache/memcity of the user's home directory in the password database, else
// privateCacheDirectory(temporary directory, uid). Error: why there is none (imports are then
// not cached).
Result<std::string> importCacheDirectory();
// `base`/memcity-cache-UID, created with mode 0700 if missing, and checked (lstat) to be a
// directory, not a link, owned by `uid`, that nobody else can enter: a shared directory's
// predictable name that another user may have made first. Error: one line naming it and what is
// wrong.
Result<std::string> privateCacheDirectory(const std::string& base, uid_t uid);

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

// The private file an import into `trace` writes until it is whole: "TRACE.PID.part", beside it
// (per process: two imports into one trace at once write apart, and the last one's stays).
std::string partialTracePath(const std::string& trace);
// Imports `dumps` (in order, one GC each) into `partial`, then renames it to `trace`: `trace`
// changes only when every dump was imported and the trace closed. `progress` (may be empty):
// Importer::onProgress. `imported` (may be empty): called with each dump's figures. On an error,
// which names the dump (or the file), `partial` is removed and `trace` is as it was.
Status importWhole(std::span<const std::string> dumps, const std::string& partial, const std::string& trace,
                   Progress progress = {}, const std::function<void(const DumpStats&)>& imported = {});

// Imports the dump into `place.partial`, renames it to `place.trace` and prunes the cache
// (what went is returned). `progress` (may be empty): Importer::onProgress (the partial trace is
// being written from its first call on; false cancels). On an error the partial trace is removed.
Result<PruneResult> importIntoCache(const CachedImport& place, Progress progress = {});

}  // namespace memcity::hprof
