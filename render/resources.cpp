#include "render/resources.h"

#include <algorithm>
#include <cstring>

#include "render/vk_check.h"

namespace memcity::render {
namespace {

VkDeviceSize alignUp(VkDeviceSize value, VkDeviceSize alignment) {
    return (value + alignment - 1) / alignment * alignment;
}

}  // namespace

// ---- Allocator

Allocator::Allocator(const Device& device, VkDeviceSize block_size)
    : device_(device),
      block_size_(block_size),
      granularity_(std::max<VkDeviceSize>(device.properties().limits.bufferImageGranularity, 16)) {}

Allocator::~Allocator() {
    for (Block& b : blocks_)
        if (b.memory) vkFreeMemory(device_.device(), b.memory, nullptr);
}

int Allocator::memoryType(uint32_t type_bits, VkMemoryPropertyFlags required,
                          VkMemoryPropertyFlags preferred) const {
    const VkPhysicalDeviceMemoryProperties& props = device_.memoryProperties();
    int fallback = -1;
    for (uint32_t i = 0; i < props.memoryTypeCount; ++i) {
        if (!(type_bits & (1u << i))) continue;
        const VkMemoryPropertyFlags flags = props.memoryTypes[i].propertyFlags;
        if ((flags & required) != required) continue;
        if ((flags & preferred) == preferred) return static_cast<int>(i);
        if (fallback < 0) fallback = static_cast<int>(i);
    }
    return fallback;
}

Result<uint32_t> Allocator::newBlock(uint32_t memory_type, VkDeviceSize size, bool dedicated) {
    VkMemoryAllocateInfo info{VK_STRUCTURE_TYPE_MEMORY_ALLOCATE_INFO};
    info.allocationSize = size;
    info.memoryTypeIndex = memory_type;
    Block block;
    if (VkResult r = vkAllocateMemory(device_.device(), &info, nullptr, &block.memory); r != VK_SUCCESS)
        return vkError(r, "vkAllocateMemory of " + std::to_string(size) + " bytes");
    block.size = size;
    block.memory_type = memory_type;
    block.dedicated = dedicated;
    block.free_ranges.emplace(0, size);
    if (device_.memoryProperties().memoryTypes[memory_type].propertyFlags &
        VK_MEMORY_PROPERTY_HOST_VISIBLE_BIT)
        VK_CHECK(vkMapMemory(device_.device(), block.memory, 0, VK_WHOLE_SIZE, 0, &block.mapped));
    // Reuse a released slot so block indices stay small.
    for (uint32_t i = 0; i < blocks_.size(); ++i) {
        if (!blocks_[i].memory) {
            blocks_[i] = std::move(block);
            return i;
        }
    }
    blocks_.push_back(std::move(block));
    return static_cast<uint32_t>(blocks_.size() - 1);
}

Result<Allocation> Allocator::allocate(const VkMemoryRequirements& requirements, MemoryUsage usage,
                                       std::string_view name) {
    VkMemoryPropertyFlags required = 0, preferred = 0;
    switch (usage) {
        case MemoryUsage::kGpuOnly: preferred = VK_MEMORY_PROPERTY_DEVICE_LOCAL_BIT; break;
        case MemoryUsage::kUpload:
            required = VK_MEMORY_PROPERTY_HOST_VISIBLE_BIT | VK_MEMORY_PROPERTY_HOST_COHERENT_BIT;
            break;
        case MemoryUsage::kReadback:
            required = VK_MEMORY_PROPERTY_HOST_VISIBLE_BIT | VK_MEMORY_PROPERTY_HOST_COHERENT_BIT;
            preferred = VK_MEMORY_PROPERTY_HOST_CACHED_BIT;
            break;
    }
    const int type = memoryType(requirements.memoryTypeBits, required, preferred | required);
    if (type < 0) return Error{"no Vulkan memory type fits " + std::string(name)};
    const uint32_t memory_type = static_cast<uint32_t>(type);
    const VkDeviceSize alignment = std::max(requirements.alignment, granularity_);
    const VkDeviceSize size = alignUp(requirements.size, granularity_);

    Allocation a;
    bool placed = false;
    if (size <= block_size_ / 2) {
        for (uint32_t bi = 0; bi < blocks_.size() && !placed; ++bi) {
            Block& b = blocks_[bi];
            if (!b.memory || b.dedicated || b.memory_type != memory_type) continue;
            for (auto it = b.free_ranges.begin(); it != b.free_ranges.end(); ++it) {
                const VkDeviceSize start = alignUp(it->first, alignment);
                const VkDeviceSize end = it->first + it->second;
                if (start + size > end) continue;
                const VkDeviceSize range_start = it->first;
                b.free_ranges.erase(it);
                if (start > range_start) b.free_ranges.emplace(range_start, start - range_start);
                if (end > start + size) b.free_ranges.emplace(start + size, end - (start + size));
                a.block = bi;
                a.offset = start;
                placed = true;
                break;
            }
        }
        if (!placed) {
            Result<uint32_t> bi = newBlock(memory_type, block_size_, false);
            if (!bi) return bi.error();
            Block& b = blocks_[*bi];
            b.free_ranges.clear();
            b.free_ranges.emplace(size, block_size_ - size);
            a.block = *bi;
            a.offset = 0;
        }
    } else {
        Result<uint32_t> bi = newBlock(memory_type, size, true);
        if (!bi) return bi.error();
        blocks_[*bi].free_ranges.clear();
        a.block = *bi;
        a.offset = 0;
    }
    Block& b = blocks_[a.block];
    b.used++;
    a.memory = b.memory;
    a.size = size;
    a.mapped = b.mapped ? static_cast<char*>(b.mapped) + a.offset : nullptr;
    a.id = next_id_++;
    live_.emplace(a.id, Live{std::string(name), requirements.size});
    allocations_made_++;
    return a;
}

void Allocator::free(const Allocation& a) {
    if (a.id == 0) return;
    live_.erase(a.id);
    Block& b = blocks_[a.block];
    if (--b.used == 0) {
        vkFreeMemory(device_.device(), b.memory, nullptr);
        b = Block{};
        return;
    }
    // Insert the range and merge it with its neighbours.
    VkDeviceSize offset = a.offset, size = a.size;
    auto next = b.free_ranges.lower_bound(offset);
    if (next != b.free_ranges.begin()) {
        auto prev = std::prev(next);
        if (prev->first + prev->second == offset) {
            offset = prev->first;
            size += prev->second;
            b.free_ranges.erase(prev);
        }
    }
    if (next != b.free_ranges.end() && offset + size == next->first) {
        size += next->second;
        b.free_ranges.erase(next);
    }
    b.free_ranges.emplace(offset, size);
}

AllocatorStats Allocator::stats() const {
    AllocatorStats s;
    for (const Block& b : blocks_) {
        if (!b.memory) continue;
        s.blocks++;
        s.block_bytes += b.size;
    }
    s.live_allocations = static_cast<uint32_t>(live_.size());
    for (const auto& [id, live] : live_)
        s.live_bytes += live.size;
    s.allocations_made = allocations_made_;
    return s;
}

std::vector<std::pair<std::string, VkDeviceSize>> Allocator::liveAllocations() const {
    std::vector<std::pair<std::string, VkDeviceSize>> out;
    for (const auto& [id, live] : live_)
        out.emplace_back(live.name, live.size);
    return out;
}

// ---- Buffer

Result<Buffer> Buffer::create(const Device& device, Allocator& allocator, VkDeviceSize size,
                              VkBufferUsageFlags usage, MemoryUsage memory, const std::string& name) {
    Buffer b;
    b.device_ = device.device();
    b.allocator_ = &allocator;
    b.size_ = size;
    VkBufferCreateInfo info{VK_STRUCTURE_TYPE_BUFFER_CREATE_INFO};
    info.size = size;
    info.usage = usage;
    info.sharingMode = VK_SHARING_MODE_EXCLUSIVE;
    if (VkResult r = vkCreateBuffer(b.device_, &info, nullptr, &b.buffer_); r != VK_SUCCESS)
        return vkError(r, "vkCreateBuffer " + name);
    VkMemoryRequirements requirements;
    vkGetBufferMemoryRequirements(b.device_, b.buffer_, &requirements);
    Result<Allocation> a = allocator.allocate(requirements, memory, name);
    if (!a) return a.error();
    b.allocation_ = *a;
    VK_CHECK(vkBindBufferMemory(b.device_, b.buffer_, a->memory, a->offset));
    device.setName(VK_OBJECT_TYPE_BUFFER, b.buffer_, name.c_str());
    return b;
}

Buffer& Buffer::operator=(Buffer&& other) noexcept {
    if (this != &other) {
        reset();
        device_ = other.device_;
        allocator_ = other.allocator_;
        buffer_ = std::exchange(other.buffer_, VK_NULL_HANDLE);
        size_ = std::exchange(other.size_, 0);
        allocation_ = std::exchange(other.allocation_, Allocation{});
    }
    return *this;
}

void Buffer::reset() {
    if (buffer_) vkDestroyBuffer(device_, buffer_, nullptr);
    if (allocator_) allocator_->free(allocation_);
    buffer_ = VK_NULL_HANDLE;
    allocation_ = Allocation{};
    size_ = 0;
}

// ---- Image2D

Result<Image2D> Image2D::create(const Device& device, Allocator& allocator, const ImageDesc& desc,
                                const std::string& name) {
    const uint32_t max_dim = device.properties().limits.maxImageDimension2D;
    if (desc.width == 0 || desc.height == 0 || desc.width > max_dim || desc.height > max_dim)
        return Error{name + ": image size " + std::to_string(desc.width) + "x" + std::to_string(desc.height) +
                     " outside 1.." + std::to_string(max_dim)};
    Image2D im;
    im.device_ = device.device();
    im.allocator_ = &allocator;
    im.desc_ = desc;
    VkImageCreateInfo info{VK_STRUCTURE_TYPE_IMAGE_CREATE_INFO};
    info.imageType = VK_IMAGE_TYPE_2D;
    info.format = desc.format;
    info.extent = {desc.width, desc.height, 1};
    info.mipLevels = 1;
    info.arrayLayers = 1;
    info.samples = desc.samples;
    info.tiling = VK_IMAGE_TILING_OPTIMAL;
    info.usage = desc.usage;
    info.sharingMode = VK_SHARING_MODE_EXCLUSIVE;
    info.initialLayout = VK_IMAGE_LAYOUT_UNDEFINED;
    if (VkResult r = vkCreateImage(im.device_, &info, nullptr, &im.image_); r != VK_SUCCESS)
        return vkError(r, "vkCreateImage " + name);
    VkMemoryRequirements requirements;
    vkGetImageMemoryRequirements(im.device_, im.image_, &requirements);
    Result<Allocation> a = allocator.allocate(requirements, MemoryUsage::kGpuOnly, name);
    if (!a) return a.error();
    im.allocation_ = *a;
    VK_CHECK(vkBindImageMemory(im.device_, im.image_, a->memory, a->offset));

    VkImageViewCreateInfo view{VK_STRUCTURE_TYPE_IMAGE_VIEW_CREATE_INFO};
    view.image = im.image_;
    view.viewType = VK_IMAGE_VIEW_TYPE_2D;
    view.format = desc.format;
    view.subresourceRange = {desc.aspect, 0, 1, 0, 1};
    VK_CHECK(vkCreateImageView(im.device_, &view, nullptr, &im.view_));
    device.setName(VK_OBJECT_TYPE_IMAGE, im.image_, name.c_str());
    device.setName(VK_OBJECT_TYPE_IMAGE_VIEW, im.view_, name.c_str());
    return im;
}

Image2D& Image2D::operator=(Image2D&& other) noexcept {
    if (this != &other) {
        reset();
        device_ = other.device_;
        allocator_ = other.allocator_;
        image_ = std::exchange(other.image_, VK_NULL_HANDLE);
        view_ = std::exchange(other.view_, VK_NULL_HANDLE);
        desc_ = other.desc_;
        allocation_ = std::exchange(other.allocation_, Allocation{});
    }
    return *this;
}

void Image2D::reset() {
    if (view_) vkDestroyImageView(device_, view_, nullptr);
    if (image_) vkDestroyImage(device_, image_, nullptr);
    if (allocator_) allocator_->free(allocation_);
    view_ = VK_NULL_HANDLE;
    image_ = VK_NULL_HANDLE;
    allocation_ = Allocation{};
}

// ---- Barriers

void imageBarriers(VkCommandBuffer cmd, const ImageBarrier* barriers, uint32_t count) {
    std::vector<VkImageMemoryBarrier2> vk(count);
    for (uint32_t i = 0; i < count; ++i) {
        const ImageBarrier& b = barriers[i];
        VkImageMemoryBarrier2& v = vk[i];
        v = VkImageMemoryBarrier2{VK_STRUCTURE_TYPE_IMAGE_MEMORY_BARRIER_2};
        v.srcStageMask = b.src_stage;
        v.srcAccessMask = b.src_access;
        v.dstStageMask = b.dst_stage;
        v.dstAccessMask = b.dst_access;
        v.oldLayout = b.old_layout;
        v.newLayout = b.new_layout;
        v.srcQueueFamilyIndex = VK_QUEUE_FAMILY_IGNORED;
        v.dstQueueFamilyIndex = VK_QUEUE_FAMILY_IGNORED;
        v.image = b.image;
        v.subresourceRange = {b.aspect, 0, 1, 0, 1};
    }
    VkDependencyInfo dep{VK_STRUCTURE_TYPE_DEPENDENCY_INFO};
    dep.imageMemoryBarrierCount = count;
    dep.pImageMemoryBarriers = vk.data();
    vkCmdPipelineBarrier2(cmd, &dep);
}

Result<Image2D> createTexture(const Device& device, Allocator& allocator, uint32_t width, uint32_t height,
                              VkFormat format, const void* pixels, size_t bytes, const std::string& name) {
    ImageDesc desc;
    desc.width = width;
    desc.height = height;
    desc.format = format;
    desc.usage = VK_IMAGE_USAGE_SAMPLED_BIT | VK_IMAGE_USAGE_TRANSFER_DST_BIT;
    Result<Image2D> image = Image2D::create(device, allocator, desc, name);
    if (!image) return image.error();
    Result<Buffer> staging = Buffer::create(device, allocator, bytes, VK_BUFFER_USAGE_TRANSFER_SRC_BIT,
                                            MemoryUsage::kUpload, name + " staging");
    if (!staging) return staging.error();
    std::memcpy(staging->mapped(), pixels, bytes);
    const VkImage handle = image->handle();
    const VkBuffer source = staging->handle();
    device.submitOnce([&](VkCommandBuffer cmd) {
        imageBarrier(cmd, {handle, VK_IMAGE_ASPECT_COLOR_BIT, VK_IMAGE_LAYOUT_UNDEFINED,
                           VK_IMAGE_LAYOUT_TRANSFER_DST_OPTIMAL, VK_PIPELINE_STAGE_2_NONE,
                           VK_PIPELINE_STAGE_2_COPY_BIT, VK_ACCESS_2_NONE, VK_ACCESS_2_TRANSFER_WRITE_BIT});
        VkBufferImageCopy region{};
        region.imageSubresource = {VK_IMAGE_ASPECT_COLOR_BIT, 0, 0, 1};
        region.imageExtent = {width, height, 1};
        vkCmdCopyBufferToImage(cmd, source, handle, VK_IMAGE_LAYOUT_TRANSFER_DST_OPTIMAL, 1, &region);
        imageBarrier(cmd, {handle, VK_IMAGE_ASPECT_COLOR_BIT, VK_IMAGE_LAYOUT_TRANSFER_DST_OPTIMAL,
                           VK_IMAGE_LAYOUT_SHADER_READ_ONLY_OPTIMAL, VK_PIPELINE_STAGE_2_COPY_BIT,
                           VK_PIPELINE_STAGE_2_FRAGMENT_SHADER_BIT, VK_ACCESS_2_TRANSFER_WRITE_BIT,
                           VK_ACCESS_2_SHADER_SAMPLED_READ_BIT});
    });
    return image;
}

}  // namespace memcity::render
