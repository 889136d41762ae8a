// The CPU side of a frame: box order, arc pieces, the clip-space correction (no Vulkan).
#include <gtest/gtest.h>

#include <glm/gtc/matrix_transform.hpp>

#include <numbers>

#include "render/batches.h"
#include "shaders/shared.h"

namespace memcity::render {
namespace {

TEST(BatchesTest, OpaqueFrontToBackThenTranslucentBackToFront) {
    std::vector<BoxInstance> boxes = {
        {{0, 0, 0}, {1, 1, 1}, rgba(1, 1, 1, 100), 1, 0},      // distance 0.5ish
        {{0, 0, 9}, {1, 1, 10}, rgba(1, 1, 1, 255), 2, 0},     // opaque, farther
        {{0, 0, -20}, {1, 1, -19}, rgba(1, 1, 1, 100), 3, 0},  // farthest
        {{0, 0, 5}, {1, 1, 6}, rgba(1, 1, 1, 0), 4, 0},        // invisible: dropped
        {{0, 0, 3}, {1, 1, 4}, rgba(1, 1, 1, 255), 5, 0},      // opaque, nearer: drawn first
    };
    std::vector<BoxInstance> out;
    EXPECT_EQ(orderBoxes(boxes, {0.5f, 0.5f, 0.5f}, &out), 2u);
    std::vector<uint32_t> ids;
    for (const BoxInstance& b : out)
        ids.push_back(b.id);
    EXPECT_EQ(ids, (std::vector<uint32_t>{5, 2, 3, 1}));
}

TEST(BatchesTest, ArcsAreCutFinelyEnoughAndCoverTheirSpan) {
    constexpr float kPi = std::numbers::pi_v<float>;
    std::vector<Arc> arcs = {{{0, 0}, 100, 400, 0, 2 * kPi, 0, 0, 0}, {{0, 0}, 1, 3, 0.5f, 0.6f, 0, 0, 0}};
    std::vector<ArcInstance> out;
    buildArcs(arcs, 0.2f, &out);
    ASSERT_GT(out.size(), 2u);
    // The small arc is one piece, the last one.
    EXPECT_FLOAT_EQ(out.back().angles.x, 0.5f);
    EXPECT_FLOAT_EQ(out.back().angles.y, 0.6f);
    const size_t ring = out.size() - 1;
    // Chord error of each segment of the ring within 0.2 px: segment angle <= 2 acos(1 - 0.2/400).
    EXPECT_EQ(out.back().segments, 1u);
    const float step = (out[0].angles.y - out[0].angles.x) / static_cast<float>(out[0].segments);
    EXPECT_LE(out[0].segments, gpu::kArcSegmentsPerInstance);
    EXPECT_LE(400.0f * (1 - std::cos(step / 2)), 0.2f + 1e-4f);
    EXPECT_FLOAT_EQ(out[0].angles.x, 0.0f);
    EXPECT_NEAR(out[ring - 1].angles.y, 2 * kPi, 1e-5f);
    for (size_t i = 0; i + 1 < ring; ++i)
        EXPECT_FLOAT_EQ(out[i].angles.y, out[i + 1].angles.x);
    for (size_t i = 0; i < ring; ++i)
        EXPECT_FLOAT_EQ(out[i].angles.w, 2 * kPi);

    out.clear();
    buildArcs({{{0, 0}, 5, 2, 0, 1, 0, 0, 0}, {{0, 0}, 1, 2, 1, 1, 0, 0, 0}}, 0.2f, &out);
    EXPECT_TRUE(out.empty());
}

TEST(BatchesTest, ClipCorrectionFlipsYAndMapsDepthToZeroOne) {
    const glm::mat4 proj = glm::perspective(glm::radians(60.0f), 1.0f, 1.0f, 10.0f);
    const glm::mat4 m = vulkanClipCorrection() * proj;
    auto ndc = [&](glm::vec3 p) {
        const glm::vec4 c = m * glm::vec4(p, 1.0f);
        return glm::vec3(c) / c.w;
    };
    EXPECT_NEAR(ndc({0, 0, -1}).z, 0.0f, 1e-5f);   // near plane
    EXPECT_NEAR(ndc({0, 0, -10}).z, 1.0f, 1e-5f);  // far plane
    EXPECT_LT(ndc({0, 1, -2}).y, 0.0f);            // up in the world is up on screen (Vulkan y down)
}

}  // namespace
}  // namespace memcity::render
