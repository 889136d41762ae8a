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
    if (out.metric_name != "bytes" && out.metric_name != "objects")
        return Error{prefix + "--metric expects objects or bytes, got '" + out.metric_name + "'"};
    out.metric = out.metric_name == "objects" ? Metric::kObjects : Metric::kBytes;
    auto depth = args.unsignedValue("--depth", 1000, 1, 1000);
    if (!depth) return depth.error();
    out.depth = *depth;
    out.all = args.has("--all");
    return out;
}

std::vector<std::vector<std::string>> parseNodePaths(const std::string& text) {
    std::vector<std::vector<std::string>> nodes;
    auto trim = [](std::string s) {
        const size_t a = s.find_first_not_of(' '), b = s.find_last_not_of(' ');
        return a == std::string::npos ? std::string() : s.substr(a, b - a + 1);
    };
    size_t start = 0;
    while (start <= text.size()) {
        const size_t semi = text.find(';', start);
        const std::string one =
            text.substr(start, semi == std::string::npos ? std::string::npos : semi - start);
        std::vector<std::string> labels;
        size_t s = 0;
        while (s <= one.size()) {
            const size_t slash = one.find('/', s);
            std::string l = trim(one.substr(s, slash == std::string::npos ? std::string::npos : slash - s));
            if (!l.empty()) labels.push_back(l);
            if (slash == std::string::npos) break;
            s = slash + 1;
        }
        nodes.push_back(std::move(labels));
        if (semi == std::string::npos) break;
        start = semi + 1;
    }
    return nodes;
}

}  // namespace memcity::cli
