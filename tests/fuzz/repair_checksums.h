// Mutations almost never keep a chunk's CRC right, and a wrong CRC stops everything at the
// checksum. So the trace targets repair the checksum of every chunk whose header can be walked
// before they parse. The checksum check itself is covered by the unit tests.
#pragma once

#include <cstddef>
#include <cstdint>
#include <vector>

#include "trace/trace_format.h"
#include "util/bytes.h"
#include "util/crc32c.h"

namespace memcity::fuzz {

inline std::vector<uint8_t> withRepairedChecksums(const uint8_t* data, size_t size) {
    std::vector<uint8_t> b(data, data + size);
    if (size < format::kHeaderSize) return b;
    uint64_t at = loadU32(b.data() + 16);
    if (at < format::kHeaderSize) at = format::kHeaderSize;
    while (at + format::kChunkHeaderSize <= size && loadU32(b.data() + at) == format::kChunkSync) {
        uint64_t stored = loadU32(b.data() + at + 8);
        if (at + format::kChunkHeaderSize + stored > size) break;
        uint32_t crc = crc32c(0, b.data() + at, 20);
        crc = crc32c(crc, b.data() + at + format::kChunkHeaderSize, stored);
        storeU32(b.data() + at + 20, crc);
        at += format::kChunkHeaderSize + stored;
    }
    return b;
}

}  // namespace memcity::fuzz
