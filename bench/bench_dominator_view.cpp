// bench_dominator_view: what `memcity dominators` does after the trace is open, on the big-heap
// workload's last heap state (scale 40: 10.3 M live objects).
//
//   the heap at the last GC and its snapshot loaded as a HeapGraph (shared with inspect and the
//   other snapshot commands), then, median of 3 runs, each with its resident peak: the dominator
//   tree (two threads), the top-level rows (10 shown, the rest summed), the top level grouped by
//   type, and the largest group expanded (its members' children grouped by type) — the work of
//   `memcity dominators --top 10 --group-by type` at depth 2.
//
// usage: bench_dominator_view [--scale N] [--trace-dir DIR]
//
// End to end, `/usr/bin/time -v memcity dominators big-heap-40.mct --top 3 --group-by type` on
// the same trace (2 cores shared with other builds, so ± 1 s): 30.2 s and 487 MB max RSS before
// (the open walked all 8 snapshots for reachability), 6.8-8.8 s and 487 MB after: open 3.5-5.3 s,
// heap at GC 199 0.25 s, snapshot load 1.6 s, tree 1.4-1.6 s, rows and output < 0.01 s.
#include <algorithm>
#include <chrono>
#include <cstdio>
#include <thread>

#include "bench_traces.h"
#include "classify/classifier.h"
#include "graph/dominator_view.h"
#include "graph/heap_graph.h"

using namespace memcity;
using Clock = std::chrono::steady_clock;

namespace {

double secondsSince(Clock::time_point t0) {
    return std::chrono::duration<double>(Clock::now() - t0).count();
}

struct Run {
    double tree = 0, top = 0, grouped = 0, expanded = 0, total = 0;
    uint64_t peak_bytes = 0;  // resident growth over the run
};

template <typename T>
T median(std::vector<Run> runs, T Run::*field) {
    std::sort(runs.begin(), runs.end(), [&](const Run& a, const Run& b) { return a.*field < b.*field; });
    return runs[runs.size() / 2].*field;
}

}  // namespace

int main(int argc, char** argv) {
    bench::TraceArgs args;
    if (!bench::parseTraceArgs(argc, argv, "bench_dominator_view", &args)) return 1;
    auto workload = bench::openBigHeap(args, true);
    if (!workload) return 1;
    const HeapHistory& history = *workload->history;
    const auto last = lastSnapshotGc(history);
    if (!last) {
        std::fprintf(stderr, "the big-heap trace has no reference snapshot\n");
        return 1;
    }
    auto t0 = Clock::now();
    auto heap = history.heapAt(*last);
    if (!heap) {
        std::fprintf(stderr, "%s\n", heap.error().message.c_str());
        return 1;
    }
    const double heap_seconds = secondsSince(t0);
    t0 = Clock::now();
    auto graph_r = loadGraph(history, *heap);
    if (!graph_r) {
        std::fprintf(stderr, "%s\n", graph_r.error().message.c_str());
        return 1;
    }
    const double graph_seconds = secondsSince(t0);
    const HeapGraph& graph = **graph_r;
    auto chain = parseChain("type");
    if (!chain) {
        std::fprintf(stderr, "%s\n", chain.error().message.c_str());
        return 1;
    }
    const Classifier* by_type = chain->classifiers.front().get();
    const double objects = static_cast<double>(graph.heap().liveObjects());
    std::printf(
        "\n== dominators view, big-heap scale %u: GC %u, %.2f M live objects, %.2f M references, %u cores "
        "==\n",
        args.scale, *last, objects / 1e6, static_cast<double>(graph.refs().edgeCount()) / 1e6,
        std::thread::hardware_concurrency());
    std::printf("heap at the GC            %.3f s\n", heap_seconds);
    std::printf("snapshot as a HeapGraph   %.3f s  (shared with inspect)\n", graph_seconds);

    std::vector<Run> runs;
    size_t top_rows = 0, groups = 0, expanded_rows = 0;
    std::string largest_group;
    for (int i = 0; i < 3; ++i) {
        Run run;
        bench::resetPeak();
        const uint64_t before = bench::residentBytes("VmRSS:");
        const auto start = Clock::now();
        t0 = start;
        Result<DominatorTree> tree = computeDominators(graph.heap(), graph.snapshot(), {2});
        if (!tree) {
            std::fprintf(stderr, "%s\n", tree.error().message.c_str());
            return 1;
        }
        run.tree = secondsSince(t0);
        t0 = Clock::now();
        auto top = dominatorRows(graph, *tree, tree->superRoot(), nullptr, {10});
        run.top = secondsSince(t0);
        t0 = Clock::now();
        auto grouped = dominatorRows(graph, *tree, tree->superRoot(), &*chain, {10});
        run.grouped = secondsSince(t0);
        if (!top || !grouped || grouped->empty()) {
            std::fprintf(stderr, "%s\n", !top ? top.error().message.c_str() : "no grouped rows");
            return 1;
        }
        t0 = Clock::now();
        auto expanded = dominatorRowsOf(graph, *tree, grouped->front().members, by_type, {10});
        run.expanded = secondsSince(t0);
        if (!expanded) {
            std::fprintf(stderr, "%s\n", expanded.error().message.c_str());
            return 1;
        }
        run.total = secondsSince(start);
        run.peak_bytes = bench::residentBytes("VmHWM:") - before;
        top_rows = top->size();
        groups = grouped->size();
        expanded_rows = expanded->size();
        largest_group =
            grouped->front().label + " (" + std::to_string(grouped->front().objects) + " objects)";
        runs.push_back(run);
    }
    const double total = median(runs, &Run::total);
    std::printf("-- median of 3 --\n");
    std::printf("dominator tree            %.3f s  %.1f M objects/s\n", median(runs, &Run::tree),
                objects / median(runs, &Run::tree) / 1e6);
    std::printf("top-level rows            %.4f s  (%zu rows)\n", median(runs, &Run::top), top_rows);
    std::printf("grouped by type           %.4f s  (%zu rows; the largest: %s)\n",
                median(runs, &Run::grouped), groups, largest_group.c_str());
    std::printf("largest group expanded    %.4f s  (%zu rows)\n", median(runs, &Run::expanded),
                expanded_rows);
    std::printf("total                     %.3f s  resident peak %.1f MB (%.1f bytes per object)\n", total,
                static_cast<double>(median(runs, &Run::peak_bytes)) / 1e6,
                static_cast<double>(median(runs, &Run::peak_bytes)) / objects);
    return 0;
}
