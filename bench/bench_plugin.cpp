// bench_plugin: what a classifier plugin (memcity_plugin.h) costs per object, against the built-in
// classifier that computes the same groups.
//
//   size                          the built-in power-of-two size classes
//   plugin(size_class)            the same classes from tests/plugins/size_class_plugin.c: the
//                                 difference is the C call and the memcity_object it is handed
//   plugin(size_class,limits=..)  a search over 4 limits
//   plugin(tags)                  one-to-many, up to 4 keys an object
//
// Every one reads every object (none is shape-only). Times are the best of five builds of the
// tree on the big-heap workload's last heap state, the cases taking turns.
//
// usage: bench_plugin [--scale N] [--trace-dir DIR]    (scale 40: 10.3 M live objects)
#include <algorithm>
#include <chrono>
#include <cstdio>
#include <string>
#include <thread>
#include <vector>

#include "bench_traces.h"
#include "classify/plugin_classifier.h"
#include "classify/tree.h"
#include "heap/heap_history.h"

using namespace memcity;
using Clock = std::chrono::steady_clock;

namespace {

// Seconds for one build of the tree.
double timeTree(const HeapView& heap, const ClassifierChain& chain, unsigned threads, size_t* nodes) {
    auto t0 = Clock::now();
    ClassificationTree tree = ClassificationTree::build(heap, chain, {threads});
    const double s = std::chrono::duration<double>(Clock::now() - t0).count();
    *nodes = tree.size();
    return s;
}

}  // namespace

int main(int argc, char** argv) {
    bench::TraceArgs args;
    if (!bench::parseTraceArgs(argc, argv, "bench_plugin", &args)) return 1;
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
    std::printf("\n== classifier plugins, big-heap scale %u: GC %u, %.2f M live objects, %u cores here ==\n",
                args.scale, view.gc(), objects / 1e6, std::thread::hardware_concurrency());

    const std::string size_class = MEMCITY_SIZE_CLASS_PLUGIN, tags = MEMCITY_TAGS_PLUGIN;
    const std::string cases[] = {
        "size",
        "plugin(path=" + size_class + ")",
        "plugin(path=" + size_class + ",limits=16:64:256:1024)",
        "plugin(path=" + tags + ",big=256,old=2)",
    };
    struct Case {
        std::string name;
        ClassifierChain chain;
        double one = 1e9, two = 1e9;  // best times, 1 and 2 threads
        size_t nodes = 0;
    };
    std::vector<Case> runs;
    for (const std::string& spec : cases) {
        auto chain = parseChain(spec);
        if (!chain) {
            std::fprintf(stderr, "%s\n", chain.error().message.c_str());
            return 1;
        }
        std::string name = spec;
        for (const std::string* lib : {&size_class, &tags})
            if (const size_t at = name.find(*lib); at != std::string::npos)
                name.replace(at - 5, lib->size() + 5, lib == &size_class ? "size_class" : "tags");
        runs.push_back({name, std::move(*chain)});
    }
    // Rounds over all cases, so that a busy moment of the machine does not fall on one case alone.
    for (int round = 0; round < 5; ++round)
        for (Case& c : runs) {
            c.one = std::min(c.one, timeTree(view, c.chain, 1, &c.nodes));
            c.two = std::min(c.two, timeTree(view, c.chain, 2, &c.nodes));
        }
    const double builtin_ns = runs[0].one * 1e9 / objects;
    for (const Case& c : runs) {
        if (Status st = pluginErrors(c.chain); !st) {
            std::fprintf(stderr, "%s\n", st.error().message.c_str());
            return 1;
        }
        const double ns = c.one * 1e9 / objects;
        std::printf(
            "%-42s %6.1f ns/object (1 thread, %6.0f ms, %+5.1f ns vs size)  %6.1f M objects/s (2 threads)  "
            "%zu nodes\n",
            c.name.c_str(), ns, c.one * 1e3, ns - builtin_ns, objects / c.two / 1e6, c.nodes);
    }
    return 0;
}
