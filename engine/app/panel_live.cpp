// The live controls, in the timeline's header while the trace's recorder runs with a control
// channel: the program's state (running, pausing at the next GC, paused at GC N and why), pause
// at the next GC, step to the next one, resume, and the conditions that pause it by themselves
// (GCspy's control stream and event filters).
#include <imgui.h>

#include <algorithm>

#include "app/ui.h"
#include "util/units.h"

namespace memcity::app {

void drawLiveControls(Ui& ui) {
    explore::Session& s = ui.session;
    const explore::LiveState live = s.liveState();
    if (!live.connected) return;
    const live::AgentStatus& st = live.status;
    using live::ProgramState;
    const bool paused = st.state == ProgramState::kPaused;
    switch (st.state) {
        case ProgramState::kRunning:
            ImGui::TextColored(ImVec4(0.5f, 0.85f, 0.5f, 1.0f), "program running");
            break;
        case ProgramState::kPausing:
            ImGui::TextColored(ImVec4(0.95f, 0.8f, 0.4f, 1.0f), "pausing at its next GC");
            break;
        case ProgramState::kPaused:
            ImGui::TextColored(ImVec4(0.95f, 0.55f, 0.3f, 1.0f), "%s",
                               s.liveNote().empty() ? ("paused at GC " + std::to_string(st.paused_gc)).c_str()
                                                    : s.liveNote().c_str());
            break;
        case ProgramState::kDetached: ImGui::TextDisabled("recording ended"); return;
    }
    // A reference snapshot (a sampled recording takes none unless asked): at a GC forced for it.
    ImGui::SameLine();
    if (!paused && ImGui::SmallButton("snapshot now")) s.liveRequest({live::Command::kSnapshot, {}, true});
    if (ImGui::IsItemHovered())
        ImGui::SetTooltip(
            "force a GC and walk its heap: references, GC roots and retained sizes at that GC\n"
            "(%llu taken so far%s)",
            static_cast<unsigned long long>(st.snapshots), st.snapshot_asked ? "; one is asked for" : "");
    if (!st.can_pause) {
        ImGui::SameLine();
        ImGui::TextDisabled("(this JVM does not let memcity suspend threads)");
        return;
    }
    ImGui::SameLine();
    if (!paused && st.state != ProgramState::kPausing && ImGui::SmallButton("pause at next GC"))
        s.liveRequest({live::Command::kPause, {}});
    if (paused) {
        if (ImGui::SmallButton("step")) s.liveRequest({live::Command::kStep, {}});
        ImGui::SameLine();
    }
    if ((paused || st.state == ProgramState::kPausing) && ImGui::SmallButton("resume"))
        s.liveRequest({live::Command::kResume, {}});
    if (ImGui::IsItemHovered() && paused) ImGui::SetTooltip("the program's Java threads are suspended");

    // Conditions: applied as they change.
    ImGui::SameLine();
    ImGui::TextDisabled("| pause at:");
    live::PauseConditions when = s.pauseConditions();
    uint64_t grows = s.pauseGrowth();
    // The sizes shown are the ones in force (a script may have set them); the inputs keep theirs
    // while unset.
    if (when.used_above) ui.live_used_mib = static_cast<int>(std::max<uint64_t>(1, when.used_above >> 20));
    if (grows) ui.live_grow_kib = static_cast<int>(std::max<uint64_t>(1, grows >> 10));
    bool changed = false;
    ImGui::SameLine();
    changed |= ImGui::Checkbox("full GCs", &when.full_gc);
    ImGui::SameLine();
    bool used = when.used_above != 0;
    if (ImGui::Checkbox("used >", &used)) {
        when.used_above = used ? static_cast<uint64_t>(std::max(1, ui.live_used_mib)) << 20 : 0;
        changed = true;
    }
    ImGui::SameLine();
    ImGui::SetNextItemWidth(70.0f * ui.layout.ui_scale);
    if (ImGui::InputInt("MiB##used", &ui.live_used_mib, 0) && used) {
        when.used_above = static_cast<uint64_t>(std::max(1, ui.live_used_mib)) << 20;
        changed = true;
    }
    ImGui::SameLine();
    bool watch = grows != 0;
    if (ImGui::Checkbox("selection grows >", &watch)) {
        grows = watch ? static_cast<uint64_t>(std::max(1, ui.live_grow_kib)) << 10 : 0;
        changed = true;
    }
    if (ImGui::IsItemHovered())
        ImGui::SetTooltip(
            "the program stops at every GC while memcity compares the selection with the GC before");
    ImGui::SameLine();
    ImGui::SetNextItemWidth(70.0f * ui.layout.ui_scale);
    if (ImGui::InputInt("KiB##grows", &ui.live_grow_kib, 0) && watch) {
        grows = static_cast<uint64_t>(std::max(1, ui.live_grow_kib)) << 10;
        changed = true;
    }
    if (changed) s.setPauseConditions(when, grows);
    if (!live.error.empty()) {
        ImGui::SameLine();
        ImGui::TextColored(ImVec4(0.95f, 0.4f, 0.4f, 1.0f), "%s", live.error.c_str());
    }
}

}  // namespace memcity::app
