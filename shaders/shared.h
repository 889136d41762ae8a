// Shared by the C++ renderer (render/) and the GLSL shaders (shaders/): descriptor bindings,
// per-instance vertex counts, flag bits and the push-constant block. Keep it plain: it is
// compiled as C++20 and as GLSL 450.
#ifndef MEMCITY_SHADERS_SHARED_H
#define MEMCITY_SHADERS_SHARED_H

#ifdef __cplusplus
#include <cstdint>

#include <glm/glm.hpp>

namespace memcity::render::gpu {
using uint = uint32_t;
using vec4 = glm::vec4;
using mat4 = glm::mat4;
#define MC_CONST inline constexpr
#else
#define MC_CONST const
#endif

// Descriptor set 0, binding 0: the sampled texture of the glyph and ImGui pipelines (a macro so
// GLSL layout qualifiers can use it).
#define MC_BINDING_TEXTURE 0

// A box is drawn from its 7 corners nearest the eye (index buffer of 18 indices, 3 faces).
MC_CONST uint kBoxCornerCount = 7u;
MC_CONST uint kBoxIndexCount = 18u;
// An arc instance is a triangle strip over this many segments (2 vertices per segment edge).
MC_CONST uint kArcSegmentsPerInstance = 16u;
MC_CONST uint kArcVerticesPerInstance = 2u * (kArcSegmentsPerInstance + 1u);
// Rectangles, 2D lines and glyphs are 4-vertex triangle strips.
MC_CONST uint kQuadVertices = 4u;

// Instance flags (the same bits as render::DrawFlags in render/draw_list.h).
MC_CONST uint kGpuFlagSelected = 1u;
MC_CONST uint kGpuFlagHighlighted = 2u;

// Push constants: one block for every pipeline, pushed once per frame (128 bytes, the minimum
// every device offers).
// clang-format off
#ifdef __cplusplus
struct FramePush {
#else
layout(push_constant) uniform FramePush {
#endif
    mat4 view_proj;  // world -> Vulkan clip space (y down, depth 0..1), see render/renderer.cpp
    vec4 eye;        // xyz: camera position in world units
    vec4 light;      // xyz: unit direction the light travels; w: ambient share 0..1
    vec4 viewport;   // xy: framebuffer size in pixels; zw: 1 / size
    vec4 imgui;      // xy: scale, zw: translate from ImGui display coordinates to clip space
#ifdef __cplusplus
};
static_assert(sizeof(FramePush) == 128);
}  // namespace memcity::render::gpu
#else
} frame;
#endif
// clang-format on

#undef MC_CONST
#endif  // MEMCITY_SHADERS_SHARED_H
