// bench_suspects: `memcity suspects` on the bundled demo (or TRACE): the trace's load (open and the
// forward pass over every GC) and the report itself (leak windows, the snapshot heap and its
// references, the dominator tree, the accumulation points), each the median of 5 runs, with the
// trace's size. Target: the whole on the demo in <= 3 s.
//
// usage: bench_suspects [TRACE]
#include <algorithm>
#include <chrono>
#include <cstdio>
#include <string>
#include <vector>

#include "graph/suspects.h"
#include "heap/heap_history.h"

using namespace memcity;
using Clock = std::chrono::steady_clock;

namespace {

double seconds(Clock::time_point a, Clock::time_point b) {
    return std::chrono::duration<double>(b - a).count();
}

double median(std::vector<double> v) {
    std::sort(v.begin(), v.end());
    return v[v.size() / 2];
}

}  // namespace

int main(int argc, char** argv) {
    const std::string path = argc > 1 ? argv[1] : MEMCITY_DEMO_TRACE;
    std::vector<double> load_s, report_s;
    size_t suspects = 0;
    uint64_t objects = 0, gcs = 0, file_bytes = 0;
    for (int run = 0; run < 5; ++run) {
        const auto t0 = Clock::now();
        auto file = TraceFile::open(path);
        if (!file) {
            std::fprintf(stderr, "bench_suspects: %s\n", file.error().message.c_str());
            return 1;
        }
        auto history = HeapHistory::build(*file);
        if (!history) {
            std::fprintf(stderr, "bench_suspects: %s\n", history.error().message.c_str());
            return 1;
        }
        const auto t1 = Clock::now();
        auto report = findSuspects(*history);
        const auto t2 = Clock::now();
        if (!report) {
            std::fprintf(stderr, "bench_suspects: %s\n", report.error().message.c_str());
            return 1;
        }
        load_s.push_back(seconds(t0, t1));
        report_s.push_back(seconds(t1, t2));
        suspects = report->suspects.size();
        objects = report->reached.objects;
        gcs = history->gcCount();
        file_bytes = file->fileSize();
    }
    std::printf(
        "== suspects: %s, %.1f MiB, %llu GCs, %llu objects reached at the snapshot GC, %zu suspects\n",
        path.c_str(), static_cast<double>(file_bytes) / (1 << 20), static_cast<unsigned long long>(gcs),
        static_cast<unsigned long long>(objects), suspects);
    const double load = median(load_s), report = median(report_s);
    std::printf("load (open + forward pass)   %8.3f s (median of 5)\n", load);
    std::printf("report (findSuspects)        %8.3f s (median of 5)\n", report);
    std::printf("total                        %8.3f s   target <= 3 s: %s\n", load + report,
                load + report <= 3.0 ? "met" : "MISSED");
    return 0;
}
