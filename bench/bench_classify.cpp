// bench_classify: classification throughput on the big-heap workload's last heap state.
//
//   objects/s for type->site (shape-only: counted per shape, then classified once per shape)
//   with 1, 2 and all threads (and the speedups), and for chains that read every object (age,
//   size, an expression filter). Target: >= 50 M objects/s per core for type->site on >= 10 M objects.
//
// usage: bench_classify [--scale N] [--trace-dir DIR]    (scale 40: 10.3 M live objects)
#include <algorithm>
#include <chrono>
#include <cstdio>
#include <filesystem>
#include <string>
#include <thread>

#include "bench_traces.h"
#include "classify/tree.h"
#include "heap/heap_history.h"

using namespace memcity;
using Clock = std::chrono::steady_clock;

namespace {

// Best of three builds, in seconds.
double timeTree(const HeapView& heap, const ClassifierChain& chain, unsigned threads,
                ClassificationTree* out) {
    double best = 1e9;
    for (int run = 0; run < 3; ++run) {
        auto t0 = Clock::now();
        ClassificationTree tree = ClassificationTree::build(heap, chain, {threads});
        best = std::min(best, std::chrono::duration<double>(Clock::now() - t0).count());
        if (out) *out = std::move(tree);
    }
    return best;
}

}  // namespace

int main(int argc, char** argv) {
    bench::TraceArgs args;
    if (!bench::parseTraceArgs(argc, argv, "bench_classify", &args)) return 1;
    const uint32_t scale = args.scale;
    auto workload = bench::openBigHeap(args, false);
    if (!workload) return 1;
    const auto& history = workload->history;
    auto heap = history->heapAt(static_cast<uint32_t>(history->gcCount() - 1));
    if (!heap) {
        std::fprintf(stderr, "%s\n", heap.error().message.c_str());
        return 1;
    }
    const HeapView view = heap->view();
    const double objects = static_cast<double>(view.liveObjects());
    std::printf(
        "\n== classification, big-heap scale %u: GC %u, %.1f M live objects, %zu shapes, %u cores here, all "
        "= %u threads ==\n",
        scale, view.gc(), objects / 1e6, history->shapes().size(), std::thread::hardware_concurrency(),
        defaultThreads());

    struct Case {
        const char* chain;
        const char* filter;
    };
    for (Case c : {Case{"type,site", nullptr}, Case{"type,site(callers=3)", nullptr},
                   Case{"age,type", nullptr}, Case{"size", nullptr}, Case{"type", "size > 64 && age >= 2"}}) {
        auto chain = parseChain(c.chain);
        if (!chain) {
            std::fprintf(stderr, "%s\n", chain.error().message.c_str());
            return 1;
        }
        if (c.filter) {
            auto f = parseFilter(c.filter);
            if (!f) {
                std::fprintf(stderr, "%s\n", f.error().message.c_str());
                return 1;
            }
            chain->filters.push_back(std::move(*f));
        }
        ClassificationTree tree;
        const double one = timeTree(view, *chain, 1, &tree);
        std::printf("%-24s %-24s %7.1f M objects/s (1 thread, %5.0f ms)", c.chain, c.filter ? c.filter : "",
                    objects / one / 1e6, one * 1e3);
        for (unsigned threads : bench::threadCounts()) {
            if (threads == 1) continue;
            const double s = timeTree(view, *chain, threads, nullptr);
            std::printf("  %7.1f M/s (%u threads, %s)", objects / s / 1e6, threads,
                        bench::speedup(one, s).c_str());
        }
        std::printf("   %zu nodes, %zu signatures\n", tree.size(), tree.signatures());
    }
    std::printf("target: type,site >= 50 M objects/s per core on >= 10 M objects\n");
    return 0;
}
