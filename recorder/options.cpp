#include "options.h"

#include <charconv>
#include <string_view>

namespace memcity::agent {
namespace {

bool number(std::string_view v, uint32_t lo, uint32_t hi, uint32_t* out) {
    uint32_t n = 0;
    auto [p, ec] = std::from_chars(v.data(), v.data() + v.size(), n);
    if (ec != std::errc() || p != v.data() + v.size() || n < lo || n > hi) return false;
    *out = n;
    return true;
}

bool yesNo(std::string_view v, bool* out) {
    if (v == "yes" || v == "true" || v == "on" || v == "1") return *out = true, true;
    if (v == "no" || v == "false" || v == "off" || v == "0") return *out = false, true;
    return false;
}

}  // namespace

Result<AgentOptions> parseAgentOptions(const char* text) {
    AgentOptions o;
    std::string_view rest = text ? text : "";
    while (!rest.empty()) {
        size_t comma = rest.find(',');
        std::string_view item = rest.substr(0, comma);
        rest = comma == std::string_view::npos ? std::string_view() : rest.substr(comma + 1);
        if (item.empty()) continue;
        size_t eq = item.find('=');
        std::string_view key = item.substr(0, eq);
        std::string_view value = eq == std::string_view::npos ? std::string_view() : item.substr(eq + 1);
        auto bad = [&](const char* expected) {
            return Error{"option " + std::string(key) + "=" + std::string(value) + ": expected " + expected};
        };
        if (key == "file") {
            if (value.empty()) return bad("a file name");
            o.file = std::string(value);
        } else if (key == "depth") {
            if (!number(value, 1, 256, &o.depth)) return bad("a number of frames from 1 to 256");
        } else if (key == "refs") {
            if (value == "off")
                o.refs_every = 0;
            else if (!number(value, 1, 1'000'000, &o.refs_every))
                return bad("a number of GCs, or off");
        } else if (key == "finalgc") {
            if (!yesNo(value, &o.final_gc)) return bad("yes or no");
        } else if (key == "quiet") {
            if (!yesNo(value.empty() ? "yes" : value, &o.quiet)) return bad("yes or no");
        } else if (key == "sites") {
            if (value == "walk")
                o.sites = SiteMode::kWalk;
            else if (value == "jvmti")
                o.sites = SiteMode::kJvmti;
            else if (value == "check")
                o.sites = SiteMode::kCheck;
            else
                return bad("walk, jvmti or check");
        } else if (key == "deaths") {
            if (value == "weak")
                o.deaths = DeathMode::kWeak;
            else if (value == "tags")
                o.deaths = DeathMode::kTags;
            else
                return bad("weak or tags");
        } else if (key == "shared") {
            if (!yesNo(value.empty() ? "yes" : value, &o.shared)) return bad("yes or no");
        } else if (key == "control") {
            if (!yesNo(value, &o.control)) return bad("yes or no");
        } else {
            return Error{
                "unknown option '" + std::string(key) +
                "' (options: file=, depth=, refs=, finalgc=, sites=, deaths=, quiet, shared, control=)"};
        }
    }
    return o;
}

std::string sharedTracePath(const std::string& file, long pid) {
    const size_t slash = file.rfind('/');
    const size_t dot = file.rfind('.');
    const bool has_extension = dot != std::string::npos && (slash == std::string::npos || dot > slash + 1);
    const std::string stem = has_extension ? file.substr(0, dot) : file;
    return stem + "." + std::to_string(pid) + (has_extension ? file.substr(dot) : ".mct");
}

}  // namespace memcity::agent
