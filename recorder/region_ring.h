// G1's region table at the start and the end of recent GCs, for the agent thread to write as
// GC_REGIONS events (trace/g1_regions.h). The GC callbacks run at a safepoint: they only copy the
// table into buffers sized when the recorder started (GcFacts::readRegionRoles), allocating
// nothing. The agent thread takes a GC's pair while it is still held: the ring keeps the newest
// kSlots GCs; an older one is gone (the reader then draws no grid at that GC, and says so).
#pragma once

#include <atomic>
#include <cstdint>
#include <memory>
#include <vector>

#include "gc_facts.h"
#include "trace/g1_regions.h"

namespace memcity::agent {

class RegionRing {
public:
    static constexpr size_t kSlots = 32;

    // Buffers for `facts`' grid; without one (not G1, or roles unreadable) every call is a no-op.
    void init(const GcFacts& facts);
    bool enabled() const { return grid_.count != 0; }

    // In the GC start callback: the table as the GC finds it.
    void readStart(const GcFacts& facts);
    // In the GC finish callback: the table it leaves, with the start's, as GC `gc`'s.
    void readEnd(const GcFacts& facts, uint64_t gc);
    // The agent thread: GC `gc`'s tables at its start and end; false when the ring no longer
    // holds them (or never did: the GC was not reported, or no start was read).
    bool take(uint64_t gc, GcRegionsEvent* before, GcRegionsEvent* after) const;

private:
    struct Slot {
        std::atomic<uint64_t> gc{UINT64_MAX};  // whose tables these are; UINT64_MAX while written
        std::unique_ptr<uint32_t[]> before, after;
    };
    GcFacts::RegionGrid grid_;
    std::unique_ptr<uint32_t[]> start_;
    bool start_read_ = false;
    Slot slots_[kSlots];

    void unpack(const uint32_t* packed, uint64_t gc, bool after, GcRegionsEvent* out) const;
};

}  // namespace memcity::agent
