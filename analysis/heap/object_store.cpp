#include "heap/object_store.h"

#include <algorithm>
#include <numeric>

#include "trace/event_decoder.h"
#include "trace/symbols.h"

namespace memcity {

void ObjectStore::reserveFor(size_t n) {
    // Grow by a quarter rather than doubling: these columns are most of the process's memory.
    if (n <= shape.capacity()) return;
    size_t cap = std::max<size_t>(n, shape.capacity() + shape.capacity() / 4 + 1024);
    ids.lo.reserve(cap);
    shape.reserve(cap);
    length16.reserve(cap);
}

void ObjectStore::append(uint64_t id, uint32_t shape_id, uint64_t length, uint64_t explicit_size) {
    reserveFor(size() + 1);
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
    for (size_t pos = s + 1; pos < n && sorted; ++pos) sorted = ids.get(pos - 1) <= ids.get(pos);
    if (sorted) return;
    struct Key {
        uint64_t id;
        uint32_t pos;
    };
    std::vector<Key> keys(n - s);
    for (size_t i = 0; i < keys.size(); ++i) keys[i] = {ids.get(s + i), static_cast<uint32_t>(s + i)};
    std::sort(keys.begin(), keys.end(), [](const Key& a, const Key& b) { return a.id != b.id ? a.id < b.id : a.pos < b.pos; });
    std::vector<uint32_t> shape_tail(keys.size());
    std::vector<uint16_t> len_tail(keys.size());
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
    merged_ids.lo.reserve(shape.capacity());
    std::vector<uint32_t> merged_shape;
    std::vector<uint16_t> merged_len;
    merged_shape.reserve(shape.capacity());
    merged_len.reserve(shape.capacity());
    auto take = [&](size_t pos) {
        merged_ids.push(ids.get(pos));
        merged_shape.push_back(shape[pos]);
        merged_len.push_back(length16[pos]);
    };
    for (size_t pos = 0; pos < first; ++pos) take(pos);
    size_t a = first, b = s;
    while (a < s || b < n) {
        if (b >= n || (a < s && ids.get(a) <= ids.get(b))) take(a++);
        else take(b++);
    }
    ids = std::move(merged_ids);
    shape = std::move(merged_shape);
    length16 = std::move(merged_len);
    return first > 0 ? first - 1 : 0;
}

size_t ObjectStore::lowerBound(uint64_t id, size_t hint) const {
    const size_t end = sorted_end_;
    if (hint < end && ids.get(hint) <= id) return ids.gallop(id, hint, end);
    return ids.lowerBound(id, 0, end);
}

size_t ObjectStore::find(uint64_t id, size_t hint) const {
    size_t pos = lowerBound(id, hint);
    return pos < sorted_end_ && ids.get(pos) == id ? pos : size();
}

uint64_t ObjectStore::arrayLength(size_t pos) const {
    uint16_t l = length16[pos];
    if (l != kLongLength) return l;
    auto it = long_lengths.find(id(pos));
    return it == long_lengths.end() ? 0 : it->second;
}

uint64_t ObjectStore::sizeOf(size_t pos, const ShapeTable& shapes, const SymbolTable& symbols,
                             uint32_t alignment) const {
    const Shape& sh = shapes[shape[pos]];
    if (sh.size != 0) return sh.size;
    if (!explicit_sizes.empty()) {
        auto it = explicit_sizes.find(id(pos));
        if (it != explicit_sizes.end()) return it->second;
    }
    return arrayBytes(symbols.type(sh.type), arrayLength(pos), alignment);
}

void ObjectStore::compact() {
    const size_t n = size();
    HiCursor cursor(ids.runs);
    std::vector<IdRun> runs;
    size_t w = 0, sorted_w = 0;
    for (size_t pos = 0; pos < n; ++pos) {
        if (pos == sorted_end_) sorted_w = w;
        uint32_t hi = cursor.hiAt(pos);
        if (shape[pos] == kDead) {
            if (length16[pos] == kLongLength || !explicit_sizes.empty()) {
                uint64_t dead_id = uint64_t{hi} << 32 | ids.lo[pos];
                long_lengths.erase(dead_id);
                explicit_sizes.erase(dead_id);
            }
            continue;
        }
        if (runs.empty() || runs.back().hi != hi) runs.push_back({static_cast<uint32_t>(w), hi});
        ids.lo[w] = ids.lo[pos];
        shape[w] = shape[pos];
        length16[w] = length16[pos];
        ++w;
    }
    ids.runs = std::move(runs);
    ids.lo.resize(w);
    shape.resize(w);
    length16.resize(w);
    sorted_end_ = sorted_end_ >= n ? w : sorted_w;
    tombstones_ = 0;
}

size_t ObjectStore::memoryBytes() const {
    // Hash-map nodes: key, value, next pointer and the allocator's header, plus the bucket array.
    auto mapBytes = [](const std::unordered_map<uint64_t, uint64_t>& m) {
        return m.size() * 32 + m.bucket_count() * sizeof(void*);
    };
    return ids.memoryBytes() + shape.capacity() * sizeof(uint32_t) + length16.capacity() * sizeof(uint16_t) +
           mapBytes(long_lengths) + mapBytes(explicit_sizes);
}

void ObjectStore::clear() {
    ids = IdColumn{};
    shape.clear();
    length16.clear();
    long_lengths.clear();
    explicit_sizes.clear();
    sorted_end_ = 0;
    tombstones_ = 0;
}

}  // namespace memcity
