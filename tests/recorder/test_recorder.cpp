// The recorder on real JVMs: tiny Java programs compiled with javac at test time, recorded with
// `memcity record`, checked for exact counts, the JVM's own class histogram, roots and weak
// references, every collector, System.exit, SIGKILL and a full disk.
#include <gtest/gtest.h>
#include <poll.h>
#include <signal.h>
#include <sys/wait.h>
#include <unistd.h>

#include <array>
#include <chrono>
#include <cstdio>
#include <filesystem>
#include <fstream>
#include <map>
#include <regex>
#include <set>
#include <sstream>
#include <thread>

#include "app/virtual_display.h"
#include "cli/text_format.h"
#include "heap/heap_history.h"
#include "recorder/java_programs.h"
#include "recorder/process.h"
#include "recorder/site_check.h"
#include "trace/event_decoder.h"
#include "unit/trace_builder.h"

namespace memcity {
namespace {

namespace fs = std::filesystem;
using testing::finish;
using testing::Process;
using testing::pump;
using testing::run;
using testing::start;

using testing::kJavaHome;
using testing::kMemcity;

// ---- The Java programs (recorder/java_programs.h) ----

class Recorder : public testing::JavaPrograms {};

// Every site read from the JVM's frames is checked against GetStackTrace (--sites check).
void expectSitesAgree(const std::string& stderr_text) {
    const testing::SiteCheck c = testing::parseSiteCheck(stderr_text);
    ASSERT_TRUE(c.found) << stderr_text;
    EXPECT_EQ(c.differed, 0u) << stderr_text;
    EXPECT_EQ(c.checked, c.by_key) << stderr_text;
    // The walker keys nearly every stack: a new one is read once, a seen one never again.
    EXPECT_GT(c.by_key, 10 * (c.decoded + c.not_keyed)) << stderr_text;
}

TEST_F(Recorder, RecordsEveryAllocationExactly) {
    const std::string trace = tracePath("exact");
    Process p = run(record(trace, {}, {"Exact", "200000", "50000"}, {"--sites", "check"}));
    ASSERT_EQ(p.status, 0) << p.stderr_text;
    expectSitesAgree(p.stderr_text);
    EXPECT_NE(p.stdout_text.find("kept 112500"), std::string::npos) << p.stdout_text;
    EXPECT_NE(p.stdout_text.find("recorded " + trace), std::string::npos) << p.stdout_text;
    Loaded l = load(trace);
    ASSERT_TRUE(l.history);
    EXPECT_EQ(l.history->diagnostics().errorCount(), 0u) << describeAnomalies(l.history->diagnostics());
    uint64_t longest = 0;
    auto allocs = allocationsByType(*l.file, &longest);
    EXPECT_EQ(allocs["Exact$Item"], 200000u);  // the main thread's first allocations included
    EXPECT_EQ(allocs["Exact$Other"], 50000u);  // and a second thread's
    EXPECT_EQ(allocs["Exact$Item[]"], 1u);
    ASSERT_GE(l.history->gcCount(), 2u);
    auto live = liveByType(*l.history, static_cast<uint32_t>(l.history->gcCount() - 1));
    EXPECT_EQ(live["Exact$Item"], 100000u);
    EXPECT_EQ(live["Exact$Other"], 12500u);
    EXPECT_EQ(live["Exact$Item[]"], 0u);
    EXPECT_EQ(l.history->diagnostics()[Anomaly::kDoubleDeath].count, 0u);
    // The agent's own 8 MiB array (allocated at VM start on JDK 17's account) is not the program's.
    EXPECT_LT(longest, uint64_t{8} << 20);
}

TEST_F(Recorder, LiveCountsMatchTheJvmClassHistogram) {
    const std::string trace = tracePath("histogram");
    Process p = start(record(trace, {}, {"Histogram"}));
    // Wait for READY <pid>.
    std::smatch m;
    const std::regex ready("READY ([0-9]+)");
    auto deadline = std::chrono::steady_clock::now() + std::chrono::seconds(60);
    while (!std::regex_search(p.stdout_text, m, ready) && std::chrono::steady_clock::now() < deadline)
        pump(p, 100);
    ASSERT_TRUE(std::regex_search(p.stdout_text, m, ready)) << p.stderr_text;
    // The JVM's own histogram (it collects first: a full GC).
    Process jcmd = run({kJavaHome + "/bin/jcmd", m[1].str(), "GC.class_histogram"});
    ASSERT_EQ(jcmd.status, 0) << jcmd.stderr_text << jcmd.stdout_text;
    std::map<std::string, uint64_t> jvm;
    std::istringstream lines(jcmd.stdout_text);
    for (std::string line; std::getline(lines, line);) {
        std::istringstream in(line);
        std::string num, name;
        uint64_t instances = 0, bytes = 0;
        if (in >> num >> instances >> bytes >> name && num.back() == ':') jvm[name] = instances;
    }
    ASSERT_EQ(write(p.in, "go\n", 3), 3);
    finish(p, 60);
    ASSERT_EQ(p.status, 0) << p.stderr_text;
    Loaded l = load(trace);
    ASSERT_TRUE(l.history);
    EXPECT_EQ(l.history->diagnostics().errorCount(), 0u) << describeAnomalies(l.history->diagnostics());
    // The histogram's GC, which JVMTI is not told of, is in the trace: the program's first GC.
    const HeapHistory& h = *l.history;
    ASSERT_GE(h.gcCount(), 2u);
    const GcRecord& first = h.gcs()[0];
    ASSERT_NE(first.cause, 0u);
    EXPECT_EQ(l.file->symbols().string(first.cause), "Heap Inspection Initiated GC");
    EXPECT_EQ(first.kind, static_cast<uint8_t>(format::GcKind::kMajor));
    for (uint32_t gc : {0u, static_cast<uint32_t>(h.gcCount() - 1)}) {
        auto live = liveByType(h, gc);
        for (const char* cls : {"Histogram$A", "Histogram$B", "Histogram$C"}) {
            ASSERT_TRUE(jvm.count(cls)) << cls << "\n" << jcmd.stdout_text.substr(0, 2000);
            EXPECT_EQ(live[cls], jvm[cls]) << cls << " at GC " << gc;
        }
    }
    EXPECT_EQ(jvm["Histogram$A"], 10000u);
    EXPECT_EQ(jvm["Histogram$B"], 5000u);
    EXPECT_EQ(jvm["Histogram$C"], 777u);
}

TEST_F(Recorder, RootsAndWeakReferencesAreRecorded) {
    const std::string trace = tracePath("roots");
    Process p = run(record(trace, {}, {"Roots"}));
    ASSERT_EQ(p.status, 0) << p.stderr_text;
    Loaded l = load(trace);
    ASSERT_TRUE(l.history);
    const HeapHistory& h = *l.history;
    EXPECT_EQ(h.diagnostics().errorCount(), 0u) << describeAnomalies(h.diagnostics());
    const SymbolTable& sym = l.file->symbols();
    bool static_root = false, local_root = false, weak_edge = false;
    for (const SnapshotInfo& info : h.snapshots()) {
        auto heap = h.heapAt(info.gc);
        ASSERT_TRUE(heap.ok());
        auto snap = h.snapshotFor(*heap);
        ASSERT_TRUE(snap.ok() && snap->has_value());
        HeapView v = heap->view();
        for (const RootRef& r : (*snap)->roots) {
            const std::string type = sym.type(v.type(r.position)).name;
            if (r.kind == static_cast<uint32_t>(format::RootKind::kStaticField) &&
                type == "java.util.HashMap" &&
                sym.type(static_cast<uint32_t>(r.details[0])).name == "Roots" &&
                sym.field(static_cast<uint32_t>(r.details[1])).name == "REGISTRY")
                static_root = true;
            if (r.kind == static_cast<uint32_t>(format::RootKind::kStackLocal) &&
                type == "java.util.ArrayList" &&
                sym.thread(static_cast<uint32_t>(r.details[0])).name == "holder" &&
                sym.method(static_cast<uint32_t>(r.details[1])).name == "hold")
                local_root = true;
        }
        // The weak edge: decode the REFS chunks, look for a weak reference to a Payload.
        std::vector<uint8_t> scratch;
        for (uint32_t c : info.refs_chunks) {
            auto payload = l.file->payload(c, scratch);
            ASSERT_TRUE(payload.ok());
            struct V {
                const HeapView& v;
                const SymbolTable& sym;
                bool found = false;
                void onSource(uint64_t, uint64_t, size_t) {}
                void onEdge(uint64_t src, const Edge& e) {
                    if (e.strength != static_cast<uint8_t>(format::RefStrength::kWeak)) return;
                    size_t s = v.find(src), t = v.find(e.target);
                    if (s == v.positions() || t == v.positions()) return;
                    if (sym.type(v.type(s)).name == "java.lang.ref.WeakReference" &&
                        sym.type(v.type(t)).name == "Roots$Payload" && sym.field(e.field).name == "referent")
                        found = true;
                }
            } visitor{v, sym};
            uint32_t gc = 0;
            ASSERT_TRUE(decodeRefs(*payload, sym, &gc, visitor).ok);
            weak_edge |= visitor.found;
        }
    }
    EXPECT_TRUE(static_root) << "no static-field root Roots.REGISTRY -> HashMap";
    EXPECT_TRUE(local_root) << "no stack-local root in holder's hold() -> ArrayList";
    EXPECT_TRUE(weak_edge) << "no weak WeakReference.referent -> Payload edge";
}

// Every root names what holds it, JDK classes and the JVM's own threads included: a static
// field by its class and field (HotSpot numbers a static field after every field of the class's
// interfaces and superclasses), a thread or a local by a named thread (threads that ran before
// recording began; DestroyJavaVM, which the launcher's main thread attaches as at exit; threads
// whose Thread object JDK 21+ reports with tag 0 for their stack).
TEST_F(Recorder, EveryRootNamesWhatHoldsIt) {
    for (const char* home : {MEMCITY_JAVA_HOME, "/usr/lib/jvm/temurin-25-jdk-amd64"}) {
        if (!fs::exists(std::string(home) + "/bin/java")) continue;
        SCOPED_TRACE(home);
        const std::string trace = tracePath("named-roots");
        Process p = run({kMemcity, "record", "-o", trace, "--", std::string(home) + "/bin/java", "-Xmx256m",
                         "-cp", classes_.string(), "Roots"});
        ASSERT_EQ(p.status, 0) << p.stderr_text;
        Loaded l = load(trace);
        ASSERT_TRUE(l.history);
        const SymbolTable& sym = l.file->symbols();
        std::set<std::string> jdk_statics, threads;
        size_t roots = 0;
        for (const SnapshotInfo& info : l.history->snapshots()) {
            auto heap = l.history->heapAt(info.gc);
            ASSERT_TRUE(heap.ok());
            auto snap = l.history->snapshotFor(*heap);
            ASSERT_TRUE(snap.ok() && snap->has_value());
            for (const RootRef& r : (*snap)->roots) {
                ++roots;
                auto detail = [&](uint32_t i) {
                    return static_cast<uint32_t>(i < r.detail_count ? r.details[i] : 0);
                };
                switch (static_cast<format::RootKind>(r.kind)) {
                    case format::RootKind::kStaticField: {
                        const std::string cls = sym.type(detail(0)).name;
                        ASSERT_NE(detail(1), 0u) << "a static field of " << cls << " is not named";
                        const std::string field = sym.field(detail(1)).name;
                        ASSERT_FALSE(cls.empty() || field.empty()) << cls << "." << field;
                        if (cls.starts_with("java.")) jdk_statics.insert(cls + "." + field);
                        break;
                    }
                    case format::RootKind::kThread:
                    case format::RootKind::kStackLocal:
                    case format::RootKind::kJniLocal: {
                        ASSERT_NE(detail(0), 0u)
                            << "a " << sym.rootKindName(r.kind) << " root names no thread";
                        const std::string name = sym.thread(detail(0)).name;
                        ASSERT_FALSE(name.empty() || name == "?") << "thread " << detail(0) << " has no name";
                        threads.insert(name);
                        break;
                    }
                    default: break;
                }
            }
        }
        EXPECT_GT(roots, 0u);
        EXPECT_GE(jdk_statics.size(), 20u) << "JDK classes' static fields are roots too";
        for (const char* t : {"main", "holder", "Reference Handler", "Finalizer"})
            EXPECT_TRUE(threads.contains(t)) << "no root of thread " << t;
    }
}

// Sites read from HotSpot's frames equal GetStackTrace's on both JDKs, in interpreted and
// compiled code alike (Exact runs long enough for C1 and C2 to compile its loops), at depths
// from 1 to 16; and with --sites jvmti the walker is not used at all.
TEST_F(Recorder, SitesFromTheJvmsFramesEqualGetStackTrace) {
    for (const char* home : {MEMCITY_JAVA_HOME, "/usr/lib/jvm/temurin-25-jdk-amd64"}) {
        if (!fs::exists(std::string(home) + "/bin/java")) continue;
        for (const char* depth : {"1", "4", "16"}) {
            SCOPED_TRACE(std::string(home) + " depth " + depth);
            const std::string trace = tracePath("sites");
            Process p = run({kMemcity, "record", "-o", trace, "--depth", depth, "--sites", "check", "--",
                             std::string(home) + "/bin/java", "-Xmx256m", "-cp", classes_.string(), "Exact",
                             "300000", "50000"});
            ASSERT_EQ(p.status, 0) << p.stderr_text;
            expectSitesAgree(p.stderr_text);
            Loaded l = load(trace);
            ASSERT_TRUE(l.history);
            EXPECT_EQ(allocationsByType(*l.file)["Exact$Item"], 300000u);
        }
    }
    const std::string trace = tracePath("sites-jvmti");
    Process p = run(record(trace, {}, {"Exact", "20000", "2000"}, {"--sites", "jvmti"}));
    ASSERT_EQ(p.status, 0) << p.stderr_text;
    EXPECT_FALSE(testing::parseSiteCheck(p.stderr_text).found) << p.stderr_text;
}

// The JIT frees code it replaced and puts other code at the same addresses, without a JVMTI
// event (HotSpot posts CompiledMethodUnload only to agents that asked for CompiledMethodLoad):
// CodeChurn's hidden classes compile to the same instructions, one after another, in a small
// code cache. Keyed by return pc alone, JDK 17 gave 44,545 of 2.8 M sites of an older class.
TEST_F(Recorder, SitesStayExactWhenTheJitReusesFreedCode) {
    for (const char* home : {MEMCITY_JAVA_HOME, "/usr/lib/jvm/temurin-25-jdk-amd64"}) {
        if (!fs::exists(std::string(home) + "/bin/java")) continue;
        SCOPED_TRACE(home);
        const std::string trace = tracePath("code-churn");
        Process p = run({kMemcity, "record", "-o", trace, "--refs", "off", "--sites", "check", "--",
                         std::string(home) + "/bin/java", "-XX:ReservedCodeCacheSize=3m", "-cp",
                         classes_.string(), "CodeChurn", "40", "20000"});
        ASSERT_EQ(p.status, 0) << p.stderr_text;
        EXPECT_NE(p.stdout_text.find("rounds 40 classes 40"), std::string::npos) << p.stdout_text;
        expectSitesAgree(p.stderr_text);
    }
}

// Deaths are filed under the GC that freed them, with GCs in quick succession (one right after
// another, no allocation between), under each stop-the-world collector and both JDKs, where a
// weak reference tells them; and the tags that ObjectFree tells deaths by (deaths=tags) still
// record every death.
TEST_F(Recorder, DeathsAreFiledUnderTheGcThatFreedThem) {
    for (const char* home : {MEMCITY_JAVA_HOME, "/usr/lib/jvm/temurin-25-jdk-amd64"}) {
        if (!fs::exists(std::string(home) + "/bin/java")) continue;
        for (const char* gc : {"SerialGC", "ParallelGC", "G1GC"}) {
            SCOPED_TRACE(std::string(home) + " " + gc);
            const std::string trace = tracePath("quick-gcs");
            Process p =
                run({kMemcity, "record", "-o", trace, "--refs", "off", "--", std::string(home) + "/bin/java",
                     "-Xmx256m", std::string("-XX:+Use") + gc, "-cp", classes_.string(), "QuickGcs"});
            ASSERT_EQ(p.status, 0) << p.stderr_text;
            ASSERT_NE(p.stdout_text.find("quick gcs done 2000"), std::string::npos) << p.stdout_text;
            Loaded l = load(trace);
            ASSERT_TRUE(l.history);
            EXPECT_EQ(l.history->diagnostics().errorCount(), 0u)
                << describeAnomalies(l.history->diagnostics());
            ASSERT_GE(l.history->gcCount(), 7u);
            const std::vector<std::array<uint64_t, 3>> expected = {{1000, 0, 0}, {0, 0, 0},    {0, 0, 0},
                                                                   {0, 0, 0},    {0, 0, 3000}, {0, 0, 2000}};
            for (uint32_t g = 0; g < expected.size(); ++g) {
                auto live = liveByType(*l.history, g);
                EXPECT_EQ(live["QuickGcs$A"], expected[g][0]) << "GC " << g;
                EXPECT_EQ(live["QuickGcs$B"], expected[g][1]) << "GC " << g;
                EXPECT_EQ(live["QuickGcs$C"], expected[g][2]) << "GC " << g;
            }
        }
    }
    // The agent told to use tags: every object still dies by the end.
    const std::string trace = tracePath("quick-gcs-tags");
    Process p = run({kJavaHome + "/bin/java",
                     "-agentpath:" + std::string(MEMCITY_AGENT) + "=file=" + trace + ",deaths=tags",
                     "-XX:+UseSerialGC", "-cp", classes_.string(), "QuickGcs"});
    ASSERT_EQ(p.status, 0) << p.stderr_text;
    EXPECT_NE(p.stderr_text.find("deaths by tags"), std::string::npos) << p.stderr_text;
    Loaded l = load(trace);
    ASSERT_TRUE(l.history);
    EXPECT_EQ(l.history->diagnostics().errorCount(), 0u) << describeAnomalies(l.history->diagnostics());
    auto live = liveByType(*l.history, static_cast<uint32_t>(l.history->gcCount() - 1));
    EXPECT_EQ(live["QuickGcs$A"] + live["QuickGcs$B"] + live["QuickGcs$C"], 0u);
}

// Threads allocate all the time while the agent counts the heap after each full GC (the census,
// a heap iteration that names the objects it meets untagged, as a snapshot's walk does): an
// object it meets between its allocation and its callback is recorded once, and dies. memcity's
// live objects equal the JVM's count at every full GC held against the JVM, type by type, under
// each stop-the-world collector: with weak-reference deaths every full GC a census followed; with
// tags only the exit's (HotSpot posts ObjectFree outside its tag map's lock, so a GC's frees may
// still be on their way when the agent counts: under CI's load 1,806 of them once were).
TEST_F(Recorder, AnObjectAWalkMeetsBeforeItsCallbackIsRecordedOnce) {
    // A census follows a full GC only when no young GC came after it before the agent thread
    // woke. With a 16 MiB young generation, young GCs came every few milliseconds, and on a
    // loaded machine (CI's parallel tests) 2 of some 40 full GCs were counted, under G1 and under
    // Serial: the young generation is 64 MiB, G1 runs twice as long, and at least 2 censuses, each
    // agreeing with the JVM, are asked of every collector.
    struct Run {
        const char* gc;
        const char* deaths;
        const char* millis;
        size_t censuses;
    };
    for (const Run run_with : {Run{"G1GC", "weak", "8000", 2}, Run{"SerialGC", "weak", "4000", 2},
                               Run{"ParallelGC", "tags", "4000", 1}}) {
        SCOPED_TRACE(std::string(run_with.gc) + " deaths=" + run_with.deaths);
        const std::string trace = tracePath("churn-walks");
        Process p = run({kJavaHome + "/bin/java",
                         "-agentpath:" + std::string(MEMCITY_AGENT) + "=file=" + trace +
                             ",refs=off,deaths=" + run_with.deaths,
                         "-Xmx256m", "-Xmn64m", std::string("-XX:+Use") + run_with.gc, "-cp",
                         classes_.string(), "Churner", run_with.millis},
                        120);
        ASSERT_EQ(p.status, 0) << p.stderr_text;
        Loaded l = load(trace);
        ASSERT_TRUE(l.history);
        EXPECT_EQ(l.history->diagnostics().errorCount(), 0u) << describeAnomalies(l.history->diagnostics());
        size_t counted = 0;
        for (const JvmCheck& c : l.history->jvmChecks()) {
            if (!c.has_census) continue;
            ++counted;
            std::string report;
            for (const TypeGap& d : c.biggest)
                report += d.type + " " + std::to_string(d.objects) + " objects, " + std::to_string(d.bytes) +
                          " B\n";
            EXPECT_TRUE(c.biggest.empty()) << "GC " << c.gc << ":\n" << report;
            EXPECT_EQ(c.live_bytes, c.jvm_bytes) << "GC " << c.gc;
        }
        EXPECT_GE(counted, run_with.censuses);
        std::cerr << run_with.gc << ": " << counted << " censuses\n";
    }
}

class Collectors : public Recorder, public ::testing::WithParamInterface<const char*> {};

TEST_P(Collectors, RecordsSoundTracesWithoutDeadlock) {
    const std::string trace = tracePath(std::string("gc-") + GetParam());
    Process p = run(record(trace, {std::string("-XX:+Use") + GetParam()}, {"Exact", "100000", "20000"},
                           {"--sites", "check"}),
                    180);
    ASSERT_EQ(p.status, 0) << p.stderr_text;
    expectSitesAgree(p.stderr_text);
    Loaded l = load(trace);
    ASSERT_TRUE(l.history);
    EXPECT_EQ(l.history->diagnostics().errorCount(), 0u) << describeAnomalies(l.history->diagnostics());
    auto allocs = allocationsByType(*l.file);
    EXPECT_EQ(allocs["Exact$Item"], 100000u);
    EXPECT_EQ(allocs["Exact$Other"], 20000u);
    EXPECT_GE(l.history->gcCount(), 1u);
    // The last GC's deaths are complete where the collector's heap iteration visits every object
    // it has not freed (not ZGC's or Shenandoah's, which visit the reachable ones).
    const bool stop_the_world = std::string(GetParam()) != "ZGC" && std::string(GetParam()) != "ShenandoahGC";
    EXPECT_EQ(l.history->gcs().back().jvm_live, stop_the_world);
}

INSTANTIATE_TEST_SUITE_P(Gc, Collectors,
                         ::testing::Values("SerialGC", "ParallelGC", "G1GC", "ZGC", "ShenandoahGC"),
                         [](const auto& p) { return std::string(p.param); });

TEST_F(Recorder, SystemExitFromAnotherThread) {
    const std::string trace = tracePath("exit");
    Process p = run(record(trace, {}, {"Churner", "800", "exit"}), 120);
    EXPECT_EQ(p.status, 3) << p.stderr_text;
    Loaded l = load(trace);
    ASSERT_TRUE(l.history);
    EXPECT_FALSE(l.file->truncated());
    EXPECT_EQ(l.history->diagnostics().errorCount(), 0u) << describeAnomalies(l.history->diagnostics());
    EXPECT_GE(l.history->gcCount(), 3u);
    // Threads still allocate and collect while the VM exits: the last GC written is accounted for.
    EXPECT_TRUE(l.history->gcs().back().jvm_live);
}

// A script or build tool that starts several JVMs: each gets a trace of its own, none overwritten.
TEST_F(Recorder, EveryJvmOfACommandGetsItsOwnTrace) {
    const std::string dir = testing::tempPath("several");
    fs::remove_all(dir);
    fs::create_directories(dir);
    const std::string trace = dir + "/app.mct";
    std::ofstream(trace) << "an old trace";  // replaced, not a reason to write beside it
    const std::string java = kJavaHome + "/bin/java -cp " + classes_.string() + " Exact ";
    Process p = run({kMemcity, "record", "-o", trace, "--", "/bin/sh", "-c",
                     java + "3000 300 & " + java + "2000 200; " + java + "1000 100; wait"},
                    120);
    ASSERT_EQ(p.status, 0) << p.stderr_text;
    std::map<uint64_t, int> items;  // Exact$Item allocations -> traces
    int others = 0;
    for (const auto& f : fs::directory_iterator(dir)) {
        Loaded l = load(f.path().string());
        ASSERT_TRUE(l.history) << f.path();
        EXPECT_EQ(l.history->diagnostics().errorCount(), 0u) << f.path();
        ++items[allocationsByType(*l.file)["Exact$Item"]];
        if (f.path() != trace) {
            ++others;
            EXPECT_NE(p.stdout_text.find("another JVM of the command recorded " + f.path().string()),
                      std::string::npos)
                << p.stdout_text;
        }
    }
    EXPECT_EQ(others, 2);
    EXPECT_EQ(items, (std::map<uint64_t, int>{{1000, 1}, {2000, 1}, {3000, 1}}));
    fs::remove_all(dir);
}

// memcity record --live without a display: a line per GC while the program runs, every GC of
// the trace in order, then the summary.
TEST_F(Recorder, LiveWithoutADisplayPrintsEachGcAsTheProgramRuns) {
    const std::string trace = tracePath("live");
    std::vector<std::string> argv = {"/usr/bin/env", "-u", "DISPLAY", "-u", "WAYLAND_DISPLAY"};
    for (std::string& a : record(trace, {}, {"Churner", "1500"}, {"--live", "--refs", "off"}))
        argv.push_back(std::move(a));
    Process p = run(argv);
    ASSERT_EQ(p.status, 0) << p.stderr_text;
    Loaded l = load(trace);
    ASSERT_TRUE(l.history);
    const size_t gcs = l.history->gcCount();
    ASSERT_GE(gcs, 3u) << p.stdout_text;
    const size_t summary = p.stdout_text.find("recorded " + trace);
    ASSERT_NE(summary, std::string::npos) << p.stdout_text;
    size_t at = 0;
    for (size_t g = 0; g < gcs; ++g) {
        const GcRecord& r = l.history->gcs()[g];
        const std::string line = "GC " + std::to_string(g) + "  " + cli::formatDuration(r.end_ns) +
                                 "  live " + cli::formatBytes(r.live_bytes) + " (";
        at = p.stdout_text.find(line, at);
        ASSERT_LT(at, summary) << line << "\n" << p.stdout_text;
    }
    EXPECT_EQ(p.stdout_text.find("GC " + std::to_string(gcs) + "  "), std::string::npos) << p.stdout_text;
}

// memcity record --live with a display: the window on the trace while the program runs (a
// script waits for GC 2 and finds it live); closing it leaves the program running to its end.
TEST_F(Recorder, LiveOpensTheWindowAndClosingItLeavesTheProgramRunning) {
    if (!testing::haveXvfb()) GTEST_SKIP() << "no " << testing::kXvfb;
    const std::string trace = tracePath("live-window");
    const std::string script = tracePath("live-window") + ".script";
    std::ofstream(script) << "wait-gc 2\nprint state\n";
    std::vector<std::string> argv = {"/usr/bin/env", "DISPLAY=" + testing::VirtualDisplay::name()};
    for (std::string& a :
         record(trace, {}, {"Churner", "3000"}, {"--live", "--script", script, "--refs", "off"}))
        argv.push_back(std::move(a));
    Process p = run(argv);
    ASSERT_EQ(p.status, 0) << p.stderr_text;
    const size_t live = p.stdout_text.find("live: ");
    EXPECT_NE(live, std::string::npos) << p.stdout_text;
    EXPECT_NE(
        p.stderr_text.find("memcity record: the window was closed; the program goes on, recorded into " +
                           trace + "\n"),
        std::string::npos)
        << p.stderr_text;
    // The program ran to its end after the window closed ("kept N" is its last line).
    const size_t kept = p.stdout_text.find("kept ");
    EXPECT_NE(kept, std::string::npos) << p.stdout_text;
    EXPECT_LT(live, kept);
    Loaded l = load(trace);
    ASSERT_TRUE(l.history);
    EXPECT_FALSE(l.file->truncated());
    EXPECT_GT(l.history->gcCount(), 3u);
}

TEST_F(Recorder, ACommandThatStartsNoJvmIsSaidSo) {
    const std::string trace = tracePath("nojvm");
    Process p = run({kMemcity, "record", "-o", trace, "--", "/bin/true"});
    EXPECT_EQ(p.status, 1);
    EXPECT_EQ(p.stderr_text, "memcity record: no JVM wrote " + trace +
                                 " (did '/bin/true' start java? the program exited with status 0)\n");
}

TEST_F(Recorder, KilledJvmLeavesAReadableTrace) {
    const std::string trace = tracePath("killed");
    Process p = start(record(trace, {}, {"Churner", "0", "forever"}));
    std::smatch m;
    const std::regex pid_line("PID ([0-9]+)");
    auto deadline = std::chrono::steady_clock::now() + std::chrono::seconds(60);
    while (!std::regex_search(p.stdout_text, m, pid_line) && std::chrono::steady_clock::now() < deadline)
        pump(p, 100);
    ASSERT_TRUE(std::regex_search(p.stdout_text, m, pid_line)) << p.stderr_text;
    // Let it record for a while (the agent flushes every second), then kill the JVM outright.
    auto until = std::chrono::steady_clock::now() + std::chrono::milliseconds(2500);
    while (std::chrono::steady_clock::now() < until)
        pump(p, 100);
    kill(static_cast<pid_t>(std::stol(m[1].str())), SIGKILL);
    finish(p, 60);
    EXPECT_EQ(p.status, 128 + SIGKILL);
    Loaded l = load(trace);
    ASSERT_TRUE(l.history);
    EXPECT_TRUE(l.file->truncated());
    EXPECT_GE(l.history->gcCount(), 5u);
    EXPECT_EQ(l.history->diagnostics().errorCount(), 0u) << describeAnomalies(l.history->diagnostics());
}

// Two recordings into one file: the second is refused while the first writes it, and the file
// is the first's, whole, once it ends.
TEST_F(Recorder, ASecondRecordingIntoAFileBeingWrittenIsRefused) {
    const std::string trace = tracePath("two-recorders");
    Process first = start(record(trace, {}, {"Sleeper"}));
    // Its agent created (and locked) the trace before the program's main began.
    const std::string jvm = testing::waitForOutput(first, "ready ([0-9]+)", 60);
    ASSERT_FALSE(jvm.empty()) << first.stderr_text;
    ASSERT_TRUE(fs::exists(trace));
    Process second = run(record(trace, {}, {"Sleeper"}), 60);
    EXPECT_NE(second.status, 0) << second.stdout_text;
    EXPECT_NE(second.stderr_text.find("memcity record: " + trace + ": another memcity is writing it"),
              std::string::npos)
        << second.stderr_text;
    EXPECT_EQ(second.stdout_text.find("ready "), std::string::npos) << second.stdout_text;
    // The first goes on as if nothing happened, and ends (its stdin closed) with its own summary.
    const std::string line = "still here\n";
    ASSERT_EQ(::write(first.in, line.data(), line.size()), static_cast<ssize_t>(line.size()));
    EXPECT_EQ(testing::waitForOutput(first, "(echo still here)", 30), "echo still here");
    finish(first, 60);
    EXPECT_EQ(first.status, 0) << first.stderr_text;
    EXPECT_NE(first.stdout_text.find("recorded " + trace), std::string::npos) << first.stdout_text;
    EXPECT_EQ(first.stderr_text.find("another JVM"), std::string::npos) << first.stderr_text;
    Loaded l = load(trace);
    ASSERT_TRUE(l.history);
    EXPECT_FALSE(l.file->truncated()) << l.file->truncationNote();
    EXPECT_TRUE(l.file->hadFooterIndex());
    const std::string* pid = l.file->metaValue("pid");
    ASSERT_NE(pid, nullptr);
    EXPECT_EQ(*pid, jvm);
    EXPECT_EQ(l.history->diagnostics().errorCount(), 0u) << describeAnomalies(l.history->diagnostics());
}

TEST_F(Recorder, FullDiskStopsRecordingWithAClearMessage) {
    const std::string trace = tracePath("full");
    // A 256 KiB file size limit stands in for a full disk: writes fail (EFBIG) like ENOSPC.
    std::string cmd = "ulimit -f 256; exec";
    for (const std::string& a : record(trace, {}, {"Churner", "1500"}))
        cmd += " '" + a + "'";
    Process p = run({"/bin/sh", "-c", cmd}, 120);
    EXPECT_EQ(p.status, 0) << p.stderr_text;  // the program itself is not disturbed
    EXPECT_NE(p.stderr_text.find("memcity agent: "), std::string::npos) << p.stderr_text;
    EXPECT_NE(p.stderr_text.find(
                  "write failed: File too large; recording stopped (the trace is readable up to there)"),
              std::string::npos)
        << p.stderr_text;
    Loaded l = load(trace);
    ASSERT_TRUE(l.history);
    EXPECT_TRUE(l.file->truncated());
    EXPECT_LE(fs::file_size(trace), 256u * 1024);
}

TEST_F(Recorder, BadOptionsAreRefusedClearly) {
    Process p =
        run({kJavaHome + "/bin/java", "-agentpath:" + std::string(MEMCITY_AGENT) + "=depth=0", "-version"});
    EXPECT_NE(p.status, 0);
    EXPECT_NE(p.stderr_text.find("memcity agent: option depth=0: expected a number of frames from 1 to 256"),
              std::string::npos)
        << p.stderr_text;
    Process q = run({kMemcity, "record", "-o", "/tmp/x.mct", "java", "Foo"});
    EXPECT_EQ(q.status, 1);
    EXPECT_NE(q.stderr_text.find("put the program after --"), std::string::npos);
}

// ---- Real programs no one here wrote ----

// The H2 database (Debian's libh2-java) driven through JDBC by a small workload.
TEST_F(Recorder, RecordsTheH2Database) {
    const std::string h2 = "/usr/share/java/h2.jar";
    if (!fs::exists(h2)) GTEST_SKIP() << "libh2-java is not installed (scripts/setup installs it)";
    const std::string trace = tracePath("h2");
    // Snapshots after every other GC: frees of the GCs in between are not held back by a walk.
    std::vector<std::string> argv = {kMemcity,
                                     "record",
                                     "-o",
                                     trace,
                                     "--refs",
                                     "2",
                                     "--",
                                     kJavaHome + "/bin/java",
                                     "-Xmn1m",
                                     "-cp",
                                     classes_.string() + ":" + h2,
                                     "H2Workload",
                                     "10000"};
    Process p = run(argv, 300);
    ASSERT_EQ(p.status, 0) << p.stderr_text;
    EXPECT_NE(p.stdout_text.find("checksum 18571"), std::string::npos) << p.stdout_text;
    Loaded l = load(trace);
    ASSERT_TRUE(l.history);
    EXPECT_EQ(l.history->diagnostics().errorCount(), 0u) << describeAnomalies(l.history->diagnostics());
    EXPECT_GT(l.history->counts().objects_allocated, 1'000'000u);
    EXPECT_GE(l.history->gcCount(), 20u);  // the small young generation collects often
    // A snapshot every other GC, or the GC after when two came before the agent thread woke; and
    // the last GC's (forced at exit), whatever its parity: 154 GCs have 77 + 1.
    EXPECT_LE(l.history->snapshots().size(), l.history->gcCount() / 2 + 1);
    EXPECT_GE(l.history->snapshots().size(), l.history->gcCount() / 3);
    // Frees arrive late and in bursts; each GC's are still written before the next GC starts (a
    // free preempted right as a GC begins may slip past: a handful at most).
    EXPECT_LT(l.history->diagnostics()[Anomaly::kLateDeath].count,
              l.history->counts().objects_allocated / 1000)
        << describeAnomalies(l.history->diagnostics());
    auto allocs = allocationsByType(*l.file);
    EXPECT_GT(allocs["org.h2.value.ValueInteger"] + allocs["org.h2.value.ValueVarchar"], 10'000u);
}

// javac compiling a fixed set of JDK sources, from the JDK's own src.zip.
TEST_F(Recorder, RecordsJavacCompilingJdkSources) {
    // Temurin 25 ships lib/src.zip; Debian's openjdk-17-source is the fallback (scripts/setup).
    std::string jdk, zip;
    for (const char* home : {"/usr/lib/jvm/temurin-25-jdk-amd64", "/usr/lib/jvm/java-17-openjdk-amd64"}) {
        for (const char* z : {"/lib/src.zip", "/../openjdk-17/lib/src.zip"}) {
            if (jdk.empty() && fs::exists(std::string(home) + z) &&
                fs::exists(std::string(home) + "/bin/javac")) {
                jdk = home;
                zip = std::string(home) + z;
            }
        }
    }
    if (jdk.empty()) GTEST_SKIP() << "no JDK with src.zip (scripts/setup installs openjdk-17-source)";
    const fs::path dir = fs::temp_directory_path() / ("memcity-javac-" + std::to_string(getpid()));
    fs::create_directories(dir / "out");
    const std::vector<std::string> files = {
        "AbstractCollection", "AbstractList", "AbstractMap", "AbstractQueue", "AbstractSequentialList",
        "AbstractSet",        "ArrayDeque",   "ArrayList",   "Collections",   "HashMap"};
    std::vector<std::string> extract = {jdk + "/bin/jar", "xf", zip};
    for (const std::string& f : files)
        extract.push_back("java.base/java/util/" + f + ".java");
    std::string cmd = "cd '" + dir.string() + "' && exec";
    for (const std::string& a : extract)
        cmd += " '" + a + "'";
    ASSERT_EQ(run({"/bin/sh", "-c", cmd}).status, 0);
    const std::string trace = tracePath("javac");
    std::vector<std::string> argv = {kMemcity,
                                     "record",
                                     "-o",
                                     trace,
                                     "--",
                                     jdk + "/bin/java",
                                     "-m",
                                     "jdk.compiler/com.sun.tools.javac.Main",
                                     "--patch-module",
                                     "java.base=" + (dir / "java.base").string(),
                                     "-d",
                                     (dir / "out").string()};
    for (const std::string& f : files)
        argv.push_back((dir / "java.base/java/util" / (f + ".java")).string());
    Process p = run(argv, 600);
    ASSERT_EQ(p.status, 0) << p.stderr_text;
    EXPECT_TRUE(fs::exists(dir / "out/java.base/java/util/HashMap.class") ||
                fs::exists(dir / "out/java/util/HashMap.class"));
    Loaded l = load(trace);
    ASSERT_TRUE(l.history);
    EXPECT_EQ(l.history->diagnostics().errorCount(), 0u) << describeAnomalies(l.history->diagnostics());
    EXPECT_GT(l.history->counts().objects_allocated, 1'000'000u);
    EXPECT_GE(l.history->gcCount(), 1u);
    auto allocs = allocationsByType(*l.file);
    EXPECT_GT(allocs["com.sun.tools.javac.util.List"], 10'000u);
    fs::remove_all(dir);
}

}  // namespace
}  // namespace memcity
