// Live recording on real JVMs (JDK 17 and Temurin 25): attaching to a running program and
// detaching from it, pausing it at a GC's end, stepping it and resuming it through the control
// channel, the refusals, a client that sends garbage, and how soon a followed trace shows a GC.
#include <endian.h>
#include <gtest/gtest.h>
#include <signal.h>
#include <sys/socket.h>
#include <sys/un.h>
#include <sys/wait.h>
#include <unistd.h>

#include <chrono>
#include <cstdio>
#include <cstring>
#include <fstream>
#include <regex>
#include <sstream>
#include <thread>

#include "app/virtual_display.h"
#include "classify/classifier.h"
#include "classify/tree.h"
#include "explore/loader.h"
#include "graph/group_report.h"
#include "graph/heap_graph.h"
#include "live/control_client.h"
#include "recorder/java_programs.h"
#include "recorder/process.h"
#include "trace/event_decoder.h"
#include "unit/trace_builder.h"

namespace memcity {
namespace {

namespace fs = std::filesystem;
using namespace std::chrono_literals;
using testing::finish;
using testing::kMemcity;
using testing::Process;
using testing::pump;
using testing::run;
using testing::start;
using Clock = std::chrono::steady_clock;

const std::string kJdk17 = MEMCITY_JAVA_HOME;
const std::string kJdk25 = "/usr/lib/jvm/temurin-25-jdk-amd64";

class Live : public testing::JavaPrograms, public ::testing::WithParamInterface<std::string> {
protected:
    void SetUp() override {
        if (!fs::exists(GetParam() + "/bin/java")) GTEST_SKIP() << GetParam() << " is not installed";
        counter_file_ = testing::tempPath("counter");
    }
    void TearDown() override { fs::remove(counter_file_); }

    // LiveTarget on the JDK of the test, behind `prefix` (memcity record ... --), with `flags`.
    Process startTarget(std::vector<std::string> prefix = {}, std::vector<std::string> flags = {}) {
        std::vector<std::string> argv = std::move(prefix);
        argv.insert(argv.end(), {GetParam() + "/bin/java", "-cp", classes_.string()});
        argv.insert(argv.end(), flags.begin(), flags.end());
        argv.insert(argv.end(), {"LiveTarget", counter_file_});
        Process p = start(argv);
        pid_ = std::atoi(testing::waitForOutput(p, "ready ([0-9]+)", 60).c_str());
        EXPECT_GT(pid_, 0) << p.stderr_text;
        return p;
    }
    // `memcity attach` to the target with `options`, once it says it records.
    Process attachTo(const std::string& trace, std::vector<std::string> options = {}) {
        std::vector<std::string> argv = {kMemcity, "attach", std::to_string(pid_), "-o", trace};
        argv.insert(argv.end(), options.begin(), options.end());
        Process attach = start(argv);
        while (attach.stderr_text.find("recording process") == std::string::npos && pump(attach, 100)) {
        }
        EXPECT_NE(attach.stderr_text.find("recording process " + std::to_string(pid_) + " (LiveTarget)"),
                  std::string::npos)
            << attach.stderr_text;
        return attach;
    }
    // Sends a command to LiveTarget and waits for its answer (a regular expression).
    static bool say(Process& p, const std::string& line, const std::string& answer, int timeout_s = 60) {
        p.stdout_text.clear();
        const std::string out = line + "\n";
        if (write(p.in, out.data(), out.size()) != static_cast<ssize_t>(out.size())) return false;
        return !testing::waitForOutput(p, "(" + answer + ")", timeout_s).empty();
    }
    // A recording under `memcity record --live --script`: a GC asked of LiveTarget every 0.3 s
    // until the script's window has closed (at most 90 s).
    static void gcUntilTheWindowCloses(Process& rec) {
        for (auto until = Clock::now() + 90s; Clock::now() < until;) {
            if (write(rec.in, "gc\n", 3) != 3) break;
            for (int i = 0; i < 3; ++i)
                pump(rec, 100);
            if (rec.stderr_text.find("the window was closed") != std::string::npos) break;
        }
    }
    // Quits LiveTarget (`done`: its last line), which ends with status 0, with memcity around it.
    static void quit(Process& p, const std::string& done) {
        EXPECT_TRUE(say(p, "quit", done)) << p.stdout_text;
        finish(p, 60);
        EXPECT_EQ(p.status, 0) << p.stderr_text;
    }
    // The trace, with no integrity error.
    static Loaded loadSound(const std::string& trace) {
        Loaded l = load(trace);
        if (l.history)
            EXPECT_EQ(l.history->diagnostics().errorCount(), 0u)
                << describeAnomalies(l.history->diagnostics());
        else
            ADD_FAILURE() << trace << " did not load";
        return l;
    }
    // The counter file's `index`th long, as Java's MappedByteBuffer writes it (big-endian).
    uint64_t counterAt(int index) const {
        std::ifstream in(counter_file_, std::ios::binary);
        uint64_t n[2] = {0, 0};
        in.read(reinterpret_cast<char*>(n), sizeof n);
        return be64toh(n[index]);
    }
    // The spinner's count so far (it counts while the program runs, and allocates nothing).
    uint64_t counter() const { return counterAt(0); }
    // The churner's allocations so far (LiveTarget's "churn").
    uint64_t churned() const { return counterAt(1); }
    // The churner's allocations per second, over `span`.
    double churnRate(std::chrono::milliseconds span = 1000ms) const {
        const uint64_t a = churned();
        std::this_thread::sleep_for(span);
        return static_cast<double>(churned() - a) * 1000.0 / static_cast<double>(span.count());
    }
    std::string socketPath() const { return live::socketPath(geteuid(), pid_); }
    // Polls the agent until its program is paused (or `timeout`).
    static Result<live::AgentStatus> waitPaused(live::ControlClient& c, std::chrono::seconds timeout = 20s) {
        const auto deadline = Clock::now() + timeout;
        for (;;) {
            auto s = c.status();
            if (!s || s->state == live::ProgramState::kPaused || Clock::now() > deadline) return s;
            std::this_thread::sleep_for(20ms);
        }
    }

    std::string counter_file_;
    pid_t pid_ = 0;
};

// LiveTarget$Known allocations in a trace: those with a site (recorded as they were allocated)
// and those without (alive when recording began).
struct KnownCount {
    uint64_t with_site = 0, before = 0;
};
KnownCount knownAllocations(const TraceFile& f) {
    struct V : EventVisitorBase {
        const TraceFile* f;
        KnownCount n;
        void onAlloc(const AllocEvent& e, size_t) {
            if (f->symbols().type(e.type).name != "LiveTarget$Known") return;
            ++(e.site ? n.with_site : n.before);
        }
    } v;
    v.f = &f;
    std::vector<uint8_t> scratch;
    for (size_t i = 0; i < f.chunks().size(); ++i) {
        if (f.chunks()[i].kind != static_cast<uint16_t>(format::ChunkKind::kEvents)) continue;
        auto p = f.payload(i, scratch);
        EXPECT_TRUE(p.ok());
        if (p.ok()) decodeEvents(*p, f.symbols(), f.header().object_alignment, v);
    }
    return v.n;
}

// One line on stderr, and exit status 1.
void expectRefusal(const Process& p, const std::string& says) {
    EXPECT_EQ(p.status, 1) << p.stderr_text;
    EXPECT_NE(p.stderr_text.find(says), std::string::npos) << p.stderr_text;
    EXPECT_EQ(std::count(p.stderr_text.begin(), p.stderr_text.end(), '\n'), 1) << p.stderr_text;
}

// Attached to a program that runs already, memcity records exactly what its known code
// allocates from then on (its worker thread ran before, as threads do on JDK 17 with their
// sampling distance drawn), and the objects alive at attach as "before recording". Detached,
// the program goes on and ends normally.
TEST_P(Live, AttachRecordsWhatTheProgramAllocatesUntilDetach) {
    Process target = startTarget();
    ASSERT_TRUE(say(target, "alloc 1000", "allocated 1000"));
    const std::string trace = tracePath("attach");
    Process attach = attachTo(trace, {"--depth", "4"});
    ASSERT_TRUE(say(target, "alloc 20000", "allocated 20000"));
    ASSERT_TRUE(say(target, "drop", "dropped"));
    ASSERT_TRUE(say(target, "alloc 3000", "allocated 3000"));
    ASSERT_TRUE(say(target, "gc", "gc"));
    Process detach = run({kMemcity, "detach", std::to_string(pid_)}, 60);
    EXPECT_EQ(detach.status, 0) << detach.stderr_text;
    EXPECT_NE(detach.stdout_text.find("is no longer recorded"), std::string::npos) << detach.stdout_text;
    finish(attach, 60);
    EXPECT_EQ(attach.status, 0) << attach.stderr_text;
    EXPECT_NE(attach.stdout_text.find("recorded " + trace), std::string::npos) << attach.stdout_text;
    EXPECT_NE(attach.stdout_text.find("the program goes on"), std::string::npos) << attach.stdout_text;
    // The program, unharmed, and the agent's control channel gone with the recording.
    ASSERT_TRUE(say(target, "alloc 500", "allocated 500"));
    EXPECT_FALSE(fs::exists(socketPath()));
    ASSERT_TRUE(say(target, "quit", "done 24500"));
    finish(target, 60);
    EXPECT_EQ(target.status, 0) << target.stderr_text;
    EXPECT_EQ(target.stderr_text.find("memcity agent"), std::string::npos) << target.stderr_text;

    Loaded l = load(trace);
    ASSERT_TRUE(l.history);
    EXPECT_FALSE(l.file->truncated());
    EXPECT_EQ(l.history->diagnostics().errorCount(), 0u) << describeAnomalies(l.history->diagnostics());
    const KnownCount known = knownAllocations(*l.file);
    EXPECT_EQ(known.with_site, 23000u);  // every one allocated while attached, none after
    EXPECT_EQ(known.before, 1000u);      // alive at attach
    // After the program's System.gc(): the last 3000 (drop let go of the others).
    ASSERT_GE(l.history->gcCount(), 1u);
    const uint32_t last = static_cast<uint32_t>(l.history->gcCount() - 1);
    EXPECT_EQ(liveByType(*l.history, last)["LiveTarget$Known"], 3000u);
    ASSERT_FALSE(l.history->jvmChecks().empty());
    for (const JvmCheck& c : l.history->jvmChecks()) {
        if (!c.has_census) continue;
        EXPECT_TRUE(c.biggest.empty()) << "GC " << c.gc << " disagrees with the JVM's count";
    }
}

// Attached sampled: no GC forced, the objects alive at attach picked by the sampler's law, what
// the program allocates while attached estimated from its samples, and at the program's
// System.gc() (a census) the heap counted exactly. Detached, the program runs on at full speed.
TEST_P(Live, AttachSampledEstimatesWhatTheProgramAllocates) {
    Process target = startTarget();
    ASSERT_TRUE(say(target, "alloc 100000", "allocated 100000"));
    const std::string trace = tracePath("attach-sampled");
    Process attach = attachTo(trace, {"--sampled", "--interval", "4k"});
    // A million while attached: on JDK 17 a thread's first sample after attach comes where the
    // distance it drew before (at HotSpot's 512 KiB) ends, some 2% of these.
    ASSERT_TRUE(say(target, "alloc 1000000", "allocated 1000000"));
    ASSERT_TRUE(say(target, "drop", "dropped"));
    ASSERT_TRUE(say(target, "alloc 50000", "allocated 50000"));
    ASSERT_TRUE(say(target, "gc", "gc"));
    Process detach = run({kMemcity, "detach", std::to_string(pid_)}, 60);
    EXPECT_EQ(detach.status, 0) << detach.stderr_text;
    finish(attach, 60);
    EXPECT_EQ(attach.status, 0) << attach.stderr_text;
    EXPECT_NE(attach.stdout_text.find("samples"), std::string::npos) << attach.stdout_text;
    ASSERT_TRUE(say(target, "quit", "done 1150000"));
    finish(target, 60);
    EXPECT_EQ(target.status, 0) << target.stderr_text;

    Loaded l = loadSound(trace);
    ASSERT_TRUE(l.history);
    ASSERT_TRUE(l.history->sampled());
    EXPECT_EQ(l.history->sampling()->interval(), 4096u);
    // Samples, not every object: the 1,050,000 allocated while attached stand behind some six
    // thousand (24 MiB at 4 KiB), and their estimate holds the count to a few percent.
    const KnownCount known = knownAllocations(*l.file);
    EXPECT_GT(known.with_site, 3'000u);
    EXPECT_LT(known.with_site, 100'000u);
    const double each = 1 / l.history->sampling()->probability(24);  // a LiveTarget$Known: 24 bytes
    EXPECT_NEAR(static_cast<double>(known.with_site) * each, 1'050'000.0, 80'000.0);
    // The 100,000 alive at attach: picked by the same law (no site).
    EXPECT_NEAR(static_cast<double>(known.before) * each, 100'000.0, 15'000.0);
    // At the program's System.gc(), the census: exactly the last 50,000.
    uint32_t system_gc = UINT32_MAX;
    for (const GcRecord& g : l.history->gcs())
        if (g.cause && l.file->symbols().string(g.cause) == "System.gc()") system_gc = g.index;
    ASSERT_NE(system_gc, UINT32_MAX);
    ASSERT_GE(l.history->gcs()[system_gc].calibration, 0);
    auto heap = l.history->heapAt(system_gc);
    ASSERT_TRUE(heap.ok());
    auto chain = parseChain("type");
    ASSERT_TRUE(chain.ok());
    const ClassificationTree tree = ClassificationTree::build(heap->view(), *chain);
    const uint32_t node = tree.find({"LiveTarget$Known"});
    ASSERT_NE(node, kNoNode);
    EXPECT_EQ(tree.node(node).objects, 50'000u);
    EXPECT_TRUE(tree.node(node).sampled.objectsEstimate().exact);
}

// A sampled recording takes a reference snapshot when asked ('memcity snapshot'), at a GC forced
// for it (--now, answered once it is written) or at the program's next. At the forced one, the
// heap made whole is the JVM's: every LiveTarget$Known the program keeps, every type the census
// counted with the census's count and bytes, nearly every object reachable; and the samples of Known are
// kept by the static list they are in.
TEST_P(Live, ASampledRecordingTakesASnapshotWhenAsked) {
    Process target = startTarget();
    ASSERT_TRUE(say(target, "alloc 100000", "allocated 100000"));
    const std::string trace = tracePath("snapshot-sampled");
    Process attach = attachTo(trace, {"--sampled", "--interval", "4k"});
    ASSERT_TRUE(say(target, "alloc 50000", "allocated 50000"));
    Process now = run({kMemcity, "snapshot", std::to_string(pid_), "--now"}, 200);
    ASSERT_EQ(now.status, 0) << now.stderr_text;
    std::smatch m;
    ASSERT_TRUE(std::regex_search(now.stdout_text, m, std::regex("snapshot of GC ([0-9]+) is written")))
        << now.stdout_text;
    const auto forced = static_cast<uint32_t>(std::stoul(m[1]));
    ASSERT_TRUE(say(target, "drop", "dropped"));
    Process next = run({kMemcity, "snapshot", std::to_string(pid_)}, 60);
    ASSERT_EQ(next.status, 0) << next.stderr_text;
    EXPECT_NE(next.stdout_text.find("takes a reference snapshot at its next GC"), std::string::npos)
        << next.stdout_text;
    ASSERT_TRUE(say(target, "gc", "gc"));
    ASSERT_EQ(run({kMemcity, "detach", std::to_string(pid_)}, 60).status, 0);
    finish(attach, 60);
    EXPECT_EQ(attach.status, 0) << attach.stderr_text;
    expectRefusal(run({kMemcity, "snapshot", std::to_string(pid_), "--now"}, 60),
                  "is not being recorded by memcity");
    quit(target, "done 150000");

    Loaded l = loadSound(trace);
    ASSERT_TRUE(l.history);
    const HeapHistory& h = *l.history;
    ASSERT_TRUE(h.sampled());
    std::vector<uint32_t> snapshots;
    for (const GcRecord& g : h.gcs())
        if (g.has_snapshot) snapshots.push_back(g.index);
    ASSERT_EQ(snapshots.size(), 2u);
    EXPECT_EQ(snapshots[0], forced);
    EXPECT_GT(snapshots[1], forced);
    EXPECT_EQ(h.gcs()[forced].kind, static_cast<uint8_t>(format::GcKind::kMajor));
    HeapState heap;
    MadeWhole made = expectMadeWholeAsCounted(h, forced, heap);
    ASSERT_TRUE(made.graph);
    EXPECT_GE(made.types, 20u);
    const HeapGraph& g = *made.graph;
    EXPECT_LT(h.gcs()[forced].unreached_bytes * 100, g.heap().liveBytes());
    auto chain = parseChain("type");
    ASSERT_TRUE(chain.ok());
    const ClassificationTree whole = ClassificationTree::build(g.heap(), *chain);
    const uint32_t known = whole.find({"LiveTarget$Known"});
    ASSERT_NE(known, kNoNode);
    EXPECT_EQ(whole.node(known).objects, 150'000u);
    const HeapView samples = heap.view();
    Bitset group(samples.positions());
    samples.forEachLive([&](size_t pos) {
        if (samples.symbols().type(samples.type(pos)).name == "LiveTarget$Known") group.set(pos);
    });
    ASSERT_GT(group.count(), 100u);
    auto report = buildGroupReport(g, g.fit(group));
    ASSERT_TRUE(report.ok()) << report.error().message;
    EXPECT_EQ(report->closure.unreached.objects, 0u);
    ASSERT_FALSE(report->closest_roots.empty());
    EXPECT_NE(report->closest_roots.front().name.find("kept"), std::string::npos)
        << report->closest_roots.front().name;
}

// A sampled recording is paused and resumed as an exact one: at the GC's end the program stops,
// its heap already complete (and estimated) in the trace, and resumed it goes on.
TEST_P(Live, ASampledRecordingPausesAndResumes) {
    const std::string trace = tracePath("pause-sampled");
    Process rec = startTarget({kMemcity, "record", "-o", trace, "--sampled", "--interval", "16k", "--"});
    auto client = live::ControlClient::connect(socketPath());
    ASSERT_TRUE(client.ok()) << client.error().message;
    ASSERT_TRUE(client->call({live::Command::kPause, {}}).ok());
    ASSERT_TRUE(say(rec, "alloc 20000", "allocated 20000"));
    ASSERT_EQ(write(rec.in, "gc\n", 3), 3);
    auto paused = waitPaused(*client);
    ASSERT_TRUE(paused.ok()) << paused.error().message;
    ASSERT_EQ(paused->state, live::ProgramState::kPaused);
    const uint64_t c1 = counter();
    std::this_thread::sleep_for(300ms);
    EXPECT_EQ(counter(), c1) << "the program ran while paused";
    {
        auto f = TraceFile::open(trace);
        ASSERT_TRUE(f.ok()) << f.error().message;
        EXPECT_TRUE(f->header().sampled());
        std::vector<uint32_t> completed;
        HistoryOptions o;
        o.on_heap = [&](const HeapView& v, const GcRecord& r) {
            EXPECT_TRUE(v.sampled());
            completed.push_back(r.index);
            return true;
        };
        o.more = [] { return false; };
        ASSERT_TRUE(HeapHistory::build(*f, o).ok());
        ASSERT_FALSE(completed.empty());
        EXPECT_EQ(completed.back(), static_cast<uint32_t>(paused->paused_gc));
    }
    ASSERT_TRUE(client->call({live::Command::kResume, {}}).ok());
    const auto deadline = Clock::now() + 10s;
    while (counter() == c1 && Clock::now() < deadline)
        std::this_thread::sleep_for(10ms);
    EXPECT_NE(counter(), c1) << "the program did not go on";
    quit(rec, "done 20000");
    Loaded l = loadSound(trace);
    ASSERT_TRUE(l.history);
    EXPECT_TRUE(l.history->sampled());
}

// Paused at a GC's end, the program stops (its spinner, which allocates nothing, too) and the
// trace already holds that GC's complete heap; resumed, it goes on. Step pauses at the next GC,
// conditions at the GCs they name.
TEST_P(Live, PauseStepAndResumeAtGcs) {
    const std::string trace = tracePath("pause");
    Process rec = startTarget({kMemcity, "record", "-o", trace, "--refs", "off", "--"});
    auto client = live::ControlClient::connect(socketPath());
    ASSERT_TRUE(client.ok()) << client.error().message;
    EXPECT_EQ(client->last().state, live::ProgramState::kRunning);
    EXPECT_EQ(client->last().file, trace);
    EXPECT_TRUE(client->last().can_pause);

    auto pausing = client->call({live::Command::kPause, {}});
    ASSERT_TRUE(pausing.ok()) << pausing.error().message;
    EXPECT_EQ(pausing->state, live::ProgramState::kPausing);
    rec.stdout_text.clear();
    ASSERT_EQ(write(rec.in, "gc\n", 3), 3);
    auto paused = waitPaused(*client);
    ASSERT_TRUE(paused.ok()) << paused.error().message;
    ASSERT_EQ(paused->state, live::ProgramState::kPaused);
    const int64_t gc = paused->paused_gc;
    ASSERT_GE(gc, 0);
    const uint64_t c1 = counter();
    std::this_thread::sleep_for(500ms);
    EXPECT_EQ(counter(), c1) << "the program ran while paused";
    pump(rec, 100);
    EXPECT_EQ(rec.stdout_text.find("gc"), std::string::npos) << "its main thread went on";
    {
        // The trace holds the paused GC's heap, complete (its GC_COMPLETE written and flushed):
        // a reader completes it before it reaches the end of what is written.
        auto f = TraceFile::open(trace);
        ASSERT_TRUE(f.ok()) << f.error().message;
        EXPECT_TRUE(f->beingWritten());
        std::vector<uint32_t> completed;
        HistoryOptions o;
        o.on_heap = [&](const HeapView&, const GcRecord& r) {
            completed.push_back(r.index);
            return true;
        };
        bool paused_gc_complete = false;
        o.more = [&] {
            paused_gc_complete = !completed.empty() && completed.back() == static_cast<uint32_t>(gc);
            return false;
        };
        ASSERT_TRUE(HeapHistory::build(*f, o).ok());
        EXPECT_TRUE(paused_gc_complete) << completed.size() << " heaps complete";
    }
    auto resumed = client->call({live::Command::kResume, {}});
    ASSERT_TRUE(resumed.ok()) << resumed.error().message;
    EXPECT_EQ(resumed->state, live::ProgramState::kRunning);
    EXPECT_FALSE(testing::waitForOutput(rec, "(gc)", 30).empty()) << "the program did not go on";
    const auto deadline = Clock::now() + 10s;
    while (counter() == c1 && Clock::now() < deadline)
        std::this_thread::sleep_for(10ms);
    EXPECT_NE(counter(), c1);

    // Conditions: at a full GC (System.gc), then step to the next GC.
    live::Request when{live::Command::kWhen, {}};
    when.when.full_gc = true;
    ASSERT_TRUE(client->call(when).ok());
    rec.stdout_text.clear();
    ASSERT_EQ(write(rec.in, "gc\n", 3), 3);
    paused = waitPaused(*client);
    ASSERT_TRUE(paused.ok() && paused->state == live::ProgramState::kPaused);
    EXPECT_GT(paused->paused_gc, gc);
    EXPECT_TRUE(paused->when.full_gc);
    const int64_t full = paused->paused_gc;
    when.when = {};
    when.when.used_above = 1024;  // every GC leaves more than 1 KiB used
    ASSERT_TRUE(client->call(when).ok());
    auto stepped = client->call({live::Command::kStep, {}});
    ASSERT_TRUE(stepped.ok());
    EXPECT_FALSE(testing::waitForOutput(rec, "(gc)", 30).empty());
    rec.stdout_text.clear();
    ASSERT_EQ(write(rec.in, "gc\n", 3), 3);
    paused = waitPaused(*client);
    ASSERT_TRUE(paused.ok() && paused->state == live::ProgramState::kPaused);
    EXPECT_GT(paused->paused_gc, full);
    ASSERT_TRUE(client->call({live::Command::kWhen, {}}).ok());  // none
    ASSERT_TRUE(client->call({live::Command::kResume, {}}).ok());
    EXPECT_FALSE(testing::waitForOutput(rec, "(gc)", 30).empty());

    quit(rec, "done 0");
    loadSound(trace);
}

// A client that sends garbage is dropped, and so is one of another user; the agent goes on
// serving others and the program ends normally.
TEST_P(Live, AStrangerOnTheSocketIsDropped) {
    const std::string trace = tracePath("stranger");
    Process rec = startTarget({kMemcity, "record", "-o", trace, "--"});
    auto raw = [&](const std::string& bytes) {
        const int fd = socket(AF_UNIX, SOCK_STREAM, 0);
        sockaddr_un addr{};
        addr.sun_family = AF_UNIX;
        std::strcpy(addr.sun_path, socketPath().c_str());
        EXPECT_EQ(connect(fd, reinterpret_cast<sockaddr*>(&addr), sizeof addr), 0) << std::strerror(errno);
        EXPECT_EQ(send(fd, bytes.data(), bytes.size(), MSG_NOSIGNAL), static_cast<ssize_t>(bytes.size()));
        std::string reply;
        char buf[256];
        for (ssize_t n; (n = recv(fd, buf, sizeof buf, 0)) > 0;)
            reply.append(buf, static_cast<size_t>(n));
        close(fd);
        return reply;  // whatever came before the agent closed the connection
    };
    EXPECT_EQ(raw(std::string("\x00\xff\x13garbage\n", 11)).rfind("error ", 0), 0u);
    EXPECT_EQ(raw(std::string(4000, 'a')).rfind("error a request longer", 0), 0u);
    EXPECT_EQ(raw("fly away\n").rfind("error unknown request 'fly'", 0), 0u);
    EXPECT_EQ(raw("when used>lots\n").rfind("error 'used>lots'", 0), 0u);
    if (geteuid() == 0) {
        // Another user cannot even reach the socket: the directory is the recording user's.
        const pid_t child = fork();
        if (child == 0) {
            if (setgid(65534) != 0 || setuid(65534) != 0) _exit(2);
            const int fd = socket(AF_UNIX, SOCK_STREAM, 0);
            sockaddr_un addr{};
            addr.sun_family = AF_UNIX;
            std::strcpy(addr.sun_path, live::socketPath(0, pid_).c_str());
            _exit(connect(fd, reinterpret_cast<sockaddr*>(&addr), sizeof addr) == 0 ? 1 : 0);
        }
        int status = 0;
        waitpid(child, &status, 0);
        EXPECT_TRUE(WIFEXITED(status) && WEXITSTATUS(status) == 0) << "user nobody connected";
    }
    auto client = live::ControlClient::connect(socketPath());
    ASSERT_TRUE(client.ok()) << client.error().message;
    EXPECT_EQ(client->last().state, live::ProgramState::kRunning);
    ASSERT_TRUE(say(rec, "alloc 100", "allocated 100"));
    quit(rec, "done 100");
    loadSound(trace);
}

// Every refusal of attach and detach is one line and exit status 1; the JVMs go on.
TEST_P(Live, AttachAndDetachRefuseClearly) {
    Process target = startTarget();
    const std::string trace = tracePath("refusals");
    Process first = start({kMemcity, "attach", std::to_string(pid_), "-o", trace});
    while (first.stderr_text.find("recording process") == std::string::npos && pump(first, 100)) {
    }
    expectRefusal(run({kMemcity, "attach", std::to_string(pid_), "-o", tracePath("twice")}, 60),
                  "is being recorded already, into " + trace);
    ASSERT_EQ(run({kMemcity, "detach", std::to_string(pid_)}, 60).status, 0);
    finish(first, 60);
    EXPECT_EQ(first.status, 0) << first.stderr_text;
    expectRefusal(run({kMemcity, "detach", std::to_string(pid_)}, 60), "is not being recorded by memcity");

    Process sleeper = start({"sleep", "60"});
    expectRefusal(run({kMemcity, "attach", std::to_string(sleeper.pid), "-o", trace}, 60),
                  "is not a Java virtual machine");
    kill(sleeper.pid, SIGKILL);
    finish(sleeper, 10);
    expectRefusal(run({kMemcity, "attach", "4194303", "-o", trace}, 60), "does not exist");
    expectRefusal(run({kMemcity, "attach", "12x", "-o", trace}, 60), "give the process id of a running JVM");
    expectRefusal(run({kMemcity, "attach", std::to_string(pid_)}, 60), "-o FILE is required");

    Process closed = start({GetParam() + "/bin/java", "-XX:+DisableAttachMechanism", "-cp", classes_.string(),
                            "LiveTarget", counter_file_ + ".2"});
    const std::string closed_pid = testing::waitForOutput(closed, "ready ([0-9]+)", 60);
    expectRefusal(run({kMemcity, "attach", closed_pid, "-o", trace}, 60), "-XX:+DisableAttachMechanism");
    ASSERT_TRUE(say(closed, "quit", "done 0"));
    finish(closed, 60);
    EXPECT_EQ(closed.status, 0);
    EXPECT_EQ(closed.stdout_text.find("Full thread dump"), std::string::npos);
    fs::remove(counter_file_ + ".2");

    if (geteuid() == 0 && fs::exists("/usr/bin/setpriv")) {
        const fs::path dir = fs::temp_directory_path() / ("memcity-other-" + std::to_string(getpid()));
        fs::create_directories(dir);
        fs::copy(classes_, dir, fs::copy_options::recursive);
        fs::permissions(dir, fs::perms::all);
        Process other =
            start({"/usr/bin/setpriv", "--reuid=65534", "--regid=65534", "--clear-groups",
                   GetParam() + "/bin/java", "-cp", dir.string(), "LiveTarget", (dir / "counter").string()});
        const std::string other_pid = testing::waitForOutput(other, "ready ([0-9]+)", 60);
        expectRefusal(run({kMemcity, "attach", other_pid, "-o", trace}, 60), "belongs to user");
        ASSERT_TRUE(say(other, "quit", "done 0"));
        finish(other, 60);
        fs::remove_all(dir);
    }
    ASSERT_TRUE(say(target, "quit", "done 0"));
    finish(target, 60);
    EXPECT_EQ(target.status, 0) << target.stderr_text;
}

// A trace followed while it is written shows each GC soon after the JVM ends it: the agent
// marks the GC's heap complete and flushes at once, and the loader looks every 0.1 s.
TEST_P(Live, AFollowedTraceShowsEachGcWithinASecondAndAHalf) {
    const std::string trace = tracePath("latency");
    Process rec = startTarget({kMemcity, "record", "-o", trace, "--"});
    explore::LoaderOptions options;
    explore::TraceLoader loader(trace, options);
    auto f = TraceFile::open(trace);
    ASSERT_TRUE(f.ok()) << f.error().message;
    const uint64_t start_wall = f->header().start_wall_ns;
    std::vector<GcRecord> records;
    uint64_t revision = 0;
    std::vector<double> latencies;
    auto wall_ns = [] {
        return std::chrono::duration_cast<std::chrono::nanoseconds>(
                   std::chrono::system_clock::now().time_since_epoch())
            .count();
    };
    for (int i = 0; i < 8; ++i) {
        ASSERT_TRUE(say(rec, "alloc 20000", "allocated 20000"));
        // The GC System.gc() runs ends after this (trace time).
        const int64_t asked = wall_ns() - static_cast<int64_t>(start_wall);
        ASSERT_TRUE(say(rec, "gc", "gc"));
        const auto deadline = Clock::now() + 20s;
        auto shown = [&] { return !records.empty() && records.back().end_ns >= asked; };
        while (!shown() && Clock::now() < deadline) {
            loader.syncGcs(&records, &revision);
            std::this_thread::sleep_for(5ms);
        }
        ASSERT_TRUE(shown()) << "the GC of round " << i << " never showed";
        latencies.push_back(
            static_cast<double>(wall_ns() - static_cast<int64_t>(start_wall) - records.back().end_ns) / 1e9);
    }
    std::sort(latencies.begin(), latencies.end());
    std::printf("latency from a GC's end to its record: median %.3f s, worst %.3f s\n",
                latencies[latencies.size() / 2], latencies.back());
    EXPECT_LT(latencies[latencies.size() / 2], 1.5);
    EXPECT_LT(latencies.back(), 5.0);  // a loaded CI machine
    quit(rec, "done");
}

// The window drives the program through the control channel, as a script does: pause at the
// next GC (shown when it is paused), step to the next one, a condition, resume. The program
// gets a "gc" command every 0.3 s and answers it when it runs.
TEST_P(Live, TheWindowPausesStepsAndResumesTheProgram) {
    if (!testing::haveXvfb()) GTEST_SKIP() << "no " << testing::kXvfb;
    const std::string trace = tracePath("live-controls");
    const std::string script = trace + ".script";
    const std::string png = trace + ".png";
    std::ofstream(script) << "wait-gc 0\nlive-pause\nprint state\nlive-step\nprint state\n"
                             "live-pause-when full\nlive-resume\nlive-pause\nprint state\nscreenshot "
                          << png << "\nlive-pause-when none\nlive-resume\nprint state\n";
    Process rec = startTarget({"/usr/bin/env", "DISPLAY=" + testing::VirtualDisplay::name(), kMemcity,
                               "record", "--live", "--script", script, "-o", trace, "--refs", "off", "--"});
    gcUntilTheWindowCloses(rec);
    ASSERT_NE(rec.stderr_text.find("the window was closed; the program goes on"), std::string::npos)
        << rec.stderr_text << rec.stdout_text;
    const std::string printed = rec.stdout_text;
    quit(rec, "done 0");
    // The states the script printed, in order.
    std::vector<std::string> states;
    std::istringstream lines(printed);
    for (std::string line; std::getline(lines, line);)
        if (line.starts_with("program: ")) states.push_back(line);
    ASSERT_EQ(states.size(), 4u) << printed << rec.stderr_text;
    std::smatch m;
    ASSERT_TRUE(
        std::regex_search(states[0], m, std::regex("^program: paused at GC ([0-9]+) \\(pause when none\\)")))
        << states[0];
    const int first = std::stoi(m[1].str());
    ASSERT_TRUE(std::regex_search(states[1], m, std::regex("^program: paused at GC ([0-9]+)"))) << states[1];
    EXPECT_GT(std::stoi(m[1].str()), first);
    EXPECT_NE(states[2].find("(pause when full)"), std::string::npos) << states[2];
    EXPECT_EQ(states[3], "program: running (pause when none)");
    EXPECT_GT(fs::file_size(png), 10000u);
    loadSound(trace);
}

// A window's script asks a sampled recording for a snapshot (live-snapshot now): it returns once
// the window shows the GC that has it, and the state says where references are.
TEST_P(Live, TheWindowAsksASampledRecordingForASnapshot) {
    if (!testing::haveXvfb()) GTEST_SKIP() << "no " << testing::kXvfb;
    const std::string trace = tracePath("live-snapshot");
    const std::string script = trace + ".script";
    std::ofstream(script) << "wait-gc 0\nlive-snapshot now\nprint state\n";
    Process rec =
        startTarget({"/usr/bin/env", "DISPLAY=" + testing::VirtualDisplay::name(), kMemcity, "record",
                     "--live", "--script", script, "-o", trace, "--sampled", "--interval", "16k", "--"});
    gcUntilTheWindowCloses(rec);
    ASSERT_NE(rec.stderr_text.find("the window was closed; the program goes on"), std::string::npos)
        << rec.stderr_text << rec.stdout_text;
    const std::string printed = rec.stdout_text;
    quit(rec, "done 0");
    std::smatch m;
    ASSERT_TRUE(
        std::regex_search(printed, m, std::regex("reference snapshots: GC ([0-9]+) \\(the inspector")))
        << printed << rec.stderr_text;
    Loaded l = loadSound(trace);
    ASSERT_TRUE(l.history);
    const auto gc = static_cast<size_t>(std::stoul(m[1].str()));
    ASSERT_LT(gc, l.history->gcs().size());
    EXPECT_TRUE(l.history->gcs()[gc].has_snapshot);
}

// memcity attach killed outright (as a closed ssh session's SIGHUP, or a crash, would end it):
// the agent ends the recording as a detach does, at once. The trace is complete, and the
// program allocates at its plain speed again.
TEST_P(Live, AKilledAttachClientEndsTheRecording) {
    Process target = startTarget();
    ASSERT_TRUE(say(target, "churn", "churning"));
    std::this_thread::sleep_for(500ms);  // the churner's code compiled
    const double plain = churnRate();
    ASSERT_GT(plain, 0.0);
    const std::string trace = tracePath("killed-client");
    Process attach = attachTo(trace);
    const double recorded = churnRate();
    ASSERT_EQ(kill(attach.pid, SIGKILL), 0);
    const auto killed = Clock::now();
    bool complete = false;
    while (!complete && Clock::now() - killed < 10s) {
        auto f = TraceFile::open(trace);
        complete = f.ok() && !f->beingWritten();
        if (!complete) std::this_thread::sleep_for(20ms);
    }
    const double took = std::chrono::duration<double>(Clock::now() - killed).count();
    ASSERT_TRUE(complete) << "the trace is still being written 10 s after its client was killed; the client "
                             "said: "
                          << attach.stderr_text << "; the program said: " << target.stderr_text;
    EXPECT_LT(took, 1.5) << "the recording ended " << took << " s after its client was killed";
    std::this_thread::sleep_for(1s - std::min<Clock::duration>(1s, Clock::now() - killed));
    // Recording every allocation slows the churner many times over (to 2-5% of its plain rate);
    // detached, it is back. The tests around it share the two cores: a second of the first five
    // after the kill at half the plain rate shows it (a recording program never reaches it; on a
    // busy machine three seconds once saw 0.49 at best).
    double after = 0;
    for (int second = 0; second < 5 && after <= 0.5 * plain; ++second)
        after = std::max(after, churnRate());
    std::printf(
        "churn: plain %.0f/s, recorded %.0f/s, %.0f/s from 1 s after the kill; the trace complete %.2f s "
        "after it\n",
        plain, recorded, after, took);
    EXPECT_GT(after, 0.5 * plain) << "plain " << plain << "/s, recorded " << recorded << "/s, after " << after
                                  << "/s";
    EXPECT_FALSE(fs::exists(socketPath()));
    finish(attach, 10);
    loadSound(trace);
    quit(target, "done 0");
}

// The control channel's directory is not private (another user made it, or its mode lets
// others in): memcity attach says so, and the agent records nothing and stops. The target sees
// a directory of mode 0777 over its /tmp/memcity-UID (a mount of its own namespace only).
TEST_P(Live, AttachRefusesWhenTheControlDirectoryIsNotPrivate) {
    const std::string hostile = testing::tempPath("hostile-dir");
    fs::create_directory(hostile);
    fs::permissions(hostile, fs::perms::all);
    const std::string dir = live::socketDirectory(geteuid());
    ASSERT_TRUE(live::ensurePrivateDirectory(dir, geteuid()).ok());
    if (run({"unshare", "-m", "true"}, 10).status != 0)
        GTEST_SKIP() << "no mount namespaces here (unshare -m)";
    Process target = startTarget(
        {"unshare", "-m", "sh", "-c", "mount --bind \"$0\" \"$1\" && shift && exec \"$@\"", hostile, dir});
    const std::string trace = tracePath("hostile");
    Process attach = run({kMemcity, "attach", std::to_string(pid_), "-o", trace}, 60);
    EXPECT_EQ(attach.status, 1) << attach.stderr_text;
    EXPECT_NE(attach.stderr_text.find("control channel could not start"), std::string::npos)
        << attach.stderr_text;
    EXPECT_NE(attach.stderr_text.find("others may enter it"), std::string::npos) << attach.stderr_text;
    EXPECT_FALSE(fs::exists(trace) && fs::file_size(trace) > 0) << "the agent recorded";
    // Nothing of the agent's stays: the program goes on, and a second attach is not refused as
    // "recorded already" (it fails the same way).
    ASSERT_TRUE(say(target, "alloc 100", "allocated 100"));
    Process again = run({kMemcity, "attach", std::to_string(pid_), "-o", trace}, 60);
    EXPECT_NE(again.stderr_text.find("control channel could not start"), std::string::npos)
        << again.stderr_text;
    quit(target, "done 100");
    fs::remove_all(hostile);
}

// SIGTERM and Ctrl-C (SIGINT) end a program paused at a GC: the pause is released, the JVM
// exits as the signal asks, and the trace is complete.
TEST_P(Live, ASignalEndsAPausedProgram) {
    for (int sig : {SIGTERM, SIGINT}) {
        const std::string trace = tracePath("paused-signal");
        Process rec = startTarget({kMemcity, "record", "-o", trace, "--refs", "off", "--"});
        auto client = live::ControlClient::connect(socketPath());
        ASSERT_TRUE(client.ok()) << client.error().message;
        ASSERT_TRUE(client->call({live::Command::kPause, {}}).ok());
        ASSERT_EQ(write(rec.in, "gc\n", 3), 3);
        auto paused = waitPaused(*client);
        ASSERT_TRUE(paused.ok() && paused->state == live::ProgramState::kPaused);
        ASSERT_EQ(kill(pid_, sig), 0);
        const auto sent = Clock::now();
        // (Its stdin stays open: at its end LiveTarget would exit 0 on its own.)
        while (pump(rec, 100) && Clock::now() - sent < 20s) {
        }
        finish(rec, 20);
        const double took = std::chrono::duration<double>(Clock::now() - sent).count();
        EXPECT_LT(took, 10.0) << "signal " << sig;
        EXPECT_EQ(rec.status, 128 + sig) << rec.stderr_text;
        auto f = TraceFile::open(trace);
        ASSERT_TRUE(f.ok()) << f.error().message;
        EXPECT_FALSE(f->beingWritten()) << "signal " << sig;
        loadSound(trace);
    }
}

// memcity record killed outright: its program ends as at SIGTERM, and the trace is complete
// (no recording runs on that nobody reports).
TEST_P(Live, AKilledRecordEndsItsProgramWithACompleteTrace) {
    const std::string trace = tracePath("killed-record");
    Process rec = startTarget({kMemcity, "record", "-o", trace, "--refs", "off", "--"});
    ASSERT_EQ(kill(rec.pid, SIGKILL), 0);
    const auto killed = Clock::now();
    while (kill(pid_, 0) == 0 && Clock::now() - killed < 20s)
        std::this_thread::sleep_for(20ms);
    EXPECT_NE(kill(pid_, 0), 0) << "the program runs on after memcity record was killed";
    finish(rec, 10);
    auto f = TraceFile::open(trace);
    ASSERT_TRUE(f.ok()) << f.error().message;
    EXPECT_FALSE(f->beingWritten());
    loadSound(trace);
}

INSTANTIATE_TEST_SUITE_P(Jdk, Live, ::testing::Values(kJdk17, kJdk25), [](const auto& p) {
    return p.param == kJdk17 ? std::string("Jdk17") : std::string("Temurin25");
});

}  // namespace
}  // namespace memcity
