#include "heap/shape_table.h"

namespace memcity {

uint64_t ShapeTable::hash(const Shape& s) {
    uint64_t h = (uint64_t{s.type} << 32 | s.site) * 0x9e3779b97f4a7c15ull;
    h ^= (uint64_t{s.thread} << 32 | s.size) * 0xc2b2ae3d27d4eb4full;
    return h ^ (h >> 29);
}

static bool same(const Shape& a, const Shape& b) {
    return a.type == b.type && a.site == b.site && a.thread == b.thread && a.size == b.size;
}

uint32_t ShapeTable::find(const Shape& s) const {
    if (last_ != kNone && same(shapes_[last_], s)) return last_;
    if (slots_.empty()) return kNone;
    size_t mask = slots_.size() - 1;
    for (size_t i = hash(s) & mask;; i = (i + 1) & mask) {
        uint32_t id = slots_[i];
        if (id == kNone) return kNone;
        if (same(shapes_[id], s)) return id;
    }
}

uint32_t ShapeTable::intern(const Shape& s) {
    if (last_ != kNone && same(shapes_[last_], s)) return last_;
    if ((shapes_.size() + 1) * 2 > slots_.size()) grow();
    size_t mask = slots_.size() - 1;
    for (size_t i = hash(s) & mask;; i = (i + 1) & mask) {
        uint32_t id = slots_[i];
        if (id == kNone) {
            id = static_cast<uint32_t>(shapes_.size());
            shapes_.push_back(s);
            slots_[i] = id;
            return last_ = id;
        }
        if (same(shapes_[id], s)) return last_ = id;
    }
}

void ShapeTable::grow() {
    size_t n = slots_.empty() ? 1024 : slots_.size() * 2;
    slots_.assign(n, kNone);
    size_t mask = n - 1;
    for (uint32_t id = 0; id < shapes_.size(); ++id) {
        size_t i = hash(shapes_[id]) & mask;
        while (slots_[i] != kNone) i = (i + 1) & mask;
        slots_[i] = id;
    }
}

}  // namespace memcity
