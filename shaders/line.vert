#version 450
// One thick 2D line per instance: a quad (4-vertex strip) around the segment, butt ends.
// Lines thinner than a pixel are drawn one pixel wide with their alpha scaled down instead.
#extension GL_GOOGLE_include_directive : require
#include "common.glsl"

layout(location = 0) in vec4 in_ends;  // xy: a, zw: b, pixels
layout(location = 1) in float in_width;
layout(location = 2) in vec4 in_color;

layout(location = 0) out vec4 out_color;

void main() {
    vec2 dir = in_ends.zw - in_ends.xy;
    float len = length(dir);
    dir = len > 1e-6 ? dir / len : vec2(1.0, 0.0);
    vec2 normal = vec2(-dir.y, dir.x);
    float width = max(in_width, 1.0);
    float side = (gl_VertexIndex & 1) != 0 ? 0.5 : -0.5;
    vec2 p = ((gl_VertexIndex >> 1) != 0 ? in_ends.zw : in_ends.xy) + normal * side * width;
    gl_Position = pixelToClip(p);
    out_color = vec4(in_color.rgb, in_color.a * clamp(in_width, 0.0, 1.0));
}
