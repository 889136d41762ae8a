#include "render/shader_code.h"

#include <iterator>

namespace memcity::render {
namespace {

// Each .inc holds the comma-separated SPIR-V words glslc writes with -mfmt=num.
constexpr uint32_t kBoxVert[] = {
#include "box.vert.inc"
};
constexpr uint32_t kBoxFrag[] = {
#include "box.frag.inc"
};
constexpr uint32_t kWorldLineVert[] = {
#include "world_line.vert.inc"
};
constexpr uint32_t kFlatFrag[] = {
#include "flat.frag.inc"
};
constexpr uint32_t kRectVert[] = {
#include "rect.vert.inc"
};
constexpr uint32_t kRectFrag[] = {
#include "rect.frag.inc"
};
constexpr uint32_t kArcVert[] = {
#include "arc.vert.inc"
};
constexpr uint32_t kArcFrag[] = {
#include "arc.frag.inc"
};
constexpr uint32_t kTriangleVert[] = {
#include "triangle.vert.inc"
};
constexpr uint32_t kLineVert[] = {
#include "line.vert.inc"
};
constexpr uint32_t kGlyphVert[] = {
#include "glyph.vert.inc"
};
constexpr uint32_t kGlyphFrag[] = {
#include "glyph.frag.inc"
};
constexpr uint32_t kImGuiVert[] = {
#include "imgui.vert.inc"
};
constexpr uint32_t kImGuiFrag[] = {
#include "imgui.frag.inc"
};

struct Entry {
    std::span<const uint32_t> code;
    const char* name;
};

constexpr Entry kShaders[] = {
    {kBoxVert, "box.vert"},     {kBoxFrag, "box.frag"},     {kWorldLineVert, "world_line.vert"},
    {kFlatFrag, "flat.frag"},   {kRectVert, "rect.vert"},   {kRectFrag, "rect.frag"},
    {kArcVert, "arc.vert"},     {kArcFrag, "arc.frag"},     {kTriangleVert, "triangle.vert"},
    {kLineVert, "line.vert"},   {kGlyphVert, "glyph.vert"}, {kGlyphFrag, "glyph.frag"},
    {kImGuiVert, "imgui.vert"}, {kImGuiFrag, "imgui.frag"},
};
static_assert(std::size(kShaders) == static_cast<size_t>(ShaderId::kCount));

}  // namespace

std::span<const uint32_t> shaderCode(ShaderId id) {
    return kShaders[static_cast<size_t>(id)].code;
}

const char* shaderName(ShaderId id) {
    return kShaders[static_cast<size_t>(id)].name;
}

}  // namespace memcity::render
