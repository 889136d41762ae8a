#include "cli/text_format.h"

#include <cstdio>

namespace memcity::cli {

std::string formatCountOf(uint64_t n, std::string_view one, std::string_view many) {
    return formatCount(n) + " " + std::string(n == 1 ? one : many);
}

std::string formatDuration(int64_t ns) {
    char buf[32];
    auto v = static_cast<double>(ns);
    uint64_t a = ns < 0 ? 0 - static_cast<uint64_t>(ns) : static_cast<uint64_t>(ns);
    if (a < 1'000)
        std::snprintf(buf, sizeof buf, "%lld ns", static_cast<long long>(ns));
    else if (a < 1'000'000)
        std::snprintf(buf, sizeof buf, "%.1f us", v / 1e3);
    else if (a < 1'000'000'000)
        std::snprintf(buf, sizeof buf, "%.2f ms", v / 1e6);
    else
        std::snprintf(buf, sizeof buf, "%.3f s", v / 1e9);
    return buf;
}

std::string formatPercent(double fraction) {
    char buf[32];
    std::snprintf(buf, sizeof buf, "%.1f%%", fraction * 100.0);
    return buf;
}

std::string baseName(const std::string& path) {
    const size_t slash = path.find_last_of('/');
    return slash == std::string::npos ? path : path.substr(slash + 1);
}

std::string padLeft(const std::string& text, size_t width) {
    size_t columns = 0;
    for (char c : text)
        columns += (static_cast<unsigned char>(c) & 0xC0) != 0x80;
    return columns >= width ? text : std::string(width - columns, ' ') + text;
}

}  // namespace memcity::cli
