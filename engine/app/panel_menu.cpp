// The window's frame: the layout of the panels, the menu bar and the status bar.
#include <imgui.h>
#include <imgui_stdlib.h>

#include <algorithm>
#include <cstdio>
#include <iterator>
#include <span>

#include "app/platform.h"
#include "app/ui.h"
#include "scene/estimates.h"
#include "scene/timeline_scene.h"

namespace memcity::app {

namespace {

// The panels' drawing, in explore::panelTable()'s order: one entry per line of MEMCITY_PANELS.
constexpr const PanelDraw* kPanelDraws[] = {
#define MEMCITY_PANEL_DRAW(field, Draw, name, key, menu, shown) &k##Draw##Panel,
    MEMCITY_PANELS(MEMCITY_PANEL_DRAW)
#undef MEMCITY_PANEL_DRAW
};

// Whether a panel on `side` is shown.
bool sideShown(const explore::Settings& settings, PanelSide side) {
    const std::span<const explore::PanelInfo> panels = explore::panelTable();
    for (size_t i = 0; i < panels.size() && i < std::size(kPanelDraws); ++i)
        if (kPanelDraws[i]->side == side && settings.panels.*panels[i].shown) return true;
    return false;
}

}  // namespace

std::span<const PanelDraw* const> panelDraws() {
    return kPanelDraws;
}

void drawPanels(Ui& ui, const PanelFrame& frame, std::initializer_list<PanelSide> sides) {
    for (const PanelDraw* panel : kPanelDraws)
        if (std::find(sides.begin(), sides.end(), panel->side) != sides.end()) panel->draw(ui, frame);
}

Layout layoutFor(glm::vec2 display, glm::vec2 fb_scale, float ui_scale, const explore::Settings& settings) {
    Layout l;
    l.fb_scale = fb_scale;
    l.ui_scale = ui_scale;
    l.menu_h = ImGui::GetFrameHeight();
    l.status_h = ImGui::GetFrameHeight() + 2.0f * ImGui::GetStyle().WindowPadding.y * 0.5f;
    const float top = l.menu_h, bottom = std::max(top + 1.0f, display.y - l.status_h);
    const float timeline_h = sideShown(settings, PanelSide::kBottom)
                                 ? std::clamp((bottom - top) * 0.22f, 130.0f * ui_scale, 240.0f * ui_scale)
                                 : 0.0f;
    const float left_w = sideShown(settings, PanelSide::kLeft)
                             ? std::clamp(display.x * 0.24f, 280.0f * ui_scale, 460.0f * ui_scale)
                             : 0.0f;
    const float right_w = sideShown(settings, PanelSide::kRight)
                              ? std::clamp(display.x * 0.25f, 300.0f * ui_scale, 500.0f * ui_scale)
                              : 0.0f;
    const float views_bottom = std::max(top + 1.0f, bottom - timeline_h);
    l.bottom = {{0.0f, views_bottom}, {display.x, bottom}};
    l.left = {{0.0f, top}, {left_w, views_bottom}};
    l.right = {{std::max(left_w, display.x - right_w), top}, {display.x, views_bottom}};
    l.center = {{left_w, top}, {std::max(left_w + 1.0f, l.right.min.x), views_bottom}};
    return l;
}

namespace {

void openDialog(Ui& ui) {
    static std::string path;
    if (ui.want_open_dialog) {
        ImGui::OpenPopup("Open a trace");
        ui.want_open_dialog = false;
        path = ui.session.path();
    }
    if (ImGui::BeginPopupModal("Open a trace", nullptr, ImGuiWindowFlags_AlwaysAutoResize)) {
        ImGui::TextUnformatted(
            "A trace (.mct) or a heap dump (.hprof); you can also drop one on the window.");
        ImGui::SetNextItemWidth(480.0f * ui.layout.ui_scale);
        const bool enter = ImGui::InputText("##path", &path, ImGuiInputTextFlags_EnterReturnsTrue);
        if (ImGui::Button("Open") || enter) {
            ui.session.open(path);
            ui.chain_edit = ui.session.chain();
            explore::addRecentFile(ui.settings, path);
            ImGui::CloseCurrentPopup();
        }
        ImGui::SameLine();
        if (ImGui::Button("Cancel")) ImGui::CloseCurrentPopup();
        ImGui::EndPopup();
    }
}

}  // namespace

void drawMenuBar(Ui& ui) {
    explore::Session& s = ui.session;
    explore::PanelSettings& p = ui.settings.panels;
    if (ImGui::BeginMainMenuBar()) {
        if (ImGui::BeginMenu("File")) {
            if (ImGui::MenuItem("Open...", "Ctrl+O")) ui.want_open_dialog = true;
            if (ImGui::BeginMenu("Recent", !ui.settings.recent_files.empty())) {
                for (const std::string& f : ui.settings.recent_files)
                    if (ImGui::MenuItem(f.c_str())) {
                        const std::string path = f;  // opening reorders the list
                        s.open(path);
                        ui.chain_edit = s.chain();
                        explore::addRecentFile(ui.settings, path);
                        break;
                    }
                ImGui::EndMenu();
            }
            if (ImGui::MenuItem("Screenshot", "F12")) ui.want_screenshot = true;
            ImGui::Separator();
            if (ImGui::MenuItem("Quit", "Ctrl+Q")) ui.want_quit = true;
            ImGui::EndMenu();
        }
        if (ImGui::BeginMenu("View")) {
            for (const scene::ViewInfo& v : scene::viewTable())
                if (v.window && ImGui::MenuItem(std::string(v.name).c_str(), nullptr, s.view() == v.kind))
                    s.setView(v.kind);
            ImGui::Separator();
            for (const explore::PanelInfo& panel : explore::panelTable())
                ImGui::MenuItem(std::string(panel.menu).c_str(), nullptr, &(p.*panel.shown));
            ImGui::Separator();
            ImGui::MenuItem("Vsync (applies at the next start)", nullptr, &ui.settings.vsync);
            ImGui::EndMenu();
        }
        if (ImGui::BeginMenu("Help")) {
            ImGui::TextUnformatted(
                "Timeline: drag to scrub, shift-drag selects a range; Left/Right a GC, Space plays.\n"
                "City, orbit mode: drag turns, right-drag slides, wheel zooms.\n"
                "City, fly mode: WASD moves, Q/E down/up, shift faster, right-drag looks.\n"
                "Click selects (shift-click adds), F frames the selection, Escape clears it.\n"
                "Sunburst and icicle: click drills down, the centre (or Backspace) goes back up.\n"
                "F12 saves a screenshot; drop a .mct file on the window to open it.");
            ImGui::EndMenu();
        }
        ImGui::EndMainMenuBar();
    }
    const ImGuiIO& io = ImGui::GetIO();
    if (io.KeyCtrl && ImGui::IsKeyPressed(keyIndex(Key::kO), false) && !io.WantTextInput)
        ui.want_open_dialog = true;
    openDialog(ui);
}

void drawStatusBar(Ui& ui, const PanelFrame& frame) {
    const explore::Session& s = ui.session;
    const ImGuiViewport* vp = ImGui::GetMainViewport();
    ImGui::SetNextWindowPos(ImVec2(0.0f, vp->Size.y - ui.layout.status_h));
    ImGui::SetNextWindowSize(ImVec2(vp->Size.x, ui.layout.status_h));
    ImGui::PushStyleVar(ImGuiStyleVar_WindowPadding, ImVec2(8.0f, 2.0f));
    ImGui::Begin("##status", nullptr,
                 ImGuiWindowFlags_NoDecoration | ImGuiWindowFlags_NoMove | ImGuiWindowFlags_NoSavedSettings |
                     ImGuiWindowFlags_NoFocusOnAppearing | ImGuiWindowFlags_NoBringToFrontOnFocus);
    const explore::LoadProgress& load = s.load();
    if (load.phase == explore::LoadPhase::kFailed) {
        ImGui::TextColored(ImVec4(1.0f, 0.45f, 0.35f, 1.0f), "%s", load.error.c_str());
    } else if (const auto importing = s.importing()) {
        // A dump: its heap is shown once its objects are written, before its references.
        ImGui::TextColored(ImVec4(0.45f, 0.85f, 0.45f, 1.0f), "%s", importing->c_str());
        ImGui::SameLine();
    } else if (load.live) {
        // The recorder still writes the trace: each GC arrives as its chunks land.
        ImGui::TextColored(ImVec4(0.45f, 0.85f, 0.45f, 1.0f), "live: %s written, %u GCs",
                           scene::formatAxisBytes(static_cast<double>(load.bytes_total)).c_str(), load.gcs);
        ImGui::SameLine();
    } else if (load.phase != explore::LoadPhase::kReady) {
        const float f = load.bytes_total
                            ? static_cast<float>(load.bytes_done) / static_cast<float>(load.bytes_total)
                            : 0.0f;
        char text[96];
        std::snprintf(text, sizeof text, "loading: %s of %s, %u GCs",
                      scene::formatAxisBytes(static_cast<double>(load.bytes_done)).c_str(),
                      scene::formatAxisBytes(static_cast<double>(load.bytes_total)).c_str(), load.gcs);
        ImGui::ProgressBar(f, ImVec2(280.0f * ui.layout.ui_scale, 0.0f), text);
        ImGui::SameLine();
    }
    if (s.series()) {
        // The trace's GCs, not the series' (which may cover a range of them).
        ImGui::Text("GC %u (of 0..%zu)", s.currentGc(), std::max<size_t>(s.gcs().size(), 1) - 1);
        ImGui::SameLine();
    }
    if (s.sampled()) {
        // The whole session is estimated: said where it is always in view.
        ImGui::TextColored(ImVec4(0.55f, 0.8f, 1.0f, 1.0f), "| %s, figures \u2248",
                           scene::samplingBadge(s.samplingInterval()).c_str());
        if (ImGui::IsItemHovered()) {
            ImGui::BeginTooltip();
            ImGui::TextUnformatted(scene::samplingNote(s.samplingInterval()).c_str());
            const std::string snapshots = scene::snapshotGcsText(s.gcs());
            if (snapshots.empty()) {
                ImGui::TextDisabled(
                    "retained and deep sizes, GC roots, paths, classifiers that read references: %.*s",
                    static_cast<int>(scene::kNoSnapshotsReason.size()), scene::kNoSnapshotsReason.data());
            } else {
                ImGui::TextDisabled(
                    "GC roots, paths, what a group's sampled objects retain: the inspector, "
                    "from the snapshots of %s (the heap made whole there)",
                    snapshots.c_str());
                ImGui::TextDisabled("classifiers that read references: %s",
                                    s.referencesUnavailable().c_str());
                ImGui::TextDisabled("the tree table's deep and retained sizes: %s",
                                    s.sizesUnavailable().c_str());
            }
            ImGui::TextDisabled("the heap map's objects: %.*s",
                                static_cast<int>(scene::kNoAddressesReason.size()),
                                scene::kNoAddressesReason.data());
            ImGui::EndTooltip();
        }
        ImGui::SameLine();
    }
    if (s.series()) {
        if (s.recomputing()) {
            ImGui::TextDisabled("| classifying...");
            ImGui::SameLine();
        }
        if (!s.seriesError().empty()) {
            ImGui::TextColored(ImVec4(1.0f, 0.45f, 0.35f, 1.0f), "| %s", s.seriesError().c_str());
            ImGui::SameLine();
        }
    }
    // What the reader noticed (a trace cut off mid-write, anomalies) stays in view; the first
    // note is shown, all of them when the pointer rests on it.
    if (!load.notes.empty()) {
        const std::string more =
            load.notes.size() > 1 ? " (and " + std::to_string(load.notes.size() - 1) + " more)" : "";
        ImGui::TextColored(ImVec4(0.95f, 0.6f, 0.3f, 1.0f), "| %s%s", load.notes.front().c_str(),
                           more.c_str());
        if (ImGui::IsItemHovered()) {
            ImGui::BeginTooltip();
            for (const std::string& note : load.notes)
                ImGui::TextUnformatted(note.c_str());
            ImGui::EndTooltip();
        }
        ImGui::SameLine();
    }
    if (ui.now < ui.status_until) {
        ImGui::TextColored(ImVec4(0.95f, 0.8f, 0.3f, 1.0f), "| %s", ui.status.c_str());
        ImGui::SameLine();
    }
    drawPanels(ui, frame, {PanelSide::kStatusBar});
    ImGui::End();
    ImGui::PopStyleVar();
}

}  // namespace memcity::app
