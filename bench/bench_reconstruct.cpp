// bench_reconstruct: heap reconstruction figures on the big-heap workload.
//
//   events/s (1, 2 and all threads), peak resident bytes per peak live object (no references),
//   bytes per reference edge of a loaded snapshot, time to rebuild random GCs.
//
// usage: bench_reconstruct [--scale N] [--trace-dir DIR] [--keep]
// The traces are written by a child process first (so the generator's memory is not counted),
// and reused from DIR on later runs unless their scale differs.
#include <sys/resource.h>
#include <sys/wait.h>
#include <unistd.h>

#include <algorithm>
#include <chrono>
#include <cstdio>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <random>
#include <string>
#include <thread>

#include "bench_traces.h"
#include "heap/heap_history.h"

using namespace memcity;
using Clock = std::chrono::steady_clock;

namespace {

double seconds(Clock::time_point a, Clock::time_point b) {
    return std::chrono::duration<double>(b - a).count();
}

struct BuildRun {
    double seconds = 0;
    uint64_t events = 0;
    uint64_t peak_live = 0;
    uint64_t rss_delta = 0;
};

BuildRun timeBuild(const std::string& path, unsigned threads, bool reachability) {
    auto file = TraceFile::open(path);
    if (!file) {
        std::fprintf(stderr, "%s\n", file.error().message.c_str());
        std::exit(1);
    }
    bench::resetPeak();
    uint64_t base = bench::residentBytes("VmRSS:");
    HistoryOptions o;
    o.threads = threads;
    o.reachability = reachability;
    auto t0 = Clock::now();
    auto h = HeapHistory::build(*file, o);
    auto t1 = Clock::now();
    if (!h) {
        std::fprintf(stderr, "%s\n", h.error().message.c_str());
        std::exit(1);
    }
    BuildRun r;
    r.seconds = seconds(t0, t1);
    r.events = h->counts().total();
    r.peak_live = h->counts().peak_live_objects;
    r.rss_delta = bench::residentBytes("VmHWM:") - base;
    return r;
}

}  // namespace

int main(int argc, char** argv) {
    bench::TraceArgs args;
    if (!bench::parseTraceArgs(argc, argv, "bench_reconstruct", &args)) return 1;
    const uint32_t scale = args.scale;
    const std::string& dir = args.dir;
    const std::string plain = dir + "/big-heap-norefs.mct", refs = dir + "/big-heap-refs.mct";
    if (!bench::ensureTrace("big-heap", plain, scale, 0) || !bench::ensureTrace("big-heap", refs, scale, 1))
        return 1;

    std::printf("\n== heap reconstruction, big-heap scale %u (%.0f MB trace, %u cores here) ==\n", scale,
                static_cast<double>(std::filesystem::file_size(plain)) / 1e6,
                std::thread::hardware_concurrency());
    // Warm the page cache so the first measurement does not pay for disk reads.
    (void)timeBuild(plain, 1, false);
    BuildRun one = timeBuild(plain, 1, false);
    BuildRun two = timeBuild(plain, 2, false);
    BuildRun all = timeBuild(plain, defaultThreads(), false);
    std::printf("events                    %.1f M (%.1f M live objects at peak)\n",
                static_cast<double>(one.events) / 1e6, static_cast<double>(one.peak_live) / 1e6);
    std::printf("rebuild, 1 thread         %.2f s   %.1f M events/s   (target >= 20 M/s per core)\n",
                one.seconds, static_cast<double>(one.events) / one.seconds / 1e6);
    std::printf("rebuild, 2 threads        %.2f s   %.1f M events/s   (%.2fx of 1 thread)\n", two.seconds,
                static_cast<double>(two.events) / two.seconds / 1e6, one.seconds / two.seconds);
    std::printf(
        "rebuild, all (%2u) threads %.2f s   %.1f M events/s   (%.2fx of 1 thread; it reads ahead on one\n"
        "                          thread besides its own: more take no more)\n",
        defaultThreads(), all.seconds, static_cast<double>(all.events) / all.seconds / 1e6,
        one.seconds / all.seconds);
    std::printf("peak resident / live obj  %.1f bytes   (%.0f MB above the baseline; target <= 16)\n",
                static_cast<double>(one.rss_delta) / static_cast<double>(one.peak_live),
                static_cast<double>(one.rss_delta) / 1e6);

    // Rebuilding random GCs from checkpoints.
    auto file = TraceFile::open(plain);
    auto h = HeapHistory::build(*file);
    std::mt19937 rng(1);
    double worst = 0, total = 0;
    const int samples = 12;
    std::vector<uint32_t> gcs = {0, static_cast<uint32_t>(h->gcCount() - 1)};
    while (gcs.size() < samples)
        gcs.push_back(static_cast<uint32_t>(rng() % h->gcCount()));
    for (uint32_t g : gcs) {
        auto t0 = Clock::now();
        auto s = h->heapAt(g);
        double dt = seconds(t0, Clock::now());
        if (!s) return 1;
        worst = std::max(worst, dt);
        total += dt;
    }
    std::printf(
        "rebuild one GC            mean %.0f ms, worst %.0f ms over %d GCs (%zu checkpoints, %.0f MB on "
        "disk; target <= 1 s)\n",
        total / samples * 1e3, worst * 1e3, samples, h->checkpoints().count(),
        static_cast<double>(h->checkpoints().bytes()) / 1e6);

    // References: the last GC's snapshot loaded against its heap.
    auto rfile = TraceFile::open(refs);
    HistoryOptions ro;
    ro.reachability = false;
    auto rh = HeapHistory::build(*rfile, ro);
    auto heap = rh->heapAt(static_cast<uint32_t>(rh->gcCount() - 1));
    bench::resetPeak();
    uint64_t before = bench::residentBytes("VmRSS:");
    auto t0 = Clock::now();
    auto snap = rh->snapshotFor(*heap);
    double load = seconds(t0, Clock::now());
    uint64_t rss = bench::residentBytes("VmHWM:") - before;
    if (!snap || !snap->has_value()) return 1;
    const HeapSnapshot& sn = **snap;
    t0 = Clock::now();
    Reachability r = computeReachability(sn, heap->store(), heap->objectCount(), rh->shapes(),
                                         rfile->symbols(), rfile->header().object_alignment);
    double walk = seconds(t0, Clock::now());
    const double edges = static_cast<double>(sn.graph.edgeCount());
    std::printf(
        "snapshot                  %.1f M edges over %.1f M objects, loaded in %.2f s, walked in %.2f s "
        "(%.1f M reachable)\n",
        edges / 1e6, static_cast<double>(heap->objectCount()) / 1e6, load, walk,
        static_cast<double>(r.reachable_objects) / 1e6);
    std::printf(
        "bytes per reference edge  %.2f held by the graph, %.2f peak resident while loading (target <= 4)\n",
        static_cast<double>(sn.graph.memoryBytes()) / edges, static_cast<double>(rss) / edges);
    return 0;
}
