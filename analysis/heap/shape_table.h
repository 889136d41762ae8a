// ShapeTable interns the per-object attributes that many objects share: (type, site, thread,
// instance size). A live object then needs 4 bytes for all four, and a classifier that depends
// only on them classifies each shape once instead of each object.
#pragma once

#include <cstddef>
#include <cstdint>
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

    // Returns the id of the shape, adding it if new. Ids are dense, in order of first use.
    uint32_t intern(const Shape& s);
    // Returns the id of the shape or kNone; never adds.
    uint32_t find(const Shape& s) const;

    const Shape& operator[](uint32_t id) const { return shapes_[id]; }
    size_t size() const { return shapes_.size(); }
    const std::vector<Shape>& all() const { return shapes_; }
    size_t memoryBytes() const { return shapes_.capacity() * sizeof(Shape) + slots_.capacity() * sizeof(uint32_t); }

private:
    static uint64_t hash(const Shape& s);
    void grow();

    std::vector<Shape> shapes_;
    std::vector<uint32_t> slots_;  // open addressing, kNone = empty; power-of-two size
    uint32_t last_ = kNone;        // the most recently interned shape, checked first
};

}  // namespace memcity
