// memcity render FILE --view heapmap [--gc N] [--stream S] [--tile BYTES] [--tile-px N]
//                [--space NAME] [--select PATHS [--classify CHAIN]] [--from A] [--to B]
//                [--frames K] [--size WxH] -o OUT.png|DIR
#include <sys/stat.h>

#include <cerrno>
#include <cmath>
#include <cstring>
#include <iostream>
#include <map>
#include <numeric>

#include "classify/heap_map_at.h"
#include "classify/tree.h"
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
#include "scene/heap_map_scene.h"
#include "util/parallel.h"

namespace memcity::cli {
namespace {

int fail(const std::string& message) {
    std::cerr << message << "\n";
    return 1;
}

}  // namespace

int renderHeapMap(const Args& args) {
    const std::optional<std::string> output = args.value("--output");
    if (!output || output->empty())
        return fail("memcity render: -o OUT.png (or -o DIR with --frames) is required");
    for (const char* option :
         {"--camera", "--drill", "--pins", "--shape", "--diff-from", "--scaled", "--unscaled"})
        if (args.has(option))
            return fail(std::string("memcity render: ") + option + " is not for --view heapmap");
    auto stream = scene::parseHeapStream(args.value("--stream").value_or("used"));
    if (!stream) return fail("memcity render: --stream: " + stream.error().message);
    auto size_arg = args.sizeValue("--size", {1280, 720}, {64, 64}, {8192, 8192});
    if (!size_arg) return fail(size_arg.error().message);
    const glm::uvec2 size{size_arg->width, size_arg->height};
    auto tile_px = args.unsignedValue("--tile-px", 10, 2, 64);
    if (!tile_px) return fail(tile_px.error().message);
    uint64_t tile_bytes = 0;
    if (auto text = args.value("--tile"); text && (!parseBytes(*text, &tile_bytes) || tile_bytes < 64))
        return fail("memcity render: --tile takes a size of at least 64 bytes (512, 64k, 1m), not '" +
                    printable(*text, 40) + "'");
    auto frames = args.unsignedValue("--frames", 1, 2, 10000);
    if (!frames) return fail(frames.error().message);
    const bool animate = args.has("--frames");
    if (animate && args.has("--gc"))
        return fail(
            "memcity render: --gc picks one picture; --frames animates --from..--to (give one of them)");
    auto opts = readClassifyArgs(args, "render", "type,site", "bytes");
    if (!opts) return fail(opts.error().message);
    if (*stream == scene::HeapStream::kSelected && !args.has("--select"))
        return fail("memcity render: --stream selected needs --select PATHS (the groups to show)");

    auto loaded = loadOrSay(args.positionals()[0]);
    if (!loaded) return 1;
    const HeapHistory& h = *loaded->history;
    if (h.gcCount() == 0) return fail("memcity render: " + loaded->trace->path() + ": the trace has no GCs");
    if (h.sampled()) {
        // No addresses: the spaces' tops are all there is to draw.
        if (h.spaces().empty())
            return fail("memcity render: " + loaded->trace->path() + ": " +
                        std::string(scene::kNoAddressesReason) +
                        ", and this one has no collector's spaces: there is no heap map to draw");
        if (*stream != scene::HeapStream::kUsed)
            return fail("memcity render: --stream " + std::string(scene::heapStreamName(*stream)) + ": " +
                        loaded->trace->path() + ": " + std::string(scene::kNoAddressesReason) +
                        " (only --stream used, the spaces' tops, can be drawn)");
    }
    if (h.spaces().empty() && h.addresses().empty())
        return fail("memcity render: " + loaded->trace->path() +
                    " has neither the collector's spaces nor the objects' addresses (" + noLayoutReason(h) +
                    ")");
    auto window = readGcWindow(args, h, "render");
    if (!window) return fail(window.error().message);
    auto gc = args.unsignedValue("--gc", window->to);
    if (!gc) return fail(gc.error().message);
    if (*gc >= h.gcCount()) return fail("memcity render: " + h.gcRangeError(*gc));
    printDiagnostics(*loaded, std::cerr, false);

    // The history graph's space: the one named, else the largest at the GC drawn.
    const SymbolTable& symbols = loaded->trace->symbols();
    std::string space = args.value("--space").value_or("");
    if (space.empty()) space = largestSpaceAt(h, static_cast<uint32_t>(*gc));
    std::vector<uint32_t> window_gcs(window->to - window->from + 1);
    std::iota(window_gcs.begin(), window_gcs.end(), window->from);
    scene::HeapMapInputs in;
    in.title = baseName(loaded->trace->path());
    in.gcs = h.gcs();
    in.history_space = space;
    in.history = spaceExtents(h, space, window_gcs);
    in.sampled = h.sampled();
    if (!space.empty() && in.history.empty()) {
        std::string names;
        for (uint32_t id = 1; id <= symbols.counts().spaces; ++id)
            names += (names.empty() ? "" : ", ") + std::string(symbols.space(id).name);
        if (!h.regions().empty()) names += (names.empty() ? "" : ", ") + spaceName(symbols, kG1HeapSpace);
        return fail("memcity render: --space: no space '" + printable(space, 60) + "' in " +
                    loaded->trace->path() + " (its spaces: " + (names.empty() ? "none" : names) + ")");
    }

    scene::HeapMapViewOptions vo;
    vo.stream = *stream;
    vo.tile_px = static_cast<float>(*tile_px);
    auto renderer = render::Renderer::create({});
    if (!renderer) return fail("memcity render: " + renderer.error().message);
    render::Renderer& r = **renderer;
    vo.measure = [&r](std::string_view text, float px) { return r.textWidth(text, px); };
    scene::HeapMapScene scene(std::move(in), vo, glm::vec2(size));

    // One tile size for every picture: the one that fits the GC of the window with the most
    // capacity.
    if (tile_bytes == 0) {
        const GcSpacesEvent* widest = widestSpaces(h, window_gcs);
        const scene::PixelRect bands = scene.bandsRect();
        if (widest) tile_bytes = fittingTileBytes(*widest, bands.width(), bands.height(), vo.tile_px, 18.0);
    }
    HeapMapRequest request;
    request.tile_bytes = tile_bytes ? tile_bytes : 64 << 10;
    request.chain = &opts->chain;
    if (auto select = args.value("--select")) request.selected = parseNodePaths(*select);
    request.dying = *stream == scene::HeapStream::kDying;
    request.threads = defaultThreads();
    std::map<uint32_t, HeapMap> maps;
    auto mapAt = [&](uint32_t g) -> Result<const HeapMap*> {
        if (auto it = maps.find(g); it != maps.end()) return &it->second;
        request.gc = g;
        auto m = heapMapAt(h, request);
        if (!m) return m.error();
        return &maps.emplace(g, std::move(*m)).first->second;
    };
    if (tile_bytes == 0) {
        // No spaces (G1, a heap dump): the tiles that fit the drawn GC's objects' range.
        auto first = mapAt(static_cast<uint32_t>(*gc));
        if (!first) return fail("memcity render: " + first.error().message);
        GcSpacesEvent range;
        for (const SpaceMap& s : (*first)->spaces)
            range.spaces.push_back(s.state);
        const scene::PixelRect bands = scene.bandsRect();
        request.tile_bytes = tile_bytes =
            fittingTileBytes(range, bands.width(), bands.height(), vo.tile_px, 18.0);
        maps.clear();
    }
    // The history graph's tiles: one replay over the window, each GC with addresses mapped (and
    // classified, for the selection's stream).
    if (!space.empty()) {
        SpaceHistoryRequest hr;
        hr.space = space;
        hr.from = window->from;
        hr.to = window->to;
        hr.tile_bytes = tile_bytes;
        hr.dying = request.dying;
        hr.threads = request.threads;
        if (*stream == scene::HeapStream::kSelected) hr.chain = request.chain, hr.selected = request.selected;
        auto rows = spaceHistory(h, hr);
        if (!rows) return fail("memcity render: " + rows.error().message);
        scene.setHistory(std::move(*rows));
    }
    render::DrawList list;
    auto draw = [&](uint32_t g, double f, const std::string& path) -> bool {
        auto a = mapAt(g);
        if (!a) return fail("memcity render: " + a.error().message) == 0;
        const HeapMap* b = nullptr;
        if (f > 0 && g + 1 <= window->to) {
            auto next = mapAt(g + 1);
            if (!next) return fail("memcity render: " + next.error().message) == 0;
            b = *next;
        }
        scene.compose(**a, b, f, list);
        auto image = r.renderToImage(list, size.x, size.y);
        if (!image) return fail("memcity render: " + image.error().message) == 0;
        if (Status s = render::writePng(path, *image); !s)
            return fail("memcity render: " + s.error().message) == 0;
        return true;
    };
    if (!animate) {
        if (!draw(static_cast<uint32_t>(*gc), 0, *output)) return 1;
        std::cerr << "wrote " << *output << " (heapmap, GC " << *gc << ", " << formatBytes(tile_bytes)
                  << " tiles, " << size.x << "x" << size.y << ", " << r.deviceName() << ")\n";
        return 0;
    }
    struct stat st {};
    if (!(::stat(output->c_str(), &st) == 0 && S_ISDIR(st.st_mode)) && ::mkdir(output->c_str(), 0777) != 0)
        return fail("memcity render: cannot create the directory " + *output + ": " + std::strerror(errno));
    const double span = window->to - window->from;
    for (uint64_t k = 0; k < *frames; ++k) {
        const double t = span * static_cast<double>(k) / static_cast<double>(*frames - 1);
        const auto g = static_cast<uint32_t>(window->from + std::floor(t));
        char name[32];
        std::snprintf(name, sizeof name, "/frame_%04llu.png", static_cast<unsigned long long>(k));
        if (!draw(std::min(g, window->to), t - std::floor(t), *output + name)) return 1;
    }
    std::cerr << "wrote " << *frames << " frames to " << *output << " (heapmap, GC " << window->from << ".."
              << window->to << ")\n";
    return 0;
}

}  // namespace memcity::cli
