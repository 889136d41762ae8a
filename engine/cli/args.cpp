#include "cli/args.h"

#include "cli/commands.h"

namespace memcity::cli {

Result<Args> Args::parse(std::string_view command, const std::vector<std::string>& argv,
                         const std::vector<OptionSpec>& specs) {
    Args a;
    a.command_ = std::string(command);
    bool options_done = false;
    for (size_t i = 0; i < argv.size(); ++i) {
        const std::string& w = argv[i];
        if (options_done || w.empty() || w[0] != '-' || w == "-") {
            a.positionals_.push_back(w);
            a.positional_indices_.push_back(i);
            continue;
        }
        if (w == "--") {
            options_done = true;
            continue;
        }
        if (w == "--help" || w == "-h") {
            a.values_["--help"] = "";
            continue;
        }
        std::string name = w, inline_value;
        bool has_inline = false;
        if (auto eq = w.find('='); eq != std::string::npos && w.rfind("--", 0) == 0) {
            name = w.substr(0, eq);
            inline_value = w.substr(eq + 1);
            has_inline = true;
        }
        const OptionSpec* spec = nullptr;
        for (const OptionSpec& s : specs)
            if (s.name == name || (!s.short_name.empty() && s.short_name == name)) spec = &s;
        if (!spec)
            return Error{"memcity " + a.command_ + ": unknown option '" + name + "' (see 'memcity " +
                         a.command_ + " --help')"};
        const std::string key(spec->name);
        if (!spec->takesValue()) {
            if (has_inline) return Error{"memcity " + a.command_ + ": option " + key + " takes no value"};
            a.values_[key] = "";
            continue;
        }
        if (has_inline) {
            a.values_[key] = inline_value;
        } else if (i + 1 < argv.size()) {
            a.values_[key] = argv[++i];
        } else {
            return Error{"memcity " + a.command_ + ": option " + key + " needs a value"};
        }
    }
    return a;
}

std::optional<std::string> Args::value(std::string_view name) const {
    auto it = values_.find(std::string(name));
    if (it == values_.end()) return std::nullopt;
    return it->second;
}

Result<uint64_t> Args::unsignedValue(std::string_view name, uint64_t fallback, uint64_t min,
                                     uint64_t max) const {
    auto v = value(name);
    if (!v) return fallback;
    uint64_t n = 0;
    if (!parseUnsigned(*v, &n) || n < min || n > max) {
        std::string range = max == UINT64_MAX
                                ? "an integer of at least " + std::to_string(min)
                                : "an integer from " + std::to_string(min) + " to " + std::to_string(max);
        return Error{"memcity " + command_ + ": " + std::string(name) + " expects " + range + ", got '" + *v +
                     "'"};
    }
    return n;
}

Result<Size> Args::sizeValue(std::string_view name, Size fallback, Size min, Size max) const {
    auto v = value(name);
    if (!v) return fallback;
    const std::string prefix = "memcity " + command_ + ": " + std::string(name);
    const size_t x = v->find('x');
    uint64_t w = 0, h = 0;
    if (x == std::string::npos || !parseUnsigned(v->substr(0, x), &w) || !parseUnsigned(v->substr(x + 1), &h))
        return Error{prefix + " expects WIDTHxHEIGHT (like 1280x720), got '" + printable(*v, 40) + "'"};
    if (w < min.width || h < min.height || w > max.width || h > max.height)
        return Error{prefix + " " + printable(*v, 40) + " is out of range (" + std::to_string(min.width) +
                     "x" + std::to_string(min.height) + " to " + std::to_string(max.width) + "x" +
                     std::to_string(max.height) + ")"};
    return Size{static_cast<uint32_t>(w), static_cast<uint32_t>(h)};
}

Result<Args> Args::parse(std::string_view command, const std::vector<std::string>& argv) {
    static const std::vector<OptionSpec> kNone;
    const Command* c = findCommand(command);
    return parse(command, argv, c ? c->options : kNone);
}

}  // namespace memcity::cli
