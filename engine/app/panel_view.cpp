// The main view: the city, sunburst or icicle the loop composes into the centre, and here its
// input (camera, hover, click to select, drill-down), its toolbar, breadcrumb and tooltip, and
// the keys that work anywhere (time steps, play, frame, screenshot).
#include <imgui.h>

#include <algorithm>
#include <cmath>
#include <cstdio>

#include "app/platform.h"
#include "app/ui.h"
#include "scene/estimates.h"
#include "scene/heap_map_scene.h"
#include "scene/timeline_scene.h"
#include "util/units.h"

namespace memcity::app {
namespace {

constexpr ImGuiWindowFlags kOverlay = ImGuiWindowFlags_NoDecoration | ImGuiWindowFlags_NoMove |
                                      ImGuiWindowFlags_NoSavedSettings | ImGuiWindowFlags_NoFocusOnAppearing;

std::string formatSigned(double bytes) {
    return (bytes < 0 ? "-" : "+") + scene::formatAxisBytes(std::fabs(bytes));
}

void keys(Ui& ui) {
    const ImGuiIO& io = ImGui::GetIO();
    if (io.WantTextInput) return;
    explore::Session& s = ui.session;
    scene::TimeCursor& c = s.cursor();
    if (ImGui::IsKeyPressed(keyIndex(Key::kRight))) c.stepNext();
    if (ImGui::IsKeyPressed(keyIndex(Key::kLeft))) c.stepPrevious();
    if (ImGui::IsKeyPressed(keyIndex(Key::kHome), false)) c.seek(0.0);
    if (ImGui::IsKeyPressed(keyIndex(Key::kEnd), false)) c.seek(c.maxT());
    if (ImGui::IsKeyPressed(keyIndex(Key::kSpace), false)) c.togglePlay();
    if (ImGui::IsKeyPressed(keyIndex(Key::kF12), false)) ui.want_screenshot = true;
    if (ImGui::IsKeyPressed(keyIndex(Key::kEscape), false)) s.clearSelection();
    if (ImGui::IsKeyPressed(keyIndex(Key::kBackspace), false)) s.drillUp();
    if (ImGui::IsKeyPressed(keyIndex(Key::kF), false) && !s.frameSelection())
        ui.say("F frames the selected buildings of the city: select one first");
    if (io.KeyCtrl && ImGui::IsKeyPressed(keyIndex(Key::kQ), false)) ui.want_quit = true;
}

// Fly mode: WASD / QE move the eye, shift four times faster (world units per second scale
// with the city).
void fly(Ui& ui, double dt) {
    const ImGuiIO& io = ImGui::GetIO();
    scene::OrbitCamera* cam = ui.session.camera();
    if (!cam || io.WantTextInput || io.KeyCtrl) return;
    const scene::Bounds b = ui.session.cityBounds();
    const float size = std::max(glm::length(b.size()), 1.0f);
    const float speed =
        size * 0.25f * ui.settings.camera_speed * (io.KeyShift ? 4.0f : 1.0f) * static_cast<float>(dt);
    auto axis = [](int plus, int minus) {
        return (ImGui::IsKeyDown(plus) ? 1.0f : 0.0f) - (ImGui::IsKeyDown(minus) ? 1.0f : 0.0f);
    };
    const float f = axis(keyIndex(Key::kW), keyIndex(Key::kS)),
                r = axis(keyIndex(Key::kD), keyIndex(Key::kA)),
                u = axis(keyIndex(Key::kE), keyIndex(Key::kQ));
    if (f != 0.0f || r != 0.0f || u != 0.0f) {
        cam->fly(r * speed, u * speed, f * speed);
        cam->fitClipPlanes(b);
    }
}

// The heap map's toolbar: the stream, the tile size (magnification), the history graph's space.
void heapMapControls(Ui& ui) {
    explore::Session& s = ui.session;
    explore::HeapMapModel& m = s.heapMap();
    // A sampled recording has no addresses: the object streams are greyed out, saying why.
    const bool sampled = s.sampled();
    for (int i = 0; i < scene::kHeapStreamCount; ++i) {
        const auto stream = static_cast<scene::HeapStream>(i);
        if (i) ImGui::SameLine();
        const std::string_view unavailable = explore::HeapMapModel::streamUnavailable(stream, sampled);
        ImGui::BeginDisabled(!unavailable.empty());
        const bool shown = sampled ? stream == scene::HeapStream::kUsed : m.stream() == stream;
        if (ImGui::RadioButton(scene::heapStreamName(stream).data(), shown)) m.setStream(stream);
        ImGui::EndDisabled();
        if (!unavailable.empty() && ImGui::IsItemHovered(ImGuiHoveredFlags_AllowWhenDisabled))
            ImGui::SetTooltip("not available: %.*s", static_cast<int>(unavailable.size()),
                              unavailable.data());
        else if (stream == scene::HeapStream::kSelected && ImGui::IsItemHovered())
            ImGui::SetTooltip(
                "the selected groups' share of each tile (select groups anywhere, or click a tile)");
    }
    ImGui::SameLine();
    ImGui::TextDisabled("| tile");
    ImGui::SameLine();
    if (ImGui::SmallButton("-")) m.setZoom(m.zoom() + 1);
    if (ImGui::IsItemHovered()) ImGui::SetTooltip("smaller tiles: magnify");
    ImGui::SameLine();
    const uint64_t tile = m.tileBytes();
    ImGui::TextUnformatted(tile ? formatBytes(tile).c_str() : "?");
    ImGui::SameLine();
    if (ImGui::SmallButton("+")) m.setZoom(m.zoom() - 1);
    if (ImGui::IsItemHovered()) ImGui::SetTooltip("larger tiles: more of the heap on the screen");
    const HeapHistory* h = s.history();
    if (!h) return;
    ImGui::SameLine();
    ImGui::TextDisabled("|");
    ImGui::SameLine();
    ImGui::SetNextItemWidth(ImGui::GetFontSize() * 8.0f);
    const std::string& space = m.historySpace();
    if (ImGui::BeginCombo("##space", space.empty() ? "largest space" : space.c_str())) {
        if (ImGui::Selectable("largest space", space.empty())) m.setHistorySpace("");
        for (const std::string& name : m.spaceNames(*h))
            if (ImGui::Selectable(name.c_str(), name == space)) m.setHistorySpace(name);
        ImGui::EndCombo();
    }
    if (ImGui::IsItemHovered()) ImGui::SetTooltip("the space the history graph shows");
    if (sampled)
        ImGui::TextDisabled("the spaces' tops only: %.*s", static_cast<int>(scene::kNoAddressesReason.size()),
                            scene::kNoAddressesReason.data());
}

void tileTooltip(Ui& ui, const scene::HeapTilePick& pick) {
    const HeapHistory* h = ui.session.history();
    if (!h) return;
    const auto info = ui.session.heapMap().describe(pick, h->trace().symbols());
    if (!info) return;
    const HeapTile& t = info->tile;
    const double size = static_cast<double>(info->to - info->from);
    ImGui::BeginTooltip();
    char range[96];
    std::snprintf(range, sizeof range, "0x%llx - 0x%llx", static_cast<unsigned long long>(info->from),
                  static_cast<unsigned long long>(info->to));
    ImGui::Text("%s  %s (%s), GC %u", info->space.c_str(), range, formatBytes(info->to - info->from).c_str(),
                info->gc);
    ImGui::Separator();
    if (!info->addresses) {
        if (ui.session.sampled())
            ImGui::Text("the space's top only: %.*s", static_cast<int>(scene::kNoAddressesReason.size()),
                        scene::kNoAddressesReason.data());
        else
            ImGui::TextUnformatted("no addresses at this GC: the space's top only");
        ImGui::Text("%s used", formatBytes(t.bytes).c_str());
        ImGui::EndTooltip();
        return;
    }
    ImGui::Text("%s objects start here; %s of objects (%.0f%%)", formatCount(t.objects).c_str(),
                formatBytes(t.bytes).c_str(), size > 0 ? 100.0 * static_cast<double>(t.bytes) / size : 0.0);
    if (t.bytes)
        ImGui::Text("age: %.1f GCs lived through, on average",
                    static_cast<double>(t.age_bytes) / static_cast<double>(t.bytes));
    if (t.selected_bytes)
        ImGui::Text("selected: %s (%.0f%%)", formatBytes(t.selected_bytes).c_str(),
                    100.0 * static_cast<double>(t.selected_bytes) / static_cast<double>(t.bytes));
    if (ui.session.heapMap().stream() == scene::HeapStream::kDying && t.bytes)
        ImGui::Text("dies at the next GC: %s (%.0f%%)", formatBytes(t.dying_bytes).c_str(),
                    100.0 * static_cast<double>(t.dying_bytes) / static_cast<double>(t.bytes));
    const auto& types = info->contents.types;
    if (!types.empty()) {
        ImGui::Separator();
        const size_t shown = std::min<size_t>(types.size(), 6);
        if (ImGui::BeginTable("##types", 3, ImGuiTableFlags_SizingFixedFit)) {
            for (size_t i = 0; i < shown; ++i) {
                ImGui::TableNextRow();
                ImGui::TableNextColumn();
                ImGui::TextUnformatted(info->type_names[i].c_str());
                ImGui::TableNextColumn();
                ImGui::TextDisabled("%s", formatCount(types[i].objects).c_str());
                ImGui::TableNextColumn();
                ImGui::TextUnformatted(formatBytes(types[i].bytes).c_str());
            }
            ImGui::EndTable();
        }
        if (types.size() > shown) ImGui::TextDisabled("and %zu more types", types.size() - shown);
    }
    ImGui::TextDisabled("click: select its groups, shift-click: add them");
    ImGui::EndTooltip();
}

void toolbar(Ui& ui) {
    explore::Session& s = ui.session;
    const scene::PixelRect& c = ui.layout.center;
    ImGui::SetNextWindowPos(ImVec2(c.max.x - 8.0f, c.min.y + 8.0f), 0, ImVec2(1.0f, 0.0f));
    ImGui::SetNextWindowBgAlpha(0.75f);
    ImGui::Begin("##viewbar", nullptr, kOverlay | ImGuiWindowFlags_AlwaysAutoResize);
    bool first = true;
    for (const scene::ViewInfo& v : scene::viewTable()) {
        if (!v.window) continue;
        if (!first) ImGui::SameLine();
        first = false;
        if (ImGui::RadioButton(std::string(v.label).c_str(), s.view() == v.kind)) s.setView(v.kind);
        if (!v.tooltip.empty() && ImGui::IsItemHovered())
            ImGui::SetTooltip("%s", std::string(v.tooltip).c_str());
    }
    if (s.view() == scene::ViewKind::kHeapMap) {
        heapMapControls(ui);
    } else if (const auto& churn = s.churnWindow()) {
        ImGui::SameLine();
        ImGui::TextColored(ImVec4(0.95f, 0.6f, 0.3f, 1.0f), "| churn: died young after GC %u", churn->from);
        if (ImGui::IsItemHovered())
            ImGui::SetTooltip(
                "the objects born after GC %u and dead by the cursor's GC (the timeline's churn box)",
                churn->from);
    } else if (s.view() != scene::ViewKind::kTimelineTrees) {
        ImGui::SameLine();
        bool diff = s.diffShown();
        if (ImGui::Checkbox("diff", &diff)) s.showDiff(diff);
        if (ImGui::IsItemHovered())
            ImGui::SetTooltip(
                "colour by born / died / permanent since GC %u (the range's start), as the "
                "table's columns%s",
                s.baseGc(), s.sampled() ? " (estimates, \u2248)" : "");
    }
    if (s.view() == scene::ViewKind::kHeapMap) {
        // The bands start below the toolbar.
        const float bottom = ImGui::GetWindowPos().y + ImGui::GetWindowSize().y - c.min.y;
        s.heapMap().setTopInset(std::round(bottom * ui.layout.fb_scale.y));
    } else if (s.view() == scene::ViewKind::kCity) {
        ImGui::SameLine();
        ImGui::TextDisabled("|");
        for (const char* preset : {"overview", "top", "front", "street"}) {
            ImGui::SameLine();
            if (ImGui::SmallButton(preset)) {
                if (Status st = s.resetCamera(preset); !st) ui.say(st.error().message);
            }
        }
        ImGui::SameLine();
        ImGui::TextDisabled("|");
        ImGui::SameLine();
        bool fly_mode = ui.camera_mode == CameraMode::kFly;
        if (ImGui::Checkbox("fly (WASD)", &fly_mode))
            ui.camera_mode = fly_mode ? CameraMode::kFly : CameraMode::kOrbit;
    } else if (s.view() == scene::ViewKind::kTimelineTrees) {
        ImGui::SameLine();
        bool cities = s.treesCities();
        if (ImGui::Checkbox("cities", &cities)) s.setTreesCities(cities);
        if (ImGui::IsItemHovered())
            ImGui::SetTooltip(
                "the pinned GCs as small cities on one layout: a lot stands at the same place in each");
        if (!cities) {
            ImGui::SameLine();
            bool scaled = s.scaled();
            if (ImGui::Checkbox("scaled", &scaled)) s.setScaled(scaled);
        }
        ImGui::SameLine();
        ImGui::TextDisabled("| %zu pinned (right-click the timeline)", s.pins().size());
    } else {
        ImGui::SameLine();
        bool scaled = s.scaled();
        if (ImGui::Checkbox("scaled", &scaled)) s.setScaled(scaled);
        if (ImGui::IsItemHovered()) ImGui::SetTooltip("the chart's extent follows the heap's size over time");
        ImGui::SameLine();
        ImGui::TextDisabled("|");
        ImGui::SameLine();
        // The breadcrumb: the drill-down path, each step a way back up.
        const std::vector<uint32_t> trail = s.drillTrail();
        for (size_t i = 0; i < trail.size(); ++i) {
            const uint32_t id = trail[i];
            std::string label = id == TreeSeries::kRoot ? "Overall" : s.series()->label(id);
            if (label.size() > 40) label = label.substr(0, 38) + "..";
            ImGui::PushID(static_cast<int>(i));
            if (i) {
                ImGui::SameLine(0.0f, 2.0f);
                ImGui::TextDisabled(">");
                ImGui::SameLine(0.0f, 2.0f);
            }
            if (ImGui::SmallButton(label.c_str())) s.drill(id);
            ImGui::PopID();
        }
    }
    ImGui::End();
}

void tooltip(Ui& ui, uint32_t id) {
    const explore::ItemInfo info = ui.session.describe(id);
    if (info.name.empty()) return;
    ImGui::BeginTooltip();
    ImGui::PushTextWrapPos(ImGui::GetFontSize() * 32.0f);
    ImGui::TextUnformatted(info.name.c_str());
    ImGui::PopTextWrapPos();
    ImGui::Separator();
    const bool bytes = ui.session.chain().metric == Metric::kBytes;
    if (info.sampled) {
        // Estimates, each with its interval, and what they rest on.
        ImGui::TextUnformatted(scene::estimateText(*info.sampled, Metric::kObjects).c_str());
        ImGui::TextUnformatted(scene::estimateText(*info.sampled, Metric::kBytes).c_str());
        ImGui::TextDisabled("from %s (%d%% intervals)", scene::samplesText(info.sampled->samples).c_str(),
                            static_cast<int>(kConfidence * 100));
        if (bytes)
            ImGui::Text("growth \u2248 %s over the trend window", formatSigned(info.growth).c_str());
        else
            ImGui::Text("growth \u2248 %+.0f objects over the trend window", info.growth);
    } else {
        ImGui::Text("%.0f objects, %s", info.objects, scene::formatAxisBytes(info.bytes).c_str());
        if (bytes)
            ImGui::Text("growth %s over the trend window", formatSigned(info.growth).c_str());
        else
            ImGui::Text("growth %+.0f objects over the trend window", info.growth);
    }
    ImGui::TextDisabled(info.district ? "click: select the district" : "click: select, shift-click: add");
    ImGui::EndTooltip();
}

}  // namespace

void drawViewPanel(Ui& ui, double dt) {
    explore::Session& s = ui.session;
    keys(ui);
    const scene::PixelRect& c = ui.layout.center;
    if (c.empty()) return;
    ImGui::SetNextWindowPos(ImVec2(c.min.x, c.min.y));
    ImGui::SetNextWindowSize(ImVec2(c.width(), c.height()));
    ImGui::PushStyleVar(ImGuiStyleVar_WindowPadding, ImVec2(0.0f, 0.0f));
    ImGui::Begin("##view", nullptr,
                 kOverlay | ImGuiWindowFlags_NoBackground | ImGuiWindowFlags_NoBringToFrontOnFocus);
    ImGui::InvisibleButton("##canvas", ImVec2(c.width(), c.height()),
                           ImGuiButtonFlags_MouseButtonLeft | ImGuiButtonFlags_MouseButtonRight |
                               ImGuiButtonFlags_MouseButtonMiddle);
    const ImGuiIO& io = ImGui::GetIO();
    const bool hovered = ImGui::IsItemHovered();
    const glm::vec2 mouse_px = glm::vec2(io.MousePos.x, io.MousePos.y) * ui.layout.fb_scale;
    scene::OrbitCamera* cam = s.camera();
    const float turn = 0.006f;
    if (cam && ImGui::IsItemActive()) {
        const glm::vec2 d(io.MouseDelta.x, io.MouseDelta.y);
        const bool look = ImGui::IsMouseDown(ImGuiMouseButton_Right);
        if (ui.camera_mode == CameraMode::kFly && look) {
            cam->look(d.x * turn * 0.5f, -d.y * turn * 0.5f);
        } else if (ui.camera_mode == CameraMode::kOrbit && ImGui::IsMouseDown(ImGuiMouseButton_Left)) {
            cam->orbit(-d.x * turn, d.y * turn);
        } else if (look || ImGui::IsMouseDown(ImGuiMouseButton_Middle)) {
            const float k = cam->distance * 0.0015f;
            cam->pan(-d.x * k, d.y * k);
        }
        cam->fitClipPlanes(s.cityBounds());
    }
    if (cam && hovered && io.MouseWheel != 0.0f) {
        if (ui.camera_mode == CameraMode::kFly)
            cam->fly(0.0f, 0.0f, io.MouseWheel * std::max(glm::length(s.cityBounds().size()), 1.0f) * 0.02f);
        else
            cam->dolly(std::pow(0.88f, io.MouseWheel));
        cam->fitClipPlanes(s.cityBounds());
    }
    if (ui.camera_mode == CameraMode::kFly) fly(ui, dt);

    // Hover and click. A press and release without dragging is a click.
    const std::optional<scene::ViewPick> pick = hovered ? s.pick(mouse_px) : std::nullopt;
    s.setHovered(pick ? pick->id : scene::kNoPick);
    const ImVec2 drag = ImGui::GetMouseDragDelta(ImGuiMouseButton_Left, 0.0f);
    const bool click =
        hovered && ImGui::IsMouseReleased(ImGuiMouseButton_Left) && drag.x * drag.x + drag.y * drag.y < 16.0f;
    const std::optional<scene::HeapTilePick> tile = hovered ? s.heapTileAt(mouse_px) : std::nullopt;
    s.heapMap().setHovered(tile);
    if (s.view() == scene::ViewKind::kHeapMap) {
        if (click && tile) {
            s.selectTile(*tile, io.KeyShift);
        } else if (click && !io.KeyShift) {
            s.clearSelection();
        }
        if (tile && !ImGui::IsItemActive()) tileTooltip(ui, *tile);
    } else if (click) {
        if (!pick) {
            if (!io.KeyShift) s.clearSelection();
        } else if (s.view() == scene::ViewKind::kTimelineTrees) {  // the group, at that tree's GC
            s.select(pick->id, io.KeyShift);
            s.cursor().pause();
            s.cursor().seekGc(pick->tree_gc);
        } else if (s.view() == scene::ViewKind::kCity) {
            s.select(pick->id, io.KeyShift);
        } else if (pick->drill_root) {
            s.drillUp();
            s.select(s.drillRoot(), io.KeyShift);
        } else {
            s.select(pick->id, io.KeyShift);
            if (!io.KeyShift) s.drill(pick->id);
        }
    }
    if (hovered && ImGui::IsMouseDoubleClicked(ImGuiMouseButton_Left) && pick &&
        s.view() == scene::ViewKind::kCity)
        s.frameSelection();
    if (pick && !ImGui::IsItemActive()) tooltip(ui, pick->id);
    ImGui::End();
    ImGui::PopStyleVar();

    if (s.view() == scene::ViewKind::kHeapMap && s.series() && !s.loaded()) {
        ImGui::SetNextWindowPos(ImVec2(c.center().x, c.center().y), 0, ImVec2(0.5f, 0.5f));
        ImGui::Begin("##waiting", nullptr, kOverlay | ImGuiWindowFlags_AlwaysAutoResize);
        ImGui::Text("the heap map waits for %s to load ... %u GCs", s.path().c_str(), s.load().gcs);
        ImGui::End();
    }
    if (!s.series()) {
        const explore::LoadProgress& load = s.load();
        ImGui::SetNextWindowPos(ImVec2(c.center().x, c.center().y), 0, ImVec2(0.5f, 0.5f));
        ImGui::Begin("##waiting", nullptr, kOverlay | ImGuiWindowFlags_AlwaysAutoResize);
        if (load.phase == explore::LoadPhase::kFailed)
            ImGui::TextColored(ImVec4(1.0f, 0.45f, 0.35f, 1.0f), "%s", load.error.c_str());
        else if (!s.seriesError().empty())
            ImGui::TextColored(ImVec4(1.0f, 0.45f, 0.35f, 1.0f), "%s", s.seriesError().c_str());
        else if (const auto importing = s.importing())
            ImGui::Text("%s", importing->c_str());
        else
            ImGui::Text("loading %s ... %u GCs", s.path().c_str(), load.gcs);
        ImGui::End();
        return;
    }
    toolbar(ui);
}

}  // namespace memcity::app
