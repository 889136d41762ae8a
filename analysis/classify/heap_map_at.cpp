#include "classify/heap_map_at.h"

#include <algorithm>
#include <cmath>

#include "classify/tree.h"
#include "graph/heap_graph.h"

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

}  // namespace

Result<HeapMap> heapMapAt(const HeapHistory& h, const HeapMapRequest& r) {
    if (r.gc >= h.gcCount()) return Error{h.gcRangeError(r.gc)};
    const GcSpacesEvent* spaces = h.spacesAt(r.gc);
    if (!h.gcs()[r.gc].has_addresses) {
        if (!spaces)
            return Error{h.trace().path() + ": GC " + std::to_string(r.gc) +
                         " has neither the collector's spaces nor the objects' addresses"};
        return spacesOnlyMap(r.gc, *spaces, h.trace().symbols(), r.tile_bytes);
    }
    auto heap = h.heapAt(r.gc);
    if (!heap) return heap.error();
    auto addresses = h.addressesFor(*heap);
    if (!addresses) return addresses.error();
    HeapMapOptions o;
    o.tile_bytes = r.tile_bytes;
    std::optional<Bitset> selected, dying;
    if (r.chain && !r.selected.empty()) {
        std::unique_ptr<HeapGraph> graph;
        HeapView view = heap->view();
        if (r.chain->needsReferences()) {
            auto g = loadGraph(h, *heap);
            if (!g) return g.error();
            graph = std::move(*g);
            view = view.withGraph(graph.get());
        }
        TreeOptions to;
        to.threads = r.threads;
        const ClassificationTree tree = ClassificationTree::build(view, *r.chain, to);
        std::vector<uint32_t> nodes;
        for (const auto& path : r.selected)
            if (const uint32_t id = tree.find(path); id != kNoNode) nodes.push_back(id);
        selected.emplace(view.positions());
        if (!nodes.empty())
            for (const Bitset& m : tree.members(view, nodes, to))
                *selected |= m;
        o.selected = &*selected;
    }
    if (r.dying) {
        auto d = dyingAfter(h, *heap);
        if (!d) return d.error();
        dying = std::move(*d);
        o.dying = &*dying;
    }
    return buildHeapMap(heap->view(), *addresses, spaces, h.trace().symbols(), o);
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
