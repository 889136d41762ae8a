#include "cli/dump_open.h"

#include <iostream>

#include "cli/args.h"
#include "cli/commands.h"
#include "cli/text_format.h"
#include "hprof/import_cache.h"

namespace memcity::cli {

Result<std::string> traceOfDump(const std::string& path) {
    auto place = hprof::cachedImportOf(path);
    if (!place) return place.error();
    if (place->ready) return place->trace;
    std::cerr << "importing " << path << " (" << formatBytes(place->dump_bytes) << ") into " << place->trace
              << "\n";
    auto pruned = hprof::importIntoCache(*place);
    if (!pruned) return pruned.error();
    if (pruned->removed)
        std::cerr << "removed " << pruned->removed << " older import" << (pruned->removed == 1 ? "" : "s")
                  << " from the cache (" << formatBytes(pruned->freed) << ")\n";
    return place->trace;
}

Status openDumpsIn(std::vector<std::string>& words) {
    if (words.empty()) return Status{};
    const Words rest(words.begin() + 1, words.end());
    // Only the command's positionals: an option's value is not a trace ("-o out.pb.gz" is written,
    // not read). Words the command will reject are left for it to say so.
    auto args = Args::parse(words[0], rest);
    if (!args) return Status{};
    for (size_t i : args->positionalIndices()) {
        std::string& w = words[1 + i];
        if (w.empty() || !hprof::isHeapDump(w)) continue;
        auto trace = traceOfDump(w);
        if (!trace) return trace.error();
        w = *trace;
    }
    return Status{};
}

}  // namespace memcity::cli
