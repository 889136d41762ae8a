#include "explore/heap_map_model.h"

#include <algorithm>
#include <chrono>

#include "scene/estimates.h"
#include "scene/palette.h"
#include "scene/views.h"

namespace memcity::explore {
namespace {

constexpr uint64_t kMinTile = 64;
constexpr uint64_t kMaxTile = uint64_t{1} << 40;
constexpr double kHeaderPx = 18.0;  // a space's line above its tiles (as the scene draws it)

}  // namespace

struct HeapMapModel::Pending {
    std::mutex mutex;
    struct Built {
        MapKey key;
        Result<HeapMap> map;
        std::shared_ptr<const PlacedHeap> placed;
        BuildTimes times;
    };
    std::vector<Built> maps;
    std::optional<TileGroups> groups;
    std::optional<std::pair<HistoryKey, Result<std::vector<SpaceHistoryRow>>>> history;
};

HeapMapModel::HeapMapModel(unsigned threads, std::function<void()> wake, scene::MeasureText measure)
    : threads_(threads),
      wake_(std::move(wake)),
      measure_(std::move(measure)),
      pending_(std::make_shared<Pending>()),
      map_worker_(std::make_unique<Worker>("memcity heapmap")),
      tile_worker_(std::make_unique<Worker>("memcity tile")),
      history_worker_(std::make_unique<Worker>("memcity history")) {}

HeapMapModel::~HeapMapModel() {
    map_worker_.reset();
    tile_worker_.reset();
    history_worker_.reset();
}

void HeapMapModel::reset() {
    for (Worker* w : {map_worker_.get(), tile_worker_.get(), history_worker_.get()}) {
        w->cancel();
        w->waitIdle();
    }
    pending_ = std::make_shared<Pending>();
    scene_.reset();
    scene_key_ = {};
    fitted_ = 0;
    maps_.clear();
    placed_.clear();
    asked_.clear();
    shown_.reset();
    error_.clear();
    groups_.reset();
    chain_.reset();
    last_build_.reset();
    failed_.reset();
    history_asked_.reset();
    history_key_.reset();
    history_rows_.clear();
    scene_has_history_ = false;
    sampled_ = false;
}

void HeapMapModel::setStream(scene::HeapStream stream) {
    stream_ = stream;
}

std::string_view HeapMapModel::streamUnavailable(scene::HeapStream stream, bool sampled) {
    return sampled && stream != scene::HeapStream::kUsed ? scene::kNoAddressesReason : std::string_view();
}

void HeapMapModel::setZoom(int zoom) {
    zoom_ = std::clamp(zoom, -kMaxZoom, kMaxZoom);
}

uint64_t HeapMapModel::tileBytes() const {
    if (fitted_ == 0) return 0;
    uint64_t tile = fitted_;
    for (int z = 0; z < zoom_ && tile > kMinTile; ++z)
        tile /= 2;
    for (int z = 0; z > zoom_ && tile < kMaxTile; --z)
        tile *= 2;
    return tile;
}

void HeapMapModel::setHistorySpace(std::string name) {
    space_ = std::move(name);
}

std::vector<std::string> HeapMapModel::spaceNames(const HeapHistory& history) const {
    std::vector<std::string> names;
    const SymbolTable& symbols = history.trace().symbols();
    for (uint32_t id = 1; id <= symbols.counts().spaces; ++id)
        names.emplace_back(symbols.space(id).name);
    if (!history.regions().empty()) names.push_back(spaceName(symbols, kG1HeapSpace));
    return names;
}

void HeapMapModel::prepareScene(const HeapHistory& h, const std::string& title, const HeapMapFrame& frame,
                                glm::vec2 size) {
    sampled_ = h.sampled();
    const std::string space = space_.empty() ? largestSpaceAt(h, frame.gc) : space_;
    SceneKey key{size, drawnStream(), space, title, frame.held, top_px_};
    if (scene_ && key == scene_key_) return;
    const bool resized =
        !scene_ || scene_key_.size != size || scene_key_.held != frame.held || scene_key_.top_px != top_px_;
    scene_key_ = key;
    scene::HeapMapInputs in;
    in.title = title;
    in.gcs = h.gcs();
    in.history_space = space;
    in.history = spaceExtents(h, space, frame.held);
    in.sampled = h.sampled();
    scene::HeapMapViewOptions vo;
    vo.stream = drawnStream();
    vo.measure = measure_;
    vo.title_bar = top_px_ < 0;
    vo.top_px = std::max(top_px_, 0.0f);
    scene_.emplace(std::move(in), vo, size);
    scene_has_history_ = false;
    if (!resized) return;
    // The tile size that fits the held GC with the most capacity; without spaces, the first map's
    // objects' range decides (the map worker fits it).
    const GcSpacesEvent* widest = widestSpaces(h, frame.held);
    const scene::PixelRect bands = scene_->bandsRect();
    fitted_ = widest ? fittingTileBytes(*widest, bands.width(), bands.height(), vo.tile_px, kHeaderPx) : 0;
}

HeapMapModel::MapKey HeapMapModel::keyFor(uint32_t gc, const HeapMapFrame& frame) const {
    MapKey key;
    key.gc = gc;
    key.tile_bytes = tileBytes();
    key.dying = drawnStream() == scene::HeapStream::kDying;
    if (frame.chain && !frame.selected.empty() && !sampled_) {
        key.selected = frame.selected;
        key.chain = frame.chain;
    }
    return key;
}

std::shared_ptr<const HeapMap> HeapMapModel::cached(const MapKey& key) const {
    auto it = maps_.find(key.gc);
    return it != maps_.end() && it->second.first == key ? it->second.second : nullptr;
}

void HeapMapModel::request(const HeapHistory& h, std::vector<MapKey> keys) {
    if (keys == asked_) return;
    asked_ = keys;
    std::erase_if(keys, [&](const MapKey& k) { return cached(k) != nullptr; });
    if (keys.empty()) {
        map_worker_->cancel();
        return;
    }
    // The placed heaps the worker may reuse (another tile size or selection of the same GC).
    std::map<uint32_t, std::shared_ptr<const PlacedHeap>> placed = placed_;
    const scene::PixelRect bands = scene_->bandsRect();
    const double tile_px = scene_->options().tile_px;
    std::shared_ptr<Pending> pending = pending_;
    const HeapHistory* history = &h;
    const unsigned threads = threads_;
    auto wake = wake_;
    map_worker_->submit([=](const CancelToken& token) {
        for (const MapKey& key : keys) {
            if (token.cancelled()) return;
            Pending::Built built{key, HeapMap{}, nullptr, {key.gc, 0, 0}};
            const auto t0 = std::chrono::steady_clock::now();
            auto since = [](std::chrono::steady_clock::time_point t) {
                return std::chrono::duration<double, std::milli>(std::chrono::steady_clock::now() - t)
                    .count();
            };
            if (!history->gcs()[key.gc].has_addresses) {
                const GcSpacesEvent* spaces = history->spacesAt(key.gc);
                const std::optional<GcRegionsEvent> regions = regionTableAt(*history, key.gc);
                if (spaces && key.tile_bytes)
                    built.map = spacesOnlyMap(key.gc, *spaces, history->trace().symbols(), key.tile_bytes,
                                              regions ? &*regions : nullptr);
                else if (history->sampled())
                    built.map = Error{std::string(scene::kNoAddressesReason) + ", and GC " +
                                      std::to_string(key.gc) + " has no collector's spaces: nothing to map"};
                else
                    built.map = Error{"GC " + std::to_string(key.gc) +
                                      " has neither the collector's spaces nor the objects' addresses" +
                                      (history->spaces().empty() && history->addresses().empty()
                                           ? " (" + noLayoutReason(*history) + ")"
                                           : std::string())};
            } else {
                if (auto it = placed.find(key.gc); it != placed.end()) {
                    built.placed = it->second;
                } else if (auto p = placedHeapAt(*history, key.gc, threads); p) {
                    built.placed = *p;
                } else {
                    built.map = p.error();
                }
                built.times.place_ms = since(t0);
                if (built.placed) {
                    const auto t1 = std::chrono::steady_clock::now();
                    HeapMapRequest r;
                    r.gc = key.gc;
                    r.tile_bytes = key.tile_bytes ? key.tile_bytes : 64 << 10;
                    r.chain = key.chain.get();
                    r.selected = key.selected;
                    r.dying = key.dying;
                    r.threads = threads;
                    if (!key.tile_bytes) {
                        // No spaces: the tiles that fit this GC's objects' range.
                        HeapMapRequest probe = r;
                        probe.chain = nullptr;
                        probe.dying = false;
                        if (auto m = heapMapOf(*history, *built.placed, probe)) {
                            GcSpacesEvent range;
                            for (const SpaceMap& s : m->spaces)
                                range.spaces.push_back(s.state);
                            r.tile_bytes =
                                fittingTileBytes(range, bands.width(), bands.height(), tile_px, kHeaderPx);
                        }
                    }
                    built.map = heapMapOf(*history, *built.placed, r);
                    built.times.map_ms = since(t1);
                }
            }
            // Handed over even when a newer request came meanwhile: while playing, the GC after
            // the cursor is in the next request too, and a map dropped there might never land.
            {
                std::lock_guard lock(pending->mutex);
                pending->maps.push_back(std::move(built));
            }
            if (wake) wake();
        }
    });
}

void HeapMapModel::requestHistory(const HeapHistory& h, const HeapMapFrame& frame) {
    if (scene_key_.space.empty() || scene_key_.held.empty()) return;
    // The fitted tile size whatever the zoom: the graph bins tiles into pixel rows anyway.
    HistoryKey key{scene_key_.space, scene_key_.held.front(), scene_key_.held.back(), fitted_, false, {}, {}};
    key.dying = drawnStream() == scene::HeapStream::kDying;
    if (drawnStream() == scene::HeapStream::kSelected && frame.chain && !frame.selected.empty()) {
        key.selected = frame.selected;
        key.chain = frame.chain;
    }
    if (fitted_ == 0) return;
    if (history_key_ && history_key_->covers(key)) {
        if (!scene_has_history_) {
            scene_->setHistory(history_rows_);
            scene_has_history_ = true;
        }
        return;
    }
    if (history_asked_ && history_asked_->covers(key)) return;
    history_asked_ = key;
    std::shared_ptr<Pending> pending = pending_;
    const HeapHistory* history = &h;
    auto wake = wake_;
    const std::vector<uint32_t> held = scene_key_.held;
    history_worker_->submit([=](const CancelToken& token) {
        SpaceHistoryRequest request;
        request.space = key.space;
        request.from = key.from;
        request.to = key.to;
        request.tile_bytes = key.tile_bytes;
        request.chain = key.chain.get();
        request.selected = key.selected;
        request.dying = key.dying;
        auto rows = spaceHistory(*history, request, token);
        if (rows)  // the series' GCs only (a sparse one holds some)
            std::erase_if(*rows, [&](const SpaceHistoryRow& r) {
                return !std::binary_search(held.begin(), held.end(), r.gc);
            });
        if (token.cancelled()) return;
        {
            std::lock_guard lock(pending->mutex);
            pending->history.emplace(key, std::move(rows));
        }
        if (wake) wake();
    });
}

bool HeapMapModel::update() {
    std::vector<Pending::Built> maps;
    std::optional<TileGroups> groups;
    std::optional<std::pair<HistoryKey, Result<std::vector<SpaceHistoryRow>>>> history;
    {
        std::lock_guard lock(pending_->mutex);
        maps.swap(pending_->maps);
        groups.swap(pending_->groups);
        history.swap(pending_->history);
    }
    if (groups) groups_ = std::move(groups);
    bool changed = false;
    if (history && history->first == history_asked_) {
        // A failure leaves the extents (the error shows with the maps' own).
        if (history->second) {
            history_rows_ = std::move(*history->second);
            history_key_ = history->first;
            scene_has_history_ = false;  // set at the next frame
            changed = true;
        } else {
            error_ = "the history graph: " + history->second.error().message;
        }
    }
    for (Pending::Built& b : maps) {
        changed = true;
        if (!b.map) {
            error_ = b.map.error().message;
            failed_ = std::move(b.key);
            continue;
        }
        error_.clear();
        failed_.reset();
        last_build_ = b.times;
        MapKey key = std::move(b.key);
        if (key.tile_bytes == 0) {
            // The first map of a trace without spaces fixed the tile size; a zoom asks for
            // another map at the next frame.
            fitted_ = b.map->tile_bytes;
            key.tile_bytes = b.map->tile_bytes;
        }
        if (b.placed) placed_[key.gc] = b.placed;
        maps_[key.gc] = {std::move(key), std::make_shared<const HeapMap>(std::move(*b.map))};
    }
    // Keep what the frame asked for, and a little more for stepping back and forth.
    auto wanted = [&](uint32_t gc) {
        return std::any_of(asked_.begin(), asked_.end(), [&](const MapKey& k) { return k.gc == gc; });
    };
    while (maps_.size() > 4) {
        auto it = std::find_if(maps_.begin(), maps_.end(), [&](const auto& e) { return !wanted(e.first); });
        if (it == maps_.end()) break;
        maps_.erase(it);
    }
    while (placed_.size() > 2) {
        auto it =
            std::find_if(placed_.begin(), placed_.end(), [&](const auto& e) { return !wanted(e.first); });
        if (it == placed_.end()) break;
        placed_.erase(it);
    }
    return changed || groups_.has_value();
}

bool HeapMapModel::idle() const {
    std::lock_guard lock(pending_->mutex);
    return map_worker_->idle() && tile_worker_->idle() && history_worker_->idle() && pending_->maps.empty() &&
           !pending_->groups && !pending_->history;
}

void HeapMapModel::compose(const HeapHistory& h, const std::string& title, const HeapMapFrame& frame,
                           scene::PixelRect rect, glm::vec2 framebuffer, render::DrawList& out) {
    rect_ = rect;
    chain_ = frame.chain;
    if (rect.empty() || frame.gc >= h.gcCount()) return;
    prepareScene(h, title, frame, glm::vec2(rect.width(), rect.height()));
    requestHistory(h, frame);
    const bool tween = frame.fraction > 0 && frame.next_gc != frame.gc && frame.next_gc < h.gcCount();
    std::vector<MapKey> keys{keyFor(frame.gc, frame)};
    if (tween) keys.push_back(keyFor(frame.next_gc, frame));
    request(h, keys);

    std::shared_ptr<const HeapMap> map = cached(keys[0]);
    // The GC's map of other options, else the last one drawn, until the new one is in; none
    // where this GC's failed, so that its error shows and not another GC's map.
    const bool failed = !map && failed_ == keys[0];
    if (!map && !failed) map = maps_.count(frame.gc) ? maps_.at(frame.gc).second : shown_;
    const std::shared_ptr<const HeapMap> next = tween ? cached(keys[1]) : nullptr;
    if (!map) {
        out.clear_color = scene::palette::kBackground;
        const std::string text =
            error_.empty() ? "building the heap map of GC " + std::to_string(frame.gc) + " ..." : error_;
        out.labels.push_back({rect.center() - rect.min, text,
                              error_.empty() ? scene::palette::kTextDim : render::rgba(255, 115, 90), 15.0f,
                              render::TextAnchor::kCenter});
    } else {
        shown_ = map;
        scene_->compose(*map, next.get(), next ? frame.fraction : 0.0, out);
    }
    scene::placeInRect(out, rect, framebuffer);
}

std::optional<scene::HeapTilePick> HeapMapModel::pick(glm::vec2 pixel) const {
    if (!scene_ || !shown_ || !rect_.contains(pixel)) return std::nullopt;
    return scene_->pick(pixel - rect_.min);
}

void HeapMapModel::setHovered(std::optional<scene::HeapTilePick> tile) {
    if (scene_) scene_->setHovered(tile);
}

std::optional<HeapTileInfo> HeapMapModel::describe(const scene::HeapTilePick& pick,
                                                   const SymbolTable& symbols) const {
    if (!shown_ || pick.space >= shown_->spaces.size() ||
        pick.tile >= shown_->spaces[pick.space].tiles.size())
        return std::nullopt;
    const SpaceMap& s = shown_->spaces[pick.space];
    HeapTileInfo info;
    info.gc = shown_->gc;
    info.space = s.name;
    info.from = pick.from;
    info.to = pick.to;
    info.tile = s.tiles[pick.tile];
    info.addresses = shown_->addresses;
    if (auto it = placed_.find(shown_->gc); it != placed_.end()) {
        info.contents = rangeContents(*it->second, pick.from, pick.to);
        for (const RangeType& t : info.contents.types)
            info.type_names.emplace_back(symbols.type(t.type).name);
    }
    return info;
}

void HeapMapModel::requestGroups(const HeapHistory& h, const scene::HeapTilePick& tile, bool add) {
    auto it = shown_ ? placed_.find(shown_->gc) : placed_.end();
    if (h.sampled()) {
        groups_ =
            TileGroups{{}, add, std::string(scene::kNoAddressesReason) + ": a tile's objects are not known"};
        return;
    }
    if (it == placed_.end()) {
        groups_ =
            TileGroups{{},
                       add,
                       shown_ ? "GC " + std::to_string(shown_->gc) + " has no addresses: no objects to select"
                              : "no heap map yet"};
        return;
    }
    std::shared_ptr<const PlacedHeap> placed = it->second;
    std::shared_ptr<const ClassifierChain> chain = chain_;
    if (!chain) {
        groups_ = TileGroups{{}, add, "no classifier chain yet"};
        return;
    }
    std::shared_ptr<Pending> pending = pending_;
    const HeapHistory* history = &h;
    const unsigned threads = threads_;
    auto wake = wake_;
    tile_worker_->submit([=](const CancelToken& token) {
        auto groups = groupsInRange(*history, *placed, *chain, tile.from, tile.to, threads);
        if (token.cancelled()) return;
        TileGroups result;
        result.add = add;
        if (groups)
            result.groups = std::move(*groups);
        else
            result.error = groups.error().message;
        {
            std::lock_guard lock(pending->mutex);
            pending->groups = std::move(result);
        }
        if (wake) wake();
    });
}

std::optional<HeapMapModel::TileGroups> HeapMapModel::takeGroups() {
    return std::exchange(groups_, std::nullopt);
}

}  // namespace memcity::explore
