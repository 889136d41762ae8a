// The tree table's dominator view (explore/dominator_model.h): the heap's immediate-dominator
// tree at the snapshot GC nearest the cursor, a row per object (or per group of them, MAT's
// "group by"), expanded one level at a time. Clicking a row inspects its objects.
#include <imgui.h>

#include <algorithm>
#include <optional>
#include <string>
#include <vector>

#include "app/ui.h"
#include "scene/timeline_scene.h"

namespace memcity::app {

bool drawDominatorToggle(Ui& ui) {
    explore::Session& s = ui.session;
    const bool on = s.dominatorsShown();
    if (ImGui::RadioButton("groups", !on)) s.showDominators(false);
    ImGui::SameLine();
    if (ImGui::RadioButton("dominators", on)) s.showDominators(true);
    return s.dominatorsShown();
}

void drawDominatorTable(Ui& ui) {
    explore::Session& s = ui.session;
    explore::DominatorModel& m = s.dominators();
    // Group by the chain's first classifier (MAT's "group by class"), or plain objects.
    // (A grouping a script chose stays until unticked.)
    const std::string first = s.chain().classifiers.empty() ? "" : s.chain().classifiers.front();
    bool grouped = m.groupBy().has_value();
    const std::string by = grouped ? *m.groupBy() : first;
    ImGui::SameLine();
    if (!by.empty() && ImGui::Checkbox(("group by " + by).c_str(), &grouped)) {
        if (Status st = m.setGroupBy(grouped ? std::optional<std::string>(by) : std::nullopt); !st)
            ui.say(st.error().message);
    }
    if (const std::string note = m.note(); !note.empty()) ImGui::TextWrapped("%s", note.c_str());
    if (!m.error().empty()) ImGui::TextColored(ImVec4(1.0f, 0.45f, 0.35f, 1.0f), "%s", m.error().c_str());
    if (const auto gc = m.shownGc()) ImGui::TextDisabled("snapshot GC %u, %zu rows", *gc, m.rows().size());
    // A building clicked in the city: the row that holds the most of it, or why there is none.
    if (const std::string& note = m.locateNote(); !note.empty()) ImGui::TextWrapped("%s", note.c_str());

    constexpr ImGuiTableFlags kFlags = ImGuiTableFlags_Resizable | ImGuiTableFlags_ScrollY |
                                       ImGuiTableFlags_ScrollX | ImGuiTableFlags_RowBg |
                                       ImGuiTableFlags_BordersInnerV | ImGuiTableFlags_SizingFixedFit;
    if (!ImGui::BeginTable("##dominators", 6, kFlags)) return;
    ImGui::TableSetupScrollFreeze(1, 1);
    const float name_w = std::max(220.0f * ui.layout.ui_scale,
                                  ImGui::GetContentRegionAvail().x - 5 * 64.0f * ui.layout.ui_scale);
    ImGui::TableSetupColumn("Object", ImGuiTableColumnFlags_WidthFixed | ImGuiTableColumnFlags_NoHide,
                            name_w);
    ImGui::TableSetupColumn("Retained");
    ImGui::TableSetupColumn("Retained objects");
    ImGui::TableSetupColumn("% of reached");
    ImGui::TableSetupColumn("Shallow");
    ImGui::TableSetupColumn("Objects");
    // The headers row by hand, for the percentage's tooltip.
    ImGui::TableNextRow(ImGuiTableRowFlags_Headers);
    for (int c = 0; c < 6; ++c) {
        if (!ImGui::TableSetColumnIndex(c)) continue;
        ImGui::TableHeader(ImGui::TableGetColumnName(c));
        if (c == 3 && ImGui::IsItemHovered())
            ImGui::SetTooltip(
                "retained bytes in %% of the bytes the GC roots reach at this snapshot\n"
                "(as Eclipse MAT's percentages are of the reachable heap); objects no\n"
                "reported root reaches are in no row and count in no percentage");
    }
    // A copy: a click rebuilds the rows.
    const std::vector<explore::DominatorTableRow> rows = m.rows();
    ImGuiListClipper clipper;
    clipper.Begin(static_cast<int>(rows.size()));
    // A building clicked in the city selected a row: bring it into view once.
    int scroll_to = -1;
    if (m.takeScroll())
        for (size_t i = 0; i < rows.size(); ++i)
            if (rows[i].key == m.selected()) scroll_to = static_cast<int>(i);
    if (scroll_to >= 0) clipper.ForceDisplayRangeByIndices(scroll_to, scroll_to + 1);
    while (clipper.Step()) {
        for (int i = clipper.DisplayStart; i < clipper.DisplayEnd; ++i) {
            const explore::DominatorTableRow& row = rows[static_cast<size_t>(i)];
            ImGui::TableNextRow();
            ImGui::TableNextColumn();
            ImGui::PushID(i);
            const float indent = static_cast<float>(row.depth) * ImGui::GetFontSize() * 0.8f;
            if (indent > 0) ImGui::Indent(indent);
            if (row.has_children) {
                if (ImGui::ArrowButton("##x", row.expanded ? ImGuiDir_Down : ImGuiDir_Right))
                    m.toggle(row.key);
            } else {
                ImGui::Dummy(ImVec2(ImGui::GetFrameHeight(), 0.0f));
            }
            ImGui::SameLine();
            if (ImGui::Selectable(
                    row.label.c_str(), row.key == m.selected(),
                    ImGuiSelectableFlags_SpanAllColumns | ImGuiSelectableFlags_AllowItemOverlap) &&
                !row.more) {
                if (Status st = s.selectDominatorRow(row.key); !st) ui.say(st.error().message);
            }
            if (i == scroll_to) ImGui::SetScrollHereY(0.3f);
            if (indent > 0) ImGui::Unindent(indent);
            ImGui::PopID();
            ImGui::TableNextColumn();
            ImGui::TextUnformatted(scene::formatAxisBytes(static_cast<double>(row.retained_bytes)).c_str());
            ImGui::TableNextColumn();
            ImGui::Text("%llu", static_cast<unsigned long long>(row.retained_objects));
            ImGui::TableNextColumn();
            ImGui::Text("%.1f%%", row.heap_share);
            ImGui::TableNextColumn();
            ImGui::TextUnformatted(scene::formatAxisBytes(static_cast<double>(row.shallow_bytes)).c_str());
            ImGui::TableNextColumn();
            ImGui::Text("%llu", static_cast<unsigned long long>(row.objects));
        }
    }
    ImGui::EndTable();
}

}  // namespace memcity::app
