// What the explorer's panels share: the session (the model and its commands), the settings, the
// window's layout and a little UI state. Each panel is one function in a file of its own
// (panel_*.cpp); it reads the session through const accessors and changes it only through the
// session's commands. No panel calls Vulkan: the view and the timeline are drawn into the frame's
// DrawList, ImGui's draw data goes to the renderer as it is.
#pragma once

#include <cstdint>
#include <functional>
#include <initializer_list>
#include <optional>
#include <span>
#include <string>
#include <string_view>
#include <vector>

#include "explore/chain_config.h"
#include "explore/session.h"
#include "explore/settings.h"
#include "explore/tree_table.h"
#include "render/draw_list.h"
#include "scene/screen.h"

namespace memcity::app {

enum class CameraMode : uint8_t {
    kOrbit,  // drag to turn around the target, wheel to come closer, right-drag to slide
    kFly,    // WASD + right-mouse look, Q/E down/up, shift faster
};

// Where things are in the window, in ImGui's display coordinates (screen units); multiply by
// fb_scale for framebuffer pixels (the DrawList's).
struct Layout {
    float menu_h = 0, status_h = 0;
    scene::PixelRect left, right, bottom, center;
    glm::vec2 fb_scale{1.0f};
    float ui_scale = 1.0f;

    scene::PixelRect toPixels(const scene::PixelRect& r) const {
        return {r.min * fb_scale, r.max * fb_scale};
    }
};

struct Ui {
    Ui(explore::Session& s, explore::Settings& st) : session(s), settings(st), chain_edit(s.chain()) {}

    explore::Session& session;
    explore::Settings& settings;
    Layout layout;
    CameraMode camera_mode = CameraMode::kOrbit;

    // The chain editor's working copy (applied to the session with its Apply button).
    explore::ChainConfig chain_edit;
    std::string chain_error;  // applyChain's refusal

    // The tree table (made for the first series shown).
    std::optional<explore::TreeTable> table;
    uint32_t table_revealed = UINT32_MAX;  // the selection the table last scrolled to
    // The table asks for deep and retained sizes once the cursor has rested on a GC for
    // kSizesRest seconds: scrubbing starts no closures that the next frame would cancel, and the
    // frames that show a new GC do not share the cores with them.
    static constexpr double kSizesRest = 0.15;
    uint32_t sizes_gc = UINT32_MAX;  // the GC the cursor was last seen at, since sizes_gc_since
    double sizes_gc_since = 0;
    bool sizes_due = false;  // sizes are wanted once the cursor has rested: keep drawing frames

    // The live controls' sizes for their conditions (see panel_live.cpp).
    int live_used_mib = 64;
    int live_grow_kib = 256;

    // Messages for the status bar (screenshots written, errors), shown a few seconds.
    std::string status;
    double status_until = 0;
    double now = 0;  // seconds since start (the frame's clock)

    // Frame figures for the status bar.
    double frame_ms = 0, compose_ms = 0;
    size_t boxes = 0;
    std::string device;

    // Requests the panels make of the loop.
    bool want_screenshot = false;
    bool want_quit = false;
    bool want_open_dialog = false;
    std::function<void(const std::string&)> set_clipboard;

    void say(std::string text, double seconds = 4.0) {
        status = std::move(text);
        status_until = now + seconds;
    }
};

// Where a panel sits in the window (layoutFor gives a side its space while a panel on it is shown).
enum class PanelSide : uint8_t {
    kLeft,       // the column left of the view (Layout::left)
    kRight,      // the column right of the view (Layout::right)
    kBottom,     // the band below the view, the window's width (Layout::bottom)
    kStatusBar,  // a part of the status bar, drawn at its end, inside its window; takes no space
};

// What a panel's draw is given each frame besides the Ui.
struct PanelFrame {
    double dt = 0;  // seconds since the last frame
    // The frame's 2D draw list (framebuffer pixels), drawn over the view; not null.
    render::DrawList* draw_list = nullptr;
};

// A panel's drawing: its file app/panel_NAME.cpp defines it as `const PanelDraw k<Draw>Panel`, Draw
// from its line of MEMCITY_PANELS (explore/panels.h).
struct PanelDraw {
    std::string_view name;  // the panel's name in explore::panelTable() (the scripts' word)
    PanelSide side;
    // Draws the panel, once per frame between ImGui::NewFrame and ImGui::Render; returns at once
    // when the panel's flag is off or its side has no space.
    void (*draw)(Ui& ui, const PanelFrame& frame);
};
#define MEMCITY_PANEL_DRAW(field, Draw, name, key, menu, shown) extern const PanelDraw k##Draw##Panel;
MEMCITY_PANELS(MEMCITY_PANEL_DRAW)
#undef MEMCITY_PANEL_DRAW

// Every panel's drawing, in explore::panelTable()'s order (one per panel, none null).
std::span<const PanelDraw* const> panelDraws();
// Draws the panels on `sides`, in panelDraws()'s order.
void drawPanels(Ui& ui, const PanelFrame& frame, std::initializer_list<PanelSide> sides);

// The menu bar and the status bar: always there, not panels. The status bar draws the panels
// of PanelSide::kStatusBar at its end.
void drawMenuBar(Ui& ui);
void drawStatusBar(Ui& ui, const PanelFrame& frame);
// The tree table's groups / dominators switch (true: the dominator view is shown), and that view
// (panel_dominators.cpp), both drawn inside the table's window.
bool drawDominatorToggle(Ui& ui);
void drawDominatorTable(Ui& ui);
// The live controls (a trace still being recorded, with a control channel): one line in the
// timeline's header.
void drawLiveControls(Ui& ui);
// The main view: input (camera, hover, click, drill) and its overlays (toolbar, breadcrumb,
// tooltip); the view itself is composed by the loop into the centre.
void drawViewPanel(Ui& ui, double dt);

// Computes the layout for the window's display size (ImGui's) and the panels shown: a side has
// its space while one of its panels (PanelDraw::side) is shown.
Layout layoutFor(glm::vec2 display, glm::vec2 fb_scale, float ui_scale, const explore::Settings& settings);

}  // namespace memcity::app
