// Font metrics and the glyph atlas, without Vulkan (memcity_font).
#include <gtest/gtest.h>

#include <cstdlib>

#include "render/font.h"

namespace memcity::render {
namespace {

constexpr const char* kDejaVu = "/usr/share/fonts/truetype/dejavu/DejaVuSans.ttf";

const Font& font() {
    static const Font f = [] {
        auto r = Font::load(kDejaVu);
        if (!r.ok()) {
            ADD_FAILURE() << r.error().message;
            std::abort();
        }
        return std::move(*r);
    }();
    return f;
}

TEST(FontTest, WidthsGrowWithTextAndSize) {
    const Font& f = font();
    EXPECT_EQ(f.textWidth("", 14), 0.0f);
    const float a = f.textWidth("memcity", 14);
    EXPECT_GT(a, 30.0f);
    EXPECT_LT(a, 80.0f);
    EXPECT_GT(f.textWidth("memcity heap", 14), a);
    EXPECT_NEAR(f.textWidth("memcity", 28), 2 * a, 0.01f);  // widths scale linearly with the size
    EXPECT_EQ(f.textWidth("abc", 0), 0.0f);
}

TEST(FontTest, LayoutMatchesTheMeasuredWidthAndStaysInTheLineBox) {
    const Font& f = font();
    std::vector<GlyphQuad> quads;
    const float w = f.layout("Ag jy|", 16, {10, 20}, &quads);
    EXPECT_FLOAT_EQ(w, f.textWidth("Ag jy|", 16));
    EXPECT_EQ(quads.size(), 5u);  // the space has no quad
    for (const GlyphQuad& q : quads) {
        EXPECT_GE(q.p0.x, 9.0f);
        EXPECT_LE(q.p1.x, 10 + w + 1);
        EXPECT_GE(q.p0.y, 20.0f - 1);
        EXPECT_LE(q.p1.y, 20.0f + 16 + 1);
        EXPECT_GE(q.uv0.x, 0.0f);
        EXPECT_LE(q.uv1.y, 1.0f);
    }
}

TEST(FontTest, Latin1AndMissingCharacters) {
    const Font& f = font();
    EXPECT_EQ(f.codepoints("é ß ÿ"), (std::vector<uint32_t>{0xE9, ' ', 0xDF, ' ', 0xFF}));
    EXPECT_EQ(f.codepoints("…→"), (std::vector<uint32_t>{0x2026, 0x2192}));
    // Not in the atlas (CJK, emoji) and invalid UTF-8 draw as '?'.
    EXPECT_EQ(f.codepoints("\xE4\xB8\xAD\xF0\x9F\x98\x80\xFF"), (std::vector<uint32_t>{'?', '?', '?'}));
    EXPECT_FLOAT_EQ(f.textWidth("中", 14), f.textWidth("?", 14));
}

TEST(FontTest, Utf8Decoding) {
    EXPECT_EQ(decodeUtf8("a\xC3\xA9"), (std::vector<uint32_t>{'a', 0xE9}));
    EXPECT_EQ(decodeUtf8("\xC3"), (std::vector<uint32_t>{0xFFFD}));              // truncated
    EXPECT_EQ(decodeUtf8("\xC3(x"), (std::vector<uint32_t>{0xFFFD, '(', 'x'}));  // bad continuation
}

TEST(FontTest, AtlasHasGlyphsAndASolidBlock) {
    const Font& f = font();
    ASSERT_GT(f.atlasWidth(), 0u);
    ASSERT_EQ(f.atlasPixels().size(), size_t{f.atlasWidth()} * f.atlasHeight());
    size_t lit = 0;
    for (uint8_t p : f.atlasPixels())
        lit += p > 0;
    EXPECT_GT(lit, 10000u);
    const glm::vec2 uv = f.solidUv();
    const auto x = static_cast<size_t>(uv.x * static_cast<float>(f.atlasWidth()));
    const auto y = static_cast<size_t>(uv.y * static_cast<float>(f.atlasHeight()));
    EXPECT_EQ(f.atlasPixels()[y * f.atlasWidth() + x], 255);
}

TEST(FontTest, BadPathsAreClearErrors) {
    auto missing = Font::load("/nonexistent/font.ttf");
    ASSERT_FALSE(missing.ok());
    EXPECT_NE(missing.error().message.find("/nonexistent/font.ttf"), std::string::npos);
    auto not_a_font = Font::load("/etc/passwd");
    ASSERT_FALSE(not_a_font.ok());
    EXPECT_NE(not_a_font.error().message.find("not a TrueType font"), std::string::npos)
        << not_a_font.error().message;
    FontOptions bad;
    bad.bake_sizes = {0.0f};
    EXPECT_FALSE(Font::load(kDejaVu, bad).ok());
}

}  // namespace
}  // namespace memcity::render
