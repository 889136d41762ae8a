#version 450
// One axis-aligned box per instance, drawn from the (up to) 3 faces that face the eye: the
// index buffer walks 3 quads over the 7 corners nearest the eye, so each instance costs 7
// vertex invocations. Corner m of the index buffer is the box corner `near ^ m` (bit set = max
// side on that axis), where `near` is the corner closest to the eye. Faces the eye cannot see
// (it sits between their planes) come out back-facing and are culled.
#extension GL_GOOGLE_include_directive : require
#include "common.glsl"

layout(location = 0) in vec3 in_min;
layout(location = 1) in vec3 in_max;
layout(location = 2) in vec4 in_color;
layout(location = 3) in uint in_flags;

layout(location = 0) out vec3 out_world;
layout(location = 1) flat out vec4 out_color;
layout(location = 2) flat out uint out_flags;
layout(location = 3) flat out vec3 out_min;
layout(location = 4) flat out vec3 out_max;

void main() {
    vec3 center = 0.5 * (in_min + in_max);
    uint near_corner = (frame.eye.x > center.x ? 1u : 0u) | (frame.eye.y > center.y ? 2u : 0u) |
                       (frame.eye.z > center.z ? 4u : 0u);
    uint m = uint(gl_VertexIndex);
    // An odd number of mirrored axes (near side at min) reverses the winding; swapping the y
    // and z bits of m reverses it back, so the visible faces stay front-facing.
    if ((bitCount(near_corner) & 1) == 0) m = (m & 1u) | ((m & 2u) << 1) | ((m & 4u) >> 1);
    uint c = near_corner ^ m;
    vec3 p = mix(in_min, in_max, vec3(float(c & 1u), float((c >> 1) & 1u), float((c >> 2) & 1u)));
    gl_Position = frame.view_proj * vec4(p, 1.0);
    out_world = p;
    out_color = in_color;
    out_flags = in_flags;
    out_min = in_min;
    out_max = in_max;
}
