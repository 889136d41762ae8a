#include "classify/heap_map_at.h"

#include <algorithm>
#include <cmath>
#include <optional>
#include <unordered_map>

#include "classify/tree.h"
#include "graph/heap_graph.h"
#include "heap/addresses.h"

namespace memcity {
namespace {

// The objects of `heap` (GC g) that die at GC g + 1, by position.
Result<Bitset> dyingAfter(const HeapHistory& h, const HeapState& heap) {
    Bitset dying(heap.store().size());
    const uint32_t gc = heap.gc();
    if (gc + 1 >= h.gcCount()) return dying;
    std::vector<uint64_t> ids;
    Status s = h.forEachHeap(
        gc, gc + 1, [](const HeapView&) { return true; },
        [&](const ObjectStore& store, size_t pos, uint32_t at) {
            if (at == gc + 1) ids.push_back(store.id(pos));
        });
    if (!s) return s.error();
    std::sort(ids.begin(), ids.end());
    size_t hint = 0;
    for (uint64_t id : ids) {
        const size_t pos = heap.store().find(id, hint);
        if (pos == heap.store().size()) continue;
        dying.set(pos);
        hint = pos;
    }
    return dying;
}

// The heap at GC `gc` with its addresses, read (and, where `sort`, sorted) on `threads` threads.
Result<PlacedHeap> placeHeap(const HeapHistory& h, uint32_t gc, unsigned threads, bool sort) {
    if (gc >= h.gcCount()) return Error{h.gcRangeError(gc)};
    if (!h.gcs()[gc].has_addresses)
        return Error{h.trace().path() + ": GC " + std::to_string(gc) + " has no addresses"};
    auto heap = h.heapAt(gc);
    if (!heap) return heap.error();
    auto addresses = h.addressesFor(*heap, threads);
    if (!addresses) return addresses.error();
    PlacedHeap p{std::move(*heap), std::move(*addresses), {}};
    if (sort) p.by_address = objectsByAddress(p.heap.view(), p.addresses, threads);
    return p;
}

// The heap's view, with its graph attached where `chain` reads references (kept in `graph`).
Result<HeapView> viewFor(const HeapHistory& h, const HeapState& heap, const ClassifierChain& chain,
                         std::unique_ptr<HeapGraph>& graph) {
    HeapView view = heap.view();
    if (!chain.needsReferences()) return view;
    auto g = loadGraph(h, heap);
    if (!g) return g.error();
    graph = std::move(*g);
    return view.withGraph(graph.get());
}

// The objects of the groups at label paths `paths` of `chain`'s tree of `view` (with its graph
// where the chain reads references), by position.
Bitset selectedIn(const HeapView& view, const ClassifierChain& chain,
                  const std::vector<std::vector<std::string>>& paths, unsigned threads) {
    TreeOptions options;
    options.threads = threads;
    const ClassificationTree tree = ClassificationTree::build(view, chain, options);
    std::vector<uint32_t> nodes;
    for (const auto& path : paths)
        if (const uint32_t id = tree.find(path); id != kNoNode) nodes.push_back(id);
    Bitset selected(view.positions());
    if (!nodes.empty())
        for (const Bitset& m : tree.members(view, nodes, options))
            selected |= m;
    return selected;
}

// Accepts the objects whose positions are set.
class PositionFilter final : public Filter {
public:
    explicit PositionFilter(const Bitset& positions) : positions_(positions) {}
    std::string spec() const override { return "(a stretch of addresses)"; }
    bool shapeOnly() const override { return false; }
    bool accept(const HeapView&, size_t pos) const override { return positions_.test(pos); }

private:
    const Bitset& positions_;
};

// by_address's range of the objects that start in [from, to).
std::pair<size_t, size_t> startingIn(const PlacedHeap& p, uint64_t from, uint64_t to) {
    auto at = [&](uint64_t address) {
        return static_cast<size_t>(
            std::lower_bound(p.by_address.begin(), p.by_address.end(), address,
                             [](const AddressedObject& o, uint64_t a) { return o.address < a; }) -
            p.by_address.begin());
    };
    return {at(from), at(to)};
}

// G1's roles on a history row of its grid.
void addRoles(const HeapHistory& h, SpaceHistoryRow& row) {
    if (row.state.space != kG1HeapSpace) return;
    if (const RegionsRecord* before = h.regionsAt(row.gc, false)) row.roles_before = before->table().roles;
    if (const RegionsRecord* after = h.regionsAt(row.gc)) {
        row.roles_after = after->table().roles;
        row.region_bytes = after->region_bytes;
    }
}

SpaceHistoryRow extentRow(const HeapHistory& h, uint32_t gc, const SpaceState& s) {
    SpaceHistoryRow row{gc, s, false, 0, {}, {}, {}, 0};
    addRoles(h, row);
    return row;
}

}  // namespace

std::optional<GcRegionsEvent> regionTableAt(const HeapHistory& h, uint32_t gc, bool after) {
    const RegionsRecord* r = h.regionsAt(gc, after);
    if (!r) return std::nullopt;
    return r->table();
}

std::string noLayoutReason(const HeapHistory& h) {
    const std::string* collector = h.trace().metaValue("collector");
    const std::string name = collector ? *collector : "";
    if (name == "Z")
        return "ZGC's pages are not drawn: on JDK 21 and later the JVM exports neither a page's "
               "generation nor its age, and the recorder reads no object addresses under ZGC: "
               "docs/heapmap.md, \"ZGC and Shenandoah\"";
    if (name == "Shenandoah")
        return "Shenandoah's regions are not recorded yet, and the recorder reads no object addresses "
               "under it (no weak references there): docs/heapmap.md, \"ZGC and Shenandoah\"";
    if (name == "G1") return "recorded before memcity recorded G1's regions (trace format 1.4)";
    return "recorded before memcity 1.3, or by a collector the recorder cannot lay out: docs/heapmap.md";
}

Result<HeapMap> heapMapAt(const HeapHistory& h, const HeapMapRequest& r) {
    if (r.gc >= h.gcCount()) return Error{h.gcRangeError(r.gc)};
    const GcSpacesEvent* spaces = h.spacesAt(r.gc);
    if (!h.gcs()[r.gc].has_addresses) {
        if (!spaces)
            return Error{h.trace().path() + ": GC " + std::to_string(r.gc) +
                         " has neither the collector's spaces nor the objects' addresses" +
                         (h.spaces().empty() && h.addresses().empty() ? " (" + noLayoutReason(h) + ")" : "")};
        const std::optional<GcRegionsEvent> regions = regionTableAt(h, r.gc);
        return spacesOnlyMap(r.gc, *spaces, h.trace().symbols(), r.tile_bytes, regions ? &*regions : nullptr);
    }
    auto placed = placeHeap(h, r.gc, r.threads, false);
    if (!placed) return placed.error();
    return heapMapOf(h, *placed, r);
}

Result<std::shared_ptr<const PlacedHeap>> placedHeapAt(const HeapHistory& h, uint32_t gc, unsigned threads) {
    auto placed = placeHeap(h, gc, threads, true);
    if (!placed) return placed.error();
    return std::make_shared<const PlacedHeap>(std::move(*placed));
}

Result<HeapMap> heapMapOf(const HeapHistory& h, const PlacedHeap& placed, const HeapMapRequest& r) {
    const HeapState& heap = placed.heap;
    HeapMapOptions o;
    o.tile_bytes = r.tile_bytes;
    std::optional<Bitset> selected, dying;
    if (r.chain && !r.selected.empty()) {
        std::unique_ptr<HeapGraph> graph;
        auto view = viewFor(h, heap, *r.chain, graph);
        if (!view) return view.error();
        selected = selectedIn(*view, *r.chain, r.selected, r.threads);
        o.selected = &*selected;
    }
    if (r.dying) {
        auto d = dyingAfter(h, heap);
        if (!d) return d.error();
        dying = std::move(*d);
        o.dying = &*dying;
    }
    const std::optional<GcRegionsEvent> regions = regionTableAt(h, heap.gc());
    o.regions = regions ? &*regions : nullptr;
    o.by_address = placed.by_address;
    o.threads = r.threads;
    return buildHeapMap(heap.view(), placed.addresses, h.spacesAt(heap.gc()), h.trace().symbols(), o);
}

RangeContents rangeContents(const PlacedHeap& p, uint64_t from, uint64_t to) {
    RangeContents c;
    if (to <= from) return c;
    const HeapView view = p.heap.view();
    std::unordered_map<uint32_t, RangeType> by_type;
    auto count = [&](const AddressedObject& o, bool starts) {
        const size_t pos = o.pos;
        const uint64_t lo = std::max(o.address, from), hi = std::min(o.end(view), to);
        if (hi <= lo && !starts) return;
        RangeType& t = by_type[view.type(pos)];
        t.type = view.type(pos);
        t.objects += starts ? 1 : 0;
        t.bytes += hi > lo ? hi - lo : 0;
        c.objects += starts ? 1 : 0;
        c.bytes += hi > lo ? hi - lo : 0;
    };
    const auto [first, last] = startingIn(p, from, to);
    if (first > 0) count(p.by_address[first - 1], false);  // one that starts before and reaches in
    for (size_t k = first; k < last; ++k)
        count(p.by_address[k], true);
    for (const auto& [type, t] : by_type)
        c.types.push_back(t);
    std::sort(c.types.begin(), c.types.end(), [](const RangeType& a, const RangeType& b) {
        return a.bytes != b.bytes ? a.bytes > b.bytes : a.type < b.type;
    });
    return c;
}

Result<std::vector<RangeGroup>> groupsInRange(const HeapHistory& h, const PlacedHeap& p,
                                              const ClassifierChain& chain, uint64_t from, uint64_t to,
                                              unsigned threads) {
    const auto [first, last] = startingIn(p, from, to);
    if (first == last) return std::vector<RangeGroup>{};
    std::unique_ptr<HeapGraph> graph;
    auto view = viewFor(h, p.heap, chain, graph);
    if (!view) return view.error();
    Bitset in_range(view->positions());
    for (size_t k = first; k < last; ++k)
        in_range.set(p.by_address[k].pos);
    const PositionFilter filter(in_range);
    TreeOptions options;
    options.threads = threads;
    options.extra_filter = &filter;
    const ClassificationTree tree = ClassificationTree::build(*view, chain, options);
    std::vector<RangeGroup> groups;
    for (uint32_t id = 1; id < tree.size(); ++id) {
        const TreeNode& n = tree.node(id);
        if (!n.children.empty() || n.objects == 0) continue;
        RangeGroup g;
        g.objects = n.objects;
        g.bytes = n.bytes;
        for (uint32_t at = id; at != ClassificationTree::kRoot; at = tree.node(at).parent)
            g.labels.push_back(tree.label(at));
        std::reverse(g.labels.begin(), g.labels.end());
        groups.push_back(std::move(g));
    }
    std::sort(groups.begin(), groups.end(), [](const RangeGroup& a, const RangeGroup& b) {
        return a.bytes != b.bytes ? a.bytes > b.bytes : a.labels < b.labels;
    });
    return groups;
}

Result<std::vector<SpaceHistoryRow>> spaceHistory(const HeapHistory& h, const SpaceHistoryRequest& r,
                                                  const Progress& progress) {
    if (r.from > r.to || r.to >= h.gcCount()) return Error{h.gcRangeError(std::max(r.from, r.to))};
    const SymbolTable& symbols = h.trace().symbols();
    const bool select = r.chain && !r.selected.empty();
    std::vector<SpaceHistoryRow> rows;
    // The space's objects in the last row with tiles, by id, while the deaths of the GC after
    // it arrive (`dying`).
    struct Candidate {
        uint64_t id, address, size;
    };
    std::vector<Candidate> candidates;
    Status failure;
    auto on_heap = [&](const HeapView& replayed) {
        if (progress.cancelled()) return false;
        candidates.clear();  // the deaths of its GC have come
        const uint32_t gc = replayed.gc();
        if (gc > r.to) return false;  // replayed for its deaths alone
        const GcSpacesEvent* spaces = h.spacesAt(gc);
        SpaceHistoryRow row;
        row.gc = gc;
        bool found = false;
        if (spaces)
            for (const SpaceState& st : spaces->spaces)
                if (spaceName(symbols, st.space) == r.space) row.state = st, found = true;
        if (h.gcs()[gc].has_addresses && (found || !spaces)) {
            // A chain that reads references classifies the heap compacted, with its graph (at a
            // GC with a snapshot: addresses come without one where it was cut off or is still
            // being written).
            const bool select_here = select && (!r.chain->needsReferences() || h.gcs()[gc].has_snapshot);
            HeapView view = replayed;
            std::optional<HeapState> compacted;
            std::unique_ptr<HeapGraph> graph;
            if (select_here && r.chain->needsReferences()) {
                compacted.emplace(replayed);
                auto with_graph = viewFor(h, *compacted, *r.chain, graph);
                if (!with_graph) {
                    failure = with_graph.error();
                    return false;
                }
                view = *with_graph;
            }
            std::vector<uint64_t> addresses;
            for (const AddressInfo& a : h.addresses())
                if (a.gc == gc) {
                    auto loaded = loadAddresses(h.trace(), a.chunks, view.store(), r.threads);
                    if (!loaded) {
                        failure = loaded.error();
                        return false;
                    }
                    addresses = std::move(*loaded);
                }
            std::optional<Bitset> selected;
            if (select_here) selected = selectedIn(view, *r.chain, r.selected, r.threads);
            HeapMapOptions o;
            o.tile_bytes = r.tile_bytes;
            o.selected = selected ? &*selected : nullptr;
            o.threads = r.threads;
            const std::optional<GcRegionsEvent> regions = regionTableAt(h, gc);
            o.regions = regions ? &*regions : nullptr;
            HeapMap map = buildHeapMap(view, addresses, spaces, symbols, o);
            for (SpaceMap& m : map.spaces)
                if (m.name == r.space) {
                    row.state = m.state;
                    row.tile_bytes = map.tile_bytes;
                    row.tiles = std::move(m.tiles);
                    row.addresses = found = true;
                }
            if (row.addresses && r.dying) {
                for (size_t pos = 0; pos < view.positions() && pos < addresses.size(); ++pos)
                    if (view.alive(pos) && addresses[pos] >= row.state.bottom &&
                        addresses[pos] < (row.state.space == kG1HeapSpace ? row.state.end : row.state.top))
                        candidates.push_back({view.id(pos), addresses[pos], view.size(pos)});
                // (A store's positions are in id order already.)
                auto byId = [](const Candidate& a, const Candidate& b) { return a.id < b.id; };
                if (!std::is_sorted(candidates.begin(), candidates.end(), byId))
                    std::sort(candidates.begin(), candidates.end(), byId);
            }
        }
        if (found) {
            addRoles(h, row);
            rows.push_back(std::move(row));
        }
        return true;
    };
    // A death at the GC after the last row's: its bytes in that row's tiles.
    auto on_death = [&](const ObjectStore& store, size_t pos, uint32_t at) {
        if (candidates.empty() || at != rows.back().gc + 1) return;
        const uint64_t id = store.id(pos);
        auto c = std::lower_bound(candidates.begin(), candidates.end(), id,
                                  [](const Candidate& a, uint64_t b) { return a.id < b; });
        if (c == candidates.end() || c->id != id) return;
        SpaceHistoryRow& row = rows.back();
        forEachTilePart(row.state, row.tile_bytes, c->address, c->size,
                        [&](size_t tile, uint64_t part) { row.tiles[tile].dying_bytes += part; });
    };
    const uint32_t last =
        r.dying ? std::min<uint32_t>(r.to + 1, static_cast<uint32_t>(h.gcCount() - 1)) : r.to;
    Status s =
        r.dying ? h.forEachHeap(r.from, last, on_heap, on_death) : h.forEachHeap(r.from, last, on_heap);
    if (!failure) return failure.error();
    if (!s) return s.error();
    if (progress.cancelled()) return std::vector<SpaceHistoryRow>{};
    return rows;
}

std::string largestSpaceAt(const HeapHistory& h, uint32_t gc) {
    std::string name;
    uint64_t largest = 0;
    if (const GcSpacesEvent* e = h.spacesAt(gc))
        for (const SpaceState& s : e->spaces)
            if (s.capacity() > largest) {
                largest = s.capacity();
                name = spaceName(h.trace().symbols(), s.space);
            }
    return name;
}

const GcSpacesEvent* widestSpaces(const HeapHistory& h, std::span<const uint32_t> gcs) {
    const GcSpacesEvent* widest = nullptr;
    uint64_t most = 0;
    for (uint32_t g : gcs)
        if (const GcSpacesEvent* e = h.spacesAt(g)) {
            uint64_t capacity = 0;
            for (const SpaceState& s : e->spaces)
                capacity += s.capacity();
            if (capacity > most) most = capacity, widest = e;
        }
    return widest;
}

std::vector<SpaceHistoryRow> spaceExtents(const HeapHistory& h, const std::string& space,
                                          std::span<const uint32_t> gcs) {
    std::vector<SpaceHistoryRow> rows;
    for (uint32_t g : gcs)
        if (const GcSpacesEvent* e = h.spacesAt(g))
            for (const SpaceState& s : e->spaces)
                if (spaceName(h.trace().symbols(), s.space) == space) rows.push_back(extentRow(h, g, s));
    return rows;
}

uint64_t fittingTileBytes(const GcSpacesEvent& spaces, double area_w, double area_h, double tile_px,
                          double header_px) {
    const auto per_row = static_cast<uint64_t>(std::max(1.0, std::floor(area_w / tile_px)));
    for (uint64_t tile = 512;; tile *= 2) {
        double height = 0;
        for (const SpaceState& s : spaces.spaces) {
            const uint64_t tiles = std::max<uint64_t>(1, (s.capacity() + tile - 1) / tile);
            height += header_px + static_cast<double>((tiles + per_row - 1) / per_row) * tile_px;
        }
        if (height <= area_h || tile >= (uint64_t{1} << 40)) return tile;
    }
}

}  // namespace memcity
