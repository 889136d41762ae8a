// Small geometry shared by the scene: axis-aligned boxes, rays, view frusta. World units, y up.
#pragma once

#include <array>
#include <optional>

#include <glm/glm.hpp>

namespace memcity::scene {

// An axis-aligned box in world space; empty when min > max on an axis.
struct Bounds {
    glm::vec3 min{0.0f};
    glm::vec3 max{0.0f};

    glm::vec3 center() const { return (min + max) * 0.5f; }
    glm::vec3 size() const { return max - min; }
    // The eight corners: bit 0 picks x, bit 1 y, bit 2 z (0 = min, 1 = max).
    std::array<glm::vec3, 8> corners() const;
    bool contains(const glm::vec3& p) const {
        return p.x >= min.x && p.x <= max.x && p.y >= min.y && p.y <= max.y && p.z >= min.z && p.z <= max.z;
    }
};

// A half line: origin + s * direction for s >= 0; direction has unit length.
struct Ray {
    glm::vec3 origin{0.0f};
    glm::vec3 direction{0.0f, 0.0f, -1.0f};
};

// The distance along `ray` at which it enters `box` (0 when it starts inside), or nothing when it
// misses (slab test; a box of zero thickness on an axis is still hit).
std::optional<float> intersectRayBox(const Ray& ray, const Bounds& box);

// The six planes of a view frustum, each (normal, d) with normal pointing inside: a point p is
// inside the plane when dot(normal, p) + d >= 0.
struct Frustum {
    std::array<glm::vec4, 6> planes{};  // left, right, bottom, top, near, far

    // From a view-projection matrix with OpenGL clip conventions (x, y, z in -1..1 after the divide:
    // glm::perspective * glm::lookAt), by the Gribb-Hartmann plane extraction.
    static Frustum fromViewProjection(const glm::mat4& view_projection);

    bool contains(const glm::vec3& p) const;
    // False only when the box lies wholly outside one plane (conservative: a box near a corner of
    // the frustum may be reported as intersecting while it is outside).
    bool intersects(const Bounds& box) const;
};

}  // namespace memcity::scene
