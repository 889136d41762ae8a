#version 450
// One world-space line segment per instance (a 2-vertex line list).
#extension GL_GOOGLE_include_directive : require
#include "common.glsl"

layout(location = 0) in vec3 in_a;
layout(location = 1) in vec3 in_b;
layout(location = 2) in vec4 in_color;

layout(location = 0) out vec4 out_color;

void main() {
    gl_Position = frame.view_proj * vec4(gl_VertexIndex == 0 ? in_a : in_b, 1.0);
    out_color = in_color;
}
