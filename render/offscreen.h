// Render targets: the multisampled colour image (when MSAA is on), the depth image, and for
// offscreen rendering the single-sample colour image the frame resolves into plus a host buffer
// it is copied to for readback. A swapchain frame uses the same attachments with the swapchain
// image as the resolve target.
#pragma once

#include <vulkan/vulkan.h>

#include <cstdint>

#include "render/device.h"
#include "render/png.h"
#include "render/resources.h"

namespace memcity::render {

struct TargetOptions {
    uint32_t width = 0, height = 0;
    VkFormat color_format = VK_FORMAT_R8G8B8A8_UNORM;
    VkFormat depth_format = VK_FORMAT_UNDEFINED;
    VkSampleCountFlagBits samples = VK_SAMPLE_COUNT_1_BIT;
    // Create the single-sample colour image (offscreen); false when the swapchain provides it.
    bool own_color = true;
    // Create the readback buffer (own_color must be true; RGBA8 only).
    bool readback = true;
};

// The images one frame renders into. Move-only.
class RenderTarget {
public:
    RenderTarget() = default;
    // Errors: size 0 or beyond the device's maxImageDimension2D, out of memory.
    static Result<RenderTarget> create(const Device& device, Allocator& allocator,
                                       const TargetOptions& options);

    explicit operator bool() const { return static_cast<bool>(depth_); }
    const TargetOptions& options() const { return options_; }
    uint32_t width() const { return options_.width; }
    uint32_t height() const { return options_.height; }
    // The multisampled colour image, or none with 1 sample.
    const Image2D& msaaColor() const { return msaa_color_; }
    const Image2D& depth() const { return depth_; }
    // The single-sample colour image (own_color), else none.
    const Image2D& color() const { return color_; }
    const Buffer& readbackBuffer() const { return readback_; }

    // Records the copy of the colour image (in TRANSFER_SRC_OPTIMAL) to the readback buffer
    // and the barrier that makes it visible to the host.
    void recordReadback(VkCommandBuffer cmd) const;
    // After the frame's fence: the readback buffer as an Image.
    Image readPixels() const;

private:
    TargetOptions options_;
    Image2D msaa_color_;
    Image2D depth_;
    Image2D color_;
    Buffer readback_;
};

}  // namespace memcity::render
