#include "heap/heap_map.h"

#include <algorithm>
#include <bit>
#include <memory>
#include <new>
#include <utility>

#include "util/parallel.h"

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

// Stable counting sort of `in` into `out` (as long) by digit(o) < `digits`; `count` is scratch.
template <typename Digit>
void countingSort(std::span<const AddressedObject> in, std::span<AddressedObject> out, size_t digits,
                  std::vector<size_t>& count, Digit digit) {
    count.assign(digits, 0);
    for (const AddressedObject& o : in)
        ++count[digit(o)];
    size_t at = 0;
    for (size_t& c : count)
        at += std::exchange(c, at);
    for (const AddressedObject& o : in)
        out[count[digit(o)]++] = o;
}

// How many runs of `positions` heap positions a pass on `threads` threads takes: one per
// thread (at most 8), or one for a heap too small to share out.
size_t partsFor(size_t positions, unsigned threads) {
    return positions < (size_t{1} << 16) ? 1 : std::clamp<size_t>(threads, 1, 8);
}

// The addresses' range, as objectsByAddress gathers it: the lowest and highest, and the bits in
// which they differ from one of them (their alignment is its lowest set bit: the differences
// from any one address have the lowest set bit of those from the lowest).
struct AddressRange {
    uint64_t lo = UINT64_MAX, hi = 0, first = 0, differ = 0;
    void add(uint64_t address) {
        if (!first) first = address;
        lo = std::min(lo, address);
        hi = std::max(hi, address);
        differ |= address - first;
    }
    void add(const AddressRange& r) {
        if (!r.first) return;
        add(r.first);
        lo = std::min(lo, r.lo);
        hi = std::max(hi, r.hi);
        differ |= r.differ;
    }
};

// `parts` (each the objects of a run of positions, the runs in order) as one array by address,
// stably: a radix sort on the address less the lowest, in units of the addresses' alignment. One
// pass on the top bits scatters the objects into buckets of about a thousand (each part counted
// and scattered on a thread of its own), then each bucket is sorted on the bits below while it is
// in the cache, the buckets shared out between the threads. (Memory-bound: only the first pass's
// scatter misses the cache. Two passes of 16 bits over the whole array took half as long again:
// bench_g1_map.) Small sets by comparison.
std::vector<AddressedObject> sortByAddress(std::vector<std::vector<AddressedObject>>& parts,
                                           const AddressRange& range) {
    size_t total = 0;
    for (const auto& p : parts)
        total += p.size();
    auto byAddress = [](const AddressedObject& a, const AddressedObject& b) { return a.address < b.address; };
    const int shift = range.differ ? std::countr_zero(range.differ) : 0;
    const int width =
        total ? static_cast<int>(std::bit_width((range.hi - range.lo) >> shift)) : 0;  // the key's bits
    if (total < 4096 || width == 0) {
        std::vector<AddressedObject> all;
        all.reserve(total);
        for (const auto& p : parts)
            all.insert(all.end(), p.begin(), p.end());
        std::stable_sort(all.begin(), all.end(), byAddress);
        return all;
    }
    const uint64_t lo = range.lo;
    auto key = [lo, shift](const AddressedObject& o) { return (o.address - lo) >> shift; };
    // The top digit: buckets of about 1,024 objects on average.
    const int top = std::min(width, std::clamp(static_cast<int>(std::bit_width(total >> 10)), 1, 16));
    const int low = width - top;
    const size_t digits = size_t{1} << top;
    std::vector<std::vector<size_t>> at(parts.size(), std::vector<size_t>(digits, 0));
    runParts(parts.size(), [&](size_t p) {
        for (const AddressedObject& o : parts[p])
            ++at[p][key(o) >> low];
    });
    std::vector<size_t> ends(digits);  // each bucket's end, once scattered
    size_t next = 0;
    for (size_t d = 0; d < digits; ++d) {
        for (auto& counts : at)  // a bucket's objects in the parts' order: stable
            next += std::exchange(counts[d], next);
        ends[d] = next;
    }
    std::vector<AddressedObject> objects(total);
    // The other array, not initialized (an aggregate's objects in raw storage begin with their
    // first assignment): 0.1 s less for 8 M objects.
    struct Release {
        void operator()(AddressedObject* p) const { ::operator delete(p); }
    };
    const std::unique_ptr<AddressedObject, Release> other(
        static_cast<AddressedObject*>(::operator new(total * sizeof(AddressedObject))));
    runParts(parts.size(), [&](size_t p) {
        for (const AddressedObject& o : parts[p])
            objects[at[p][key(o) >> low]++] = o;
        std::vector<AddressedObject>().swap(parts[p]);
    });
    if (low == 0) return objects;
    // The low bits in digits of at most 11 bits, bucket by bucket, back and forth between the
    // two arrays: each bucket ends in `objects` (an odd number of passes copies it back).
    const int passes = (low + 10) / 11;
    const int digit_bits = (low + passes - 1) / passes;
    const uint64_t mask = (uint64_t{1} << digit_bits) - 1;
    auto sortBuckets = [&](size_t first, size_t last) {  // buckets [first, last)
        std::vector<size_t> count;
        for (size_t b = first; b < last; ++b) {
            const size_t begin = b ? ends[b - 1] : 0, size = ends[b] - begin;
            if (size < 2) continue;
            const std::span<AddressedObject> here(objects.data() + begin, size),
                there(other.get() + begin, size);
            for (int pass = 0; pass < passes; ++pass)
                countingSort(
                    pass % 2 ? there : here, pass % 2 ? here : there, mask + 1, count,
                    [&](const AddressedObject& o) { return (key(o) >> (digit_bits * pass)) & mask; });
            if (passes % 2) std::copy(there.begin(), there.end(), here.begin());
        }
    };
    // As many parts, of about as many objects each, whole buckets.
    std::vector<size_t> cut{0};
    for (size_t p = 1; p < parts.size(); ++p)
        cut.push_back(static_cast<size_t>(
            std::lower_bound(ends.begin(), ends.end(), total * p / parts.size()) - ends.begin()));
    cut.push_back(ends.size());
    runParts(parts.size(), [&](size_t p) { sortBuckets(cut[p], std::max(cut[p], cut[p + 1])); });
    return objects;
}

// G1's roles on a map whose one space is its grid.
void addRoles(HeapMap& map, const GcRegionsEvent* regions) {
    if (!regions || map.spaces.size() != 1 || map.spaces[0].state.space != kG1HeapSpace) return;
    map.region_roles = regions->roles;
    map.region_bytes = regions->regionBytes();
}

}  // namespace

std::vector<AddressedObject> objectsByAddress(const HeapView& heap, std::span<const uint64_t> addresses,
                                              unsigned threads) {
    const size_t end = std::min(heap.positions(), addresses.size());
    const size_t parts = partsFor(end, threads);
    std::vector<std::vector<AddressedObject>> objects(parts);
    std::vector<AddressRange> ranges(parts);
    runParts(parts, [&](size_t p) {
        // (Filled here and moved there at the end: the parts' vectors and ranges side by side
        // would share cache lines.)
        std::vector<AddressedObject> mine;
        AddressRange range;
        const size_t from = end * p / parts, to = end * (p + 1) / parts;
        mine.reserve(to - from);
        for (size_t pos = from; pos < to; ++pos) {
            const uint64_t address = addresses[pos];
            if (!address || !heap.alive(pos)) continue;
            const uint64_t size = heap.size(pos);
            mine.push_back(
                {address, static_cast<uint32_t>(pos),
                 size < AddressedObject::kLarge ? static_cast<uint32_t>(size) : AddressedObject::kLarge});
            range.add(address);
        }
        objects[p] = std::move(mine);
        ranges[p] = range;
    });
    AddressRange range;
    for (const AddressRange& r : ranges)
        range.add(r);
    return sortByAddress(objects, range);
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
    std::vector<AddressedObject> sorted;
    std::span<const AddressedObject> by_address = options.by_address;
    if (by_address.empty()) {
        sorted = objectsByAddress(heap, addresses, options.threads);
        by_address = sorted;
    }
    if (spaces) {
        for (const SpaceState& s : spaces->spaces)
            map.spaces.push_back({s, spaceName(symbols, s.space), 0, 0, 0, 0, {}});
    } else if (!by_address.empty()) {
        // No spaces: the objects' range.
        SpaceState s;
        s.bottom = by_address.front().address;
        s.top = s.end = by_address.back().end(heap);
        s.top_before = 0;  // unknown
        map.spaces.push_back({s, "heap", 0, 0, 0, 0, {}});
    }
    std::sort(map.spaces.begin(), map.spaces.end(),
              [](const SpaceMap& a, const SpaceMap& b) { return a.state.bottom < b.state.bottom; });
    map.tile_bytes = boundedTile(map.tile_bytes, map.spaces);
    // The addresses each space takes, in address order: from its bottom to its top (G1's grid,
    // used region by region, to its end), less what the spaces below it took (spaces overlap in
    // a corrupt trace only).
    struct Stretch {
        uint64_t from, to;
    };
    std::vector<Stretch> stretches;
    uint64_t taken = 0;
    for (SpaceMap& sm : map.spaces) {
        const SpaceState& s = sm.state;
        sm.tiles.resize(tilesOf(s, map.tile_bytes));
        const uint64_t from = std::max(s.bottom, taken);
        taken = std::max(from, s.space == kG1HeapSpace ? s.end : s.top);
        stretches.push_back({from, taken});
    }
    // The tiles, in position order (what they add up needs no order; the objects' ages and
    // streams are read in the order they are kept), a run of positions per thread, each into a
    // map of its own (the first into `map`), added up after.
    const uint32_t gc = heap.gc();
    auto addObjects = [&](size_t from, size_t to, HeapMap& into) {
        for (size_t pos = from; pos < to; ++pos) {
            if (!heap.alive(pos)) continue;
            const uint64_t address = pos < addresses.size() ? addresses[pos] : 0;
            const uint64_t size = heap.size(pos);
            if (address == 0) {
                ++into.unplaced_objects, into.unplaced_bytes += size;
                continue;
            }
            const auto in = std::upper_bound(stretches.begin(), stretches.end(), address,
                                             [](uint64_t a, const Stretch& s) { return a < s.from; });
            if (in == stretches.begin() || address >= std::prev(in)->to) {
                ++into.outside_objects, into.outside_bytes += size;
                continue;
            }
            SpaceMap& sm = into.spaces[static_cast<size_t>(in - stretches.begin()) - 1];
            const SpaceState& s = sm.state;
            ++sm.objects, sm.bytes += size;
            ++sm.tiles[(address - s.bottom) / into.tile_bytes].objects;
            const uint64_t age = gc - std::min(gc, heap.birthGc(pos));
            const bool selected =
                options.selected && pos < options.selected->size() && options.selected->test(pos);
            const bool dying = options.dying && pos < options.dying->size() && options.dying->test(pos);
            forEachTilePart(s, into.tile_bytes, address, size, [&](size_t tile, uint64_t part) {
                HeapTile& t = sm.tiles[tile];
                t.bytes += part;
                t.age_bytes += part * age;
                if (selected) t.selected_bytes += part;
                if (dying) t.dying_bytes += part;
            });
        }
    };
    size_t tiles = 0;
    for (const SpaceMap& sm : map.spaces)
        tiles += sm.tiles.size();
    // (A map of its own per thread: at most 40 MiB of tiles each.)
    const size_t positions = heap.positions();
    const size_t parts = tiles > (size_t{1} << 20) ? 1 : partsFor(positions, options.threads);
    std::vector<HeapMap> partial(parts - 1, map);
    runParts(parts, [&](size_t p) {
        addObjects(positions * p / parts, positions * (p + 1) / parts, p ? partial[p - 1] : map);
    });
    for (const HeapMap& other : partial) {
        map.unplaced_objects += other.unplaced_objects, map.unplaced_bytes += other.unplaced_bytes;
        map.outside_objects += other.outside_objects, map.outside_bytes += other.outside_bytes;
        for (size_t i = 0; i < map.spaces.size(); ++i) {
            SpaceMap& sm = map.spaces[i];
            const SpaceMap& o = other.spaces[i];
            sm.objects += o.objects, sm.bytes += o.bytes;
            for (size_t t = 0; t < sm.tiles.size(); ++t) {
                HeapTile& to = sm.tiles[t];
                const HeapTile& from = o.tiles[t];
                to.objects += from.objects, to.bytes += from.bytes, to.age_bytes += from.age_bytes;
                to.selected_bytes += from.selected_bytes, to.dying_bytes += from.dying_bytes;
            }
        }
    }
    // Overlaps and the bytes between objects, in address order.
    size_t next = 0;  // in by_address
    for (size_t i = 0; i < map.spaces.size(); ++i) {
        SpaceMap& sm = map.spaces[i];
        const SpaceState& s = sm.state;
        const bool grid = s.space == kG1HeapSpace;
        while (next < by_address.size() && by_address[next].address < stretches[i].from)
            ++next;
        uint64_t covered = s.bottom;  // where the objects so far end
        for (; next < by_address.size() && by_address[next].address < stretches[i].to; ++next) {
            const AddressedObject& o = by_address[next];
            if (o.address < covered) {
                ++sm.overlaps;
            } else if (!grid) {
                sm.gap_bytes += o.address - covered;
            }
            covered = std::max(covered, o.end(heap));
        }
        if (grid)  // the regions' used bytes that no object of the trace's covers
            sm.gap_bytes = s.used() > sm.bytes ? s.used() - sm.bytes : 0;
        else if (covered < s.top)
            sm.gap_bytes += s.top - covered;
    }
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
