#include "scene/camera.h"

#include <algorithm>
#include <array>
#include <cmath>
#include <string>

#include <glm/gtc/matrix_transform.hpp>

namespace memcity::scene {

glm::vec3 OrbitCamera::eye() const {
    return target - forward() * distance;
}

glm::vec3 OrbitCamera::forward() const {
    const float cp = std::cos(pitch), sp = std::sin(pitch);
    return -glm::vec3(cp * std::sin(yaw), sp, cp * std::cos(yaw));
}

glm::vec3 OrbitCamera::up() const {
    // Perpendicular to forward in the vertical plane through it: y up when level, the far side of
    // the view (away from the eye) when looking straight down.
    const float cp = std::cos(pitch), sp = std::sin(pitch);
    return glm::vec3(-sp * std::sin(yaw), cp, -sp * std::cos(yaw));
}

glm::mat4 OrbitCamera::view() const {
    return glm::lookAt(eye(), target, up());
}

glm::mat4 OrbitCamera::projection() const {
    return glm::perspective(fov_y, aspect, near_plane, far_plane);
}

render::CameraMatrices OrbitCamera::matrices() const {
    render::CameraMatrices m;
    m.view = view();
    m.projection = projection();
    m.eye = eye();
    return m;
}

void OrbitCamera::orbit(float d_yaw, float d_pitch) {
    yaw = std::remainder(yaw + d_yaw, glm::two_pi<float>());
    pitch = std::clamp(pitch + d_pitch, -kMaxPitch, kMaxPitch);
}

void OrbitCamera::dolly(float factor) {
    if (factor > 0 && std::isfinite(factor)) distance = std::max(distance * factor, 1e-4f);
}

void OrbitCamera::pan(float right, float up_amount) {
    const glm::vec3 f = forward(), u = up();
    target += glm::normalize(glm::cross(f, u)) * right + u * up_amount;
}

void OrbitCamera::fly(float right, float up_amount, float forward_amount) {
    const glm::vec3 level(std::sin(yaw), 0.0f, std::cos(yaw));  // from the target towards the eye, level
    const glm::vec3 r(std::cos(yaw), 0.0f, -std::sin(yaw));
    target += r * right + glm::vec3(0.0f, up_amount, 0.0f) - level * forward_amount;
}

void OrbitCamera::look(float d_yaw, float d_pitch) {
    const glm::vec3 e = eye();
    // Looking right turns the view clockwise seen from above: the eye's yaw around the target
    // grows the other way, and the target swings around the fixed eye.
    yaw = std::remainder(yaw - d_yaw, glm::two_pi<float>());
    pitch = std::clamp(pitch - d_pitch, -kMaxPitch, kMaxPitch);
    target = e + forward() * distance;
}

void OrbitCamera::fitClipPlanes(const Bounds& bounds) {
    const glm::vec3 e = eye(), f = forward();
    float nearest = INFINITY, farthest = 0.0f;
    for (const glm::vec3& c : bounds.corners()) {
        const float depth = glm::dot(c - e, f);
        nearest = std::min(nearest, depth);
        farthest = std::max(farthest, depth);
    }
    const float diagonal = glm::length(bounds.size());
    far_plane = std::max(farthest * 1.02f, 1e-3f + 1e-3f * diagonal);
    const float floor_near = far_plane * 2e-4f;
    near_plane = nearest > floor_near ? nearest * 0.95f : floor_near;
    near_plane = std::min(near_plane, far_plane * 0.5f);
}

void OrbitCamera::frame(const Bounds& bounds, float margin) {
    // With the eye at target - d * f, a point p (offset q = p - target) is at depth d + q.f and at
    // x = q.r, y = q.u in the view; it is inside when |x| <= (d + q.f) tan(fov_x / 2), likewise y.
    const glm::vec3 f = forward(), u = up(), r = glm::normalize(glm::cross(f, u));
    const float ty = std::tan(fov_y * 0.5f), tx = ty * aspect;
    float d = 1e-3f;
    for (const glm::vec3& c : bounds.corners()) {
        const glm::vec3 q = c - target;
        const float along = glm::dot(q, f);
        d = std::max({d, std::fabs(glm::dot(q, r)) * margin / tx - along,
                      std::fabs(glm::dot(q, u)) * margin / ty - along});
    }
    distance = d;
    fitClipPlanes(bounds);
}

void OrbitCamera::frameTightly(const Bounds& bounds, float margin) {
    frame(bounds, margin);
    // frame() keeps the target in the middle of the view, so a box seen from above leaves empty
    // space on one side. Move the target towards the middle of the box's picture and the eye
    // closer, in damped steps (perspective makes each step approximate; near corners swing
    // widely), and keep the best camera that still shows every corner inside the margin.
    const float limit = 1.0f / margin;
    OrbitCamera best = *this;
    float best_extent = 0.0f;
    for (int step = 0; step < 48; ++step) {
        const glm::mat4 vp = viewProjection();
        glm::vec2 lo(INFINITY), hi(-INFINITY);
        bool behind = false;
        for (const glm::vec3& c : bounds.corners()) {
            const glm::vec4 p = vp * glm::vec4(c, 1.0f);
            behind = behind || p.w <= 1e-6f;
            const glm::vec2 ndc = glm::vec2(p) / p.w;
            lo = glm::min(lo, ndc);
            hi = glm::max(hi, ndc);
        }
        if (behind) break;
        const glm::vec2 center = (lo + hi) * 0.5f, extent = (hi - lo) * 0.5f;
        const float widest = std::max(extent.x, extent.y);
        const bool inside = lo.x >= -limit && lo.y >= -limit && hi.x <= limit && hi.y <= limit;
        if (inside && widest > best_extent) {
            best = *this;
            best_extent = widest;
        }
        if (inside && widest >= limit * 0.995f) break;
        const float half_h = distance * std::tan(fov_y * 0.5f), half_w = half_h * aspect;
        pan(0.5f * center.x * half_w, 0.5f * center.y * half_h);
        distance *= std::clamp(std::sqrt(widest * margin), 0.85f, 1.15f);
    }
    *this = best;
    fitClipPlanes(bounds);
}

namespace {
constexpr std::array<std::string_view, 4> kPresetNames = {"overview", "top", "front", "street"};
}

std::span<const std::string_view> cameraPresetNames() {
    return kPresetNames;
}

Result<OrbitCamera> cameraPreset(std::string_view name, const Bounds& bounds, float aspect) {
    OrbitCamera cam;
    cam.aspect = aspect > 0 && std::isfinite(aspect) ? aspect : 16.0f / 9.0f;
    cam.target = bounds.center();
    const glm::vec3 size = bounds.size();
    if (name == "overview") {
        cam.yaw = glm::radians(35.0f);
        cam.pitch = glm::radians(35.0f);
    } else if (name == "top") {
        cam.yaw = 0.0f;
        cam.pitch = glm::radians(90.0f);
    } else if (name == "front") {
        cam.yaw = 0.0f;
        cam.pitch = glm::radians(10.0f);
    } else if (name == "street") {
        // Looking across the city from just inside its front edge, slightly down.
        const float width = std::max(size.x, size.z);
        cam.yaw = 0.0f;
        cam.pitch = glm::radians(4.0f);
        cam.distance = 0.35f * size.z;
        const float eye_height = 0.04f * width;
        cam.target = glm::vec3(bounds.center().x, 0.0f, bounds.center().z);
        cam.target.y = bounds.min.y + eye_height - cam.distance * std::sin(cam.pitch);
        cam.fov_y = glm::radians(60.0f);
        cam.fitClipPlanes(bounds);
        return cam;
    } else {
        std::string valid;
        for (std::string_view n : kPresetNames)
            valid += (valid.empty() ? "" : ", ") + std::string(n);
        return Error{"unknown camera preset '" + std::string(name) + "' (valid: " + valid + ")"};
    }
    cam.frameTightly(bounds);
    return cam;
}

Frustum frustumOf(const render::CameraMatrices& camera) {
    return Frustum::fromViewProjection(camera.projection * camera.view);
}

std::optional<glm::vec3> projectToPixel(const render::CameraMatrices& camera, glm::vec2 viewport,
                                        const glm::vec3& p) {
    const glm::vec4 clip = camera.projection * camera.view * glm::vec4(p, 1.0f);
    if (clip.w <= 1e-12f) return std::nullopt;
    const glm::vec3 ndc = glm::vec3(clip) / clip.w;
    return glm::vec3((ndc.x + 1.0f) * 0.5f * viewport.x, (1.0f - ndc.y) * 0.5f * viewport.y, ndc.z);
}

Ray rayThroughPixel(const render::CameraMatrices& camera, glm::vec2 viewport, glm::vec2 pixel) {
    const glm::mat4 inverse = glm::inverse(camera.projection * camera.view);
    const float x = 2.0f * pixel.x / viewport.x - 1.0f, y = 1.0f - 2.0f * pixel.y / viewport.y;
    glm::vec4 a = inverse * glm::vec4(x, y, -1.0f, 1.0f), b = inverse * glm::vec4(x, y, 1.0f, 1.0f);
    a /= a.w;
    b /= b.w;
    Ray ray;
    ray.origin = glm::vec3(a);
    ray.direction = glm::normalize(glm::vec3(b) - glm::vec3(a));
    return ray;
}

std::optional<BoxHit> pickBox(std::span<const render::BoxInstance> boxes, const Ray& ray) {
    std::optional<BoxHit> best;
    for (size_t i = 0; i < boxes.size(); ++i) {
        if (render::alphaOf(boxes[i].color) == 0) continue;
        const auto d = intersectRayBox(ray, Bounds{boxes[i].min, boxes[i].max});
        if (d && (!best || *d < best->distance)) best = BoxHit{i, *d};
    }
    return best;
}

}  // namespace memcity::scene
