// ObjectStore: the objects of a heap being rebuilt, as columns sorted by object id.
//
// Per object: 4 bytes of id (IdColumn), 4 bytes of shape (type, site, thread, instance size),
// 2 bytes of array length (longer arrays and arrays whose size does not follow their type's
// layout go to small side tables). Dead objects become tombstones (shape kDead) until the next
// compaction, so removing one costs a search and a store. New objects are appended to a tail
// that normalize() sorts into place at GC boundaries.
#pragma once

#include <algorithm>
#include <cstdint>
#include <unordered_map>
#include <vector>

#include "heap/id_column.h"
#include "heap/shape_table.h"
#include "trace/events.h"

namespace memcity {

class SymbolTable;

class ObjectStore {
public:
    static constexpr uint32_t kDead = ~uint32_t{0};  // shape of a tombstone
    static constexpr uint16_t kLongLength = 0xffff;  // length lives in long_lengths

    size_t size() const { return shape.size(); }  // positions, tombstones included
    size_t tombstones() const { return tombstones_; }
    size_t sortedEnd() const { return sorted_end_; }
    bool isSorted() const { return sorted_end_ == size(); }

    // Appends an object. `length` is kNoLength for instances. `explicit_size` is the object's
    // size when it differs from its type's layout (arrays only), 0 otherwise.
    void append(uint64_t id, uint32_t shape_id, uint64_t length, uint64_t explicit_size);

    // Sorts the tail into the sorted region. Duplicate ids found on the way are reported through
    // `on_duplicate(pos)` (the later copy) and turned into tombstones by the caller.
    template <class OnDuplicate>
    void normalize(OnDuplicate&& on_duplicate);

    // Position of `id` (tombstone or not) in the sorted region, or size() when absent.
    // `hint` speeds up ascending lookups: pass a position at or before the answer (or 0).
    size_t find(uint64_t id, size_t hint = 0) const {
        size_t pos = lowerBound(id, hint);
        return pos < sorted_end_ && ids.get(pos) == id ? pos : size();
    }
    // First position of the sorted region whose id is >= `id` (sortedEnd() if none).
    size_t lowerBound(uint64_t id, size_t hint = 0) const {
        if (hint < sorted_end_ && ids.get(hint) <= id) return ids.gallop(id, hint, sorted_end_);
        return ids.lowerBound(id, 0, sorted_end_);
    }

    void kill(size_t pos) {
        shape[pos] = kDead;
        ++tombstones_;
        first_dead_ = std::min(first_dead_, pos);
        last_dead_ = std::max(last_dead_, pos);
        if ((pos >> kBlockShift) >= block_dead_.size()) block_dead_.resize((pos >> kBlockShift) + 1, 0);
        ++block_dead_[pos >> kBlockShift];
        touch(pos);
    }
    bool alive(size_t pos) const { return shape[pos] != kDead; }

    // Removes the tombstones at or after position `from` (all of them by default). Positions
    // from there on change; the region stays sorted.
    void compact(size_t from = 0);
    // Keeps tombstones under 1/8 of the positions from the first tombstone on. Deaths cluster
    // among young objects (the end of the store): when some end of the store is at least 1/4
    // tombstones, the densest such end is compacted, so old objects, which rarely die, are
    // rarely moved (at most 4 moves per tombstone removed). Needs a sorted store.
    void maybeCompact();

    // Positions below cleanEnd() have not changed since markClean() (checkpoints write the rest).
    size_t cleanEnd() const { return std::min(clean_end_, size()); }
    void markClean() { clean_end_ = size(); }

    uint64_t id(size_t pos) const { return ids.get(pos); }
    // Contract: the object is an array.
    uint64_t arrayLength(size_t pos) const {
        uint16_t l = length16[pos];
        return l != kLongLength ? l : longLength(pos);
    }
    // Size in bytes of the object at `pos`, given the shapes and the types' layouts.
    uint64_t sizeOf(size_t pos, const ShapeTable& shapes, const SymbolTable& symbols,
                    uint32_t alignment) const {
        const Shape& sh = shapes[shape[pos]];
        if (sh.size != 0) return sh.size;
        return arraySize(pos, sh.type, symbols, alignment);
    }

    size_t memoryBytes() const;
    void clear();
    // Recounts the per-block tombstones from position `from` on (after positions moved).
    void recountBlocks(size_t from);

    // Columns (public for checkpoints and fast read-only scans).
    IdColumn ids;
    PodArray<uint32_t> shape;
    PodArray<uint16_t> length16;
    std::unordered_map<uint64_t, uint64_t> long_lengths;    // id -> array length >= kLongLength
    std::unordered_map<uint64_t, uint64_t> explicit_sizes;  // id -> size, arrays off their layout

private:
    uint64_t longLength(size_t pos) const;
    uint64_t arraySize(size_t pos, uint32_t type, const SymbolTable& symbols, uint32_t alignment) const;
    void sortTail();
    size_t mergeTail();  // returns the first position the merge changed

    void touch(size_t pos) { clean_end_ = std::min(clean_end_, pos); }

    static constexpr unsigned kBlockShift = 16;
    std::vector<uint32_t> block_dead_;  // tombstones per block of 2^16 positions

    size_t sorted_end_ = 0;
    size_t tombstones_ = 0;
    size_t first_dead_ = SIZE_MAX;  // lowest tombstone position since the last compaction
    size_t last_dead_ = 0;          // highest tombstone position (an upper bound)
    size_t clean_end_ = 0;          // positions below are unchanged since markClean()

    friend class CheckpointStore;
};

template <class OnDuplicate>
void ObjectStore::normalize(OnDuplicate&& on_duplicate) {
    if (isSorted()) return;
    const size_t s = sorted_end_;
    touch(s);
    // Only sorted positions die, so sorting the tail moves no tombstone.
    sortTail();
    // Duplicates can only sit at or after the seam, or after the first position a merge moved.
    size_t scan_from = s > 0 ? s - 1 : 0;
    // The common case: the whole tail comes after the sorted region and nothing moves.
    if (s > 0 && ids.get(s) <= ids.get(s - 1)) {
        scan_from = mergeTail();
        touch(scan_from);
        if (tombstones_ > 0) last_dead_ = SIZE_MAX;  // a merge shifts tombstones towards the end
    }
    sorted_end_ = size();
    if (tombstones_ > 0) recountBlocks(std::min(s, scan_from));
    for (size_t pos = scan_from + 1; pos < size(); ++pos) {
        if (ids.get(pos) == ids.get(pos - 1) && alive(pos)) on_duplicate(pos);
    }
}

}  // namespace memcity
