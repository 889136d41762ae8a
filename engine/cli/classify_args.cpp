#include "cli/classify_args.h"

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

}  // namespace memcity::cli
