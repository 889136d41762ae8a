// The swapchain path: presents frames, resizes, switches vsync, with validation on. It needs a
// display: without DISPLAY it starts its own Xvfb, and it is skipped only where there is no Xvfb.
#include <SDL.h>
#include <SDL_vulkan.h>
#include <gtest/gtest.h>

#include <cstdlib>

#include "app/virtual_display.h"
#include "render/renderer.h"

namespace memcity::render {
namespace {

TEST(SwapchainTest, WithoutASurfaceSwapchainCallsAreErrors) {
    auto r = Renderer::create();
    ASSERT_TRUE(r.ok()) << r.error().message;
    DrawList list;
    EXPECT_FALSE((*r)->renderToSwapchain(list).ok());
    EXPECT_FALSE((*r)->resize(10, 10).ok());
    EXPECT_FALSE((*r)->setVsync(false).ok());
}

TEST(SwapchainTest, PresentsResizesAndSwitchesVsync) {
    if (!std::getenv("DISPLAY")) {
        if (!testing::haveXvfb()) GTEST_SKIP() << "no DISPLAY and no " << testing::kXvfb;
        const std::string& display = testing::VirtualDisplay::name();
        ASSERT_FALSE(display.empty()) << testing::kXvfb << " did not start";
        ::setenv("DISPLAY", display.c_str(), 1);
    }
    ASSERT_EQ(SDL_Init(SDL_INIT_VIDEO), 0) << SDL_GetError();
    SDL_Window* window =
        SDL_CreateWindow("memcity render test", SDL_WINDOWPOS_UNDEFINED, SDL_WINDOWPOS_UNDEFINED, 320, 240,
                         SDL_WINDOW_VULKAN | SDL_WINDOW_RESIZABLE);
    ASSERT_NE(window, nullptr) << SDL_GetError();
    unsigned count = 0;
    ASSERT_TRUE(SDL_Vulkan_GetInstanceExtensions(window, &count, nullptr));
    std::vector<const char*> names(count);
    ASSERT_TRUE(SDL_Vulkan_GetInstanceExtensions(window, &count, names.data()));
    RendererOptions options;
    options.validation = true;
    options.instance_extensions.assign(names.begin(), names.end());
    {
        auto r = Renderer::create(options);
        ASSERT_TRUE(r.ok()) << r.error().message;
        Renderer& renderer = **r;
        VkSurfaceKHR surface = VK_NULL_HANDLE;
        ASSERT_TRUE(SDL_Vulkan_CreateSurface(window, renderer.instance(), &surface)) << SDL_GetError();
        Status attached = renderer.attachSurface(surface, 320, 240, true);
        ASSERT_TRUE(attached.ok()) << attached.error().message;

        DrawList list;
        list.clear_color = rgba(30, 60, 90);
        list.rects.push_back({{10, 10}, {100, 60}, rgba(255, 128, 0), 1, kFlagNone});
        list.labels.push_back({{12, 70}, "swapchain", rgba(255, 255, 255), 14.0f, TextAnchor::kTopLeft, 0});
        auto frames = [&](int n) {
            for (int i = 0; i < n; ++i) {
                SDL_Event event;
                while (SDL_PollEvent(&event)) {
                }
                Status st = renderer.renderToSwapchain(list);
                ASSERT_TRUE(st.ok()) << st.error().message;
            }
        };
        frames(5);
        SDL_SetWindowSize(window, 400, 300);
        ASSERT_TRUE(renderer.resize(400, 300).ok());
        frames(5);
        ASSERT_TRUE(renderer.setVsync(false).ok());
        frames(5);
        ASSERT_TRUE(renderer.resize(0, 0).ok());  // minimised: frames are skipped
        frames(2);
        ASSERT_TRUE(renderer.resize(400, 300).ok());
        frames(2);
        // Offscreen rendering still works beside the swapchain.
        auto image = renderer.renderToImage(list, 64, 64);
        ASSERT_TRUE(image.ok()) << image.error().message;
        EXPECT_EQ(image->pixel(0, 0), list.clear_color);
        EXPECT_EQ(renderer.validationMessages(), 0u);
    }
    SDL_DestroyWindow(window);
    SDL_Quit();
}

}  // namespace
}  // namespace memcity::render
