#include "util/units.h"

#include <cctype>
#include <charconv>
#include <cstdio>

namespace memcity {

std::string formatCount(uint64_t n) {
    std::string digits = std::to_string(n), out;
    for (size_t i = 0; i < digits.size(); ++i) {
        if (i > 0 && (digits.size() - i) % 3 == 0) out += ',';
        out += digits[i];
    }
    return out;
}

std::string formatBytes(uint64_t bytes) {
    char buf[32];
    auto b = static_cast<double>(bytes);
    if (bytes < 1024)
        std::snprintf(buf, sizeof buf, "%llu B", static_cast<unsigned long long>(bytes));
    else if (bytes < (uint64_t{1} << 20))
        std::snprintf(buf, sizeof buf, "%.1f KiB", b / 1024.0);
    else if (bytes < (uint64_t{1} << 30))
        std::snprintf(buf, sizeof buf, "%.1f MiB", b / 1048576.0);
    else
        std::snprintf(buf, sizeof buf, "%.2f GiB", b / 1073741824.0);
    return buf;
}

bool parseUnsigned(std::string_view text, uint64_t* out) {
    if (text.empty()) return false;
    auto [p, ec] = std::from_chars(text.data(), text.data() + text.size(), *out);
    return ec == std::errc() && p == text.data() + text.size();
}

bool parseBytes(std::string_view text, uint64_t* out) {
    size_t digits = 0;
    while (digits < text.size() && text[digits] >= '0' && text[digits] <= '9')
        ++digits;
    uint64_t n = 0;
    if (!parseUnsigned(text.substr(0, digits), &n)) return false;
    std::string unit(text.substr(digits));
    for (char& c : unit)
        c = static_cast<char>(std::tolower(static_cast<unsigned char>(c)));
    int shift = -1;
    if (unit.empty() || unit == "b")
        shift = 0;
    else if (unit == "k" || unit == "kib")
        shift = 10;
    else if (unit == "m" || unit == "mib")
        shift = 20;
    else if (unit == "g" || unit == "gib")
        shift = 30;
    if (shift < 0 || n > (uint64_t{1} << 62) >> shift) return false;
    *out = n << shift;
    return true;
}

}  // namespace memcity
