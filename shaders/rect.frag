#version 450
#extension GL_GOOGLE_include_directive : require
#include "common.glsl"

layout(location = 0) in vec2 in_local;
layout(location = 1) flat in vec2 in_size;
layout(location = 2) flat in vec4 in_color;
layout(location = 3) flat in uint in_flags;

layout(location = 0) out vec4 out_color;

void main() {
    vec2 d = min(in_local, in_size - in_local);
    out_color = vec4(applyFlags2D(in_color.rgb, in_flags, min(d.x, d.y)), in_color.a);
}
