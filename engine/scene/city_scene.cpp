#include "scene/city_scene.h"

#include <algorithm>
#include <array>
#include <cmath>

#include "scene/palette.h"
#include "scene/screen.h"

namespace memcity::scene {
namespace {

// A sorted copy of an id list, for lookups while a frame is built.
class IdSet {
public:
    explicit IdSet(const std::vector<uint32_t>& ids) : ids_(ids) { std::sort(ids_.begin(), ids_.end()); }
    bool empty() const { return ids_.empty(); }
    bool has(uint32_t id) const { return !ids_.empty() && std::binary_search(ids_.begin(), ids_.end(), id); }

private:
    std::vector<uint32_t> ids_;
};

// The distance from `p` to the nearest point of `box` (0 inside).
float distanceTo(const Bounds& box, const glm::vec3& p) {
    const glm::vec3 q = glm::clamp(p, box.min, box.max);
    return glm::length(p - q);
}

struct LabelCandidate {
    uint32_t district;
    float area;  // world units squared: the order in which labels are placed
};

class SceneWriter {
public:
    SceneWriter(const CityLayout& layout, const CityState& state, const render::CameraMatrices& camera,
                glm::vec2 viewport, const CitySceneOptions& options, render::DrawList& out)
        : layout_(layout),
          state_(state),
          camera_(camera),
          viewport_(viewport),
          o_(options),
          out_(out),
          selected_(options.selected),
          highlighted_(options.highlighted),
          frustum_(frustumOf(camera)),
          // Pixels per world unit at distance 1 (the projection's y scale times half the height).
          focal_px_(camera.projection[1][1] * 0.5f * viewport.y) {}

    CitySceneStats write() {
        out_.camera = camera_;
        out_.clear_color = palette::kBackground;
        const auto& districts = layout_.districts;
        const float top = layout_.bounds.max.y;
        for (uint32_t i = 0; i < districts.size();) {
            const CityDistrict& d = districts[i];
            const Bounds column{glm::vec3(d.x0, d.y0, d.z0), glm::vec3(d.x1, top, d.z1)};
            if (o_.cull && !frustum_.intersects(column)) {
                stats_.culled_plates += d.district_end - i;
                stats_.culled_buildings += d.building_end - d.building_begin;
                i = d.district_end;
                continue;
            }
            if (o_.merge && d.depth >= 1 && looksSmall(d) && merge(i)) {
                i = d.district_end;
                continue;
            }
            plate(i);
            for (uint32_t b = d.building_begin; b < d.direct_end; ++b)
                building(b);
            ++i;
        }
        if (o_.labels) labels();
        if (o_.legend) legend();
        stats_.labels = labels_placed_;
        return stats_;
    }

private:
    uint32_t flagsOf(uint32_t id) const {
        uint32_t f = render::kFlagNone;
        if (selected_.has(id)) f |= render::kFlagSelected;
        if (highlighted_.has(id)) f |= render::kFlagHighlighted;
        return f;
    }

    bool looksSmall(const CityDistrict& d) const {
        const Bounds plate_top{glm::vec3(d.x0, d.y1, d.z0), glm::vec3(d.x1, d.y1, d.z1)};
        const float distance = std::max(distanceTo(plate_top, camera_.eye), 1e-6f);
        return d.max_building_side * focal_px_ / distance < o_.merge_below_px;
    }

    // A cheap first look before projecting a district for its label: its longest side seen from
    // its plate's nearest point, with room to spare for the perspective (a plate seen off the
    // view's axis looks wider), against min_label_district_px.
    bool mayHoldLabel(const CityDistrict& d) const {
        const Bounds plate_top{glm::vec3(d.x0, d.y1, d.z0), glm::vec3(d.x1, d.y1, d.z1)};
        const float distance = std::max(distanceTo(plate_top, camera_.eye), 1e-6f);
        return std::max(d.x1 - d.x0, d.z1 - d.z0) * focal_px_ / distance >= 0.25f * o_.min_label_district_px;
    }

    void plate(uint32_t i) {
        const CityDistrict& d = layout_.districts[i];
        render::BoxInstance box;
        box.min = glm::vec3(d.x0, d.y0, d.z0);
        box.max = glm::vec3(d.x1, d.y1, d.z1);
        if (o_.cull && !frustum_.intersects(Bounds{box.min, box.max})) {
            ++stats_.culled_plates;
            return;
        }
        box.color = palette::districtColor(d.depth);
        box.id = d.node;
        box.flags = flagsOf(d.node);
        out_.boxes.push_back(box);
        ++stats_.plates;
        if (d.depth >= 1 && o_.labels && mayHoldLabel(d))
            candidates_.push_back({i, (d.x1 - d.x0) * (d.z1 - d.z0)});
    }

    void building(uint32_t b) {
        const BuildingState& s = state_.buildings[b];
        if (s.alpha == 0) {
            ++stats_.hidden_buildings;
            return;
        }
        render::BoxInstance box;
        const Bounds bounds = buildingBounds(layout_, state_, b);
        if (o_.cull && !frustum_.intersects(bounds)) {
            ++stats_.culled_buildings;
            return;
        }
        box.min = bounds.min;
        box.max = bounds.max;
        box.color = s.color;
        box.id = layout_.buildings[b].id;
        box.flags = flagsOf(box.id);
        out_.boxes.push_back(box);
        ++stats_.buildings;
    }

    // District i drawn as its plate and one box (see city_scene.h); false when nothing inside it
    // stands at t or only one building would be merged (then it is drawn as usual).
    bool merge(uint32_t i) {
        const CityDistrict& d = layout_.districts[i];
        std::array<double, kTrendCount> volume{};
        double lots = 0, filled = 0, alpha = 0;
        size_t standing = 0;
        glm::vec2 lo(INFINITY), hi(-INFINITY);
        uint32_t flags = flagsOf(d.node);
        for (uint32_t b = d.building_begin; b < d.building_end; ++b) {
            const CityBuilding& x = layout_.buildings[b];
            const BuildingState& s = state_.buildings[b];
            const auto area = static_cast<double>(x.area());
            lots += area;
            lo = glm::min(lo, glm::vec2(x.x0, x.z0));
            hi = glm::max(hi, glm::vec2(x.x1, x.z1));
            if (s.alpha == 0) continue;
            ++standing;
            const double v = area * static_cast<double>(x.base + s.height - d.y1);
            filled += v;
            volume[static_cast<size_t>(s.trend)] += v;
            alpha += v * s.alpha;
            if (!selected_.empty() || !highlighted_.empty()) flags |= flagsOf(x.id);
        }
        if (standing < 2 || lots <= 0 || filled <= 0) return false;
        plate(i);
        const auto dominant =
            static_cast<Trend>(std::max_element(volume.begin(), volume.end()) - volume.begin());
        render::BoxInstance box;
        box.min = glm::vec3(lo.x, d.y1, lo.y);
        box.max = glm::vec3(hi.x, d.y1 + static_cast<float>(filled / lots), hi.y);
        box.color = palette::trendColor(dominant, static_cast<uint8_t>(std::lround(alpha / filled)));
        box.id = d.node;
        box.flags = flags;
        out_.boxes.push_back(box);
        ++stats_.merged_boxes;
        stats_.merged_buildings += standing;
        stats_.hidden_buildings += (d.building_end - d.building_begin) - standing;
        return true;
    }

    void labels() {
        std::stable_sort(candidates_.begin(), candidates_.end(),
                         [](const LabelCandidate& a, const LabelCandidate& b) { return a.area > b.area; });
        std::vector<std::pair<glm::vec2, glm::vec2>> placed;
        for (const LabelCandidate& c : candidates_) {
            if (placed.size() >= o_.max_labels) break;
            const CityDistrict& d = layout_.districts[c.district];
            // The plate top's extent on screen.
            glm::vec2 lo(INFINITY), hi(-INFINITY);
            bool behind = false;
            for (int k = 0; k < 4 && !behind; ++k) {
                const glm::vec3 corner((k & 1) ? d.x1 : d.x0, d.y1, (k & 2) ? d.z1 : d.z0);
                const auto p = projectToPixel(camera_, viewport_, corner);
                if (!p || p->z < -1.0f || p->z > 1.0f) {
                    behind = true;
                    break;
                }
                lo = glm::min(lo, glm::vec2(*p));
                hi = glm::max(hi, glm::vec2(*p));
            }
            if (behind || hi.x - lo.x < o_.min_label_district_px) continue;
            const auto center = projectToPixel(camera_, viewport_,
                                               glm::vec3((d.x0 + d.x1) * 0.5f, d.y1, (d.z0 + d.z1) * 0.5f));
            if (!center) continue;
            const float size =
                std::max(o_.min_label_size_px, o_.label_size_px - 2.0f * static_cast<float>(d.depth - 1));
            const std::optional<std::string> fitted = fitText(
                layout_.districtLabel(c.district), size, hi.x - lo.x, o_.measure_text, 4, nullptr, "...");
            if (!fitted) continue;
            const std::string& text = *fitted;
            const float w = textWidth(o_, text, size) + 6.0f, h = size + 4.0f;
            const glm::vec2 a(center->x - w * 0.5f, center->y - h * 0.5f), b(a.x + w, a.y + h);
            if (a.x < 0 || a.y < 0 || b.x > viewport_.x || b.y > viewport_.y) continue;
            const bool overlaps = std::any_of(placed.begin(), placed.end(), [&](const auto& r) {
                return a.x < r.second.x + 2 && r.first.x < b.x + 2 && a.y < r.second.y + 2 &&
                       r.first.y < b.y + 2;
            });
            if (overlaps) continue;
            placed.emplace_back(a, b);
            render::Label label;
            label.pos = glm::vec2(center->x, center->y);
            label.text = std::move(text);
            label.color = palette::kText;
            label.size_px = size;
            label.anchor = render::TextAnchor::kCenter;
            label.background = render::rgba(0, 0, 0, 150);
            out_.labels.push_back(std::move(label));
        }
        labels_placed_ = placed.size();
    }

    void legend() {
        std::vector<std::pair<std::string, uint32_t>> rows = o_.legend_rows;
        if (rows.empty())  // strongest growth first, as a reader scans for it
            for (int t = kTrendCount - 1; t >= 0; --t)
                rows.emplace_back(trendName(static_cast<Trend>(t)),
                                  palette::trendColor(static_cast<Trend>(t)));
        const float size = o_.legend_size_px, row = size + 6.0f, margin = 12.0f, pad = 8.0f;
        float width = textWidth(o_, o_.legend_title, size);
        for (const auto& [name, color] : rows)
            width = std::max(width, size + 6.0f + textWidth(o_, name, size));
        const float height = row * static_cast<float>(rows.size() + 1);
        const glm::vec2 origin(margin, viewport_.y - o_.legend_bottom_inset_px - margin - height - 2 * pad);
        out_.rects.push_back({origin, origin + glm::vec2(width + 2 * pad, height + 2 * pad),
                              palette::withAlpha(palette::kPanel, 220), 0, render::kFlagNone});
        glm::vec2 at = origin + glm::vec2(pad, pad);
        out_.labels.push_back({at, o_.legend_title, palette::kText, size, render::TextAnchor::kTopLeft, 0});
        for (const auto& [name, color] : rows) {
            at.y += row;
            out_.rects.push_back(
                {at + glm::vec2(0, 2), at + glm::vec2(size, size + 2), color, 0, render::kFlagNone});
            out_.labels.push_back({at + glm::vec2(size + 6.0f, 0), name, palette::kText, size,
                                   render::TextAnchor::kTopLeft, 0});
        }
    }

    const CityLayout& layout_;
    const CityState& state_;
    const render::CameraMatrices& camera_;
    const glm::vec2 viewport_;
    const CitySceneOptions& o_;
    render::DrawList& out_;
    const IdSet selected_, highlighted_;
    const Frustum frustum_;
    const float focal_px_;
    CitySceneStats stats_;
    std::vector<LabelCandidate> candidates_;
    size_t labels_placed_ = 0;
};

}  // namespace

float textWidth(const CitySceneOptions& options, std::string_view text, float size_px) {
    return textWidth(options.measure_text, text, size_px);
}

CitySceneStats buildCityDrawList(const CityLayout& layout, const CityState& state,
                                 const render::CameraMatrices& camera, glm::vec2 viewport,
                                 const CitySceneOptions& options, render::DrawList& out) {
    return SceneWriter(layout, state, camera, viewport, options, out).write();
}

std::optional<CityHit> pickCity(const CityLayout& layout, const CityState& state, const Ray& ray) {
    std::optional<CityHit> best;
    auto consider = [&](const Bounds& box, uint32_t id, bool district, size_t index) {
        const auto d = intersectRayBox(ray, box);
        if (d && (!best || *d < best->distance))
            best = CityHit{id, district, static_cast<uint32_t>(index), *d};
    };
    for (size_t b = 0; b < layout.buildings.size(); ++b)
        if (b < state.buildings.size() && state.buildings[b].alpha > 0)
            consider(buildingBounds(layout, state, b), layout.buildings[b].id, false, b);
    for (size_t i = 0; i < layout.districts.size(); ++i) {
        const CityDistrict& d = layout.districts[i];
        consider(Bounds{glm::vec3(d.x0, d.y0, d.z0), glm::vec3(d.x1, d.y1, d.z1)}, d.node, true, i);
    }
    return best;
}

}  // namespace memcity::scene
