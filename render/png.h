// CPU images: PNG files through stb_image / stb_image_write, and comparing two images.
#pragma once

#include <cstddef>
#include <cstdint>
#include <string>
#include <vector>

#include "util/result.h"

namespace memcity::render {

// Tightly packed RGBA8 pixels, top row first: rgba.size() == width * height * 4.
struct Image {
    uint32_t width = 0, height = 0;
    std::vector<uint8_t> rgba;

    // The pixel at (x, y) packed as render::rgba() does (0xAABBGGRR). Contract: x < width, y < height.
    uint32_t pixel(uint32_t x, uint32_t y) const {
        const uint8_t* p = &rgba[(size_t{y} * width + x) * 4];
        return uint32_t{p[0]} | uint32_t{p[1]} << 8 | uint32_t{p[2]} << 16 | uint32_t{p[3]} << 24;
    }
};

// How two images differ. Images of different sizes compare as entirely different
// (same_size false, every other field as if every channel differed by 255).
struct ImageDiff {
    bool same_size = true;
    uint8_t max_channel_diff = 0;      // largest |a - b| over every channel of every pixel
    double mean_abs_diff = 0;          // mean |a - b| over every channel (0..255)
    size_t pixels_over_threshold = 0;  // pixels where some channel differs by more than the threshold
    size_t pixel_count = 0;            // pixels compared (those of the larger image when sizes differ)

    bool identical() const { return same_size && max_channel_diff == 0; }
    double fractionOverThreshold() const {
        return pixel_count ? static_cast<double>(pixels_over_threshold) / static_cast<double>(pixel_count)
                           : 0.0;
    }
};

ImageDiff compareImages(const Image& a, const Image& b, uint8_t threshold);

// Writes an RGBA PNG; the error names the path.
Status writePng(const std::string& path, const Image& image);
// Reads any PNG stb_image understands, converted to RGBA8; the error names the path.
Result<Image> readPng(const std::string& path);

}  // namespace memcity::render
