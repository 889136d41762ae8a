// ObjectStore: the objects of a heap being rebuilt, as columns sorted by object id.
//
// Per object: 4 bytes of id (IdColumn), 4 bytes of shape (type, site, thread, instance size),
// 2 bytes of array length (longer arrays and arrays whose size does not follow their type's
// layout go to small side tables). Dead objects become tombstones (shape kDead) until the next
// compaction, so removing one costs a search and a store. New objects are appended to a tail
// that normalize() sorts into place at GC boundaries.
#pragma once

#include <cstdint>
#include <unordered_map>
#include <vector>

#include "heap/id_column.h"
#include "heap/shape_table.h"

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
    size_t find(uint64_t id, size_t hint = 0) const;
    // First position of the sorted region whose id is >= `id` (sortedEnd() if none).
    size_t lowerBound(uint64_t id, size_t hint = 0) const;

    void kill(size_t pos) {
        shape[pos] = kDead;
        ++tombstones_;
    }
    bool alive(size_t pos) const { return shape[pos] != kDead; }

    // Removes tombstones. Positions change; the region stays sorted.
    void compact();
    // Compacts when tombstones exceed 1/8 of the positions and the tail is sorted in.
    void maybeCompact() {
        if (tombstones_ * 8 > size() && isSorted()) compact();
    }

    uint64_t id(size_t pos) const { return ids.get(pos); }
    uint64_t arrayLength(size_t pos) const;  // contract: the object is an array
    // Size in bytes of the object at `pos`, given the shapes and the types' layouts.
    uint64_t sizeOf(size_t pos, const ShapeTable& shapes, const SymbolTable& symbols, uint32_t alignment) const;

    size_t memoryBytes() const;
    void clear();

    // Columns (public for checkpoints and fast read-only scans).
    IdColumn ids;
    std::vector<uint32_t> shape;
    std::vector<uint16_t> length16;
    std::unordered_map<uint64_t, uint64_t> long_lengths;    // id -> array length >= kLongLength
    std::unordered_map<uint64_t, uint64_t> explicit_sizes;  // id -> size, arrays off their layout

private:
    void sortTail();
    size_t mergeTail();  // returns the first position the merge changed
    void reserveFor(size_t n);

    size_t sorted_end_ = 0;
    size_t tombstones_ = 0;

    friend class CheckpointStore;
};

template <class OnDuplicate>
void ObjectStore::normalize(OnDuplicate&& on_duplicate) {
    if (isSorted()) return;
    const size_t s = sorted_end_;
    sortTail();
    // Duplicates can only sit at or after the seam, or after the first position a merge moved.
    size_t scan_from = s > 0 ? s - 1 : 0;
    // The common case: the whole tail comes after the sorted region and nothing moves.
    if (s > 0 && ids.get(s) <= ids.get(s - 1)) scan_from = mergeTail();
    sorted_end_ = size();
    for (size_t pos = scan_from + 1; pos < size(); ++pos) {
        if (ids.get(pos) == ids.get(pos - 1) && alive(pos)) on_duplicate(pos);
    }
}

}  // namespace memcity
