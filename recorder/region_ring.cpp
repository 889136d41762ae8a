#include "region_ring.h"

#include <algorithm>
#include <atomic>

namespace memcity::agent {

void RegionRing::init(const GcFacts& facts) {
    grid_ = facts.regionGrid();
    if (!enabled()) return;
    start_ = std::make_unique<uint32_t[]>(grid_.count);
    for (Slot& s : slots_) {
        s.before = std::make_unique<uint32_t[]>(grid_.count);
        s.after = std::make_unique<uint32_t[]>(grid_.count);
    }
}

void RegionRing::readStart(const GcFacts& facts) {
    if (!enabled()) return;
    start_read_ = facts.readRegionRoles(start_.get(), grid_.count) == grid_.count;
}

void RegionRing::readEnd(const GcFacts& facts, uint64_t gc) {
    if (!enabled()) return;
    Slot& s = slots_[gc % kSlots];
    s.gc.store(UINT64_MAX, std::memory_order_release);
    std::atomic_thread_fence(std::memory_order_release);
    const bool read = start_read_ && facts.readRegionRoles(s.after.get(), grid_.count) == grid_.count;
    if (read) std::copy_n(start_.get(), grid_.count, s.before.get());
    start_read_ = false;
    if (read) s.gc.store(gc, std::memory_order_release);
}

bool RegionRing::take(uint64_t gc, GcRegionsEvent* before, GcRegionsEvent* after) const {
    if (!enabled()) return false;
    const Slot& s = slots_[gc % kSlots];
    if (s.gc.load(std::memory_order_acquire) != gc) return false;
    unpack(s.before.get(), gc, false, before);
    unpack(s.after.get(), gc, true, after);
    // Still this GC's once copied: no later GC's end wrote over them meanwhile.
    std::atomic_thread_fence(std::memory_order_acquire);
    return s.gc.load(std::memory_order_relaxed) == gc;
}

void RegionRing::unpack(const uint32_t* packed, uint64_t gc, bool after, GcRegionsEvent* out) const {
    out->gc = static_cast<uint32_t>(gc);
    out->after = after;
    out->shift = grid_.shift;
    out->first = grid_.first;
    out->roles.resize(grid_.count);
    out->used.resize(grid_.count);
    for (size_t i = 0; i < grid_.count; ++i) {
        const uint32_t v = packed[i];
        out->roles[i] = static_cast<RegionRole>(v & 7);
        out->used[i] = v & ~uint32_t{7};
    }
}

}  // namespace memcity::agent
