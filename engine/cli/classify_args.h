// The options `report` and `diff` share: --classify, --filter, --metric, --depth, --all.
#pragma once

#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "classify/tree.h"
#include "cli/args.h"

namespace memcity::cli {

struct ClassifyArgs {
    ClassifierChain chain;              // --classify, with --filter as its filter
    std::optional<std::string> filter;  // --filter as given
    Metric metric = Metric::kBytes;
    std::string metric_name;  // "objects" or "bytes"
    uint64_t depth = 1000;    // levels to show below the root
    bool all = false;         // no pruning
};

// Reads the options; errors are one line that starts with "memcity COMMAND: ".
Result<ClassifyArgs> readClassifyArgs(const Args& args, std::string_view command,
                                      std::string_view default_chain, std::string_view default_metric);

}  // namespace memcity::cli
