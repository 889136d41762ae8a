// The two formats `memcity export` writes a SiteProfile in (classify/site_stacks.h).
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include "classify/site_stacks.h"
#include "classify/tree.h"
#include "trace/symbols.h"
#include "util/result.h"

namespace memcity::cli {

// Collapsed stacks, one line per stack: "outer;...;allocating N\n", N in `unit` (objects or
// bytes), frames as SymbolTable::frameLabel gives them, "<unknown site>" for an unknown site,
// "<other stacks>" for SiteStack::other.
// Stacks whose value in `unit` is 0 are left out. flamegraph.pl and speedscope read it.
std::string collapsedStacks(const SiteProfile& profile, const SymbolTable& symbols, Metric unit);

struct PprofOptions {
    StackValue what = StackValue::kLive;
    Metric default_unit = Metric::kBytes;  // the sample type pprof shows first
    int64_t duration_ns = 0;               // the window's length, 0: a heap at one GC
    std::vector<std::string> comments;     // shown by `pprof -comments`
};

// A gzipped profile.proto (pprof's format): two sample types, "<what>_objects"/count and
// "<what>_space"/bytes ("inuse_" for live, "alloc_" for allocated), one sample per stack with
// its locations innermost first, one function per method (name "pkg.Class.method", system
// name with its JVM signature, file), one location per method and line. Errors: zlib's.
Result<std::string> pprofProfile(const SiteProfile& profile, const SymbolTable& symbols,
                                 const PprofOptions& options);

}  // namespace memcity::cli
