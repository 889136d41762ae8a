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

// A size in bytes with an optional k/m/g suffix (powers of 1024).
bool bytes(std::string_view v, uint64_t lo, uint64_t hi, uint64_t* out) {
    uint64_t scale = 1;
    if (!v.empty()) {
        switch (v.back()) {
            case 'k':
            case 'K': scale = uint64_t{1} << 10; break;
            case 'm':
            case 'M': scale = uint64_t{1} << 20; break;
            case 'g':
            case 'G': scale = uint64_t{1} << 30; break;
            default: break;
        }
        if (scale != 1) v.remove_suffix(1);
    }
    uint64_t n = 0;
    auto [p, ec] = std::from_chars(v.data(), v.data() + v.size(), n);
    if (ec != std::errc() || p != v.data() + v.size() || n > hi / scale || n * scale < lo) return false;
    *out = n * scale;
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
    bool refs_given = false, final_gc_given = false;
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
            refs_given = true;
            uint32_t percent = 0;
            if (value == "off") {
                o.refs_every = 0;
            } else if (value.ends_with('%') && number(value.substr(0, value.size() - 1), 1, 100, &percent)) {
                o.refs_every = 0;
                o.refs_percent = percent;
            } else if (!number(value, 1, 1'000'000, &o.refs_every)) {
                return bad("a number of GCs, a share of the run from 1% to 100%, or off");
            }
        } else if (key == "finalgc") {
            final_gc_given = true;
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
        } else if (key == "owned") {
            if (!yesNo(value.empty() ? "yes" : value, &o.owned)) return bad("yes or no");
        } else if (key == "control") {
            if (!yesNo(value, &o.control)) return bad("yes or no");
        } else if (key == "interval") {
            // SetHeapSamplingInterval takes a jint.
            if (!bytes(value, 1, INT32_MAX, &o.interval))
                return bad("a sampling interval from 1 byte to 2047m");
        } else if (key == "census") {
            uint32_t percent = 0;
            if (!number(value, 0, 100, &percent)) return bad("a share of the run from 0 to 100 (percent)");
            o.census_percent = percent;
        } else {
            return Error{"unknown option '" + std::string(key) +
                         "' (options: file=, depth=, refs=, finalgc=, sites=, deaths=, interval=, census=, "
                         "quiet, shared, control=, owned)"};
        }
    }
    if (o.sampled()) {
        // A walk of a large heap costs seconds: a service's snapshots are taken when asked.
        if (!refs_given) o.refs_every = 0;
        // A service's exit is not held up by a full GC: the trace ends at its last GC.
        if (!final_gc_given) o.final_gc = false;
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
