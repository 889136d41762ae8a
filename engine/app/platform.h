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

struct SDL_Window;

namespace memcity::app {

// The keys the explorer reads, as memcity names them (keyIndex gives ImGui's index of each).
enum class Key : uint8_t {
    kSpace,
    kLeft,
    kRight,
    kUp,
    kDown,
    kEscape,
    kBackspace,
    kTab,
    kHome,
    kEnd,
    kF12,
    kA,
    kD,
    kE,
    kF,
    kO,
    kQ,
    kS,
    kW,
};
// The index of `key` in ImGui's key state (ImGui::IsKeyPressed, io.KeysDown) as the platform's
// ImGui backend fills it.
int keyIndex(Key key);

// What the window tells the explorer (Platform::waitEvent). ImGui has seen it already.
struct WindowEvent {
    enum class Type : uint8_t {
        kOther,     // input ImGui handles, a wake-up (Platform::wake), ...: only asks for a frame
        kQuit,      // the user closes the window or quits
        kDropFile,  // a file dropped onto the window: path
        kResized,   // the window's size changed: the drawable's size (drawableSize) may have
    };
    Type type = Type::kOther;
    std::string path;  // kDropFile: the file (as the system gives it)
};

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

    // Instance extensions a surface needs.
    std::vector<std::string> vulkanExtensions() const;
    Result<VkSurfaceKHR> createSurface(VkInstance instance) const;

    glm::ivec2 windowSize() const;    // screen coordinates (what mouse events use)
    glm::ivec2 drawableSize() const;  // framebuffer pixels (the swapchain's size)
    glm::ivec2 windowPosition() const;
    bool maximized() const;
    // The display's scale for UI sizes: its DPI over 96 times pixels per screen unit, 1..4.
    float contentScale() const;

    // Waits up to timeout_ms for an event (0: just polls), hands it to ImGui (once initImGui ran)
    // and says what it means to the explorer. False when none came.
    bool waitEvent(WindowEvent& event, int timeout_ms);
    // Wakes waitEvent from any thread (a user event that carries nothing).
    void wake() const;
    // ImGui's platform backend for this window: initImGui after ImGui::CreateContext,
    // newImGuiFrame before ImGui::NewFrame, shutdownImGui before ImGui::DestroyContext.
    void initImGui();
    void newImGuiFrame() const;
    void shutdownImGui();
    // Resizes the window (screen coordinates); a kResized event follows.
    void setWindowSize(int width, int height) const;
    void setTitle(const std::string& title) const;
    void setClipboard(const std::string& text) const;

private:
    Platform() = default;
    SDL_Window* window_ = nullptr;
    uint32_t wake_event_ = 0;
    bool imgui_ = false;  // initImGui ran: events go to ImGui
};

}  // namespace memcity::app
