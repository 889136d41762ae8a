// Small 2D helpers shared by the overlay views (sunburst, icicle, timeline): a rectangle of
// framebuffer pixels, text measuring with a fallback estimate, and fitting a label into a width.
// Pixels as in render/draw_list.h: origin top left, y down.
#pragma once

#include <cstdint>
#include <functional>
#include <optional>
#include <string>
#include <string_view>

#include <glm/glm.hpp>

namespace memcity::scene {

// An axis-aligned rectangle in pixels; min is the top-left corner. Empty when max <= min.
struct PixelRect {
    glm::vec2 min{0.0f}, max{0.0f};

    float width() const { return max.x - min.x; }
    float height() const { return max.y - min.y; }
    glm::vec2 center() const { return (min + max) * 0.5f; }
    bool empty() const { return max.x <= min.x || max.y <= min.y; }
    // Half-open: min inclusive, max exclusive.
    bool contains(glm::vec2 p) const { return p.x >= min.x && p.x < max.x && p.y >= min.y && p.y < max.y; }
    // Shrunk by `px` on every side (never past its centre).
    PixelRect inset(float px) const;
};

// Measures the width in pixels of one line of UTF-8 text drawn `size_px` tall (the renderer's
// glyph atlas can provide it; the scene builders run without one).
using MeasureText = std::function<float(std::string_view text, float size_px)>;

// The fallback estimate: 0.55 × size_px per character (UTF-8 code points, not bytes).
float estimateTextWidth(std::string_view text, float size_px);
// `measure(text, size_px)` when given, else the estimate.
float textWidth(const MeasureText& measure, std::string_view text, float size_px);

// `text` when it is at most `width_px` wide; otherwise its longest prefix of at least
// `min_chars` code points (less trailing spaces and dots) followed by `ellipsis` that is;
// otherwise nothing. `fits` (when given) adds a condition on the candidate's measured width (a
// sunburst sector checks its box); it must not accept a width after refusing a smaller one.
std::optional<std::string> fitText(std::string_view text, float size_px, float width_px,
                                   const MeasureText& measure, size_t min_chars = 3,
                                   const std::function<bool(float width_px)>& fits = nullptr,
                                   std::string_view ellipsis = "..");

// A text colour that reads on `fill`: dark on light fills, palette::kText on dark ones.
uint32_t textColorOn(uint32_t fill);

}  // namespace memcity::scene
