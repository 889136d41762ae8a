// The 3D camera of the city: an orbit camera around a target point, named presets fitted to a
// bounding box, projection to pixels, rays through pixels and picking against boxes.
//
// Conventions: world y is up; matrices are GLM's right-handed glm::lookAt and glm::perspective
// with OpenGL clip space (depth -1..1), which the renderer corrects for Vulkan itself. Pixels
// have their origin at the top left of the viewport, y down, like render::DrawList's overlay.
#pragma once

#include <optional>
#include <span>
#include <string_view>

#include <glm/glm.hpp>

#include "render/draw_list.h"
#include "scene/geometry.h"
#include "util/result.h"

namespace memcity::scene {

struct OrbitCamera {
    glm::vec3 target{0.0f};  // the point looked at and orbited around, world units
    float yaw = 0.0f;        // radians; 0: the eye sits on +z of the target looking towards -z;
                             // growing yaw moves the eye towards +x
    float pitch = 0.6f;      // radians above the horizon the eye sits, within [-kMaxPitch, kMaxPitch]
    float distance = 10.0f;  // eye to target, world units (> 0)
    float fov_y = glm::radians(45.0f);             // vertical field of view, radians
    float aspect = 16.0f / 9.0f;                   // viewport width / height
    float near_plane = 0.1f, far_plane = 1000.0f;  // world units, 0 < near < far

    static constexpr float kMaxPitch = 1.57079632679f;  // 90 degrees: straight down (or up) is allowed

    glm::vec3 eye() const;
    glm::vec3 forward() const;  // unit vector from the eye to the target
    glm::vec3 up() const;       // the camera's up vector (well defined at a pitch of 90 degrees)
    glm::mat4 view() const;
    glm::mat4 projection() const;
    glm::mat4 viewProjection() const { return projection() * view(); }
    render::CameraMatrices matrices() const;

    // Explorer moves: turn around the target (radians; pitch clamped), move towards it (distance
    // times factor), slide the target in the view plane (world units along right and up).
    void orbit(float d_yaw, float d_pitch);
    void dolly(float factor);
    void pan(float right, float up_amount);
    // Fly moves (the explorer's WASD + mouse look): move the eye and the target together along the
    // view's right, world up and forward directions (forward level with the ground, so flying
    // forward keeps the height; world units); turn the view around the eye (radians: yaw to the
    // right, pitch up; pitch clamped) so the eye stays where it is.
    void fly(float right, float up_amount, float forward_amount);
    void look(float d_yaw, float d_pitch);
    // Sets near and far to cover `bounds` from the current eye (near = 95% of the nearest corner's
    // depth; a small share of far when the eye is inside or very close).
    void fitClipPlanes(const Bounds& bounds);
    // Moves the eye along its current direction until every corner of `bounds` is inside the view
    // with `margin` (1.05: 5% to spare), then fits the clip planes.
    void frame(const Bounds& bounds, float margin = 1.05f);
    // frame(), then moves the target and the eye until the picture of `bounds` is centred and
    // fills the view on its tighter axis (with `margin`): no empty band on one side.
    void frameTightly(const Bounds& bounds, float margin = 1.05f);
};

// The presets, fitted to `bounds` (the city's) for a viewport of `aspect`:
//   overview  a 3/4 view from above (yaw 35 degrees, pitch 35 degrees), the whole city framed
//             tightly (frameTightly);
//             the default
//   top       straight down, the whole city framed (+x right, -z up on screen)
//   front     from the front (+z), 10 degrees above the horizon, the whole city framed
//   street    low between the buildings: the eye inside the city near its front edge at about
//             4% of the city's width above the plates, looking across it (frames nothing whole)
// Error for an unknown name, listing the valid ones.
Result<OrbitCamera> cameraPreset(std::string_view name, const Bounds& bounds, float aspect);
std::span<const std::string_view> cameraPresetNames();

// The frustum of a camera (planes in world space).
Frustum frustumOf(const render::CameraMatrices& camera);

// Where world point `p` lands in a viewport of `viewport` pixels: (x, y) in pixels and z the
// normalised depth (-1 near .. 1 far); nothing when p is behind the eye.
std::optional<glm::vec3> projectToPixel(const render::CameraMatrices& camera, glm::vec2 viewport,
                                        const glm::vec3& p);

// The ray from the near plane through pixel position `pixel` (continuous: pixel i's centre is at
// i + 0.5) of a viewport of `viewport` pixels.
Ray rayThroughPixel(const render::CameraMatrices& camera, glm::vec2 viewport, glm::vec2 pixel);

// The box `ray` hits first: its index in `boxes` and the distance, or nothing. Boxes with alpha 0
// are not hit.
struct BoxHit {
    size_t index = 0;
    float distance = 0;
};
std::optional<BoxHit> pickBox(std::span<const render::BoxInstance> boxes, const Ray& ray);

}  // namespace memcity::scene
