#include "app/explorer.h"

#include <imgui.h>

#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <ctime>
#include <filesystem>
#include <iostream>
#include <sstream>

#include "app/explorer_app.h"
#include "app/script_runner.h"
#include "explore/script.h"
#include "heap/heap_history.h"
#include "render/png.h"
#include "scene/estimates.h"
#include "trace/trace_reader.h"
#include "util/parallel.h"

namespace memcity::app {
namespace {

constexpr const char* kFont = "/usr/share/fonts/truetype/dejavu/DejaVuSans.ttf";

std::string baseName(const std::string& path) {
    return std::filesystem::path(path).filename().string();
}

}  // namespace

Explorer::Explorer(const ExplorerOptions& options) : options_(options) {}

Explorer::~Explorer() {
    session_.reset();  // its threads wake the platform
    if (renderer_) renderer_->waitIdle();
    if (imgui_) {
        platform_->shutdownImGui();
        ImGui::DestroyContext(imgui_);
    }
    renderer_.reset();
    platform_.reset();
}

namespace {

// Seconds since this process started (the kernel's start time, in clock ticks since boot).
double secondsSinceLaunch() {
    char buffer[1024] = {};
    FILE* f = std::fopen("/proc/self/stat", "r");
    if (!f) return -1;
    const size_t n = std::fread(buffer, 1, sizeof buffer - 1, f);
    std::fclose(f);
    const std::string text(buffer, n);
    const size_t paren = text.rfind(')');  // (the command's name may hold spaces)
    if (paren == std::string::npos) return -1;
    std::istringstream fields(text.substr(paren + 2));
    std::string field;
    for (int i = 3; i <= 22 && fields >> field; ++i) {
    }
    timespec now{};
    ::clock_gettime(CLOCK_BOOTTIME, &now);
    const double ticks = std::strtod(field.c_str(), nullptr) / static_cast<double>(::sysconf(_SC_CLK_TCK));
    return static_cast<double>(now.tv_sec) + static_cast<double>(now.tv_nsec) * 1e-9 - ticks;
}

}  // namespace

double Explorer::clock() const {
    return std::chrono::duration<double>(std::chrono::steady_clock::now() - start_).count();
}

Status Explorer::start() {
    // Settings: the remembered window, panels, view and chains.
    if (options_.settings_path != "-") {
        auto path = options_.settings_path.empty() ? explore::defaultSettingsPath()
                                                   : Result<std::string>(options_.settings_path);
        if (path) {
            settings_path_ = *path;
            if (auto loaded = explore::loadSettings(settings_path_)) {
                settings_ = loaded->settings;
                settings_base_ = settings_;
                for (const std::string& w : loaded->warnings)
                    std::cerr << "warning: " << w << "\n";
            } else {
                std::cerr << "warning: " << loaded.error().message << " (using the defaults)\n";
            }
        }
    }
    if (options_.vsync) settings_.vsync = *options_.vsync;

    PlatformOptions po;
    po.title = "memcity";
    po.width = options_.size.x > 0 ? options_.size.x : settings_.window_width;
    po.height = options_.size.y > 0 ? options_.size.y : settings_.window_height;
    if (options_.size.x <= 0) {
        po.x = settings_.window_x.value_or(-1);
        po.y = settings_.window_y.value_or(-1);
        po.maximized = settings_.maximised;
    }
    auto platform = Platform::create(po);
    if (!platform) return platform.error();
    platform_ = std::move(*platform);

    render::RendererOptions ro;
    ro.samples = 1;  // lavapipe shades on the CPU: no MSAA in the window (PNG exports keep 4x)
    ro.validation = options_.validate;
    ro.instance_extensions = platform_->vulkanExtensions();
    auto renderer = render::Renderer::create(ro);
    if (!renderer) return renderer.error();
    renderer_ = std::move(*renderer);
    auto surface = platform_->createSurface(renderer_->instance());
    if (!surface) return surface.error();
    const glm::ivec2 fb = platform_->drawableSize();
    if (Status st = renderer_->attachSurface(*surface, static_cast<uint32_t>(fb.x),
                                             static_cast<uint32_t>(fb.y), settings_.vsync);
        !st)
        return st;

    setupImGui();

    explore::SessionOptions so;
    if (options_.chain) {
        so.chain = *options_.chain;
    } else {
        if (auto m = parseMetric(settings_.metric)) so.chain.metric = *m;
        if (auto s = parseSortStrategy(settings_.sort)) so.chain.sort = *s;
    }
    if (options_.view) {
        so.view = *options_.view;
    } else if (auto v = scene::parseViewKind(settings_.view); v && scene::isWindowView(*v)) {
        so.view = *v;
    }
    // The analysis passes get the cores but one, which the window keeps for drawing (as before
    // on 2 cores: one thread).
    so.threads = std::max(1u, defaultThreads() - 1);
    Platform* p = platform_.get();
    so.wake = [p] { p->wake(); };
    render::Renderer* r = renderer_.get();
    so.measure = [r](std::string_view text, float px) { return r->textWidth(text, px); };
    session_ = std::make_unique<explore::Session>(std::move(so));
    ui_ = std::make_unique<Ui>(*session_, settings_);
    ui_->device = renderer_->deviceName();
    ui_->set_clipboard = [p](const std::string& text) { p->setClipboard(text); };
    open(options_.path);
    return {};
}

void Explorer::open(const std::string& path) {
    session_->open(path);
    ui_->chain_edit = session_->chain();
    opened_at_ = clock();
    first_gc_shown_ = -1;
    title_ =
        "memcity - " + (options_.title.empty() || path != options_.path ? baseName(path) : options_.title);
    title_sampled_ = false;
    platform_->setTitle(title_);
    if (options_.settings_path != "-") explore::addRecentFile(settings_, path);
    dirty_ = true;
}

void Explorer::setupImGui() {
    IMGUI_CHECKVERSION();
    imgui_ = ImGui::CreateContext();
    ImGuiIO& io = ImGui::GetIO();
    io.IniFilename = nullptr;  // our settings file remembers what matters
    // The ImGui pass draws each command with its VtxOffset: lists past 64k vertices are fine
    // with Debian's 16-bit indices.
    io.BackendFlags |= ImGuiBackendFlags_RendererHasVtxOffset;
    io.ConfigWindowsMoveFromTitleBarOnly = true;
    platform_->initImGui();
    ImGui::StyleColorsDark();
    ImGuiStyle& style = ImGui::GetStyle();
    style.WindowRounding = 0.0f;
    style.WindowBorderSize = 1.0f;
    style.FrameRounding = 3.0f;
    style.Colors[ImGuiCol_WindowBg] = ImVec4(0.133f, 0.145f, 0.172f, 1.0f);  // palette::kPanel
    style.Colors[ImGuiCol_MenuBarBg] = ImVec4(0.11f, 0.12f, 0.14f, 1.0f);
    const float scale = platform_->contentScale() * settings_.ui_scale;
    style.ScaleAllSizes(scale);
    imgui_font_scale_ = scale;
    if (std::filesystem::exists(kFont)) {
        // Latin, plus the arrows, dots and signs that paths and labels use (→ … × · ≈).
        static ImVector<ImWchar> ranges;
        if (ranges.empty()) {
            ImFontGlyphRangesBuilder builder;
            builder.AddRanges(io.Fonts->GetGlyphRangesDefault());
            for (ImWchar c :
                 {ImWchar(0x2192), ImWchar(0x2190), ImWchar(0x2026), ImWchar(0x00D7), ImWchar(0x00B7),
                  ImWchar(0x2212), ImWchar(0x2013), ImWchar(0x2014), ImWchar(0x25B8), ImWchar(0x2248)})
                builder.AddChar(c);
            builder.BuildRanges(&ranges);
        }
        io.Fonts->AddFontFromFileTTF(kFont, std::round(15.0f * scale), nullptr, ranges.Data);
    } else {
        ImFontConfig config;
        config.SizePixels = std::round(13.0f * scale);
        io.Fonts->AddFontDefault(&config);
    }
    io.Fonts->Build();
    if (Status st = renderer_->uploadImGuiFonts(); !st)
        std::cerr << "warning: " << st.error().message << "\n";
}

void Explorer::handleEvent(const WindowEvent& event) {
    dirty_ = true;
    switch (event.type) {
        case WindowEvent::Type::kQuit: quit_ = true; break;
        case WindowEvent::Type::kDropFile:
            open(event.path);
            ui_->say("opening " + event.path);
            break;
        case WindowEvent::Type::kResized: {
            const glm::ivec2 fb = platform_->drawableSize();
            if (Status st = renderer_->resize(static_cast<uint32_t>(std::max(fb.x, 0)),
                                              static_cast<uint32_t>(std::max(fb.y, 0)));
                !st)
                ui_->say(st.error().message);
            break;
        }
        case WindowEvent::Type::kOther: break;
    }
}

bool Explorer::turn(int idle_ms, bool freeze_time) {
    // Draw while something moves; otherwise sleep until an event (the loader and the workers wake
    // us), so that background work has the cores.
    const bool busy = dirty_ || extra_frames_ > 0 || session_->cursor().playing() ||
                      ui_->camera_mode == CameraMode::kFly || !input_.empty() || ui_->sizes_due;
    if (!busy) {
        WindowEvent event;
        if (platform_->waitEvent(event, idle_ms)) handleEvent(event);
        last_turn_ = std::chrono::steady_clock::now();
        if (quit_) return false;
        if (!dirty_) return true;
    }
    extra_frames_ = dirty_ ? 3 : std::max(extra_frames_ - 1, 0);
    dirty_ = false;
    const auto now = std::chrono::steady_clock::now();
    const double dt = std::min(std::chrono::duration<double>(now - last_turn_).count(), 0.25);
    last_turn_ = now;
    return frame(freeze_time ? 0.0 : dt);
}

bool Explorer::frame(double dt) {
    const auto t0 = std::chrono::steady_clock::now();
    ui_->now = clock();
    WindowEvent event;
    while (platform_->waitEvent(event, 0))
        handleEvent(event);
    if (quit_) return false;
    if (session_->update()) dirty_ = true;
    if (session_->sampled() != title_sampled_) {  // known once the trace is open
        title_sampled_ = session_->sampled();
        platform_->setTitle(title_sampled_
                                ? title_ + " (" + scene::samplingBadge(session_->samplingInterval()) + ")"
                                : title_);
    }
    if (options_.gc && !start_gc_applied_ && session_->series() &&
        session_->series()->lastGc() >= *options_.gc) {
        start_gc_applied_ = true;
        if (Status st = session_->goToGc(*options_.gc); !st) ui_->say(st.error().message);
    } else if (options_.gc && !start_gc_applied_ && session_->loaded() &&
               *options_.gc >= session_->gcs().size()) {
        // A GC a cut trace does not have (a complete trace's was refused before the window opened).
        start_gc_applied_ = true;
        ui_->say("--gc: " + gcRangeError(session_->path(), *options_.gc, session_->gcs().size()), 10.0);
    }
    if (session_->advance(dt)) dirty_ = true;
    if (std::string stop = session_->takeStop(); !stop.empty()) ui_->say(stop);
    if (std::string notice = session_->takeNotice(); !notice.empty()) ui_->say(notice);
    const bool synthetic = !input_.empty();
    if (synthetic) dirty_ = true;

    platform_->newImGuiFrame();
    ImGuiIO& io = ImGui::GetIO();
    const glm::ivec2 win = platform_->windowSize(), fb = platform_->drawableSize();
    const glm::vec2 fb_scale = win.x > 0 && win.y > 0 ? glm::vec2(fb) / glm::vec2(win) : glm::vec2(1.0f);
    io.DisplayFramebufferScale = ImVec2(fb_scale.x, fb_scale.y);
    if (!options_.script.empty()) {
        // Scripts own the pointer and the keys: everything up unless this frame's input says so.
        const SyntheticInput in = synthetic ? input_.front() : SyntheticInput{};
        if (synthetic) input_.erase(input_.begin());
        if (in.mouse) script_mouse_ = ImVec2(in.mouse->x, in.mouse->y);
        io.MousePos = script_mouse_;
        io.MouseDown[0] = in.mouse_down;
        io.KeyShift = in.shift;
        if (in.double_click) io.MouseDoubleClickTime = 10.0f;
        for (bool& down : io.KeysDown)
            down = false;
        if (in.key >= 0 && in.key < static_cast<int>(IM_ARRAYSIZE(io.KeysDown))) io.KeysDown[in.key] = true;
    }
    ImGui::NewFrame();
    ui_->layout =
        layoutFor(glm::vec2(io.DisplaySize.x, io.DisplaySize.y), fb_scale, imgui_font_scale_, settings_);

    timeline_list_.clear();
    drawMenuBar(*ui_);
    // The panels beside the view, the view, the panels below it (the order decides the pixels).
    const PanelFrame panel_frame{dt, &timeline_list_};
    drawPanels(*ui_, panel_frame, {PanelSide::kLeft, PanelSide::kRight});
    drawViewPanel(*ui_, dt);
    drawPanels(*ui_, panel_frame, {PanelSide::kBottom});
    drawStatusBar(*ui_, panel_frame);
    ImGui::Render();

    const auto c0 = std::chrono::steady_clock::now();
    const scene::ViewFrameStats stats =
        session_->compose(ui_->layout.toPixels(ui_->layout.center), glm::vec2(fb), list_);
    list_.append2D(timeline_list_);
    ui_->compose_ms =
        std::chrono::duration<double, std::milli>(std::chrono::steady_clock::now() - c0).count();
    ui_->boxes = stats.city.buildings + stats.city.merged_boxes + stats.city.plates;
    if (Status st = renderer_->renderToSwapchain(list_, ImGui::GetDrawData()); !st) {
        std::cerr << "memcity: " << st.error().message << "\n";
        return false;
    }
    if (first_gc_shown_ < 0 && session_->series()) {
        first_gc_shown_ = clock() - opened_at_;
        first_gc_since_launch_ = secondsSinceLaunch();
    }

    const double ms =
        std::chrono::duration<double, std::milli>(std::chrono::steady_clock::now() - t0).count();
    ui_->frame_ms = ms;
    frame_ms_.push_back(ms);
    frame_loading_.push_back(!session_->loaded());

    if (ui_->want_screenshot) {
        ui_->want_screenshot = false;
        std::time_t now = std::time(nullptr);
        char name[64];
        std::strftime(name, sizeof name, "memcity-%Y%m%d-%H%M%S.png", std::localtime(&now));
        Status st = screenshot(name);
        ui_->say(st ? std::string("wrote ") + name : st.error().message);
    }
    if (ui_->want_quit) quit_ = true;
    return !quit_;
}

Status Explorer::screenshot(const std::string& path) {
    const glm::ivec2 fb = platform_->drawableSize();
    if (fb.x <= 0 || fb.y <= 0) return Error{"the window has no pixels to save"};
    auto image = renderer_->renderToImage(list_, static_cast<uint32_t>(fb.x), static_cast<uint32_t>(fb.y),
                                          ImGui::GetDrawData());
    if (!image) return image.error();
    return render::writePng(path, *image);
}

void Explorer::saveSettings() {
    if (settings_path_.empty()) return;
    const glm::ivec2 size = platform_->windowSize(), pos = platform_->windowPosition();
    settings_.maximised = platform_->maximized();
    if (!settings_.maximised && options_.size.x <= 0) {
        settings_.window_width = size.x;
        settings_.window_height = size.y;
        settings_.window_x = pos.x;
        settings_.window_y = pos.y;
    }
    settings_.view = std::string(scene::viewKindName(session_->view()));
    settings_.metric = std::string(metricName(session_->chain().metric));
    settings_.sort = std::string(sortStrategyName(session_->chain().sort));
    if (Status st = explore::saveSettingsChanges(settings_path_, settings_base_, settings_); !st)
        std::cerr << "warning: " << st.error().message << "\n";
    else
        settings_base_ = settings_;
}

int Explorer::run() {
    if (!options_.script.empty()) {
        const int status = runScript(*this, options_.script);
        saveSettings();
        return status;
    }
    while (turn(250)) {
    }
    saveSettings();
    return 0;
}

int runExplorer(const ExplorerOptions& options) {
    // A file that cannot be opened at all is an error here and now; a corrupt one loads in the
    // window, which says what is wrong with it.
    // (the reader's words: "cannot open: No such file or directory").
    std::error_code ec;
    if (::access(options.path.c_str(), R_OK) != 0) {
        std::cerr << "error: " << options.path << ": cannot open: " << std::strerror(errno) << "\n";
        return 1;
    }
    if (!std::filesystem::is_regular_file(options.path, ec)) {
        std::cerr << "error: " << options.path << ": cannot open: not a regular file\n";
        return 1;
    }
    // --gc beyond a complete trace's GCs (its footer index lists them) is refused here; a cut
    // trace's GCs are known once it has loaded.
    if (options.gc) {
        if (auto file = TraceFile::open(options.path); file.ok() && file->hadFooterIndex()) {
            const size_t gcs = file->indexedGcEnds().size();
            if (*options.gc >= gcs) {
                std::cerr << "error: " << gcRangeError(options.path, *options.gc, gcs) << "\n";
                return 1;
            }
        }
    }
    Explorer explorer(options);
    if (Status st = explorer.start(); !st) {
        std::cerr << "memcity: " << st.error().message << "\n";
        return 1;
    }
    return explorer.run();
}

}  // namespace memcity::app
