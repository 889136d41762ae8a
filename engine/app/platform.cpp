#include "app/platform.h"

#include <SDL.h>
#include <SDL_vulkan.h>
#include <backends/imgui_impl_sdl.h>
#include <imgui.h>

#include <algorithm>

namespace memcity::app {

int keyIndex(Key key) {
    // The SDL backend of ImGui indexes its key state by scancode.
    switch (key) {
        case Key::kSpace: return SDL_SCANCODE_SPACE;
        case Key::kLeft: return SDL_SCANCODE_LEFT;
        case Key::kRight: return SDL_SCANCODE_RIGHT;
        case Key::kUp: return SDL_SCANCODE_UP;
        case Key::kDown: return SDL_SCANCODE_DOWN;
        case Key::kEscape: return SDL_SCANCODE_ESCAPE;
        case Key::kBackspace: return SDL_SCANCODE_BACKSPACE;
        case Key::kTab: return SDL_SCANCODE_TAB;
        case Key::kHome: return SDL_SCANCODE_HOME;
        case Key::kEnd: return SDL_SCANCODE_END;
        case Key::kF12: return SDL_SCANCODE_F12;
        case Key::kA: return SDL_SCANCODE_A;
        case Key::kD: return SDL_SCANCODE_D;
        case Key::kE: return SDL_SCANCODE_E;
        case Key::kF: return SDL_SCANCODE_F;
        case Key::kO: return SDL_SCANCODE_O;
        case Key::kQ: return SDL_SCANCODE_Q;
        case Key::kS: return SDL_SCANCODE_S;
        case Key::kW: return SDL_SCANCODE_W;
    }
    return SDL_SCANCODE_UNKNOWN;
}

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

bool Platform::waitEvent(WindowEvent& out, int timeout_ms) {
    SDL_Event event;
    if ((timeout_ms <= 0 ? SDL_PollEvent(&event) : SDL_WaitEventTimeout(&event, timeout_ms)) == 0)
        return false;
    if (imgui_) ImGui_ImplSDL2_ProcessEvent(&event);
    out = WindowEvent{};
    switch (event.type) {
        case SDL_QUIT: out.type = WindowEvent::Type::kQuit; break;
        case SDL_DROPFILE:
            if (event.drop.file) {
                out.type = WindowEvent::Type::kDropFile;
                out.path = event.drop.file;
                SDL_free(event.drop.file);
            }
            break;
        case SDL_WINDOWEVENT:
            if (event.window.event == SDL_WINDOWEVENT_CLOSE) out.type = WindowEvent::Type::kQuit;
            if (event.window.event == SDL_WINDOWEVENT_SIZE_CHANGED ||
                event.window.event == SDL_WINDOWEVENT_RESIZED)
                out.type = WindowEvent::Type::kResized;
            break;
        default: break;
    }
    return true;
}

void Platform::initImGui() {
    ImGui_ImplSDL2_InitForVulkan(window_);
    imgui_ = true;
}

void Platform::newImGuiFrame() const {
    ImGui_ImplSDL2_NewFrame();
}

void Platform::shutdownImGui() {
    if (imgui_) ImGui_ImplSDL2_Shutdown();
    imgui_ = false;
}

void Platform::setWindowSize(int width, int height) const {
    SDL_SetWindowSize(window_, width, height);
}

void Platform::wake() const {
    SDL_Event e{};
    e.type = wake_event_;
    SDL_PushEvent(&e);
}

void Platform::setTitle(const std::string& title) const {
    SDL_SetWindowTitle(window_, title.c_str());
}

void Platform::setClipboard(const std::string& text) const {
    SDL_SetClipboardText(text.c_str());
}

}  // namespace memcity::app
