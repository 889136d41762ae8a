#include "hprof/dump_regions.h"

#include <algorithm>
#include <bit>
#include <charconv>
#include <cstdio>

#include "util/units.h"

namespace memcity::hprof {
namespace {

// The number at `text`'s start in base `base`, and where it ends.
std::optional<uint64_t> numberAt(std::string_view text, size_t* at, int base) {
    uint64_t value = 0;
    const char* first = text.data() + *at;
    const auto [end, ec] = std::from_chars(first, text.data() + text.size(), value, base);
    if (ec != std::errc() || end == first) return std::nullopt;
    *at += static_cast<size_t>(end - first);
    return value;
}

std::string hex(uint64_t value) {
    char text[24];
    std::snprintf(text, sizeof text, "0x%llx", static_cast<unsigned long long>(value));
    return text;
}

}  // namespace

std::optional<G1Grid> parseG1HeapInfo(std::string_view text) {
    size_t at = text.find("garbage-first heap");
    if (at == std::string_view::npos) return std::nullopt;
    // "[0x00000000fc000000, 0x0000000100000000)"
    at = text.find("[0x", at);
    if (at == std::string_view::npos) return std::nullopt;
    at += 3;
    const auto bottom = numberAt(text, &at, 16);
    if (!bottom || text.substr(at, 4) != ", 0x") return std::nullopt;
    at += 4;
    const auto end = numberAt(text, &at, 16);
    if (!end || text.substr(at, 1) != ")") return std::nullopt;
    // "region size 1024K"
    at = text.find("region size ", at);
    if (at == std::string_view::npos) return std::nullopt;
    at += 12;
    const auto size = numberAt(text, &at, 10);
    if (!size || at >= text.size()) return std::nullopt;
    const uint64_t unit = text[at] == 'K' ? 1 << 10 : text[at] == 'M' ? 1 << 20 : 0;
    if (!unit || *size > (uint64_t{1} << 32) / unit) return std::nullopt;
    const uint64_t region = *size * unit;
    G1Grid grid;
    grid.shift = static_cast<uint32_t>(std::countr_zero(region));
    // As a GC_REGIONS table can hold it (trace/g1_regions.h).
    if (!std::has_single_bit(region) || grid.shift < 16 || grid.shift > 32 || *bottom >= *end ||
        ((*bottom | *end) & (region - 1)) != 0 || ((*end - *bottom) >> grid.shift) > kMaxRegions)
        return std::nullopt;
    grid.bottom = *bottom;
    grid.end = *end;
    return grid;
}

DumpRegions::DumpRegions(const G1Grid& grid, bool collected) : grid_(grid), collected_(collected) {
    const size_t regions = static_cast<size_t>((grid.end - grid.bottom) >> grid.shift);
    table_.shift = grid.shift;
    table_.first = grid.bottom;
    table_.roles.assign(regions, RegionRole::kFree);
    table_.used.assign(regions, 0);
}

void DumpRegions::contradict(uint64_t address, const std::string& what) {
    if (error_.empty())
        error_ = "the object at " + hex(address) + " " + what + ": the dump's objects do not lie in G1's " +
                 std::to_string(table_.roles.size()) + " regions of " + formatBytes(table_.regionBytes());
}

void DumpRegions::add(uint64_t address, uint64_t size) {
    if (!error_.empty()) return;
    if (address < grid_.bottom || address >= grid_.end || size > grid_.end - address)
        return contradict(address, "(" + std::to_string(size) + " bytes) lies outside the heap [" +
                                       hex(grid_.bottom) + ", " + hex(grid_.end) + ")");
    const uint64_t region_bytes = table_.regionBytes();
    const size_t r = static_cast<size_t>((address - grid_.bottom) >> grid_.shift);
    const uint64_t offset = (address - grid_.bottom) & (region_bytes - 1);
    if (size > region_bytes / 2) {  // G1's humongous objects (G1CollectedHeap::is_humongous)
        if (offset != 0)
            return contradict(address, "(" + std::to_string(size) +
                                           " bytes, humongous) does not begin at a region's bottom");
        const size_t n = static_cast<size_t>((size + region_bytes - 1) >> grid_.shift);
        for (size_t k = 0; k < n; ++k)
            if (table_.roles[r + k] != RegionRole::kFree)
                return contradict(address, "(humongous) reaches over a region that holds another object");
        for (size_t k = 0; k < n; ++k) {
            table_.roles[r + k] = k ? RegionRole::kHumongousContinues : RegionRole::kHumongousStart;
            table_.used[r + k] = std::min(region_bytes, size - k * region_bytes);
        }
        return;
    }
    if (offset + size > region_bytes)
        return contradict(address, "(" + std::to_string(size) + " bytes) reaches over a region's end");
    if (table_.roles[r] == RegionRole::kHumongousStart || table_.roles[r] == RegionRole::kHumongousContinues)
        return contradict(address, "lies in a humongous object's region");
    table_.roles[r] = collected_ ? RegionRole::kOld : RegionRole::kUnknown;
    table_.used[r] = std::max(table_.used[r], offset + size);
}

Result<GcRegionsEvent> DumpRegions::finish(uint32_t gc) const {
    if (!error_.empty()) return Error{error_};
    GcRegionsEvent table = table_;
    table.gc = gc;
    return table;
}

}  // namespace memcity::hprof
