#include "explore/chain_config.h"

#include <utility>

#include "classify/plugin_classifier.h"

namespace memcity::explore {

std::string ChainConfig::spec() const {
    std::string s;
    for (const std::string& c : classifiers)
        s += (s.empty() ? "" : ",") + c;
    return s;
}

bool ChainCheck::ok() const {
    if (!chain_error.empty()) return false;
    for (const auto* errors : {&classifier_errors, &filter_errors})
        for (const std::string& e : *errors)
            if (!e.empty()) return false;
    return true;
}

std::string ChainCheck::firstError() const {
    if (!chain_error.empty()) return chain_error;
    for (size_t i = 0; i < classifier_errors.size(); ++i)
        if (!classifier_errors[i].empty())
            return "classifier " + std::to_string(i + 1) + ": " + classifier_errors[i];
    for (size_t i = 0; i < filter_errors.size(); ++i)
        if (!filter_errors[i].empty()) return "filter " + std::to_string(i + 1) + ": " + filter_errors[i];
    return {};
}

ChainCheck checkChain(const ChainConfig& config, std::string_view no_references, bool absolute_plugin_paths) {
    ChainCheck check;
    if (config.classifiers.empty()) check.chain_error = "add at least one classifier";
    for (const std::string& entry : config.classifiers) {
        // A plugin is checked, not loaded: the editor checks every frame while its path is typed,
        // and a partial path may name some other library. It loads when the chain is applied.
        if (isPluginSpec(entry)) {
            const Status plugin = checkPluginSpec(entry, absolute_plugin_paths);
            check.classifier_errors.push_back(plugin.ok() ? std::string() : plugin.error().message);
            continue;
        }
        auto chain = parseChain(entry);
        if (!chain) {
            check.classifier_errors.push_back(chain.error().message);
        } else if (chain->classifiers.size() != 1) {
            check.classifier_errors.push_back("one classifier per entry (this one holds " +
                                              std::to_string(chain->classifiers.size()) + ")");
        } else if (!no_references.empty() && chain->needsReferences()) {
            check.classifier_errors.push_back("reads references: " + std::string(no_references));
        } else {
            check.classifier_errors.emplace_back();
        }
    }
    for (const std::string& entry : config.filters) {
        auto filter = parseFilter(entry);
        check.filter_errors.push_back(filter ? std::string() : filter.error().message);
    }
    return check;
}

Result<ClassifierChain> buildChain(const ChainConfig& config) {
    const ChainCheck check = checkChain(config);
    if (!check.ok()) return Error{check.firstError()};
    auto chain = parseChain(config.spec());
    if (!chain) return chain.error();
    for (const std::string& entry : config.filters) {
        auto filter = parseFilter(entry);
        if (!filter) return filter.error();
        chain->filters.push_back(std::move(*filter));
    }
    return chain;
}

Result<ChainConfig> chainConfigOf(std::string_view spec, std::string_view filter) {
    auto chain = parseChain(spec);
    if (!chain) return chain.error();
    ChainConfig config;
    config.classifiers.clear();
    for (const auto& c : chain->classifiers)
        config.classifiers.push_back(c->spec());
    if (!filter.empty()) {
        auto f = parseFilter(filter);
        if (!f) return Error{"filter: " + f.error().message};
        config.filters.emplace_back(filter);
    }
    return config;
}

bool moveEntry(std::vector<std::string>& entries, size_t index, int direction) {
    if (index >= entries.size() || (direction != -1 && direction != 1)) return false;
    if (direction < 0 && index == 0) return false;
    if (direction > 0 && index + 1 >= entries.size()) return false;
    const size_t other = direction < 0 ? index - 1 : index + 1;
    std::swap(entries[index], entries[other]);
    return true;
}

}  // namespace memcity::explore
