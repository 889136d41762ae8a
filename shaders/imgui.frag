#version 450
#extension GL_GOOGLE_include_directive : require
#include "shared.h"

layout(set = 0, binding = MC_BINDING_TEXTURE) uniform sampler2D font_atlas;

layout(location = 0) in vec2 in_uv;
layout(location = 1) in vec4 in_color;

layout(location = 0) out vec4 out_color;

void main() {
    out_color = in_color * texture(font_atlas, in_uv);
}
