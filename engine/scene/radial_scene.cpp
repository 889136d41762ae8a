#include "scene/radial_scene.h"

#include <algorithm>
#include <cmath>
#include <unordered_map>

namespace memcity::scene {

namespace {

constexpr uint32_t kRootColor = render::rgba(98, 104, 116);
constexpr uint32_t kOtherColor = render::rgba(112, 116, 124);
constexpr float kMinDrawnPx = 0.25f;  // slivers thinner than this are not drawn
constexpr float kRimPx = 3.0f;        // the drill root's rim in the global view

// Colours of items, with the top-level categories of the series looked up once.
class Colorer {
public:
    Colorer(const TreeSeries& series, const RadialLayout& layout, RadialColoring coloring,
            const TrendOptions& trend, double trend_from, const SeriesDiff* diff = nullptr)
        : series_(series),
          layout_(layout),
          coloring_(coloring),
          trend_(trend),
          diff_(diff),
          trend_from_(trend_from < 0 ? static_cast<double>(series.firstGc()) : trend_from) {
        if (coloring != RadialColoring::kCategory) return;
        const std::vector<uint32_t> top =
            series.sortedChildren(TreeSeries::kRoot, layout.sort, layout.metric);
        for (size_t i = 0; i < top.size(); ++i)
            category_[top[i]] = static_cast<uint32_t>(i);
    }

    uint32_t operator()(const RadialItem& item) const {
        if (diff_) {
            const CohortCounts counts =
                item.isOther() ? diff_->sum(layout_.others[item.other].folded) : diff_->at(item.node);
            const uint32_t c =
                cohortColor(dominantCohort(counts, layout_.metric).value_or(Cohort::kPermanent));
            return item.isOther() ? palette::mix(c, kOtherColor, 0.45f) : c;
        }
        if (coloring_ == RadialColoring::kTrend) {
            const double first = radialItemValueAt(series_, layout_, item, trend_from_);
            const uint32_t c = palette::trendColor(classifyTrend(first, item.value, trend_));
            return item.isOther() ? palette::mix(c, kOtherColor, 0.45f) : c;
        }
        // The node's ancestor just below the series root, and how deep below it the item is.
        uint32_t top = item.node, steps = item.isOther() ? 1 : 0;
        if (top == TreeSeries::kRoot) return item.isOther() ? kOtherColor : kRootColor;
        while (series_.node(top).parent != TreeSeries::kRoot) {
            top = series_.node(top).parent;
            ++steps;
        }
        auto found = category_.find(top);
        const uint32_t base = found == category_.end() ? kOtherColor : palette::categoryColor(found->second);
        const uint32_t c = palette::mix(base, render::rgba(255, 255, 255),
                                        std::min(0.5f, 0.12f * static_cast<float>(steps)));
        return item.isOther() ? palette::mix(c, kOtherColor, 0.45f) : c;
    }

private:
    const TreeSeries& series_;
    const RadialLayout& layout_;
    RadialColoring coloring_;
    TrendOptions trend_;
    const SeriesDiff* diff_;
    double trend_from_;
    std::unordered_map<uint32_t, uint32_t> category_;
};

// Angle in [0, 2π) past `from`, clockwise.
float angleAfter(float angle, float from) {
    float d = std::fmod(angle - from, kTwoPi);
    return d < 0 ? d + kTwoPi : d;
}

// Whether a box of w × h centred at `pos` lies inside the annular sector (sampled along its edges).
bool boxInSector(glm::vec2 center, glm::vec2 pos, float w, float h, float r0, float r1, float a0, float a1) {
    const bool full = a1 - a0 >= kTwoPi - 1e-4f;
    constexpr int kSteps = 6;
    for (int i = 0; i <= kSteps; ++i) {
        const float f = static_cast<float>(i) / kSteps - 0.5f;
        const glm::vec2 points[] = {
            {f * w, -0.5f * h}, {f * w, 0.5f * h}, {-0.5f * w, f * h}, {0.5f * w, f * h}};
        for (glm::vec2 p : points) {
            const glm::vec2 d = pos + p - center;
            const float r = glm::length(d);
            if (r < r0 || r > r1) return false;
            if (!full && angleAfter(std::atan2(d.y, d.x), a0) > a1 - a0) return false;
        }
    }
    return true;
}

class SceneWriter {
public:
    SceneWriter(const TreeSeries& series, const RadialLayout& layout, const RadialSceneOptions& options,
                render::DrawList& out, RadialScene& scene)
        : series_(series),
          layout_(layout),
          options_(options),
          out_(out),
          scene_(scene),
          colorer_(series, layout, options.coloring, options.trend, options.trend_from, options.diff) {
        dimmed_ = layout.root != layout.drill_root;  // a global view drilled below the series root
    }

    void item(size_t index) {
        const RadialItem& item = layout_.items[index];
        if (item.extent() <= 0) return;
        const uint32_t pick = pickIdOf(item);
        uint32_t color = colorer_(item);
        uint32_t flags = render::kFlagNone;
        const bool on_branch = (item.flags & kRadialItemOnBranch) != 0;
        if (dimmed_ && on_branch) flags |= render::kFlagHighlighted;
        if (dimmed_ && !on_branch) color = palette::withAlpha(color, options_.off_branch_alpha);
        if (pick == options_.hovered) flags |= render::kFlagHighlighted;
        if (std::find(options_.selected.begin(), options_.selected.end(), pick) != options_.selected.end())
            flags |= render::kFlagSelected;
        const bool rim = dimmed_ && (item.flags & kRadialItemDrillRoot) != 0;
        const bool drawn = options_.shape == RadialShape::kSunburst ? arc(item, pick, color, flags, rim)
                                                                    : rect(item, pick, color, flags, rim);
        if (drawn) scene_.colors[index] = color;
    }

    void breadcrumb(PixelRect viewport, float size) {
        std::vector<std::string> path = drillPath(series_, layout_.drill_root);
        const float width = viewport.width() - 2 * options_.padding_px;
        for (size_t skip = 0; skip < path.size(); ++skip) {
            std::string text = skip > 0 ? ".." : "";
            for (size_t i = skip; i < path.size(); ++i)
                text += (text.empty() ? "" : " / ") + path[i];
            const bool last = skip + 1 == path.size();
            std::optional<std::string> fitted =
                last
                    ? fitText(text, size, width, options_.measure)
                    : (textWidth(options_.measure, text, size) <= width ? std::optional(text) : std::nullopt);
            if (!fitted) continue;
            render::Label label;
            label.pos = viewport.min + glm::vec2(options_.padding_px);
            label.text = std::move(*fitted);
            label.color = palette::kText;
            label.size_px = size;
            label.anchor = render::TextAnchor::kTopLeft;
            out_.labels.push_back(std::move(label));
            return;
        }
    }

private:
    bool arc(const RadialItem& item, uint32_t pick, uint32_t color, uint32_t flags, bool rim) {
        const float th = scene_.ring_px;
        const float r0 = item.depth == 0 ? 0.0f : static_cast<float>(item.depth) * th + options_.ring_gap_px;
        const float r1 = static_cast<float>(item.depth + 1) * th;
        float a0 = kSunburstStartAngle + static_cast<float>(item.start) * kTwoPi;
        float a1 = kSunburstStartAngle + static_cast<float>(item.end) * kTwoPi;
        if ((a1 - a0) * r1 < kMinDrawnPx || r1 <= r0) return false;
        const float r_mid = 0.5f * (r0 + r1);
        const bool full = item.extent() >= 1.0 - 1e-9;
        if (!full && (a1 - a0) * r_mid > 2.0f * options_.sector_gap_px) {
            const float half_gap = 0.5f * options_.sector_gap_px / r_mid;
            a0 += half_gap;
            a1 -= half_gap;
        }
        out_.arcs.push_back({scene_.center, r0, r1, a0, a1, color, pick, flags});
        if (rim)
            out_.arcs.push_back(
                {scene_.center, std::max(r0, r1 - kRimPx), r1, a0, a1, palette::kSelection, pick, flags});
        if (options_.labels) arcLabel(item, color, r0, r1, a0, a1, full);
        return true;
    }

    void arcLabel(const RadialItem& item, uint32_t color, float r0, float r1, float a0, float a1, bool full) {
        const float size = std::min(options_.label_size_px, r1 - r0);
        if (size < 6.0f) return;
        const std::string text = radialItemLabel(series_, layout_, item);
        glm::vec2 pos;
        std::optional<std::string> fitted;
        if (item.depth == 0 && full) {
            pos = scene_.center;  // the centre disc: the text's box inside the circle
            fitted = fitText(text, size, 2.0f * r1, options_.measure, 3, [&](float w) {
                return boxInSector(scene_.center, pos, w, size, 0.0f, r1, a0, a1);
            });
        } else {
            // A whole ring is labelled at 12 o'clock, a sector at its middle.
            const float am = full ? kSunburstStartAngle : 0.5f * (a0 + a1), rm = 0.5f * (r0 + r1);
            pos = scene_.center + rm * glm::vec2(std::cos(am), std::sin(am));
            fitted = fitText(text, size, (a1 - a0) * rm, options_.measure, 3, [&](float w) {
                return boxInSector(scene_.center, pos, w, size, r0, r1, a0, a1);
            });
        }
        if (fitted) pushLabel(pos, std::move(*fitted), color, size);
    }

    bool rect(const RadialItem& item, uint32_t pick, uint32_t color, uint32_t flags, bool rim) {
        const PixelRect& chart = scene_.chart;
        float x0 = chart.min.x + static_cast<float>(item.start) * chart.width();
        float x1 = chart.min.x + static_cast<float>(item.end) * chart.width();
        const float y0 = chart.min.y + static_cast<float>(item.depth) * scene_.ring_px;
        const float y1 = y0 + scene_.ring_px - options_.ring_gap_px;
        if (x1 - x0 < kMinDrawnPx || y1 <= y0) return false;
        if (x1 - x0 > 2.0f * options_.sector_gap_px) {
            x0 += 0.5f * options_.sector_gap_px;
            x1 -= 0.5f * options_.sector_gap_px;
        }
        out_.rects.push_back({{x0, y0}, {x1, y1}, color, pick, flags});
        if (rim)
            out_.rects.push_back(
                {{x0, std::max(y0, y1 - kRimPx)}, {x1, y1}, palette::kSelection, pick, flags});
        if (!options_.labels) return true;
        const float size = std::min(options_.label_size_px, y1 - y0);
        if (size < 6.0f) return true;
        constexpr float kInnerPad = 2.0f;
        std::optional<std::string> fitted =
            fitText(radialItemLabel(series_, layout_, item), size, x1 - x0 - 2 * kInnerPad, options_.measure);
        if (fitted) pushLabel({0.5f * (x0 + x1), 0.5f * (y0 + y1)}, std::move(*fitted), color, size);
        return true;
    }

    void pushLabel(glm::vec2 pos, std::string text, uint32_t fill, float size) {
        render::Label label;
        label.pos = pos;
        label.text = std::move(text);
        label.color = textColorOn(fill);
        if (render::alphaOf(fill) < 160) label.color = palette::kTextDim;
        label.size_px = size;
        label.anchor = render::TextAnchor::kCenter;
        out_.labels.push_back(std::move(label));
    }

    const TreeSeries& series_;
    const RadialLayout& layout_;
    const RadialSceneOptions& options_;
    render::DrawList& out_;
    RadialScene& scene_;
    Colorer colorer_;
    bool dimmed_ = false;
};

}  // namespace

uint32_t radialItemColor(const TreeSeries& series, const RadialLayout& layout, const RadialItem& item,
                         RadialColoring coloring, const TrendOptions& trend, double trend_from) {
    return Colorer(series, layout, coloring, trend, trend_from)(item);
}

RadialScene buildRadialScene(const TreeSeries& series, const RadialLayout& layout, PixelRect viewport,
                             const RadialSceneOptions& options, render::DrawList& out) {
    RadialScene scene;
    scene.shape = options.shape;
    scene.items = layout.items;
    scene.colors.assign(layout.items.size(), 0);
    scene.levels = layout.levels;
    SceneWriter writer(series, layout, options, out, scene);

    PixelRect area = viewport.inset(options.padding_px);
    const float crumb_size = options.label_size_px;
    if (options.breadcrumb && !layout.items.empty()) {
        writer.breadcrumb(viewport, crumb_size);
        area.min.y = std::min(area.max.y, area.min.y + crumb_size + 6.0f);
    }
    if (area.empty() || layout.items.empty()) return scene;

    if (options.shape == RadialShape::kSunburst) {
        const float radius = 0.5f * std::min(area.width(), area.height());
        scene.center = area.center();
        scene.chart = {scene.center - glm::vec2(radius), scene.center + glm::vec2(radius)};
        scene.ring_px = radius / static_cast<float>(layout.levels);
    } else {
        scene.chart = area;
        scene.ring_px = area.height() / static_cast<float>(layout.levels);
    }
    for (size_t i = 0; i < layout.items.size(); ++i)
        writer.item(i);
    return scene;
}

RadialHit pickRadial(const RadialScene& scene, glm::vec2 pixel) {
    RadialHit hit;
    if (scene.levels == 0 || scene.ring_px <= 0) return hit;
    uint32_t depth = 0;
    double fraction = 0;
    if (scene.shape == RadialShape::kSunburst) {
        const glm::vec2 d = pixel - scene.center;
        const float r = glm::length(d);
        if (r >= scene.ring_px * static_cast<float>(scene.levels)) return hit;
        depth = static_cast<uint32_t>(r / scene.ring_px);
        fraction = r == 0
                       ? 0.0
                       : static_cast<double>(angleAfter(std::atan2(d.y, d.x), kSunburstStartAngle) / kTwoPi);
    } else {
        if (!scene.chart.contains(pixel)) return hit;
        depth = static_cast<uint32_t>((pixel.y - scene.chart.min.y) / scene.ring_px);
        fraction = static_cast<double>((pixel.x - scene.chart.min.x) / scene.chart.width());
    }
    for (size_t i = 0; i < scene.items.size(); ++i) {
        const RadialItem& item = scene.items[i];
        if (item.depth != depth || fraction < item.start || fraction >= item.end) continue;
        hit.item = static_cast<uint32_t>(i);
        hit.node = item.node;
        hit.other = item.isOther();
        hit.pick_id = pickIdOf(item);
        return hit;
    }
    return hit;
}

}  // namespace memcity::scene
