#version 450
// One piece of an annular sector per instance: a triangle strip of kArcVerticesPerInstance
// vertices over `in_segments` (1..kArcSegmentsPerInstance) segments between the piece's angles;
// vertices past the last segment repeat its edge (zero-area triangles). The renderer splits long
// arcs into pieces so that every segment's chord stays close to the circle. Angles: 0 = +x,
// growing towards +y (clockwise on screen).
#extension GL_GOOGLE_include_directive : require
#include "common.glsl"

layout(location = 0) in vec4 in_shape;  // xy: centre (pixels), z: inner radius, w: outer radius
layout(location = 1) in vec4 in_angles; // xy: this piece's angles, zw: the whole arc's angles
layout(location = 2) in vec4 in_color;
layout(location = 3) in uint in_flags;
layout(location = 4) in uint in_segments;

layout(location = 0) out vec2 out_local;  // pixels from the centre
layout(location = 1) flat out vec4 out_bounds;  // x: r0, y: r1, zw: the whole arc's angles
layout(location = 2) flat out vec4 out_color;
layout(location = 3) flat out uint out_flags;

void main() {
    uint segment = min(uint(gl_VertexIndex) >> 1, in_segments);
    float a = mix(in_angles.x, in_angles.y, float(segment) / float(in_segments));
    float r = (gl_VertexIndex & 1) != 0 ? in_shape.w : in_shape.z;
    vec2 local = r * vec2(cos(a), sin(a));
    gl_Position = pixelToClip(in_shape.xy + local);
    out_local = local;
    out_bounds = vec4(in_shape.zw, in_angles.zw);
    out_color = in_color;
    out_flags = in_flags;
}
