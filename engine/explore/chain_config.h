// The classifier chain as the explorer's editor holds it: one entry per classifier and per
// filter, each checked on its own so that a parse error shows beside the entry that has it, plus
// what the views and the series read besides the chain (metric, sort strategy, pruning).
#pragma once

#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "classify/classifier.h"
#include "classify/series.h"
#include "classify/tree.h"
#include "util/result.h"

namespace memcity::explore {

struct ChainConfig {
    std::vector<std::string> classifiers{"package", "type"};  // one classifier spec each ("site(callers=2)")
    std::vector<std::string> filters;                         // one expression each ("age >= 3")
    Metric metric = Metric::kBytes;
    SortStrategy sort = SortStrategy::kGrowth;
    PruneOptions prune;  // the sunburst's and icicle's (the city shows more, see scene::ViewOptions)

    // The classifiers joined by ',' ("package,type"): what parseChain reads and titles show.
    std::string spec() const;
    bool operator==(const ChainConfig&) const = default;
};

// What is wrong with each entry ("" when nothing), in the entries' order.
struct ChainCheck {
    std::vector<std::string> classifier_errors;
    std::vector<std::string> filter_errors;
    std::string chain_error;  // about the whole chain (no classifier at all)
    bool ok() const;
    // The first problem, prefixed with the entry it is about ("classifier 2: ...").
    std::string firstError() const;
};
// `no_references`: why the trace has no references to read (scene::kNoSnapshotsReason for a
// sampled recording), "" when it may have them; each classifier that reads references then has
// "reads references: " and that reason as its error.
// Plugins are checked, never loaded (see checkPluginSpec); with `absolute_plugin_paths` (the
// chain editor, which has no directory of the user's to take a relative path from) a relative
// path= is an error.
ChainCheck checkChain(const ChainConfig& config, std::string_view no_references = {},
                      bool absolute_plugin_paths = false);

// The chain with its filters. Error: the first problem checkChain finds.
Result<ClassifierChain> buildChain(const ChainConfig& config);

// A config from a chain spec as the command line takes it ("type,site(callers=2)") and an
// optional filter expression. Error: the spec's parse error.
Result<ChainConfig> chainConfigOf(std::string_view spec, std::string_view filter = {});

// Editing helpers: move entry `index` one place up (-1) or down (+1); false when it cannot move.
bool moveEntry(std::vector<std::string>& entries, size_t index, int direction);

}  // namespace memcity::explore
