// Shared by the render tests: one validated renderer per test suite, cameras, pixel helpers.
#pragma once

#include <gtest/gtest.h>

#include <glm/gtc/matrix_transform.hpp>

#include <cmath>
#include <cstdint>
#include <memory>

#include "render/renderer.h"

namespace memcity::render::testing {

// A renderer with validation on, shared by the tests of a suite; every test checks that the
// validation layer stayed silent.
class RenderTest : public ::testing::Test {
protected:
    static void SetUpTestSuite() {
        RendererOptions options;
        options.validation = true;
        auto r = Renderer::create(options);
        ASSERT_TRUE(r.ok()) << r.error().message;
        renderer_ = std::move(*r);
    }
    static void TearDownTestSuite() { renderer_.reset(); }
    void TearDown() override {
        if (renderer_) {
            EXPECT_EQ(renderer_->validationMessages(), 0u) << "the validation layer reported problems";
        }
    }
    static Renderer& renderer() { return *renderer_; }

    Image render(const DrawList& list, uint32_t width, uint32_t height) {
        auto image = renderer_->renderToImage(list, width, height);
        EXPECT_TRUE(image.ok()) << (image.ok() ? "" : image.error().message);
        return image.ok() ? std::move(*image) : Image{};
    }

private:
    static inline std::unique_ptr<Renderer> renderer_;
};

inline CameraMatrices lookAt(glm::vec3 eye, glm::vec3 target, float aspect = 1.0f,
                             float fov_degrees = 60.0f) {
    CameraMatrices c;
    c.view = glm::lookAt(eye, target, glm::vec3(0.0f, 1.0f, 0.0f));
    c.projection = glm::perspective(glm::radians(fov_degrees), aspect, 0.1f, 100.0f);
    c.eye = eye;
    return c;
}

inline uint8_t channel(uint32_t color, int c) {
    return static_cast<uint8_t>(color >> (8 * c));
}

// True when every RGB channel of a and b differs by at most `tolerance`.
inline bool near(uint32_t a, uint32_t b, int tolerance) {
    for (int c = 0; c < 3; ++c)
        if (std::abs(int{channel(a, c)} - int{channel(b, c)}) > tolerance) return false;
    return true;
}

// The colour box.frag gives a face with normal `n` away from its edges (no flags).
inline uint32_t litColor(uint32_t color, glm::vec3 n, glm::vec3 light_dir = DrawList{}.light_dir,
                         float ambient = RendererOptions{}.ambient) {
    const float diffuse = std::max(glm::dot(n, -glm::normalize(light_dir)), 0.0f);
    const float k = ambient + (1.0f - ambient) * diffuse;
    auto lit = [&](int c) {
        return static_cast<uint8_t>(std::lround(static_cast<float>(channel(color, c)) * k));
    };
    return rgba(lit(0), lit(1), lit(2), channel(color, 3));
}

}  // namespace memcity::render::testing
