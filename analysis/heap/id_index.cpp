#include "heap/id_index.h"

#include <algorithm>
#include <bit>

namespace memcity {

IdIndex::IdIndex(const IdColumn& ids, size_t end) : ids_(&ids), end_(end) {
    if (end == 0) return;
    base_ = ids.get(0);
    // span + 1 ids can overflow 64 bits; blocks = (span >> shift) + 1 cannot.
    const uint64_t span = ids.get(end - 1) - base_;
    const uint64_t max_blocks = std::max<uint64_t>(2, end / 2);
    shift_ = 0;
    while (shift_ < 63 && (span >> shift_) >= max_blocks)
        ++shift_;
    const uint64_t blocks = (span >> shift_) + 1;
    first_.assign(blocks + 1, static_cast<uint32_t>(end));
    HiCursor cursor(ids.runs);
    for (size_t pos = 0; pos < end; ++pos) {
        uint64_t id = uint64_t{cursor.hiAt(pos)} << 32 | ids.lo[pos];
        uint64_t b = (id - base_) >> shift_;
        if (id < base_ || b >= blocks) continue;  // only if the contract (sorted ids) is broken
        uint32_t& f = first_[b];
        if (f == end) f = static_cast<uint32_t>(pos);
    }
    // Empty blocks point at the next non-empty block's first position.
    for (size_t b = blocks; b-- > 0;)
        first_[b] = std::min(first_[b], first_[b + 1]);
}

size_t IdIndex::find(uint64_t id) const {
    if (end_ == 0 || id < base_) return end_;
    uint64_t b = (id - base_) >> shift_;
    if (b >= first_.size() - 1) return end_;  // (not b + 1: that wraps for the largest ids)
    size_t lo = first_[b], hi = first_[b + 1];
    if (hi - lo <= 8) {
        for (size_t pos = lo; pos < hi; ++pos) {
            uint64_t v = ids_->get(pos);
            if (v == id) return pos;
            if (v > id) break;
        }
        return end_;
    }
    size_t pos = ids_->lowerBound(id, lo, hi);
    return pos < hi && ids_->get(pos) == id ? pos : end_;
}

}  // namespace memcity
