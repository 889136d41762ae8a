// The classifier chain editor: classifiers and filters (user expressions included), each with its
// parse error beside it; add, remove, reorder; metric, sort strategy, pruning; saved chains.
// Apply recomputes the series in the background; the views keep the selection where it exists.
#include <imgui.h>
#include <imgui_stdlib.h>

#include <algorithm>

#include "app/ui.h"
#include "classify/ref_classifiers.h"

namespace memcity::app {
namespace {

const ImVec4 kErrorColor(1.0f, 0.45f, 0.35f, 1.0f);

// One list of entries (classifiers or filters): text fields with up / down / remove buttons and
// the entry's error under it. Returns true when something changed.
bool entries(const char* id, std::vector<std::string>& list, const std::vector<std::string>& errors) {
    bool changed = false;
    ImGui::PushID(id);
    for (size_t i = 0; i < list.size(); ++i) {
        ImGui::PushID(static_cast<int>(i));
        const float buttons = ImGui::GetFrameHeight() * 3.0f + ImGui::GetStyle().ItemSpacing.x * 3.0f;
        ImGui::SetNextItemWidth(std::max(ImGui::GetContentRegionAvail().x - buttons, 60.0f));
        changed |= ImGui::InputText("##entry", &list[i]);
        ImGui::SameLine();
        if (ImGui::ArrowButton("up", ImGuiDir_Up)) changed |= explore::moveEntry(list, i, -1);
        ImGui::SameLine();
        if (ImGui::ArrowButton("down", ImGuiDir_Down)) changed |= explore::moveEntry(list, i, +1);
        ImGui::SameLine();
        if (ImGui::Button("x", ImVec2(ImGui::GetFrameHeight(), 0.0f))) {
            list.erase(list.begin() + static_cast<std::ptrdiff_t>(i));
            changed = true;
            ImGui::PopID();
            break;
        }
        if (i < errors.size() && !errors[i].empty()) {
            ImGui::PushTextWrapPos(0.0f);
            ImGui::TextColored(kErrorColor, "%s", errors[i].c_str());
            ImGui::PopTextWrapPos();
        }
        ImGui::PopID();
    }
    ImGui::PopID();
    return changed;
}

void savedChains(Ui& ui) {
    explore::ChainConfig& edit = ui.chain_edit;
    if (!ui.settings.chains.empty()) {
        ImGui::SetNextItemWidth(ImGui::GetContentRegionAvail().x * 0.6f);
        if (ImGui::BeginCombo("##saved", "saved chains...")) {
            for (const auto& [name, saved] : ui.settings.chains)
                if (ImGui::Selectable(name.c_str())) {
                    if (auto config = explore::chainConfigOf(saved.spec, saved.filter)) {
                        config->metric = edit.metric;
                        config->sort = edit.sort;
                        config->prune = edit.prune;
                        edit = *config;
                    } else {
                        ui.chain_error = name + ": " + config.error().message;
                    }
                }
            ImGui::EndCombo();
        }
        ImGui::SameLine();
    }
    static std::string name;
    if (ImGui::Button("save as...")) ImGui::OpenPopup("save chain");
    if (ImGui::BeginPopup("save chain")) {
        ImGui::SetNextItemWidth(220.0f * ui.layout.ui_scale);
        const bool enter =
            ImGui::InputTextWithHint("##name", "name", &name, ImGuiInputTextFlags_EnterReturnsTrue);
        if ((ImGui::Button("save") || enter) && !name.empty()) {
            std::string filters;
            for (const std::string& f : edit.filters)
                filters += (filters.empty() ? "(" : " && (") + f + ")";
            ui.settings.chains[name] = {edit.spec(), filters};
            ImGui::CloseCurrentPopup();
        }
        ImGui::EndPopup();
    }
}

void drawChainPanel(Ui& ui, const PanelFrame& /*frame*/) {
    if (!ui.settings.panels.chain_editor || ui.layout.left.empty()) return;
    explore::Session& s = ui.session;
    explore::ChainConfig& edit = ui.chain_edit;
    const scene::PixelRect& r = ui.layout.left;
    const float height = ui.settings.panels.table ? r.height() * 0.42f : r.height();
    ImGui::SetNextWindowPos(ImVec2(r.min.x, r.min.y));
    ImGui::SetNextWindowSize(ImVec2(r.width(), height));
    ImGui::Begin("Classifiers", nullptr,
                 ImGuiWindowFlags_NoMove | ImGuiWindowFlags_NoResize | ImGuiWindowFlags_NoCollapse |
                     ImGuiWindowFlags_NoSavedSettings);
    // A sampled recording has references at its snapshot GCs only, not over the timeline: the
    // classifiers that read them are greyed out, with the reason.
    const std::string no_references = s.referencesUnavailable();
    const explore::ChainCheck check =
        explore::checkChain(edit, no_references, /*absolute_plugin_paths=*/true);
    ImGui::TextDisabled("classifiers, outermost first");
    bool changed = entries("classifiers", edit.classifiers, check.classifier_errors);
    if (ImGui::BeginCombo("##add", "add a classifier...")) {
        for (const ClassifierInfo& c : builtinClassifiers()) {
            const bool unavailable = !no_references.empty() && isReferenceClassifier(c.name);
            if (ImGui::Selectable(std::string(c.name).c_str(), false,
                                  unavailable ? ImGuiSelectableFlags_Disabled : 0)) {
                edit.classifiers.emplace_back(c.name);
                changed = true;
            } else if (unavailable && ImGui::IsItemHovered(ImGuiHoveredFlags_AllowWhenDisabled)) {
                ImGui::SetTooltip("reads references: %.*s", static_cast<int>(no_references.size()),
                                  no_references.data());
            } else if (ImGui::IsItemHovered()) {
                ImGui::SetTooltip("%.*s%s%.*s", static_cast<int>(c.summary.size()), c.summary.data(),
                                  c.params.empty() ? "" : "\nparameters: ", static_cast<int>(c.params.size()),
                                  c.params.data());
            }
        }
        if (ImGui::Selectable("{expression}")) {
            edit.classifiers.emplace_back("{site.method}");
            changed = true;
        }
        ImGui::EndCombo();
    }
    if (!check.chain_error.empty()) ImGui::TextColored(kErrorColor, "%s", check.chain_error.c_str());

    ImGui::Spacing();
    ImGui::TextDisabled("filters (objects kept when every one holds)");
    changed |= entries("filters", edit.filters, check.filter_errors);
    if (ImGui::SmallButton("add a filter")) {
        edit.filters.emplace_back("size > 1k");
        changed = true;
    }

    ImGui::Spacing();
    int metric = edit.metric == Metric::kObjects ? 0 : 1;
    ImGui::SetNextItemWidth(110.0f * ui.layout.ui_scale);
    if (ImGui::Combo("metric", &metric, "objects\0bytes\0"))
        edit.metric = metric == 0 ? Metric::kObjects : Metric::kBytes;
    ImGui::SameLine();
    int sort = static_cast<int>(edit.sort);
    ImGui::SetNextItemWidth(110.0f * ui.layout.ui_scale);
    if (ImGui::Combo("sort", &sort, "start size\0end size\0growth\0"))
        edit.sort = static_cast<SortStrategy>(sort);
    ImGui::Checkbox("prune", &edit.prune.enabled);
    if (edit.prune.enabled) {
        ImGui::SameLine();
        float share = static_cast<float>(edit.prune.share * 100.0);
        ImGui::SetNextItemWidth(70.0f * ui.layout.ui_scale);
        if (ImGui::SliderFloat("##share", &share, 50.0f, 100.0f, "%.0f%%"))
            edit.prune.share = static_cast<double>(share) / 100.0;
        ImGui::SameLine();
        int max_children = static_cast<int>(edit.prune.max_children);
        ImGui::SetNextItemWidth(80.0f * ui.layout.ui_scale);
        if (ImGui::SliderInt("##max", &max_children, 1, 50, "max %d"))
            edit.prune.max_children = static_cast<size_t>(max_children);
    }
    if (changed) ui.chain_error.clear();

    ImGui::Spacing();
    const bool dirty = !(edit == s.chain());
    ImGui::BeginDisabled(!dirty || !check.ok());
    if (ImGui::Button("Apply")) {
        Status st = s.applyChain(edit);
        ui.chain_error = st ? std::string() : st.error().message;
    }
    ImGui::EndDisabled();
    ImGui::SameLine();
    ImGui::BeginDisabled(!dirty);
    if (ImGui::Button("Revert")) edit = s.chain();
    ImGui::EndDisabled();
    ImGui::SameLine();
    savedChains(ui);
    if (s.recomputing()) ImGui::TextDisabled("classifying every GC by %s ...", s.chain().spec().c_str());
    if (!ui.chain_error.empty()) ImGui::TextColored(kErrorColor, "%s", ui.chain_error.c_str());
    if (!s.seriesError().empty()) {
        ImGui::PushTextWrapPos(0.0f);
        ImGui::TextColored(kErrorColor, "%s", s.seriesError().c_str());
        ImGui::PopTextWrapPos();
    }
    ImGui::End();
}

}  // namespace

const PanelDraw kChainPanel = {"chain", PanelSide::kLeft, &drawChainPanel};

}  // namespace memcity::app
