#include "app/platform.h"

#include <SDL.h>
#include <SDL_vulkan.h>

#include <algorithm>

namespace memcity::app {

Result<std::unique_ptr<Platform>> Platform::create(const PlatformOptions& options) {
    SDL_SetHint(SDL_HINT_VIDEO_X11_NET_WM_BYPASS_COMPOSITOR, "0");
    if (SDL_Init(SDL_INIT_VIDEO | SDL_INIT_EVENTS) != 0)
        return Error{std::string("cannot open a window: ") + SDL_GetError()};
    std::unique_ptr<Platform> p(new Platform());
    uint32_t flags = SDL_WINDOW_VULKAN | SDL_WINDOW_RESIZABLE | SDL_WINDOW_ALLOW_HIGHDPI;
    if (options.maximized) flags |= SDL_WINDOW_MAXIMIZED;
    const int x = options.x >= 0 ? options.x : static_cast<int>(SDL_WINDOWPOS_UNDEFINED);
    const int y = options.y >= 0 ? options.y : static_cast<int>(SDL_WINDOWPOS_UNDEFINED);
    p->window_ = SDL_CreateWindow(options.title.c_str(), x, y, std::max(options.width, 320),
                                  std::max(options.height, 240), flags);
    if (!p->window_) {
        std::string reason = SDL_GetError();
        SDL_Quit();
        return Error{"cannot open a window: " + reason};
    }
    p->wake_event_ = SDL_RegisterEvents(1);
    SDL_EventState(SDL_DROPFILE, SDL_ENABLE);
    return p;
}

Platform::~Platform() {
    if (window_) SDL_DestroyWindow(window_);
    SDL_Quit();
}

std::vector<std::string> Platform::vulkanExtensions() const {
    unsigned count = 0;
    SDL_Vulkan_GetInstanceExtensions(window_, &count, nullptr);
    std::vector<const char*> names(count);
    SDL_Vulkan_GetInstanceExtensions(window_, &count, names.data());
    return {names.begin(), names.end()};
}

Result<VkSurfaceKHR> Platform::createSurface(VkInstance instance) const {
    VkSurfaceKHR surface = VK_NULL_HANDLE;
    if (!SDL_Vulkan_CreateSurface(window_, instance, &surface))
        return Error{std::string("cannot create a Vulkan surface for the window: ") + SDL_GetError()};
    return surface;
}

glm::ivec2 Platform::windowSize() const {
    int w = 0, h = 0;
    SDL_GetWindowSize(window_, &w, &h);
    return {w, h};
}

glm::ivec2 Platform::drawableSize() const {
    int w = 0, h = 0;
    SDL_Vulkan_GetDrawableSize(window_, &w, &h);
    return {w, h};
}

glm::ivec2 Platform::windowPosition() const {
    int x = 0, y = 0;
    SDL_GetWindowPosition(window_, &x, &y);
    return {x, y};
}

bool Platform::maximized() const {
    return (SDL_GetWindowFlags(window_) & SDL_WINDOW_MAXIMIZED) != 0;
}

float Platform::contentScale() const {
    float ddpi = 0.0f;
    const int display = std::max(SDL_GetWindowDisplayIndex(window_), 0);
    float scale = 1.0f;
    if (SDL_GetDisplayDPI(display, &ddpi, nullptr, nullptr) == 0 && ddpi > 0.0f) scale = ddpi / 96.0f;
    const glm::ivec2 w = windowSize(), d = drawableSize();
    if (w.x > 0 && d.x > w.x) scale *= static_cast<float>(d.x) / static_cast<float>(w.x);
    return std::clamp(scale, 1.0f, 4.0f);
}

bool Platform::waitEvent(SDL_Event& event, int timeout_ms) const {
    if (timeout_ms <= 0) return SDL_PollEvent(&event) != 0;
    return SDL_WaitEventTimeout(&event, timeout_ms) != 0;
}

void Platform::wake() const {
    SDL_Event e{};
    e.type = wake_event_;
    SDL_PushEvent(&e);
}

void Platform::push(SDL_Event& event) const {
    SDL_PushEvent(&event);
}

void Platform::setTitle(const std::string& title) const {
    SDL_SetWindowTitle(window_, title.c_str());
}

void Platform::setClipboard(const std::string& text) const {
    SDL_SetClipboardText(text.c_str());
}

}  // namespace memcity::app
