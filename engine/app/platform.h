// The window: SDL2 behind a small type (events, sizes, a Vulkan surface, waking the event loop
// from other threads), so the rest of the explorer never includes SDL and offscreen rendering
// needs no window at all.
#pragma once

#include <vulkan/vulkan.h>

#include <cstdint>
#include <memory>
#include <string>
#include <vector>

#include <glm/glm.hpp>

#include "util/result.h"

union SDL_Event;
struct SDL_Window;

namespace memcity::app {

struct PlatformOptions {
    std::string title = "memcity";
    int width = 1600, height = 900;  // window size in screen coordinates
    int x = -1, y = -1;              // position (-1: let the window manager place it)
    bool maximized = false;
};

class Platform {
public:
    // Opens the window (SDL video with Vulkan, resizable, high-DPI aware). Error with SDL's
    // reason when there is no display or no Vulkan loader.
    static Result<std::unique_ptr<Platform>> create(const PlatformOptions& options);
    ~Platform();
    Platform(const Platform&) = delete;
    Platform& operator=(const Platform&) = delete;

    SDL_Window* window() const { return window_; }
    // Instance extensions a surface needs.
    std::vector<std::string> vulkanExtensions() const;
    Result<VkSurfaceKHR> createSurface(VkInstance instance) const;

    glm::ivec2 windowSize() const;    // screen coordinates (what mouse events use)
    glm::ivec2 drawableSize() const;  // framebuffer pixels (the swapchain's size)
    glm::ivec2 windowPosition() const;
    bool maximized() const;
    // The display's scale for UI sizes: its DPI over 96 times pixels per screen unit, 1..4.
    float contentScale() const;

    // Waits up to timeout_ms for an event (0: just polls). False when none came.
    bool waitEvent(SDL_Event& event, int timeout_ms) const;
    // Wakes waitEvent from any thread (a user event that carries nothing).
    void wake() const;
    // Puts an event in the queue as if the user made it (scripts press keys this way).
    void push(SDL_Event& event) const;
    void setTitle(const std::string& title) const;
    void setClipboard(const std::string& text) const;

private:
    Platform() = default;
    SDL_Window* window_ = nullptr;
    uint32_t wake_event_ = 0;
};

}  // namespace memcity::app
