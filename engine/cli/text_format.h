// Human-readable numbers for terminal output.
#pragma once

#include <cstdint>
#include <string>
#include <string_view>

#include "util/units.h"

namespace memcity::cli {

using memcity::formatBytes;  // 512 B, 12.3 KiB, 4.0 MiB, 1.20 GiB
using memcity::formatCount;  // 1,234,567
// "1 GC", "2 GCs", "1,000 objects": the count and the noun, singular or plural.
std::string formatCountOf(uint64_t n, std::string_view one, std::string_view many);
std::string formatDuration(int64_t ns);  // 850 ns, 12.3 us, 4.56 ms, 1.234 s
// A duration that may not fit a signed 64-bit count, clamped for formatDuration.
inline int64_t clampNs(uint64_t ns) {
    return ns > INT64_MAX ? INT64_MAX : static_cast<int64_t>(ns);
}
std::string formatPercent(double fraction);  // 12.5%
// `text` padded with spaces on the left to `width` columns (a UTF-8 character is one column).
std::string padLeft(const std::string& text, size_t width);
// The last part of a path (after its last '/'): the name a title bar shows.
std::string baseName(const std::string& path);

}  // namespace memcity::cli
