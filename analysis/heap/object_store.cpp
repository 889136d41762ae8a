#include "heap/object_store.h"

#include <algorithm>
#include <cstring>
#include <numeric>

#include "trace/event_decoder.h"
#include "trace/symbols.h"

namespace memcity {

void ObjectStore::append(uint64_t id, uint32_t shape_id, uint64_t length, uint64_t explicit_size) {
    ids.push(id);
    shape.push_back(shape_id);
    if (length == kNoLength) {
        length16.push_back(0);
    } else if (length >= kLongLength) {
        length16.push_back(kLongLength);
        long_lengths[id] = length;
    } else {
        length16.push_back(static_cast<uint16_t>(length));
    }
    if (explicit_size != 0) explicit_sizes[id] = explicit_size;
}

void ObjectStore::sortTail() {
    const size_t s = sorted_end_, n = size();
    bool sorted = true;
    for (size_t pos = s + 1; pos < n && sorted; ++pos)
        sorted = ids.get(pos - 1) <= ids.get(pos);
    if (sorted) return;
    struct Key {
        uint64_t id;
        uint32_t pos;
    };
    std::vector<Key> keys(n - s);
    for (size_t i = 0; i < keys.size(); ++i)
        keys[i] = {ids.get(s + i), static_cast<uint32_t>(s + i)};
    std::sort(keys.begin(), keys.end(),
              [](const Key& a, const Key& b) { return a.id != b.id ? a.id < b.id : a.pos < b.pos; });
    PodArray<uint32_t> shape_tail;
    PodArray<uint16_t> len_tail;
    shape_tail.resize(keys.size());
    len_tail.resize(keys.size());
    for (size_t i = 0; i < keys.size(); ++i) {
        shape_tail[i] = shape[keys[i].pos];
        len_tail[i] = length16[keys[i].pos];
    }
    ids.truncate(s);
    for (size_t i = 0; i < keys.size(); ++i) {
        ids.push(keys[i].id);
        shape[s + i] = shape_tail[i];
        length16[s + i] = len_tail[i];
    }
}

size_t ObjectStore::mergeTail() {
    // Rare: objects written after later ones were already sorted in (late buffer flushes).
    const size_t s = sorted_end_, n = size();
    const size_t first = ids.lowerBound(ids.get(s), 0, s);
    IdColumn merged_ids;
    merged_ids.lo.reserve(n);
    PodArray<uint32_t> merged_shape;
    PodArray<uint16_t> merged_len;
    merged_shape.reserve(n);
    merged_len.reserve(n);
    auto take = [&](size_t pos) {
        merged_ids.push(ids.get(pos));
        merged_shape.push_back(shape[pos]);
        merged_len.push_back(length16[pos]);
    };
    for (size_t pos = 0; pos < first; ++pos)
        take(pos);
    size_t a = first, b = s;
    while (a < s || b < n) {
        if (b >= n || (a < s && ids.get(a) <= ids.get(b)))
            take(a++);
        else
            take(b++);
    }
    ids = std::move(merged_ids);
    shape = std::move(merged_shape);
    length16 = std::move(merged_len);
    return first > 0 ? first - 1 : 0;
}

uint64_t ObjectStore::longLength(size_t pos) const {
    auto it = long_lengths.find(id(pos));
    return it == long_lengths.end() ? 0 : it->second;
}

uint64_t ObjectStore::arraySize(size_t pos, uint32_t type, const SymbolTable& symbols,
                                uint32_t alignment) const {
    if (!explicit_sizes.empty()) {
        auto it = explicit_sizes.find(id(pos));
        if (it != explicit_sizes.end()) return it->second;
    }
    return arrayBytes(symbols.layouts()[type], arrayLength(pos), alignment);
}

void ObjectStore::maybeCompact() {
    if (tombstones_ == 0 || !isSorted()) return;
    const size_t n = size();
    if (tombstones_ * 8 > n - std::min(first_dead_, n)) {
        compact();
        return;
    }
    // The block from which the rest of the store is densest with tombstones.
    size_t dead = 0, best = n;
    double best_density = 0.25;
    for (size_t b = std::min(block_dead_.size(), (n >> kBlockShift) + 1); b-- > 0;) {
        dead += block_dead_[b];
        size_t begin = b << kBlockShift;
        if (begin >= n) continue;
        double density = static_cast<double>(dead) / static_cast<double>(n - begin);
        if (density >= best_density) {
            best_density = density;
            best = begin;
        }
    }
    if (best < n) compact(best);
}

void ObjectStore::recountBlocks(size_t from) {
    block_dead_.resize((size() >> kBlockShift) + 1, 0);
    size_t b0 = from >> kBlockShift;
    for (size_t b = b0; b < block_dead_.size(); ++b)
        block_dead_[b] = 0;
    for (size_t pos = b0 << kBlockShift; pos < size(); ++pos)
        if (shape[pos] == kDead) ++block_dead_[pos >> kBlockShift];
}

void ObjectStore::compact(size_t from) {
    const size_t n = size();
    from &= ~((size_t{1} << kBlockShift) - 1);  // block-aligned, so block counts stay exact
    const size_t first = std::max(std::min(first_dead_, n), from);
    if (first >= n) {
        if (from == 0) tombstones_ = 0;
        return;
    }
    touch(first);
    if (from == 0) first_dead_ = SIZE_MAX;
    // Positions before the first tombstone stay where they are; so do their high-bit runs.
    // Positions after the last tombstone move as one block.
    const size_t last = std::min(last_dead_, n - 1);
    HiCursor cursor(ids.runs);
    std::vector<IdRun> runs;
    for (const IdRun& r : ids.runs)
        if (r.begin < first) runs.push_back(r);
    const bool one_run = ids.runs.size() == 1;
    const uint32_t only_hi = one_run ? ids.runs[0].hi : 0;
    uint32_t* lo = ids.lo.data();
    uint32_t* sh = shape.data();
    uint16_t* len = length16.data();
    const bool side_tables = !long_lengths.empty() || !explicit_sizes.empty();
    size_t w = first, sorted_w = std::min(sorted_end_, first);
    for (size_t pos = first; pos <= last; ++pos) {
        if (pos == sorted_end_) sorted_w = w;
        uint32_t hi = one_run ? only_hi : cursor.hiAt(pos);
        if (sh[pos] == kDead) {
            if (side_tables && (len[pos] == kLongLength || !explicit_sizes.empty())) {
                uint64_t dead_id = uint64_t{hi} << 32 | lo[pos];
                long_lengths.erase(dead_id);
                explicit_sizes.erase(dead_id);
            }
            continue;
        }
        if (!one_run && (runs.empty() || runs.back().hi != hi))
            runs.push_back({static_cast<uint32_t>(w), hi});
        lo[w] = lo[pos];
        sh[w] = sh[pos];
        len[w] = len[pos];
        ++w;
    }
    if (last + 1 < n) {
        if (sorted_end_ > last && sorted_end_ <= n) sorted_w = w + (sorted_end_ - (last + 1));
        const size_t rest = n - (last + 1);
        if (!one_run) {
            for (size_t pos = last + 1; pos < n; ++pos) {
                uint32_t hi = cursor.hiAt(pos);
                size_t to = w + (pos - (last + 1));
                if (runs.empty() || runs.back().hi != hi) runs.push_back({static_cast<uint32_t>(to), hi});
            }
        }
        std::memmove(lo + w, lo + last + 1, rest * sizeof(uint32_t));
        std::memmove(sh + w, sh + last + 1, rest * sizeof(uint32_t));
        std::memmove(len + w, len + last + 1, rest * sizeof(uint16_t));
        w += rest;
    }
    if (one_run && w > 0) runs = {IdRun{0, only_hi}};
    ids.runs = std::move(runs);
    ids.lo.resize(w);
    shape.resize(w);
    length16.resize(w);
    sorted_end_ = sorted_end_ >= n ? w : sorted_w;
    // Tombstones before `from` stay; count what is left.
    size_t removed = (n - first) - (w - first);
    tombstones_ -= removed;
    if (tombstones_ == 0) first_dead_ = SIZE_MAX;
    last_dead_ = tombstones_ == 0 ? 0 : std::min(last_dead_, first > 0 ? first - 1 : 0);
    for (size_t b = first >> kBlockShift; b < block_dead_.size(); ++b)
        block_dead_[b] = 0;
    block_dead_.resize((w >> kBlockShift) + 1, 0);
}

size_t ObjectStore::memoryBytes() const {
    // Hash-map nodes: key, value, next pointer and the allocator's header, plus the bucket array.
    auto mapBytes = [](const std::unordered_map<uint64_t, uint64_t>& m) {
        return m.size() * 32 + m.bucket_count() * sizeof(void*);
    };
    return ids.memoryBytes() + shape.memoryBytes() + length16.memoryBytes() + mapBytes(long_lengths) +
           mapBytes(explicit_sizes);
}

void ObjectStore::clear() {
    first_dead_ = SIZE_MAX;
    last_dead_ = 0;
    block_dead_.clear();
    clean_end_ = 0;
    ids = IdColumn{};
    shape.clear();
    length16.clear();
    long_lengths.clear();
    explicit_sizes.clear();
    sorted_end_ = 0;
    tombstones_ = 0;
}

}  // namespace memcity
