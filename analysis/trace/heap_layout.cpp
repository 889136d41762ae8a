#include "trace/heap_layout.h"

namespace memcity {
namespace {

constexpr uint64_t kMaxSpaces = 1u << 16;  // G1 regions are spaces too: up to 2048 of them, or more

}  // namespace

std::string_view spaceKindName(SpaceKind kind) {
    switch (kind) {
        case SpaceKind::kUnknown: break;
        case SpaceKind::kEden: return "eden";
        case SpaceKind::kSurvivor: return "survivor";
        case SpaceKind::kOld: return "old";
        case SpaceKind::kHumongous: return "humongous";
        case SpaceKind::kFree: return "free";
    }
    return "unknown";
}

std::vector<uint8_t> encodeGcSpaces(const GcSpacesEvent& e) {
    ByteWriter w;
    w.varint(e.gc);
    w.varint(e.spaces.size());
    for (const SpaceState& s : e.spaces) {
        w.varint(s.space);
        w.varint(static_cast<uint8_t>(s.kind));
        w.varint(s.bottom);
        w.varint(s.top - s.bottom);
        w.varint(s.end - s.top);
        w.varint(s.top_before - s.bottom);
    }
    return std::move(w.bytes());
}

Status decodeGcSpaces(std::span<const uint8_t> data, const SymbolTable& symbols, GcSpacesEvent* out) {
    ByteReader r(data.data(), data.size());
    *out = GcSpacesEvent{};
    const uint64_t gc = r.varint();
    if (r.failed() || gc > UINT32_MAX) return decodeFailed(r, "impossible GC index");
    out->gc = static_cast<uint32_t>(gc);
    const uint64_t n = r.varint();
    if (r.failed() || n > kMaxSpaces || n > r.remaining()) return decodeFailed(r, "impossible space count");
    out->spaces.reserve(n);
    for (uint64_t i = 0; i < n; ++i) {
        const size_t at = r.offset();
        SpaceState s;
        const uint64_t id = r.varint();
        const uint64_t kind = r.varint();
        s.bottom = r.varint();
        const uint64_t used = r.varint(), free = r.varint(), used_before = r.varint();
        if (r.failed()) return decodeFailed(r, "");
        if (id == 0 || id > UINT32_MAX || !symbols.space(static_cast<uint32_t>(id)).defined) {
            return Error::inData(at, "space " + std::to_string(id) + " is not defined");
        }
        if (used > UINT64_MAX - s.bottom || free > UINT64_MAX - s.bottom - used) {
            return Error::inData(at, "space " + std::to_string(id) + " ends past the address space");
        }
        if (used_before > used + free) {
            return Error::inData(
                at, "space " + std::to_string(id) + " was fuller before the GC than it is large");
        }
        s.space = static_cast<uint32_t>(id);
        s.top_before = s.bottom + used_before;
        // A kind of a later format reads as unknown.
        s.kind = kind < kSpaceKindCount ? static_cast<SpaceKind>(kind) : SpaceKind::kUnknown;
        s.top = s.bottom + used;
        s.end = s.top + free;
        out->spaces.push_back(s);
    }
    if (r.remaining() != 0) {
        return Error::inData(r.offset(), "bytes after the last space");
    }
    return {};
}

void encodeAddresses(uint32_t gc, uint32_t shift, std::span<const ObjectAddress> objects, ByteWriter& out) {
    out.varint(gc);
    out.varint(shift);
    out.varint(objects.size());
    uint64_t id = 0, address = 0;
    for (const ObjectAddress& o : objects) {
        out.varint(o.id - id);
        out.svarint(static_cast<int64_t>(o.address - address) >> shift);
        id = o.id;
        address = o.address;
    }
}

Status decodeAddresses(std::span<const uint8_t> data, AddressChunk* out) {
    ByteReader r(data.data(), data.size());
    out->gc = 0;
    out->objects.clear();
    const uint64_t gc = r.varint();
    if (r.failed() || gc > UINT32_MAX) return decodeFailed(r, "impossible GC index");
    out->gc = static_cast<uint32_t>(gc);
    const uint64_t shift = r.varint();
    if (r.failed() || shift > 12) return decodeFailed(r, "impossible address shift");
    const uint64_t n = r.varint();
    // Each object is at least two bytes: a count above what is left is corrupt.
    if (r.failed() || n > r.remaining() / 2) return decodeFailed(r, "impossible object count");
    out->objects.resize(n);
    uint64_t id = 0, address = 0;
    for (uint64_t i = 0; i < n; ++i) {
        const size_t at = r.offset();
        const uint64_t gap = r.varint();
        const int64_t delta = r.svarint();
        if (r.failed()) return decodeFailed(r, "");
        if ((i > 0 && gap == 0) || gap > UINT64_MAX - id) {
            return Error::inData(at, "object ids are not ascending");
        }
        // The delta in units of the alignment, back to bytes: it must stay within 64 bits.
        const int64_t limit = INT64_MAX >> shift;
        if (delta > limit || delta < -limit) {
            return Error::inData(at, "an address out of range");
        }
        id += gap;
        address += static_cast<uint64_t>(delta) << shift;
        out->objects[i] = {id, address};
    }
    if (r.remaining() != 0) {
        return Error::inData(r.offset(), "bytes after the last object");
    }
    return {};
}

}  // namespace memcity
