#include "scene/city_state.h"

#include <algorithm>
#include <cmath>

namespace memcity::scene {
namespace {

// A building's value in one column: its node's, or its Other group's.
double buildingValue(const CityLayout& layout, const CityBuilding& b, const std::vector<SeriesCounts>& col,
                     Metric metric) {
    if (!isOtherId(b.id)) return static_cast<double>(valueOf(col[b.id], metric));
    double folded = 0, shown = 0;
    for (uint32_t k = b.group_begin; k < b.group_mid; ++k)
        folded += static_cast<double>(valueOf(col[layout.group_ids[k]], metric));
    for (uint32_t k = b.group_mid; k < b.group_end; ++k)
        shown += static_cast<double>(valueOf(col[layout.group_ids[k]], metric));
    const double whole = static_cast<double>(valueOf(col[otherParentOf(b.id)], metric));
    return std::max(folded, whole - shown);
}

// The two columns around index time t and how far t is between them; `after` is left alone (and
// the fraction is 0) when t sits on a GC.
double readAround(const TreeSeries& series, double t, std::vector<SeriesCounts>& before,
                  std::vector<SeriesCounts>& after) {
    const size_t last = series.gcCount() - 1;
    const auto i = std::min(static_cast<size_t>(std::floor(t)), last);
    readColumn(series, i, before);
    const double f = t - static_cast<double>(i);
    if (f <= 0 || i == last) return 0.0;
    readColumn(series, i + 1, after);
    return f;
}

// The cohort a building's colour shows: its node's, or its Other group's folded children's.
std::optional<Cohort> buildingCohort(const CityLayout& layout, const CityBuilding& b, const SeriesDiff& diff,
                                     Metric metric) {
    if (!isOtherId(b.id)) return dominantCohort(diff.at(b.id), metric);
    const std::span<const uint32_t> folded(layout.group_ids.data() + b.group_begin,
                                           b.group_mid - b.group_begin);
    return dominantCohort(diff.sum(folded), metric);
}

double clampTime(const TreeSeries& series, double t) {
    const double last = series.gcCount() == 0 ? 0.0 : static_cast<double>(series.gcCount() - 1);
    return std::isfinite(t) ? std::clamp(t, 0.0, last) : 0.0;
}

}  // namespace

void cityAt(const CityLayout& layout, const TreeSeries& series, double t, const CityStateOptions& options,
            CityState& out) {
    const size_t count = layout.buildings.size();
    out.t = clampTime(series, t);
    out.metric = options.metric;
    out.buildings.resize(count);
    out.district_values.assign(layout.districts.size(), 0.0);
    if (series.gcCount() == 0) {
        std::fill(out.buildings.begin(), out.buildings.end(), BuildingState{});
        return;
    }
    const Metric metric = options.metric;
    auto& before = out.scratch_before;
    auto& after = out.scratch_after;

    // The trend's reference values first, kept in `value` until the values at t replace them.
    {
        const double f = readAround(series, clampTime(series, options.trend_from), before, after);
        for (size_t i = 0; i < count; ++i) {
            const CityBuilding& b = layout.buildings[i];
            const double v0 = buildingValue(layout, b, before, metric);
            out.buildings[i].value = f > 0 ? v0 + (buildingValue(layout, b, after, metric) - v0) * f : v0;
        }
    }

    const double f = readAround(series, out.t, before, after);
    const size_t m = metricIndex(metric);
    const double global_peak = layout.global_peak[m];
    const auto tallest = static_cast<double>(layout.options.height);
    for (size_t i = 0; i < count; ++i) {
        const CityBuilding& b = layout.buildings[i];
        BuildingState& s = out.buildings[i];
        const double v0 = buildingValue(layout, b, before, metric);
        const double v1 = f > 0 ? buildingValue(layout, b, after, metric) : v0;
        const double v = v0 + (v1 - v0) * f;
        s.trend = classifyTrend(s.value, v, options.trend);
        s.value = v;
        const double peak = b.peak[m];
        double h = peak > 0 && global_peak > 0 ? tallest * v / std::sqrt(peak * global_peak) : 0.0;
        if (v > 0) h = std::max(h, static_cast<double>(options.min_height));
        s.height = static_cast<float>(h);
        std::optional<Cohort> cohort;
        if (options.diff)
            cohort = buildingCohort(layout, b, *options.diff, metric).value_or(Cohort::kPermanent);
        const bool unsuspicious =
            cohort ? *cohort != Cohort::kBorn : s.trend == Trend::kStable || s.trend == Trend::kShrinking;
        const double base =
            options.translucent_unsuspicious && unsuspicious ? options.unsuspicious_alpha : 255.0;
        double fade = 1.0;
        if (v <= 0)
            fade = 0.0;
        else if (v0 <= 0)
            fade = f;
        else if (v1 <= 0)
            fade = 1.0 - f;
        s.alpha = static_cast<uint8_t>(std::lround(base * fade));
        s.color = cohort ? cohortColor(*cohort, s.alpha) : palette::trendColor(s.trend, s.alpha);
        out.district_values[b.district] += v;
    }
    for (size_t d = layout.districts.size(); d-- > 1;)
        out.district_values[layout.districts[d].parent] += out.district_values[d];
}

CityState cityAt(const CityLayout& layout, const TreeSeries& series, double t,
                 const CityStateOptions& options) {
    CityState out;
    cityAt(layout, series, t, options, out);
    return out;
}

Bounds buildingBounds(const CityLayout& layout, const CityState& state, size_t index) {
    const CityBuilding& b = layout.buildings[index];
    const float h = index < state.buildings.size() ? state.buildings[index].height : 0.0f;
    return Bounds{glm::vec3(b.x0, b.base, b.z0), glm::vec3(b.x1, b.base + h, b.z1)};
}

}  // namespace memcity::scene
