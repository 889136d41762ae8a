#include "util/units.h"

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

}  // namespace memcity
