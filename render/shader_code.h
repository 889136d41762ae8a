// The SPIR-V of shaders/*.vert|frag, compiled by glslc at build time and embedded in the binary
// (see render/CMakeLists.txt), so memcity runs from any directory.
#pragma once

#include <cstdint>
#include <span>

namespace memcity::render {

enum class ShaderId : uint8_t {
    kBoxVert,        // box.vert: instanced boxes, 3 faces towards the eye
    kBoxFrag,        // box.frag: lighting, edges, flags
    kWorldLineVert,  // world_line.vert: instanced world-space segments
    kFlatFrag,       // flat.frag: interpolated colour
    kRectVert,       // rect.vert: instanced pixel rectangles
    kRectFrag,       // rect.frag: flags outline
    kArcVert,        // arc.vert: instanced annular sector pieces
    kArcFrag,        // arc.frag: flags outline
    kTriangleVert,   // triangle.vert: 2D triangles
    kLineVert,       // line.vert: instanced thick 2D lines
    kGlyphVert,      // glyph.vert: instanced glyph quads
    kGlyphFrag,      // glyph.frag: atlas coverage
    kImGuiVert,      // imgui.vert: ImDrawVert
    kImGuiFrag,      // imgui.frag: colour * font atlas
    kCount,
};

// SPIR-V words of a shader; never empty.
std::span<const uint32_t> shaderCode(ShaderId id);
// "box.vert", ... for debug names.
const char* shaderName(ShaderId id);

}  // namespace memcity::render
