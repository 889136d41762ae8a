// The camera: presets that frame the city, frusta, projection, rays through pixels, picking.
#include <gtest/gtest.h>

#include <cmath>
#include <vector>

#include "scene/camera.h"
#include "scene/city_layout.h"
#include "scene/city_scene.h"
#include "scene/city_state.h"
#include "scene/scene_fixture.h"

namespace memcity::scene {
namespace {

const Bounds kCity{glm::vec3(0.0f), glm::vec3(1000.0f, 266.0f, 1000.0f)};

// Normalised device coordinates of p (OpenGL: -1..1 on every axis inside the view).
glm::vec3 ndcOf(const OrbitCamera& cam, const glm::vec3& p) {
    const glm::vec4 clip = cam.viewProjection() * glm::vec4(p, 1.0f);
    EXPECT_GT(clip.w, 0.0f);
    return glm::vec3(clip) / clip.w;
}

TEST(Camera, PresetsFrameTheWholeCity) {
    for (const char* name : {"overview", "top", "front"})
        for (float aspect : {0.5f, 1.0f, 16.0f / 9.0f, 3.0f})
            for (const Bounds& b : {kCity, Bounds{glm::vec3(-5, 0, 10), glm::vec3(20, 3, 12)}}) {
                auto cam = cameraPreset(name, b, aspect);
                ASSERT_TRUE(cam.ok());
                const Frustum f = frustumOf(cam->matrices());
                float widest = 0;
                for (const glm::vec3& c : b.corners()) {
                    const glm::vec3 ndc = ndcOf(*cam, c);
                    EXPECT_LE(std::fabs(ndc.x), 1.0f) << name << " " << aspect;
                    EXPECT_LE(std::fabs(ndc.y), 1.0f) << name << " " << aspect;
                    EXPECT_LE(std::fabs(ndc.z), 1.0f) << name << " " << aspect;
                    EXPECT_TRUE(f.contains(c)) << name;
                    widest = std::max({widest, std::fabs(ndc.x), std::fabs(ndc.y)});
                }
                // Framed tightly: some corner comes close to an edge (5% margin).
                EXPECT_GT(widest, 0.9f) << name << " " << aspect;
            }
}

TEST(Camera, PresetViews) {
    auto top = cameraPreset("top", kCity, 1.0f);
    ASSERT_TRUE(top.ok());
    EXPECT_NEAR(top->forward().y, -1.0f, 1e-6f);
    // Top: +x to the right, -z up on screen.
    const glm::vec3 right = ndcOf(*top, {900, 0, 500}), far = ndcOf(*top, {500, 0, 100});
    EXPECT_GT(right.x, 0.5f);
    EXPECT_GT(far.y, 0.5f);
    auto overview = cameraPreset("overview", kCity, 1.5f);
    ASSERT_TRUE(overview.ok());
    EXPECT_GT(overview->eye().y, kCity.max.y);  // from above
    EXPECT_GT(overview->eye().x, kCity.center().x);
    EXPECT_GT(overview->eye().z, kCity.max.z);
    auto street = cameraPreset("street", kCity, 1.5f);
    ASSERT_TRUE(street.ok());
    const glm::vec3 eye = street->eye();
    EXPECT_TRUE(eye.x > kCity.min.x && eye.x < kCity.max.x && eye.z > kCity.min.z && eye.z < kCity.max.z);
    EXPECT_LT(eye.y, 0.05f * kCity.size().x);
    EXPECT_LT(street->forward().z, -0.9f);  // looking across the city
    EXPECT_LT(street->near_plane, 1.0f);
    EXPECT_GT(street->far_plane, glm::dot(kCity.min - eye, street->forward()));  // the far edge
}

TEST(Camera, UnknownPresetNamesTheValidOnes) {
    auto cam = cameraPreset("bird", kCity, 1.0f);
    ASSERT_FALSE(cam.ok());
    EXPECT_EQ(cam.error().message, "unknown camera preset 'bird' (valid: overview, top, front, street)");
    EXPECT_EQ(cameraPresetNames().size(), 4u);
    EXPECT_EQ(cameraPresetNames()[0], "overview");
}

TEST(Camera, OrbitDollyAndPanKeepTheTargetInView) {
    OrbitCamera cam = *cameraPreset("overview", kCity, 1.0f);
    const glm::vec3 target = cam.target;
    cam.orbit(1.0f, 10.0f);
    EXPECT_FLOAT_EQ(cam.pitch, OrbitCamera::kMaxPitch);
    EXPECT_NEAR(glm::length(cam.eye() - target), cam.distance, 1e-2f);
    const float d = cam.distance;
    cam.dolly(0.5f);
    EXPECT_FLOAT_EQ(cam.distance, d * 0.5f);
    cam.dolly(-1.0f);  // ignored
    EXPECT_FLOAT_EQ(cam.distance, d * 0.5f);
    cam.pitch = 0.3f;
    cam.pan(10.0f, 0.0f);
    EXPECT_NEAR(glm::length(cam.target - target), 10.0f, 1e-3f);
    EXPECT_NEAR(glm::dot(cam.target - target, cam.forward()), 0.0f, 1e-3f);
}

TEST(Camera, FlyMovesEyeAndTargetTogetherAndLookTurnsAroundTheEye) {
    OrbitCamera cam = *cameraPreset("overview", kCity, 1.0f);
    const glm::vec3 eye = cam.eye(), target = cam.target;
    // Forward is level: the height stays, the eye moves along the view's ground direction.
    cam.fly(0.0f, 0.0f, 100.0f);
    const glm::vec3 moved = cam.eye() - eye;
    EXPECT_NEAR(moved.y, 0.0f, 1e-3f);
    EXPECT_NEAR(glm::length(moved), 100.0f, 1e-2f);
    EXPECT_GT(glm::dot(moved, cam.forward()), 0.0f);
    EXPECT_NEAR(glm::length(cam.target - target), 100.0f, 1e-2f);
    // Right is perpendicular to the view, up is world up.
    const glm::vec3 before = cam.eye();
    cam.fly(50.0f, 20.0f, 0.0f);
    const glm::vec3 step = cam.eye() - before;
    EXPECT_NEAR(step.y, 20.0f, 1e-3f);
    EXPECT_NEAR(glm::dot(step, cam.forward()), 20.0f * cam.forward().y, 1e-2f);
    EXPECT_GT(glm::dot(step, glm::cross(cam.forward(), cam.up())), 49.0f);
    // Looking around keeps the eye; looking right turns the view clockwise seen from above.
    const glm::vec3 at = cam.eye();
    const glm::vec3 f0 = cam.forward();
    cam.look(0.2f, 0.0f);
    EXPECT_NEAR(glm::length(cam.eye() - at), 0.0f, 1e-2f);
    const glm::vec3 f1 = cam.forward();
    EXPECT_LT(f0.z * f1.x - f0.x * f1.z, 0.0f);  // y of cross(f0, f1) < 0: a turn to the right
    cam.look(0.0f, 0.1f);                        // and up
    EXPECT_GT(cam.forward().y, f1.y);
    cam.look(0.0f, -10.0f);
    EXPECT_FLOAT_EQ(cam.pitch, OrbitCamera::kMaxPitch);
    EXPECT_NEAR(glm::length(cam.eye() - at), 0.0f, 1e-2f);
}

TEST(Camera, ProjectionAndRaysAgree) {
    const OrbitCamera cam = *cameraPreset("overview", kCity, 2.0f);
    const render::CameraMatrices m = cam.matrices();
    const glm::vec2 viewport(1600, 800);
    const auto center = projectToPixel(m, viewport, cam.target);
    ASSERT_TRUE(center.has_value());
    EXPECT_NEAR(center->x, 800.0f, 1e-2f);
    EXPECT_NEAR(center->y, 400.0f, 1e-2f);
    // Behind the eye: nothing.
    EXPECT_FALSE(projectToPixel(m, viewport, cam.eye() - cam.forward() * 10.0f).has_value());
    // The ray through a point's pixel passes through the point.
    for (const glm::vec3& p : {glm::vec3(100, 0, 900), glm::vec3(500, 200, 500), glm::vec3(950, 10, 30)}) {
        const auto px = projectToPixel(m, viewport, p);
        ASSERT_TRUE(px.has_value());
        const Ray ray = rayThroughPixel(m, viewport, glm::vec2(*px));
        EXPECT_NEAR(glm::length(ray.direction), 1.0f, 1e-5f);
        const glm::vec3 q = p - ray.origin;
        const float miss = glm::length(q - ray.direction * glm::dot(q, ray.direction));
        EXPECT_LT(miss, 0.05f) << p.x;
    }
}

TEST(Geometry, RayBoxAndFrustum) {
    const Bounds box{glm::vec3(0), glm::vec3(1)};
    EXPECT_FLOAT_EQ(*intersectRayBox({glm::vec3(0.5f, 5, 0.5f), glm::vec3(0, -1, 0)}, box), 4.0f);
    EXPECT_FLOAT_EQ(*intersectRayBox({glm::vec3(0.5f), glm::vec3(1, 0, 0)}, box), 0.0f);  // inside
    EXPECT_FALSE(intersectRayBox({glm::vec3(2, 5, 0.5f), glm::vec3(0, -1, 0)}, box).has_value());
    EXPECT_FALSE(intersectRayBox({glm::vec3(0.5f, 5, 0.5f), glm::vec3(0, 1, 0)}, box).has_value());
    // A flat box (a plate seen edge-on still counts).
    EXPECT_TRUE(intersectRayBox({glm::vec3(0.5f, 5, 0.5f), glm::vec3(0, -1, 0)},
                                Bounds{glm::vec3(0, 1, 0), glm::vec3(1, 1, 1)})
                    .has_value());
    const OrbitCamera cam = *cameraPreset("front", kCity, 1.0f);
    const Frustum f = frustumOf(cam.matrices());
    EXPECT_TRUE(f.contains(cam.target));
    EXPECT_FALSE(f.contains(cam.eye() - cam.forward()));
    EXPECT_FALSE(f.intersects(Bounds{glm::vec3(5000, 0, 0), glm::vec3(5100, 10, 10)}));
    EXPECT_TRUE(f.intersects(Bounds{glm::vec3(-5000, 0, 400), glm::vec3(5000, 1, 410)}));  // crosses the view
}

TEST(Geometry, PickBoxTakesTheNearestBoxDrawn) {
    std::vector<render::BoxInstance> boxes(3);
    boxes[0] = {glm::vec3(0, 0, 0), glm::vec3(1, 1, 1), render::rgba(1, 2, 3), 7, 0};
    boxes[1] = {glm::vec3(0, 2, 0), glm::vec3(1, 3, 1), render::rgba(1, 2, 3), 8, 0};     // above it
    boxes[2] = {glm::vec3(0, 4, 0), glm::vec3(1, 5, 1), render::rgba(1, 2, 3, 0), 9, 0};  // invisible
    const Ray down{glm::vec3(0.5f, 10, 0.5f), glm::vec3(0, -1, 0)};
    auto hit = pickBox(boxes, down);
    ASSERT_TRUE(hit.has_value());
    EXPECT_EQ(hit->index, 1u);
    EXPECT_FLOAT_EQ(hit->distance, 7.0f);
    const Ray up{glm::vec3(0.5f, -1, 0.5f), glm::vec3(0, 1, 0)};
    EXPECT_EQ(pickBox(boxes, up)->index, 0u);
    EXPECT_FALSE(pickBox(boxes, Ray{glm::vec3(5, 10, 5), glm::vec3(0, -1, 0)}).has_value());
}

// Picking: the pixel of a building's roof picks that building, in the draw list's boxes and in
// the exact city; a pixel on a plate between buildings picks the district.
TEST(Camera, PickingHitsTheBuildingUnderThePixel) {
    testing::Fixture f = testing::fixtureOf(testing::lifecycleTrace(), "type,site");
    const TreeSeries& s = *f.series;
    const CityLayout l = *buildCityLayout(s);
    const CityState st = cityAt(l, s, 3.0);
    const glm::vec2 viewport(1280, 720);
    for (const char* preset : {"top", "overview"}) {
        const render::CameraMatrices cam =
            cameraPreset(preset, l.bounds, viewport.x / viewport.y)->matrices();
        render::DrawList dl;
        CitySceneOptions o;
        o.merge = false;
        buildCityDrawList(l, st, cam, viewport, o, dl);
        for (const std::vector<std::string>& path : {std::vector<std::string>{"int[]", testing::kOther},
                                                     {"A", testing::kRun},
                                                     {"B", testing::kOther}}) {
            const uint32_t id = s.find(path), b = l.findBuilding(id);
            ASSERT_NE(b, kNoIndex);
            if (st.buildings[b].alpha == 0) continue;  // B/other holds nothing at GC 3
            const Bounds box = buildingBounds(l, st, b);
            const glm::vec3 roof(box.center().x, box.max.y, box.center().z);
            const auto px = projectToPixel(cam, viewport, roof);
            ASSERT_TRUE(px.has_value());
            const Ray ray = rayThroughPixel(cam, viewport, glm::vec2(*px));
            const auto hit = pickBox(dl.boxes, ray);
            ASSERT_TRUE(hit.has_value()) << preset << " " << path[0];
            EXPECT_EQ(dl.boxes[hit->index].id, id) << preset << " " << path[0];
            const auto exact = pickCity(l, st, ray);
            ASSERT_TRUE(exact.has_value());
            EXPECT_EQ(exact->id, id);
            EXPECT_FALSE(exact->district);
            EXPECT_EQ(exact->index, b);
        }
        // Just inside the corner of int[]'s plate, where no building stands.
        const uint32_t d = l.findDistrict(s.find({"int[]"}));
        const CityDistrict& district = l.districts[d];
        const glm::vec3 corner(district.x0 + 0.5f, district.y1, district.z1 - 0.5f);
        const Ray ray = rayThroughPixel(cam, viewport, glm::vec2(*projectToPixel(cam, viewport, corner)));
        const auto exact = pickCity(l, st, ray);
        ASSERT_TRUE(exact.has_value());
        EXPECT_TRUE(exact->district) << preset;
        EXPECT_EQ(exact->id, district.node) << preset;
        // A ray pointing away from the city hits nothing.
        EXPECT_FALSE(pickCity(l, st, Ray{glm::vec3(0, 1000, 0), glm::vec3(0, 1, 0)}).has_value());
    }
}

}  // namespace
}  // namespace memcity::scene
