#version 450
// One glyph (or a label's background box) per instance: a textured quad in pixels.
#extension GL_GOOGLE_include_directive : require
#include "common.glsl"

layout(location = 0) in vec4 in_rect;  // xy: top left, zw: bottom right, pixels
layout(location = 1) in vec4 in_uv;    // xy: top left, zw: bottom right, atlas coordinates 0..1
layout(location = 2) in vec4 in_color;

layout(location = 0) out vec2 out_uv;
layout(location = 1) flat out vec4 out_color;

void main() {
    vec2 corner = vec2(float(gl_VertexIndex & 1), float(gl_VertexIndex >> 1));
    gl_Position = pixelToClip(mix(in_rect.xy, in_rect.zw, corner));
    out_uv = mix(in_uv.xy, in_uv.zw, corner);
    out_color = in_color;
}
