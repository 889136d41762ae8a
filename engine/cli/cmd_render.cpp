// memcity render FILE [--view city|sunburst|icicle|timeline] [--gc N] [--classify CHAIN] [--filter EXPR]
//                [--metric objects|bytes] [--sort growth|start|end] [--size WxH] [--camera NAME]
//                [--drill PATH] [--scaled] [--all] -o OUT.png
// memcity render FILE ... [--from A] [--to B] --frames K -o DIR
//
// Draws a view offscreen with the Vulkan renderer (lavapipe when there is no GPU) and writes PNGs.
// The series spans --from..--to (default: the whole trace), so the city's lots and the camera are
// those of that whole window: a picture at GC N and frame k of an animation over the same window
// put every building in the same place.
#include <sys/stat.h>

#include <algorithm>
#include <cerrno>
#include <chrono>
#include <cstdio>
#include <cstring>
#include <iostream>

#include "classify/diff.h"
#include "cli/args.h"
#include "cli/classify_args.h"
#include "cli/commands.h"
#include "cli/load.h"
#include "cli/one_trace.h"
#include "cli/series_build.h"
#include "cli/text_format.h"
#include "render/png.h"
#include "render/renderer.h"
#include "scene/estimates.h"
#include "scene/views.h"
#include "util/parallel.h"
#include "windows/windows.h"

namespace memcity::cli {
namespace {

constexpr uint32_t kMaxSide = 8192;
constexpr uint64_t kMaxFrames = 10000;

int fail(const std::string& message) {
    std::cerr << message << "\n";
    return 1;
}

bool isDirectory(const std::string& path) {
    struct stat st {};
    return ::stat(path.c_str(), &st) == 0 && S_ISDIR(st.st_mode);
}

}  // namespace

int runRender(const Words& words) {
    auto args = oneTraceArgs("render", words);
    if (!args) return args.status();
    const std::optional<std::string> output = args->value("--output");
    if (!output || output->empty())
        return fail("memcity render: -o OUT.png (or -o DIR with --frames) is required");

    if (args->value("--view") == "heapmap") return renderHeapMap(*args);
    auto view = scene::parseViewKind(args->value("--view").value_or("city"));
    if (!view) return fail("memcity render: " + view.error().message);
    auto opts = readClassifyArgs(*args, "render", "type,site", "bytes");
    if (!opts) return fail(opts.error().message);
    auto sort = parseSort(args->value("--sort").value_or("growth"), "render");
    if (!sort) return fail(sort.error().message);
    auto size_arg = args->sizeValue("--size", {1280, 720}, {16, 16}, {kMaxSide, kMaxSide});
    if (!size_arg) return fail(size_arg.error().message);
    const glm::uvec2 size{size_arg->width, size_arg->height};
    auto frames = args->unsignedValue("--frames", 1, 2, kMaxFrames);
    if (!frames) return fail(frames.error().message);
    auto samples = args->unsignedValue("--samples", 4, 1, 64);
    if (!samples) return fail(samples.error().message);
    const bool animate = args->has("--frames");
    if (animate && args->has("--gc"))
        return fail(
            "memcity render: --gc picks one picture; --frames animates --from..--to (give one of them)");
    const std::string camera_name = args->value("--camera").value_or("overview");
    if (*view == scene::ViewKind::kCity) {
        bool known = false;
        for (std::string_view n : scene::cameraPresetNames())
            known = known || n == camera_name;
        if (!known) {
            std::string names;
            for (std::string_view n : scene::cameraPresetNames())
                names += (names.empty() ? "" : ", ") + std::string(n);
            return fail("memcity render: unknown camera '" + printable(camera_name, 40) + "' (expected " +
                        names + ")");
        }
    } else if (args->has("--camera")) {
        return fail("memcity render: --camera is for the city view");
    }
    const bool trees = *view == scene::ViewKind::kTimelineTrees;
    for (const char* option : {"--pins", "--shape", "--unscaled"})
        if (!trees && args->has(option))
            return fail(std::string("memcity render: ") + option + " is for --view timeline-trees");
    if (args->has("--diff-from")) {
        if (animate) return fail("memcity render: --diff-from draws one picture (of --gc), not --frames");
        if (!scene::viewInfo(*view).diff)
            return fail("memcity render: --diff-from is for the city, sunburst and icicle views");
    }
    if (args->has("--scaled") && args->has("--unscaled"))
        return fail("memcity render: --scaled and --unscaled exclude each other");
    std::vector<uint32_t> pins;
    if (auto list = args->value("--pins")) {
        for (size_t at = 0; at <= list->size();) {
            size_t comma = std::min(list->find(',', at), list->size());
            uint64_t gc = 0;
            if (!parseUnsigned(std::string_view(*list).substr(at, comma - at), &gc) || gc > UINT32_MAX)
                return fail("memcity render: --pins expects GC numbers separated by commas, got '" +
                            printable(*list, 60) + "'");
            pins.push_back(static_cast<uint32_t>(gc));
            at = comma + 1;
        }
    }
    scene::RadialShape shape = scene::RadialShape::kSunburst;
    bool cities = false;
    if (auto s = args->value("--shape")) {
        if (*s == "icicle")
            shape = scene::RadialShape::kIcicle;
        else if (*s == "city")
            cities = true;
        else if (*s != "sunburst")
            return fail("memcity render: --shape expects sunburst, icicle or city, got '" +
                        printable(*s, 40) + "'");
    }
    if (animate && !isDirectory(*output) && ::mkdir(output->c_str(), 0777) != 0)
        return fail("memcity render: cannot create the directory " + *output + ": " + std::strerror(errno));

    // Reachable bytes (the timeline, the leak window) come from the reference snapshots.
    auto loaded = loadOrSay(args->positionals()[0]);
    if (!loaded) return 1;
    const HeapHistory& h = *loaded->history;
    if (h.gcCount() == 0) return fail("memcity render: " + loaded->trace->path() + ": the trace has no GCs");
    auto window = readGcWindow(*args, h, "render");
    if (!window) return fail(window.error().message);
    auto gc = args->unsignedValue("--gc", window->to);
    if (!gc) return fail(gc.error().message);
    if (*gc < window->from || *gc > window->to) {
        if (*gc >= h.gcCount()) return fail("memcity render: " + h.gcRangeError(*gc));
        return fail("memcity render: --gc " + std::to_string(*gc) + " is outside --from " +
                    std::to_string(window->from) + " --to " + std::to_string(window->to));
    }
    for (uint32_t pin : pins)
        if (pin < window->from || pin > window->to) {
            if (pin >= h.gcCount()) return fail("memcity render: --pins: " + h.gcRangeError(pin));
            return fail("memcity render: --pins: GC " + std::to_string(pin) + " is outside --from " +
                        std::to_string(window->from) + " --to " + std::to_string(window->to));
        }
    std::optional<uint32_t> diff_from;
    if (args->has("--diff-from")) {
        auto from = args->unsignedValue("--diff-from", 0);
        if (!from) return fail(from.error().message);
        if (*from >= h.gcCount()) return fail("memcity render: --diff-from: " + h.gcRangeError(*from));
        if (*from < window->from || *from > *gc)
            return fail("memcity render: --diff-from " + std::to_string(*from) + " must lie in --from " +
                        std::to_string(window->from) + " .. --gc " + std::to_string(*gc));
        diff_from = static_cast<uint32_t>(*from);
    }
    // A sampled recording's references exist at its snapshot GCs only: not over a series, as the
    // window's views take them (the explorer refuses them too).
    if (h.sampled() && opts->chain.needsReferences())
        return fail("memcity render: '" + opts->chain.spec() +
                    "' reads references: " + scene::sampledReferencesReason(h.gcs()));
    printDiagnostics(*loaded, std::cerr, false);

    auto series = buildSeries(*loaded, opts->chain, {.window = *window}, "render");
    if (!series) return fail(series.error().message);

    std::vector<Window> windows;
    if (auto found = findWindows(h.gcs()); found) windows = std::move(found->windows);

    render::RendererOptions ro;
    ro.samples = static_cast<uint32_t>(*samples);
    ro.validation = args->has("--validate");
    auto renderer = render::Renderer::create(ro);
    if (!renderer) return fail("memcity render: " + renderer.error().message);
    render::Renderer& r = **renderer;

    scene::ViewInputs in;
    in.series = &*series;
    in.gcs = h.gcs();
    in.windows = windows;
    in.title = baseName(loaded->trace->path());
    in.chain = opts->chain.spec();
    in.sampling_interval = h.trace().header().sampling_interval;  // the title says so; figures marked ≈
    scene::ViewOptions vo;
    vo.kind = *view;
    vo.metric = opts->metric;
    vo.sort = *sort;
    vo.prune.enabled = !opts->all;
    vo.city_prune.enabled = !opts->all;
    vo.camera = camera_name;
    if (args->has("--depth")) vo.depth = static_cast<uint32_t>(std::min<uint64_t>(opts->depth, 64));
    // The timeline trees are scaled unless asked otherwise: absolute growth is their point.
    vo.scale = args->has("--scaled") || (trees && !args->has("--unscaled")) ? scene::RadialScale::kScaled
                                                                            : scene::RadialScale::kUnscaled;
    vo.pins = pins;
    vo.trees_shape = shape;
    vo.trees_cities = cities;
    vo.measure = [&r](std::string_view text, float px) { return r.textWidth(text, px); };
    if (auto drill = args->value("--drill")) {
        const auto paths = parseNodePaths(*drill);
        if (paths.size() != 1)
            return fail("memcity render: --drill takes one node path, like 'java.util.HashMap'");
        vo.drill_root = series->find(paths[0]);
        if (vo.drill_root == kNoNode)
            return fail("memcity render: --drill: no group '" + printable(*drill, 120) +
                        "' in the series ('memcity series' lists the groups)");
    }
    if (auto select = args->value("--select")) {
        for (const auto& path : parseNodePaths(*select)) {
            const uint32_t id = series->find(path);
            if (id == kNoNode)
                return fail("memcity render: --select: no group '" + printable(*select, 120) +
                            "' in the series");
            vo.selected.push_back(id);
        }
    }
    if (diff_from) {
        TreeOptions to;
        to.threads = defaultThreads();
        auto diff = HeapDiff::between(h, *diff_from, static_cast<uint32_t>(*gc), opts->chain, to);
        if (!diff) return fail("memcity render: " + loaded->trace->path() + ": " + diff.error().message);
        vo.diff = std::make_shared<const scene::SeriesDiff>(scene::SeriesDiff::lay(*diff, *series));
    }
    auto composer = scene::ViewComposer::prepare(in, vo, glm::vec2(size));
    if (!composer) return fail("memcity render: " + composer.error().message);

    render::DrawList list;
    auto draw = [&](double t, const std::string& path) -> bool {
        composer->compose(t, list);
        auto image = r.renderToImage(list, size.x, size.y);
        if (!image) {
            std::cerr << "memcity render: " << image.error().message << "\n";
            return false;
        }
        if (Status s = render::writePng(path, *image); !s) {
            std::cerr << "memcity render: " << s.error().message << "\n";
            return false;
        }
        return true;
    };

    // With --validate, any message of the validation layer fails the command.
    auto validated = [&]() -> bool {
        if (!ro.validation || r.validationMessages() == 0) return true;
        std::cerr << "memcity render: the Vulkan validation layer reported " << r.validationMessages()
                  << " message(s) (printed above)\n";
        return false;
    };

    const auto start = std::chrono::steady_clock::now();
    if (!animate) {
        if (!draw(composer->indexTimeOf(static_cast<uint32_t>(*gc)), *output) || !validated()) return 1;
        std::cerr << "wrote " << *output << " (" << scene::viewKindName(*view) << ", GC " << *gc << ", "
                  << size.x << "x" << size.y << ", " << r.deviceName() << ")\n";
        return 0;
    }
    const double last_t = composer->maxT();
    for (uint64_t k = 0; k < *frames; ++k) {
        const double t = last_t * static_cast<double>(k) / static_cast<double>(*frames - 1);
        char name[32];
        std::snprintf(name, sizeof name, "/frame_%04llu.png", static_cast<unsigned long long>(k));
        if (!draw(t, *output + name)) return 1;
    }
    if (!validated()) return 1;
    const double s = std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
    std::cerr << "wrote " << *frames << " frames to " << *output << " (" << scene::viewKindName(*view)
              << ", GC " << window->from << ".." << window->to << ", " << size.x << "x" << size.y << ", "
              << formatDuration(static_cast<int64_t>(s * 1e9 / static_cast<double>(*frames)))
              << " per frame, " << r.deviceName() << ")\n";
    return 0;
}

extern const Command kRender{
    .name = "render",
    .summary = "draw the city, sunburst, icicle, timeline or timeline trees at a GC, or an animation, to PNG",
    .usage = R"(usage: memcity render FILE [--view V] [--gc N] [--classify CHAIN] [--filter EXPR] [--metric M]
                      [--sort S] [--size WxH] [--camera NAME] [--drill PATH] [--select PATHS]
                      [--scaled] [--all] [--depth D] [--diff-from A] -o OUT.png
       memcity render FILE --view timeline-trees --pins A,B,... [--shape sunburst|icicle|city]
                      [--unscaled] [same options] -o OUT.png
       memcity render FILE [same options] [--from A] [--to B] --frames K -o DIR

Draws a view of the heap offscreen with Vulkan (Mesa's lavapipe when there is no GPU) and
writes a PNG; with --frames, K pictures from GC A to GC B (DIR/frame_0000.png, ...), tweened
between the GCs. The same input gives the same picture every run on the same driver.

The groups come from a tree series over GCs A..B (default: the whole trace; see 'memcity
series --help'), so a building keeps its lot and the camera its place at every GC: the
picture at GC N and an animation over the same window show the city from the same point.

views:
  city       districts for the groups that hold groups, buildings for the rest: footprint by
             the group's peak over the window, height by its size now, colour by its growth
             since the window's first GC (blue shrinking, grey stable, orange growing,
             vermillion strongly growing); stable and shrinking buildings are translucent
  sunburst   the local view (the drill-down group and two levels below it) beside the global
             view (the whole tree, the drill-down branch highlighted)
  icicle     the same as rows of rectangles
  timeline   live bytes after each GC, reachable bytes where a reference snapshot was taken,
             GC pauses, and the suspicious windows ('memcity windows') as bands
  timeline-trees
             STAG20's timeline-based view: a small tree per pinned GC side by side, and the
             --gc's tree outlined, over the memory chart with the pins marked; scaled, so a
             growing group grows from tree to tree
  heapmap    GCspy's view: each of the collector's spaces as a band of tiles in address
             order coloured by --stream, and a history graph of one space (--space) before
             and after each GC of the window (docs/heapmap.md)

)",
    .options =
        {
            {"--view", "V", "", "city (default), sunburst, icicle, timeline, timeline-trees or heapmap"},
            {"--gc", "N", "", "the GC to draw (default: the last of the window)"},
            {"--from", "A", "", ""},
            {"--to", "B", "", "the window of GCs the groups and the layout come from (default: all)"},
            {"--frames", "K", "", "draw K pictures evenly from A to B into the directory given by -o"},
            {"--classify", "C", "", "the classifier chain (default type,site; see 'memcity report --help')"},
            {"--filter", "EXPR", "", "classify only the objects for which EXPR is true"},
            {"--metric", "M", "", "bytes (default) or objects: what sizes show"},
            {"--sort", "S", "", "growth (default), start or end: the fixed order of each group's children"},
            {"--size", "WxH", "", "picture size in pixels (default 1280x720)"},
            {"--camera", "NAME", "", "city camera: overview (default), top, front or street"},
            {"--drill", "PATH", "",
             "sunburst / icicle: the group to drill down to, its labels separated by '/'"},
            {"--select", "PATHS", "", "draw these groups selected (paths separated by ';')"},
            {"--diff-from", "A", "",
             "the heap diff as a view (ICPE18): city, sunburst or icicle coloured by\nwhat dominates each "
             "group since GC A at --gc, born (vermillion), died (blue)\nor permanent (grey); the title bar "
             "gives the totals ('memcity diff' lists them)"},
            {"--scaled", "", "", "sunburst / icicle: the chart's extent follows the heap's size over time"},
            {"--pins", "A,B,...", "", "timeline-trees: the GCs to draw a tree for (within the window)"},
            {"--shape", "S", "",
             "timeline-trees: sunburst (default) or icicle trees, or city: small cities\non one layout, so "
             "a lot stands at the same place in each"},
            {"--unscaled", "", "", "timeline-trees: every tree fills its panel"},
            {"--stream", "S", "",
             "heapmap: what colours a tile: used (default), objects, age, selected\n(the --select groups' "
             "share) or dying (at the next GC)"},
            {"--tile", "BYTES", "", "heapmap: the bytes of a tile (default: the smallest that fits)"},
            {"--tile-px", "N", "", "heapmap: a tile's side in pixels (default 10)"},
            {"--space", "NAME", "", "heapmap: the space of the history graph (default: the largest)"},
            {"--all", "", "", "every group, no \"Other\""},
            {"--depth", "D", "", "levels below the root to draw (default 8)"},
            {"--samples", "N", "", "multisampling (default 4, lowered to what the device supports)"},
            {"--validate", "", "", "turn the Vulkan validation layer on (for debugging)"},
            {"--output", "F", "-o", "the PNG to write, or the directory for --frames"},
        },
    .run = [](const Words& a, const Services&) { return runRender(a); },
};

}  // namespace memcity::cli
