// Turns a DrawList into the instance arrays the pipelines read (CPU only, no Vulkan): boxes
// split into opaque and back-to-front translucent, arcs cut into pieces fine enough to look
// round, labels laid out into glyph quads. Boxes, world lines, rectangles, 2D triangles and 2D
// lines are read by the GPU in their DrawList layout as they are.
#pragma once

#include <cstdint>
#include <vector>

#include <glm/glm.hpp>

#include "render/draw_list.h"
#include "render/font.h"

namespace memcity::render {

// One piece of an arc (vertex attributes of arc.vert).
struct ArcInstance {
    glm::vec4 shape{0.0f};   // xy: centre, z: inner radius, w: outer radius (pixels)
    glm::vec4 angles{0.0f};  // xy: this piece's start and end angle, zw: the whole arc's (radians)
    uint32_t color = 0;
    uint32_t flags = 0;
    uint32_t segments =
        1;  // 1..kArcSegmentsPerInstance segments used; the strip's other vertices repeat the last edge
};

// One glyph or label background (vertex attributes of glyph.vert).
struct GlyphInstance {
    glm::vec4 rect{0.0f};  // xy: top left, zw: bottom right (pixels)
    glm::vec4 uv{0.0f};    // the same corners in the atlas
    uint32_t color = 0;
};

// Boxes in drawing order: the opaque ones (alpha 255) nearest first (by the distance of their
// nearest point from `eye`, ties in the given order), then the translucent ones
// sorted back to front by the distance of their centre from `eye` (ties keep their order).
// Returns the number of opaque boxes at the front of `out`.
uint32_t orderBoxes(const std::vector<BoxInstance>& boxes, glm::vec3 eye, std::vector<BoxInstance>* out);

// Cuts each arc into pieces of at most kArcSegmentsPerInstance segments, with enough segments
// that no chord of the outer edge strays more than `max_error_px` from the circle (a thin
// sliver of a sunburst is a single segment: 2 triangles). Arcs with a1 <= a0 or
// r1 <= r0 draw nothing; spans beyond a full turn are clamped to one turn.
void buildArcs(const std::vector<Arc>& arcs, float max_error_px, std::vector<ArcInstance>* out);

// The text box of a label: top-left corner (whole pixels) and size (width, size_px).
struct LabelBox {
    glm::vec2 top_left{0.0f};
    glm::vec2 size{0.0f};
};
LabelBox labelBox(const Font& font, const Label& label);
// The background box behind a label: its text box with this padding on each side (pixels).
glm::vec2 labelPadding(float size_px);

// Appends each label's background box (when its alpha > 0) and glyphs.
void buildLabels(const Font& font, const std::vector<Label>& labels, std::vector<GlyphInstance>* out);

// The matrix that takes GLM's OpenGL clip space (y up, depth -1..1) to Vulkan's (y down,
// depth 0..1): Vulkan clip = kVulkanClip * projection * view. The engine builds its projection
// with plain glm::perspective, without GLM_FORCE_DEPTH_ZERO_TO_ONE.
glm::mat4 vulkanClipCorrection();

}  // namespace memcity::render
