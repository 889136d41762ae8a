// G1's region table at a GC (format 1.4, docs/trace-format.md, GC_REGIONS): the region size and
// every region's role and used bytes, at the GC's start and at its end, as the JVM has them
// (HeapRegionType's tag read against the JVM's own constants). The heap map draws G1's heap as
// this grid; `memcity spaces` counts its roles as -Xlog:gc+heap does ("Old regions: 3->5").
#pragma once

#include <array>
#include <cstdint>
#include <span>
#include <string_view>
#include <vector>

#include "util/result.h"

namespace memcity {

// What a region is to G1 at that moment. The values are the trace's.
enum class RegionRole : uint8_t {
    kFree = 0,                // holds nothing (or was never committed)
    kEden = 1,                // new objects
    kSurvivor = 2,            // young objects that survived a GC
    kOld = 3,                 // the old generation (on JDK 25 also CDS's heap regions)
    kHumongousStart = 4,      // the first region of one large object
    kHumongousContinues = 5,  // the rest of it
    kArchive = 6,             // JDK 17's CDS archive regions
    kUnknown = 7,             // a tag the agent could not place, or a role of a later format
};
inline constexpr size_t kRegionRoleCount = 8;
std::string_view regionRoleName(RegionRole role);  // "free", "eden", ..., "humongous start"

// The table at GC `gc`'s start (after = false) or end (after = true).
struct GcRegionsEvent {
    uint32_t gc = 0;
    bool after = true;
    uint32_t shift = 20;            // log2 of the region size (G1: 2^20 to 2^29 bytes)
    uint64_t first = 0;             // the first region's bottom; region i starts at first + i << shift
    std::vector<RegionRole> roles;  // one per region, in address order
    std::vector<uint64_t> used;     // its used bytes (top - bottom), <= the region size

    uint64_t regionBytes() const { return uint64_t{1} << shift; }
    uint64_t bottomOf(size_t i) const { return first + (uint64_t{i} << shift); }
    // The bytes used in all regions.
    uint64_t usedBytes() const;
    // Regions per role; humongous counts start and continues apart, as the table has them.
    std::array<uint32_t, kRegionRoleCount> countRoles() const;
};

// The most regions a table may have: G1 reserves at most 2^21 (2 TiB of 1 MiB regions); this allows more.
inline constexpr uint64_t kMaxRegions = uint64_t{1} << 24;

// A GC_REGIONS event as a history keeps it: what it counts, and its payload, decoded on demand (a
// table at every GC start and end of a long run of a large heap is tens of MB decoded, a few
// bytes a region encoded).
struct RegionsRecord {
    uint32_t gc = 0;
    bool after = true;
    uint32_t regions = 0;  // the table's length (committed or not)
    uint64_t region_bytes = 0;
    std::array<uint32_t, kRegionRoleCount> counts{};  // regions per role
    uint64_t used = 0;                                // bytes used in all regions
    std::vector<uint8_t> payload;

    // The table (the payload was checked when the record was made).
    GcRegionsEvent table() const;
};
// The record of a checked table and its payload.
RegionsRecord recordOf(const GcRegionsEvent& e, std::vector<uint8_t> payload);

std::vector<uint8_t> encodeGcRegions(const GcRegionsEvent& e);
// An Error (Error::inData: its offset into `data`) when malformed, when a region is used past its
// size, or when a humongous continuation follows no humongous start. out->gc is set as soon as it
// is read (an error can name the GC).
Status decodeGcRegions(std::span<const uint8_t> data, GcRegionsEvent* out);

}  // namespace memcity
