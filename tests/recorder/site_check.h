// What the recorder's site check (memcity record --sites check) said on stderr.
#pragma once

#include <cstdint>
#include <regex>
#include <string>

namespace memcity::testing {

struct SiteCheck {
    bool found = false;      // the agent printed its sites line
    uint64_t by_key = 0;     // sites read by stack key, with no JVMTI call
    uint64_t decoded = 0;    // keys read once with GetStackTrace
    uint64_t not_keyed = 0;  // stacks the walker could not key (GetStackTrace instead)
    uint64_t checked = 0;    // sites compared with GetStackTrace
    uint64_t differed = 0;   // ... that differed
};

// Parses "memcity agent: sites: N by stack key, M keys read with GetStackTrace, K stacks not
// keyed (...); C checked against GetStackTrace, D differed".
inline SiteCheck parseSiteCheck(const std::string& stderr_text) {
    static const std::regex line(
        R"(memcity agent: sites: ([0-9]+) by stack key, ([0-9]+) keys read with GetStackTrace, ([0-9]+) stacks not keyed[^;]*; ([0-9]+) checked against GetStackTrace, ([0-9]+) differed)");
    std::smatch m;
    SiteCheck c;
    if (!std::regex_search(stderr_text, m, line)) return c;
    c.found = true;
    c.by_key = std::stoull(m[1].str());
    c.decoded = std::stoull(m[2].str());
    c.not_keyed = std::stoull(m[3].str());
    c.checked = std::stoull(m[4].str());
    c.differed = std::stoull(m[5].str());
    return c;
}

}  // namespace memcity::testing
