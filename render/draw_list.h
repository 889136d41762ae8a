// What the renderer is handed each frame: plain data, no Vulkan, nothing about heaps or trees.
// The engine's scene builders fill a DrawList; render::Renderer draws it into an offscreen image
// or a swapchain image. Colours are packed RGBA8 (rgba(r, g, b, a)); 3D positions are world units
// (y up); 2D positions are framebuffer pixels, origin top left, y down.
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include <glm/glm.hpp>

namespace memcity::render {

// Packs 8-bit channels as 0xAABBGGRR (the byte order of VK_FORMAT_R8G8B8A8_UNORM in memory).
constexpr uint32_t rgba(uint8_t r, uint8_t g, uint8_t b, uint8_t a = 255) {
    return uint32_t{r} | uint32_t{g} << 8 | uint32_t{b} << 16 | uint32_t{a} << 24;
}
constexpr uint8_t alphaOf(uint32_t c) {
    return static_cast<uint8_t>(c >> 24);
}

// Per-instance flags of boxes, arcs and rectangles.
enum DrawFlags : uint32_t {
    kFlagNone = 0,
    kFlagSelected = 1u << 0,     // drawn with a bright outline / rim
    kFlagHighlighted = 1u << 1,  // drawn lighter (hovered, or on the drill-down branch)
};

// One axis-aligned box in world space: a building or a district plate. A colour with alpha < 255
// is drawn translucent (after every opaque box, without writing depth).
struct BoxInstance {
    glm::vec3 min{0.0f};  // world units
    glm::vec3 max{0.0f};
    uint32_t color = 0;
    uint32_t id = 0;  // the caller's id (a tree node); not interpreted by the renderer
    uint32_t flags = kFlagNone;
};

// A line segment in world space, one pixel wide.
struct WorldLine {
    glm::vec3 a{0.0f}, b{0.0f};
    uint32_t color = 0;
};

// An annular sector in pixels: angles in radians, 0 pointing right (+x), growing clockwise on
// screen (towards +y); a0 < a1. Drawn as a filled ring segment, tessellated finely enough that
// its edge looks round at its radius.
struct Arc {
    glm::vec2 center{0.0f};
    float r0 = 0.0f, r1 = 0.0f;  // inner and outer radius, pixels
    float a0 = 0.0f, a1 = 0.0f;  // start and end angle, radians
    uint32_t color = 0;
    uint32_t id = 0;
    uint32_t flags = kFlagNone;
};

// A filled axis-aligned rectangle in pixels.
struct Rect {
    glm::vec2 min{0.0f}, max{0.0f};
    uint32_t color = 0;
    uint32_t id = 0;
    uint32_t flags = kFlagNone;
};

// A vertex of filled 2D triangles (curves and areas of the timeline): three per triangle.
struct Vertex2D {
    glm::vec2 pos{0.0f};  // pixels
    uint32_t color = 0;
};

// A 2D line segment in pixels with a width in pixels (drawn as a quad).
struct Line2D {
    glm::vec2 a{0.0f}, b{0.0f};
    float width = 1.0f;
    uint32_t color = 0;
};

// Where a label's position sits relative to its text.
enum class TextAnchor : uint8_t {
    kTopLeft,      // pos is the top-left corner of the text box
    kCenter,       // pos is the centre of the text box
    kTopCenter,    // pos is the middle of the top edge
    kLeftCenter,   // pos is the middle of the left edge
    kRightCenter,  // pos is the middle of the right edge
};

// A line of text in pixels from the renderer's glyph atlas (UTF-8; characters missing from the
// atlas draw as '?').
struct Label {
    glm::vec2 pos{0.0f};
    std::string text;
    uint32_t color = 0;
    float size_px = 14.0f;  // line height in pixels
    TextAnchor anchor = TextAnchor::kTopLeft;
    uint32_t background = 0;  // a box behind the text when alpha > 0
};

// The 3D camera: a right-handed view and a perspective projection (GLM conventions, depth 0..1
// is the renderer's concern: it corrects clip space for Vulkan).
struct CameraMatrices {
    glm::mat4 view{1.0f};
    glm::mat4 projection{1.0f};
    glm::vec3 eye{0.0f};  // world position of the camera (for lighting and back-to-front order)
};

// One frame. Drawing order: clear; the 3D pass (opaque boxes, world lines, translucent boxes
// back to front); then the 2D overlay in the order rects, arcs, triangles, lines, labels; then
// ImGui draw data when the caller passes it to the renderer.
struct DrawList {
    uint32_t clear_color = rgba(0, 0, 0);

    CameraMatrices camera;
    glm::vec3 light_dir{-0.4f, -1.0f, -0.3f};  // direction the light travels, world space
    std::vector<BoxInstance> boxes;
    std::vector<WorldLine> world_lines;

    std::vector<Rect> rects;
    std::vector<Arc> arcs;
    std::vector<Vertex2D> triangles;
    std::vector<Line2D> lines;
    std::vector<Label> labels;

    // Appends the 2D overlay of `other` (rects, arcs, triangles, lines, labels) after this one's.
    void append2D(const DrawList& other) {
        rects.insert(rects.end(), other.rects.begin(), other.rects.end());
        arcs.insert(arcs.end(), other.arcs.begin(), other.arcs.end());
        triangles.insert(triangles.end(), other.triangles.begin(), other.triangles.end());
        lines.insert(lines.end(), other.lines.begin(), other.lines.end());
        labels.insert(labels.end(), other.labels.begin(), other.labels.end());
    }

    void clear() {
        boxes.clear();
        world_lines.clear();
        rects.clear();
        arcs.clear();
        triangles.clear();
        lines.clear();
        labels.clear();
    }
};

}  // namespace memcity::render
