// Script verbs that print and capture: what the window shows, to standard output or a PNG.
#include <algorithm>
#include <chrono>
#include <cmath>
#include <iostream>

#include "app/explorer_app.h"
#include "app/script_runner_verbs.h"
#include "scene/estimates.h"
#include "scene/heap_map_scene.h"
#include "util/units.h"

namespace memcity::app::scripts {

namespace {

double percentile(std::vector<double> v, double p) {
    if (v.empty()) return 0;
    std::sort(v.begin(), v.end());
    return v[std::min(v.size() - 1, static_cast<size_t>(p * static_cast<double>(v.size() - 1) + 0.5))];
}

}  // namespace

Status Runner::print(const std::string& what) {
    explore::Session& s = ex_.session();
    if (what == "inspector") {
        if (s.selection().empty() && s.inspectedObjects().empty())
            return Error{"print inspector: nothing is selected"};
        if (!s.inspectionError().empty()) return Error{"the inspector failed: " + s.inspectionError()};
        if (!s.inspection()) return Error{"print inspector: no inspection (is the trace loaded?)"};
        std::cout << explore::formatInspection(*s.inspection()) << std::flush;
    } else if (what == "pins") {
        std::cout << "pins:";
        for (uint32_t pin : s.pins())
            std::cout << " " << pin;
        std::cout << "\n" << std::flush;
    } else if (what == "selection") {
        for (uint32_t id : s.selection())
            std::cout << "selected: " << s.nameOf(id) << "\n";
        std::cout << std::flush;
    } else if (what == "state") {
        std::cout << "gc: " << s.currentGc() << "\nt: " << s.cursor().t()
                  << "\nview: " << scene::viewKindName(s.view()) << (s.scaled() ? " (scaled)" : "")
                  << (s.view() == scene::ViewKind::kTimelineTrees && s.treesCities() ? " (cities)" : "")
                  << "\nchain: " << s.chain().spec() << "\ndrill: " << s.nameOf(s.drillRoot())
                  << "\nselected: " << s.selection().size() << "\n";
        if (s.sampled()) {
            // What the figures are, and the heap at the cursor as the window shows it.
            std::cout << scene::samplingBadge(s.samplingInterval()) << ": "
                      << scene::samplingNote(s.samplingInterval()) << "\n";
            if (const TreeSeries* series = s.series(); series && series->sampled()) {
                const uint32_t root[] = {TreeSeries::kRoot};
                const SampleSums all = scene::sampledSumAt(*series, root, s.cursor().gcTime());
                std::cout << "overall: " << scene::estimateText(all, Metric::kBytes) << ", "
                          << scene::estimateText(all, Metric::kObjects) << ", "
                          << scene::samplesText(all.samples) << "\n";
            }
            if (const std::string at = scene::snapshotGcsText(s.gcs()); at.empty())
                std::cout << "unavailable: retained and deep sizes, GC roots, paths, classifiers that read "
                             "references ("
                          << scene::kNoSnapshotsReason << "); the heap map's objects ("
                          << scene::kNoAddressesReason << ")\n";
            else
                std::cout << "reference snapshots: " << at
                          << " (the inspector: what a group's sampled objects reference and retain there)\n"
                          << "unavailable: classifiers that read references (" << s.referencesUnavailable()
                          << "); the tree table's deep and retained sizes (" << s.sizesUnavailable()
                          << "); the heap map's objects (" << scene::kNoAddressesReason << ")\n";
        }
        if (const HeapMap* map = s.heapMap().shown(); map && s.view() == scene::ViewKind::kHeapMap) {
            uint64_t selected = 0;
            for (const SpaceMap& space : map->spaces)
                for (const HeapTile& t : space.tiles)
                    selected += t.selected_bytes;
            std::cout << "heapmap: GC " << map->gc << ", " << scene::heapStreamName(s.heapMap().stream())
                      << ", tiles of " << map->tile_bytes << " bytes, " << map->spaces.size() << " spaces"
                      << (map->addresses ? "" : ", no addresses") << ", " << selected << " bytes selected\n";
        }
        if (!s.heapMap().error().empty()) std::cout << "heapmap error: " << s.heapMap().error() << "\n";
        if (const scene::CityLayout* city = s.cityLayout())
            std::cout << "city: " << city->buildings.size() << " buildings in " << city->districts.size()
                      << " districts, " << ex_.ui().boxes << " boxes drawn\n";
        for (size_t i = 0; i < s.windows().size(); ++i) {
            const Window& w = s.windows()[i];
            std::cout << "window " << i + 1 << ": " << windowKindName(w.kind) << " " << w.first_gc << ".."
                      << w.last_gc << "\n";
        }
        if (const explore::PlayStops& st = s.playStops(); st.any())
            std::cout << "stop at:" << (st.full_gc ? " full-gc" : "") << (st.window_start ? " window" : "")
                      << (st.grows_over ? " grows " + std::to_string(st.grows_over) : "") << "\n";
        if (!s.lastStop().empty()) std::cout << s.lastStop() << "\n";
        if (const auto& range = s.range()) std::cout << "range: " << range->from << ".." << range->to << "\n";
        if (const auto& churn = s.churnWindow()) {
            const TreeSeries* series = s.series();
            std::cout << "churn: GCs " << churn->from << ".." << churn->to;
            if (series && series->firstGc() == churn->from + 1 && series->lastGc() == churn->to) {
                const SeriesCounts all = series->counts(TreeSeries::kRoot, series->lastGc());
                const char* about = series->sampled() ? "\u2248 " : "";
                std::cout << ", " << about << all.objects << " objects (" << about << all.bytes
                          << " bytes) died young";
            } else {
                std::cout << " (computing)";
            }
            std::cout << "\n";
        }
        if (s.diffShown()) {
            if (const auto& d = s.diff(); d && s.diffCurrent()) {
                const scene::CohortCounts& all = d->at(TreeSeries::kRoot);
                const char* about = s.sampled() ? "\u2248 " : "";  // a sampled heap's: estimates
                std::cout << "diff: GC " << d->baseGc() << " -> " << d->gc() << ", born " << about
                          << all.born.objects << " objects (" << about << all.born.bytes << " bytes), died "
                          << about << all.died.objects << " (" << about << all.died.bytes << "), permanent "
                          << about << all.permanent.objects << " (" << about << all.permanent.bytes << ")\n";
            } else {
                std::cout << "diff: " << (s.diffError().empty() ? "computing" : s.diffError()) << "\n";
            }
        }
        if (s.load().live)
            std::cout << "live: " << s.gcs().size() << " GCs, " << s.load().bytes_total << " bytes written\n";
        if (const auto importing = s.importing()) std::cout << "import: " << *importing << "\n";
        if (const explore::LiveState live = s.liveState(); live.connected) {
            std::cout << "program: " << live::stateName(live.status.state);
            if (live.status.state == live::ProgramState::kPaused)
                std::cout << " at GC " << live.status.paused_gc;
            std::cout << " (pause when " << live::formatConditions(s.pauseConditions())
                      << (s.pauseGrowth() ? ", grows>" + std::to_string(s.pauseGrowth()) : "") << ")\n";
            if (!s.liveNote().empty()) std::cout << "program note: " << s.liveNote() << "\n";
        }
        for (const std::string& note : s.load().notes)
            std::cout << "note: " << note << "\n";
        if (const Ui& ui = ex_.ui(); ui.now < ui.status_until) std::cout << "status: " << ui.status << "\n";
        std::cout << std::flush;
    } else if (what == "table") {
        const Ui& ui = ex_.ui();
        if (!ui.table) return Error{"print table: no table yet"};
        std::cout << explore::tableCsv(ui.table->rows()) << std::flush;
    } else if (what == "timing") {
        printTiming();
    } else if (what == "dominators") {
        if (!s.dominatorsShown()) return Error{"print dominators: the dominator view is off (dominators on)"};
        std::cout << explore::dominatorText(s.dominators());
        if (!s.dominatorHighlightText().empty()) std::cout << s.dominatorHighlightText() << "\n";
        std::cout << std::flush;
    } else {
        return Error{"print expects inspector, selection, table, dominators, timing, state or pins, got '" +
                     what + "'"};
    }
    return {};
}

Status Runner::printTile(const Cmd& c) {
    explore::Session& s = ex_.session();
    if (s.view() != scene::ViewKind::kHeapMap) return Error{"tile: the heap map is not shown"};
    auto x = real(c.args[0]);
    auto y = real(c.args[1]);
    if (!x) return x.error();
    if (!y) return y.error();
    if (!ex_.frame(0.0)) return {};
    const auto pick = s.heapTileAt(glm::vec2(static_cast<float>(*x), static_cast<float>(*y)));
    const HeapHistory* h = s.history();
    const auto info = pick && h ? s.heapMap().describe(*pick, h->trace().symbols()) : std::nullopt;
    if (!info) return Error{"tile: no tile at " + c.args[0] + " " + c.args[1]};
    if (s.sampled() && !info->addresses) {
        std::printf("tile: %s 0x%llx-0x%llx GC %u: %llu bytes used; objects unknown: %s\n",
                    info->space.c_str(), static_cast<unsigned long long>(info->from),
                    static_cast<unsigned long long>(info->to), info->gc,
                    static_cast<unsigned long long>(info->tile.bytes),
                    std::string(scene::kNoAddressesReason).c_str());
        std::fflush(stdout);
        return {};
    }
    std::printf("tile: %s 0x%llx-0x%llx GC %u: %llu objects, %llu bytes, %llu selected\n",
                info->space.c_str(), static_cast<unsigned long long>(info->from),
                static_cast<unsigned long long>(info->to), info->gc,
                static_cast<unsigned long long>(info->tile.objects),
                static_cast<unsigned long long>(info->tile.bytes),
                static_cast<unsigned long long>(info->tile.selected_bytes));
    for (size_t i = 0; i < info->contents.types.size(); ++i)
        std::printf("tile type: %s %llu objects, %llu bytes\n", info->type_names[i].c_str(),
                    static_cast<unsigned long long>(info->contents.types[i].objects),
                    static_cast<unsigned long long>(info->contents.types[i].bytes));
    std::fflush(stdout);
    return {};
}

void Runner::printTiming() const {
    std::vector<double> loading, after;
    const auto& ms = ex_.frameTimes();
    const auto& during = ex_.frameLoading();
    for (size_t i = 0; i < ms.size(); ++i)
        (during[i] ? loading : after).push_back(ms[i]);
    const explore::LoadProgress& load = ex_.session().load();
    std::printf("timing: trace loaded in %.2f s (%u GCs, %.1f MiB)\n", load.seconds, load.gcs,
                static_cast<double>(load.bytes_total) / (1024.0 * 1024.0));
    std::printf(
        "timing: first GC rebuilt after %.3f s, on screen after %.3f s (%.3f s after memcity started)\n",
        load.first_gc_seconds, ex_.firstGcShownAt(), ex_.firstGcShownSinceLaunch());
    std::printf("timing: %zu frames while loading: median %.1f ms, 95%% %.1f ms, longest %.1f ms\n",
                loading.size(), percentile(loading, 0.5), percentile(loading, 0.95),
                loading.empty() ? 0.0 : *std::max_element(loading.begin(), loading.end()));
    std::printf("timing: %zu frames after: median %.1f ms, 95%% %.1f ms, longest %.1f ms\n", after.size(),
                percentile(after, 0.5), percentile(after, 0.95),
                after.empty() ? 0.0 : *std::max_element(after.begin(), after.end()));
    if (const auto& b = ex_.session().heapMap().lastBuild())
        std::printf(
            "timing: heap map of GC %u built in %.1f ms (heap rebuilt, placed: %.1f ms; map: %.1f ms)\n",
            b->gc, b->place_ms + b->map_ms, b->place_ms, b->map_ms);
    for (const Latency& l : latencies_)
        std::printf("timing: input to picture %6.1f ms  %s\n", l.ms, l.command.c_str());
    std::fflush(stdout);
}

Status Runner::verbScreenshot(const Cmd& c) {
    if (!ex_.frame(0.0)) return {};
    Status st = ex_.screenshot(c.rest);
    if (!st) return st;
    std::cerr << "wrote " << c.rest << "\n";
    return {};
}

Status Runner::verbPrint(const Cmd& c) {
    return print(c.args[0]);
}

}  // namespace memcity::app::scripts
