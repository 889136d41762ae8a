// Session, its view and camera: the view kind, the sunburst's and icicle's extent, the timeline
// trees' pins, the frame composed for the window, picking, the city's camera and the tooltip.
#include <algorithm>
#include <cmath>
#include <filesystem>

#include "explore/session.h"
#include "explore/session_pending.h"
#include "scene/city_state.h"
#include "scene/estimates.h"

namespace memcity::explore {

void Session::setView(scene::ViewKind kind) {
    if (kind == view_) return;
    if (composer_ && view_ == scene::ViewKind::kCity) user_camera_ = composer_->camera();
    view_ = kind;
    composer_.reset();
    hovered_ = scene::kNoPick;
}

void Session::setScaled(bool scaled) {
    if (scaled == this->scaled()) return;
    (view_ == scene::ViewKind::kTimelineTrees ? trees_scaled_ : scaled_) = scaled;
    if (view_ != scene::ViewKind::kCity) composer_.reset();
}

void Session::setTreesCities(bool cities) {
    if (cities == trees_cities_) return;
    trees_cities_ = cities;
    if (view_ == scene::ViewKind::kTimelineTrees) invalidateView();
}

bool Session::pin(uint32_t gc) {
    if (!series_ || !std::binary_search(series_->gcs().begin(), series_->gcs().end(), gc)) return false;
    auto it = std::lower_bound(pins_.begin(), pins_.end(), gc);
    if (it != pins_.end() && *it == gc) return false;
    pins_.insert(it, gc);
    if (composer_) composer_->setPins(pins_);
    return true;
}

bool Session::unpin(uint32_t gc) {
    auto it = std::lower_bound(pins_.begin(), pins_.end(), gc);
    if (it == pins_.end() || *it != gc) return false;
    pins_.erase(it);
    if (composer_) composer_->setPins(pins_);
    return true;
}

void Session::togglePin(double gc_time) {
    if (!series_ || series_->gcCount() == 0) return;
    const std::vector<uint32_t>& held = series_->gcs();
    auto it = std::lower_bound(held.begin(), held.end(), gc_time);  // the nearest held GC
    if (it == held.end() || (it != held.begin() && gc_time - *(it - 1) < *it - gc_time)) --it;
    if (!unpin(*it)) pin(*it);
}

const PruneOptions& Session::viewPrune() const {
    static const scene::ViewOptions kDefaults;
    if (view_ != scene::ViewKind::kCity) return chain_.prune;
    return composer_ ? composer_->options().city_prune : kDefaults.city_prune;
}

scene::ViewFrameStats Session::compose(scene::PixelRect rect, glm::vec2 framebuffer, render::DrawList& out) {
    out.clear();
    view_rect_ = rect;
    framebuffer_ = framebuffer;
    if (!series_ || rect.empty()) return {};
    if (view_ == scene::ViewKind::kHeapMap) {
        if (const HeapHistory* h = history())
            heap_map_->compose(*h, std::filesystem::path(path_).filename().string(), heapMapFrame(), rect,
                               framebuffer, out);
        return {};
    }
    const glm::vec2 size(rect.width(), rect.height());
    if (!composer_) {
        scene::ViewInputs in;
        in.series = series_.get();
        in.sampling_interval = samplingInterval();
        scene::ViewOptions vo;
        vo.kind = view_;
        vo.metric = chain_.metric;
        vo.sort = chain_.sort;
        vo.prune = chain_.prune;
        vo.city_prune.enabled = chain_.prune.enabled;
        vo.scale = scaled() ? scene::RadialScale::kScaled : scene::RadialScale::kUnscaled;
        vo.pins = pins_;
        vo.trees_cities = trees_cities_;
        vo.title_bar = false;
        vo.time_strip = false;
        vo.measure = options_.measure;
        auto c = scene::ViewComposer::prepare(in, vo, size);
        if (!c) return {};
        composer_.emplace(std::move(*c));
        if (user_camera_ && view_ == scene::ViewKind::kCity) {
            composer_->camera() = *user_camera_;
            composer_->resize(size);
        }
    } else if (composer_->size() != size) {
        composer_->resize(size);
    }
    std::vector<uint32_t> selected = selection_;
    composer_->setSelected(std::move(selected));
    composer_->setHovered(hovered_);
    composer_->setHighlighted(dominators_shown_ ? dominator_highlight_ : std::vector<uint32_t>{});
    composer_->setDrillRoot(drill_root_);
    composer_->setDiff(diff_shown_ ? diff_->laid() : nullptr);
    const scene::ViewFrameStats stats = composer_->compose(cursor_.t(), out);
    scene::placeInRect(out, rect, framebuffer);
    return stats;
}

std::optional<scene::ViewPick> Session::pick(glm::vec2 pixel) const {
    if (!composer_ || !view_rect_.contains(pixel)) return std::nullopt;
    return composer_->pick(pixel - view_rect_.min);
}

scene::OrbitCamera* Session::camera() {
    if (!composer_ || view_ != scene::ViewKind::kCity) return nullptr;
    return &composer_->camera();
}

Status Session::resetCamera(std::string_view preset) {
    if (!composer_ || view_ != scene::ViewKind::kCity) {
        // Checked against a unit box so an unknown name fails the same way without a city.
        auto c = scene::cameraPreset(preset, scene::Bounds{glm::vec3(0.0f), glm::vec3(1.0f)}, 1.0f);
        if (!c) return c.error();
        user_camera_.reset();
        return {};
    }
    Status st = composer_->resetCamera(preset);
    if (st) user_camera_ = composer_->camera();
    return st;
}

const scene::CityLayout* Session::cityLayout() const {
    return composer_ && view_ == scene::ViewKind::kCity ? &composer_->cityLayout() : nullptr;
}

scene::Bounds Session::cityBounds() const {
    return composer_ && view_ == scene::ViewKind::kCity ? composer_->cityLayout().bounds : scene::Bounds{};
}

bool Session::frameSelection() {
    if (!composer_ || view_ != scene::ViewKind::kCity) return false;
    const scene::CityLayout& layout = composer_->cityLayout();
    const scene::CityState& state = composer_->cityState();
    if (state.buildings.size() != layout.buildings.size()) return false;
    std::optional<scene::Bounds> box;
    auto grow = [&box](const scene::Bounds& b) {
        if (!box) {
            box = b;
        } else {
            box->min = glm::min(box->min, b.min);
            box->max = glm::max(box->max, b.max);
        }
    };
    for (uint32_t id : selection_) {
        if (const uint32_t b = layout.findBuilding(id); b != scene::kNoIndex) {
            scene::Bounds bounds = scene::buildingBounds(layout, state, b);
            bounds.max.y = std::max(bounds.max.y, bounds.min.y + 1.0f);
            grow(bounds);
        } else if (const uint32_t d = layout.findDistrict(id); d != scene::kNoIndex) {
            const scene::CityDistrict& c = layout.districts[d];
            grow(scene::Bounds{{c.x0, c.y0, c.z0}, {c.x1, c.y1 + 1.0f, c.z1}});
        }
    }
    if (!box) return false;
    scene::OrbitCamera& cam = composer_->camera();
    cam.target = (box->min + box->max) * 0.5f;
    cam.frame(*box, 1.3f);
    cam.fitClipPlanes(layout.bounds);
    user_camera_ = cam;
    return true;
}

ItemInfo Session::describe(uint32_t id) const {
    ItemInfo info;
    info.id = id;
    if (!series_) return info;
    info.name = nameOf(id);
    const double gc_time = cursor_.gcTime();
    const std::vector<uint32_t> nodes = nodesOf(id);
    info.objects = series_->sumAt(nodes, gc_time, Metric::kObjects);
    info.bytes = series_->sumAt(nodes, gc_time, Metric::kBytes);
    // The views colour growth over the last quarter of the series (scene::ViewOptions::trend_window).
    const double back = std::max(1.0, std::round(cursor_.maxT() * scene::ViewOptions{}.trend_window));
    const double from = scene::TimeCursor::gcTimeOf(cursor_.gcs(), std::max(0.0, cursor_.t() - back));
    info.growth = series_->sumAt(nodes, gc_time, chain_.metric) - series_->sumAt(nodes, from, chain_.metric);
    info.district = !scene::isOtherId(id) && id < series_->size() && !series_->node(id).children.empty();
    if (series_->sampled()) info.sampled = scene::sampledSumAt(*series_, nodes, gc_time);
    return info;
}

}  // namespace memcity::explore
