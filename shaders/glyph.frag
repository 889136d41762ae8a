#version 450
// Glyph coverage from the single-channel atlas (the atlas has a solid block for backgrounds).
#extension GL_GOOGLE_include_directive : require
#include "shared.h"

layout(set = 0, binding = MC_BINDING_TEXTURE) uniform sampler2D atlas;

layout(location = 0) in vec2 in_uv;
layout(location = 1) flat in vec4 in_color;

layout(location = 0) out vec4 out_color;

void main() {
    out_color = vec4(in_color.rgb, in_color.a * texture(atlas, in_uv).r);
}
