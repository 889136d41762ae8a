// Dear ImGui draw data through the renderer's own ImGui pipeline.
#include <imgui.h>

#include "render_test_util.h"

namespace memcity::render::testing {
namespace {

class ImGuiTest : public RenderTest {};

// An ImGui context for one test, with a window holding some text.
struct ImGuiFrame {
    ImGuiContext* context = ImGui::CreateContext();
    ImGuiFrame() {
        ImGuiIO& io = ImGui::GetIO();
        io.IniFilename = nullptr;
        io.DisplaySize = ImVec2(200, 120);
        io.DeltaTime = 1.0f / 60.0f;
    }
    ~ImGuiFrame() { ImGui::DestroyContext(context); }
    ImDrawData* draw(const char* text) {
        ImGui::NewFrame();
        ImGui::SetNextWindowPos(ImVec2(10, 10));
        ImGui::SetNextWindowSize(ImVec2(150, 80));
        ImGui::Begin("memcity");
        ImGui::TextUnformatted(text);
        ImGui::End();
        ImGui::Render();
        return ImGui::GetDrawData();
    }
};

int countNot(const Image& image, uint32_t color, uint32_t x0, uint32_t y0, uint32_t x1, uint32_t y1) {
    int n = 0;
    for (uint32_t y = y0; y < y1; ++y)
        for (uint32_t x = x0; x < x1; ++x)
            n += image.pixel(x, y) != color;
    return n;
}

TEST_F(ImGuiTest, WindowWithTextDrawsPixelsWhereTheWindowIs) {
    ImGuiFrame frame;
    ASSERT_TRUE(renderer().uploadImGuiFonts().ok());
    ImDrawData* data = frame.draw("hello from ImGui");
    ASSERT_NE(data, nullptr);
    ASSERT_GT(data->TotalVtxCount, 0);
    DrawList list;
    auto image = renderer().renderToImage(list, 200, 120, data);
    ASSERT_TRUE(image.ok()) << image.error().message;
    const uint32_t clear = list.clear_color;
    EXPECT_GT(countNot(*image, clear, 10, 10, 160, 90), 150 * 80 / 2);  // the window's background
    EXPECT_EQ(countNot(*image, clear, 170, 0, 200, 120), 0);            // right of the window
    EXPECT_EQ(countNot(*image, clear, 0, 95, 200, 120), 0);             // below it
    EXPECT_GE(renderer().lastFrame().draw_calls, 1u);

    // Same data twice: same picture; different text: a different picture.
    auto again = renderer().renderToImage(list, 200, 120, data);
    ASSERT_TRUE(again.ok());
    EXPECT_EQ(again->rgba, image->rgba);
    auto other = renderer().renderToImage(list, 200, 120, frame.draw("something else entirely"));
    ASSERT_TRUE(other.ok());
    EXPECT_NE(other->rgba, image->rgba);
}

TEST_F(ImGuiTest, FontsUploadOnFirstUseOfANewContext) {
    ImGuiFrame frame;
    ImGui::GetIO().Fonts->Build();  // NewFrame needs a built atlas; the renderer uploads it lazily
    ImDrawData* data = frame.draw("lazy");
    DrawList list;
    auto image = renderer().renderToImage(list, 200, 120, data);
    ASSERT_TRUE(image.ok()) << image.error().message;
    EXPECT_GT(countNot(*image, list.clear_color, 10, 10, 160, 90), 1000);
}

}  // namespace
}  // namespace memcity::render::testing
