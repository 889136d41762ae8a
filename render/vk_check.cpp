#include "render/vk_check.h"

#include <cstdio>
#include <cstdlib>

namespace memcity::render {

const char* vkResultName(VkResult result) {
    switch (result) {
#define MC_RESULT_CASE(name) \
    case name: return #name;
        MC_RESULT_CASE(VK_SUCCESS)
        MC_RESULT_CASE(VK_NOT_READY)
        MC_RESULT_CASE(VK_TIMEOUT)
        MC_RESULT_CASE(VK_EVENT_SET)
        MC_RESULT_CASE(VK_EVENT_RESET)
        MC_RESULT_CASE(VK_INCOMPLETE)
        MC_RESULT_CASE(VK_ERROR_OUT_OF_HOST_MEMORY)
        MC_RESULT_CASE(VK_ERROR_OUT_OF_DEVICE_MEMORY)
        MC_RESULT_CASE(VK_ERROR_INITIALIZATION_FAILED)
        MC_RESULT_CASE(VK_ERROR_DEVICE_LOST)
        MC_RESULT_CASE(VK_ERROR_MEMORY_MAP_FAILED)
        MC_RESULT_CASE(VK_ERROR_LAYER_NOT_PRESENT)
        MC_RESULT_CASE(VK_ERROR_EXTENSION_NOT_PRESENT)
        MC_RESULT_CASE(VK_ERROR_FEATURE_NOT_PRESENT)
        MC_RESULT_CASE(VK_ERROR_INCOMPATIBLE_DRIVER)
        MC_RESULT_CASE(VK_ERROR_TOO_MANY_OBJECTS)
        MC_RESULT_CASE(VK_ERROR_FORMAT_NOT_SUPPORTED)
        MC_RESULT_CASE(VK_ERROR_FRAGMENTED_POOL)
        MC_RESULT_CASE(VK_ERROR_UNKNOWN)
        MC_RESULT_CASE(VK_ERROR_OUT_OF_POOL_MEMORY)
        MC_RESULT_CASE(VK_ERROR_FRAGMENTATION)
        MC_RESULT_CASE(VK_ERROR_SURFACE_LOST_KHR)
        MC_RESULT_CASE(VK_ERROR_NATIVE_WINDOW_IN_USE_KHR)
        MC_RESULT_CASE(VK_SUBOPTIMAL_KHR)
        MC_RESULT_CASE(VK_ERROR_OUT_OF_DATE_KHR)
        MC_RESULT_CASE(VK_ERROR_VALIDATION_FAILED_EXT)
#undef MC_RESULT_CASE
        default: return "VkResult(?)";
    }
}

void vkCheckFailed(VkResult result, const char* expression, const char* file, int line) {
    std::fprintf(stderr, "%s:%d: %s failed: %s (%d)\n", file, line, expression, vkResultName(result),
                 static_cast<int>(result));
    std::fflush(stderr);
    std::abort();
}

Error vkError(VkResult result, const std::string& what) {
    return Error{what + ": " + vkResultName(result)};
}

}  // namespace memcity::render
