// CRC-32C (Castagnoli), the checksum of every trace chunk. Uses the SSE4.2 instruction when
// the CPU has it and a table otherwise; both give the same value.
#pragma once

#include <cstddef>
#include <cstdint>

namespace memcity {

// Continues a running CRC: crc32c(crc32c(0, a), b) == crc32c(0, a ++ b).
uint32_t crc32c(uint32_t crc, const void* data, size_t size);

}  // namespace memcity
