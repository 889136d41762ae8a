// A swapchain on a surface the caller created (SDL_Vulkan_CreateSurface): image views, format
// and present mode choice, and acquire/present results that say when to recreate it.
#pragma once

#include <vulkan/vulkan.h>

#include <cstdint>
#include <vector>

#include "render/device.h"
#include "util/result.h"

namespace memcity::render {

// What acquire() and present() saw.
enum class SwapchainStatus : uint8_t {
    kOk,          // carry on
    kSuboptimal,  // the image was used, but the swapchain should be recreated after this frame
    kOutOfDate,   // nothing was acquired or presented: recreate before the next frame
};

struct SwapchainOptions {
    uint32_t width = 0, height = 0;  // wanted size in pixels; the surface may impose its own
    bool vsync = true;               // FIFO; else MAILBOX, then IMMEDIATE, then FIFO
};

class Swapchain {
public:
    Swapchain() = default;
    // `old` (may be null) is retired into the new one; the caller destroys it afterwards.
    // Contract: the device has VK_KHR_swapchain and its queue can present to `surface`.
    static Result<Swapchain> create(const Device& device, VkSurfaceKHR surface,
                                    const SwapchainOptions& options, VkSwapchainKHR old = VK_NULL_HANDLE);
    ~Swapchain() { reset(); }
    Swapchain(Swapchain&& other) noexcept { *this = std::move(other); }
    Swapchain& operator=(Swapchain&& other) noexcept;
    void reset();

    VkSwapchainKHR handle() const { return swapchain_; }
    VkFormat format() const { return format_; }
    VkExtent2D extent() const { return extent_; }
    VkPresentModeKHR presentMode() const { return present_mode_; }
    uint32_t imageCount() const { return static_cast<uint32_t>(images_.size()); }
    VkImage image(uint32_t index) const { return images_[index]; }
    VkImageView view(uint32_t index) const { return views_[index]; }

    // Acquires the next image, signalling `signal` when it is ready to be written.
    SwapchainStatus acquire(VkSemaphore signal, uint32_t* index) const;
    // Presents image `index` after `wait` is signalled.
    SwapchainStatus present(VkSemaphore wait, uint32_t index) const;

private:
    VkDevice device_ = VK_NULL_HANDLE;
    VkQueue queue_ = VK_NULL_HANDLE;
    VkSwapchainKHR swapchain_ = VK_NULL_HANDLE;
    VkFormat format_ = VK_FORMAT_UNDEFINED;
    VkExtent2D extent_{};
    VkPresentModeKHR present_mode_ = VK_PRESENT_MODE_FIFO_KHR;
    std::vector<VkImage> images_;
    std::vector<VkImageView> views_;
};

}  // namespace memcity::render
