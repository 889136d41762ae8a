#include "render/font.h"

#include <stb_truetype.h>

#include <algorithm>
#include <array>
#include <cmath>
#include <cstdint>
#include <fstream>
#include <iterator>

namespace memcity::render {
namespace {

// Beyond ASCII and Latin-1: the symbols labels and panels tend to use.
constexpr uint32_t kExtraCodepoints[] = {0x2013, 0x2014, 0x2018, 0x2019, 0x201C, 0x201D, 0x2022,
                                         0x2026, 0x2190, 0x2191, 0x2192, 0x2193, 0x2212, 0x2248,
                                         0x2264, 0x2265, 0x25B2, 0x25B6, 0x25BC, 0x25C0};
constexpr uint32_t kReplacement = '?';
constexpr int kSolidBlock = 4;  // pixels of the solid block below the packed glyphs

uint32_t be32(const uint8_t* p) {
    return uint32_t{p[0]} << 24 | uint32_t{p[1]} << 16 | uint32_t{p[2]} << 8 | p[3];
}
uint32_t be16(const uint8_t* p) {
    return uint32_t{p[0]} << 8 | p[1];
}

// stb_truetype trusts its input: check that the table directory and the tables lie in the file.
bool plausibleTrueType(const std::vector<uint8_t>& data) {
    if (data.size() < 12) return false;
    const uint32_t tag = be32(data.data());
    if (tag != 0x00010000u && tag != 0x74727565u /* true */ && tag != 0x4F54544Fu /* OTTO */) return false;
    const size_t tables = be16(data.data() + 4);
    if (tables == 0 || 12 + 16 * tables > data.size()) return false;
    for (size_t i = 0; i < tables; ++i) {
        const uint8_t* entry = data.data() + 12 + 16 * i;
        const uint64_t offset = be32(entry + 8), length = be32(entry + 12);
        if (offset + length > data.size()) return false;
    }
    return true;
}

}  // namespace

struct Font::Impl {
    std::vector<uint8_t> ttf;  // stbtt_fontinfo points into it
    stbtt_fontinfo info{};
    FontOptions options;
    float unit_scale = 0;                               // scale for a 1-pixel line height
    int ascent = 0;                                     // font units
    std::vector<int> codepoints;                        // sorted; slot = index
    std::vector<int> glyphs;                            // glyph index per slot
    std::vector<int> advances;                          // font units per slot
    std::vector<int16_t> kerning;                       // font units per pair: [previous * slots + next]
    std::array<int, 256> latin_slots{};                 // slot() of code points below 256
    std::vector<std::vector<stbtt_packedchar>> packed;  // per bake size, per slot
    uint32_t width = 0, height = 0;
    std::vector<uint8_t> pixels;
    glm::vec2 solid_uv{0.0f};
    int replacement_slot = 0;

    int slot(uint32_t cp) const { return cp < latin_slots.size() ? latin_slots[cp] : searchSlot(cp); }
    int searchSlot(uint32_t cp) const {
        auto it = std::lower_bound(codepoints.begin(), codepoints.end(), static_cast<int>(cp));
        if (it == codepoints.end() || *it != static_cast<int>(cp)) return replacement_slot;
        return static_cast<int>(it - codepoints.begin());
    }

    size_t bakeFor(float size_px) const {
        size_t best = 0;
        float best_error = INFINITY;
        for (size_t i = 0; i < options.bake_sizes.size(); ++i) {
            const float error = std::fabs(std::log(size_px / options.bake_sizes[i]));
            if (error < best_error) {
                best_error = error;
                best = i;
            }
        }
        return best;
    }

    float run(std::string_view text, float size_px, glm::vec2 top_left, std::vector<GlyphQuad>* quads) const {
        if (!(size_px > 0)) return 0;
        const float scale = unit_scale * size_px;
        const size_t bake = bakeFor(size_px);
        const float bake_scale = size_px / options.bake_sizes[bake];
        const bool snap = std::fabs(bake_scale - 1.0f) < 1e-3f;
        float baseline = top_left.y + static_cast<float>(ascent) * scale;
        if (snap) baseline = std::round(baseline);
        float pen = top_left.x;
        int previous = -1;
        for (uint32_t cp : decodeUtf8(text)) {
            const int s = slot(cp);
            if (previous >= 0 && !kerning.empty())
                pen += static_cast<float>(
                           kerning[static_cast<size_t>(previous) * glyphs.size() + static_cast<size_t>(s)]) *
                       scale;
            const stbtt_packedchar& pc = packed[bake][static_cast<size_t>(s)];
            if (quads && pc.x1 > pc.x0 && pc.y1 > pc.y0) {
                GlyphQuad q;
                q.p0 = {pen + pc.xoff * bake_scale, baseline + pc.yoff * bake_scale};
                q.p1 = {pen + pc.xoff2 * bake_scale, baseline + pc.yoff2 * bake_scale};
                if (snap) {
                    const float dx = std::round(q.p0.x) - q.p0.x;
                    q.p0.x += dx;
                    q.p1.x += dx;
                }
                q.uv0 = {static_cast<float>(pc.x0) / static_cast<float>(width),
                         static_cast<float>(pc.y0) / static_cast<float>(height)};
                q.uv1 = {static_cast<float>(pc.x1) / static_cast<float>(width),
                         static_cast<float>(pc.y1) / static_cast<float>(height)};
                quads->push_back(q);
            }
            pen += static_cast<float>(advances[static_cast<size_t>(s)]) * scale;
            previous = s;
        }
        return pen - top_left.x;
    }
};

Font::Font(std::unique_ptr<Impl> impl) : impl_(std::move(impl)) {}
Font::Font(Font&&) noexcept = default;
Font& Font::operator=(Font&&) noexcept = default;
Font::~Font() = default;

Result<Font> Font::load(const std::string& path, float bake_px) {
    FontOptions options;
    options.bake_sizes = {bake_px};
    return load(path, options);
}

Result<Font> Font::load(const std::string& path, const FontOptions& options) {
    if (options.bake_sizes.empty()) return Error{path + ": no font sizes to bake"};
    for (float s : options.bake_sizes)
        if (!(s >= 4.0f && s <= 256.0f))
            return Error{path + ": bake size " + std::to_string(s) + " outside 4..256"};
    auto impl = std::make_unique<Impl>();
    impl->options = options;
    {
        std::ifstream in(path, std::ios::binary | std::ios::ate);
        if (!in) return Error{path + ": cannot open font file"};
        const std::streamoff size = in.tellg();
        if (size <= 0 || size > (std::streamoff{64} << 20))
            return Error{path + ": not a TrueType font (size)"};
        impl->ttf.resize(static_cast<size_t>(size));
        in.seekg(0);
        if (!in.read(reinterpret_cast<char*>(impl->ttf.data()), size))
            return Error{path + ": cannot read font file"};
    }
    if (!plausibleTrueType(impl->ttf) || !stbtt_InitFont(&impl->info, impl->ttf.data(), 0))
        return Error{path + ": not a TrueType font"};
    int descent = 0, line_gap = 0;
    stbtt_GetFontVMetrics(&impl->info, &impl->ascent, &descent, &line_gap);
    impl->unit_scale = stbtt_ScaleForPixelHeight(&impl->info, 1.0f);

    std::vector<uint32_t> wanted;
    for (uint32_t cp = 32; cp < 127; ++cp)
        wanted.push_back(cp);
    for (uint32_t cp = 160; cp < 256; ++cp)
        wanted.push_back(cp);
    wanted.insert(wanted.end(), std::begin(kExtraCodepoints), std::end(kExtraCodepoints));
    for (uint32_t cp : wanted) {
        const int glyph = stbtt_FindGlyphIndex(&impl->info, static_cast<int>(cp));
        if (glyph == 0 && cp != ' ') continue;  // not in this font: drawn as '?'
        int advance = 0, bearing = 0;
        stbtt_GetGlyphHMetrics(&impl->info, glyph, &advance, &bearing);
        impl->codepoints.push_back(static_cast<int>(cp));
        impl->glyphs.push_back(glyph);
        impl->advances.push_back(advance);
    }
    auto q = std::find(impl->codepoints.begin(), impl->codepoints.end(), static_cast<int>(kReplacement));
    if (q == impl->codepoints.end() || impl->glyphs[static_cast<size_t>(q - impl->codepoints.begin())] == 0)
        return Error{path + ": font has no '?' glyph"};
    impl->replacement_slot = static_cast<int>(q - impl->codepoints.begin());
    // Text is measured in every frame (labels are fitted to their districts): look slots and pair
    // kerning up in tables rather than in the font (about 200 glyphs: 40k pairs, 80 KiB, ~2 ms).
    for (uint32_t cp = 0; cp < impl->latin_slots.size(); ++cp)
        impl->latin_slots[cp] = impl->searchSlot(cp);
    if (options.kerning) {
        const size_t n = impl->glyphs.size();
        impl->kerning.resize(n * n);
        for (size_t a = 0; a < n; ++a)
            for (size_t b = 0; b < n; ++b)
                impl->kerning[a * n + b] = static_cast<int16_t>(
                    stbtt_GetGlyphKernAdvance(&impl->info, impl->glyphs[a], impl->glyphs[b]));
    }

    // Pack every size into the smallest atlas of these that holds them.
    static constexpr uint32_t kSizes[][2] = {{256, 256},   {512, 256},   {512, 512},  {1024, 512},
                                             {1024, 1024}, {2048, 1024}, {2048, 2048}};
    const int count = static_cast<int>(impl->codepoints.size());
    bool packed = false;
    for (const auto& size : kSizes) {
        const uint32_t w = size[0], h = size[1];
        impl->pixels.assign(size_t{w} * (h + kSolidBlock), 0);
        impl->packed.assign(options.bake_sizes.size(),
                            std::vector<stbtt_packedchar>(impl->codepoints.size()));
        std::vector<stbtt_pack_range> ranges(options.bake_sizes.size());
        for (size_t i = 0; i < ranges.size(); ++i) {
            ranges[i] = stbtt_pack_range{};
            ranges[i].font_size = options.bake_sizes[i];
            ranges[i].array_of_unicode_codepoints = impl->codepoints.data();
            ranges[i].num_chars = count;
            ranges[i].chardata_for_range = impl->packed[i].data();
        }
        stbtt_pack_context pack;
        if (!stbtt_PackBegin(&pack, impl->pixels.data(), static_cast<int>(w), static_cast<int>(h),
                             static_cast<int>(w), 1, nullptr))
            return Error{path + ": cannot start packing the glyph atlas"};
        const int ok =
            stbtt_PackFontRanges(&pack, impl->ttf.data(), 0, ranges.data(), static_cast<int>(ranges.size()));
        stbtt_PackEnd(&pack);
        if (ok) {
            impl->width = w;
            impl->height = h + kSolidBlock;
            packed = true;
            break;
        }
    }
    if (!packed) return Error{path + ": the glyph atlas for these sizes does not fit 2048x2048"};
    // The solid block in the rows below the glyphs.
    const uint32_t glyph_rows = impl->height - kSolidBlock;
    for (uint32_t y = glyph_rows; y < impl->height; ++y)
        for (uint32_t x = 0; x < kSolidBlock; ++x)
            impl->pixels[size_t{y} * impl->width + x] = 255;
    impl->solid_uv = {static_cast<float>(kSolidBlock / 2) / static_cast<float>(impl->width),
                      static_cast<float>(glyph_rows + kSolidBlock / 2) / static_cast<float>(impl->height)};
    return Font(std::move(impl));
}

float Font::textWidth(std::string_view text, float size_px) const {
    return impl_->run(text, size_px, glm::vec2(0.0f), nullptr);
}

float Font::ascent(float size_px) const {
    return static_cast<float>(impl_->ascent) * impl_->unit_scale * size_px;
}

float Font::layout(std::string_view text, float size_px, glm::vec2 top_left,
                   std::vector<GlyphQuad>* quads) const {
    return impl_->run(text, size_px, top_left, quads);
}

uint32_t Font::atlasWidth() const {
    return impl_->width;
}
uint32_t Font::atlasHeight() const {
    return impl_->height;
}
const std::vector<uint8_t>& Font::atlasPixels() const {
    return impl_->pixels;
}
glm::vec2 Font::solidUv() const {
    return impl_->solid_uv;
}

std::vector<uint32_t> Font::codepoints(std::string_view text) const {
    std::vector<uint32_t> out = decodeUtf8(text);
    for (uint32_t& cp : out)
        cp = static_cast<uint32_t>(impl_->codepoints[static_cast<size_t>(impl_->slot(cp))]);
    return out;
}

std::vector<uint32_t> decodeUtf8(std::string_view text) {
    std::vector<uint32_t> out;
    out.reserve(text.size());
    size_t i = 0;
    while (i < text.size()) {
        const auto byte = [&](size_t k) { return static_cast<uint8_t>(text[k]); };
        const uint8_t b0 = byte(i);
        uint32_t cp = 0;
        size_t extra = 0;
        if (b0 < 0x80) {
            cp = b0;
        } else if ((b0 & 0xE0) == 0xC0) {
            cp = b0 & 0x1Fu;
            extra = 1;
        } else if ((b0 & 0xF0) == 0xE0) {
            cp = b0 & 0x0Fu;
            extra = 2;
        } else if ((b0 & 0xF8) == 0xF0) {
            cp = b0 & 0x07u;
            extra = 3;
        } else {
            out.push_back(0xFFFD);
            ++i;
            continue;
        }
        bool valid = i + extra < text.size() || extra == 0;
        for (size_t k = 1; valid && k <= extra; ++k) {
            if ((byte(i + k) & 0xC0) != 0x80) {
                valid = false;
                break;
            }
            cp = cp << 6 | (byte(i + k) & 0x3Fu);
        }
        if (!valid) {
            out.push_back(0xFFFD);
            ++i;
            continue;
        }
        out.push_back(cp);
        i += extra + 1;
    }
    return out;
}

}  // namespace memcity::render
