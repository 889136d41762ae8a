#version 450
// A flat colour (world lines, 2D triangles, 2D lines).
layout(location = 0) in vec4 in_color;

layout(location = 0) out vec4 out_color;

void main() {
    out_color = in_color;
}
