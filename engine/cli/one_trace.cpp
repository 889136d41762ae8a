#include "cli/one_trace.h"

#include <iostream>

namespace memcity::cli {

std::optional<Args> oneTraceArgs(std::string_view command, const Words& words, int& status) {
    auto args = Args::parse(command, words);
    status = 1;
    if (!args) {
        std::cerr << args.error().message << "\n";
        return std::nullopt;
    }
    if (args->help()) {
        status = printHelp(command);
        return std::nullopt;
    }
    if (args->positionals().size() != 1) {
        std::cerr << "memcity " << command << ": expected one trace file (see 'memcity " << command
                  << " --help')\n";
        return std::nullopt;
    }
    status = 0;
    return std::move(*args);
}

std::optional<LoadedTrace> loadOrSay(const std::string& path, const LoadOptions& options) {
    auto loaded = loadTrace(path, options);
    if (!loaded) {
        std::cerr << "error: " << loaded.error().message << "\n";
        return std::nullopt;
    }
    return std::move(*loaded);
}

}  // namespace memcity::cli
