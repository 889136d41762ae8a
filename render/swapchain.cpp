#include "render/swapchain.h"

#include <algorithm>
#include <utility>

#include "render/vk_check.h"

namespace memcity::render {
namespace {

// UNORM formats so that colours come out as given (like the offscreen RGBA8 image).
VkSurfaceFormatKHR pickFormat(const std::vector<VkSurfaceFormatKHR>& formats) {
    for (VkFormat wanted : {VK_FORMAT_B8G8R8A8_UNORM, VK_FORMAT_R8G8B8A8_UNORM})
        for (const VkSurfaceFormatKHR& f : formats)
            if (f.format == wanted && f.colorSpace == VK_COLOR_SPACE_SRGB_NONLINEAR_KHR) return f;
    return formats.front();
}

VkPresentModeKHR pickPresentMode(const std::vector<VkPresentModeKHR>& modes, bool vsync) {
    if (vsync) return VK_PRESENT_MODE_FIFO_KHR;
    for (VkPresentModeKHR wanted : {VK_PRESENT_MODE_MAILBOX_KHR, VK_PRESENT_MODE_IMMEDIATE_KHR})
        if (std::find(modes.begin(), modes.end(), wanted) != modes.end()) return wanted;
    return VK_PRESENT_MODE_FIFO_KHR;
}

}  // namespace

Result<Swapchain> Swapchain::create(const Device& device, VkSurfaceKHR surface,
                                    const SwapchainOptions& options, VkSwapchainKHR old) {
    VkPhysicalDevice physical = device.physical();
    VkBool32 supported = VK_FALSE;
    VK_CHECK(vkGetPhysicalDeviceSurfaceSupportKHR(physical, device.queueFamily(), surface, &supported));
    if (!supported) return Error{"the graphics queue cannot present to this surface"};

    VkSurfaceCapabilitiesKHR caps;
    if (VkResult r = vkGetPhysicalDeviceSurfaceCapabilitiesKHR(physical, surface, &caps); r != VK_SUCCESS)
        return vkError(r, "vkGetPhysicalDeviceSurfaceCapabilitiesKHR");
    uint32_t count = 0;
    VK_CHECK(vkGetPhysicalDeviceSurfaceFormatsKHR(physical, surface, &count, nullptr));
    std::vector<VkSurfaceFormatKHR> formats(count);
    VK_CHECK(vkGetPhysicalDeviceSurfaceFormatsKHR(physical, surface, &count, formats.data()));
    if (formats.empty()) return Error{"the surface offers no formats"};
    VK_CHECK(vkGetPhysicalDeviceSurfacePresentModesKHR(physical, surface, &count, nullptr));
    std::vector<VkPresentModeKHR> modes(count);
    VK_CHECK(vkGetPhysicalDeviceSurfacePresentModesKHR(physical, surface, &count, modes.data()));

    Swapchain s;
    s.device_ = device.device();
    s.queue_ = device.queue();
    const VkSurfaceFormatKHR format = pickFormat(formats);
    s.format_ = format.format;
    s.present_mode_ = pickPresentMode(modes, options.vsync);
    if (caps.currentExtent.width != UINT32_MAX) {
        s.extent_ = caps.currentExtent;
    } else {
        s.extent_.width = std::clamp(options.width, caps.minImageExtent.width, caps.maxImageExtent.width);
        s.extent_.height = std::clamp(options.height, caps.minImageExtent.height, caps.maxImageExtent.height);
    }
    if (s.extent_.width == 0 || s.extent_.height == 0)
        return Error{"the surface has a zero size (minimised?)"};
    uint32_t images = std::max(caps.minImageCount + 1, 3u);
    if (caps.maxImageCount > 0) images = std::min(images, caps.maxImageCount);

    VkSwapchainCreateInfoKHR info{VK_STRUCTURE_TYPE_SWAPCHAIN_CREATE_INFO_KHR};
    info.surface = surface;
    info.minImageCount = images;
    info.imageFormat = format.format;
    info.imageColorSpace = format.colorSpace;
    info.imageExtent = s.extent_;
    info.imageArrayLayers = 1;
    info.imageUsage = VK_IMAGE_USAGE_COLOR_ATTACHMENT_BIT;
    info.imageSharingMode = VK_SHARING_MODE_EXCLUSIVE;
    info.preTransform = caps.currentTransform;
    info.compositeAlpha = VK_COMPOSITE_ALPHA_OPAQUE_BIT_KHR;
    for (VkCompositeAlphaFlagBitsKHR alpha :
         {VK_COMPOSITE_ALPHA_OPAQUE_BIT_KHR, VK_COMPOSITE_ALPHA_INHERIT_BIT_KHR,
          VK_COMPOSITE_ALPHA_PRE_MULTIPLIED_BIT_KHR, VK_COMPOSITE_ALPHA_POST_MULTIPLIED_BIT_KHR}) {
        if (caps.supportedCompositeAlpha & static_cast<VkCompositeAlphaFlagsKHR>(alpha)) {
            info.compositeAlpha = alpha;
            break;
        }
    }
    info.presentMode = s.present_mode_;
    info.clipped = VK_TRUE;
    info.oldSwapchain = old;
    if (VkResult r = vkCreateSwapchainKHR(s.device_, &info, nullptr, &s.swapchain_); r != VK_SUCCESS)
        return vkError(r, "vkCreateSwapchainKHR");

    VK_CHECK(vkGetSwapchainImagesKHR(s.device_, s.swapchain_, &count, nullptr));
    s.images_.resize(count);
    VK_CHECK(vkGetSwapchainImagesKHR(s.device_, s.swapchain_, &count, s.images_.data()));
    for (VkImage image : s.images_) {
        VkImageViewCreateInfo view{VK_STRUCTURE_TYPE_IMAGE_VIEW_CREATE_INFO};
        view.image = image;
        view.viewType = VK_IMAGE_VIEW_TYPE_2D;
        view.format = s.format_;
        view.subresourceRange = {VK_IMAGE_ASPECT_COLOR_BIT, 0, 1, 0, 1};
        VkImageView v = VK_NULL_HANDLE;
        VK_CHECK(vkCreateImageView(s.device_, &view, nullptr, &v));
        s.views_.push_back(v);
    }
    return s;
}

Swapchain& Swapchain::operator=(Swapchain&& other) noexcept {
    if (this != &other) {
        reset();
        device_ = other.device_;
        queue_ = other.queue_;
        swapchain_ = std::exchange(other.swapchain_, VK_NULL_HANDLE);
        format_ = other.format_;
        extent_ = other.extent_;
        present_mode_ = other.present_mode_;
        images_ = std::move(other.images_);
        views_ = std::move(other.views_);
        other.images_.clear();
        other.views_.clear();
    }
    return *this;
}

void Swapchain::reset() {
    for (VkImageView v : views_)
        vkDestroyImageView(device_, v, nullptr);
    views_.clear();
    images_.clear();
    if (swapchain_) vkDestroySwapchainKHR(device_, swapchain_, nullptr);
    swapchain_ = VK_NULL_HANDLE;
}

SwapchainStatus Swapchain::acquire(VkSemaphore signal, uint32_t* index) const {
    const VkResult r = vkAcquireNextImageKHR(device_, swapchain_, UINT64_MAX, signal, VK_NULL_HANDLE, index);
    if (r == VK_ERROR_OUT_OF_DATE_KHR) return SwapchainStatus::kOutOfDate;
    if (r == VK_SUBOPTIMAL_KHR) return SwapchainStatus::kSuboptimal;
    VK_CHECK(r);
    return SwapchainStatus::kOk;
}

SwapchainStatus Swapchain::present(VkSemaphore wait, uint32_t index) const {
    VkPresentInfoKHR info{VK_STRUCTURE_TYPE_PRESENT_INFO_KHR};
    info.waitSemaphoreCount = 1;
    info.pWaitSemaphores = &wait;
    info.swapchainCount = 1;
    info.pSwapchains = &swapchain_;
    info.pImageIndices = &index;
    const VkResult r = vkQueuePresentKHR(queue_, &info);
    if (r == VK_ERROR_OUT_OF_DATE_KHR) return SwapchainStatus::kOutOfDate;
    if (r == VK_SUBOPTIMAL_KHR) return SwapchainStatus::kSuboptimal;
    VK_CHECK(r);
    return SwapchainStatus::kOk;
}

}  // namespace memcity::render
