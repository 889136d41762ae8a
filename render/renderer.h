// The renderer's face to the rest of memcity: draws a DrawList (and optionally Dear ImGui draw
// data) offscreen into an image, or into a swapchain on a surface the caller made.
//
// Frame order: clear; 3D (opaque boxes, world lines, translucent boxes back to front); 2D overlay
// in pixels (rects, arcs, triangles, lines, labels); ImGui. 3D cameras follow GLM's OpenGL
// conventions (glm::lookAt, glm::perspective without GLM_FORCE_DEPTH_ZERO_TO_ONE); the renderer
// converts to Vulkan clip space itself (vulkanClipCorrection in render/batches.h).
//
// Not thread-safe: one thread drives a Renderer.
#pragma once

#include <vulkan/vulkan.h>

#include <cstdint>
#include <memory>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include "render/draw_list.h"
#include "render/png.h"
#include "util/result.h"

struct ImDrawData;

namespace memcity::render {

class Font;

struct RendererOptions {
    // VK_LAYER_KHRONOS_validation (+ synchronization validation) and a debug messenger that
    // prints and counts warnings and errors; create() fails with a clear error if the layer is missing.
    bool validation = false;
    // MSAA sample count, clamped to what the device supports for colour and depth (1 = off).
    uint32_t samples = 4;
    // TrueType font of the labels.
    std::string font_path = "/usr/share/fonts/truetype/dejavu/DejaVuSans.ttf";
    // Instance extensions for a swapchain later, e.g. from SDL_Vulkan_GetInstanceExtensions.
    std::vector<std::string> instance_extensions;
    // A substring of the device name to prefer ("" = the best device: discrete GPU first).
    std::string device_name;
    // Share of a box face's colour lit regardless of the light (0..1).
    float ambient = 0.45f;
};

struct FrameStats {
    double cpu_ms = 0;   // building instance data and recording, until the submit
    double gpu_ms = 0;   // GPU timestamps around the frame's commands (0 without timestamp support)
    double wall_ms = 0;  // from the call until the GPU finished (offscreen frames; 0 for swapchain frames)
    uint32_t boxes_drawn = 0;  // box instances drawn (opaque + translucent)
    uint32_t draw_calls = 0;   // draw commands recorded, ImGui's included
};

// GPU memory held by the renderer (for a debug panel).
struct MemoryStats {
    uint32_t blocks = 0;            // VkDeviceMemory allocations
    uint64_t block_bytes = 0;       // their total size
    uint32_t live_allocations = 0;  // buffers and images living in them
    uint64_t live_bytes = 0;
};

class Renderer {
public:
    // Creates the device (see RendererOptions), loads the font and builds the offscreen
    // pipelines. Errors: no Vulkan device, missing validation layer, bad font path.
    static Result<std::unique_ptr<Renderer>> create(const RendererOptions& options = {});
    ~Renderer();
    Renderer(const Renderer&) = delete;
    Renderer& operator=(const Renderer&) = delete;

    // Draws `list` (and `imgui` when non-null) into an offscreen image width x height and reads it
    // back. Same input => byte-identical output on the same driver. Errors: a size of 0 or beyond
    // the device's limit, out of memory. `imgui` needs its ImGui context current (font atlas).
    Result<Image> renderToImage(const DrawList& list, uint32_t width, uint32_t height,
                                const ImDrawData* imgui = nullptr);
    // The same without the readback; returns when the GPU has finished (for frame timing).
    Status renderOffscreen(const DrawList& list, uint32_t width, uint32_t height,
                           const ImDrawData* imgui = nullptr);

    // The instance, for the caller to create a surface (SDL_Vulkan_CreateSurface). Pass the
    // surface extensions in RendererOptions::instance_extensions.
    VkInstance instance() const;
    // Takes ownership of `surface` (destroyed with the renderer or the next attachSurface) and
    // creates a swapchain of about width x height (the surface may decide). vsync: FIFO, else
    // MAILBOX or IMMEDIATE where offered.
    Status attachSurface(VkSurfaceKHR surface, uint32_t width, uint32_t height, bool vsync);
    // Recreates the swapchain for a new window size (0 x 0 while minimised: frames are skipped).
    Status resize(uint32_t width, uint32_t height);
    // Switches vsync, recreating the swapchain.
    Status setVsync(bool vsync);
    // Draws one frame and presents it. An out-of-date or suboptimal swapchain is recreated (the
    // frame may be skipped), not an error.
    Status renderToSwapchain(const DrawList& list, const ImDrawData* imgui = nullptr);

    // Blocks until the GPU finished every frame submitted (timing input to picture: a frame is on
    // screen once its commands are done and it is presented).
    void waitIdle();

    // Uploads the current ImGui context's font atlas now (otherwise done on first ImDrawData).
    Status uploadImGuiFonts();

    // Width in pixels of `text` drawn at `size_px` as a label (the same layout the labels use).
    float textWidth(std::string_view text, float size_px) const;
    const Font& font() const;
    std::string deviceName() const;
    uint32_t sampleCount() const;
    // Warnings and errors the validation layer reported (0 without validation).
    uint64_t validationMessages() const;
    FrameStats lastFrame() const;
    MemoryStats memoryStats() const;
    // The live GPU allocations by name ("frame upload", "glyph atlas", ...) and size in bytes.
    std::vector<std::pair<std::string, uint64_t>> memoryAllocations() const;

private:
    struct Impl;
    explicit Renderer(std::unique_ptr<Impl> impl);
    std::unique_ptr<Impl> impl_;
};

}  // namespace memcity::render
