// The renderer on lavapipe (or any device) with validation on: exact clears and rectangle
// edges, a box where the camera puts it, depth order, blending, arc coverage, labels inside
// their measured box, repeatable frames and size errors.
#include <cmath>
#include <cstdlib>
#include <numbers>

#include "render/batches.h"
#include "render/font.h"
#include "render_test_util.h"

namespace memcity::render::testing {
namespace {

class SceneTest : public RenderTest {};

constexpr uint32_t kBlack = rgba(0, 0, 0);

TEST_F(SceneTest, ClearColourIsExact) {
    DrawList list;
    list.clear_color = rgba(12, 34, 56, 255);
    const Image image = render(list, 37, 21);
    ASSERT_EQ(image.width, 37u);
    ASSERT_EQ(image.height, 21u);
    ASSERT_EQ(image.rgba.size(), 37u * 21u * 4u);
    for (uint32_t y = 0; y < image.height; ++y)
        for (uint32_t x = 0; x < image.width; ++x)
            ASSERT_EQ(image.pixel(x, y), list.clear_color) << x << "," << y;
}

TEST_F(SceneTest, BoxCoversTheExpectedPixelsWithItsLitColour) {
    DrawList list;
    list.clear_color = kBlack;
    list.camera = lookAt({0, 0, 5}, {0, 0, 0});
    const uint32_t color = rgba(200, 100, 50);
    list.boxes.push_back({{-1, -1, -1}, {1, 1, 1}, color, 7, kFlagNone});
    const Image image = render(list, 64, 64);
    ASSERT_EQ(image.width, 64u);
    // The front face z = 1 lies 4 units away: half its height over half the view's height.
    const float half = 32.0f * 1.0f / (4.0f * std::tan(glm::radians(30.0f)));
    const uint32_t lit = litColor(color, {0, 0, 1});
    EXPECT_TRUE(near(image.pixel(32, 32), lit, 2)) << std::hex << image.pixel(32, 32) << " vs " << lit;
    int inside = 0, covered = 0;
    for (uint32_t y = 0; y < 64; ++y) {
        for (uint32_t x = 0; x < 64; ++x) {
            const float dx = std::fabs(static_cast<float>(x) + 0.5f - 32.0f);
            const float dy = std::fabs(static_cast<float>(y) + 0.5f - 32.0f);
            const bool drawn = image.pixel(x, y) != kBlack;
            if (dx < half - 1 && dy < half - 1) {
                inside++;
                covered += drawn;
            }
            if (dx > half + 1 || dy > half + 1) {
                EXPECT_FALSE(drawn) << x << "," << y;
            }
        }
    }
    EXPECT_EQ(covered, inside);
}

TEST_F(SceneTest, UpIsUpAndRightIsRight) {
    DrawList list;
    list.camera = lookAt({0, 0, 10}, {0, 0, 0});
    list.boxes.push_back({{-0.5f, 2.0f, -0.5f}, {0.5f, 3.0f, 0.5f}, rgba(255, 0, 0), 1, kFlagNone});  // above
    list.boxes.push_back({{2.0f, -0.5f, -0.5f}, {3.0f, 0.5f, 0.5f}, rgba(0, 255, 0), 2, kFlagNone});  // right
    const Image image = render(list, 64, 64);
    int red_top = 0, red_bottom = 0, green_right = 0, green_left = 0;
    for (uint32_t y = 0; y < 64; ++y) {
        for (uint32_t x = 0; x < 64; ++x) {
            const uint32_t p = image.pixel(x, y);
            if (channel(p, 0) > 60 && channel(p, 1) < 20) (y < 32 ? red_top : red_bottom)++;
            if (channel(p, 1) > 60 && channel(p, 0) < 20) (x >= 32 ? green_right : green_left)++;
        }
    }
    EXPECT_GT(red_top, 10);
    EXPECT_EQ(red_bottom, 0);
    EXPECT_GT(green_right, 10);
    EXPECT_EQ(green_left, 0);
}

TEST_F(SceneTest, NearBoxHidesFarBoxWhateverTheOrder) {
    for (bool near_first : {true, false}) {
        DrawList list;
        list.camera = lookAt({0, 0, 5}, {0, 0, 0});
        const BoxInstance near_box{{-1, -1, 0.5f}, {1, 1, 1.5f}, rgba(255, 0, 0), 1, kFlagNone};
        const BoxInstance far_box{{-3, -3, -3}, {3, 3, -1}, rgba(0, 255, 0), 2, kFlagNone};
        list.boxes = near_first ? std::vector{near_box, far_box} : std::vector{far_box, near_box};
        const Image image = render(list, 64, 64);
        EXPECT_TRUE(near(image.pixel(32, 32), litColor(rgba(255, 0, 0), {0, 0, 1}), 2)) << near_first;
        EXPECT_TRUE(near(image.pixel(32, 10), litColor(rgba(0, 255, 0), {0, 0, 1}), 2)) << near_first;
    }
}

TEST_F(SceneTest, TranslucentBoxBlendsOverOpaque) {
    DrawList list;
    list.camera = lookAt({0, 0, 5}, {0, 0, 0});
    const uint32_t back = rgba(0, 0, 255);
    const uint32_t glass = rgba(255, 255, 255, 128);
    list.boxes.push_back({{-1, -1, 0.5f}, {1, 1, 1.5f}, glass, 1, kFlagNone});  // listed first, drawn last
    list.boxes.push_back({{-3, -3, -3}, {3, 3, -1}, back, 2, kFlagNone});
    const Image image = render(list, 64, 64);
    const uint32_t src = litColor(glass, {0, 0, 1}), dst = litColor(back, {0, 0, 1});
    const float a = 128.0f / 255.0f;
    for (int c = 0; c < 3; ++c) {
        const float expected =
            static_cast<float>(channel(src, c)) * a + static_cast<float>(channel(dst, c)) * (1 - a);
        EXPECT_NEAR(channel(image.pixel(32, 32), c), expected, 2.0f) << "channel " << c;
    }
    // Outside the glass only the back box shows.
    EXPECT_TRUE(near(image.pixel(32, 10), dst, 2));
}

TEST_F(SceneTest, FullRingCoversItsAnnulusOnly) {
    DrawList list;
    list.clear_color = kBlack;
    const glm::vec2 centre{40.0f, 36.0f};
    const float r0 = 12.0f, r1 = 30.0f;
    list.arcs.push_back(
        {centre, r0, r1, 0.0f, 2.0f * std::numbers::pi_v<float>, rgba(255, 255, 255), 1, kFlagNone});
    const Image image = render(list, 80, 72);
    int checked = 0;
    for (uint32_t y = 0; y < image.height; ++y) {
        for (uint32_t x = 0; x < image.width; ++x) {
            const float r =
                glm::length(glm::vec2(static_cast<float>(x) + 0.5f, static_cast<float>(y) + 0.5f) - centre);
            const uint32_t p = image.pixel(x, y);
            if (r > r0 + 1 && r < r1 - 1) {
                ASSERT_EQ(p, rgba(255, 255, 255)) << x << "," << y << " r=" << r;
                checked++;
            } else if (r < r0 - 1 || r > r1 + 1) {
                ASSERT_EQ(p, kBlack) << x << "," << y << " r=" << r;
                checked++;
            }
        }
    }
    EXPECT_GT(checked, 4000);
}

TEST_F(SceneTest, ArcAnglesGrowClockwiseFromPlusX) {
    DrawList list;
    // A quarter from +x towards +y: on screen (y down) the lower-right quarter.
    list.arcs.push_back(
        {{32, 32}, 5, 25, 0.0f, std::numbers::pi_v<float> / 2, rgba(255, 255, 255), 1, kFlagNone});
    const Image image = render(list, 64, 64);
    EXPECT_EQ(image.pixel(32 + 10, 32 + 10), rgba(255, 255, 255));  // down right
    EXPECT_EQ(image.pixel(32 + 10, 32 - 10), kBlack);               // up right
    EXPECT_EQ(image.pixel(32 - 10, 32 + 10), kBlack);               // down left
}

TEST_F(SceneTest, RectEdgesAreExact) {
    DrawList list;
    list.rects.push_back({{10, 12}, {30, 20}, rgba(255, 0, 0), 1, kFlagNone});
    const Image image = render(list, 40, 30);
    for (uint32_t y = 0; y < 30; ++y)
        for (uint32_t x = 0; x < 40; ++x) {
            const bool inside = x >= 10 && x < 30 && y >= 12 && y < 20;
            ASSERT_EQ(image.pixel(x, y), inside ? rgba(255, 0, 0) : kBlack) << x << "," << y;
        }
}

TEST_F(SceneTest, FlagsOutlineSelectedAndLightenHighlighted) {
    DrawList list;
    const uint32_t color = rgba(0, 0, 200);
    list.rects.push_back({{0, 0}, {20, 20}, color, 1, kFlagNone});
    list.rects.push_back({{20, 0}, {40, 20}, color, 2, kFlagSelected});
    list.rects.push_back({{40, 0}, {60, 20}, color, 3, kFlagHighlighted});
    const Image image = render(list, 60, 20);
    EXPECT_EQ(image.pixel(10, 10), color);
    EXPECT_EQ(image.pixel(20, 10), rgba(255, 255, 255));  // selected: white outline
    EXPECT_GT(channel(image.pixel(30, 10), 0), 0);        // selected: brighter inside
    EXPECT_LT(channel(image.pixel(30, 10), 0), 255);
    EXPECT_GT(channel(image.pixel(50, 10), 0), 60);  // highlighted: lighter
    EXPECT_GT(channel(image.pixel(50, 10), 2), 200);
}

TEST_F(SceneTest, LabelDrawsInsideItsMeasuredBox) {
    DrawList list;
    Label label;
    label.pos = {8, 6};
    label.text = "Héllo, memcity!";
    label.color = rgba(255, 255, 255);
    label.size_px = 16;
    list.labels.push_back(label);
    const Image image = render(list, 160, 32);
    const float width = renderer().textWidth(label.text, label.size_px);
    EXPECT_GT(width, 80.0f);
    EXPECT_LT(width, 150.0f);
    int inside = 0;
    for (uint32_t y = 0; y < image.height; ++y) {
        for (uint32_t x = 0; x < image.width; ++x) {
            if (image.pixel(x, y) == kBlack) continue;
            const bool in_box =
                x + 1 >= 8 && static_cast<float>(x) <= 8 + width + 1 && y + 1 >= 6 && y <= 6 + 16 + 1;
            EXPECT_TRUE(in_box) << x << "," << y;
            inside++;
        }
    }
    EXPECT_GT(inside, 100);
}

TEST_F(SceneTest, LabelBackgroundAndAnchors) {
    DrawList list;
    Label label;
    label.pos = {50, 20};
    label.text = "centre";
    label.color = rgba(255, 255, 255);
    label.background = rgba(0, 80, 0);
    label.size_px = 14;
    label.anchor = TextAnchor::kCenter;
    list.labels.push_back(label);
    const Image image = render(list, 100, 40);
    const LabelBox box = labelBox(renderer().font(), label);
    EXPECT_NEAR(box.top_left.x + box.size.x / 2, 50.0f, 1.0f);
    EXPECT_NEAR(box.top_left.y + box.size.y / 2, 20.0f, 1.0f);
    const glm::vec2 pad = labelPadding(label.size_px);
    // The padding is background; far away is clear.
    EXPECT_EQ(image.pixel(static_cast<uint32_t>(box.top_left.x - pad.x + 1), 20), rgba(0, 80, 0));
    EXPECT_EQ(image.pixel(2, 2), kBlack);
}

DrawList busyScene() {
    DrawList list;
    list.clear_color = rgba(22, 24, 29);
    list.camera = lookAt({12, 14, 18}, {0, 0, 0}, 1.5f);
    for (int i = 0; i < 8; ++i)
        for (int j = 0; j < 8; ++j) {
            const float x = static_cast<float>(i) * 1.5f - 6, z = static_cast<float>(j) * 1.5f - 6;
            const float h = 0.5f + static_cast<float>((i * 7 + j * 3) % 5);
            const uint8_t a = (i + j) % 7 == 0 ? 140 : 255;
            list.boxes.push_back(
                {{x, 0, z},
                 {x + 1, h, z + 1},
                 rgba(static_cast<uint8_t>(60 + i * 20), static_cast<uint8_t>(80 + j * 15), 160, a),
                 static_cast<uint32_t>(i * 8 + j),
                 (i == 3 && j == 4) ? kFlagSelected : ((i == 5 && j == 1) ? kFlagHighlighted : 0u)});
        }
    list.world_lines.push_back({{-7, 0, -7}, {7, 0, 7}, rgba(255, 255, 0)});
    list.rects.push_back({{4, 4}, {60, 24}, rgba(40, 40, 60, 200), 1, kFlagNone});
    list.arcs.push_back({{200, 60}, 20, 40, 0.3f, 2.5f, rgba(230, 120, 40), 2, kFlagSelected});
    list.triangles.push_back({{10, 90}, rgba(255, 0, 0)});
    list.triangles.push_back({{40, 90}, rgba(0, 255, 0)});
    list.triangles.push_back({{25, 70}, rgba(0, 0, 255)});
    list.lines.push_back({{60, 100}, {140, 80}, 3.0f, rgba(255, 255, 255)});
    list.labels.push_back({{8, 8}, "busy scene", rgba(255, 255, 255), 14.0f, TextAnchor::kTopLeft, 0});
    return list;
}

TEST_F(SceneTest, SameListTwiceGivesIdenticalImages) {
    const DrawList list = busyScene();
    const Image a = render(list, 240, 160);
    const Image b = render(list, 240, 160);
    ASSERT_FALSE(a.rgba.empty());
    EXPECT_TRUE(compareImages(a, b, 0).identical());
    EXPECT_EQ(a.rgba, b.rgba);
    const FrameStats stats = renderer().lastFrame();
    EXPECT_EQ(stats.boxes_drawn, 64u);
    EXPECT_GE(stats.draw_calls, 8u);
    EXPECT_GT(stats.wall_ms, 0.0);
    // GPU memory is counted and named.
    const MemoryStats memory = renderer().memoryStats();
    EXPECT_GE(memory.blocks, 1u);
    EXPECT_GE(memory.live_allocations, 4u);
    bool atlas = false;
    for (const auto& [name, size] : renderer().memoryAllocations())
        atlas = atlas || (name == "glyph atlas" && size > 0);
    EXPECT_TRUE(atlas);
}

TEST_F(SceneTest, BadSizesAreErrorsNotCrashes) {
    DrawList list;
    auto zero = renderer().renderToImage(list, 0, 0);
    ASSERT_FALSE(zero.ok());
    EXPECT_NE(zero.error().message.find("0x0"), std::string::npos) << zero.error().message;
    auto huge = renderer().renderToImage(list, 100000, 100000);
    ASSERT_FALSE(huge.ok());
    EXPECT_NE(huge.error().message.find("100000x100000"), std::string::npos) << huge.error().message;
    Status st = renderer().renderOffscreen(list, 1, 0);
    EXPECT_FALSE(st.ok());
    // The renderer still works afterwards.
    list.clear_color = rgba(1, 2, 3);
    const Image ok = render(list, 8, 8);
    ASSERT_EQ(ok.width, 8u);
    EXPECT_EQ(ok.pixel(7, 7), rgba(1, 2, 3));
}

TEST_F(SceneTest, EmptyStringsAndOddInputsDrawNothingBad) {
    DrawList list;
    list.labels.push_back({{4, 4}, "", rgba(255, 255, 255), 14.0f, TextAnchor::kTopLeft, 0});
    list.labels.push_back({{4, 4}, "\xff\xfe bad utf8", rgba(255, 255, 255), 0.0f, TextAnchor::kTopLeft, 0});
    list.arcs.push_back({{8, 8}, 5, 2, 0, 1, rgba(255, 0, 0), 0, 0});  // r1 < r0: nothing
    list.triangles.push_back({{0, 0}, rgba(255, 0, 0)});               // an incomplete triangle
    list.lines.push_back({{5, 5}, {5, 5}, 2.0f, rgba(255, 0, 0)});     // zero length
    const Image image = render(list, 16, 16);
    EXPECT_EQ(image.width, 16u);
}

}  // namespace
}  // namespace memcity::render::testing

namespace memcity::render::testing {
namespace {

TEST(RendererCreateTest, BadFontPathIsAClearError) {
    RendererOptions options;
    options.font_path = "/nonexistent/fonts/missing.ttf";
    auto r = Renderer::create(options);
    ASSERT_FALSE(r.ok());
    EXPECT_NE(r.error().message.find("/nonexistent/fonts/missing.ttf"), std::string::npos)
        << r.error().message;
}

TEST(RendererCreateTest, MissingValidationLayerIsAClearError) {
    // VK_LAYER_PATH replaces the loader's layer search folders: no layer can be found.
    ASSERT_EQ(setenv("VK_LAYER_PATH", "/nonexistent/layers", 1), 0);
    RendererOptions options;
    options.validation = true;
    auto r = Renderer::create(options);
    unsetenv("VK_LAYER_PATH");
    ASSERT_FALSE(r.ok());
    EXPECT_NE(r.error().message.find("VK_LAYER_KHRONOS_validation"), std::string::npos) << r.error().message;
}

}  // namespace
}  // namespace memcity::render::testing
