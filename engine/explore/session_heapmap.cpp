// Session, its heap map (view kHeapMap): the frame HeapMapModel draws, and a tile's groups
// selected once they are classified in the background.
#include <algorithm>

#include "explore/session.h"
#include "explore/session_pending.h"

namespace memcity::explore {

HeapMapFrame Session::heapMapFrame() const {
    HeapMapFrame f;
    f.gc = cursor_.gcBefore();
    f.next_gc = cursor_.gcAfter();
    f.fraction = cursor_.fraction();
    f.held = cursor_.gcs();
    f.chain = series_chain_;
    for (uint32_t id : selection_)
        for (uint32_t node : nodesOf(id))
            f.selected.push_back(labelsOf(node));
    return f;
}

std::optional<scene::HeapTilePick> Session::heapTileAt(glm::vec2 pixel) const {
    if (view_ != scene::ViewKind::kHeapMap) return std::nullopt;
    return heap_map_->pick(pixel);
}

void Session::selectTile(const scene::HeapTilePick& tile, bool add) {
    if (const HeapHistory* h = history()) heap_map_->requestGroups(*h, tile, add);
}

void Session::adoptTileGroups(HeapMapModel::TileGroups groups) {
    if (!groups.error.empty()) {
        notice_ = groups.error;
        return;
    }
    if (!series_) return;
    if (groups.groups.empty()) {
        notice_ = "no object starts in that tile";
        return;
    }
    // The largest groups the series holds (a series over a window may lack one of the GC's).
    std::vector<uint32_t> ids;
    for (const RangeGroup& g : groups.groups)
        if (const uint32_t id = series_->find(g.labels); id != kNoNode && ids.size() < kTileGroups)
            ids.push_back(id);
    if (!groups.add) selection_.clear();
    for (uint32_t id : ids)
        if (std::find(selection_.begin(), selection_.end(), id) == selection_.end()) selection_.push_back(id);
    const size_t n = groups.groups.size();
    notice_ = ids.size() == n
                  ? "selected the tile's " + std::to_string(n) + (n == 1 ? " group" : " groups")
                  : "selected " + std::to_string(ids.size()) + " of the tile's " + std::to_string(n) +
                        " groups (the largest, at most " + std::to_string(kTileGroups) + ")";
    requestInspection();
}

}  // namespace memcity::explore
