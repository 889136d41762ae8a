// The tree table (as in AntTracks and MAT): name, objects, %, bytes, %, deep, retained, growth;
// sortable by any column, expandable, synced with the selection both ways; copied as CSV / JSON.
// A sampled recording's table shows estimates: "≈" with the 95% interval, a column of the samples
// behind each row, and deep and retained sizes greyed out with the reason.
#include <imgui.h>

#include <algorithm>
#include <cstdio>

#include "app/ui.h"
#include "scene/city_layout.h"
#include "scene/cohorts.h"
#include "scene/estimates.h"
#include "scene/timeline_scene.h"
#include "util/units.h"

namespace memcity::app {
namespace {

std::string bytesText(double b) {
    return scene::formatAxisBytes(b);
}

std::string signedBytes(double b) {
    if (b == 0.0) return "0";
    return (b < 0 ? "-" : "+") + scene::formatAxisBytes(std::abs(b));
}

// Keeps the table on the session's series and options; reveals a selection made elsewhere.
void sync(Ui& ui) {
    explore::Session& s = ui.session;
    const TreeSeries* series = s.series();
    if (!series) {
        ui.table.reset();
        return;
    }
    explore::TreeTableOptions o = ui.table ? ui.table->options() : explore::TreeTableOptions{};
    o.prune = s.chain().prune;
    o.prune_sort = s.chain().sort;
    o.prune_metric = s.chain().metric;
    o.base_time = static_cast<double>(s.baseGc());
    if (!ui.table) {
        ui.table.emplace(*series, o);
    } else {
        if (&ui.table->series() != series) ui.table->setSeries(*series);
        const explore::TreeTableOptions& now = ui.table->options();
        if (now.prune.enabled != o.prune.enabled || now.prune.share != o.prune.share ||
            now.prune.max_children != o.prune.max_children || now.prune_sort != o.prune_sort ||
            now.prune_metric != o.prune_metric || now.base_time != o.base_time)
            ui.table->setOptions(o);
    }
}

// A sampled row's cells: its estimates marked, with their intervals, in the objects and bytes
// columns; shares and growth marked (their intervals are not computed).
void sampledCell(const explore::TableRow& row, explore::TableColumn c) {
    using C = explore::TableColumn;
    const SampleSums& sums = *row.sampled;
    char share[32];
    switch (c) {
        case C::kObjects: {
            // The interval without the word "objects": the column says it.
            std::string text = scene::estimateText(sums, Metric::kObjects);
            if (const size_t at = text.find(" objects"); at != std::string::npos) text.erase(at, 8);
            ImGui::TextUnformatted(text.c_str());
            break;
        }
        case C::kBytes: ImGui::TextUnformatted(scene::estimateText(sums, Metric::kBytes).c_str()); break;
        case C::kObjectsShare:
        case C::kBytesShare:
            std::snprintf(share, sizeof share, "\u2248 %.1f%%",
                          c == C::kObjectsShare ? row.objects_share : row.bytes_share);
            ImGui::TextUnformatted(share);
            break;
        case C::kBytesGrowth:
            ImGui::TextUnformatted(
                row.bytes_growth == 0.0 ? "\u2248 0" : ("\u2248 " + signedBytes(row.bytes_growth)).c_str());
            break;
        case C::kSamples: ImGui::TextUnformatted(formatCount(sums.samples).c_str()); break;
        default: break;
    }
}

void drawTablePanel(Ui& ui, const PanelFrame& /*frame*/) {
    ui.sizes_due = false;
    if (!ui.settings.panels.table || ui.layout.left.empty()) return;
    explore::Session& s = ui.session;
    sync(ui);
    const scene::PixelRect& r = ui.layout.left;
    const float top = ui.settings.panels.chain_editor ? r.min.y + r.height() * 0.42f : r.min.y;
    ImGui::SetNextWindowPos(ImVec2(r.min.x, top));
    ImGui::SetNextWindowSize(ImVec2(r.width(), r.max.y - top));
    ImGui::Begin("Tree", nullptr,
                 ImGuiWindowFlags_NoMove | ImGuiWindowFlags_NoResize | ImGuiWindowFlags_NoCollapse |
                     ImGuiWindowFlags_NoSavedSettings);
    if (drawDominatorToggle(ui)) {
        drawDominatorTable(ui);
        ImGui::End();
        return;
    }
    if (!ui.table) {
        ImGui::TextDisabled("waiting for the first GC...");
        ImGui::End();
        return;
    }
    explore::TreeTable& table = *ui.table;
    // A selection made in a view: open the table down to it (once per new selection).
    const uint32_t first = s.selection().empty() ? UINT32_MAX : s.selection().front();
    bool scroll_to = false;
    if (first != ui.table_revealed) {
        ui.table_revealed = first;
        if (first != UINT32_MAX) {
            table.reveal(first);
            scroll_to = true;
        }
    }
    const scene::SeriesDiff* diff = s.diffShown() ? s.diff().get() : nullptr;
    table.update(
        s.cursor().gcTime(),
        [&s](uint32_t id) -> std::optional<explore::NodeSizes> {
            const auto sizes = s.sizesOf(id);
            if (!sizes) return std::nullopt;
            return explore::NodeSizes{sizes->deep.bytes, sizes->retained.bytes, 0};
        },
        diff);
    if (s.currentGc() != ui.sizes_gc) {
        ui.sizes_gc = s.currentGc();
        ui.sizes_gc_since = ui.now;
    }
    if (s.loaded() && !s.cursor().playing() && s.sizesUnavailable().empty()) {
        const std::vector<uint32_t> missing = table.missingSizes();
        if (ui.now - ui.sizes_gc_since >= Ui::kSizesRest)
            s.requestSizes(missing);
        else
            ui.sizes_due = !missing.empty();
    }

    if (ImGui::SmallButton("copy CSV")) ui.set_clipboard(explore::tableCsv(table.rows()));
    ImGui::SameLine();
    if (ImGui::SmallButton("copy JSON")) ui.set_clipboard(explore::tableJson(table.rows()));
    ImGui::SameLine();
    if (ImGui::SmallButton("collapse")) table.collapseAll();
    ImGui::SameLine();
    ImGui::TextDisabled("%zu rows", table.rows().size());

    constexpr ImGuiTableFlags kFlags = ImGuiTableFlags_Sortable | ImGuiTableFlags_Resizable |
                                       ImGuiTableFlags_ScrollY | ImGuiTableFlags_ScrollX |
                                       ImGuiTableFlags_RowBg | ImGuiTableFlags_BordersInnerV |
                                       ImGuiTableFlags_SizingFixedFit;
    // With the diff shown, its three cohorts take the place of the growth column.
    using C = explore::TableColumn;
    std::vector<C> columns = {C::kName,       C::kObjects,   C::kObjectsShare,  C::kBytes,
                              C::kBytesShare, C::kDeepBytes, C::kRetainedBytes, C::kBytesGrowth};
    if (s.diffShown()) {
        columns.back() = C::kBornBytes;
        columns.push_back(C::kDiedBytes);
        columns.push_back(C::kPermanentBytes);
    }
    const bool sampled = table.series().sampled();
    if (sampled) columns.push_back(C::kSamples);
    const std::string no_sizes = s.sizesUnavailable();
    const char* table_id = s.diffShown() ? (sampled ? "##treediffsampled" : "##treediff")
                                         : (sampled ? "##treesampled" : "##tree");
    if (ImGui::BeginTable(table_id, static_cast<int>(columns.size()), kFlags)) {
        ImGui::TableSetupScrollFreeze(1, 1);
        for (explore::TableColumn c : columns) {
            ImGuiTableColumnFlags f = c == explore::TableColumn::kName
                                          ? ImGuiTableColumnFlags_WidthFixed | ImGuiTableColumnFlags_NoHide
                                          : ImGuiTableColumnFlags_PreferSortDescending;
            if (c == explore::TableColumn::kBytes) f |= ImGuiTableColumnFlags_DefaultSort;
            // The name takes what the numbers leave of the panel (at least 220 units).
            const float name_w =
                std::max(220.0f * ui.layout.ui_scale,
                         ImGui::GetContentRegionAvail().x -
                             static_cast<float>(columns.size() - 1) * 64.0f * ui.layout.ui_scale);
            ImGui::TableSetupColumn(std::string(explore::columnTitle(c)).c_str(), f,
                                    c == explore::TableColumn::kName ? name_w : 0.0f);
        }
        if (!sampled) {
            ImGui::TableHeadersRow();
        } else {
            // The headers one by one, so that each can say what its figures are.
            ImGui::TableNextRow(ImGuiTableRowFlags_Headers);
            for (size_t i = 0; i < columns.size(); ++i) {
                if (!ImGui::TableSetColumnIndex(static_cast<int>(i))) continue;
                ImGui::PushID(static_cast<int>(i));
                ImGui::TableHeader(ImGui::TableGetColumnName(static_cast<int>(i)));
                ImGui::PopID();
                if (!ImGui::IsItemHovered()) continue;
                const C c = columns[i];
                if ((c == C::kDeepBytes || c == C::kRetainedBytes) && !no_sizes.empty())
                    ImGui::SetTooltip("not available: %.*s", static_cast<int>(no_sizes.size()),
                                      no_sizes.data());
                else if (c == C::kSamples)
                    ImGui::SetTooltip("the recorded objects each row's estimates rest on");
                else if (c != C::kName)
                    ImGui::SetTooltip("estimates (\u2248) with their %d%% intervals",
                                      static_cast<int>(kConfidence * 100));
            }
        }
        if (ImGuiTableSortSpecs* specs = ImGui::TableGetSortSpecs(); specs && specs->SpecsDirty) {
            if (specs->SpecsCount > 0) {
                const ImGuiTableColumnSortSpecs& spec = specs->Specs[0];
                table.sortBy(columns[static_cast<size_t>(spec.ColumnIndex)],
                             spec.SortDirection == ImGuiSortDirection_Descending);
            }
            specs->SpecsDirty = false;
        }
        const std::vector<explore::TableRow>& rows = table.rows();
        const std::optional<size_t> found = scroll_to ? table.rowOf(table.reveal(first)) : std::nullopt;
        const size_t target = found.value_or(SIZE_MAX);
        ImGuiListClipper clipper;
        clipper.Begin(static_cast<int>(rows.size()));
        if (target != SIZE_MAX)
            clipper.ForceDisplayRangeByIndices(static_cast<int>(target), static_cast<int>(target) + 1);
        while (clipper.Step()) {
            for (int i = clipper.DisplayStart; i < clipper.DisplayEnd; ++i) {
                const explore::TableRow& row = rows[static_cast<size_t>(i)];
                ImGui::TableNextRow();
                ImGui::TableNextColumn();
                ImGui::PushID(i);
                ImGui::Indent(static_cast<float>(row.depth) * ImGui::GetFontSize() * 0.8f);
                if (row.has_children) {
                    if (ImGui::ArrowButton("##x", row.expanded ? ImGuiDir_Down : ImGuiDir_Right))
                        table.toggle(row.id);
                    ImGui::SameLine();
                } else {
                    ImGui::Dummy(ImVec2(ImGui::GetFrameHeight(), 0.0f));
                    ImGui::SameLine();
                }
                const bool selected =
                    std::find(s.selection().begin(), s.selection().end(), row.id) != s.selection().end();
                if (ImGui::Selectable(
                        row.label.c_str(), selected,
                        ImGuiSelectableFlags_SpanAllColumns | ImGuiSelectableFlags_AllowItemOverlap)) {
                    const ImGuiIO& io = ImGui::GetIO();
                    s.select(row.id, io.KeyShift || io.KeyCtrl);
                    ui.table_revealed = s.selection().empty() ? UINT32_MAX : s.selection().front();
                }
                if (ImGui::IsItemHovered() && ImGui::IsMouseDoubleClicked(ImGuiMouseButton_Left))
                    s.drill(row.id);
                if (target == static_cast<size_t>(i)) ImGui::SetScrollHereY(0.4f);
                ImGui::Unindent(static_cast<float>(row.depth) * ImGui::GetFontSize() * 0.8f);
                ImGui::PopID();
                if (row.sampled) {
                    for (size_t k = 1; k < columns.size(); ++k) {
                        ImGui::TableNextColumn();
                        const C c = columns[k];
                        if (c == C::kDeepBytes || c == C::kRetainedBytes) {
                            ImGui::TextDisabled("n/a");
                            if (ImGui::IsItemHovered() && !no_sizes.empty())
                                ImGui::SetTooltip("%.*s", static_cast<int>(no_sizes.size()), no_sizes.data());
                        } else if (c == C::kBornBytes || c == C::kDiedBytes || c == C::kPermanentBytes) {
                            const scene::Cohort cohort = c == C::kBornBytes   ? scene::Cohort::kBorn
                                                         : c == C::kDiedBytes ? scene::Cohort::kDied
                                                                              : scene::Cohort::kPermanent;
                            if (row.cohorts)
                                ImGui::TextUnformatted(
                                    scene::estimateValue(static_cast<double>(row.cohorts->of(cohort).bytes),
                                                         Metric::kBytes)
                                        .c_str());
                            else
                                ImGui::TextDisabled("-");
                        } else {
                            sampledCell(row, c);
                        }
                    }
                    continue;
                }
                ImGui::TableNextColumn();
                ImGui::Text("%.0f", row.objects);
                ImGui::TableNextColumn();
                ImGui::Text("%.1f%%", row.objects_share);
                ImGui::TableNextColumn();
                ImGui::TextUnformatted(bytesText(row.bytes).c_str());
                ImGui::TableNextColumn();
                ImGui::Text("%.1f%%", row.bytes_share);
                ImGui::TableNextColumn();
                if (row.sizes)
                    ImGui::TextUnformatted(bytesText(static_cast<double>(row.sizes->deep_bytes)).c_str());
                else
                    ImGui::TextDisabled("-");
                ImGui::TableNextColumn();
                if (row.sizes)
                    ImGui::TextUnformatted(bytesText(static_cast<double>(row.sizes->retained_bytes)).c_str());
                else
                    ImGui::TextDisabled("-");
                if (!s.diffShown()) {
                    ImGui::TableNextColumn();
                    ImGui::TextUnformatted(signedBytes(row.bytes_growth).c_str());
                    continue;
                }
                // The cohort that dominates the row in its colour, as the views draw it.
                const auto dominant =
                    row.cohorts ? scene::dominantCohort(*row.cohorts, s.chain().metric) : std::nullopt;
                for (scene::Cohort k :
                     {scene::Cohort::kBorn, scene::Cohort::kDied, scene::Cohort::kPermanent}) {
                    ImGui::TableNextColumn();
                    if (!row.cohorts) {
                        ImGui::TextDisabled("-");
                        continue;
                    }
                    const std::string text = bytesText(static_cast<double>(row.cohorts->of(k).bytes));
                    if (dominant == k)
                        ImGui::TextColored(ImGui::ColorConvertU32ToFloat4(scene::cohortColor(k)), "%s",
                                           text.c_str());
                    else
                        ImGui::TextUnformatted(text.c_str());
                }
            }
        }
        ImGui::EndTable();
    }
    ImGui::End();
}

}  // namespace

const PanelDraw kTablePanel = {"table", PanelSide::kLeft, &drawTablePanel};

}  // namespace memcity::app
