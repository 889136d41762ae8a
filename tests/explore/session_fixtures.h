// What the session's tests share: scenarios synthesized once, a chain by its spec, a session
// opened and settled, and where a building appears in the composed city.
#pragma once

#include <gtest/gtest.h>

#include <map>
#include <memory>
#include <string>

#include "explore/session.h"
#include "scene/camera.h"
#include "synth/synth.h"
#include "unit/trace_builder.h"

namespace memcity::explore {

inline std::string scenario(const std::string& name) {
    static std::map<std::string, std::string> paths;
    auto it = paths.find(name);
    if (it != paths.end()) return it->second;
    const std::string path = testing::tempPath("session-" + name);
    EXPECT_TRUE(synth::synthesize(name, path, {}).ok());
    return paths[name] = path;
}

inline ChainConfig chainOf(const std::string& spec) {
    auto c = chainConfigOf(spec);
    EXPECT_TRUE(c.ok()) << (c.ok() ? "" : c.error().message);
    return c.ok() ? *c : ChainConfig{};
}

// A session that opened `path` by `spec` and finished loading and classifying.
inline std::unique_ptr<Session> opened(const std::string& path, const std::string& spec) {
    SessionOptions o;
    o.chain = chainOf(spec);
    auto s = std::make_unique<Session>(o);
    s->open(path);
    s->waitSettled();
    EXPECT_TRUE(s->loaded()) << s->load().error;
    EXPECT_NE(s->series(), nullptr);
    return s;
}

constexpr scene::PixelRect kRect{{100.0f, 50.0f}, {900.0f, 650.0f}};
constexpr glm::vec2 kFramebuffer{1000.0f, 700.0f};

// The framebuffer pixel where the middle of the top of the building showing `id` appears.
inline glm::vec2 pixelOfBuilding(Session& s, uint32_t id) {
    render::DrawList list;
    s.compose(kRect, kFramebuffer, list);  // lays the city out, places the camera
    const scene::OrbitCamera* cam = s.camera();
    EXPECT_NE(cam, nullptr);
    // Look at it from above so nothing stands in front of its roof.
    scene::OrbitCamera top = *cam;
    s.resetCamera("top").ok();
    s.compose(kRect, kFramebuffer, list);
    top = *s.camera();
    const scene::Bounds b = [&] {
        // The building's box at the cursor, as the frame drew it.
        for (const render::BoxInstance& box : list.boxes)
            if (box.id == id) return scene::Bounds{box.min, box.max};
        ADD_FAILURE() << "building " << id << " is not drawn";
        return scene::Bounds{};
    }();
    const glm::vec3 roof((b.min.x + b.max.x) * 0.5f, b.max.y, (b.min.z + b.max.z) * 0.5f);
    const auto p = scene::projectToPixel(top.matrices(), kRect.max - kRect.min, roof);
    EXPECT_TRUE(p.has_value());
    return kRect.min + glm::vec2(*p);
}

}  // namespace memcity::explore
