// PNG files and image comparison (no Vulkan).
#include <gtest/gtest.h>

#include <cstdio>
#include <filesystem>

#include "render/png.h"

namespace memcity::render {
namespace {

Image gradient(uint32_t w, uint32_t h) {
    Image image{w, h, std::vector<uint8_t>(size_t{w} * h * 4)};
    for (uint32_t y = 0; y < h; ++y)
        for (uint32_t x = 0; x < w; ++x) {
            uint8_t* p = &image.rgba[(size_t{y} * w + x) * 4];
            p[0] = static_cast<uint8_t>(x * 7);
            p[1] = static_cast<uint8_t>(y * 11);
            p[2] = static_cast<uint8_t>(x ^ y);
            p[3] = static_cast<uint8_t>(255 - x);
        }
    return image;
}

std::string tempPath(const char* name) {
    return (std::filesystem::temp_directory_path() / (std::string("memcity_render_") + name)).string();
}

TEST(PngTest, WriteThenReadGivesTheSamePixels) {
    const Image image = gradient(13, 7);
    const std::string path = tempPath("roundtrip.png");
    ASSERT_TRUE(writePng(path, image).ok());
    auto back = readPng(path);
    ASSERT_TRUE(back.ok()) << back.error().message;
    EXPECT_EQ(back->width, 13u);
    EXPECT_EQ(back->height, 7u);
    EXPECT_EQ(back->rgba, image.rgba);
    std::remove(path.c_str());
}

TEST(PngTest, ErrorsNameThePath) {
    auto missing = readPng("/nonexistent/dir/a.png");
    ASSERT_FALSE(missing.ok());
    EXPECT_NE(missing.error().message.find("/nonexistent/dir/a.png"), std::string::npos);
    Status st = writePng("/nonexistent/dir/b.png", gradient(2, 2));
    ASSERT_FALSE(st.ok());
    EXPECT_NE(st.error().message.find("/nonexistent/dir/b.png"), std::string::npos);
    EXPECT_FALSE(writePng(tempPath("empty.png"), Image{}).ok());
    EXPECT_FALSE(writePng(tempPath("short.png"), Image{4, 4, std::vector<uint8_t>(10)}).ok());
}

TEST(PngTest, CompareImages) {
    const Image a = gradient(10, 10);
    Image b = a;
    EXPECT_TRUE(compareImages(a, b, 0).identical());
    b.rgba[0] = static_cast<uint8_t>(b.rgba[0] + 5);                       // pixel 0: +5 on red
    b.rgba[4 * 10 + 2] = static_cast<uint8_t>(b.rgba[4 * 10 + 2] ^ 0x80);  // pixel 10: 128 on blue
    const ImageDiff d = compareImages(a, b, 4);
    EXPECT_TRUE(d.same_size);
    EXPECT_FALSE(d.identical());
    EXPECT_EQ(d.max_channel_diff, 128);
    EXPECT_EQ(d.pixels_over_threshold, 2u);
    EXPECT_EQ(d.pixel_count, 100u);
    EXPECT_NEAR(d.mean_abs_diff, (5.0 + 128.0) / 400.0, 1e-9);
    EXPECT_EQ(compareImages(a, b, 5).pixels_over_threshold, 1u);
    EXPECT_NEAR(compareImages(a, b, 5).fractionOverThreshold(), 0.01, 1e-12);
    const ImageDiff other = compareImages(a, gradient(10, 11), 0);
    EXPECT_FALSE(other.same_size);
    EXPECT_FALSE(other.identical());
}

}  // namespace
}  // namespace memcity::render
