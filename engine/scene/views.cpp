#include "scene/views.h"

#include <algorithm>
#include <cmath>
#include <cstdio>

#include <glm/gtc/matrix_transform.hpp>

#include "scene/estimates.h"
#include "scene/palette.h"
#include "util/units.h"

namespace memcity::scene {
namespace {

constexpr float kTitleBarPx = 30.0f;
constexpr float kTitleTextPx = 15.0f;

std::string formatValue(double v, Metric metric) {
    char buf[64];
    if (metric == Metric::kObjects) {
        std::snprintf(buf, sizeof buf, "%.0f objects", v);
        return buf;
    }
    return formatAxisBytes(v);
}

// A projection that draws what `projection` shows for the whole framebuffer into `rect` instead
// (OpenGL clip conventions, y up in clip space, pixels y down).
glm::mat4 intoRect(const glm::mat4& projection, PixelRect rect, glm::vec2 size) {
    glm::mat4 m(1.0f);
    m[0][0] = rect.width() / size.x;
    m[1][1] = rect.height() / size.y;
    m[3][0] = (rect.min.x + rect.max.x) / size.x - 1.0f;
    m[3][1] = 1.0f - (rect.min.y + rect.max.y) / size.y;
    return m * projection;
}

std::string trendTitle(double gcs) {
    char buf[64];
    std::snprintf(buf, sizeof buf, "growth over the last %.0f GC%s", gcs, gcs == 1.0 ? "" : "s");
    return buf;
}

}  // namespace

namespace {

constexpr ViewInfo kViews[] = {
    {.kind = ViewKind::kCity, .name = "city", .label = "city", .tooltip = {}, .diff = true},
    {.kind = ViewKind::kSunburst, .name = "sunburst", .label = "sunburst", .tooltip = {}, .diff = true},
    {.kind = ViewKind::kIcicle, .name = "icicle", .label = "icicle", .tooltip = {}, .diff = true},
    {.kind = ViewKind::kTimeline, .name = "timeline", .label = "timeline", .tooltip = {}, .window = false},
    {.kind = ViewKind::kTimelineTrees,
     .name = "timeline-trees",
     .label = "trees",
     .tooltip = "a tree per pinned GC (right-click the timeline to pin one)"},
    {.kind = ViewKind::kHeapMap,
     .name = "heapmap",
     .label = "heap map",
     .tooltip = "GCspy's heap map: the collector's spaces as tiles in address order",
     .composed = false},
};

}  // namespace

std::span<const ViewInfo> viewTable() {
    return kViews;
}

const ViewInfo& viewInfo(ViewKind kind) {
    for (const ViewInfo& v : kViews)
        if (v.kind == kind) return v;
    return kViews[0];  // (every ViewKind has a row: test_views checks it)
}

std::string_view viewKindName(ViewKind kind) {
    return viewInfo(kind).name;
}

std::string viewNames(bool window_only, std::string_view separator, std::string_view last) {
    std::vector<std::string_view> names;
    for (const ViewInfo& v : kViews)
        if (v.window || !window_only) names.push_back(v.name);
    std::string out;
    for (size_t i = 0; i < names.size(); ++i) {
        if (i > 0) out += i + 1 == names.size() ? last : separator;
        out += names[i];
    }
    return out;
}

Result<ViewKind> parseViewKind(std::string_view name) {
    for (const ViewInfo& v : kViews)
        if (name == v.name) return v.kind;
    return Error{"unknown view '" + printable(name, 40) + "' (expected " + viewNames(false, ", ", " or ") +
                 ")"};
}

Result<ViewComposer> ViewComposer::prepare(const ViewInputs& inputs, const ViewOptions& options,
                                           glm::vec2 size) {
    if (!inputs.series) return Error{"no tree series to draw"};
    if (inputs.series->gcCount() == 0) return Error{"the tree series holds no GC"};
    if (size.x < 1 || size.y < 1) return Error{"the picture has no pixels"};
    if (!viewInfo(options.kind).composed) return Error{"the heap map is drawn by a HeapMapScene"};
    ViewComposer c;
    c.inputs_ = inputs;
    c.options_ = options;
    c.size_ = size;
    c.cursor_ = TimeCursor::over(*inputs.series);
    if (options.kind == ViewKind::kCity ||
        (options.kind == ViewKind::kTimelineTrees && options.trees_cities)) {
        CityLayoutOptions lo;
        lo.metric = options.metric;
        lo.sort = options.sort;
        lo.prune = options.city_prune;
        lo.max_depth = std::max<uint32_t>(options.depth, 1);
        auto layout = buildCityLayout(*inputs.series, lo);
        if (!layout) return layout.error();
        c.city_layout_ = std::move(*layout);
    }
    if (options.kind == ViewKind::kCity) {
        const PixelRect rect = c.mainRect();
        auto camera = cameraPreset(options.camera, c.city_layout_.bounds, rect.width() / rect.height());
        if (!camera) return camera.error();
        c.camera_ = *camera;
    }
    return c;
}

double ViewComposer::trendGcs() const {
    return std::max(1.0, std::round(maxT() * options_.trend_window));
}

double ViewComposer::trendFrom(double t) const {
    return std::max(0.0, t - trendGcs());
}

PixelRect ViewComposer::mainRect() const {
    PixelRect r{{0.0f, 0.0f}, size_};
    if (options_.title_bar) r.min.y = std::min(kTitleBarPx, size_.y * 0.5f);
    if (options_.time_strip && options_.kind != ViewKind::kTimeline && !inputs_.gcs.empty())
        r.max.y = std::max(r.min.y + 1.0f, size_.y - std::clamp(size_.y * 0.17f, 60.0f, 150.0f));
    return r;
}

ViewFrameStats ViewComposer::compose(double t, render::DrawList& out) {
    out.clear();
    out.clear_color = palette::kBackground;
    t = std::clamp(t, 0.0, maxT());
    ViewFrameStats stats;
    const PixelRect rect = mainRect();
    switch (options_.kind) {
        case ViewKind::kCity: {
            CityStateOptions so;
            so.trend_from = trendFrom(t);
            so.metric = options_.metric;
            so.diff = options_.diff.get();
            cityAt(city_layout_, *inputs_.series, t, so, city_state_);
            const render::CameraMatrices m = viewMatrices();
            CitySceneOptions co;
            co.selected = options_.selected;
            co.highlighted = options_.highlighted;
            if (hovered_ != kNoPick) co.highlighted.push_back(hovered_);
            co.measure_text = options_.measure;
            co.legend_bottom_inset_px = size_.y - rect.max.y;
            co.legend_title = trendTitle(trendGcs());
            if (options_.diff) {
                co.legend_title = "since GC " + std::to_string(options_.diff->baseGc());
                for (Cohort c : {Cohort::kBorn, Cohort::kDied, Cohort::kPermanent})
                    co.legend_rows.emplace_back(cohortName(c), cohortColor(c));
            }
            stats.city = buildCityDrawList(city_layout_, city_state_, m, size_, co, out);
            break;
        }
        case ViewKind::kSunburst:
        case ViewKind::kIcicle: drawRadial(t, rect, stats, out); break;
        case ViewKind::kTimelineTrees: drawTimelineTrees(t, rect, stats, out); break;
        case ViewKind::kTimeline: {
            TimelineLayoutOptions lo;
            lo.estimates = inputs_.sampling_interval != 0;
            const TimelineLayout layout = layoutTimeline(inputs_.gcs, rect.inset(8.0f), lo);
            TimelineSceneOptions to;
            to.t = TimeCursor::gcTimeOf(inputs_.series->gcs(), t);
            to.range_from = inputs_.series->firstGc();
            to.range_to = inputs_.series->lastGc();
            to.measure = options_.measure;
            buildTimelineScene(layout, inputs_.gcs, inputs_.windows, to, out);
            break;
        }
        case ViewKind::kHeapMap: break;  // (prepare refuses it)
    }
    if (options_.time_strip && options_.kind != ViewKind::kTimeline && !inputs_.gcs.empty())
        drawTimeStrip(t, {{0.0f, rect.max.y}, size_}, out);
    if (options_.title_bar) drawTitle(t, out);
    return stats;
}

render::CameraMatrices ViewComposer::viewMatrices() const {
    render::CameraMatrices m = camera_.matrices();
    m.projection = intoRect(m.projection, mainRect(), size_);
    return m;
}

void ViewComposer::resize(glm::vec2 size) {
    if (size.x < 1 || size.y < 1) return;
    size_ = size;
    const PixelRect rect = mainRect();
    camera_.aspect = rect.width() / std::max(rect.height(), 1.0f);
}

Status ViewComposer::resetCamera(std::string_view preset) {
    const PixelRect rect = mainRect();
    auto camera = cameraPreset(preset, city_layout_.bounds, rect.width() / std::max(rect.height(), 1.0f));
    if (!camera) return camera.error();
    camera_ = *camera;
    options_.camera = std::string(preset);
    return {};
}

std::optional<ViewPick> ViewComposer::pick(glm::vec2 pixel) const {
    if (!mainRect().contains(pixel)) return std::nullopt;
    switch (options_.kind) {
        case ViewKind::kCity: {
            if (city_state_.buildings.size() != city_layout_.buildings.size()) return std::nullopt;
            const auto hit =
                pickCity(city_layout_, city_state_, rayThroughPixel(viewMatrices(), size_, pixel));
            if (!hit || (hit->district && hit->id == TreeSeries::kRoot)) return std::nullopt;
            return ViewPick{hit->id, hit->district, false, RadialView::kLocal};
        }
        case ViewKind::kSunburst:
        case ViewKind::kIcicle:
            for (size_t i = 0; i < radial_scenes_.size(); ++i) {
                const RadialHit hit = pickRadial(radial_scenes_[i], pixel);
                if (hit.item == kNoItem) continue;
                ViewPick p;
                p.id = hit.pick_id;
                p.radial_view = i == 0 ? RadialView::kLocal : RadialView::kGlobal;
                p.drill_root = i == 0 && hit.item == 0;
                return p;
            }
            return std::nullopt;
        case ViewKind::kTimelineTrees:
            if (options_.trees_cities) {
                // The nearest building or plate of any city, the ray moved into each city's place.
                const Ray ray = rayThroughPixel(viewMatrices(), size_, pixel);
                std::optional<ViewPick> best;
                float nearest = 0.0f;
                for (size_t i = 0; i < tree_cities_.size() && i < tree_gcs_.size(); ++i) {
                    Ray local = ray;
                    local.origin -= glm::vec3(pinnedCityOffset(i), 0.0f, 0.0f);
                    const auto hit = pickCity(city_layout_, tree_cities_[i], local);
                    if (!hit || (hit->district && hit->id == TreeSeries::kRoot)) continue;
                    if (best && hit->distance >= nearest) continue;
                    nearest = hit->distance;
                    best = ViewPick{hit->id, hit->district, false, RadialView::kLocal, tree_gcs_[i]};
                }
                return best;
            }
            for (size_t i = 0; i < tree_scenes_.size(); ++i) {
                const RadialHit hit = pickRadial(tree_scenes_[i], pixel);
                if (hit.item == kNoItem) continue;
                ViewPick p;
                p.id = hit.pick_id;
                p.radial_view = RadialView::kGlobal;
                p.tree_gc = tree_gcs_[i];
                return p;
            }
            return std::nullopt;
        case ViewKind::kTimeline:
        case ViewKind::kHeapMap: return std::nullopt;
    }
    return std::nullopt;
}

void placeInRect(render::DrawList& list, PixelRect rect, glm::vec2 framebuffer) {
    list.camera.projection = intoRect(list.camera.projection, rect, framebuffer);
    const glm::vec2 d = rect.min;
    for (render::Rect& r : list.rects) {
        r.min += d;
        r.max += d;
    }
    for (render::Arc& a : list.arcs)
        a.center += d;
    for (render::Vertex2D& v : list.triangles)
        v.pos += d;
    for (render::Line2D& l : list.lines) {
        l.a += d;
        l.b += d;
    }
    for (render::Label& l : list.labels)
        l.pos += d;
}

void ViewComposer::drawRadial(double t, PixelRect rect, ViewFrameStats& stats, render::DrawList& out) {
    const TreeSeries& s = *inputs_.series;
    const double gc_time = TimeCursor::gcTimeOf(s.gcs(), t);
    RadialLayoutOptions lo;
    lo.metric = options_.metric;
    lo.sort = options_.sort;
    lo.prune = options_.prune;
    lo.drill_root = options_.drill_root;
    lo.scale = options_.scale;
    lo.global_levels = std::max<uint32_t>(options_.depth, 1);
    RadialSceneOptions so;
    so.shape = options_.kind == ViewKind::kSunburst ? RadialShape::kSunburst : RadialShape::kIcicle;
    so.measure = options_.measure;
    so.selected = options_.selected;
    so.hovered = hovered_;
    so.trend_from = TimeCursor::gcTimeOf(s.gcs(), trendFrom(t));
    so.diff = options_.diff.get();

    // The local view (drill root and two levels) takes the larger left part, the global view
    // (the whole tree, the drill branch highlighted) the right.
    const float split = rect.min.x + rect.width() * 0.58f;
    const float heading = 22.0f;
    const PixelRect local{{rect.min.x, rect.min.y + heading}, {split, rect.max.y}};
    const PixelRect global{{split, rect.min.y + heading}, rect.max};
    for (const auto& [view, area, name] : {std::tuple{RadialView::kLocal, local, "local view"},
                                           std::tuple{RadialView::kGlobal, global, "global view"}}) {
        lo.view = view;
        const RadialLayout layout = layoutRadial(s, gc_time, lo);
        so.breadcrumb = view == RadialView::kLocal;
        stats.radial_items += layout.items.size();
        radial_scenes_[view == RadialView::kLocal ? 0 : 1] =
            buildRadialScene(s, layout, area.inset(4.0f), so, out);
        render::Label l;
        l.pos = {area.min.x + 8.0f, area.min.y - heading + 3.0f};
        l.text = name;
        l.color = palette::kTextDim;
        l.size_px = 13.0f;
        out.labels.push_back(std::move(l));
    }
    out.lines.push_back({{split, rect.min.y + 4.0f}, {split, rect.max.y - 4.0f}, 1.0f, palette::kGrid});
}

std::vector<uint32_t> ViewComposer::treeGcs(double t) const {
    const std::vector<uint32_t>& held = inputs_.series->gcs();
    const size_t at = std::min(held.size() - 1, static_cast<size_t>(std::lround(std::clamp(t, 0.0, maxT()))));
    std::vector<uint32_t> gcs{held[at]};
    for (uint32_t pin : options_.pins)
        if (std::binary_search(held.begin(), held.end(), pin)) gcs.push_back(pin);
    std::sort(gcs.begin(), gcs.end());
    gcs.erase(std::unique(gcs.begin(), gcs.end()), gcs.end());
    return gcs;
}

std::string ViewComposer::treeHeading(uint32_t gc, bool current) const {
    const uint64_t value = inputs_.series->value(TreeSeries::kRoot, gc, options_.metric);
    const std::string text = inputs_.series->sampled()
                                 ? estimateValue(static_cast<double>(value), options_.metric)
                             : options_.metric == Metric::kBytes ? memcity::formatBytes(value)
                                                                 : memcity::formatCount(value) + " objects";
    return "GC " + std::to_string(gc) + "  " + text + (current ? "  (cursor)" : "");
}

float ViewComposer::pinnedCityOffset(size_t index) const {
    const Bounds& b = city_layout_.bounds;
    return (b.max.x - b.min.x) * 1.15f * static_cast<float>(index);
}

// The pinned GCs as cities in a row, one layout (the lots stand still), one camera over the row.
// Each city is built as if it stood at the origin (seen by the row's camera moved by its offset, so
// culling and merging judge it where it is drawn) and then moved into its place.
void ViewComposer::drawPinnedCities(double t, PixelRect rect, ViewFrameStats& stats, render::DrawList& out) {
    const TreeSeries& s = *inputs_.series;
    tree_gcs_ = treeGcs(t);
    const uint32_t current = s.gcs()[std::min(s.gcCount() - 1, static_cast<size_t>(std::lround(t)))];
    const size_t n = tree_gcs_.size();
    Bounds row = city_layout_.bounds;
    row.max.x += pinnedCityOffset(n - 1);
    row.max.y = std::max(row.max.y, city_layout_.options.height);
    row.max.z += 0.12f * (row.max.z - row.min.z);  // room for the headings in front
    // From the front and above, so the row runs across the picture.
    OrbitCamera camera;
    camera.aspect = rect.width() / std::max(rect.height(), 1.0f);
    camera.target = row.center();
    camera.yaw = 0.0f;
    camera.pitch = glm::radians(40.0f);
    camera.distance = glm::length(row.size()) * 2.0f;
    camera.frameTightly(row);
    camera_ = camera;
    const render::CameraMatrices m = viewMatrices();
    tree_scenes_.clear();
    tree_cities_.resize(n);
    for (size_t i = 0; i < n; ++i) {
        const uint32_t gc = tree_gcs_[i];
        const double gc_t = indexTimeOf(gc);
        CityStateOptions so;
        so.metric = options_.metric;
        so.trend_from = trendFrom(gc_t);
        cityAt(city_layout_, s, gc_t, so, tree_cities_[i]);
        const glm::vec3 offset(pinnedCityOffset(i), 0.0f, 0.0f);
        render::CameraMatrices local = m;
        local.view = m.view * glm::translate(glm::mat4(1.0f), offset);
        local.eye = m.eye - offset;
        CitySceneOptions co;
        co.selected = options_.selected;
        co.highlighted = options_.highlighted;
        if (hovered_ != kNoPick) co.highlighted.push_back(hovered_);
        co.labels = false;
        co.legend = false;  // the colours are the city's (the trend), as the sunbursts' are
        co.measure_text = options_.measure;
        render::DrawList part;
        stats.city += buildCityDrawList(city_layout_, tree_cities_[i], local, size_, co, part);
        for (render::BoxInstance& box : part.boxes) {
            box.min += offset;
            box.max += offset;
            out.boxes.push_back(box);
        }
        for (render::WorldLine& line : part.world_lines) {
            line.a += offset;
            line.b += offset;
            out.world_lines.push_back(line);
        }
        out.append2D(part);
        // The heading in front of the city.
        const Bounds& b = city_layout_.bounds;
        const auto at = projectToPixel(m, size_, glm::vec3(b.center().x, 0.0f, b.max.z) + offset);
        if (!at) continue;
        const bool is_current = gc == current;
        render::Label l;
        l.pos = {at->x, at->y + 6.0f};
        l.anchor = render::TextAnchor::kTopCenter;
        l.text = treeHeading(gc, is_current);
        l.color = is_current ? palette::kText : palette::kTextDim;
        l.size_px = 13.0f;
        l.background = is_current ? palette::withAlpha(palette::kSelection, 60) : 0;
        out.labels.push_back(std::move(l));
    }
    out.camera = m;
    out.clear_color = palette::kBackground;
}

void ViewComposer::drawTimelineTrees(double t, PixelRect rect, ViewFrameStats& stats, render::DrawList& out) {
    if (options_.trees_cities) {
        drawPinnedCities(t, rect, stats, out);
        return;
    }
    const TreeSeries& s = *inputs_.series;
    tree_gcs_ = treeGcs(t);
    const uint32_t current = s.gcs()[std::min(s.gcCount() - 1, static_cast<size_t>(std::lround(t)))];
    // Side by side while each tree keeps some room (the paper's row of trees), else as many
    // columns as keep the panels closest to square (sunbursts) or twice as tall (icicles).
    const size_t n = tree_gcs_.size();
    const float want = options_.trees_shape == RadialShape::kSunburst ? 1.0f : 0.5f;  // width / height
    size_t cols = 1;
    float best = 1e9f;
    if (rect.width() / static_cast<float>(n) >= std::max(140.0f, 0.4f * rect.height() * want))
        best = -1, cols = n;
    for (size_t c = 1; c <= n && best >= 0; ++c) {
        const size_t rows = (n + c - 1) / c;
        const float aspect =
            (rect.width() / static_cast<float>(c)) / (rect.height() / static_cast<float>(rows));
        const float miss = std::abs(std::log(aspect / want));
        if (miss < best) best = miss, cols = c;
    }
    const size_t rows = (n + cols - 1) / cols;
    const float w = rect.width() / static_cast<float>(cols), h = rect.height() / static_cast<float>(rows);
    const float heading = 20.0f;

    RadialLayoutOptions lo;
    lo.metric = options_.metric;
    lo.sort = options_.sort;
    lo.prune = options_.prune;
    lo.view = RadialView::kGlobal;
    lo.scale = options_.scale;
    lo.global_levels = std::max<uint32_t>(options_.depth, 1);
    RadialSceneOptions so;
    so.shape = options_.trees_shape;
    so.measure = options_.measure;
    so.selected = options_.selected;
    so.hovered = hovered_;
    so.breadcrumb = false;
    so.label_size_px = 11.0f;
    tree_scenes_.clear();
    for (size_t i = 0; i < n; ++i) {
        const uint32_t gc = tree_gcs_[i];
        const glm::vec2 at{rect.min.x + w * static_cast<float>(i % cols),
                           rect.min.y + h * static_cast<float>(i / cols)};
        const PixelRect panel{at, at + glm::vec2(w, h)};
        const double gc_t = indexTimeOf(gc);
        so.trend_from = TimeCursor::gcTimeOf(s.gcs(), trendFrom(gc_t));
        const RadialLayout layout = layoutRadial(s, static_cast<double>(gc), lo);
        stats.radial_items += layout.items.size();
        const PixelRect chart{{panel.min.x, panel.min.y + heading}, panel.max};
        tree_scenes_.push_back(buildRadialScene(s, layout, chart.inset(4.0f), so, out));
        const bool is_current = gc == current;
        if (is_current)  // the cursor's tree: outlined
            for (auto [a, b] : {std::pair{panel.min, glm::vec2{panel.max.x, panel.min.y}},
                                std::pair{glm::vec2{panel.max.x, panel.min.y}, panel.max},
                                std::pair{panel.max, glm::vec2{panel.min.x, panel.max.y}},
                                std::pair{glm::vec2{panel.min.x, panel.max.y}, panel.min}})
                out.lines.push_back({a + glm::vec2(2.0f), b - glm::vec2(2.0f), 2.0f, palette::kSelection});
        render::Label l;
        l.pos = {panel.min.x + 8.0f, panel.min.y + 3.0f};
        l.text = treeHeading(gc, is_current);
        l.color = is_current ? palette::kText : palette::kTextDim;
        l.size_px = 13.0f;
        out.labels.push_back(std::move(l));
        if (i % cols != 0)
            out.lines.push_back(
                {{panel.min.x, panel.min.y + 4.0f}, {panel.min.x, panel.max.y - 4.0f}, 1.0f, palette::kGrid});
    }
}

void ViewComposer::drawTimeStrip(double t, PixelRect rect, render::DrawList& out) const {
    out.rects.push_back({rect.min, rect.max, palette::kPanel, 0, render::kFlagNone});
    TimelineLayoutOptions lo;
    lo.axis_label_size_px = 10.0f;
    lo.pause_strip_px = 6.0f;
    lo.estimates = inputs_.sampling_interval != 0;
    const TimelineLayout layout = layoutTimeline(inputs_.gcs, rect.inset(4.0f), lo);
    TimelineSceneOptions so;
    so.t = TimeCursor::gcTimeOf(inputs_.series->gcs(), t);
    so.range_from = inputs_.series->firstGc();
    so.range_to = inputs_.series->lastGc();
    so.legend = false;
    so.measure = options_.measure;
    // The timeline trees' pinned GCs that the series holds.
    if (options_.kind == ViewKind::kTimelineTrees)
        for (uint32_t pin : options_.pins)
            if (std::binary_search(inputs_.series->gcs().begin(), inputs_.series->gcs().end(), pin))
                so.pins.push_back(pin);
    buildTimelineScene(layout, inputs_.gcs, inputs_.windows, so, out);
}

void ViewComposer::drawTitle(double t, render::DrawList& out) const {
    const TreeSeries& s = *inputs_.series;
    const float bar = std::min(kTitleBarPx, size_.y * 0.5f);
    out.rects.push_back({{0.0f, 0.0f}, {size_.x, bar}, palette::kPanel, 0, render::kFlagNone});

    const double gc_time = TimeCursor::gcTimeOf(s.gcs(), t);
    const auto before = static_cast<uint32_t>(std::floor(gc_time));
    const uint32_t after = std::min<uint32_t>(before + 1, s.lastGc());
    char when[96];
    if (gc_time == static_cast<double>(before) || after == before) {
        std::snprintf(when, sizeof when, "GC %u", before);
    } else {
        std::snprintf(when, sizeof when, "GC %u \xe2\x86\x92 %u", before, after);
    }
    std::string time_text;
    if (before < inputs_.gcs.size() && !inputs_.gcs.empty()) {
        const double f = gc_time - before;
        // Trace time (since the recording began) at the GC's end, as everywhere.
        const double ns0 = static_cast<double>(inputs_.gcs[before].end_ns);
        const double ns1 =
            static_cast<double>(inputs_.gcs[std::min<size_t>(after, inputs_.gcs.size() - 1)].end_ns);
        time_text = "  at " + formatAxisSeconds(ns0 + (ns1 - ns0) * f);
    }
    const uint32_t root[] = {TreeSeries::kRoot};
    const std::string value =
        s.sampled() ? estimateText(sampledSumAt(s, root, gc_time), options_.metric)
                    : formatValue(s.valueAt(TreeSeries::kRoot, gc_time, options_.metric), options_.metric);
    const std::string sep = "   \xc2\xb7   ";
    std::string text = inputs_.title + sep + when + time_text + sep + value;
    // A sampled recording says so before anything else is added (the chain gives way first).
    if (inputs_.sampling_interval) text += sep + samplingBadge(inputs_.sampling_interval);
    const std::string chain = inputs_.chain.empty() ? "" : sep + "by " + inputs_.chain;
    std::string diff;
    if (const SeriesDiff* d = options_.diff.get()) {
        const CohortCounts& all = d->at(TreeSeries::kRoot);
        const Metric m = options_.metric;
        // A sampled heap's cohorts are estimates too (without an interval: HeapDiff keeps none).
        auto cohort = [&](const SeriesCounts& c) {
            const auto v = static_cast<double>(valueOf(c, m));
            return s.sampled() ? estimateValue(v, m) : formatValue(v, m);
        };
        diff = sep + "since GC " + std::to_string(d->baseGc()) + ": born " + cohort(all.born) + ", died " +
               cohort(all.died) + ", permanent " + cohort(all.permanent);
    }
    // The chain gives way to the diff's totals where the bar is too short for both.
    const float size_px = std::min(kTitleTextPx, bar * 0.6f);
    if (diff.empty() || textWidth(options_.measure, text + chain + diff, size_px) + 20.0f <= size_.x)
        text += chain;
    text += diff;

    render::Label title;
    title.pos = {10.0f, bar * 0.5f};
    title.anchor = render::TextAnchor::kLeftCenter;
    title.text = std::move(text);
    title.color = palette::kText;
    title.size_px = std::min(kTitleTextPx, bar * 0.6f);
    out.labels.push_back(std::move(title));

    render::Label view;
    view.pos = {size_.x - 10.0f, bar * 0.5f};
    view.anchor = render::TextAnchor::kRightCenter;
    view.text = std::string("memcity \xc2\xb7 ") + std::string(viewKindName(options_.kind));
    view.color = palette::kTextDim;
    view.size_px = std::min(kTitleTextPx, bar * 0.6f);
    // The view's name only where the title leaves room for it.
    const float title_w = textWidth(options_.measure, out.labels.back().text, out.labels.back().size_px);
    if (title_w + 40.0f + textWidth(options_.measure, view.text, view.size_px) < size_.x)
        out.labels.push_back(std::move(view));
}

}  // namespace memcity::scene
