#include "heap/heap_state.h"

namespace memcity {

HeapState::HeapState(const HeapView& view)
    : watermarks_(view.watermarks().begin(), view.watermarks().end()),
      gc_(view.gc()),
      shapes_(&view.shapes()),
      symbols_(&view.symbols()),
      alignment_(view.alignment()),
      live_objects_(view.liveObjects()),
      live_bytes_(view.liveBytes()),
      sampling_(view.sampling()),
      calibration_(view.calibration()) {
    const ObjectStore& src = view.store();
    store_.ids.lo.reserve(view.liveObjects());
    store_.shape.reserve(view.liveObjects());
    store_.length16.reserve(view.liveObjects());
    HiCursor cursor(src.ids.runs);
    for (size_t pos = 0; pos < view.positions(); ++pos) {
        uint32_t hi = cursor.hiAt(pos);
        if (!view.alive(pos)) continue;
        uint64_t id = uint64_t{hi} << 32 | src.ids.lo[pos];
        store_.ids.push(id);
        store_.shape.push_back(src.shape[pos]);
        uint16_t l = src.length16[pos];
        store_.length16.push_back(l);
        // arrayLength() reads 0 where a broken trace left no side-table entry: no throw here.
        if (l == ObjectStore::kLongLength) store_.long_lengths[id] = src.arrayLength(pos);
        if (!src.explicit_sizes.empty()) {
            auto it = src.explicit_sizes.find(id);
            if (it != src.explicit_sizes.end()) store_.explicit_sizes[id] = it->second;
        }
    }
    store_.normalize([](size_t) {});  // already sorted: marks the whole store as sorted
}

}  // namespace memcity
