#include "scene/screen.h"

#include <algorithm>
#include <vector>

#include "scene/palette.h"

namespace memcity::scene {

PixelRect PixelRect::inset(float px) const {
    const glm::vec2 c = center();
    PixelRect r{min + glm::vec2(px), max - glm::vec2(px)};
    r.min = glm::min(r.min, c);
    r.max = glm::max(r.max, c);
    return r;
}

namespace {

// Byte offsets of the code points of `text`, and its size at the end.
std::vector<size_t> codePointStarts(std::string_view text) {
    std::vector<size_t> starts;
    for (size_t i = 0; i < text.size(); ++i)
        if ((static_cast<unsigned char>(text[i]) & 0xc0u) != 0x80u) starts.push_back(i);
    starts.push_back(text.size());
    return starts;
}

}  // namespace

float estimateTextWidth(std::string_view text, float size_px) {
    size_t chars = 0;
    for (char c : text)
        if ((static_cast<unsigned char>(c) & 0xc0u) != 0x80u) ++chars;
    return 0.55f * size_px * static_cast<float>(chars);
}

float textWidth(const MeasureText& measure, std::string_view text, float size_px) {
    return measure ? measure(text, size_px) : estimateTextWidth(text, size_px);
}

std::optional<std::string> fitText(std::string_view text, float size_px, float width_px,
                                   const MeasureText& measure, size_t min_chars,
                                   const std::function<bool(float width_px)>& fits,
                                   std::string_view ellipsis) {
    auto accept = [&](std::string_view candidate) {
        const float w = textWidth(measure, candidate, size_px);
        return w <= width_px && (!fits || fits(w));
    };
    if (text.empty() || width_px <= 0) return std::nullopt;
    if (accept(text)) return std::string(text);
    const std::vector<size_t> starts = codePointStarts(text);
    // The first n code points, less trailing spaces and dots, with the ellipsis ("" when nothing is left).
    auto prefix = [&](size_t n) {
        std::string candidate(text.substr(0, starts[n]));
        while (!candidate.empty() && (candidate.back() == ' ' || candidate.back() == '.'))
            candidate.pop_back();
        if (!candidate.empty()) candidate += ellipsis;
        return candidate;
    };
    // A longer prefix is no narrower, so bisect for the longest that fits: log2(n) measures where
    // walking down from the whole text measured up to n times (labels of sites and paths are long,
    // and a city of 10k districts measures hundreds of them in every frame).
    std::optional<std::string> best;
    size_t lo = min_chars, hi = starts.size() - 1;  // n in [lo, hi)
    while (lo < hi) {
        const size_t n = lo + (hi - lo) / 2;
        std::string candidate = prefix(n);
        if (!candidate.empty() && accept(candidate)) {
            best = std::move(candidate);
            lo = n + 1;
        } else {
            hi = n;
        }
    }
    return best;
}

uint32_t textColorOn(uint32_t fill) {
    const float r = static_cast<float>(fill & 0xffu), g = static_cast<float>((fill >> 8) & 0xffu),
                b = static_cast<float>((fill >> 16) & 0xffu);
    const float luma = (0.2126f * r + 0.7152f * g + 0.0722f * b) / 255.0f;
    return luma > 0.55f ? render::rgba(18, 20, 24) : palette::kText;
}

}  // namespace memcity::scene
