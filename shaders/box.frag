#version 450
// Box faces: directional light plus ambient, a darker one-pixel edge so neighbouring buildings
// separate, lighter when highlighted, a bright rim when selected. Alpha passes through
// (translucent boxes use the same shader with blending on).
#extension GL_GOOGLE_include_directive : require
#include "common.glsl"

layout(location = 0) in vec3 in_world;
layout(location = 1) flat in vec4 in_color;
layout(location = 2) flat in uint in_flags;
layout(location = 3) flat in vec3 in_min;
layout(location = 4) flat in vec3 in_max;

layout(location = 0) out vec4 out_color;

void main() {
    vec3 to_min = in_world - in_min;
    vec3 to_max = in_max - in_world;
    vec3 d = max(min(to_min, to_max), vec3(0.0));  // distance to the nearer face, per axis
    // The face this fragment lies on is the axis with the smallest distance.
    int axis = (d.x <= d.y && d.x <= d.z) ? 0 : (d.y <= d.z ? 1 : 2);
    vec3 n = vec3(0.0);
    n[axis] = to_max[axis] < to_min[axis] ? 1.0 : -1.0;

    // Distance to the face's border in pixels, along its two tangent axes.
    vec3 px = d / max(fwidth(in_world), vec3(1e-7));
    px[axis] = 1e9;
    float edge_px = min(px.x, min(px.y, px.z));

    float ambient = frame.light.w;
    float diffuse = max(dot(n, -frame.light.xyz), 0.0);
    vec3 c = in_color.rgb * (ambient + (1.0 - ambient) * diffuse);
    if ((in_flags & kGpuFlagHighlighted) != 0u) c = mix(c, vec3(1.0), 0.3);
    c *= mix(0.7, 1.0, smoothstep(0.5, 1.5, edge_px));
    if ((in_flags & kGpuFlagSelected) != 0u) {
        c = mix(c, vec3(1.0), 0.15);
        c = mix(vec3(1.0), c, smoothstep(1.5, 2.5, edge_px));
    }
    out_color = vec4(c, in_color.a);
}
