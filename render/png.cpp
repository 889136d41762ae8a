#include "render/png.h"

#include <stb_image.h>
#include <stb_image_write.h>

#include <algorithm>
#include <cerrno>
#include <cstdlib>
#include <cstring>

namespace memcity::render {

ImageDiff compareImages(const Image& a, const Image& b, uint8_t threshold) {
    ImageDiff d;
    if (a.width != b.width || a.height != b.height || a.rgba.size() != b.rgba.size()) {
        d.same_size = false;
        d.max_channel_diff = 255;
        d.mean_abs_diff = 255;
        d.pixel_count = std::max(size_t{a.width} * a.height, size_t{b.width} * b.height);
        d.pixels_over_threshold = d.pixel_count;
        return d;
    }
    d.pixel_count = size_t{a.width} * a.height;
    uint64_t sum = 0;
    for (size_t p = 0; p < d.pixel_count; ++p) {
        bool over = false;
        for (size_t c = 0; c < 4; ++c) {
            const int diff = std::abs(int{a.rgba[p * 4 + c]} - int{b.rgba[p * 4 + c]});
            sum += static_cast<uint64_t>(diff);
            d.max_channel_diff = std::max(d.max_channel_diff, static_cast<uint8_t>(diff));
            over = over || diff > threshold;
        }
        d.pixels_over_threshold += over ? 1 : 0;
    }
    d.mean_abs_diff = d.pixel_count ? static_cast<double>(sum) / static_cast<double>(d.pixel_count * 4) : 0.0;
    return d;
}

Status writePng(const std::string& path, const Image& image) {
    if (image.width == 0 || image.height == 0 || image.rgba.size() != size_t{image.width} * image.height * 4)
        return Error{path + ": cannot write an empty or inconsistent image (" + std::to_string(image.width) +
                     "x" + std::to_string(image.height) + ", " + std::to_string(image.rgba.size()) +
                     " bytes)"};
    if (image.width > 1u << 24 || image.height > 1u << 24) return Error{path + ": image too large for PNG"};
    if (!stbi_write_png(path.c_str(), static_cast<int>(image.width), static_cast<int>(image.height), 4,
                        image.rgba.data(), static_cast<int>(image.width * 4)))
        return Error{path + ": cannot write PNG (" + std::strerror(errno) + ")"};
    return {};
}

Result<Image> readPng(const std::string& path) {
    int w = 0, h = 0, channels = 0;
    stbi_uc* data = stbi_load(path.c_str(), &w, &h, &channels, 4);
    if (!data) {
        const char* reason = stbi_failure_reason();
        return Error{path + ": cannot read PNG (" + (reason ? reason : "unknown error") + ")"};
    }
    Image image;
    image.width = static_cast<uint32_t>(w);
    image.height = static_cast<uint32_t>(h);
    image.rgba.assign(data, data + size_t{image.width} * image.height * 4);
    stbi_image_free(data);
    return image;
}

}  // namespace memcity::render
