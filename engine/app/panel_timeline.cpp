// The timeline: live and reachable bytes over time, GC pauses and ticks, the suspicious windows
// as bands, the cursor; drag to scrub (fractional time: the views tween), shift-drag to select a
// range of GCs (the inspector's base GC, and the series' window on request); play, pause, step.
#include <imgui.h>

#include <algorithm>
#include <cmath>
#include <cstdio>

#include "app/ui.h"
#include "scene/estimates.h"
#include "scene/palette.h"
#include "scene/timeline_scene.h"

namespace memcity::app {
namespace {

constexpr ImGuiWindowFlags kPanel = ImGuiWindowFlags_NoDecoration | ImGuiWindowFlags_NoMove |
                                    ImGuiWindowFlags_NoSavedSettings | ImGuiWindowFlags_NoBringToFrontOnFocus;

void controls(Ui& ui) {
    explore::Session& s = ui.session;
    scene::TimeCursor& c = s.cursor();
    if (ImGui::SmallButton("|<")) c.seek(0.0);
    ImGui::SameLine();
    if (ImGui::SmallButton("<")) c.stepPrevious();
    ImGui::SameLine();
    if (ImGui::SmallButton(c.playing() ? "pause" : "play")) c.togglePlay();
    ImGui::SameLine();
    if (ImGui::SmallButton(">")) c.stepNext();
    ImGui::SameLine();
    if (ImGui::SmallButton(">|")) c.seek(c.maxT());
    ImGui::SameLine();
    float speed = static_cast<float>(c.speed());
    ImGui::SetNextItemWidth(110.0f * ui.layout.ui_scale);
    if (ImGui::SliderFloat("##speed", &speed, 0.25f, 20.0f, "%.2f GC/s", ImGuiSliderFlags_Logarithmic))
        c.setSpeed(speed);
    ImGui::SameLine();
    const double gc_time = c.gcTime();
    const uint32_t before = c.gcBefore(), after = c.gcAfter();
    if (c.fraction() > 0.0 && after != before)
        ImGui::Text("GC %u -> %u (%.2f)", before, after, gc_time);
    else
        ImGui::Text("GC %u", before);
    const std::vector<GcRecord>& gcs = s.gcs();
    if (before < gcs.size()) {
        ImGui::SameLine();
        const GcRecord& r = gcs[before];
        if (s.sampled())
            ImGui::TextDisabled("live %s, pause %.2f ms",
                                scene::estimateText(r.live_sampled, Metric::kBytes).c_str(),
                                static_cast<double>(r.pause_ns) / 1e6);
        else
            ImGui::TextDisabled("live %s, pause %.2f ms",
                                scene::formatAxisBytes(static_cast<double>(r.live_bytes)).c_str(),
                                static_cast<double>(r.pause_ns) / 1e6);
    }
    ImGui::SameLine();
    ImGui::TextDisabled("|");
    ImGui::SameLine();
    if (const auto& range = s.range()) {
        ImGui::Text("range GC %u..%u", range->from, range->to);
        ImGui::SameLine();
        if (ImGui::SmallButton("series over range")) {
            if (Status st = s.seriesOverRange(); !st) ui.say(st.error().message);
        }
        ImGui::SameLine();
        if (ImGui::SmallButton("clear")) s.setRange(std::nullopt);
        ImGui::SameLine();
        bool churn = s.churnShown();
        if (ImGui::Checkbox("churn", &churn)) {
            if (Status st = s.showChurn(churn); !st) ui.say(st.error().message);
        }
        if (ImGui::IsItemHovered())
            ImGui::SetTooltip(
                "the range's short-lived objects instead of the heap: born after GC %u, dead by "
                "the cursor's GC",
                range->from);
        // The suspicious windows of this range: each one's next step (the diff or the churn over
        // it) is one click.
        const std::vector<Window>& all = s.windows();
        for (size_t i = 0; i < all.size(); ++i) {
            const Window& w = all[i];
            // The window's own range (a double-click on its band), or its next step's.
            if (w.last_gc != range->to || (w.first_gc != range->from && nextStepFrom(w) != range->from))
                continue;
            ImGui::SameLine();
            ImGui::PushID(static_cast<int>(i));
            const bool churn_window = w.kind == WindowKind::kChurn;
            const std::string label = std::string("next (") + std::string(windowKindName(w.kind)) +
                                      "): " + (churn_window ? "churn" : "diff");
            if (ImGui::SmallButton(label.c_str())) {
                if (Status st = s.windowNext(i); !st) ui.say(st.error().message);
            }
            if (ImGui::IsItemHovered())
                ImGui::SetTooltip(churn_window
                                      ? "what died young in the window, by cause"
                                      : "born / died / permanent since the window's start, at its last GC");
            ImGui::PopID();
        }
    } else {
        ImGui::TextDisabled("shift-drag selects a range, double-click a window's band picks it");
    }
    // Where playback stops by itself (GCspy's event filters).
    ImGui::SameLine();
    ImGui::TextDisabled("| stop at");
    explore::PlayStops stops = s.playStops();
    ImGui::SameLine();
    ImGui::Checkbox("full GC", &stops.full_gc);
    ImGui::SameLine();
    ImGui::Checkbox("window", &stops.window_start);
    ImGui::SameLine();
    bool grows = stops.grows_over > 0;
    if (ImGui::Checkbox("selection grows >", &grows)) stops.grows_over = grows ? 64 * 1024 : 0;
    if (grows) {
        ImGui::SameLine();
        int kib = static_cast<int>(std::min<uint64_t>(stops.grows_over / 1024, 1u << 30));
        ImGui::SetNextItemWidth(70.0f);
        if (ImGui::InputInt("KiB##grows", &kib, 0, 0))
            stops.grows_over = static_cast<uint64_t>(std::max(kib, 1)) * 1024;
    }
    if (!(stops == s.playStops())) s.setPlayStops(stops);
    drawLiveControls(ui);
}

void drawTimelinePanel(Ui& ui, const PanelFrame& panel_frame) {
    if (!ui.settings.panels.timeline || ui.layout.bottom.empty()) return;
    render::DrawList& frame = *panel_frame.draw_list;
    explore::Session& s = ui.session;
    const scene::PixelRect& b = ui.layout.bottom;
    frame.rects.push_back({b.min * ui.layout.fb_scale, b.max * ui.layout.fb_scale, scene::palette::kPanel, 0,
                           render::kFlagNone});
    ImGui::SetNextWindowPos(ImVec2(b.min.x, b.min.y));
    ImGui::SetNextWindowSize(ImVec2(b.width(), b.height()));
    ImGui::Begin("##timeline", nullptr, kPanel | ImGuiWindowFlags_NoBackground);
    controls(ui);
    const ImVec2 at = ImGui::GetCursorScreenPos();
    const ImVec2 avail = ImGui::GetContentRegionAvail();
    if (avail.x < 10.0f || avail.y < 10.0f || s.gcs().empty()) {
        ImGui::End();
        return;
    }
    ImGui::InvisibleButton("##plot", avail,
                           ImGuiButtonFlags_MouseButtonLeft | ImGuiButtonFlags_MouseButtonRight);
    const scene::PixelRect plot{glm::vec2(at.x, at.y) * ui.layout.fb_scale,
                                glm::vec2(at.x + avail.x, at.y + avail.y) * ui.layout.fb_scale};
    scene::TimelineLayoutOptions lo;
    lo.axis_label_size_px = 11.0f * ui.layout.fb_scale.y;
    lo.estimates = s.sampled();
    const scene::TimelineLayout layout = scene::layoutTimeline(s.gcs(), plot, lo);

    // Scrub by dragging; with shift, select a range.
    static std::optional<double> range_anchor;
    const ImGuiIO& io = ImGui::GetIO();
    const float mouse_x = io.MousePos.x * ui.layout.fb_scale.x;
    const double gc_at_mouse = scene::timelineGcAt(layout, mouse_x);
    if (ImGui::IsItemActive()) {
        if (io.KeyShift || range_anchor) {
            if (!range_anchor) range_anchor = gc_at_mouse;
            const auto a = static_cast<uint32_t>(std::lround(*range_anchor)),
                       z = static_cast<uint32_t>(std::lround(gc_at_mouse));
            s.setRange(explore::GcRange{std::min(a, z), std::max(a, z)});
        } else if (s.series()) {
            s.cursor().pause();
            s.cursor().seek(s.cursor().indexTimeOf(gc_at_mouse));
        }
    } else {
        range_anchor.reset();
    }
    if (ImGui::IsItemHovered() && ImGui::IsMouseReleased(ImGuiMouseButton_Right)) s.togglePin(gc_at_mouse);
    // A double-click on a window's band: its range, and the series over it.
    if (ImGui::IsItemHovered() && ImGui::IsMouseDoubleClicked(ImGuiMouseButton_Left)) {
        const std::vector<Window>& all = s.windows();
        for (size_t i = 0; i < all.size(); ++i)
            if (gc_at_mouse >= static_cast<double>(all[i].first_gc) - 0.5 &&
                gc_at_mouse <= static_cast<double>(all[i].last_gc) + 0.5) {
                if (Status st = s.selectWindow(i); !st) ui.say(st.error().message);
                break;
            }
    }
    if (ImGui::IsItemHovered() && !ImGui::IsItemActive()) {
        const auto g = static_cast<size_t>(
            std::clamp(std::lround(gc_at_mouse), 0l, static_cast<long>(s.gcs().size() - 1)));
        const GcRecord& r = s.gcs()[g];
        ImGui::BeginTooltip();
        ImGui::Text("GC %zu at %s", g, scene::formatAxisSeconds(static_cast<double>(r.end_ns)).c_str());
        if (s.sampled()) {
            ImGui::Text("live %s", scene::estimateText(r.live_sampled, Metric::kBytes).c_str());
            ImGui::Text("%s", scene::estimateText(r.live_sampled, Metric::kObjects).c_str());
            ImGui::TextDisabled("from %s", scene::samplesText(r.live_sampled.samples).c_str());
            // Reachable bytes are exact at a snapshot (the heap made whole there), said below.
            if (!r.has_snapshot && scene::snapshotGcsText(s.gcs()).empty())
                ImGui::TextDisabled("reachable: n/a (%.*s)",
                                    static_cast<int>(scene::kNoSnapshotsReason.size()),
                                    scene::kNoSnapshotsReason.data());
            else if (!r.has_snapshot)
                ImGui::TextDisabled("reachable: n/a (no reference snapshot at this GC)");
        } else {
            ImGui::Text("live %s (%llu objects)",
                        scene::formatAxisBytes(static_cast<double>(r.live_bytes)).c_str(),
                        static_cast<unsigned long long>(r.live_objects));
        }
        if (r.has_snapshot)
            ImGui::Text("reachable %s%s",
                        scene::formatAxisBytes(static_cast<double>(r.reachable_bytes)).c_str(),
                        s.sampled() ? " (exact: its snapshot)" : "");
        ImGui::Text("pause %.2f ms", static_cast<double>(r.pause_ns) / 1e6);
        ImGui::TextDisabled("right-click: pin / unpin (the trees view)");
        for (const Window& w : s.windows())
            if (g >= w.first_gc && g <= w.last_gc)
                ImGui::TextColored(ImVec4(0.95f, 0.6f, 0.3f, 1.0f), "%s: %s",
                                   std::string(windowKindName(w.kind)).c_str(), w.reason.c_str());
        ImGui::EndTooltip();
    }
    ImGui::End();

    scene::TimelineSceneOptions so;
    so.t = s.series() ? s.cursor().gcTime() : static_cast<double>(s.gcs().size() - 1);
    so.cursor = s.series() != nullptr;
    if (const auto& range = s.range()) {
        so.range_from = range->from;
        so.range_to = range->to;
    }
    so.pins = s.pins();
    so.pin_label_px = 10.0f * ui.layout.fb_scale.y;
    scene::buildTimelineScene(layout, s.gcs(), s.windows(), so, frame);
}

}  // namespace

const PanelDraw kTimelinePanel = {"timeline", PanelSide::kBottom, &drawTimelinePanel};

}  // namespace memcity::app
