#include "trace/g1_regions.h"

#include <string>
#include <utility>

#include "util/bytes.h"

namespace memcity {

std::string_view regionRoleName(RegionRole role) {
    switch (role) {
        case RegionRole::kFree: return "free";
        case RegionRole::kEden: return "eden";
        case RegionRole::kSurvivor: return "survivor";
        case RegionRole::kOld: return "old";
        case RegionRole::kHumongousStart: return "humongous start";
        case RegionRole::kHumongousContinues: return "humongous continues";
        case RegionRole::kArchive: return "archive";
        case RegionRole::kUnknown: break;
    }
    return "unknown";
}

uint64_t GcRegionsEvent::usedBytes() const {
    uint64_t n = 0;
    for (uint64_t u : used)
        n += u;
    return n;
}

std::array<uint32_t, kRegionRoleCount> GcRegionsEvent::countRoles() const {
    std::array<uint32_t, kRegionRoleCount> n{};
    for (RegionRole r : roles)
        ++n[static_cast<size_t>(r)];
    return n;
}

GcRegionsEvent RegionsRecord::table() const {
    GcRegionsEvent e;
    (void)decodeGcRegions(payload, &e);
    return e;
}

RegionsRecord recordOf(const GcRegionsEvent& e, std::vector<uint8_t> payload) {
    RegionsRecord r;
    r.gc = e.gc;
    r.after = e.after;
    r.regions = static_cast<uint32_t>(e.roles.size());
    r.region_bytes = e.regionBytes();
    r.counts = e.countRoles();
    r.used = e.usedBytes();
    r.payload = std::move(payload);
    return r;
}

// GC_REGIONS payload: varint gc, varint phase (0 start, 1 end), varint shift, varint first >> shift,
// varint count, then runs of one role until count regions: varint role, varint run length, and
// for each region of the run but free ones, varint used bytes.
std::vector<uint8_t> encodeGcRegions(const GcRegionsEvent& e) {
    ByteWriter w;
    w.varint(e.gc);
    w.varint(e.after ? 1 : 0);
    w.varint(e.shift);
    w.varint(e.first >> e.shift);
    w.varint(e.roles.size());
    for (size_t i = 0; i < e.roles.size();) {
        size_t j = i;
        while (j < e.roles.size() && e.roles[j] == e.roles[i])
            ++j;
        w.varint(static_cast<uint8_t>(e.roles[i]));
        w.varint(j - i);
        if (e.roles[i] != RegionRole::kFree)
            for (size_t k = i; k < j; ++k)
                w.varint(e.used[k]);
        i = j;
    }
    return std::move(w.bytes());
}

Status decodeGcRegions(std::span<const uint8_t> data, GcRegionsEvent* out) {
    ByteReader r(data.data(), data.size());
    *out = GcRegionsEvent{};
    const uint64_t gc = r.varint();
    if (r.failed() || gc > UINT32_MAX) return decodeFailed(r, "impossible GC index");
    out->gc = static_cast<uint32_t>(gc);
    const uint64_t phase = r.varint();
    if (r.failed() || phase > 1) return decodeFailed(r, "a phase that is neither the GC's start nor its end");
    const uint64_t shift = r.varint();
    if (r.failed() || shift < 16 || shift > 32) return decodeFailed(r, "impossible region size");
    const uint64_t first = r.varint();
    if (r.failed() || first > (UINT64_MAX >> shift)) return decodeFailed(r, "impossible first region");
    const uint64_t count = r.varint();
    if (r.failed() || count > kMaxRegions || first + count > (UINT64_MAX >> shift))
        return decodeFailed(r, "impossible region count");
    out->after = phase == 1;
    out->shift = static_cast<uint32_t>(shift);
    out->first = first << shift;
    out->roles.reserve(count);
    out->used.reserve(count);
    const uint64_t size = uint64_t{1} << shift;
    while (out->roles.size() < count) {
        const size_t at = r.offset();
        const uint64_t role = r.varint();
        const uint64_t run = r.varint();
        if (r.failed()) return decodeFailed(r, "");
        if (run == 0 || run > count - out->roles.size())
            return Error::inData(
                at, "a run of " + std::to_string(run) + " regions past the table's " + std::to_string(count));
        // A role of a later format reads as unknown.
        const RegionRole rr = role < kRegionRoleCount ? static_cast<RegionRole>(role) : RegionRole::kUnknown;
        if (rr == RegionRole::kHumongousContinues &&
            (out->roles.empty() || (out->roles.back() != RegionRole::kHumongousStart &&
                                    out->roles.back() != RegionRole::kHumongousContinues)))
            return Error::inData(at, "region " + std::to_string(out->roles.size()) +
                                         " continues a humongous object that starts nowhere");
        for (uint64_t k = 0; k < run; ++k) {
            const size_t used_at = r.offset();
            const uint64_t used = rr == RegionRole::kFree ? 0 : r.varint();
            if (r.failed()) return decodeFailed(r, "");
            if (used > size)
                return Error::inData(used_at, "region " + std::to_string(out->roles.size()) + " uses " +
                                                  std::to_string(used) + " bytes of " + std::to_string(size));
            out->roles.push_back(rr);
            out->used.push_back(used);
        }
    }
    if (r.remaining() != 0) return Error::inData(r.offset(), "bytes after the last region");
    return {};
}

}  // namespace memcity
