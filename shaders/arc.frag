#version 450
#extension GL_GOOGLE_include_directive : require
#include "common.glsl"

layout(location = 0) in vec2 in_local;
layout(location = 1) flat in vec4 in_bounds;
layout(location = 2) flat in vec4 in_color;
layout(location = 3) flat in uint in_flags;

layout(location = 0) out vec4 out_color;

const float kTwoPi = 6.28318530718;

void main() {
    vec3 c = in_color.rgb;
    if (in_flags != 0u) {
        float r = length(in_local);
        float edge_px = min(r - in_bounds.x, in_bounds.y - r);
        if (in_bounds.w - in_bounds.z < kTwoPi - 1e-4) {
            float a = atan(in_local.y, in_local.x);
            a = in_bounds.z + mod(a - in_bounds.z, kTwoPi);
            edge_px = min(edge_px, min(a - in_bounds.z, in_bounds.w - a) * r);
        }
        c = applyFlags2D(c, in_flags, edge_px);
    }
    out_color = vec4(c, in_color.a);
}
