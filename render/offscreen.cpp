#include "render/offscreen.h"

#include <algorithm>
#include <cstring>

namespace memcity::render {

Result<RenderTarget> RenderTarget::create(const Device& device, Allocator& allocator,
                                          const TargetOptions& options) {
    const uint32_t max_dim = device.properties().limits.maxImageDimension2D;
    if (options.width == 0 || options.height == 0 || options.width > max_dim || options.height > max_dim)
        return Error{"render target size " + std::to_string(options.width) + "x" +
                     std::to_string(options.height) + " is outside 1.." + std::to_string(max_dim) +
                     " (this device's maxImageDimension2D)"};
    // Refuse what would exhaust the device (lavapipe would try, in system memory).
    const VkDeviceSize samples = options.samples;
    const VkDeviceSize bytes_per_pixel = (samples > 1 ? 4 * samples : 0) + 4 * samples +
                                         (options.own_color ? 4 : 0) + (options.readback ? 4 : 0);
    const VkDeviceSize bytes = VkDeviceSize{options.width} * options.height * bytes_per_pixel;
    VkDeviceSize heap = 0;
    const VkPhysicalDeviceMemoryProperties& memory = device.memoryProperties();
    for (uint32_t i = 0; i < memory.memoryHeapCount; ++i)
        if (memory.memoryHeaps[i].flags & VK_MEMORY_HEAP_DEVICE_LOCAL_BIT)
            heap = std::max(heap, memory.memoryHeaps[i].size);
    if (heap > 0 && bytes > heap / 2)
        return Error{"render target " + std::to_string(options.width) + "x" + std::to_string(options.height) +
                     " with " + std::to_string(samples) + " samples needs " + std::to_string(bytes >> 20) +
                     " MiB, more than half of the device's largest memory heap (" +
                     std::to_string(heap >> 20) + " MiB)"};
    RenderTarget t;
    t.options_ = options;
    if (options.samples != VK_SAMPLE_COUNT_1_BIT) {
        ImageDesc msaa;
        msaa.width = options.width;
        msaa.height = options.height;
        msaa.format = options.color_format;
        msaa.usage = VK_IMAGE_USAGE_COLOR_ATTACHMENT_BIT | VK_IMAGE_USAGE_TRANSIENT_ATTACHMENT_BIT;
        msaa.samples = options.samples;
        Result<Image2D> image = Image2D::create(device, allocator, msaa, "msaa colour");
        if (!image) return image.error();
        t.msaa_color_ = std::move(*image);
    }
    ImageDesc depth;
    depth.width = options.width;
    depth.height = options.height;
    depth.format = options.depth_format;
    depth.usage = VK_IMAGE_USAGE_DEPTH_STENCIL_ATTACHMENT_BIT | VK_IMAGE_USAGE_TRANSIENT_ATTACHMENT_BIT;
    depth.samples = options.samples;
    depth.aspect = VK_IMAGE_ASPECT_DEPTH_BIT;
    Result<Image2D> depth_image = Image2D::create(device, allocator, depth, "depth");
    if (!depth_image) return depth_image.error();
    t.depth_ = std::move(*depth_image);
    if (options.own_color) {
        ImageDesc color;
        color.width = options.width;
        color.height = options.height;
        color.format = options.color_format;
        color.usage = VK_IMAGE_USAGE_COLOR_ATTACHMENT_BIT | VK_IMAGE_USAGE_TRANSFER_SRC_BIT;
        Result<Image2D> image = Image2D::create(device, allocator, color, "offscreen colour");
        if (!image) return image.error();
        t.color_ = std::move(*image);
    }
    if (options.own_color && options.readback) {
        Result<Buffer> buffer =
            Buffer::create(device, allocator, VkDeviceSize{options.width} * options.height * 4,
                           VK_BUFFER_USAGE_TRANSFER_DST_BIT, MemoryUsage::kReadback, "readback");
        if (!buffer) return buffer.error();
        t.readback_ = std::move(*buffer);
    }
    return t;
}

void RenderTarget::recordReadback(VkCommandBuffer cmd) const {
    VkBufferImageCopy region{};
    region.imageSubresource = {VK_IMAGE_ASPECT_COLOR_BIT, 0, 0, 1};
    region.imageExtent = {options_.width, options_.height, 1};
    vkCmdCopyImageToBuffer(cmd, color_.handle(), VK_IMAGE_LAYOUT_TRANSFER_SRC_OPTIMAL, readback_.handle(), 1,
                           &region);
    VkBufferMemoryBarrier2 barrier{VK_STRUCTURE_TYPE_BUFFER_MEMORY_BARRIER_2};
    barrier.srcStageMask = VK_PIPELINE_STAGE_2_COPY_BIT;
    barrier.srcAccessMask = VK_ACCESS_2_TRANSFER_WRITE_BIT;
    barrier.dstStageMask = VK_PIPELINE_STAGE_2_HOST_BIT;
    barrier.dstAccessMask = VK_ACCESS_2_HOST_READ_BIT;
    barrier.srcQueueFamilyIndex = VK_QUEUE_FAMILY_IGNORED;
    barrier.dstQueueFamilyIndex = VK_QUEUE_FAMILY_IGNORED;
    barrier.buffer = readback_.handle();
    barrier.size = VK_WHOLE_SIZE;
    VkDependencyInfo dep{VK_STRUCTURE_TYPE_DEPENDENCY_INFO};
    dep.bufferMemoryBarrierCount = 1;
    dep.pBufferMemoryBarriers = &barrier;
    vkCmdPipelineBarrier2(cmd, &dep);
}

Image RenderTarget::readPixels() const {
    Image image;
    image.width = options_.width;
    image.height = options_.height;
    image.rgba.resize(size_t{image.width} * image.height * 4);
    std::memcpy(image.rgba.data(), readback_.mapped(), image.rgba.size());
    return image;
}

}  // namespace memcity::render
