// GLSL helpers shared by the shaders (not seen by C++).
#ifndef MEMCITY_SHADERS_COMMON_GLSL
#define MEMCITY_SHADERS_COMMON_GLSL

#include "shared.h"

// Pixel position (origin top left, y down) to Vulkan clip space (y down as well).
vec4 pixelToClip(vec2 p) {
    return vec4(p * frame.viewport.zw * 2.0 - 1.0, 0.0, 1.0);
}

// The look of flagged 2D shapes: highlighted is lighter, selected is brighter with a white
// outline `edge_px` from the shape's border (distance in pixels to the nearest edge).
vec3 applyFlags2D(vec3 c, uint flags, float edge_px) {
    if ((flags & kGpuFlagHighlighted) != 0u) c = mix(c, vec3(1.0), 0.35);
    if ((flags & kGpuFlagSelected) != 0u) {
        c = mix(c, vec3(1.0), 0.15);
        if (edge_px < 2.0) c = vec3(1.0);
    }
    return c;
}

#endif
