// IdIndex maps object ids to positions of a sorted IdColumn in near-constant time: the id range
// is cut into blocks of 2^shift ids and each block remembers its first position. The shift is
// chosen so that there are at most half as many blocks as objects (<= 2 bytes per object).
#pragma once

#include <cstdint>
#include <vector>

#include "heap/id_column.h"

namespace memcity {

class IdIndex {
public:
    IdIndex() = default;
    // Contract: positions [0, end) of `ids` are sorted ascending; `ids` outlives the index.
    IdIndex(const IdColumn& ids, size_t end);

    // Position of `id` in [0, end), or `end` when absent.
    size_t find(uint64_t id) const;
    size_t end() const { return end_; }
    size_t memoryBytes() const { return first_.capacity() * sizeof(uint32_t); }

private:
    const IdColumn* ids_ = nullptr;
    size_t end_ = 0;
    uint64_t base_ = 0;
    unsigned shift_ = 0;
    std::vector<uint32_t> first_;  // per block: first position with id >= block start; one extra at the end
};

}  // namespace memcity
