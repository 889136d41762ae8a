// A small scene of everything the renderer draws, rendered with and without MSAA. The pictures
// are checked loosely here; set MEMCITY_RENDER_PNG_DIR to write them as PNGs and look at them.
#include <imgui.h>

#include <cstdlib>
#include <filesystem>
#include <numbers>

#include "render_test_util.h"

namespace memcity::render::testing {
namespace {

class PicturesTest : public RenderTest {};

DrawList showcase(uint32_t width, uint32_t height) {
    DrawList list;
    list.clear_color = rgba(22, 24, 29);
    const float aspect = static_cast<float>(width) / static_cast<float>(height);
    list.camera = lookAt({-9, 13, 17}, {1, 0, 0}, aspect, 50.0f);
    // A district plate with buildings on a grid, one selected, one highlighted, two translucent.
    list.boxes.push_back({{-8, -0.2f, -8}, {8, 0, 8}, rgba(52, 56, 66), 1000, kFlagNone});
    uint32_t id = 0;
    for (int i = 0; i < 7; ++i) {
        for (int j = 0; j < 7; ++j) {
            const float x = -7.0f + static_cast<float>(i) * 2.1f, z = -7.0f + static_cast<float>(j) * 2.1f;
            const float h = 0.4f + static_cast<float>((i * 5 + j * 3) % 7) * 0.8f;
            uint32_t color = (i + j) % 3 == 0 ? rgba(86, 180, 233)
                                              : ((i + j) % 3 == 1 ? rgba(230, 159, 0) : rgba(0, 158, 115));
            uint32_t flags = kFlagNone;
            if (i == 3 && j == 3) flags = kFlagSelected;
            if (i == 5 && j == 2) flags = kFlagHighlighted;
            if (i == 1 && (j == 5 || j == 6)) color = (color & 0x00FFFFFFu) | (110u << 24);
            list.boxes.push_back({{x, 0, z}, {x + 1.6f, h, z + 1.6f}, color, id++, flags});
        }
    }
    for (int k = -8; k <= 8; k += 4) {
        list.world_lines.push_back(
            {{static_cast<float>(k), 0.01f, -8}, {static_cast<float>(k), 0.01f, 8}, rgba(90, 96, 110)});
        list.world_lines.push_back(
            {{-8, 0.01f, static_cast<float>(k)}, {8, 0.01f, static_cast<float>(k)}, rgba(90, 96, 110)});
    }
    // A sunburst in the right part of the overlay.
    constexpr float kPi = std::numbers::pi_v<float>;
    const glm::vec2 c{static_cast<float>(width) - 150.0f, 150.0f};
    list.arcs.push_back({c, 0, 40, 0, 2 * kPi, rgba(80, 80, 90), 1, kFlagNone});
    const uint32_t ring_colors[] = {rgba(213, 94, 0), rgba(0, 114, 178), rgba(240, 228, 66),
                                    rgba(204, 121, 167)};
    float a = -kPi / 2;
    for (int s = 0; s < 4; ++s) {
        const float span = (0.9f - 0.15f * static_cast<float>(s)) * kPi / 1.5f;
        list.arcs.push_back({c, 42, 80, a, a + span - 0.01f, ring_colors[s], static_cast<uint32_t>(2 + s),
                             s == 1 ? kFlagSelected : kFlagNone});
        list.arcs.push_back({c, 82, 110, a, a + span * 0.6f, ring_colors[s], static_cast<uint32_t>(10 + s),
                             s == 2 ? kFlagHighlighted : kFlagNone});
        a += span;
    }
    // An icicle-like row of rects, a timeline area, a thick line.
    const float bottom = static_cast<float>(height);
    list.rects.push_back({{10, bottom - 90}, {250, bottom - 70}, rgba(0, 114, 178), 20, kFlagNone});
    list.rects.push_back({{10, bottom - 68}, {140, bottom - 48}, rgba(213, 94, 0), 21, kFlagSelected});
    list.rects.push_back({{142, bottom - 68}, {250, bottom - 48}, rgba(0, 158, 115), 22, kFlagHighlighted});
    for (int i = 0; i < 20; ++i) {
        const float x0 = 270.0f + static_cast<float>(i) * 14.0f, x1 = x0 + 14.0f;
        const float y0 = bottom - 20.0f - 30.0f * (0.5f + 0.5f * std::sin(static_cast<float>(i) * 0.4f));
        const float y1 = bottom - 20.0f - 30.0f * (0.5f + 0.5f * std::sin(static_cast<float>(i + 1) * 0.4f));
        const uint32_t fill = rgba(86, 180, 233, 120);
        list.triangles.insert(list.triangles.end(),
                              {{{x0, bottom - 20}, fill}, {{x0, y0}, fill}, {{x1, y1}, fill}});
        list.triangles.insert(list.triangles.end(),
                              {{{x0, bottom - 20}, fill}, {{x1, y1}, fill}, {{x1, bottom - 20}, fill}});
        list.lines.push_back({{x0, y0}, {x1, y1}, 2.0f, rgba(86, 180, 233)});
    }
    list.lines.push_back({{420, bottom - 60}, {420, bottom - 10}, 1.0f, rgba(255, 255, 255)});
    list.labels.push_back({{12, 10},
                           "memcity — heap at GC 42 (Größe 1.2 GiB)",
                           rgba(230, 232, 236),
                           16.0f,
                           TextAnchor::kTopLeft,
                           0});
    list.labels.push_back(
        {c, "java.util", rgba(255, 255, 255), 13.0f, TextAnchor::kCenter, rgba(0, 0, 0, 160)});
    list.labels.push_back(
        {{130, bottom - 80}, "HashMap$Node[]", rgba(255, 255, 255), 12.0f, TextAnchor::kCenter, 0});
    list.labels.push_back(
        {{12, 34}, "small 11px label: 0123456789 ÄÖÜ", rgba(150, 156, 166), 11.0f, TextAnchor::kTopLeft, 0});
    list.labels.push_back(
        {{12, 52}, "large 30px", rgba(230, 232, 236), 30.0f, TextAnchor::kTopLeft, rgba(34, 37, 44)});
    return list;
}

TEST_F(PicturesTest, ShowcaseWithImGuiLooksPlausible) {
    const uint32_t width = 640, height = 400;
    ImGuiContext* context = ImGui::CreateContext();
    ImGuiIO& io = ImGui::GetIO();
    io.IniFilename = nullptr;
    io.DisplaySize = ImVec2(static_cast<float>(width), static_cast<float>(height));
    io.DeltaTime = 1.0f / 60.0f;
    ASSERT_TRUE(renderer().uploadImGuiFonts().ok());
    ImGui::NewFrame();
    ImGui::SetNextWindowPos(ImVec2(20, 110));
    ImGui::SetNextWindowSize(ImVec2(180, 110));
    ImGui::Begin("Inspector");
    ImGui::Text("objects: %d", 12345);
    ImGui::Text("retained: %.1f MiB", 42.5);
    ImGui::Button("Select");
    ImGui::End();
    ImGui::Render();

    const DrawList list = showcase(width, height);
    auto image = renderer().renderToImage(list, width, height, ImGui::GetDrawData());
    ASSERT_TRUE(image.ok()) << image.error().message;
    // Not blank, and the buildings cover a good part of the middle.
    const ImageDiff vs_clear = compareImages(
        *image,
        [&] {
            DrawList empty;
            empty.clear_color = list.clear_color;
            return render(empty, width, height);
        }(),
        8);
    EXPECT_GT(vs_clear.fractionOverThreshold(), 0.15);

    if (const char* dir = std::getenv("MEMCITY_RENDER_PNG_DIR")) {
        std::filesystem::create_directories(dir);
        const std::string base = std::string(dir) + "/showcase";
        EXPECT_TRUE(
            writePng(base + "_msaa" + std::to_string(renderer().sampleCount()) + ".png", *image).ok());
        RendererOptions options;
        options.samples = 1;
        auto one = Renderer::create(options);
        ASSERT_TRUE(one.ok());
        ASSERT_TRUE((*one)->uploadImGuiFonts().ok());
        auto aliased = (*one)->renderToImage(list, width, height, ImGui::GetDrawData());
        ASSERT_TRUE(aliased.ok());
        EXPECT_TRUE(writePng(base + "_msaa1.png", *aliased).ok());
    }
    ImGui::DestroyContext(context);
}

}  // namespace
}  // namespace memcity::render::testing
