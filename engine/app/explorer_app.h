// The explorer's window loop (internal to engine/app): the platform, the renderer, the ImGui
// context, the session and the panels' shared state, one frame at a time. The script runner
// drives the same object, feeding it input as a user would.
#pragma once

#include <chrono>
#include <memory>
#include <optional>
#include <string>
#include <vector>

#include <imgui.h>

#include "app/explorer.h"
#include "app/platform.h"
#include "app/ui.h"
#include "explore/session.h"
#include "explore/settings.h"
#include "render/renderer.h"

namespace memcity::app {

// Input a script feeds to the next frames instead of the mouse and keyboard (ImGui reads it).
struct SyntheticInput {
    std::optional<glm::vec2> mouse;  // display coordinates
    bool mouse_down = false;
    bool double_click = false;
    int key = -1;  // ImGui's index of a key held down for one frame (keyIndex)
    bool shift = false;
};

class Explorer {
public:
    explicit Explorer(const ExplorerOptions& options);
    ~Explorer();
    // Opens the window and the renderer. Error: no display, no Vulkan device.
    Status start();
    // The window's loop until it closes; the script's commands when there is one.
    int run();

    // One turn of the window's loop: a frame while something moves (a change, playing, flying,
    // script input), else a sleep until an event or `idle_ms`. `freeze_time`: the cursor does not
    // play on (scripts time their frames themselves). False when the window should close.
    bool turn(int idle_ms, bool freeze_time = false);
    // One frame: events, the session's news, the panels, the picture. `dt`: seconds of time the
    // cursor plays. Returns false when the window should close.
    bool frame(double dt);
    // The last frame's picture (view, panels) rendered offscreen and written as PNG.
    Status screenshot(const std::string& path);

    explore::Session& session() { return *session_; }
    Ui& ui() { return *ui_; }
    Platform& platform() { return *platform_; }
    render::Renderer& renderer() { return *renderer_; }
    std::vector<SyntheticInput>& input() { return input_; }
    glm::vec2 fbScale() const { return ui_->layout.fb_scale; }
    // Seconds since the explorer started.
    double clock() const;
    // Frame times so far (ms), and which of them were drawn while the trace was loading.
    const std::vector<double>& frameTimes() const { return frame_ms_; }
    const std::vector<bool>& frameLoading() const { return frame_loading_; }
    // When the first frame showing a GC of the trace was drawn (seconds since open), or -1.
    double firstGcShownAt() const { return first_gc_shown_; }
    // The same, counted from when the process started (-1: not yet): `memcity app.hprof`'s
    // import and the window's start included.
    double firstGcShownSinceLaunch() const { return first_gc_shown_ < 0 ? -1 : first_gc_since_launch_; }
    void open(const std::string& path);

private:
    void handleEvent(const WindowEvent& event);
    void setupImGui();
    void saveSettings();

    ExplorerOptions options_;
    std::string settings_path_;
    explore::Settings settings_;
    // The settings as loaded, or as saved last: a save writes what changed since (other windows
    // save theirs into the same file).
    explore::Settings settings_base_;
    std::unique_ptr<Platform> platform_;
    std::unique_ptr<render::Renderer> renderer_;
    ImGuiContext* imgui_ = nullptr;
    std::unique_ptr<explore::Session> session_;
    std::unique_ptr<Ui> ui_;
    render::DrawList list_, timeline_list_;
    std::vector<SyntheticInput> input_;
    bool quit_ = false;
    bool dirty_ = true;  // something changed: draw the next frames
    int extra_frames_ = 3;
    std::chrono::steady_clock::time_point last_turn_ = std::chrono::steady_clock::now();
    float imgui_font_scale_ = 0;
    std::chrono::steady_clock::time_point start_ = std::chrono::steady_clock::now();
    double first_gc_since_launch_ = -1;
    std::vector<double> frame_ms_;
    std::vector<bool> frame_loading_;
    double first_gc_shown_ = -1, opened_at_ = 0;
    bool start_gc_applied_ = false;      // --gc moved the cursor
    std::string title_;                  // the window's title for the trace open
    bool title_sampled_ = false;         // the title says the trace is a sampled recording
    ImVec2 script_mouse_{-1e6f, -1e6f};  // where a script last put the pointer (off the window at first)
};

}  // namespace memcity::app
