// The heap as its collector lays it out (format 1.3, docs/trace-format.md): the collector's
// spaces right after each GC (the GC_SPACES extension event, against the SPACE symbols) and the
// address of every object alive after a GC (ADDRS chunks, written for some GCs: the recorder's
// reference snapshot GCs). GCspy's view of a heap (docs/heapmap.md) is drawn from these.
#pragma once

#include <cstdint>
#include <span>
#include <string>
#include <string_view>
#include <vector>

#include "trace/symbols.h"
#include "util/bytes.h"

namespace memcity {

// What a space is to its collector (a G1 region's changes from GC to GC).
enum class SpaceKind : uint8_t {
    kUnknown = 0,
    kEden = 1,       // where new objects are allocated
    kSurvivor = 2,   // young objects that survived a GC
    kOld = 3,        // the old (tenured) generation
    kHumongous = 4,  // G1: a region of one large object
    kFree = 5,       // G1: a region that holds nothing
};
inline constexpr uint32_t kSpaceKindCount = 6;
std::string_view spaceKindName(SpaceKind kind);  // "eden", "survivor", "old", "humongous", "free"

// One space right after a GC: [bottom, top) holds objects, [top, end) is free, both committed;
// before the GC it held [bottom, top_before).
struct SpaceState {
    uint32_t space = 0;  // SPACE id
    SpaceKind kind = SpaceKind::kUnknown;
    uint64_t bottom = 0, top = 0, end = 0;
    uint64_t top_before = 0;  // in [bottom, end]; 0 where unknown (heap/heap_map.h's made-up space)

    uint64_t used() const { return top - bottom; }
    uint64_t usedBefore() const { return top_before - bottom; }
    uint64_t capacity() const { return end - bottom; }
};

// GC_SPACES: every space the collector has, in address order, right after GC `gc`.
struct GcSpacesEvent {
    uint32_t gc = 0;
    std::vector<SpaceState> spaces;
};

std::vector<uint8_t> encodeGcSpaces(const GcSpacesEvent& e);
// An Error (its offset: bytes into `data`, Error::inData) when malformed, naming a SPACE the
// table lacks, or a space whose bottom, top and end are not in order.
Status decodeGcSpaces(std::span<const uint8_t> data, const SymbolTable& symbols, GcSpacesEvent* out);

// An object's address at a GC.
struct ObjectAddress {
    uint64_t id = 0;
    uint64_t address = 0;
};

// ADDRS payload: varint gc, varint shift, varint count, then count x { varint id - previous id,
// svarint (address - previous address) >> shift }, ids ascending, the first of each relative to
// 0. Addresses are multiples of 1 << shift (the object alignment).
void encodeAddresses(uint32_t gc, uint32_t shift, std::span<const ObjectAddress> objects, ByteWriter& out);

struct AddressChunk {
    uint32_t gc = 0;
    std::vector<ObjectAddress> objects;
};
// An Error (its offset: bytes into `data`) when malformed (ids not ascending, an address out of
// range).
Status decodeAddresses(std::span<const uint8_t> data, AddressChunk* out);

}  // namespace memcity
