#include "render/device.h"

#include <algorithm>
#include <cstdio>
#include <cstring>

#include "render/vk_check.h"

namespace memcity::render {
namespace {

constexpr const char* kValidationLayer = "VK_LAYER_KHRONOS_validation";

VKAPI_ATTR VkBool32 VKAPI_CALL debugCallback(VkDebugUtilsMessageSeverityFlagBitsEXT severity,
                                             VkDebugUtilsMessageTypeFlagsEXT /*types*/,
                                             const VkDebugUtilsMessengerCallbackDataEXT* data, void* user) {
    auto* count = static_cast<std::atomic<uint64_t>*>(user);
    count->fetch_add(1);
    const char* level = (severity & VK_DEBUG_UTILS_MESSAGE_SEVERITY_ERROR_BIT_EXT) ? "error" : "warning";
    std::fprintf(stderr, "[vulkan %s] %s\n", level, data->pMessage ? data->pMessage : "(no message)");
    return VK_FALSE;
}

VkDebugUtilsMessengerCreateInfoEXT messengerInfo(std::atomic<uint64_t>* count) {
    VkDebugUtilsMessengerCreateInfoEXT info{VK_STRUCTURE_TYPE_DEBUG_UTILS_MESSENGER_CREATE_INFO_EXT};
    info.messageSeverity =
        VK_DEBUG_UTILS_MESSAGE_SEVERITY_WARNING_BIT_EXT | VK_DEBUG_UTILS_MESSAGE_SEVERITY_ERROR_BIT_EXT;
    info.messageType = VK_DEBUG_UTILS_MESSAGE_TYPE_GENERAL_BIT_EXT |
                       VK_DEBUG_UTILS_MESSAGE_TYPE_VALIDATION_BIT_EXT |
                       VK_DEBUG_UTILS_MESSAGE_TYPE_PERFORMANCE_BIT_EXT;
    info.pfnUserCallback = debugCallback;
    info.pUserData = count;
    return info;
}

bool hasLayer(const char* name) {
    uint32_t count = 0;
    VK_CHECK(vkEnumerateInstanceLayerProperties(&count, nullptr));
    std::vector<VkLayerProperties> layers(count);
    VK_CHECK(vkEnumerateInstanceLayerProperties(&count, layers.data()));
    return std::any_of(layers.begin(), layers.end(),
                       [&](const VkLayerProperties& l) { return std::strcmp(l.layerName, name) == 0; });
}

std::vector<VkExtensionProperties> instanceExtensions() {
    uint32_t count = 0;
    VK_CHECK(vkEnumerateInstanceExtensionProperties(nullptr, &count, nullptr));
    std::vector<VkExtensionProperties> extensions(count);
    VK_CHECK(vkEnumerateInstanceExtensionProperties(nullptr, &count, extensions.data()));
    return extensions;
}

bool hasExtension(const std::vector<VkExtensionProperties>& extensions, const char* name) {
    return std::any_of(extensions.begin(), extensions.end(), [&](const VkExtensionProperties& e) {
        return std::strcmp(e.extensionName, name) == 0;
    });
}

// Lower is better: discrete, integrated, virtual, CPU, other.
int typeRank(VkPhysicalDeviceType type) {
    switch (type) {
        case VK_PHYSICAL_DEVICE_TYPE_DISCRETE_GPU: return 0;
        case VK_PHYSICAL_DEVICE_TYPE_INTEGRATED_GPU: return 1;
        case VK_PHYSICAL_DEVICE_TYPE_VIRTUAL_GPU: return 2;
        case VK_PHYSICAL_DEVICE_TYPE_CPU: return 3;
        default: return 4;
    }
}

struct Candidate {
    VkPhysicalDevice physical = VK_NULL_HANDLE;
    VkPhysicalDeviceProperties properties{};
    uint32_t queue_family = 0;
    bool swapchain = false;
    std::string why_not;  // empty when usable
};

Candidate inspect(VkPhysicalDevice physical) {
    Candidate c;
    c.physical = physical;
    vkGetPhysicalDeviceProperties(physical, &c.properties);
    if (c.properties.apiVersion < VK_API_VERSION_1_3) {
        c.why_not = "Vulkan 1.3 needed";
        return c;
    }
    VkPhysicalDeviceVulkan13Features features13{VK_STRUCTURE_TYPE_PHYSICAL_DEVICE_VULKAN_1_3_FEATURES};
    VkPhysicalDeviceFeatures2 features{VK_STRUCTURE_TYPE_PHYSICAL_DEVICE_FEATURES_2};
    features.pNext = &features13;
    vkGetPhysicalDeviceFeatures2(physical, &features);
    if (!features13.dynamicRendering || !features13.synchronization2) {
        c.why_not = "dynamicRendering and synchronization2 needed";
        return c;
    }
    uint32_t family_count = 0;
    vkGetPhysicalDeviceQueueFamilyProperties(physical, &family_count, nullptr);
    std::vector<VkQueueFamilyProperties> families(family_count);
    vkGetPhysicalDeviceQueueFamilyProperties(physical, &family_count, families.data());
    auto graphics = std::find_if(families.begin(), families.end(), [](const VkQueueFamilyProperties& f) {
        return f.queueFlags & VK_QUEUE_GRAPHICS_BIT;
    });
    if (graphics == families.end()) {
        c.why_not = "no graphics queue";
        return c;
    }
    c.queue_family = static_cast<uint32_t>(graphics - families.begin());
    uint32_t count = 0;
    VK_CHECK(vkEnumerateDeviceExtensionProperties(physical, nullptr, &count, nullptr));
    std::vector<VkExtensionProperties> extensions(count);
    VK_CHECK(vkEnumerateDeviceExtensionProperties(physical, nullptr, &count, extensions.data()));
    c.swapchain = hasExtension(extensions, VK_KHR_SWAPCHAIN_EXTENSION_NAME);
    return c;
}

VkFormat pickDepthFormat(VkPhysicalDevice physical) {
    for (VkFormat format :
         {VK_FORMAT_D32_SFLOAT, VK_FORMAT_X8_D24_UNORM_PACK32, VK_FORMAT_D24_UNORM_S8_UINT}) {
        VkFormatProperties props;
        vkGetPhysicalDeviceFormatProperties(physical, format, &props);
        if (props.optimalTilingFeatures & VK_FORMAT_FEATURE_DEPTH_STENCIL_ATTACHMENT_BIT) return format;
    }
    return VK_FORMAT_UNDEFINED;
}

}  // namespace

Result<std::unique_ptr<Device>> Device::create(const DeviceOptions& options) {
    std::unique_ptr<Device> d(new Device());
    const std::vector<VkExtensionProperties> available = instanceExtensions();

    std::vector<const char*> extensions;
    for (const std::string& e : options.instance_extensions) {
        if (!hasExtension(available, e.c_str()))
            return Error{"Vulkan instance extension " + e + " is not available"};
        extensions.push_back(e.c_str());
    }
    const bool debug_utils = hasExtension(available, VK_EXT_DEBUG_UTILS_EXTENSION_NAME);
    if (debug_utils) extensions.push_back(VK_EXT_DEBUG_UTILS_EXTENSION_NAME);

    std::vector<const char*> layers;
    if (options.validation) {
        if (!hasLayer(kValidationLayer))
            return Error{std::string("validation requested but ") + kValidationLayer +
                         " is not installed (Debian: apt install vulkan-validationlayers)"};
        if (!debug_utils) return Error{"validation requested but VK_EXT_debug_utils is not available"};
        layers.push_back(kValidationLayer);
        d->messages_ = std::make_unique<std::atomic<uint64_t>>(0);
    }

    VkApplicationInfo app{VK_STRUCTURE_TYPE_APPLICATION_INFO};
    app.pApplicationName = "memcity";
    app.pEngineName = "memcity";
    app.apiVersion = VK_API_VERSION_1_3;

    VkInstanceCreateInfo create{VK_STRUCTURE_TYPE_INSTANCE_CREATE_INFO};
    create.pApplicationInfo = &app;
    create.enabledExtensionCount = static_cast<uint32_t>(extensions.size());
    create.ppEnabledExtensionNames = extensions.data();
    create.enabledLayerCount = static_cast<uint32_t>(layers.size());
    create.ppEnabledLayerNames = layers.data();
    // Synchronization validation finds missing barriers that core validation cannot see.
    VkValidationFeatureEnableEXT enables[] = {VK_VALIDATION_FEATURE_ENABLE_SYNCHRONIZATION_VALIDATION_EXT};
    VkValidationFeaturesEXT features{VK_STRUCTURE_TYPE_VALIDATION_FEATURES_EXT};
    features.enabledValidationFeatureCount = 1;
    features.pEnabledValidationFeatures = enables;
    VkDebugUtilsMessengerCreateInfoEXT messenger = messengerInfo(d->messages_.get());
    if (options.validation) {
        features.pNext = &messenger;  // the messenger also reports on vkCreateInstance / vkDestroyInstance
        create.pNext = &features;
    }
    if (VkResult r = vkCreateInstance(&create, nullptr, &d->instance_); r != VK_SUCCESS)
        return vkError(r, "vkCreateInstance (is a Vulkan driver installed? Debian: mesa-vulkan-drivers)");

    if (options.validation) {
        auto create_messenger = reinterpret_cast<PFN_vkCreateDebugUtilsMessengerEXT>(
            vkGetInstanceProcAddr(d->instance_, "vkCreateDebugUtilsMessengerEXT"));
        messenger.pNext = nullptr;
        VK_CHECK(create_messenger(d->instance_, &messenger, nullptr, &d->messenger_));
    }
    if (debug_utils)
        d->set_object_name_ = reinterpret_cast<PFN_vkSetDebugUtilsObjectNameEXT>(
            vkGetInstanceProcAddr(d->instance_, "vkSetDebugUtilsObjectNameEXT"));

    // Pick the physical device.
    uint32_t count = 0;
    VK_CHECK(vkEnumeratePhysicalDevices(d->instance_, &count, nullptr));
    std::vector<VkPhysicalDevice> physicals(count);
    VK_CHECK(vkEnumeratePhysicalDevices(d->instance_, &count, physicals.data()));
    std::vector<Candidate> usable;
    std::string rejected;
    for (VkPhysicalDevice p : physicals) {
        Candidate c = inspect(p);
        if (c.why_not.empty()) {
            usable.push_back(c);
        } else {
            rejected +=
                std::string(rejected.empty() ? "" : "; ") + c.properties.deviceName + ": " + c.why_not;
        }
    }
    if (usable.empty())
        return Error{"no usable Vulkan device" + (rejected.empty() ? std::string() : " (" + rejected + ")")};
    auto better = [&](const Candidate& a, const Candidate& b) {
        const bool a_named = !options.device_name.empty() &&
                             std::strstr(a.properties.deviceName, options.device_name.c_str()) != nullptr;
        const bool b_named = !options.device_name.empty() &&
                             std::strstr(b.properties.deviceName, options.device_name.c_str()) != nullptr;
        if (a_named != b_named) return a_named;
        return typeRank(a.properties.deviceType) < typeRank(b.properties.deviceType);
    };
    const Candidate chosen = *std::min_element(usable.begin(), usable.end(), better);
    d->physical_ = chosen.physical;
    d->properties_ = chosen.properties;
    d->queue_family_ = chosen.queue_family;
    // A swapchain needs VK_KHR_surface on the instance (the caller asks for it with the platform's
    // surface extensions).
    const bool surface = std::any_of(options.instance_extensions.begin(), options.instance_extensions.end(),
                                     [](const std::string& e) { return e == VK_KHR_SURFACE_EXTENSION_NAME; });
    d->has_swapchain_ = chosen.swapchain && surface;
    vkGetPhysicalDeviceMemoryProperties(d->physical_, &d->memory_properties_);
    d->depth_format_ = pickDepthFormat(d->physical_);
    if (d->depth_format_ == VK_FORMAT_UNDEFINED)
        return Error{std::string(chosen.properties.deviceName) + ": no depth attachment format"};

    uint32_t family_count = 0;
    vkGetPhysicalDeviceQueueFamilyProperties(d->physical_, &family_count, nullptr);
    std::vector<VkQueueFamilyProperties> families(family_count);
    vkGetPhysicalDeviceQueueFamilyProperties(d->physical_, &family_count, families.data());
    d->has_timestamps_ =
        families[d->queue_family_].timestampValidBits > 0 && d->properties_.limits.timestampPeriod > 0;

    // The logical device.
    const float priority = 1.0f;
    VkDeviceQueueCreateInfo queue{VK_STRUCTURE_TYPE_DEVICE_QUEUE_CREATE_INFO};
    queue.queueFamilyIndex = d->queue_family_;
    queue.queueCount = 1;
    queue.pQueuePriorities = &priority;
    VkPhysicalDeviceVulkan13Features features13{VK_STRUCTURE_TYPE_PHYSICAL_DEVICE_VULKAN_1_3_FEATURES};
    features13.dynamicRendering = VK_TRUE;
    features13.synchronization2 = VK_TRUE;
    VkPhysicalDeviceFeatures2 features2{VK_STRUCTURE_TYPE_PHYSICAL_DEVICE_FEATURES_2};
    features2.pNext = &features13;
    std::vector<const char*> device_extensions;
    if (d->has_swapchain_) device_extensions.push_back(VK_KHR_SWAPCHAIN_EXTENSION_NAME);
    VkDeviceCreateInfo device_info{VK_STRUCTURE_TYPE_DEVICE_CREATE_INFO};
    device_info.pNext = &features2;
    device_info.queueCreateInfoCount = 1;
    device_info.pQueueCreateInfos = &queue;
    device_info.enabledExtensionCount = static_cast<uint32_t>(device_extensions.size());
    device_info.ppEnabledExtensionNames = device_extensions.data();
    if (VkResult r = vkCreateDevice(d->physical_, &device_info, nullptr, &d->device_); r != VK_SUCCESS)
        return vkError(r, std::string("vkCreateDevice on ") + chosen.properties.deviceName);
    vkGetDeviceQueue(d->device_, d->queue_family_, 0, &d->queue_);
    d->setName(VK_OBJECT_TYPE_QUEUE, d->queue_, "graphics queue");

    VkCommandPoolCreateInfo pool{VK_STRUCTURE_TYPE_COMMAND_POOL_CREATE_INFO};
    pool.flags = VK_COMMAND_POOL_CREATE_TRANSIENT_BIT;
    pool.queueFamilyIndex = d->queue_family_;
    VK_CHECK(vkCreateCommandPool(d->device_, &pool, nullptr, &d->once_pool_));
    return d;
}

Device::~Device() {
    if (device_) {
        vkDeviceWaitIdle(device_);
        vkDestroyCommandPool(device_, once_pool_, nullptr);
        vkDestroyDevice(device_, nullptr);
    }
    if (messenger_) {
        auto destroy = reinterpret_cast<PFN_vkDestroyDebugUtilsMessengerEXT>(
            vkGetInstanceProcAddr(instance_, "vkDestroyDebugUtilsMessengerEXT"));
        destroy(instance_, messenger_, nullptr);
    }
    if (instance_) vkDestroyInstance(instance_, nullptr);
}

VkSampleCountFlagBits Device::clampSamples(uint32_t wanted) const {
    const VkSampleCountFlags supported =
        properties_.limits.framebufferColorSampleCounts & properties_.limits.framebufferDepthSampleCounts;
    uint32_t samples = 64;
    while (samples > 1 && (samples > wanted || !(supported & samples)))
        samples >>= 1;
    return static_cast<VkSampleCountFlagBits>(samples);
}

void Device::setName(VkObjectType type, uint64_t handle, const char* name) const {
    if (!set_object_name_ || handle == 0) return;
    VkDebugUtilsObjectNameInfoEXT info{VK_STRUCTURE_TYPE_DEBUG_UTILS_OBJECT_NAME_INFO_EXT};
    info.objectType = type;
    info.objectHandle = handle;
    info.pObjectName = name;
    set_object_name_(device_, &info);
}

void Device::submitOnce(const std::function<void(VkCommandBuffer)>& record) const {
    VkCommandBufferAllocateInfo alloc{VK_STRUCTURE_TYPE_COMMAND_BUFFER_ALLOCATE_INFO};
    alloc.commandPool = once_pool_;
    alloc.level = VK_COMMAND_BUFFER_LEVEL_PRIMARY;
    alloc.commandBufferCount = 1;
    VkCommandBuffer cmd = VK_NULL_HANDLE;
    VK_CHECK(vkAllocateCommandBuffers(device_, &alloc, &cmd));
    VkCommandBufferBeginInfo begin{VK_STRUCTURE_TYPE_COMMAND_BUFFER_BEGIN_INFO};
    begin.flags = VK_COMMAND_BUFFER_USAGE_ONE_TIME_SUBMIT_BIT;
    VK_CHECK(vkBeginCommandBuffer(cmd, &begin));
    record(cmd);
    VK_CHECK(vkEndCommandBuffer(cmd));

    VkFenceCreateInfo fence_info{VK_STRUCTURE_TYPE_FENCE_CREATE_INFO};
    VkFence fence = VK_NULL_HANDLE;
    VK_CHECK(vkCreateFence(device_, &fence_info, nullptr, &fence));
    VkCommandBufferSubmitInfo cmd_info{VK_STRUCTURE_TYPE_COMMAND_BUFFER_SUBMIT_INFO};
    cmd_info.commandBuffer = cmd;
    VkSubmitInfo2 submit{VK_STRUCTURE_TYPE_SUBMIT_INFO_2};
    submit.commandBufferInfoCount = 1;
    submit.pCommandBufferInfos = &cmd_info;
    VK_CHECK(vkQueueSubmit2(queue_, 1, &submit, fence));
    VK_CHECK(vkWaitForFences(device_, 1, &fence, VK_TRUE, UINT64_MAX));
    vkDestroyFence(device_, fence, nullptr);
    vkFreeCommandBuffers(device_, once_pool_, 1, &cmd);
}

}  // namespace memcity::render
