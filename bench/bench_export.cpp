// bench_export: `memcity export --what live` of the demo recording's last GC, by stack, in both
// formats: the heap rebuilt, its values per stack, the file's bytes made (not written). Median
// of 5 runs each, after loading the trace once.
//
// usage: bench_export [TRACE]    (default: the bundled assets/demo.mct)
#include <algorithm>
#include <chrono>
#include <cstdio>
#include <string>
#include <vector>

#include "classify/site_stacks.h"
#include "cli/one_trace.h"
#include "cli/site_export.h"

using namespace memcity;
using Clock = std::chrono::steady_clock;

int main(int argc, char** argv) {
    const std::string path = argc > 1 ? argv[1] : MEMCITY_DEMO_TRACE;
    auto loaded = cli::loadOrSay(path);
    if (!loaded) return 1;
    const HeapHistory& h = *loaded->history;
    if (h.gcCount() == 0) return 1;
    const auto gc = static_cast<uint32_t>(h.gcCount() - 1);
    for (const char* format : {"collapsed", "pprof"}) {
        std::vector<double> ms;
        size_t stacks = 0, bytes = 0;
        uint64_t objects = 0;
        for (int run = 0; run < 5; ++run) {
            const auto t0 = Clock::now();
            auto heap = h.heapAt(gc);
            if (!heap) return 1;
            auto profile = heapSiteProfile(heap->view(), nullptr, StackValue::kLive, {.threads = 2});
            if (!profile) return 1;
            std::string out;
            if (std::string(format) == "collapsed") {
                out = cli::collapsedStacks(*profile, heap->view().symbols(), Metric::kBytes);
            } else {
                auto p = cli::pprofProfile(*profile, heap->view().symbols(), {});
                if (!p) return 1;
                out = std::move(*p);
            }
            ms.push_back(std::chrono::duration<double, std::milli>(Clock::now() - t0).count());
            stacks = profile->stacks.size();
            objects = profile->objects;
            bytes = out.size();
        }
        std::sort(ms.begin(), ms.end());
        std::printf(
            "%s: GC %u, %llu live objects, %zu stacks, %zu bytes written: median %.1f ms (min %.1f, max "
            "%.1f)\n",
            format, gc, static_cast<unsigned long long>(objects), stacks, bytes, ms[2], ms[0], ms[4]);
    }
    return 0;
}
