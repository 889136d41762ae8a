// The Vulkan instance, the physical device, the logical device and its one graphics queue.
// Optional validation layer with a debug messenger that prints and counts what it reports.
#pragma once

#include <vulkan/vulkan.h>

#include <atomic>
#include <cstdint>
#include <functional>
#include <memory>
#include <string>
#include <vector>

#include "util/result.h"

namespace memcity::render {

struct DeviceOptions {
    // VK_LAYER_KHRONOS_validation (with synchronization validation) and a debug messenger;
    // create() fails when the layer is not installed.
    bool validation = false;
    // Instance extensions the caller needs (e.g. SDL_Vulkan_GetInstanceExtensions for a surface).
    std::vector<std::string> instance_extensions;
    // A substring of the device name to prefer ("" = the best: discrete, then integrated, then
    // virtual, then CPU).
    std::string device_name;
};

class Device {
public:
    // Needs Vulkan 1.3 with dynamicRendering and synchronization2, and a graphics queue.
    static Result<std::unique_ptr<Device>> create(const DeviceOptions& options);
    ~Device();
    Device(const Device&) = delete;
    Device& operator=(const Device&) = delete;

    VkInstance instance() const { return instance_; }
    VkPhysicalDevice physical() const { return physical_; }
    VkDevice device() const { return device_; }
    VkQueue queue() const { return queue_; }
    uint32_t queueFamily() const { return queue_family_; }
    const VkPhysicalDeviceProperties& properties() const { return properties_; }
    const VkPhysicalDeviceMemoryProperties& memoryProperties() const { return memory_properties_; }
    // VK_KHR_swapchain was found and enabled.
    bool hasSwapchain() const { return has_swapchain_; }
    // Timestamp queries work on the queue (and timestampPeriod is meaningful).
    bool hasTimestamps() const { return has_timestamps_; }

    // The largest sample count both colour and depth attachments support, at most `wanted`
    // (rounded down to a power of two; 0 counts as 1).
    VkSampleCountFlagBits clampSamples(uint32_t wanted) const;
    // D32_SFLOAT when it can be a depth attachment, else D24_UNORM_S8_UINT / X8_D24.
    VkFormat depthFormat() const { return depth_format_; }

    // Warnings and errors the debug messenger has seen (always 0 without validation).
    uint64_t validationMessages() const { return messages_ ? messages_->load() : 0; }

    // Names an object for validation messages and debuggers (no-op without debug utils).
    void setName(VkObjectType type, uint64_t handle, const char* name) const;
    template <class T>
    void setName(VkObjectType type, T handle, const char* name) const {
        setName(type, reinterpret_cast<uint64_t>(handle), name);
    }

    // Records `record` into a one-time command buffer, submits it and waits for it.
    void submitOnce(const std::function<void(VkCommandBuffer)>& record) const;

private:
    Device() = default;

    VkInstance instance_ = VK_NULL_HANDLE;
    VkDebugUtilsMessengerEXT messenger_ = VK_NULL_HANDLE;
    VkPhysicalDevice physical_ = VK_NULL_HANDLE;
    VkDevice device_ = VK_NULL_HANDLE;
    VkQueue queue_ = VK_NULL_HANDLE;
    uint32_t queue_family_ = 0;
    VkPhysicalDeviceProperties properties_{};
    VkPhysicalDeviceMemoryProperties memory_properties_{};
    VkFormat depth_format_ = VK_FORMAT_UNDEFINED;
    bool has_swapchain_ = false;
    bool has_timestamps_ = false;
    PFN_vkSetDebugUtilsObjectNameEXT set_object_name_ = nullptr;
    std::unique_ptr<std::atomic<uint64_t>> messages_;  // pUserData of the messenger
    VkCommandPool once_pool_ = VK_NULL_HANDLE;
};

}  // namespace memcity::render
