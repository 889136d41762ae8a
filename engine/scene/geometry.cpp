#include "scene/geometry.h"

#include <algorithm>
#include <cmath>
#include <limits>

namespace memcity::scene {

std::array<glm::vec3, 8> Bounds::corners() const {
    std::array<glm::vec3, 8> out;
    for (int i = 0; i < 8; ++i)
        out[static_cast<size_t>(i)] =
            glm::vec3((i & 1) ? max.x : min.x, (i & 2) ? max.y : min.y, (i & 4) ? max.z : min.z);
    return out;
}

std::optional<float> intersectRayBox(const Ray& ray, const Bounds& box) {
    float enter = 0.0f, leave = std::numeric_limits<float>::infinity();
    for (int axis = 0; axis < 3; ++axis) {
        const float o = ray.origin[axis], d = ray.direction[axis];
        const float lo = box.min[axis], hi = box.max[axis];
        if (std::fabs(d) < 1e-12f) {
            // Parallel to the slab: inside it or never.
            if (o < lo || o > hi) return std::nullopt;
            continue;
        }
        float t0 = (lo - o) / d, t1 = (hi - o) / d;
        if (t0 > t1) std::swap(t0, t1);
        enter = std::max(enter, t0);
        leave = std::min(leave, t1);
        if (enter > leave) return std::nullopt;
    }
    return enter;
}

Frustum Frustum::fromViewProjection(const glm::mat4& m) {
    // Rows of the matrix (glm is column-major: m[column][row]).
    auto row = [&](int r) { return glm::vec4(m[0][r], m[1][r], m[2][r], m[3][r]); };
    const glm::vec4 r0 = row(0), r1 = row(1), r2 = row(2), r3 = row(3);
    Frustum f;
    f.planes = {r3 + r0, r3 - r0, r3 + r1, r3 - r1, r3 + r2, r3 - r2};
    for (glm::vec4& p : f.planes) {
        const float len = glm::length(glm::vec3(p));
        if (len > 0) p /= len;
    }
    return f;
}

bool Frustum::contains(const glm::vec3& p) const {
    for (const glm::vec4& plane : planes)
        if (glm::dot(glm::vec3(plane), p) + plane.w < 0) return false;
    return true;
}

bool Frustum::intersects(const Bounds& box) const {
    for (const glm::vec4& plane : planes) {
        // The corner furthest along the plane's normal: if even it is outside, the box is.
        const glm::vec3 far_corner(plane.x >= 0 ? box.max.x : box.min.x, plane.y >= 0 ? box.max.y : box.min.y,
                                   plane.z >= 0 ? box.max.z : box.min.z);
        if (glm::dot(glm::vec3(plane), far_corner) + plane.w < 0) return false;
    }
    return true;
}

}  // namespace memcity::scene
