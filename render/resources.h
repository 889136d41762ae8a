// GPU memory and the resources living in it: a small block allocator that counts and names its
// allocations, buffers, images, and a move-only owner for the other Vulkan handles.
#pragma once

#include <vulkan/vulkan.h>

#include <cstdint>
#include <map>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include "render/device.h"
#include "util/result.h"

namespace memcity::render {

// Where a resource's memory lives.
enum class MemoryUsage : uint8_t {
    kGpuOnly,   // device-local; filled by copies or rendering
    kUpload,    // host-visible and coherent, written by the CPU every frame (vertex/instance data)
    kReadback,  // host-visible and coherent, host-cached where offered; read by the CPU
};

// A piece of a memory block. `mapped` is non-null for host-visible memory.
struct Allocation {
    VkDeviceMemory memory = VK_NULL_HANDLE;
    VkDeviceSize offset = 0;
    VkDeviceSize size = 0;
    void* mapped = nullptr;
    uint32_t block = 0;  // index into the allocator's blocks
    uint32_t id = 0;     // 0 = no allocation
};

struct AllocatorStats {
    uint32_t blocks = 0;            // VkDeviceMemory objects held
    uint64_t block_bytes = 0;       // their total size
    uint32_t live_allocations = 0;  // allocations not yet freed
    uint64_t live_bytes = 0;        // their total size (before alignment padding)
    uint64_t allocations_made = 0;  // since the allocator was created
};

// Sub-allocates large blocks (one list of blocks per memory type, first fit, neighbours merged
// on free); a request larger than half a block gets a block of its own. Every allocation
// carries a name for debug panels. Blocks that become empty are released.
// Not thread-safe: one allocator belongs to one renderer.
class Allocator {
public:
    explicit Allocator(const Device& device, VkDeviceSize block_size = VkDeviceSize{32} << 20);
    ~Allocator();
    Allocator(const Allocator&) = delete;
    Allocator& operator=(const Allocator&) = delete;

    // Fails (does not abort) when the device is out of memory or no memory type fits.
    Result<Allocation> allocate(const VkMemoryRequirements& requirements, MemoryUsage usage,
                                std::string_view name);
    // Contract: `allocation` came from this allocator and is freed once.
    void free(const Allocation& allocation);

    AllocatorStats stats() const;
    // The live allocations, name and size in bytes, in allocation order.
    std::vector<std::pair<std::string, VkDeviceSize>> liveAllocations() const;

private:
    struct Block {
        VkDeviceMemory memory = VK_NULL_HANDLE;
        VkDeviceSize size = 0;
        uint32_t memory_type = 0;
        void* mapped = nullptr;
        bool dedicated = false;
        uint32_t used = 0;                                 // live allocations in it
        std::map<VkDeviceSize, VkDeviceSize> free_ranges;  // offset -> size
    };
    struct Live {
        std::string name;
        VkDeviceSize size;
    };

    int memoryType(uint32_t type_bits, VkMemoryPropertyFlags required, VkMemoryPropertyFlags preferred) const;
    Result<uint32_t> newBlock(uint32_t memory_type, VkDeviceSize size, bool dedicated);

    const Device& device_;
    VkDeviceSize block_size_;
    VkDeviceSize granularity_;
    std::vector<Block> blocks_;  // released blocks keep their slot with memory == VK_NULL_HANDLE
    std::map<uint32_t, Live> live_;
    uint32_t next_id_ = 1;
    uint64_t allocations_made_ = 0;
};

// A buffer and its memory. Move-only; destroyed with its owner (callers make sure the GPU has
// finished with it, see the renderer's per-frame contexts).
class Buffer {
public:
    Buffer() = default;
    static Result<Buffer> create(const Device& device, Allocator& allocator, VkDeviceSize size,
                                 VkBufferUsageFlags usage, MemoryUsage memory, const std::string& name);
    ~Buffer() { reset(); }
    Buffer(Buffer&& other) noexcept { *this = std::move(other); }
    Buffer& operator=(Buffer&& other) noexcept;

    void reset();
    VkBuffer handle() const { return buffer_; }
    VkDeviceSize size() const { return size_; }
    // Host pointer for kUpload and kReadback memory, else null.
    void* mapped() const { return allocation_.mapped; }
    explicit operator bool() const { return buffer_ != VK_NULL_HANDLE; }

private:
    VkDevice device_ = VK_NULL_HANDLE;
    Allocator* allocator_ = nullptr;
    VkBuffer buffer_ = VK_NULL_HANDLE;
    VkDeviceSize size_ = 0;
    Allocation allocation_;
};

struct ImageDesc {
    uint32_t width = 0, height = 0;
    VkFormat format = VK_FORMAT_UNDEFINED;
    VkImageUsageFlags usage = 0;
    VkSampleCountFlagBits samples = VK_SAMPLE_COUNT_1_BIT;
    VkImageAspectFlags aspect = VK_IMAGE_ASPECT_COLOR_BIT;
};

// A 2D image with one mip level, its memory and a view of it. Move-only.
class Image2D {
public:
    Image2D() = default;
    // Fails when the size exceeds the device's limits or memory runs out.
    static Result<Image2D> create(const Device& device, Allocator& allocator, const ImageDesc& desc,
                                  const std::string& name);
    ~Image2D() { reset(); }
    Image2D(Image2D&& other) noexcept { *this = std::move(other); }
    Image2D& operator=(Image2D&& other) noexcept;

    void reset();
    VkImage handle() const { return image_; }
    VkImageView view() const { return view_; }
    const ImageDesc& desc() const { return desc_; }
    explicit operator bool() const { return image_ != VK_NULL_HANDLE; }

private:
    VkDevice device_ = VK_NULL_HANDLE;
    Allocator* allocator_ = nullptr;
    VkImage image_ = VK_NULL_HANDLE;
    VkImageView view_ = VK_NULL_HANDLE;
    ImageDesc desc_;
    Allocation allocation_;
};

// Owns one VkDevice child handle destroyed by `Destroy` (pipelines, layouts, samplers...).
template <class T, void (*Destroy)(VkDevice, T, const VkAllocationCallbacks*)>
class Unique {
public:
    Unique() = default;
    Unique(VkDevice device, T handle) : device_(device), handle_(handle) {}
    ~Unique() { reset(); }
    Unique(Unique&& other) noexcept { *this = std::move(other); }
    Unique& operator=(Unique&& other) noexcept {
        if (this != &other) {
            reset();
            device_ = std::exchange(other.device_, VK_NULL_HANDLE);
            handle_ = std::exchange(other.handle_, VK_NULL_HANDLE);
        }
        return *this;
    }
    void reset() {
        if (handle_ != VK_NULL_HANDLE) Destroy(device_, handle_, nullptr);
        handle_ = VK_NULL_HANDLE;
    }
    T get() const { return handle_; }
    explicit operator bool() const { return handle_ != VK_NULL_HANDLE; }

private:
    VkDevice device_ = VK_NULL_HANDLE;
    T handle_ = VK_NULL_HANDLE;
};

// Clang/GCC accept the loader's functions as template arguments (they have external linkage).
using UniquePipeline = Unique<VkPipeline, vkDestroyPipeline>;
using UniquePipelineLayout = Unique<VkPipelineLayout, vkDestroyPipelineLayout>;
using UniqueDescriptorSetLayout = Unique<VkDescriptorSetLayout, vkDestroyDescriptorSetLayout>;
using UniqueDescriptorPool = Unique<VkDescriptorPool, vkDestroyDescriptorPool>;
using UniqueSampler = Unique<VkSampler, vkDestroySampler>;
using UniqueShaderModule = Unique<VkShaderModule, vkDestroyShaderModule>;
using UniqueCommandPool = Unique<VkCommandPool, vkDestroyCommandPool>;
using UniqueFence = Unique<VkFence, vkDestroyFence>;
using UniqueSemaphore = Unique<VkSemaphore, vkDestroySemaphore>;
using UniqueQueryPool = Unique<VkQueryPool, vkDestroyQueryPool>;
using UniqueImageView = Unique<VkImageView, vkDestroyImageView>;

// An image layout transition with synchronization2 (whole image, one mip, one layer).
struct ImageBarrier {
    VkImage image = VK_NULL_HANDLE;
    VkImageAspectFlags aspect = VK_IMAGE_ASPECT_COLOR_BIT;
    VkImageLayout old_layout = VK_IMAGE_LAYOUT_UNDEFINED, new_layout = VK_IMAGE_LAYOUT_UNDEFINED;
    VkPipelineStageFlags2 src_stage = 0, dst_stage = 0;
    VkAccessFlags2 src_access = 0, dst_access = 0;
};
void imageBarriers(VkCommandBuffer cmd, const ImageBarrier* barriers, uint32_t count);
inline void imageBarrier(VkCommandBuffer cmd, const ImageBarrier& barrier) {
    imageBarriers(cmd, &barrier, 1);
}

// A sampled texture filled from `pixels` (width * height * bytes-per-pixel of `format`, rows
// top first) through a staging buffer; left in SHADER_READ_ONLY_OPTIMAL. Waits for the upload.
Result<Image2D> createTexture(const Device& device, Allocator& allocator, uint32_t width, uint32_t height,
                              VkFormat format, const void* pixels, size_t bytes, const std::string& name);

}  // namespace memcity::render
