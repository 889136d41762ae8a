// The inspector of the selection (one or several nodes): counts, shallow / deep / retained size,
// the GC roots that keep it alive (directly and closest), its paths to them aggregated by type,
// what it retains, its curve over time, and born / died / permanent against a base GC. A sampled
// recording's are estimates (≈, with their intervals and samples); at (or near) its reference
// snapshots, the reference section is about the selection's sampled objects, exact for them and
// labelled so; without any snapshot it is greyed out with the reason.
#include <imgui.h>

#include <algorithm>
#include <cstdio>

#include "app/ui.h"
#include "scene/estimates.h"
#include "scene/timeline_scene.h"

namespace memcity::app {
namespace {

std::string bytes(uint64_t b) {
    return scene::formatAxisBytes(static_cast<double>(b));
}

std::string share(uint64_t part, uint64_t whole) {
    char buf[16];
    std::snprintf(buf, sizeof buf, "%.1f%%",
                  whole ? 100.0 * static_cast<double>(part) / static_cast<double>(whole) : 0.0);
    return buf;
}

void sizeRow(const char* name, const Sizes& s, const Sizes& heap, const char* help) {
    ImGui::TableNextRow();
    ImGui::TableNextColumn();
    ImGui::TextUnformatted(name);
    if (ImGui::IsItemHovered()) ImGui::SetTooltip("%s", help);
    ImGui::TableNextColumn();
    ImGui::Text("%llu", static_cast<unsigned long long>(s.objects));
    ImGui::TableNextColumn();
    ImGui::TextUnformatted(bytes(s.bytes).c_str());
    ImGui::TableNextColumn();
    ImGui::TextUnformatted(share(s.bytes, heap.bytes).c_str());
}

void counted(const char* title, const std::vector<CountedName>& list, const char* none) {
    if (!ImGui::CollapsingHeader(title, ImGuiTreeNodeFlags_DefaultOpen)) return;
    if (list.empty()) {
        ImGui::TextDisabled("%s", none);
        return;
    }
    // The counts' columns are as wide as their widest entry and the name wraps in what is left,
    // so the layout follows from the list alone (proportional columns would size from the last
    // frame's wrapping, and a picture would depend on how many frames were drawn).
    float objects_w = 0.0f, bytes_w = 0.0f;
    for (const CountedName& c : list) {
        objects_w = std::max(objects_w, ImGui::CalcTextSize(std::to_string(c.objects).c_str()).x);
        bytes_w = std::max(bytes_w, ImGui::CalcTextSize(bytes(c.bytes).c_str()).x);
    }
    if (ImGui::BeginTable(title, 3, ImGuiTableFlags_RowBg | ImGuiTableFlags_SizingFixedFit)) {
        ImGui::TableSetupColumn("name", ImGuiTableColumnFlags_WidthStretch);
        ImGui::TableSetupColumn("objects", ImGuiTableColumnFlags_WidthFixed, objects_w);
        ImGui::TableSetupColumn("bytes", ImGuiTableColumnFlags_WidthFixed, bytes_w);
        for (const CountedName& c : list) {
            ImGui::TableNextRow();
            ImGui::TableNextColumn();
            ImGui::TextWrapped("%s", c.name.c_str());
            ImGui::TableNextColumn();
            ImGui::Text("%llu", static_cast<unsigned long long>(c.objects));
            ImGui::TableNextColumn();
            ImGui::TextUnformatted(bytes(c.bytes).c_str());
        }
        ImGui::EndTable();
    }
}

void curve(Ui& ui) {
    explore::Session& s = ui.session;
    const Metric metric = s.chain().metric;
    const std::vector<double> values = s.selectionCurve(metric);
    if (values.empty()) return;
    std::vector<float> points(values.begin(), values.end());
    const float top = *std::max_element(points.begin(), points.end());
    char overlay[96];
    std::snprintf(overlay, sizeof overlay, "max %s%s", s.sampled() ? "\u2248 " : "",
                  metric == Metric::kBytes ? bytes(static_cast<uint64_t>(top)).c_str()
                                           : std::to_string(static_cast<uint64_t>(top)).c_str());
    const ImVec2 at = ImGui::GetCursorScreenPos();
    const ImVec2 size(ImGui::GetContentRegionAvail().x, 70.0f * ui.layout.ui_scale);
    ImGui::PlotLines("##curve", points.data(), static_cast<int>(points.size()), 0, overlay, 0.0f, top * 1.05f,
                     size);
    // The cursor's place on the curve.
    if (points.size() > 1) {
        const float x =
            at.x + size.x * static_cast<float>(s.cursor().t() / static_cast<double>(points.size() - 1));
        ImGui::GetWindowDrawList()->AddLine(ImVec2(x, at.y), ImVec2(x, at.y + size.y),
                                            IM_COL32(255, 255, 255, 160));
    }
}

void drawInspectorPanel(Ui& ui, const PanelFrame& /*frame*/) {
    if (!ui.settings.panels.inspector || ui.layout.right.empty()) return;
    explore::Session& s = ui.session;
    const scene::PixelRect& r = ui.layout.right;
    ImGui::SetNextWindowPos(ImVec2(r.min.x, r.min.y));
    ImGui::SetNextWindowSize(ImVec2(r.width(), r.height()));
    // The scroll bar is always there: one that came and went would change where text wraps.
    ImGui::Begin("Inspector", nullptr,
                 ImGuiWindowFlags_NoMove | ImGuiWindowFlags_NoResize | ImGuiWindowFlags_NoCollapse |
                     ImGuiWindowFlags_NoSavedSettings | ImGuiWindowFlags_AlwaysVerticalScrollbar);
    if (s.selection().empty() && s.inspectedObjects().empty()) {
        ImGui::TextWrapped("Click a building, a sector or a row to see what keeps it alive.");
        ImGui::End();
        return;
    }
    if (!s.inspectedObjects().empty()) {
        // A dominator row's objects: the group is those objects, not a node of the series.
        ImGui::TextWrapped("%s", s.inspectedObjectsName().c_str());
        ImGui::TextDisabled("%zu objects", s.inspectedObjects().size());
    } else {
        for (uint32_t id : s.selection())
            ImGui::TextWrapped("%s", s.nameOf(id).c_str());
        curve(ui);
    }
    if (!s.inspectionError().empty())
        ImGui::TextColored(ImVec4(1.0f, 0.45f, 0.35f, 1.0f), "%s", s.inspectionError().c_str());
    const std::optional<explore::Inspection>& in = s.inspection();
    if (!in) {
        ImGui::TextDisabled(s.loaded() ? "inspecting..." : "the inspector starts once the trace is loaded");
        ImGui::End();
        return;
    }
    if (!s.inspectionCurrent()) ImGui::TextDisabled("updating (showing GC %u)...", in->gc);
    ImGui::Separator();
    if (in->objects_sampled) {
        const SampleSums& g = *in->objects_sampled;
        ImGui::TextWrapped("GC %u: %s", in->gc, scene::estimateText(g, Metric::kObjects).c_str());
        ImGui::TextWrapped("%s (\u2248 %s of the heap)", scene::estimateText(g, Metric::kBytes).c_str(),
                           share(in->objects.bytes, in->heap.bytes).c_str());
        ImGui::TextDisabled("from %s; %d%% intervals", scene::samplesText(g.samples).c_str(),
                            static_cast<int>(kConfidence * 100));
        // What the references would tell: not in a sampled recording.
        if (!in->closure &&
            ImGui::BeginTable("##sizes", 2, ImGuiTableFlags_RowBg | ImGuiTableFlags_SizingStretchProp)) {
            for (const char* name : {"deep", "retained", "GC roots", "paths to the roots"}) {
                ImGui::TableNextRow();
                ImGui::TableNextColumn();
                ImGui::TextDisabled("%s", name);
                ImGui::TableNextColumn();
                ImGui::TextDisabled("n/a");
                if (ImGui::IsItemHovered())
                    ImGui::SetTooltip("%.*s", static_cast<int>(scene::kNoSnapshotsReason.size()),
                                      scene::kNoSnapshotsReason.data());
            }
            ImGui::EndTable();
            ImGui::PushStyleColor(ImGuiCol_Text, ImGui::GetStyleColorVec4(ImGuiCol_TextDisabled));
            ImGui::TextWrapped("not available: %.*s", static_cast<int>(scene::kNoSnapshotsReason.size()),
                               scene::kNoSnapshotsReason.data());
            ImGui::PopStyleColor();
        }
    } else {
        ImGui::TextWrapped("GC %u: %llu objects, %s (%s of the heap)", in->gc,
                           static_cast<unsigned long long>(in->objects.objects),
                           bytes(in->objects.bytes).c_str(),
                           share(in->objects.bytes, in->heap.bytes).c_str());
    }
    // A sampled recording's snapshot: what the group's sampled objects reach and retain in the
    // heap made whole there, exact for them (never the group's retained size).
    const bool of_samples = in->closure && in->closure_samples;
    if (of_samples) {
        ImGui::Separator();
        ImGui::TextWrapped("its %llu sampled objects at GC %u (exact for them):",
                           static_cast<unsigned long long>(*in->closure_samples), *in->snapshot_gc);
    }
    if (in->closure &&
        ImGui::BeginTable("##sizes", 4, ImGuiTableFlags_RowBg | ImGuiTableFlags_SizingStretchProp)) {
        // (A sampled recording's shares are of the whole heap at the snapshot, which is exact.)
        const Sizes heap = of_samples ? in->closure_heap : in->heap;
        sizeRow("shallow", in->closure->shallow, heap,
                of_samples ? "the sampled objects themselves" : "the group's own objects");
        sizeRow("deep", in->closure->deep, heap,
                of_samples ? "everything the sampled objects reach"
                           : "its transitive closure: everything it reaches");
        sizeRow("retained", in->closure->retained, heap,
                of_samples ? "what would be freed with the sampled objects (not the group's retained size)"
                           : "its GC closure: what would be freed with it");
        if (in->closure->unreached.objects)
            sizeRow("unrooted", in->closure->unreached, heap, "alive, root not reported");
        ImGui::EndTable();
        if (of_samples)
            ImGui::TextDisabled("references from the snapshot of GC %u: the whole heap, %s (exact)",
                                *in->snapshot_gc, bytes(in->closure_heap.bytes).c_str());
        else if (in->snapshot_gc)
            ImGui::TextDisabled("references from the snapshot of GC %u", *in->snapshot_gc);
    }
    if (in->base_gc && in->objects_sampled) {
        ImGui::Separator();
        ImGui::Text("since GC %u:", *in->base_gc);
        for (const auto& [name, cohort] :
             {std::pair{"born", &*in->born}, {"died", &*in->died}, {"permanent", &*in->permanent}})
            ImGui::BulletText(
                "%s %s, %s", name,
                scene::estimateValue(static_cast<double>(cohort->objects), Metric::kObjects).c_str(),
                scene::estimateValue(static_cast<double>(cohort->bytes), Metric::kBytes).c_str());
        ImGui::TextDisabled("(shift-drag in the timeline picks the base GC)");
    } else if (in->base_gc) {
        ImGui::Separator();
        ImGui::Text("since GC %u:", *in->base_gc);
        ImGui::BulletText("born %llu objects, %s", static_cast<unsigned long long>(in->born->objects),
                          bytes(in->born->bytes).c_str());
        ImGui::BulletText("died %llu objects, %s", static_cast<unsigned long long>(in->died->objects),
                          bytes(in->died->bytes).c_str());
        ImGui::BulletText("permanent %llu objects, %s",
                          static_cast<unsigned long long>(in->permanent->objects),
                          bytes(in->permanent->bytes).c_str());
        ImGui::TextDisabled("(shift-drag in the timeline picks the base GC)");
    }
    if (in->closure) {
        counted(of_samples ? "GC roots referencing its sampled objects directly"
                           : "GC roots referencing it directly",
                in->direct_roots, "none");
        counted(of_samples ? "closest GC roots of its sampled objects" : "closest GC roots",
                in->closest_roots, "no reported root reaches it");
        counted(of_samples ? "every GC root reaching its sampled objects" : "every GC root reaching it",
                in->reaching_roots, "no reported root reaches it");
        if (ImGui::CollapsingHeader(of_samples ? "paths from its sampled objects to the roots, by type"
                                               : "paths to the roots, by type",
                                    ImGuiTreeNodeFlags_DefaultOpen)) {
            for (const explore::InspectedPath& p : in->paths) {
                ImGui::Bullet();
                ImGui::TextWrapped("%s", p.text.c_str());
                ImGui::TextDisabled("   %llu objects, %u references",
                                    static_cast<unsigned long long>(p.objects), p.shortest);
            }
            if (in->other_paths)
                ImGui::TextDisabled("and %llu more paths (%llu objects)",
                                    static_cast<unsigned long long>(in->other_paths),
                                    static_cast<unsigned long long>(in->other_path_objects));
            if (in->unreached_objects)
                ImGui::TextDisabled("%llu objects: alive, root not reported",
                                    static_cast<unsigned long long>(in->unreached_objects));
        }
        counted(of_samples ? "retained by its sampled objects, by type" : "retained objects by type",
                in->retained_by_type, "nothing");
        if (ImGui::CollapsingHeader(of_samples ? "sampled objects retaining the most on their own"
                                               : "objects retaining the most on their own")) {
            for (const explore::InspectedObject& o : in->largest_objects)
                ImGui::BulletText("object %llu %s: %s", static_cast<unsigned long long>(o.id), o.type.c_str(),
                                  bytes(o.retained.bytes).c_str());
        }
    }
    for (const std::string& note : in->notes)
        if (!in->objects_sampled || !note.ends_with(scene::kNoSnapshotsReason))  // (said above)
            ImGui::TextWrapped("note: %s", note.c_str());
    ImGui::End();
}

}  // namespace

const PanelDraw kInspectorPanel = {"inspector", PanelSide::kRight, &drawInspectorPanel};

}  // namespace memcity::app
