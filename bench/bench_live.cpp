// bench_live: how soon a GC shows while its trace is still being written. Follows TRACE (being
// written by memcity's recorder) as the explorer window does (TraceLoader: chunks read as they
// land, heaps completed at each GC_COMPLETE, the chain package,type streamed) and, for every GC,
// prints the time from the JVM's end of it (the trace's wall-clock start plus the GC's end) to
// the moment its record, and then its column of the streamed series (what the window draws),
// were published. Then the median, 95th percentile and worst of each.
//
// usage: bench_live TRACE    (bench/bench_live.sh runs it beside real programs)
#include <algorithm>
#include <chrono>
#include <cstdio>
#include <thread>
#include <vector>

#include "classify/classifier.h"
#include "explore/chain_config.h"
#include "explore/loader.h"
#include "trace/trace_reader.h"

using namespace memcity;

namespace {

int64_t wallNs() {
    return std::chrono::duration_cast<std::chrono::nanoseconds>(
               std::chrono::system_clock::now().time_since_epoch())
        .count();
}

double percentile(std::vector<double> v, double p) {
    if (v.empty()) return 0;
    std::sort(v.begin(), v.end());
    return v[std::min(v.size() - 1, static_cast<size_t>(p * static_cast<double>(v.size() - 1) + 0.5))];
}

}  // namespace

int main(int argc, char** argv) {
    if (argc != 2) {
        std::fprintf(stderr, "usage: bench_live TRACE\n");
        return 1;
    }
    const std::string path = argv[1];
    // The trace appears when the JVM starts.
    std::optional<TraceFile> first;
    for (int i = 0; i < 3000 && !first; ++i) {
        if (auto f = TraceFile::open(path))
            first.emplace(std::move(*f));
        else
            std::this_thread::sleep_for(std::chrono::milliseconds(10));
    }
    if (!first) {
        std::fprintf(stderr, "bench_live: %s did not appear\n", path.c_str());
        return 1;
    }
    const auto start_wall = static_cast<int64_t>(first->header().start_wall_ns);
    auto chain = explore::buildChain(explore::ChainConfig{});
    if (!chain) {
        std::fprintf(stderr, "bench_live: %s\n", chain.error().message.c_str());
        return 1;
    }
    explore::LoaderOptions options;
    options.chain = &*chain;
    explore::TraceLoader loader(path, options);
    std::vector<GcRecord> records;
    uint64_t revision = 0;
    std::vector<double> to_record, to_series;
    size_t shown = 0;  // GCs whose series column was published
    for (bool last = false; !last;) {
        last = loader.done();
        const size_t before = records.size();
        loader.syncGcs(&records, &revision);
        const int64_t now = wallNs();
        for (size_t g = before; g < records.size() && g == to_record.size(); ++g)
            to_record.push_back(static_cast<double>(now - start_wall - records[g].end_ns) / 1e6);
        if (auto series = loader.takeSeries(); series && !series->gcs().empty()) {
            for (; shown <= series->lastGc() && shown < records.size(); ++shown)
                to_series.push_back(static_cast<double>(now - start_wall - records[shown].end_ns) / 1e6);
        }
        if (!last) std::this_thread::sleep_for(std::chrono::milliseconds(2));
    }
    if (loader.progress().phase == explore::LoadPhase::kFailed) {
        std::fprintf(stderr, "bench_live: %s\n", loader.progress().error.c_str());
        return 1;
    }
    // The last GC's heap completes at the trace's end (its census at exit), not by a mark.
    if (!to_record.empty()) to_record.pop_back();
    if (to_series.size() > to_record.size()) to_series.resize(to_record.size());
    std::printf(
        "%zu GCs followed; from a GC's end to its record: median %.0f ms, 95%% %.0f ms, worst %.0f ms; "
        "to its city and trees: median %.0f ms, 95%% %.0f ms, worst %.0f ms\n",
        to_record.size(), percentile(to_record, 0.5), percentile(to_record, 0.95),
        to_record.empty() ? 0.0 : *std::max_element(to_record.begin(), to_record.end()),
        percentile(to_series, 0.5), percentile(to_series, 0.95),
        to_series.empty() ? 0.0 : *std::max_element(to_series.begin(), to_series.end()));
    return 0;
}
