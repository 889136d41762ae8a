// Human-readable counts and sizes, for messages of analysis/ and the terminal output alike.
#pragma once

#include <cstdint>
#include <string>

namespace memcity {

std::string formatCount(uint64_t n);      // 1,234,567
std::string formatBytes(uint64_t bytes);  // 512 B, 12.3 KiB, 4.0 MiB, 1.20 GiB

}  // namespace memcity
