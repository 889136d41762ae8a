// bench_series: the tree series (one meta tree, per-GC counts) over every GC of the big-heap
// workload.
//
//   GCs, meta nodes, seconds, objects/s (live objects summed over the GCs), the series' own
//   memory and the process's peak resident growth while building it (the replay's working heap
//   included), for type,site (shape-only: counted per shape, incrementally and in full) and
//   age,type (reads every object), with 1, 2 and all threads, and once keeping the ids of one type's
//   objects (lossless mode); first, the time the replay of the heaps alone takes (any series
//   pays it). Target: type,site over 200 GCs and 10.3 M live objects (scale 40) in <= 10 s.
//
// usage: bench_series [--scale N] [--trace-dir DIR]
#include <chrono>
#include <cstdio>
#include <cstring>
#include <fstream>
#include <string>
#include <thread>
#include <vector>

#include "bench_traces.h"
#include "classify/series.h"
#include "heap/heap_history.h"

using namespace memcity;
using Clock = std::chrono::steady_clock;

namespace {}  // namespace

int main(int argc, char** argv) {
    bench::TraceArgs args;
    if (!bench::parseTraceArgs(argc, argv, "bench_series", &args)) return 1;
    auto workload = bench::openBigHeap(args, false);
    if (!workload) return 1;
    const auto& history = workload->history;
    uint64_t objects = 0, peak = 0;
    for (const GcRecord& g : history->gcs()) {
        objects += g.live_objects;
        peak = std::max(peak, g.live_objects);
    }
    std::printf(
        "\n== tree series, big-heap scale %u: %zu GCs, %.1f M live objects at the peak, %.0f M summed over "
        "the GCs, %zu shapes, %u cores here ==\n",
        args.scale, history->gcCount(), static_cast<double>(peak) / 1e6, static_cast<double>(objects) / 1e6,
        history->shapes().size(), std::thread::hardware_concurrency());
    // The replay alone: what any series pays before counting anything.
    {
        auto t0 = Clock::now();
        Status st = history->forEachHeap(0, static_cast<uint32_t>(history->gcCount() - 1),
                                         [](const HeapView&) { return true; });
        const double s = std::chrono::duration<double>(Clock::now() - t0).count();
        if (!st) {
            std::fprintf(stderr, "%s\n", st.error().message.c_str());
            return 1;
        }
        std::printf("replaying the %zu heaps alone (forEachHeap): %.2f s\n", history->gcCount(), s);
    }
    std::printf("%-10s %-12s %7s %4s %10s %8s %14s %12s %12s\n", "chain", "counting", "threads", "GCs",
                "meta nodes", "seconds", "objects/s", "series", "peak RSS +");

    struct Case {
        const char* chain;
        bool incremental;
        unsigned threads;
        const char* lossless = nullptr;  // a type whose object ids are kept at every GC
    };
    std::vector<Case> cases;
    for (unsigned threads : bench::threadCounts())
        cases.push_back({"type,site", true, threads});
    for (unsigned threads : bench::threadCounts())
        cases.push_back({"type,site", false, threads});
    cases.push_back({"type,site", true, 2, "java.util.HashMap$Node[]"});
    for (unsigned threads : bench::threadCounts())
        cases.push_back({"age,type", true, threads});
    for (const Case& c : cases) {
        auto chain = parseChain(c.chain);
        if (!chain) {
            std::fprintf(stderr, "%s\n", chain.error().message.c_str());
            return 1;
        }
        SeriesOptions so;
        so.threads = c.threads;
        so.incremental = c.incremental;
        if (c.lossless) so.lossless_path = std::vector<std::string>{c.lossless};
        bench::resetPeak();
        const uint64_t base = bench::residentBytes("VmRSS:");
        auto t0 = Clock::now();
        auto series = TreeSeries::build(*history, *chain, so);
        const double s = std::chrono::duration<double>(Clock::now() - t0).count();
        if (!series) {
            std::fprintf(stderr, "%s\n", series.error().message.c_str());
            return 1;
        }
        const uint64_t rss = bench::residentBytes("VmHWM:") - base;
        const char* counting = !series->countedPerShape() ? "per heap"
                               : c.incremental            ? "incremental"
                                                          : "full";
        std::printf("%-10s %-12s %7u %4zu %10zu %8.2f %12.1f M %9.2f MiB %9.1f MiB\n", c.chain, counting,
                    c.threads, series->gcCount(), series->size(), s, static_cast<double>(objects) / s / 1e6,
                    static_cast<double>(series->memoryBytes()) / (1 << 20),
                    static_cast<double>(rss) / (1 << 20));
        if (c.lossless) {
            uint64_t kept = 0;
            for (uint32_t g = series->firstGc(); g <= series->lastGc(); ++g)
                kept += series->selectedIds(g).size();
            std::printf("%-23s   (lossless: the ids of %s at every GC, %.1f M ids kept)\n", "", c.lossless,
                        static_cast<double>(kept) / 1e6);
        }
        std::fflush(stdout);
    }
    std::printf("target: type,site over every GC in <= 10 s on 2 cores\n");
    return 0;
}
