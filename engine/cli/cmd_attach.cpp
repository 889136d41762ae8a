// memcity attach PID -o FILE [--sampled [--interval BYTES]] [--depth N] [--refs N|P%|off]
//                [--sites MODE] [--seconds S] [--live]
// memcity detach PID
// memcity snapshot PID [--now]
#include <signal.h>
#include <sys/stat.h>
#include <unistd.h>

#include <atomic>
#include <cerrno>
#include <chrono>
#include <cstring>
#include <filesystem>
#include <iostream>
#include <system_error>
#include <thread>

#include "cli/args.h"
#include "cli/commands.h"
#include "cli/jvm_attach.h"
#include "cli/jvm_target_args.h"
#include "cli/load.h"
#include "cli/recording.h"
#include "cli/text_format.h"
#include "live/control_client.h"
#include "trace/trace_reader.h"
#include "trace/trace_writer.h"
#include "util/parallel.h"

namespace memcity::cli {
namespace {

using Clock = std::chrono::steady_clock;
using namespace std::chrono_literals;

// The agent's control socket of a JVM, as this process reaches it (through the JVM's own /tmp).
std::string controlSocketOf(const JvmTarget& t) {
    return "/proc/" + std::to_string(t.pid) + "/root" + live::socketPath(t.uid, t.ns_pid);
}

std::string who(const JvmTarget& t) {
    return "process " + std::to_string(t.pid) + " (" + (t.main_class.empty() ? t.command : t.main_class) +
           ")";
}

// Waits until the trace's writer has finished it (or is gone), up to `timeout`.
bool waitForFinishedTrace(const std::string& path, std::chrono::seconds timeout) {
    const auto deadline = Clock::now() + timeout;
    while (Clock::now() < deadline) {
        auto t = TraceFile::open(path);
        if (t && !t->beingWritten()) return true;
        std::this_thread::sleep_for(50ms);
    }
    return false;
}

int runAttach(const Words& words, const LiveView& live) {
    auto args = Args::parse("attach", words);
    if (!args) {
        std::cerr << args.error().message << "\n";
        return 1;
    }
    if (args->help()) return printHelp("attach");
    auto pid = parsePid(*args, "attach");
    if (!pid) {
        std::cerr << pid.error().message << "\n";
        return 1;
    }
    auto recording = readRecordingOptions(*args, "attach", static_cast<bool>(live));
    if (!recording) {
        std::cerr << recording.error().message << "\n";
        return 1;
    }
    double seconds = 0;
    if (auto v = args->value("--seconds")) {
        uint64_t s = 0;
        if (!parseUnsigned(*v, &s) || s == 0) {
            std::cerr << "memcity attach: --seconds expects a whole number of seconds, got '" << *v << "'\n";
            return 1;
        }
        seconds = static_cast<double>(s);
    }

    auto target = checkAttachable(*pid);
    if (!target) {
        std::cerr << "memcity attach: " << target.error().message << "\n";
        return 1;
    }
    const std::string socket = controlSocketOf(*target);
    if (auto already = live::ControlClient::connect(socket, 2.0)) {
        std::cerr << "memcity attach: " << who(*target) << " is being recorded already, into "
                  << already->last().file << " ('memcity detach " << *pid << "' stops that)\n";
        return 1;
    }
    auto agent = findAgent("attach");
    if (!agent) {
        std::cerr << agent.error().message << "\n";
        return 1;
    }
    // The agent replaces the file once it holds it; until then it stays as it is (an agent that
    // fails to load leaves it), and another recording's file is refused here.
    const std::string& file = recording->file;
    if (Status held = checkNoTraceWriter(file); !held) {
        std::cerr << "memcity attach: " << held.error().message << "\n";
        return 1;
    }
    // owned: the recording ends when this process's connection closes, whatever ends it.
    const std::string options = agentOptionsFor(*recording) + ",quiet,owned";
    const auto t0 = Clock::now();
    auto code = loadAgent(*pid, *agent, options);
    if (!code) {
        std::cerr << "memcity attach: " << code.error().message << "\n";
        return 1;
    }
    if (*code == static_cast<int>(live::AttachCode::kNoControl)) {
        // What the agent found wrong with its socket directory, as this process sees it.
        const std::string dir =
            "/proc/" + std::to_string(target->pid) + "/root" + live::socketDirectory(target->uid);
        const Status why = live::checkPrivateDirectory(dir, target->uid);
        std::cerr << "memcity attach: " << who(*target) << ": the agent's control channel could not start ("
                  << (why ? std::string("see the program's output") : why.error().message)
                  << "); nothing was recorded and the agent stopped\n";
        return 1;
    }
    if (*code != 0) {
        std::cerr << "memcity attach: " << who(*target) << ": " << live::attachCodeMessage(*code) << "\n";
        return 1;
    }
    auto client = live::ControlClient::connect(socket, 5.0);
    if (!client) {
        std::cerr << "memcity attach: the agent was loaded into " << who(*target)
                  << " but its control channel does not answer: " << client.error().message << "\n";
        return 1;
    }
    // This connection owns the recording: if this process dies, the agent detaches. Claimed
    // before the recording is announced, so that whoever sees the announcement may end it by
    // ending this process.
    if (auto owned = client->call({live::Command::kOwn, {}}); !owned)
        std::cerr << "memcity attach: the agent did not take this client as the recording's owner ("
                  << owned.error().message << "): if this process dies, 'memcity detach " << *pid
                  << "' stops the recording\n";
    std::cerr << "memcity attach: recording " << who(*target) << " into " << recording->out
              << " (attached in "
              << formatDuration(
                     std::chrono::duration_cast<std::chrono::nanoseconds>(Clock::now() - t0).count())
              << "); " << (seconds > 0 ? "for " + std::to_string(static_cast<int>(seconds)) + " s, or " : "")
              << "Ctrl-C or 'memcity detach " << *pid << "' stops it\n";

    // The recording ends at --seconds, at Ctrl-C, when the window closes (--live), when another
    // memcity detaches it, or when the JVM exits; the JVM goes on in each case.
    InterruptGuard interrupts;
    std::atomic<bool> stop{false}, ended{false};
    std::string ended_how = "recording stopped";
    auto watch = [&] {
        const auto deadline = Clock::now() + std::chrono::duration_cast<Clock::duration>(
                                                 std::chrono::duration<double>(seconds > 0 ? seconds : 1e9));
        while (!stop && !InterruptGuard::interrupted() && Clock::now() < deadline) {
            auto s = client->status(2.0);
            if (!s || s->state == live::ProgramState::kDetached) {  // detached by another, or the JVM exited
                ended_how = kill(*pid, 0) == 0 ? "another memcity stopped the recording" : "the JVM exited";
                ended = true;
                return;
            }
            std::this_thread::sleep_for(200ms);
        }
        if (auto d = client->call({live::Command::kDetach, {}}); !d)
            ended_how = kill(*pid, 0) == 0 ? "detach failed: " + d.error().message : "the JVM exited";
        ended = true;
    };
    std::thread stopper;
    try {
        stopper = std::thread([&] {
            try {
                watch();
            } catch (...) {  // (std::bad_alloc, most often; the agent detaches when this process ends)
                ended_how = describeFailure(std::current_exception());
                ended = true;
            }
        });
    } catch (const std::system_error& e) {
        (void)client->call({live::Command::kDetach, {}});
        std::cerr << "memcity attach: cannot start a thread (" << e.what() << "): the recording is stopped\n";
        return 1;
    }
    if (recording->live) {
        live(
            file, [&] { return !ended.load(); }, recording->window);
        if (!ended)
            std::cerr << "memcity attach: the window was closed: recording stops; the program goes on\n";
    }
    if (!recording->live || !ended) {
        stop = recording->live;
        while (!ended)
            std::this_thread::sleep_for(50ms);
    }
    stopper.join();
    if (!waitForFinishedTrace(file, 30s))
        std::cerr << "memcity attach: " << recording->out
                  << " is still being written 30 s after the recording stopped\n";
    auto loaded = loadTrace(file);
    if (!loaded) {
        std::cerr << "memcity attach: " << loaded.error().message << "\n";
        return 1;
    }
    const double recorded = std::chrono::duration<double>(Clock::now() - t0).count();
    printRecordingSummary(*loaded, recording->out,
                          std::string(kill(*pid, 0) == 0 ? "goes on" : "exited") + " (" + ended_how +
                              " after " + formatDuration(static_cast<int64_t>(recorded * 1e9)) + ")");
    return 0;
}

// The control channel of the JVM `pid` that memcity records (in its /tmp: not through the
// attach mechanism, which a JVM recorded from its start may have turned off). Error: one line,
// "memcity COMMAND: ...".
Result<live::ControlClient> connectToRecorder(pid_t pid, const std::string& command) {
    if (kill(pid, 0) != 0 && errno == ESRCH)
        return Error{"memcity " + command + ": process " + std::to_string(pid) + " does not exist"};
    const std::string socket = live::socketPath(geteuid(), pid);
    auto client = live::ControlClient::connect("/proc/" + std::to_string(pid) + "/root" + socket, 2.0);
    if (!client)
        return Error{"memcity " + command + ": process " + std::to_string(pid) +
                     " is not being recorded by memcity (no control channel at " + socket + ")"};
    return client;
}

int runDetach(const Words& words) {
    auto args = Args::parse("detach", words);
    if (!args) {
        std::cerr << args.error().message << "\n";
        return 1;
    }
    if (args->help()) return printHelp("detach");
    auto pid = parsePid(*args, "detach");
    if (!pid) {
        std::cerr << pid.error().message << "\n";
        return 1;
    }
    auto client = connectToRecorder(*pid, "detach");
    if (!client) {
        std::cerr << client.error().message << "\n";
        return 1;
    }
    const std::string file = client->last().file;
    if (auto d = client->call({live::Command::kDetach, {}}); !d) {
        std::cerr << "memcity detach: " << d.error().message << "\n";
        return 1;
    }
    // The trace the agent names is opened only if it is a file of ours.
    if (Status own = live::checkAgentTrace(file); !own.ok()) {
        std::cerr << "memcity detach: process " << *pid
                  << " is no longer recorded, but its trace is not opened: " << own.error().message << "\n";
        return 1;
    }
    if (!waitForFinishedTrace(file, std::chrono::seconds(30))) {
        std::cerr << "memcity detach: " << file << " is still being written 30 s after the detach\n";
        return 1;
    }
    std::cout << "memcity detach: process " << *pid << " is no longer recorded; its trace is " << file
              << "\n";
    return 0;
}

int runSnapshot(const Words& words) {
    auto args = Args::parse("snapshot", words);
    if (!args) {
        std::cerr << args.error().message << "\n";
        return 1;
    }
    if (args->help()) return printHelp("snapshot");
    auto pid = parsePid(*args, "snapshot");
    if (!pid) {
        std::cerr << pid.error().message << "\n";
        return 1;
    }
    auto client = connectToRecorder(*pid, "snapshot");
    if (!client) {
        std::cerr << client.error().message << "\n";
        return 1;
    }
    const bool now = args->has("--now");
    // (The agent answers "snapshot now" once the walk is written: seconds for a large heap.)
    auto status = client->call({live::Command::kSnapshot, {}, now}, now ? 150.0 : 5.0);
    if (!status) {
        std::cerr << "memcity snapshot: " << status.error().message << "\n";
        return 1;
    }
    if (now)
        std::cout << "memcity snapshot: process " << *pid << ": the reference snapshot of GC "
                  << status->snapshot_gc << " is written to " << status->file << "\n";
    else
        std::cout << "memcity snapshot: process " << *pid
                  << " takes a reference snapshot at its next GC (into " << status->file << ")\n";
    return 0;
}

}  // namespace

extern const Command kAttach{
    .name = "attach",
    .summary = "record a JVM that is already running, from now on",
    .usage = R"(usage: memcity attach PID -o FILE [--sampled [--interval BYTES]] [--depth N] [--refs N|P%|off]
                     [--sites walk|jvmti|check] [--seconds S] [--live [--script FILE]]

Loads memcity's recorder into the running HotSpot JVM PID (JDK 17 or newer, of your own user)
through the JVM's attach mechanism, and records from then on, as 'memcity record' does: every
allocation with its site, every death, every GC, the references after every Nth GC. Objects
alive when it attaches are "allocated before recording" (no site). Attaching costs one full GC
and a walk of the heap; the program runs on. With --sampled (see 'memcity record --help') only
the walk, which picks the objects already there by the sampler's law: no GC is forced.

Recording stops after --seconds, at Ctrl-C, when the window of --live is closed, when
'memcity detach PID' is run, or when the JVM exits; the trace is then finished and the JVM goes
on, with everything the recorder turned on turned off. memcity then prints a summary.

Refused in one line, with exit status 1: a process that is not a JVM, a JVM of another user, one
started with -XX:+DisableAttachMechanism, one that memcity records already. JDK 21 and later
print a warning about dynamically loaded agents on the program's stderr.

)",
    .options = recordingOptions({
        .sampled = "record a sample of the allocations, at production cost",
        .sites = "walk (default), jvmti or check (see 'memcity record --help')",
        .live = "show the trace as it is written: the explorer window (pause, step and\nresume the program "
                "there), or without a display a line per GC",
        .after_refs = {},
        .after_sites = {{"--seconds", "S", "", "stop recording after S seconds"}},
    }),
    .import_dumps = false,
    .run = [](const Words& a, const Services& s) { return runAttach(a, s.live); },
};

extern const Command kDetach{
    .name = "detach",
    .summary = "stop recording a JVM that memcity records; it goes on running",
    .usage = R"(usage: memcity detach PID

Ends the recording of the JVM PID (started by 'memcity attach' or by 'memcity record'): the
trace is finished, and the JVM goes on without the recorder. Exit status 1, with one line, when
memcity does not record PID.

)",
    .options = {},
    .run = [](const Words& a, const Services&) { return runDetach(a); },
};

extern const Command kSnapshot{
    .name = "snapshot",
    .summary = "ask a JVM that memcity records for a reference snapshot",
    .usage = R"(usage: memcity snapshot PID [--now]

Asks the recorder of the JVM PID (started by 'memcity attach' or 'memcity record') for a
reference snapshot at the next GC it writes: every object and reference, and the GC roots, so
that retained sizes, roots and paths are known at that GC. A sampled recording takes none
unless asked, and its snapshot makes that GC's heap whole: the objects that are no samples are
listed too. The walk stops the program a while: some 0.4 us per object, 12 s for a heap of
1 GiB in 37 million objects (a dozen full GCs of it; docs/recorder.md).

With --now, memcity forces that GC and waits until the snapshot is written, then says which GC
has it. Exit status 1, with one line, when memcity does not record PID, when the program is
paused (step it: the next GC has the snapshot), or when the snapshot was missed three times
(each time another GC overtook the walk, and memcity forced one more).

)",
    .options =
        {
            {"--now", "", "", "force a GC now, and wait until its snapshot is written"},
        },
    .run = [](const Words& a, const Services&) { return runSnapshot(a); },
};

}  // namespace memcity::cli
