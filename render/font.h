// Font metrics and a glyph atlas baked from a TrueType file with stb_truetype, with no Vulkan:
// the engine measures label text with it, and the renderer uploads its atlas (render/text.h).
#pragma once

#include <cstdint>
#include <memory>
#include <string>
#include <string_view>
#include <vector>

#include <glm/glm.hpp>

#include "util/result.h"

namespace memcity::render {

struct FontOptions {
    // Pixel heights the atlas holds glyphs for; text of another size is drawn from the nearest
    // one, scaled. More sizes cost atlas space (each ~200 glyphs).
    std::vector<float> bake_sizes = {11.0f, 12.0f, 13.0f, 14.0f, 16.0f, 18.0f,
                                     20.0f, 24.0f, 28.0f, 34.0f, 48.0f};
    bool kerning = true;  // apply the font's pair kerning
};

// One glyph's quad in pixels and atlas coordinates (0..1).
struct GlyphQuad {
    glm::vec2 p0{0.0f}, p1{0.0f};    // top left, bottom right, pixels
    glm::vec2 uv0{0.0f}, uv1{0.0f};  // the same corners in the atlas
};

// A loaded font: ASCII, Latin-1 and a few typographic symbols (dashes, quotes, bullet, ellipsis,
// arrows, minus, <= >=, triangles); anything else is drawn as '?'. Text is UTF-8, one line.
// Sizes are line heights in pixels (ascent - descent). Move-only; immutable after load, so
// const methods may be called from several threads.
class Font {
public:
    // Errors name the path: missing file, not a TrueType font, atlas too large.
    static Result<Font> load(const std::string& path, const FontOptions& options = {});
    // Convenience: one bake size.
    static Result<Font> load(const std::string& path, float bake_px);

    Font(Font&&) noexcept;
    Font& operator=(Font&&) noexcept;
    ~Font();

    // Advance width of `text` at `size_px` in pixels (kerning included), as drawn by layout().
    float textWidth(std::string_view text, float size_px) const;
    // Distance from the top of the line to the baseline at `size_px`.
    float ascent(float size_px) const;
    // Appends one quad per visible glyph of `text` drawn at `size_px` with the top-left corner of
    // its line at `top_left` (pixels, y down); returns the advance width (== textWidth).
    float layout(std::string_view text, float size_px, glm::vec2 top_left,
                 std::vector<GlyphQuad>* quads) const;

    // The atlas: one byte of coverage per pixel, row-major, top row first.
    uint32_t atlasWidth() const;
    uint32_t atlasHeight() const;
    const std::vector<uint8_t>& atlasPixels() const;
    // The centre of a solid (255) block in the atlas, for filled boxes drawn with the glyphs.
    glm::vec2 solidUv() const;
    // Decoded code points of `text` after mapping missing characters to '?'.
    std::vector<uint32_t> codepoints(std::string_view text) const;

private:
    struct Impl;
    explicit Font(std::unique_ptr<Impl> impl);
    std::unique_ptr<Impl> impl_;
};

// Decodes UTF-8; each invalid or truncated sequence yields U+FFFD.
std::vector<uint32_t> decodeUtf8(std::string_view text);

}  // namespace memcity::render
