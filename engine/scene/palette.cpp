#include "scene/palette.h"

#include <algorithm>
#include <array>
#include <cmath>

namespace memcity::scene {

std::string_view trendName(Trend trend) {
    switch (trend) {
        case Trend::kShrinking: return "shrinking";
        case Trend::kStable: return "stable";
        case Trend::kGrowing: return "growing";
        case Trend::kStronglyGrowing: return "strongly growing";
    }
    return "?";
}

Trend classifyTrend(double first, double now, const TrendOptions& options) {
    const double reference = std::max(first, now);
    if (reference <= 0) return Trend::kStable;
    const double change = (now - first) / reference;
    if (change > options.strong) return Trend::kStronglyGrowing;
    if (change > options.stable_band) return Trend::kGrowing;
    if (change < -options.stable_band) return Trend::kShrinking;
    return Trend::kStable;
}

namespace palette {

uint32_t trendColor(Trend trend, uint8_t alpha) {
    switch (trend) {
        case Trend::kShrinking: return render::rgba(86, 180, 233, alpha);      // sky blue
        case Trend::kStable: return render::rgba(176, 180, 188, alpha);        // grey
        case Trend::kGrowing: return render::rgba(230, 159, 0, alpha);         // orange
        case Trend::kStronglyGrowing: return render::rgba(213, 94, 0, alpha);  // vermillion
    }
    return render::rgba(255, 0, 255, alpha);
}

uint32_t districtColor(uint32_t depth) {
    const int level = static_cast<int>(std::min<uint32_t>(depth, 6));
    const auto c = static_cast<uint8_t>(std::max(38, 74 - 7 * level));
    return render::rgba(c, static_cast<uint8_t>(c + 3), static_cast<uint8_t>(c + 10));
}

uint32_t categoryColor(uint32_t index, uint8_t alpha) {
    // Okabe–Ito without black, then lighter variants.
    static constexpr std::array<uint32_t, 7> kBase = {
        render::rgba(0, 114, 178),   render::rgba(230, 159, 0),  render::rgba(0, 158, 115),
        render::rgba(204, 121, 167), render::rgba(86, 180, 233), render::rgba(213, 94, 0),
        render::rgba(240, 228, 66),
    };
    const uint32_t base = kBase[index % kBase.size()];
    const float lighten = 0.18f * static_cast<float>((index / kBase.size()) % 3);
    return withAlpha(mix(base, render::rgba(255, 255, 255), lighten), alpha);
}

uint32_t mix(uint32_t a, uint32_t b, float t) {
    t = std::clamp(t, 0.0f, 1.0f);
    uint32_t out = 0;
    for (int shift = 0; shift < 32; shift += 8) {
        const float ca = static_cast<float>((a >> shift) & 0xffu),
                    cb = static_cast<float>((b >> shift) & 0xffu);
        out |= static_cast<uint32_t>(std::lround(ca + (cb - ca) * t)) << shift;
    }
    return out;
}

}  // namespace palette
}  // namespace memcity::scene
