#version 450
// One filled pixel rectangle per instance (a 4-vertex strip).
#extension GL_GOOGLE_include_directive : require
#include "common.glsl"

layout(location = 0) in vec4 in_rect;  // xy: min, zw: max, pixels
layout(location = 1) in vec4 in_color;
layout(location = 2) in uint in_flags;

layout(location = 0) out vec2 out_local;  // pixels from the rectangle's min corner
layout(location = 1) flat out vec2 out_size;
layout(location = 2) flat out vec4 out_color;
layout(location = 3) flat out uint out_flags;

void main() {
    vec2 corner = vec2(float(gl_VertexIndex & 1), float(gl_VertexIndex >> 1));
    vec2 p = mix(in_rect.xy, in_rect.zw, corner);
    gl_Position = pixelToClip(p);
    out_local = p - in_rect.xy;
    out_size = in_rect.zw - in_rect.xy;
    out_color = in_color;
    out_flags = in_flags;
}
