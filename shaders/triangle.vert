#version 450
// Filled 2D triangles in pixels (three vertices each).
#extension GL_GOOGLE_include_directive : require
#include "common.glsl"

layout(location = 0) in vec2 in_pos;
layout(location = 1) in vec4 in_color;

layout(location = 0) out vec4 out_color;

void main() {
    gl_Position = pixelToClip(in_pos);
    out_color = in_color;
}
