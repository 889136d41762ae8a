#include "app/live_record.h"

#include <chrono>
#include <iostream>
#include <thread>
#include <vector>

#include "app/cmd_explore.h"
#include "cli/text_format.h"
#include "explore/loader.h"
#include "trace/trace_reader.h"

namespace memcity::app {
namespace {

using namespace std::chrono_literals;

// A GC as it arrives: "GC 12  3.402 s  live 645.0 KiB (14,091 objects)  pause 7.45 ms".
void printGc(const GcRecord& r) {
    std::cout << "GC " << r.index << "  " << cli::formatDuration(r.end_ns) << "  live "
              << cli::formatBytes(r.live_bytes) << " (" << cli::formatCount(r.live_objects)
              << " objects)  pause " << cli::formatDuration(static_cast<int64_t>(r.pause_ns)) << std::endl;
}

}  // namespace

void watchRecording(const std::string& trace, const std::function<bool()>& recording,
                    const cli::Words& window) {
    // The agent creates the trace as the JVM starts: shown once its first chunk is there.
    while (!TraceFile::open(trace)) {
        if (!recording()) return;
        std::this_thread::sleep_for(20ms);
    }
    if (hasDisplay()) {
        cli::Words words = {trace};
        words.insert(words.end(), window.begin(), window.end());
        (void)runExplore(words);
        return;
    }
    if (!window.empty())
        std::cerr << "memcity: --script needs a display (run it under xvfb-run -a); a line per GC instead\n";
    explore::TraceLoader loader(trace, {});
    std::vector<GcRecord> records;
    uint64_t revision = 0;
    size_t printed = 0;
    for (bool last = false; !last;) {
        last = loader.done();
        loader.syncGcs(&records, &revision);
        for (; printed < records.size(); ++printed)
            printGc(records[printed]);
        if (!last) std::this_thread::sleep_for(50ms);
    }
    if (loader.progress().phase == explore::LoadPhase::kFailed)
        std::cerr << "memcity: " << loader.progress().error << "\n";
}

}  // namespace memcity::app
