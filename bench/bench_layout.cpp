// bench_layout: the memory city over a real tree series of the big-heap workload (scale 40: 200
// GCs) with a fine-grained chain (type, site, thread, array length in power-of-two buckets: about
// 20k meta nodes; --chain picks another).
//
//   the series (GCs, meta nodes; its build is not what is measured); the time one pass over all
//   its columns takes (the floor of any layout that reads every count); then per city (every node
//   shown, and pruned to 90% / 9 / "Other"): the layout (the order, pruning and peaks of every
//   node read from the columns, the treemap, labels) with 1 and 2 threads, districts and
//   buildings; one tween step (cityAt at a fractional t); the frame (culling, merging, labels,
//   legend into a draw list) with the boxes it holds, from the overview, from far away and from
//   the street, merged and not; and that draw list rendered offscreen at 1280x720 by the Vulkan
//   renderer (lavapipe without a GPU) without and with 4x MSAA. Milliseconds, medians of repeated
//   runs. Targets: layout <= 20 ms, tween <= 2 ms for ~20k buildings; a 20k-building city at
//   >= 30 fps (<= 33 ms a frame) on lavapipe.
//
// usage: bench_layout [--scale N] [--trace-dir DIR] [--chain CHAIN]
#include <algorithm>
#include <chrono>
#include <cstdio>
#include <functional>
#include <memory>
#include <string>
#include <vector>

#include "bench_timing.h"
#include "bench_traces.h"
#include "classify/series.h"
#include "render/renderer.h"
#include "scene/camera.h"
#include "scene/city_layout.h"
#include "scene/city_scene.h"
#include "scene/city_state.h"

using namespace memcity;
using namespace memcity::scene;
using Clock = std::chrono::steady_clock;

namespace {

using bench::medianMs;

constexpr const char* kDefaultChain = "type,site,thread,length(buckets=1)";

// Renderers without and with multisampling (none when there is no Vulkan device).
struct Renderers {
    std::unique_ptr<render::Renderer> single, msaa;
};

void benchCity(const TreeSeries& series, const char* name, const CityLayoutOptions& options, Renderers& r) {
    CityLayout layout;
    std::printf("\n-- %s --\n", name);
    for (unsigned threads : {1u, 2u}) {
        CityLayoutOptions o = options;
        o.threads = threads;
        const double order_ms = medianMs(7, [&] {
            SeriesOrder order = orderSeries(series, o.sort, o.metric, o.prune, threads);
            (void)order;
        });
        const double layout_ms = medianMs(7, [&] { layout = std::move(*buildCityLayout(series, o)); });
        std::printf("layout, %u thread%s: %8.2f ms (order, pruning and peaks of every node: %.2f ms)\n",
                    threads, threads == 1 ? " " : "s", layout_ms, order_ms);
    }
    std::printf("%zu districts, %zu buildings\n", layout.districts.size(), layout.buildings.size());

    CityState state;
    const double t = static_cast<double>(series.gcCount() - 1) * 0.6 + 0.37;  // between two GCs
    double tick = 0;
    const double tween_ms = medianMs(41, [&] {
        cityAt(layout, series, t + tick, {}, state);
        tick = tick > 0 ? 0 : 0.25;  // alternate, so both columns change
    });
    size_t standing = 0;
    for (const BuildingState& b : state.buildings)
        standing += b.alpha > 0;
    std::printf("tween step (cityAt at t = %.2f, %zu buildings standing):  %8.3f ms\n", t, standing,
                tween_ms);

    const glm::vec2 viewport(1280, 720);
    struct View {
        const char* name;
        OrbitCamera camera;
    };
    std::vector<View> views;
    views.push_back({"overview", *cameraPreset("overview", layout.bounds, viewport.x / viewport.y)});
    OrbitCamera far = views[0].camera;
    far.dolly(3.0f);
    far.fitClipPlanes(layout.bounds);
    views.push_back({"far (overview x3)", far});
    views.push_back({"street", *cameraPreset("street", layout.bounds, viewport.x / viewport.y)});
    std::printf("%-20s %-7s %9s %8s %8s %8s %8s %8s %10s %10s\n", "frame", "merge", "ms", "boxes", "plates",
                "single", "merged", "culled", "render 1x", "render 4x");
    for (const View& v : views) {
        const render::CameraMatrices m = v.camera.matrices();
        for (bool merge : {true, false}) {
            CitySceneOptions o;
            o.merge = merge;
            render::DrawList dl;
            CitySceneStats stats;
            const double ms = medianMs(15, [&] {
                dl.clear();
                stats = buildCityDrawList(layout, state, m, viewport, o, dl);
            });
            double draw_ms[2] = {0, 0};
            for (int i = 0; i < 2; ++i) {
                render::Renderer* rr = i == 0 ? r.single.get() : r.msaa.get();
                if (!rr) continue;
                (void)rr->renderOffscreen(dl, 1280, 720);  // warm-up: buffers grow once
                draw_ms[i] = medianMs(7, [&] { (void)rr->renderOffscreen(dl, 1280, 720); });
            }
            std::printf("%-20s %-7s %9.3f %8zu %8zu %8zu %8zu %8zu %10.1f %10.1f\n", v.name,
                        merge ? "on" : "off", ms, dl.boxes.size(), stats.plates, stats.buildings,
                        stats.merged_boxes, stats.culled_buildings, draw_ms[0], draw_ms[1]);
        }
    }
}

}  // namespace

int main(int argc, char** argv) {
    // --chain is ours; the rest goes to the shared trace options.
    std::string chain_spec = kDefaultChain;
    std::vector<char*> rest = {argv[0]};
    for (int i = 1; i < argc; ++i) {
        if (std::string(argv[i]) == "--chain" && i + 1 < argc)
            chain_spec = argv[++i];
        else
            rest.push_back(argv[i]);
    }
    bench::TraceArgs args;
    if (!bench::parseTraceArgs(static_cast<int>(rest.size()), rest.data(), "bench_layout [--chain CHAIN]",
                               &args))
        return 1;
    auto workload = bench::openBigHeap(args, false);
    if (!workload) return 1;
    auto chain = parseChain(chain_spec);
    if (!chain) {
        std::fprintf(stderr, "%s\n", chain.error().message.c_str());
        return 1;
    }
    SeriesOptions so;
    so.threads = 2;
    const auto t0 = Clock::now();
    auto series = TreeSeries::build(*workload->history, *chain, so);
    if (!series) {
        std::fprintf(stderr, "%s\n", series.error().message.c_str());
        return 1;
    }
    std::printf(
        "== memory city, big-heap scale %u, chain %s: %zu GCs, %zu meta nodes (series built in %.1f s) ==\n",
        args.scale, chain_spec.c_str(), series->gcCount(), series->size(),
        std::chrono::duration<double>(Clock::now() - t0).count());
    // The floor of any layout that reads every count: one pass over all columns.
    {
        uint64_t total = 0;
        const double ms = medianMs(5, [&] {
            for (size_t g = 0; g < series->gcCount(); ++g)
                series->forEachCount(g, [&](uint32_t, const SeriesCounts& c) { total += c.bytes; });
        });
        std::printf(
            "reading every column once (%zu x %zu counts, %.0f MiB): %.2f ms\n", series->gcCount(),
            series->size(),
            static_cast<double>(series->gcCount() * series->size() * sizeof(SeriesCounts)) / (1 << 20), ms);
        if (total == 0) std::printf("(an empty series)\n");
    }
    Renderers r;
    for (uint32_t samples : {1u, 4u}) {
        render::RendererOptions ro;
        ro.samples = samples;
        auto made = render::Renderer::create(ro);
        if (!made) {
            std::printf("no renderer (%s): frames are not drawn\n", made.error().message.c_str());
            break;
        }
        (samples == 1 ? r.single : r.msaa) = std::move(*made);
    }
    if (r.single)
        std::printf("renderer: %s, %u and %u samples\n", r.single->deviceName().c_str(),
                    r.single->sampleCount(), r.msaa ? r.msaa->sampleCount() : 0);
    CityLayoutOptions all;
    all.prune.enabled = false;
    benchCity(*series, "every node shown", all, r);
    benchCity(*series, "pruned (90% / 9 / Other)", CityLayoutOptions{}, r);
    std::printf(
        "\ntargets: layout <= 20 ms, tween <= 2 ms for ~20k buildings; a 20k-building city drawn in "
        "<= 33 ms (30 fps) at 1280x720 on lavapipe\n");
    return 0;
}
