#include "heap/shape_table.h"

namespace memcity {

namespace {
bool same(const Shape& a, const Shape& b) {
    return a.type == b.type && a.site == b.site && a.thread == b.thread && a.size == b.size;
}
}  // namespace

ShapeTable::ShapeTable() : blocks_(new std::unique_ptr<Shape[]>[kMaxShapes >> kBlockShift]) {}

uint64_t ShapeTable::hash(const Shape& s) {
    // Every field must reach the low bits the table is indexed by: mix, then finalize.
    uint64_t h = (uint64_t{s.type} << 32 | s.site) * 0x9e3779b97f4a7c15ull;
    h ^= (uint64_t{s.thread} << 32 | s.size) * 0xc2b2ae3d27d4eb4full;
    h ^= h >> 33;
    h *= 0xff51afd7ed558ccdull;
    return h ^ (h >> 33);
}

size_t ShapeTable::memoryBytes() const {
    size_t blocks = (size() + kBlockMask) >> kBlockShift;
    return blocks * (sizeof(Shape) << kBlockShift) + slots_.capacity() * sizeof(Slot) +
           (kMaxShapes >> kBlockShift) * sizeof(void*);
}

uint32_t ShapeTable::find(const Shape& s) const {
    if (slots_.empty()) return kNone;
    const size_t mask = slots_.size() - 1;
    for (size_t i = hash(s) & mask;; i = (i + 1) & mask) {
        const Slot& slot = slots_[i];
        if (slot.id == kNone) return kNone;
        if (same(slot.key, s)) return slot.id;
    }
}

uint32_t ShapeTable::intern(const Shape& s) {
    if ((size() + 1) * 2 > slots_.size()) grow();
    const size_t mask = slots_.size() - 1;
    for (size_t i = hash(s) & mask;; i = (i + 1) & mask) {
        Slot& slot = slots_[i];
        if (slot.id == kNone) {
            if (size() >= kMaxShapes) return kNone;
            const size_t n = size_.load(std::memory_order_relaxed);
            auto& block = blocks_[n >> kBlockShift];
            if (!block) block.reset(new Shape[size_t{1} << kBlockShift]);
            block[n & kBlockMask] = s;
            slot.key = s;
            slot.id = static_cast<uint32_t>(n);
            size_.store(n + 1, std::memory_order_release);
            return slot.id;
        }
        if (same(slot.key, s)) return slot.id;
    }
}

void ShapeTable::grow() {
    size_t n = slots_.empty() ? 1024 : slots_.size() * 2;
    slots_.assign(n, Slot{});
    const size_t mask = n - 1;
    for (uint32_t id = 0; id < size(); ++id) {
        const Shape& sh = (*this)[id];
        size_t i = hash(sh) & mask;
        while (slots_[i].id != kNone)
            i = (i + 1) & mask;
        slots_[i] = Slot{sh, id};
    }
}

}  // namespace memcity
