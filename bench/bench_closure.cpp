// bench_closure: closures and retained sizes on the big-heap workload's last heap state (scale
// 40: 10.3 M live objects, all reachable, a reference snapshot at the last GC).
//
//   the reference graph of the heap: snapshot load, reachability, reverse graph, closest roots,
//   containing data structures; then, for the largest node of a type,site tree (by bytes) and
//   for a small one: its members, transitive closure, and GC closure by both methods, and the
//   deep + retained sizes of every top-level node in parallel (1, 2 and all threads).
//   Target: one node's retained size <= 2 s.
//
// usage: bench_closure [--scale N] [--trace-dir DIR]
#include <algorithm>
#include <chrono>
#include <cstdio>
#include <string>

#include "bench_traces.h"
#include "classify/tree.h"
#include "graph/closure.h"
#include "heap/heap_history.h"

using namespace memcity;
using Clock = std::chrono::steady_clock;

namespace {

double since(Clock::time_point t0) {
    return std::chrono::duration<double>(Clock::now() - t0).count();
}

}  // namespace

int main(int argc, char** argv) {
    bench::TraceArgs args;
    if (!bench::parseTraceArgs(argc, argv, "bench_closure", &args)) return 1;
    auto workload = bench::openBigHeap(args, true);
    if (!workload) return 1;
    const auto& history = workload->history;
    const auto last = static_cast<uint32_t>(history->gcCount() - 1);
    auto heap = history->heapAt(last);
    if (!heap) {
        std::fprintf(stderr, "%s\n", heap.error().message.c_str());
        return 1;
    }
    std::printf("big-heap scale %u, GC %u: %zu live objects, %.1f MiB\n", args.scale, last,
                heap->objectCount(), static_cast<double>(heap->liveBytes()) / 1048576.0);

    auto t0 = Clock::now();
    auto snap = history->snapshotFor(*heap);
    if (!snap || !*snap) {
        std::fprintf(stderr, "no snapshot at the last GC\n");
        return 1;
    }
    const double load_s = since(t0);
    const uint64_t edges = (*snap)->graph.edgeCount();
    t0 = Clock::now();
    HeapGraph graph(heap->view(), std::move(**snap));
    const double reach_s = since(t0);
    t0 = Clock::now();
    (void)graph.reverse();
    const double reverse_s = since(t0);
    t0 = Clock::now();
    (void)graph.closestRoots(0);
    const double closest_s = since(t0);
    t0 = Clock::now();
    (void)graph.container(0);
    const double containers_s = since(t0);
    const double n = static_cast<double>(heap->objectCount());
    std::printf("snapshot load          %7.2f s  (%llu edges)\n", load_s,
                static_cast<unsigned long long>(edges));
    std::printf("reachability           %7.2f s  (%llu reachable)\n", reach_s,
                static_cast<unsigned long long>(graph.reachableObjects()));
    std::printf("reverse graph          %7.2f s\n", reverse_s);
    std::printf("closest roots          %7.2f s\n", closest_s);
    std::printf("data structures        %7.2f s\n", containers_s);
    std::printf("graph memory           %7.1f B/object\n", static_cast<double>(graph.memoryBytes()) / n);

    const HeapView view = heap->view().withGraph(&graph);
    auto chain = parseChain("type,site");
    if (!chain) return 1;
    const ClassificationTree tree = ClassificationTree::build(view, *chain, {2});
    const std::vector<uint32_t> top = tree.sortedChildren(ClassificationTree::kRoot, Metric::kBytes);
    // The largest node (a type), and the smallest type's largest site.
    const uint32_t largest = top.front();
    const uint32_t small = tree.sortedChildren(top.back(), Metric::kBytes).front();
    for (uint32_t node : {largest, small}) {
        std::printf("\nnode %s: %llu objects\n", tree.path(node).c_str(),
                    static_cast<unsigned long long>(tree.node(node).objects));
        t0 = Clock::now();
        const Bitset group = tree.members(view, {node}, {2}).front();
        const double members_s = since(t0);
        t0 = Clock::now();
        const Bitset transitive = transitiveClosure(graph, group);
        const double transitive_s = since(t0);
        double best = 1e9;
        for (ClosureMethod m : {ClosureMethod::kLocal, ClosureMethod::kFromRoots}) {
            t0 = Clock::now();
            const Bitset retained = gcClosure(graph, group, transitive, m);
            const double s = since(t0);
            best = std::min(best, s);
            std::printf("  GC closure (%s)   %6.2f s  retained %zu objects\n",
                        m == ClosureMethod::kLocal ? "local     " : "from roots", s, retained.count());
        }
        std::printf("  members %.2f s, transitive closure %.2f s (%zu objects)\n", members_s, transitive_s,
                    transitive.count());
        t0 = Clock::now();
        const GroupClosure c = closureOf(graph, group);
        const double all_s = since(t0) + members_s;
        std::printf("  retained size, all told: %.2f s (deep %.1f MiB, retained %.1f MiB)  target <= 2 s\n",
                    all_s, static_cast<double>(c.deep.bytes) / 1048576.0,
                    static_cast<double>(c.retained.bytes) / 1048576.0);
    }

    std::printf("\ndeep + retained of the %zu top-level nodes:\n", top.size());
    const std::vector<Bitset> groups = tree.members(view, top, {2});
    double one_thread = 0;
    for (unsigned threads : bench::threadCounts()) {
        t0 = Clock::now();
        const std::vector<GroupClosure> all = closuresOf(graph, groups, threads);
        const double s = since(t0);
        if (threads == 1) one_thread = s;
        std::printf("  %2u thread%s %7.2f s  (%s of 1 thread)\n", threads, threads == 1 ? " " : "s", s,
                    bench::speedup(one_thread, s).c_str());
    }
    return 0;
}
