// IdColumn stores 64-bit object ids in 4 bytes each: the low 32 bits per position, and the high
// 32 bits as runs of positions that share them (a trace rarely crosses 2^32 ids, and a sorted
// column crosses each boundary once).
#pragma once

#include <algorithm>
#include <cstddef>
#include <cstdint>
#include <vector>

#include "util/pod_array.h"

namespace memcity {

struct IdRun {
    uint32_t begin = 0;  // first position of the run
    uint32_t hi = 0;     // high 32 bits of every id in the run
};

struct IdColumn {
    PodArray<uint32_t> lo;
    std::vector<IdRun> runs;  // runs[0].begin == 0 when not empty; begins ascending

    size_t size() const { return lo.size(); }

    uint64_t get(size_t pos) const {
        uint32_t hi = runs.size() == 1 ? runs[0].hi : hiAt(pos);
        return uint64_t{hi} << 32 | lo[pos];
    }
    uint32_t hiAt(size_t pos) const {
        auto it = std::upper_bound(runs.begin(), runs.end(), pos,
                                   [](size_t p, const IdRun& r) { return p < r.begin; });
        return (it - 1)->hi;
    }
    void push(uint64_t id) {
        auto hi = static_cast<uint32_t>(id >> 32);
        if (runs.empty() || runs.back().hi != hi) runs.push_back({static_cast<uint32_t>(lo.size()), hi});
        lo.push_back(static_cast<uint32_t>(id));
    }
    // Drops positions >= n.
    void truncate(size_t n) {
        lo.resize(n);
        while (!runs.empty() && runs.back().begin >= n)
            runs.pop_back();
    }

    // First position in [from, to) whose id is >= key; the range must be sorted.
    size_t lowerBound(uint64_t key, size_t from, size_t to) const {
        if (from >= to) return from;
        auto key_hi = static_cast<uint32_t>(key >> 32);
        auto key_lo = static_cast<uint32_t>(key);
        if (runs.size() == 1) {
            if (key_hi != runs[0].hi) return key_hi < runs[0].hi ? from : to;
            return static_cast<size_t>(std::lower_bound(lo.begin() + from, lo.begin() + to, key_lo) -
                                       lo.begin());
        }
        // Find the positions whose high bits equal key_hi, then search the low bits there.
        size_t a = from, b = to;
        while (a < b) {  // first position with hi >= key_hi
            size_t m = a + (b - a) / 2;
            if (hiAt(m) < key_hi)
                a = m + 1;
            else
                b = m;
        }
        if (a == to || hiAt(a) != key_hi) return a;
        size_t c = a, d = to;
        while (c < d) {  // first position with hi > key_hi
            size_t m = c + (d - c) / 2;
            if (hiAt(m) <= key_hi)
                c = m + 1;
            else
                d = m;
        }
        return static_cast<size_t>(std::lower_bound(lo.begin() + a, lo.begin() + c, key_lo) - lo.begin());
    }

    // Like lowerBound, but for a key expected at or a little after `hint` (sorted lookups).
    size_t gallop(uint64_t key, size_t hint, size_t to) const {
        if (hint >= to || get(hint) >= key) return hint;
        size_t step = 1, lo_pos = hint;
        while (hint + step < to && get(hint + step) < key) {
            lo_pos = hint + step;
            step *= 2;
        }
        return lowerBound(key, lo_pos + 1, std::min(to, hint + step + 1));
    }

    size_t memoryBytes() const { return lo.memoryBytes() + runs.capacity() * sizeof(IdRun); }
};

// Walks the high bits of consecutive positions without a search per position.
class HiCursor {
public:
    explicit HiCursor(const std::vector<IdRun>& runs) : runs_(runs) {}
    uint32_t hiAt(size_t pos) {
        while (next_ < runs_.size() && runs_[next_].begin <= pos)
            hi_ = runs_[next_++].hi;
        return hi_;
    }

private:
    const std::vector<IdRun>& runs_;
    size_t next_ = 0;
    uint32_t hi_ = 0;
};

}  // namespace memcity
