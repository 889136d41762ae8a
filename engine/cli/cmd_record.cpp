// memcity record -o FILE [--depth N] [--refs N|off] [--gc-every BYTES] [--no-final-gc]
//                [--sites walk|jvmti|check] -- java ARGS...
#include <signal.h>
#include <sys/prctl.h>
#include <sys/wait.h>
#include <unistd.h>

#include <algorithm>
#include <chrono>
#include <cstdlib>
#include <cstring>
#include <filesystem>
#include <iostream>

#include "cli/args.h"
#include "cli/commands.h"
#include "cli/load.h"
#include "cli/recording.h"
#include "cli/text_format.h"
#include "trace/trace_writer.h"

namespace memcity::cli {
namespace {

// The traces that later JVMs of the command wrote beside `file` (agent option shared): STEM.PID.EXT,
// written since `since`.
std::vector<std::string> otherJvmTraces(const std::string& file, std::filesystem::file_time_type since) {
    namespace fs = std::filesystem;
    const fs::path path(file);
    const std::string stem = path.stem().string();
    const std::string ext = path.has_extension() ? path.extension().string() : ".mct";
    std::vector<std::string> out;
    std::error_code ec;
    for (const fs::directory_entry& e : fs::directory_iterator(path.parent_path(), ec)) {
        const std::string name = e.path().filename().string();
        if (name.size() <= stem.size() + 1 + ext.size() || !name.starts_with(stem + ".") ||
            !name.ends_with(ext))
            continue;
        const std::string pid = name.substr(stem.size() + 1, name.size() - stem.size() - 1 - ext.size());
        if (pid.find_first_not_of("0123456789") != std::string::npos) continue;
        if (e.last_write_time(ec) >= since && !ec) out.push_back(e.path().string());
    }
    std::sort(out.begin(), out.end());
    return out;
}

// The program memcity record runs: SIGTERM and SIGHUP sent to memcity go on to it.
volatile sig_atomic_t g_program = 0;

void forwardToProgram(int sig) {
    if (g_program > 0) kill(static_cast<pid_t>(g_program), sig);
}

bool mentions(const std::vector<std::string>& args, std::string_view a, std::string_view b = {}) {
    for (const std::string& s : args)
        if (s.find(a) != std::string::npos && (b.empty() || s.find(b) != std::string::npos)) return true;
    return false;
}

int runRecord(const Words& words, const LiveView& live) {
    // Options end at "--"; the command follows.
    Words options, command;
    bool after = false;
    for (const std::string& w : words) {
        if (!after && w == "--")
            after = true;
        else
            (after ? command : options).push_back(w);
    }
    auto args = Args::parse("record", options);
    if (!args) {
        std::cerr << args.error().message << "\n";
        return 1;
    }
    if (args->help()) return printHelp("record");
    auto recording = readRecordingOptions(*args, "record", static_cast<bool>(live));
    if (!recording) {
        std::cerr << recording.error().message << "\n";
        return 1;
    }
    if (!args->positionals().empty() || command.empty()) {
        std::cerr << "memcity record: put the program after --, e.g. 'memcity record -o app.mct -- java -jar "
                     "app.jar'\n";
        return 1;
    }
    // A young GC every BYTES allocated: the young generation sized so that its eden holds BYTES.
    uint64_t gc_every = 0;
    if (auto v = args->value("--gc-every")) {
        if (!parseBytes(*v, &gc_every) || gc_every < (uint64_t{1} << 20) || gc_every > (uint64_t{1} << 40)) {
            std::cerr << "memcity record: --gc-every expects a size from 1m to 1024g (e.g. 4m), got '" << *v
                      << "'\n";
            return 1;
        }
        if (mentions(command, "-Xmn") || mentions(command, "NewSize") || mentions(command, "SurvivorRatio")) {
            std::cerr << "memcity record: --gc-every sizes the young generation, which the command sizes "
                         "too (-Xmn, NewSize or SurvivorRatio): drop one\n";
            return 1;
        }
    }
    const std::string& file = recording->file;
    auto agent = findAgent("record");
    if (!agent) {
        std::cerr << agent.error().message << "\n";
        return 1;
    }
    std::string agent_arg = "-agentpath:" + *agent + "=" + agentOptionsFor(*recording) +
                            (args->has("--no-final-gc") ? ",finalgc=no" : "") + ",quiet,shared";
    std::vector<std::string> jvm_flags = {agent_arg};
    // Repeatable traces: stop-the-world GCs and no escape analysis, unless the user chose. A
    // sampled recording is production's: the JVM runs as it would without memcity.
    if (!recording->interval) {
        if (!mentions(command, "-XX:+Use", "GC")) jvm_flags.push_back("-XX:+UseSerialGC");
        if (!mentions(command, "DoEscapeAnalysis")) jvm_flags.push_back("-XX:-DoEscapeAnalysis");
        // Full GCs compact the whole heap: none leaves dead objects in place as filler arrays (up
        // to 5% of the old generation), so the JVM's heap in use after one is its live objects.
        if (!mentions(command, "MarkSweepDeadRatio")) jvm_flags.push_back("-XX:MarkSweepDeadRatio=0");
    }
    if (gc_every) {
        // Eden is 8/10 of the young generation (SurvivorRatio=8: each survivor space 1/10); the
        // parallel collector would otherwise resize it to its own pause goals.
        jvm_flags.push_back("-Xmn" + std::to_string(gc_every / 8 * 10));
        jvm_flags.push_back("-XX:SurvivorRatio=8");
        if (mentions(command, "-XX:+UseParallelGC")) jvm_flags.push_back("-XX:-UseAdaptiveSizePolicy");
        // G1's eden is whole regions: of 1 MiB (the least), eden is about BYTES at any heap size.
        if (mentions(command, "-XX:+UseG1GC") && !mentions(command, "G1HeapRegionSize"))
            jvm_flags.push_back("-XX:G1HeapRegionSize=1m");
    }

    std::vector<std::string> argv = {command[0]};
    const bool is_java = std::filesystem::path(command[0]).filename() == "java";
    if (is_java) argv.insert(argv.end(), jvm_flags.begin(), jvm_flags.end());
    argv.insert(argv.end(), command.begin() + 1, command.end());
    std::string tool_options;
    if (!is_java) {
        // Not the java launcher itself (a script, a build tool): the JVMs it starts read this.
        for (const std::string& f : jvm_flags)
            tool_options += (tool_options.empty() ? "" : " ") + f;
        if (const char* existing = std::getenv("JAVA_TOOL_OPTIONS"))
            tool_options = std::string(existing) + " " + tool_options;
    }

    // With shared, the first JVM to create FILE records into it and any later one beside it
    // (FILE.PID.mct): an old FILE would send them all beside it. One that a recording still
    // writes stays, and this one is refused.
    if (Status held = removeUnlessBeingWritten(file); !held) {
        std::cerr << "memcity record: " << held.error().message << "\n";
        return 1;
    }
    const auto started = std::filesystem::file_time_type::clock::now();

    auto t0 = std::chrono::steady_clock::now();
    const pid_t parent = getpid();
    pid_t pid = fork();
    if (pid < 0) {
        std::cerr << "memcity record: cannot start " << command[0] << "\n";
        return 1;
    }
    if (pid == 0) {
        // If memcity dies (killed outright), the program ends as at SIGTERM, and the agent's
        // shutdown hook closes the trace complete: no recording runs on that nobody reports.
        prctl(PR_SET_PDEATHSIG, SIGTERM);
        if (getppid() != parent) _exit(127);
        if (!is_java) setenv("JAVA_TOOL_OPTIONS", tool_options.c_str(), 1);
        std::vector<char*> cargv;
        for (std::string& a : argv)
            cargv.push_back(a.data());
        cargv.push_back(nullptr);
        execvp(cargv[0], cargv.data());
        std::cerr << "memcity record: cannot run " << command[0] << ": " << std::strerror(errno) << "\n";
        _exit(127);
    }
    // Ctrl-C goes to the program; memcity waits for it and then reports. SIGTERM and SIGHUP
    // (a session that ends) are passed on to it, with the same end.
    signal(SIGINT, SIG_IGN);
    g_program = pid;
    struct sigaction forward {
    }, old_term{}, old_hup{};
    forward.sa_handler = forwardToProgram;
    sigemptyset(&forward.sa_mask);
    sigaction(SIGTERM, &forward, &old_term);
    sigaction(SIGHUP, &forward, &old_hup);
    if (recording->live) {
        // Whether the program has not exited (it is not reaped: it is waited for below).
        auto running = [pid] {
            siginfo_t info{};
            return waitid(P_PID, static_cast<id_t>(pid), &info, WEXITED | WNOHANG | WNOWAIT) == 0 &&
                   info.si_pid == 0;
        };
        live(file, running, recording->window);
        if (running())
            std::cerr << "memcity record: the window was closed; the program goes on, recorded into " << file
                      << "\n";
    }
    int status = 0;
    while (waitpid(pid, &status, 0) < 0 && errno == EINTR) {
    }
    signal(SIGINT, SIG_DFL);
    sigaction(SIGTERM, &old_term, nullptr);
    sigaction(SIGHUP, &old_hup, nullptr);
    g_program = 0;
    const double seconds = std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
    int code = WIFEXITED(status) ? WEXITSTATUS(status) : 128 + WTERMSIG(status);
    if (WIFEXITED(status) && code == 127) return 1;

    if (!std::filesystem::exists(file)) {
        std::cerr << "memcity record: no JVM wrote " << recording->out << " (did '" << command[0]
                  << "' start java? the program exited with status " << code << ")\n";
        return code ? code : 1;
    }
    auto loaded = loadTrace(file);
    if (!loaded) {
        std::cerr << "memcity record: " << loaded.error().message << "\n";
        return code ? code : 1;
    }
    // The java launcher is the JVM: a trace another process wrote (a recording begun meanwhile into
    // the same file) is not this one's, and its summary is not said as this one's.
    const std::string* writer_pid = loaded->trace->metaValue("pid");
    if (is_java && writer_pid && *writer_pid != std::to_string(pid)) {
        std::cerr << "memcity record: " << recording->out << " was written by another JVM (pid "
                  << *writer_pid << "), not this command's (pid " << pid << ")\n";
        return code ? code : 1;
    }
    printRecordingSummary(*loaded, recording->out,
                          (WIFEXITED(status) ? "exited with status " + std::to_string(code)
                                             : "was killed by signal " + std::to_string(WTERMSIG(status))) +
                              " after " + formatDuration(static_cast<int64_t>(seconds * 1e9)) +
                              " (recorded)");
    for (const std::string& other : otherJvmTraces(file, started))
        std::cout << "  another JVM of the command recorded " << other << "\n";
    return code;
}

}  // namespace

extern const Command kRecord{
    .name = "record",
    .summary = "record a Java program's heap into a trace",
    .usage = R"(usage: memcity record -o FILE [--sampled [--interval BYTES]] [--depth N] [--refs N|P%|off]
                     [--gc-every BYTES] [--no-final-gc] [--sites walk|jvmti|check]
                     [--live [--script FILE]] -- java ARGS...

Runs the program with memcity's JVMTI agent and records every allocation (type, size,
array length, thread, allocation site with N frames), every death, every GC, and after
every Nth GC the references between objects and the GC roots. Unless the program's
arguments choose otherwise, the JVM runs with -XX:+UseSerialGC (clean stop-the-world GC
points) and -XX:-DoEscapeAnalysis (repeatable allocation counts).

With --sampled, for a busy service: the JVM's heap sampler picks one allocation per 512 KiB
(--interval) on average, each with its site and thread, and its death is recorded as before;
every view then shows estimates with their intervals. The JVM keeps its own flags, the
program runs within about 5% of its plain speed, and a class census after every full GC (and
at young GCs, within 1% of the run) makes the per-type figures exact there. Reference
snapshots only where asked for: --refs N or --refs P% (the walks kept within P% of the run's
time), or 'memcity snapshot PID' while it runs; each walks the whole heap (seconds for
gigabytes) and makes that GC's heap whole, with its roots, paths and retained sizes.
docs/recorder.md, "Sampled recording", says how to choose. When the command is not
the java launcher itself (a script), the agent is passed through JAVA_TOOL_OPTIONS, and
every JVM it starts is recorded: the first into FILE, the others beside it (app.PID.mct
for app.mct).

memcity exits with the program's exit status, after a summary of the trace.

)",
    .options = recordingOptions({
        .sampled = "record a sample of the allocations, at production cost (above)",
        .sites =
            "how allocation sites are read: walk (default) from the JVM's own frames,\nasking JVMTI only "
            "for a stack not seen before; jvmti asks JVMTI every time\n(slower); check does both for every "
            "allocation and reports any site\nthat differs (a self-test of the recorder)",
        .live =
            "show the trace while it is written: the explorer window, GC by GC\n(closing it does not stop "
            "the program), or without a display a line\nper GC (time, live bytes, pause)",
        .after_refs =
            {
                {"--gc-every", "BYTES", "",
                 "a young GC after about BYTES allocated (e.g. 4m): the young generation\nsized to it, "
                 "so that a short program has GCs to travel through"},
                {"--no-final-gc", "", "", "no GC at exit (the last deaths then go unrecorded)"},
            },
        .after_sites = {},
    }),
    .import_dumps = false,
    .run = [](const Words& a, const Services& s) { return runRecord(a, s.live); },
};

}  // namespace memcity::cli
