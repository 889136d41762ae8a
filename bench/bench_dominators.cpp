// bench_dominators: the dominator tree of the big-heap workload's last heap state.
//
//   time to load the last snapshot, then per stage (depth-first numbering, predecessor graph,
//   dominators, retained sizes and children) with 1, 2 and all threads (the tree uses at most
//   2: all shows it takes no more); objects/s and the speedup over 1 thread; working memory per
//   object (counted by the algorithm, and the peak resident growth); the largest retained objects.
//
// usage: bench_dominators [--scale N] [--trace-dir DIR]    (scale 40: 10.3 M live objects)
#include <algorithm>
#include <chrono>
#include <cstdio>
#include <cstring>
#include <fstream>
#include <string>
#include <thread>

#include "bench_traces.h"
#include "graph/dominators.h"
#include "heap/heap_history.h"

using namespace memcity;
using Clock = std::chrono::steady_clock;

namespace {}  // namespace

int main(int argc, char** argv) {
    bench::TraceArgs args;
    if (!bench::parseTraceArgs(argc, argv, "bench_dominators", &args)) return 1;
    auto workload = bench::openBigHeap(args, true);
    if (!workload) return 1;
    const auto& history = workload->history;
    auto heap = history->heapAt(static_cast<uint32_t>(history->gcCount() - 1));
    if (!heap) {
        std::fprintf(stderr, "%s\n", heap.error().message.c_str());
        return 1;
    }
    auto t0 = Clock::now();
    auto snap = history->snapshotFor(*heap);
    const double load = std::chrono::duration<double>(Clock::now() - t0).count();
    if (!snap || !snap->has_value()) {
        std::fprintf(stderr, "%s\n", snap ? "no snapshot" : snap.error().message.c_str());
        return 1;
    }
    const HeapSnapshot& sn = **snap;
    const HeapView view = heap->view();
    const double objects = static_cast<double>(view.liveObjects());
    std::printf(
        "\n== dominator tree, big-heap scale %u: GC %u, %.2f M live objects, %.2f M references, %zu roots, "
        "%u cores here ==\n",
        args.scale, view.gc(), objects / 1e6, static_cast<double>(sn.graph.edgeCount()) / 1e6,
        sn.roots.size(), std::thread::hardware_concurrency());
    std::printf("load the last snapshot     %.2f s  (the graph holds %.1f bytes per object)\n", load,
                static_cast<double>(sn.graph.memoryBytes()) / objects);

    Result<DominatorTree> tree = Error{""};
    double one_thread = 0;  // the best total with 1 thread
    for (unsigned threads : bench::threadCounts()) {
        // Best of three runs per stage; the first run also measures the resident peak.
        DominatorStats best;
        best.dfs_seconds = best.reverse_seconds = best.dominators_seconds = best.retained_seconds = 1e9;
        double best_total = 1e9;
        uint64_t rss_peak = 0;
        for (int run = 0; run < 3; ++run) {
            tree = Error{""};  // free the previous tree before measuring
            bench::resetPeak();
            const uint64_t before = bench::residentBytes("VmRSS:");
            t0 = Clock::now();
            tree = computeDominators(view, sn, {threads});
            const double total = std::chrono::duration<double>(Clock::now() - t0).count();
            if (!tree) {
                std::fprintf(stderr, "%s\n", tree.error().message.c_str());
                return 1;
            }
            if (run == 0) rss_peak = bench::residentBytes("VmHWM:") - before;
            const DominatorStats& s = tree->stats();
            best.dfs_seconds = std::min(best.dfs_seconds, s.dfs_seconds);
            best.reverse_seconds = std::min(best.reverse_seconds, s.reverse_seconds);
            best.dominators_seconds = std::min(best.dominators_seconds, s.dominators_seconds);
            best.retained_seconds = std::min(best.retained_seconds, s.retained_seconds);
            best_total = std::min(best_total, total);
        }
        const DominatorStats& s = tree->stats();
        std::printf("-- %u thread%s (best of 3) --\n", threads, threads == 1 ? "" : "s");
        std::printf("depth-first numbering     %.3f s\n", best.dfs_seconds);
        std::printf("predecessor graph         %.3f s  (%.2f M entries)\n", best.reverse_seconds,
                    static_cast<double>(s.predecessor_edges) / 1e6);
        std::printf("dominators (Semi-NCA)     %.3f s\n", best.dominators_seconds);
        std::printf("retained sizes, children  %.3f s\n", best.retained_seconds);
        if (threads == 1) one_thread = best_total;
        std::printf("total                     %.3f s  %.1f M objects/s  (%s of 1 thread)\n", best_total,
                    objects / best_total / 1e6, bench::speedup(one_thread, best_total).c_str());
        std::printf(
            "memory per object         %.1f bytes working peak (counted), %.1f bytes resident peak, %.1f "
            "bytes "
            "kept by the tree\n",
            static_cast<double>(s.peak_bytes) / objects, static_cast<double>(rss_peak) / objects,
            static_cast<double>(tree->memoryBytes()) / objects);
    }

    // The largest retained object, checked by brute force: what the roots no longer reach
    // without it must be its dominator subtree.
    const DominatorTree& t = *tree;
    uint32_t largest = 0;
    for (size_t p = 0; p < t.positions(); ++p)
        if (t.retainedBytes(p) > t.retainedBytes(largest)) largest = static_cast<uint32_t>(p);
    std::vector<uint8_t> seen(t.positions(), 0);
    std::vector<uint32_t> stack;
    auto push = [&](uint32_t p) {
        if (p == largest || seen[p]) return;
        seen[p] = 1;
        stack.push_back(p);
    };
    for (const RootRef& r : sn.roots)
        push(r.position);
    while (!stack.empty()) {
        const uint32_t p = stack.back();
        stack.pop_back();
        sn.graph.forEachTarget(p, push);
    }
    uint64_t lost_objects = 0, lost_bytes = 0;
    for (size_t p = 0; p < t.positions(); ++p) {
        if (t.reached(p) && !seen[p]) {
            ++lost_objects;
            lost_bytes += view.size(p);
        }
    }
    // Depth of the dominator tree (the super-root at depth 0).
    uint32_t depth = 0;
    std::vector<std::pair<uint32_t, uint32_t>> nodes = {{t.superRoot(), 0}};
    while (!nodes.empty()) {
        auto [node, d] = nodes.back();
        nodes.pop_back();
        depth = std::max(depth, d);
        for (uint32_t c : t.children(node))
            nodes.push_back({c, d + 1});
    }
    std::printf(
        "reached                   %.2f M objects, %.1f MB; the super-root has %zu children, the tree is %u "
        "deep\n",
        static_cast<double>(t.reachedObjects()) / 1e6, static_cast<double>(t.reachedBytes()) / 1e6,
        t.children(t.superRoot()).size(), depth);
    std::printf(
        "largest retained object   %s (position %u): %llu objects, %.1f MB (%.2f%% of the reached heap); "
        "freeing it alone frees %llu objects, %.1f MB (brute force: %s)\n",
        view.symbols().type(view.type(largest)).name.c_str(), largest,
        static_cast<unsigned long long>(t.retainedObjects(largest)),
        static_cast<double>(t.retainedBytes(largest)) / 1e6,
        100.0 * static_cast<double>(t.retainedBytes(largest)) / static_cast<double>(t.reachedBytes()),
        static_cast<unsigned long long>(lost_objects), static_cast<double>(lost_bytes) / 1e6,
        lost_objects == t.retainedObjects(largest) && lost_bytes == t.retainedBytes(largest) ? "agrees"
                                                                                             : "DISAGREES");
    if (lost_objects != t.retainedObjects(largest) || lost_bytes != t.retainedBytes(largest)) return 1;
    return 0;
}
