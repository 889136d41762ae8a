// Frame statistics: how long the last frame took (and its composition), the boxes drawn and the
// device, at the right end of the status bar.
#include <imgui.h>

#include <algorithm>
#include <cstdio>

#include "app/ui.h"

namespace memcity::app {
namespace {

void drawStatsPanel(Ui& ui, const PanelFrame& /*frame*/) {
    if (!ui.settings.panels.stats) return;
    const ImGuiViewport* vp = ImGui::GetMainViewport();
    char right[160];
    std::snprintf(right, sizeof right, "%.1f ms/frame (compose %.1f)  %zu boxes  %s", ui.frame_ms,
                  ui.compose_ms, ui.boxes, ui.device.c_str());
    ImGui::SetCursorPosX(std::max(ImGui::GetCursorPosX(), vp->Size.x - ImGui::CalcTextSize(right).x - 12.0f));
    ImGui::TextDisabled("%s", right);
}

}  // namespace

const PanelDraw kStatsPanel = {"stats", PanelSide::kStatusBar, &drawStatsPanel};

}  // namespace memcity::app
