// The options `report`, `diff` and `churn` share: --classify, --filter, --metric, --depth, --all;
// and the opening of a command over two GCs of one trace (diff, churn).
#pragma once

#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "classify/tree.h"
#include "cli/args.h"
#include "cli/load.h"
#include "cli/or_exit.h"

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

// `memcity COMMAND FILE --from A --to B [--classify C] [--filter E] [--metric M] [--depth D]
// [--all] [--json]`, read, checked and opened: the trace loaded, A and B in it, A <= B.
struct TwoGcCommand {
    Args args;
    ClassifyArgs classify;
    LoadedTrace loaded;
    uint32_t from = 0, to = 0;
};
// The command opened, or, after printing the one-line error itself (or the help), the exit
// status: 0 after --help, 1 after an error.
OrExit<TwoGcCommand> openTwoGcCommand(const std::vector<std::string>& words, std::string_view command,
                                      std::string_view default_metric, const LoadOptions& load);

}  // namespace memcity::cli
