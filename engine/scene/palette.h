// The colours every view shares, chosen to stay apart for the common colour-vision deficiencies
// (the Okabe–Ito palette for the growth trend) and to read on a dark background.
#pragma once

#include <cstdint>
#include <string_view>

#include "render/draw_list.h"

namespace memcity::scene {

// How a node's value moved over the time shown (see classifyTrend).
enum class Trend : uint8_t {
    kShrinking,        // lost more than the stable band
    kStable,           // within the stable band
    kGrowing,          // gained more than the stable band
    kStronglyGrowing,  // gained more than the strong threshold
};
inline constexpr int kTrendCount = 4;

std::string_view trendName(Trend trend);

struct TrendOptions {
    double stable_band = 0.10;  // |change| / reference up to this share is stable
    double strong = 0.50;       // change / reference above this share is strongly growing
};

// The trend of a value that went from `first` to `now`, relative to the larger of the two (so a
// node that appears from nothing is strongly growing and one that vanishes is shrinking).
// Both zero: stable.
Trend classifyTrend(double first, double now, const TrendOptions& options = {});

namespace palette {
inline constexpr uint32_t kBackground = render::rgba(22, 24, 29);
inline constexpr uint32_t kPanel = render::rgba(34, 37, 44);
inline constexpr uint32_t kText = render::rgba(230, 232, 236);
inline constexpr uint32_t kTextDim = render::rgba(150, 156, 166);
inline constexpr uint32_t kGrid = render::rgba(60, 64, 74);
inline constexpr uint32_t kSelection = render::rgba(255, 255, 255);

// Growth trend (Okabe–Ito): blue, grey, orange, vermillion.
uint32_t trendColor(Trend trend, uint8_t alpha = 255);
// District plates, darker the deeper they sit (depth 1 = a child of the root).
uint32_t districtColor(uint32_t depth);
// Distinct categorical colours for sunburst/icicle nodes that are not coloured by trend.
uint32_t categoryColor(uint32_t index, uint8_t alpha = 255);
// `color` with its alpha replaced.
constexpr uint32_t withAlpha(uint32_t color, uint8_t alpha) {
    return (color & 0x00ffffffu) | uint32_t{alpha} << 24;
}
// Mixes two colours channel by channel: t = 0 gives a, 1 gives b.
uint32_t mix(uint32_t a, uint32_t b, float t);
}  // namespace palette

}  // namespace memcity::scene
