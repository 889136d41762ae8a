// bench_render: milliseconds per offscreen frame (renderOffscreen: build the instance data,
// record, submit, wait for the GPU) at 1280x720 for a city of N boxes on a grid seen from an
// overview camera, with 4x MSAA and without; then a 2D overlay of arcs and labels. Median of
// --frames frames after --warmup frames. On lavapipe the vertex work is single-threaded.
//
// usage: bench_render [--frames N] [--warmup N] [--width W] [--height H] [--max-boxes N]
#include <glm/gtc/matrix_transform.hpp>

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <numbers>
#include <string>
#include <vector>

#include "render/renderer.h"

using namespace memcity;
using namespace memcity::render;

namespace {

struct Args {
    int frames = 20;
    int warmup = 3;
    uint32_t width = 1280, height = 720;
    uint32_t max_boxes = 100000;
};

// N buildings on a square grid with streets, heights and colours from a fixed hash.
DrawList city(uint32_t n, float aspect) {
    DrawList list;
    list.clear_color = rgba(22, 24, 29);
    const auto side = static_cast<uint32_t>(std::ceil(std::sqrt(static_cast<double>(n))));
    const float pitch = 1.5f, extent = static_cast<float>(side) * pitch;
    const uint32_t palette[] = {rgba(86, 180, 233), rgba(230, 159, 0), rgba(0, 158, 115),
                                rgba(204, 121, 167)};
    list.boxes.reserve(n);
    for (uint32_t i = 0; i < n; ++i) {
        const uint32_t gx = i % side, gz = i / side;
        uint32_t h = i * 2654435761u;
        h ^= h >> 15;
        const float x = static_cast<float>(gx) * pitch - extent / 2,
                    z = static_cast<float>(gz) * pitch - extent / 2;
        const float height = 0.3f + static_cast<float>(h % 1000) / 1000.0f * 4.0f;
        list.boxes.push_back({{x, 0, z}, {x + 1.0f, height, z + 1.0f}, palette[h % 4], i, kFlagNone});
    }
    const glm::vec3 eye(0.0f, extent * 0.8f, extent * 0.9f);
    list.camera.view = glm::lookAt(eye, glm::vec3(0.0f), glm::vec3(0, 1, 0));
    list.camera.projection = glm::perspective(glm::radians(50.0f), aspect, 0.5f, extent * 4.0f);
    list.camera.eye = eye;
    return list;
}

// A sunburst of `arcs` arcs over 4 rings and `labels` labels.
DrawList overlay(uint32_t arcs, uint32_t labels, uint32_t width, uint32_t height) {
    DrawList list;
    const glm::vec2 c(static_cast<float>(width) / 2, static_cast<float>(height) / 2);
    const uint32_t per_ring = arcs / 4;
    constexpr float kTwoPi = 2 * std::numbers::pi_v<float>;
    for (uint32_t ring = 0; ring < 4; ++ring)
        for (uint32_t k = 0; k < per_ring; ++k) {
            const float a0 = kTwoPi * static_cast<float>(k) / static_cast<float>(per_ring);
            const float a1 = kTwoPi * static_cast<float>(k + 1) / static_cast<float>(per_ring) - 0.002f;
            const float r0 = 60.0f + 70.0f * static_cast<float>(ring);
            list.arcs.push_back(
                {c, r0, r0 + 66.0f, a0, a1, rgba(static_cast<uint8_t>(k * 37), 120, 200), k, 0});
        }
    for (uint32_t i = 0; i < labels; ++i) {
        const float x = static_cast<float>((i * 97) % (width - 100)),
                    y = static_cast<float>((i * 31) % (height - 20));
        list.labels.push_back(
            {{x, y}, "java.util.HashMap$Node[]", rgba(230, 232, 236), 12.0f, TextAnchor::kTopLeft, 0});
    }
    return list;
}

double median(std::vector<double> v) {
    std::sort(v.begin(), v.end());
    return v.empty() ? 0.0 : v[v.size() / 2];
}

struct Timing {
    double wall = 0, gpu = 0, cpu = 0;
    uint32_t draws = 0;
};

bool measure(Renderer& r, const DrawList& list, const Args& args, Timing* out) {
    std::vector<double> wall, gpu, cpu;
    for (int i = 0; i < args.warmup + args.frames; ++i) {
        Status st = r.renderOffscreen(list, args.width, args.height);
        if (!st) {
            std::fprintf(stderr, "bench_render: %s\n", st.error().message.c_str());
            return false;
        }
        if (i < args.warmup) continue;
        const FrameStats s = r.lastFrame();
        wall.push_back(s.wall_ms);
        gpu.push_back(s.gpu_ms);
        cpu.push_back(s.cpu_ms);
        out->draws = s.draw_calls;
    }
    out->wall = median(wall);
    out->gpu = median(gpu);
    out->cpu = median(cpu);
    return true;
}

bool parse(int argc, char** argv, Args* a) {
    for (int i = 1; i < argc; ++i) {
        auto value = [&](const char* name) -> const char* {
            if (std::strcmp(argv[i], name) != 0 || i + 1 >= argc) return nullptr;
            return argv[++i];
        };
        if (const char* v = value("--frames")) {
            a->frames = std::max(1, std::atoi(v));
        } else if (const char* w = value("--warmup")) {
            a->warmup = std::max(0, std::atoi(w));
        } else if (const char* x = value("--width")) {
            a->width = static_cast<uint32_t>(std::max(1, std::atoi(x)));
        } else if (const char* y = value("--height")) {
            a->height = static_cast<uint32_t>(std::max(1, std::atoi(y)));
        } else if (const char* m = value("--max-boxes")) {
            a->max_boxes = static_cast<uint32_t>(std::max(1, std::atoi(m)));
        } else {
            std::fprintf(
                stderr,
                "usage: bench_render [--frames N] [--warmup N] [--width W] [--height H] [--max-boxes N]\n");
            return false;
        }
    }
    return true;
}

}  // namespace

int main(int argc, char** argv) {
    Args args;
    if (!parse(argc, argv, &args)) return 2;
    RendererOptions msaa_options;
    msaa_options.samples = 4;
    auto msaa = Renderer::create(msaa_options);
    RendererOptions single_options;
    single_options.samples = 1;
    auto single = Renderer::create(single_options);
    if (!msaa || !single) {
        std::fprintf(stderr, "bench_render: %s\n", (!msaa ? msaa.error() : single.error()).message.c_str());
        return 1;
    }
    std::printf("\n== offscreen frames at %ux%u on %s: median of %d frames after %d warm-up ==\n", args.width,
                args.height, (*msaa)->deviceName().c_str(), args.frames, args.warmup);
    std::printf("%-28s %8s %10s %10s %10s %7s\n", "scene", "samples", "frame ms", "GPU ms", "CPU ms",
                "draws");
    const float aspect = static_cast<float>(args.width) / static_cast<float>(args.height);
    auto row = [&](const char* name, Renderer& r, const DrawList& list) {
        Timing t;
        if (!measure(r, list, args, &t)) return false;
        std::printf("%-28s %8u %10.2f %10.2f %10.2f %7u\n", name, r.sampleCount(), t.wall, t.gpu, t.cpu,
                    t.draws);
        std::fflush(stdout);
        return true;
    };
    for (uint32_t n : {1000u, 10000u, 20000u, 100000u}) {
        if (n > args.max_boxes) continue;
        const DrawList list = city(n, aspect);
        const std::string name = "city, " + std::to_string(n) + " boxes";
        if (!row(name.c_str(), **msaa, list) || !row(name.c_str(), **single, list)) return 1;
    }
    struct Overlay {
        const char* name;
        uint32_t arcs, labels;
    };
    for (const Overlay& o : {Overlay{"2000 arcs", 2000, 0}, Overlay{"300 labels (7200 glyphs)", 0, 300},
                             Overlay{"2000 arcs + 300 labels", 2000, 300}}) {
        const DrawList list2d = overlay(o.arcs, o.labels, args.width, args.height);
        if (!row(o.name, **msaa, list2d) || !row(o.name, **single, list2d)) return 1;
    }
    return 0;
}
