// ShapeTable interns the per-object attributes that many objects share: (type, site, thread,
// instance size). A live object then needs 4 bytes for all four, and a classifier that depends
// only on them classifies each shape once instead of each object.
//
// Shapes never move once added: one thread may intern while others read shapes whose ids they
// were handed (through a queue or any other synchronisation).
#pragma once

#include <atomic>
#include <cstddef>
#include <cstdint>
#include <memory>
#include <vector>

namespace memcity {

struct Shape {
    uint32_t type = 0;
    uint32_t site = 0;
    uint32_t thread = 0;
    uint32_t size = 0;  // bytes for instances; 0 for arrays (their size follows from the length)
};

class ShapeTable {
public:
    static constexpr uint32_t kNone = ~uint32_t{0};

    ShapeTable();

    // Returns the id of the shape, adding it if new. Ids are dense, in order of first use.
    // Contract: at most kMaxShapes shapes (2^28); past that, returns kNone.
    uint32_t intern(const Shape& s);
    // Returns the id of the shape or kNone; never adds.
    uint32_t find(const Shape& s) const;

    const Shape& operator[](uint32_t id) const { return blocks_[id >> kBlockShift][id & kBlockMask]; }
    size_t size() const { return size_.load(std::memory_order_acquire); }
    size_t memoryBytes() const;

    static constexpr size_t kMaxShapes = size_t{1} << 28;

private:
    static constexpr unsigned kBlockShift = 12;
    static constexpr uint32_t kBlockMask = (1u << kBlockShift) - 1;
    static uint64_t hash(const Shape& s);
    void grow();

    // Open addressing with the key inline, so a lookup touches one slot; power-of-two size.
    struct Slot {
        Shape key;
        uint32_t id = kNone;  // kNone: empty
    };
    std::unique_ptr<std::unique_ptr<Shape[]>[]> blocks_;  // fixed directory of 4096-shape blocks
    std::atomic<size_t> size_{0};                         // written by the interning thread only
    std::vector<Slot> slots_;
};

}  // namespace memcity
