// Human-readable counts and sizes, for messages of analysis/ and the terminal output alike.
#pragma once

#include <cstdint>
#include <string>
#include <string_view>

namespace memcity {

std::string formatCount(uint64_t n);      // 1,234,567
std::string formatBytes(uint64_t bytes);  // 512 B, 12.3 KiB, 4.0 MiB, 1.20 GiB

// Parses a decimal unsigned integer; false on anything else.
bool parseUnsigned(std::string_view text, uint64_t* out);
// Parses a size in bytes as the JVM's options write them: 4194304, 512k, 4m, 1g (binary units;
// KiB, MiB and GiB also read); false on anything else, and on sizes past 2^62.
bool parseBytes(std::string_view text, uint64_t* out);

}  // namespace memcity
