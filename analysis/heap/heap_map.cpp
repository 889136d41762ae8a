#include "heap/heap_map.h"

#include <algorithm>

namespace memcity {

HeapMap buildHeapMap(const HeapView& heap, std::span<const uint64_t> addresses, const GcSpacesEvent* spaces,
                     const SymbolTable& symbols, uint64_t tile_bytes) {
    HeapMap map;
    map.gc = heap.gc();
    map.tile_bytes = std::max<uint64_t>(tile_bytes, 8);
    // The objects by address.
    struct Placed {
        uint64_t address, size;
    };
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
        placed.push_back({address, size});
    }
    std::sort(placed.begin(), placed.end(),
              [](const Placed& a, const Placed& b) { return a.address < b.address; });
    if (spaces) {
        for (const SpaceState& s : spaces->spaces)
            map.spaces.push_back({s, std::string(symbols.space(s.space).name), 0, 0, 0, 0, {}});
    } else if (!placed.empty()) {
        // No spaces: the objects' range, rounded out to whole tiles.
        SpaceState s;
        s.bottom = placed.front().address / map.tile_bytes * map.tile_bytes;
        s.top = placed.back().address + placed.back().size;
        s.end = (s.top + map.tile_bytes - 1) / map.tile_bytes * map.tile_bytes;
        map.spaces.push_back({s, "heap", 0, 0, 0, 0, {}});
    }
    std::sort(map.spaces.begin(), map.spaces.end(),
              [](const SpaceMap& a, const SpaceMap& b) { return a.state.bottom < b.state.bottom; });
    size_t next = 0;  // in placed
    for (SpaceMap& sm : map.spaces) {
        const SpaceState& s = sm.state;
        sm.tiles.resize((s.capacity() + map.tile_bytes - 1) / map.tile_bytes);
        for (; next < placed.size() && placed[next].address < s.bottom; ++next)
            ++map.outside_objects, map.outside_bytes += placed[next].size;
        uint64_t covered = s.bottom;  // where the objects so far end
        for (; next < placed.size() && placed[next].address < s.top; ++next) {
            const Placed& o = placed[next];
            ++sm.objects, sm.bytes += o.size;
            if (o.address < covered) {
                ++sm.overlaps;
            } else {
                sm.gap_bytes += o.address - covered;
            }
            covered = std::max(covered, o.address + o.size);
            uint64_t at = o.address;
            const uint64_t end = std::min(o.address + o.size, s.end);
            ++sm.tiles[(at - s.bottom) / map.tile_bytes].objects;
            while (at < end) {
                const uint64_t tile = (at - s.bottom) / map.tile_bytes;
                const uint64_t tile_end = s.bottom + (tile + 1) * map.tile_bytes;
                const uint64_t part = std::min(end, tile_end) - at;
                sm.tiles[tile].bytes += part;
                at += part;
            }
        }
        if (covered < s.top) sm.gap_bytes += s.top - covered;
    }
    for (; next < placed.size(); ++next)
        ++map.outside_objects, map.outside_bytes += placed[next].size;
    return map;
}

}  // namespace memcity
