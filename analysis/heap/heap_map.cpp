#include "heap/heap_map.h"

#include <algorithm>
#include <bit>
#include <utility>

namespace memcity {
namespace {

// The tile size asked for, doubled until the spaces take at most kMaxTiles tiles (a space may
// span the address space in a corrupt trace). The count saturates at kMaxTiles + 1: 64 spaces
// as large as the address space would wrap a plain sum to a small number. At the largest tile
// (2^62) a space takes at most 5 tiles, and a GC_SPACES event has at most kMaxSpaces spaces.
constexpr uint64_t kMaxTiles = uint64_t{1} << 22;
uint64_t boundedTile(uint64_t tile, const std::vector<SpaceMap>& spaces) {
    for (;; tile *= 2) {
        uint64_t tiles = 0;
        for (const SpaceMap& s : spaces) {
            tiles += std::min(s.state.capacity() / tile + 1, kMaxTiles + 1);
            if (tiles > kMaxTiles) break;
        }
        if (tiles <= kMaxTiles || tile >= (uint64_t{1} << 62)) return tile;
    }
}

uint64_t tilesOf(const SpaceState& s, uint64_t tile) {
    return s.capacity() / tile + (s.capacity() % tile != 0 ? 1 : 0);
}

// An object placed by its address.
struct Placed {
    uint64_t address, size;
    uint32_t age;
    bool selected, dying;
};

// By address, stably: a radix sort on the address less the lowest, 16 bits a pass, as many
// passes as the span needs (two for a heap of up to 4 GiB in 8-byte units); small sets by
// comparison. (Memory-bound: each pass's scatter misses the cache. 11-bit digits, or one pass
// into buckets sorted by comparison, measured no faster: bench_g1_map.)
template <typename T>
void sortByAddress(std::vector<T>& placed) {
    if (placed.size() < 4096) {
        std::stable_sort(placed.begin(), placed.end(),
                         [](const T& a, const T& b) { return a.address < b.address; });
        return;
    }
    uint64_t lo = UINT64_MAX, hi = 0, bits = 0;
    for (const T& p : placed) {
        lo = std::min(lo, p.address);
        hi = std::max(hi, p.address);
    }
    for (const T& p : placed)
        bits |= p.address - lo;
    const int shift = bits ? std::countr_zero(bits) : 0;
    const uint64_t span = (hi - lo) >> shift;
    std::vector<T> other(placed.size());
    std::vector<size_t> count(size_t{1} << 16);
    for (int pass = 0; pass < 4 && (span >> (16 * pass)) != 0; ++pass) {
        auto digit = [&](const T& p) { return ((p.address - lo) >> shift >> (16 * pass)) & 0xffff; };
        std::fill(count.begin(), count.end(), 0);
        for (const T& p : placed)
            ++count[digit(p)];
        size_t at = 0;
        for (size_t& c : count)
            at += std::exchange(c, at);
        for (const T& p : placed)
            other[count[digit(p)]++] = p;
        placed.swap(other);
    }
}

// G1's roles on a map whose one space is its grid.
void addRoles(HeapMap& map, const GcRegionsEvent* regions) {
    if (!regions || map.spaces.size() != 1 || map.spaces[0].state.space != kG1HeapSpace) return;
    map.region_roles = regions->roles;
    map.region_bytes = regions->regionBytes();
}

}  // namespace

std::vector<size_t> positionsByAddress(std::span<const uint64_t> addresses) {
    struct At {
        uint64_t address;
        size_t pos;
    };
    std::vector<At> at;
    for (size_t pos = 0; pos < addresses.size(); ++pos)
        if (addresses[pos]) at.push_back({addresses[pos], pos});
    sortByAddress(at);
    std::vector<size_t> out;
    out.reserve(at.size());
    for (const At& a : at)
        out.push_back(a.pos);
    return out;
}

GcSpacesEvent spacesOfRegions(const GcRegionsEvent& after, uint64_t used_before) {
    GcSpacesEvent e;
    e.gc = after.gc;
    SpaceState s;
    s.space = kG1HeapSpace;
    s.bottom = after.first;
    s.end = after.bottomOf(after.roles.size());
    s.top = s.bottom + std::min(after.usedBytes(), s.end - s.bottom);
    s.top_before = s.bottom + std::min(used_before, s.end - s.bottom);
    e.spaces.push_back(s);
    return e;
}

std::string spaceName(const SymbolTable& symbols, uint32_t space) {
    return space == kG1HeapSpace ? "G1 heap" : std::string(symbols.space(space).name);
}

HeapMap buildHeapMap(const HeapView& heap, std::span<const uint64_t> addresses, const GcSpacesEvent* spaces,
                     const SymbolTable& symbols, const HeapMapOptions& options) {
    HeapMap map;
    map.gc = heap.gc();
    map.addresses = true;
    map.tile_bytes = std::max<uint64_t>(options.tile_bytes, 8);
    // The objects by address.
    std::vector<Placed> placed;
    placed.reserve(heap.liveObjects());
    for (size_t pos = 0; pos < heap.positions(); ++pos) {
        if (!heap.alive(pos)) continue;
        const uint64_t address = pos < addresses.size() ? addresses[pos] : 0;
        const uint64_t size = heap.size(pos);
        if (address == 0) {
            ++map.unplaced_objects, map.unplaced_bytes += size;
            continue;
        }
        placed.push_back({address, size, heap.gc() - std::min(heap.gc(), heap.birthGc(pos)),
                          options.selected && pos < options.selected->size() && options.selected->test(pos),
                          options.dying && pos < options.dying->size() && options.dying->test(pos)});
    }
    sortByAddress(placed);
    if (spaces) {
        for (const SpaceState& s : spaces->spaces)
            map.spaces.push_back({s, spaceName(symbols, s.space), 0, 0, 0, 0, {}});
    } else if (!placed.empty()) {
        // No spaces: the objects' range.
        SpaceState s;
        s.bottom = placed.front().address;
        const Placed& last = placed.back();
        s.top = s.end = last.size > UINT64_MAX - last.address ? UINT64_MAX : last.address + last.size;
        s.top_before = 0;  // unknown
        map.spaces.push_back({s, "heap", 0, 0, 0, 0, {}});
    }
    std::sort(map.spaces.begin(), map.spaces.end(),
              [](const SpaceMap& a, const SpaceMap& b) { return a.state.bottom < b.state.bottom; });
    map.tile_bytes = boundedTile(map.tile_bytes, map.spaces);
    size_t next = 0;  // in placed
    for (SpaceMap& sm : map.spaces) {
        const SpaceState& s = sm.state;
        sm.tiles.resize(tilesOf(s, map.tile_bytes));
        for (; next < placed.size() && placed[next].address < s.bottom; ++next)
            ++map.outside_objects, map.outside_bytes += placed[next].size;
        uint64_t covered = s.bottom;  // where the objects so far end
        // G1's grid is used region by region, not up to a top: objects anywhere in it are in it.
        const bool grid = s.space == kG1HeapSpace;
        const uint64_t limit = grid ? s.end : s.top;
        for (; next < placed.size() && placed[next].address < limit; ++next) {
            const Placed& o = placed[next];
            ++sm.objects, sm.bytes += o.size;
            if (o.address < covered) {
                ++sm.overlaps;
            } else if (!grid) {
                sm.gap_bytes += o.address - covered;
            }
            covered = std::max(covered, o.address + o.size);
            ++sm.tiles[(o.address - s.bottom) / map.tile_bytes].objects;
            forEachTilePart(s, map.tile_bytes, o.address, o.size, [&](size_t tile, uint64_t part) {
                HeapTile& t = sm.tiles[tile];
                t.bytes += part;
                t.age_bytes += part * o.age;
                if (o.selected) t.selected_bytes += part;
                if (o.dying) t.dying_bytes += part;
            });
        }
        if (grid)  // the regions' used bytes that no object of the trace's covers
            sm.gap_bytes = s.used() > sm.bytes ? s.used() - sm.bytes : 0;
        else if (covered < s.top)
            sm.gap_bytes += s.top - covered;
    }
    for (; next < placed.size(); ++next)
        ++map.outside_objects, map.outside_bytes += placed[next].size;
    addRoles(map, options.regions);
    return map;
}

HeapMap spacesOnlyMap(uint32_t gc, const GcSpacesEvent& spaces, const SymbolTable& symbols,
                      uint64_t tile_bytes, const GcRegionsEvent* regions) {
    HeapMap map;
    map.gc = gc;
    map.tile_bytes = std::max<uint64_t>(tile_bytes, 8);
    for (const SpaceState& s : spaces.spaces)
        map.spaces.push_back({s, spaceName(symbols, s.space), 0, 0, 0, 0, {}});
    map.tile_bytes = boundedTile(map.tile_bytes, map.spaces);
    for (SpaceMap& sm : map.spaces) {
        const SpaceState& s = sm.state;
        sm.tiles.resize(tilesOf(s, map.tile_bytes));
        if (regions && s.space == kG1HeapSpace) {
            // Each region's used bytes from its bottom.
            for (size_t i = 0; i < regions->roles.size(); ++i)
                if (regions->used[i])
                    forEachTilePart(s, map.tile_bytes, regions->bottomOf(i), regions->used[i],
                                    [&](size_t tile, uint64_t part) { sm.tiles[tile].bytes += part; });
            continue;
        }
        for (size_t t = 0; t < sm.tiles.size(); ++t) {
            const uint64_t from = s.bottom + t * map.tile_bytes;
            sm.tiles[t].bytes = s.top > from ? std::min(s.top - from, map.tile_bytes) : 0;
        }
    }
    addRoles(map, regions);
    std::sort(map.spaces.begin(), map.spaces.end(),
              [](const SpaceMap& a, const SpaceMap& b) { return a.state.bottom < b.state.bottom; });
    return map;
}

}  // namespace memcity
