#include "heap/heap_map.h"

#include <algorithm>

namespace memcity {

HeapMap buildHeapMap(const HeapView& heap, std::span<const uint64_t> addresses, const GcSpacesEvent* spaces,
                     const SymbolTable& symbols, const HeapMapOptions& options) {
    HeapMap map;
    map.gc = heap.gc();
    map.addresses = true;
    map.tile_bytes = std::max<uint64_t>(options.tile_bytes, 8);
    // The objects by address.
    struct Placed {
        uint64_t address, size;
        uint32_t age;
        bool selected, dying;
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
        placed.push_back({address, size, heap.gc() - std::min(heap.gc(), heap.birthGc(pos)),
                          options.selected && pos < options.selected->size() && options.selected->test(pos),
                          options.dying && pos < options.dying->size() && options.dying->test(pos)});
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
        s.top_before = 0;  // unknown
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
                HeapTile& t = sm.tiles[tile];
                t.bytes += part;
                t.age_bytes += part * o.age;
                if (o.selected) t.selected_bytes += part;
                if (o.dying) t.dying_bytes += part;
                at += part;
            }
        }
        if (covered < s.top) sm.gap_bytes += s.top - covered;
    }
    for (; next < placed.size(); ++next)
        ++map.outside_objects, map.outside_bytes += placed[next].size;
    return map;
}

HeapMap spacesOnlyMap(uint32_t gc, const GcSpacesEvent& spaces, const SymbolTable& symbols,
                      uint64_t tile_bytes) {
    HeapMap map;
    map.gc = gc;
    map.tile_bytes = std::max<uint64_t>(tile_bytes, 8);
    for (const SpaceState& s : spaces.spaces) {
        SpaceMap sm{s, std::string(symbols.space(s.space).name), 0, 0, 0, 0, {}};
        sm.tiles.resize((s.capacity() + map.tile_bytes - 1) / map.tile_bytes);
        for (size_t t = 0; t < sm.tiles.size(); ++t) {
            const uint64_t from = s.bottom + t * map.tile_bytes;
            sm.tiles[t].bytes = s.top > from ? std::min(s.top - from, map.tile_bytes) : 0;
        }
        map.spaces.push_back(std::move(sm));
    }
    std::sort(map.spaces.begin(), map.spaces.end(),
              [](const SpaceMap& a, const SpaceMap& b) { return a.state.bottom < b.state.bottom; });
    return map;
}

std::vector<TileType> typesIn(const HeapView& heap, std::span<const uint64_t> addresses, uint64_t from,
                              uint64_t to, size_t count) {
    std::vector<TileType> types;
    for (size_t pos = 0; pos < heap.positions() && pos < addresses.size(); ++pos) {
        if (!heap.alive(pos) || addresses[pos] < from || addresses[pos] >= to) continue;
        const uint32_t type = heap.type(pos);
        auto it = std::find_if(types.begin(), types.end(), [&](const TileType& t) { return t.type == type; });
        if (it == types.end()) it = types.insert(types.end(), TileType{type, 0, 0});
        ++it->objects;
        it->bytes += heap.size(pos);
    }
    std::sort(types.begin(), types.end(), [](const TileType& a, const TileType& b) {
        return a.bytes != b.bytes ? a.bytes > b.bytes : a.type < b.type;
    });
    if (types.size() > count) types.resize(count);
    return types;
}

}  // namespace memcity
