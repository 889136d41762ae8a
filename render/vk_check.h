// VK_CHECK for calls that must not fail (a failure is a bug or a lost device: abort with file,
// line and expression in every build), and vkError for the few results worth returning to the
// caller (out of memory, unsupported sizes).
#pragma once

#include <vulkan/vulkan.h>

#include <string>

#include "util/result.h"

namespace memcity::render {

// The enumerator's name ("VK_ERROR_OUT_OF_DEVICE_MEMORY"), or "VkResult(N)".
const char* vkResultName(VkResult result);

// Prints "file:line: expression failed: VK_..." to stderr and aborts.
[[noreturn]] void vkCheckFailed(VkResult result, const char* expression, const char* file, int line);

// An Error "what: VK_...".
Error vkError(VkResult result, const std::string& what);

}  // namespace memcity::render

#define VK_CHECK(expression)                                                                     \
    do {                                                                                         \
        const VkResult vk_check_result_ = (expression);                                          \
        if (vk_check_result_ != VK_SUCCESS)                                                      \
            ::memcity::render::vkCheckFailed(vk_check_result_, #expression, __FILE__, __LINE__); \
    } while (0)
