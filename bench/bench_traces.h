// Benchmark workloads shared by the benchmarks: synthetic traces written once into a folder and
// reused while their scale and snapshot setting stay the same.
#pragma once

#include <sys/wait.h>
#include <unistd.h>

#include <cstdio>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <memory>
#include <optional>
#include <string>
#include <vector>

#include "heap/heap_history.h"
#include "synth/synth.h"
#include "util/parallel.h"

namespace memcity::bench {

// Writes `scenario` at `scale` (a snapshot every `refs`th GC, 0 = none) to `path` unless a
// trace with the same settings is there. The writer runs in a child process, so that its memory
// is not counted against the benchmark. False (with a message) when writing failed.
inline bool ensureTrace(const std::string& scenario, const std::string& path, uint32_t scale, uint32_t refs) {
    const std::string stamp = path + ".scale";
    std::ifstream s(stamp);
    std::string have;
    if (std::filesystem::exists(path) && std::getline(s, have) &&
        have == std::to_string(scale) + "/" + std::to_string(refs))
        return true;
    std::printf("writing %s (scale %u, refs %s)...\n", path.c_str(), scale, refs ? "on" : "off");
    std::fflush(stdout);
    pid_t pid = fork();
    if (pid == 0) {
        synth::SynthOptions o;
        o.scale = scale;
        o.refs_every = refs;
        Status st = synth::synthesize(scenario, path, o);
        if (!st) std::fprintf(stderr, "%s\n", st.error().message.c_str());
        _exit(st ? 0 : 1);
    }
    int status = 0;
    waitpid(pid, &status, 0);
    if (!WIFEXITED(status) || WEXITSTATUS(status) != 0) return false;
    std::ofstream(stamp) << scale << "/" << refs << "\n";
    return true;
}

// The options every benchmark over a synthetic trace takes: --scale N and --trace-dir DIR.
struct TraceArgs {
    uint32_t scale = 40;
    std::string dir = "/tmp/memcity-bench";
};

// Parses argv; on anything else prints "usage: NAME [--scale N] [--trace-dir DIR]" and returns
// false. Creates the trace folder.
inline bool parseTraceArgs(int argc, char** argv, const char* name, TraceArgs* out) {
    for (int i = 1; i < argc; ++i) {
        const std::string a = argv[i];
        if (a == "--scale" && i + 1 < argc) {
            out->scale = static_cast<uint32_t>(std::stoul(argv[++i]));
        } else if (a == "--trace-dir" && i + 1 < argc) {
            out->dir = argv[++i];
        } else {
            std::fprintf(stderr, "usage: %s [--scale N] [--trace-dir DIR]\n", name);
            return false;
        }
    }
    std::filesystem::create_directories(out->dir);
    return true;
}

// The big-heap workload, written if needed (`refs`: a reference snapshot every 25th GC and at
// the last), opened and rebuilt with two threads and no reachability walk. Prints why and
// returns nothing when that fails.
struct Workload {
    std::unique_ptr<TraceFile> file;
    std::unique_ptr<HeapHistory> history;
};
inline std::optional<Workload> openBigHeap(const TraceArgs& args, bool refs) {
    const std::string path = args.dir + (refs ? "/big-heap-refs.mct" : "/big-heap-norefs.mct");
    if (!ensureTrace("big-heap", path, args.scale, refs ? 1 : 0)) return std::nullopt;
    auto file = TraceFile::open(path);
    if (!file) {
        std::fprintf(stderr, "%s\n", file.error().message.c_str());
        return std::nullopt;
    }
    Workload w;
    w.file = std::make_unique<TraceFile>(std::move(*file));
    HistoryOptions ho;
    ho.reachability = false;
    ho.threads = 2;
    auto history = HeapHistory::build(*w.file, ho);
    if (!history) {
        std::fprintf(stderr, "%s\n", history.error().message.c_str());
        return std::nullopt;
    }
    w.history = std::make_unique<HeapHistory>(std::move(*history));
    return w;
}

// The thread counts a benchmark compares: 1, 2 and all (defaultThreads(): the cores here, or
// MEMCITY_THREADS=N), ascending, each once (on a machine with two cores: 1 and 2).
inline std::vector<unsigned> threadCounts() {
    std::vector<unsigned> counts{1};
    for (unsigned n : {2u, defaultThreads()})
        if (n > counts.back()) counts.push_back(n);
    return counts;
}

// "2.00x" of `seconds` against `one_thread` seconds (the speedup over one thread).
inline std::string speedup(double one_thread, double seconds) {
    char s[32];
    std::snprintf(s, sizeof s, "%.2fx", seconds > 0 ? one_thread / seconds : 0.0);
    return s;
}

// Resident memory of this process in bytes: current ("VmRSS:") or peak ("VmHWM:").
inline uint64_t residentBytes(const char* which) {
    std::ifstream in("/proc/self/status");
    std::string line;
    while (std::getline(in, line))
        if (line.rfind(which, 0) == 0) return std::stoull(line.substr(std::strlen(which) + 1)) * 1024;
    return 0;
}

// Resets the peak (VmHWM) to the current resident memory (Linux 4.0+).
inline void resetPeak() {
    std::ofstream("/proc/self/clear_refs") << "5";
}

}  // namespace memcity::bench
