#include "cli/recording.h"

#include <unistd.h>

#include <cerrno>
#include <cstdlib>
#include <cstring>
#include <filesystem>
#include <iostream>

#include "cli/load.h"
#include "cli/sampled_output.h"
#include "cli/text_format.h"

namespace memcity::cli {

std::vector<OptionSpec> recordingOptions(const RecordingOptionsHelp& own) {
    std::vector<OptionSpec> out = {
        {"--output", "FILE", "-o", "where to write the trace (required)"},
        {"--sampled", "", "", own.sampled},
        {"--interval", "BYTES", "",
         "with --sampled: one sample per BYTES allocated on average (default 512k)"},
        {"--depth", "N", "", "frames per allocation site (default 8)"},
        {"--refs", "N|P%|off", "",
         "reference snapshot after every Nth GC (default 1; with --sampled off),\nwherever the walks "
         "stay within P% of the run's time, or none"},
    };
    out.insert(out.end(), own.after_refs.begin(), own.after_refs.end());
    out.push_back({"--sites", "MODE", "", own.sites});
    out.insert(out.end(), own.after_sites.begin(), own.after_sites.end());
    out.push_back({"--live", "", "", own.live});
    out.push_back(
        {"--script", "FILE", "", "with --live: drive the window with a script (see 'memcity open --help')"});
    return out;
}

Result<RecordingOptions> readRecordingOptions(const Args& args, std::string_view command,
                                              bool have_live_view) {
    const std::string me = "memcity " + std::string(command) + ": ";
    RecordingOptions o;
    o.live = args.has("--live");
    if (o.live && !have_live_view)
        return Error{me + "--live needs the explorer, which this memcity was built without"};
    if (auto script = args.value("--script")) {
        if (!o.live) return Error{me + "--script drives the window of --live: add --live"};
        o.window = {"--script", *script};
    }
    auto out = args.value("--output");
    if (!out || out->empty()) return Error{me + "-o FILE is required"};
    o.out = *out;
    auto depth = args.unsignedValue("--depth", 8, 1, 256);
    if (!depth) return depth.error();
    o.depth = static_cast<uint32_t>(*depth);
    o.sites = args.value("--sites").value_or("walk");
    if (o.sites != "walk" && o.sites != "jvmti" && o.sites != "check")
        return Error{me + "--sites expects walk, jvmti or check, got '" + o.sites + "'"};
    // (A sampled recording takes none unless asked: a walk of a service's heap costs seconds.)
    o.refs = args.value("--refs").value_or(args.has("--sampled") ? "off" : "1");
    uint64_t refs_n = 0;
    const bool percent = o.refs.ends_with('%') &&
                         parseUnsigned(std::string_view(o.refs).substr(0, o.refs.size() - 1), &refs_n) &&
                         refs_n >= 1 && refs_n <= 100;
    if (o.refs != "off" && !percent && (!parseUnsigned(o.refs, &refs_n) || refs_n == 0 || refs_n > 1'000'000))
        return Error{
            me +
            "--refs expects a number of GCs from 1 to 1000000, a share of the run from 1% to 100%, or "
            "'off', got '" +
            o.refs + "'"};
    if (auto interval = args.value("--interval")) {
        if (!args.has("--sampled"))
            return Error{me + "--interval is the sampling interval of --sampled: add --sampled"};
        // SetHeapSamplingInterval takes a jint.
        if (!parseBytes(*interval, &o.interval) || o.interval == 0 || o.interval > INT32_MAX)
            return Error{me + "--interval expects a size from 1 byte to 2047m (e.g. 512k), got '" +
                         *interval + "'"};
    } else if (args.has("--sampled")) {
        o.interval = kDefaultSamplingInterval;
    }
    // The JVM opens the trace: where it will see it, said here in one line rather than by a JVM
    // that fails to start; the agent's options are comma-separated.
    o.file = std::filesystem::absolute(o.out).string();
    if (access(std::filesystem::path(o.file).parent_path().c_str(), W_OK) != 0)
        return Error{me + o.out + ": cannot write there: " + std::strerror(errno)};
    if (o.file.find(',') != std::string::npos)
        return Error{me + o.out + ": the agent's options cannot carry a path with a comma"};
    return o;
}

std::string agentOptionsFor(const RecordingOptions& o) {
    return "file=" + o.file + ",depth=" + std::to_string(o.depth) + ",refs=" + o.refs +
           (o.sites == "walk" ? "" : ",sites=" + o.sites) +
           (o.interval ? ",interval=" + std::to_string(o.interval) : "");
}

Result<std::string> findAgent(std::string_view command) {
    if (const char* env = std::getenv("MEMCITY_AGENT"); env && *env) return std::string(env);
    std::error_code ec;
    auto exe = std::filesystem::read_symlink("/proc/self/exe", ec);
    if (!ec)
        for (auto candidate :
             {exe.parent_path() / "libmemcity_agent.so", exe.parent_path() / "../lib/libmemcity_agent.so"})
            if (std::filesystem::exists(candidate)) return std::filesystem::canonical(candidate).string();
    return Error{
        "memcity " + std::string(command) +
        ": the recorder agent (libmemcity_agent.so) was not found next to memcity; it is built when a "
        "JDK is installed (or set MEMCITY_AGENT)"};
}

namespace {

// A sampled trace's summary: what its samples stand for, and what the trace costs per minute.
void printSampledSummary(const HeapHistory& h, const std::string& name, uint64_t trace_bytes,
                         const std::string& program) {
    const EventCounts& c = h.counts();
    SampleSums allocated;
    for (const GcRecord& r : h.gcs())
        allocated += r.allocated_sampled;
    const double minutes = c.any_time ? static_cast<double>(c.last_time_ns - c.first_time_ns) / 60e9 : 0.0;
    std::cout << "recorded " << name << ": " << formatCountOf(c.objects_allocated, "sample", "samples")
              << " (" << formatBytes(c.bytes_allocated) << "), one per "
              << formatBytes(h.sampling()->interval()) << " allocated on average, "
              << formatCountOf(h.gcCount(), "GC", "GCs") << "\n"
              << "  up to its last GC the program allocated " << estimateText(allocated, false)
              << " objects, " << estimateText(allocated, true) << "\n"
              << "  trace " << formatBytes(trace_bytes);
    if (minutes > 0)
        std::cout << ", " << formatBytes(static_cast<uint64_t>(static_cast<double>(trace_bytes) / minutes))
                  << " per minute";
    std::cout << "; peak live " << formatBytes(c.peak_live_bytes) << " (estimated) at GC " << c.peak_bytes_gc
              << "\n  the program " << program << "\n";
}

}  // namespace

void printRecordingSummary(const LoadedTrace& loaded, const std::string& name, const std::string& program) {
    const HeapHistory& h = *loaded.history;
    const EventCounts& c = h.counts();
    const uint64_t trace_bytes = loaded.trace->fileSize();
    if (h.sampled()) {
        printSampledSummary(h, name, trace_bytes, program);
        printDiagnostics(loaded, std::cerr, false);
        return;
    }
    std::cout << "recorded " << name << ": " << formatCountOf(c.objects_allocated, "object", "objects")
              << " (" << formatBytes(c.bytes_allocated) << "), " << formatCountOf(h.gcCount(), "GC", "GCs")
              << ", " << formatCountOf(h.snapshots().size(), "reference snapshot", "reference snapshots")
              << ", " << formatCountOf(c.total(), "event", "events") << "\n"
              << "  trace " << formatBytes(trace_bytes) << ", "
              << (c.objects_allocated ? std::to_string(trace_bytes * 10 / c.objects_allocated / 10) + "." +
                                            std::to_string(trace_bytes * 10 / c.objects_allocated % 10)
                                      : std::string("-"))
              << " bytes per allocation; peak live " << formatBytes(c.peak_live_bytes) << " at GC "
              << c.peak_bytes_gc << "\n  the program " << program << "\n"
              << "  the recorder's slowdown cannot be known from this run alone: time the program without it "
                 "to compare\n"
              << "  JVM agreement: "
              << describeJvmAgreement(summarizeJvmChecks(h.jvmChecks()), !h.jvmFacts().empty()) << "\n";
    printDiagnostics(loaded, std::cerr, false);
}

}  // namespace memcity::cli
