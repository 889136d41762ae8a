#include "cli/classify_args.h"

#include <iostream>

#include "cli/commands.h"
#include "cli/one_trace.h"

namespace memcity::cli {

Result<ClassifyArgs> readClassifyArgs(const Args& args, std::string_view command,
                                      std::string_view default_chain, std::string_view default_metric) {
    const std::string prefix = "memcity " + std::string(command) + ": ";
    ClassifyArgs out;
    auto chain = parseChain(args.value("--classify").value_or(std::string(default_chain)));
    if (!chain) return Error{prefix + chain.error().message};
    out.chain = std::move(*chain);
    out.filter = args.value("--filter");
    if (out.filter) {
        auto f = parseFilter(*out.filter);
        if (!f) return Error{prefix + "--filter: " + f.error().message};
        out.chain.filters.push_back(std::move(*f));
    }
    out.metric_name = args.value("--metric").value_or(std::string(default_metric));
    const std::optional<Metric> metric = parseMetric(out.metric_name);
    if (!metric) return Error{prefix + "--metric expects objects or bytes, got '" + out.metric_name + "'"};
    out.metric = *metric;
    auto depth = args.unsignedValue("--depth", 1000, 1, 1000);
    if (!depth) return depth.error();
    out.depth = *depth;
    out.all = args.has("--all");
    return out;
}

OrExit<TwoGcCommand> openTwoGcCommand(const std::vector<std::string>& words, std::string_view command,
                                      std::string_view default_metric, const LoadOptions& load) {
    const std::string name(command);
    auto args = oneTraceArgs(command, words);
    if (!args) return ExitWith{args.status()};
    auto fail = [](const std::string& message) {
        std::cerr << message << "\n";
        return ExitWith{1};
    };
    if (!args->has("--from") || !args->has("--to"))
        return fail("memcity " + name + ": --from A and --to B are required");
    auto opts = readClassifyArgs(*args, command, "type", default_metric);
    if (!opts) return fail(opts.error().message);
    auto from = args->unsignedValue("--from", 0);
    auto to = args->unsignedValue("--to", 0);
    for (const Result<uint64_t>* r : {&from, &to})
        if (!*r) return fail(r->error().message);
    auto loaded = loadOrSay(args->positionals()[0], load);
    if (!loaded) return ExitWith{1};
    const HeapHistory& h = *loaded->history;
    for (uint64_t gc : {*from, *to})
        if (gc >= h.gcCount()) return fail("memcity " + name + ": " + h.gcRangeError(gc));
    if (*from > *to)
        return fail("memcity " + name + ": --from " + std::to_string(*from) + " is after --to " +
                    std::to_string(*to));
    printDiagnostics(*loaded, std::cerr, false);
    TwoGcCommand out;
    out.args = std::move(*args);
    out.classify = std::move(*opts);
    out.loaded = std::move(*loaded);
    out.from = static_cast<uint32_t>(*from);
    out.to = static_cast<uint32_t>(*to);
    return out;
}

}  // namespace memcity::cli
