// Sampled recording on a real JVM, against exact recording of the same program: LeakyService
// (tests/recorder/java), a service that leaks and churns, with a System.gc() after each phase
// (a full GC at the same point of the program in both runs). Both run under the serial collector,
// so that the heaps at those GCs are the same heap; the sampled run keeps escape analysis on, as
// the JVM's own flags have it.
#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <filesystem>
#include <map>
#include <string>

#include "classify/classifier.h"
#include "classify/series.h"
#include "classify/tree.h"
#include "graph/group_report.h"
#include "graph/heap_graph.h"
#include "heap/whole_heap.h"
#include "recorder/java_programs.h"
#include "recorder/process.h"
#include "windows/windows.h"

namespace memcity {
namespace {

namespace fs = std::filesystem;
using testing::kJavaHome;
using testing::kMemcity;
using testing::Process;
using testing::run;

constexpr const char* kRequests = "300000";
constexpr const char* kPhases = "6";

ClassifierChain chainOf(const std::string& spec) {
    auto c = parseChain(spec);
    EXPECT_TRUE(c.ok());
    return std::move(*c);
}

// The GCs a System.gc() ran, in order.
std::vector<uint32_t> systemGcs(const TraceFile& f, const HeapHistory& h) {
    std::vector<uint32_t> out;
    for (const GcRecord& g : h.gcs())
        if (g.cause && f.symbols().string(g.cause) == "System.gc()") out.push_back(g.index);
    return out;
}

class Sampled : public testing::JavaPrograms {
protected:
    struct Runs {
        Loaded exact, sampled;
        std::vector<uint32_t> exact_gcs, sampled_gcs;  // the System.gc() GCs of each
        std::string exact_out, sampled_out;
    };

    // LeakyService recorded exactly and sampled (at 4 KiB: some 2,500 samples alive at the end),
    // once for the tests that compare them.
    static const Runs& leakyService() {
        static Runs r = [] {
            Runs out;
            const std::string exact = tracePath("leaky-exact"), sampled = tracePath("leaky-sampled");
            Process e = run(
                record(exact, {"-XX:+UseSerialGC"}, {"LeakyService", kRequests, kPhases}, {"--refs", "off"}),
                300);
            Process s = run(record(sampled, {"-XX:+UseSerialGC"}, {"LeakyService", kRequests, kPhases},
                                   {"--sampled", "--interval", "4k"}),
                            300);
            EXPECT_EQ(e.status, 0) << e.stderr_text;
            EXPECT_EQ(s.status, 0) << s.stderr_text;
            out.exact_out = e.stdout_text;
            out.sampled_out = s.stdout_text;
            out.exact = load(exact);
            out.sampled = load(sampled);
            if (out.exact.history) out.exact_gcs = systemGcs(*out.exact.file, *out.exact.history);
            if (out.sampled.history) out.sampled_gcs = systemGcs(*out.sampled.file, *out.sampled.history);
            return out;
        }();
        return r;
    }
};

TEST_F(Sampled, ASampledTraceOfAServiceIsSoundAndSaysSo) {
    const Runs& r = leakyService();
    ASSERT_TRUE(r.exact.history && r.sampled.history);
    // The same program, the same answer.
    const std::string served = "served 300000 requests, 4000 sessions";
    EXPECT_NE(r.exact_out.find(served), std::string::npos) << r.exact_out;
    EXPECT_NE(r.sampled_out.find(served), std::string::npos) << r.sampled_out;
    EXPECT_NE(r.sampled_out.find("samples"), std::string::npos) << r.sampled_out;
    EXPECT_NE(r.sampled_out.find("one per 4.0 KiB allocated on average"), std::string::npos) << r.sampled_out;
    const TraceFile& f = *r.sampled.file;
    EXPECT_EQ(f.header().version_major, 2u);
    EXPECT_EQ(f.header().sampling_interval, 4096u);
    EXPECT_EQ(r.sampled.history->diagnostics().errorCount(), 0u)
        << describeAnomalies(r.sampled.history->diagnostics());
    EXPECT_TRUE(r.sampled.history->snapshots().empty());
    // Far fewer objects than the program allocated, each standing for many.
    EXPECT_LT(r.sampled.history->counts().objects_allocated * 20,
              r.exact.history->counts().objects_allocated);
    // Every System.gc() is a full GC with its census: its heap counted, not estimated.
    ASSERT_EQ(r.sampled_gcs.size(), 6u);
    ASSERT_EQ(r.exact_gcs.size(), 6u);
    for (uint32_t g : r.sampled_gcs) {
        const GcRecord& rec = r.sampled.history->gcs()[g];
        EXPECT_EQ(rec.kind, static_cast<uint8_t>(format::GcKind::kMajor));
        EXPECT_GE(rec.calibration, 0) << "GC " << g;
        EXPECT_TRUE(rec.live_sampled.bytesEstimate().exact) << "GC " << g;
    }
}

// At each System.gc(), every type,site group with 5% of the live bytes, as the view shows it
// (scaled to the census): the types counted, each as the exact run counts it; the sites within
// 20% of the exact run's and inside their interval, nearly all of them (a few tens to a hundred
// samples each, over thirty draws of a real JVM: a miss or two is the intervals doing their job).
// Two runs of one program differ by a few objects of the JDK's own (the JIT resolves string
// constants as it goes): counts are compared to 1%, intervals with that slack. The samples' own
// estimates (without the census) hold the exact figures as often as 95% intervals should.
TEST_F(Sampled, EstimatesAgreeWithTheExactRecordingOfTheSameRun) {
    const Runs& r = leakyService();
    ASSERT_TRUE(r.exact.history && r.sampled.history);
    ASSERT_EQ(r.exact_gcs.size(), r.sampled_gcs.size());
    const ClassifierChain chain = chainOf("type,site");
    size_t compared = 0, sites = 0, sites_near = 0, sites_inside = 0, raw_compared = 0, raw_inside = 0;
    for (size_t i = 0; i < r.exact_gcs.size(); ++i) {
        auto eh = r.exact.history->heapAt(r.exact_gcs[i]);
        auto sh = r.sampled.history->heapAt(r.sampled_gcs[i]);
        ASSERT_TRUE(eh.ok() && sh.ok());
        const ClassificationTree exact = ClassificationTree::build(eh->view(), chain);
        const ClassificationTree shown = ClassificationTree::build(sh->view(), chain);
        const ClassificationTree raw = ClassificationTree::build(sh->view().withCalibration(nullptr), chain);
        const uint64_t live = exact.root().bytes;
        for (uint32_t id = 1; id < exact.size(); ++id) {
            const uint64_t truth = exact.node(id).bytes;
            if (truth * 20 < live) continue;
            std::vector<std::string> labels;
            for (uint32_t at = id; at != ClassificationTree::kRoot; at = exact.node(at).parent)
                labels.push_back(exact.label(at));
            std::reverse(labels.begin(), labels.end());
            const std::string where = exact.path(id) + " at System.gc() " + std::to_string(i + 1);
            const uint32_t s = shown.find(labels);
            ASSERT_NE(s, kNoNode) << where;
            const Estimate e = shown.node(s).sampled.bytesEstimate();
            const auto t = static_cast<double>(truth);
            if (labels.size() == 1) {
                EXPECT_TRUE(e.exact) << where;
                EXPECT_NEAR(e.value, t, 0.01 * t) << where;
                const auto counted = static_cast<double>(exact.node(id).objects);
                EXPECT_NEAR(static_cast<double>(shown.node(s).objects), counted, 0.01 * counted) << where;
            } else {
                ++sites;
                sites_near += std::abs(e.value - t) <= 0.2 * t;
                sites_inside += e.low <= 1.01 * t && 0.99 * t <= e.high;
            }
            ++compared;
            const uint32_t w = raw.find(labels);
            const Estimate x = w == kNoNode ? Estimate{} : raw.node(w).sampled.bytesEstimate();
            ++raw_compared;
            raw_inside += x.low <= t && t <= x.high;
        }
    }
    EXPECT_GE(compared, 30u);
    ASSERT_GE(sites, 10u);
    EXPECT_GE(static_cast<double>(sites_near), 0.9 * static_cast<double>(sites))
        << sites_near << " of " << sites;
    EXPECT_GE(static_cast<double>(sites_inside), 0.9 * static_cast<double>(sites))
        << sites_inside << " of " << sites;
    EXPECT_GE(static_cast<double>(raw_inside), 0.8 * static_cast<double>(raw_compared))
        << raw_inside << " of " << raw_compared;
}

// The leak, as the exact run shows it: in the memory the System.gc()s leave (the exact run's
// forced GC at exit left out, which the sampled one does not make), both leak searches find a
// window ending at the last, rising as fast (to 10%), the heuristic's from the same phase give
// or take one; and the same type and site grow most between the first and the last System.gc().
// The exact recording runs the program several times slower, and unevenly (the JIT's warm-up is
// recorded too): both series are put on one clock, a second per phase, so that the windows come
// from the heap's figures alone, which is what sampling could change. (Which window the
// regression search calls steepest is a near tie on a leak that grows by the same bytes each
// phase: two runs of the program, exact both, differ there by a few hundred bytes and pick
// different ones.)
TEST_F(Sampled, TheLeakIsFoundAsInTheExactRecording) {
    const Runs& r = leakyService();
    ASSERT_TRUE(r.exact.history && r.sampled.history);
    auto only = [](const HeapHistory& h, const std::vector<uint32_t>& gcs) {
        std::vector<GcRecord> out;
        for (size_t i = 0; i < gcs.size(); ++i) {
            GcRecord g = h.gcs()[gcs[i]];
            g.start_ns = static_cast<int64_t>(i + 1) * 1'000'000'000;
            g.end_ns = g.start_ns + static_cast<int64_t>(g.pause_ns);
            out.push_back(g);
        }
        return out;
    };
    WindowOptions o;
    o.leak_series = LeakSeries::kFullGc;
    auto ew = findWindows(only(*r.exact.history, r.exact_gcs), o);
    auto sw = findWindows(only(*r.sampled.history, r.sampled_gcs), o);
    ASSERT_TRUE(ew.ok() && sw.ok());
    // Left to itself, the sampled trace looks for leaks in the same series.
    auto whole = findWindows(r.sampled.history->gcs());
    ASSERT_TRUE(whole.ok());
    EXPECT_EQ(whole->leak_series, LeakSeries::kFullGc);
    auto leak = [](const WindowReport& w, WindowKind kind) -> const Window* {
        for (const Window& x : w.windows)
            if (x.kind == kind && !x.narrowed) return &x;
        return nullptr;
    };
    // A window's GCs by the System.gc() they are (the two runs number their GCs apart).
    auto phase = [](const std::vector<uint32_t>& gcs, uint32_t gc) {
        return std::find(gcs.begin(), gcs.end(), gc) - gcs.begin();
    };
    for (WindowKind kind : {WindowKind::kLeakRegression, WindowKind::kLeakHeuristic}) {
        const Window* e = leak(*ew, kind);
        const Window* s = leak(*sw, kind);
        ASSERT_NE(e, nullptr) << windowKindName(kind);
        ASSERT_NE(s, nullptr) << windowKindName(kind);
        EXPECT_EQ(e->last_gc, r.exact_gcs.back());
        EXPECT_EQ(s->last_gc, r.sampled_gcs.back());
        EXPECT_NEAR(s->leak.slope_per_s, e->leak.slope_per_s, 0.1 * e->leak.slope_per_s)
            << windowKindName(kind);
        if (kind == WindowKind::kLeakHeuristic) {
            EXPECT_LE(std::abs(phase(r.exact_gcs, e->first_gc) - phase(r.sampled_gcs, s->first_gc)), 1);
        }
    }
    const ClassifierChain chain = chainOf("type,site");
    auto top = [&](const Loaded& l, const std::vector<uint32_t>& gcs) {
        SeriesOptions so;
        so.include_gc = [&](uint32_t g) { return std::find(gcs.begin(), gcs.end(), g) != gcs.end(); };
        auto s = TreeSeries::build(*l.history, chain, so);
        EXPECT_TRUE(s.ok());
        const uint32_t type =
            s->sortedChildren(TreeSeries::kRoot, SortStrategy::kGrowth, Metric::kBytes).front();
        const uint32_t site = s->sortedChildren(type, SortStrategy::kGrowth, Metric::kBytes).front();
        return s->path(site);
    };
    const std::string grows = top(r.exact, r.exact_gcs);
    EXPECT_EQ(grows, top(r.sampled, r.sampled_gcs));
    EXPECT_EQ(grows.rfind("long[] / LeakyService.handle(LeakyService.java:", 0), 0u) << grows;
}

// A sampled recording with a reference snapshot after every GC (--refs 1): at each System.gc(),
// a serial full GC that leaves only what is alive, the heap made whole is the JVM's heap: every
// type the census counted has its census count and bytes, nearly every object is reachable from
// the roots JVMTI reports (the rest listed as unreached), and the leaked long[] samples' roots are
// the static map they are filed in. Between the System.gc()s, the young GCs' snapshots are whole
// too (every object they list reachable from the roots, none twice).
TEST_F(Sampled, ASnapshotMakesTheHeapWholeAsTheJvmCountsIt) {
    const std::string trace = tracePath("leaky-sampled-refs");
    Process p = run(record(trace, {"-XX:+UseSerialGC"}, {"LeakyService", "100000", "3"},
                           {"--sampled", "--interval", "4k", "--refs", "1"}),
                    300);
    ASSERT_EQ(p.status, 0) << p.stderr_text;
    EXPECT_NE(p.stdout_text.find("served 100000 requests"), std::string::npos) << p.stdout_text;
    Loaded l = load(trace);
    ASSERT_TRUE(l.history);
    const HeapHistory& h = *l.history;
    EXPECT_EQ(h.diagnostics().errorCount(), 0u) << describeAnomalies(h.diagnostics());
    ASSERT_TRUE(h.sampled());
    const std::vector<uint32_t> system = systemGcs(*l.file, h);
    ASSERT_EQ(system.size(), 3u);
    size_t snapshots = 0;
    for (const GcRecord& g : h.gcs())
        snapshots += g.has_snapshot;
    // (A walk another GC overtook is not taken; the serial collector's single thread leaves few.)
    EXPECT_GE(snapshots * 10, h.gcs().size() * 8) << snapshots << " of " << h.gcs().size();
    size_t types = 0;
    for (uint32_t gc : system) {
        SCOPED_TRACE("System.gc() at GC " + std::to_string(gc));
        HeapState heap;
        MadeWhole made = expectMadeWholeAsCounted(h, gc, heap);
        ASSERT_TRUE(made.graph);
        types += made.types;
        const HeapGraph& g = *made.graph;
        // Every object reachable but those kept by roots JVMTI does not report (the JVM's own
        // handles to class metadata: some 0.1% of this heap), listed too.
        EXPECT_LT(h.gcs()[gc].unreached_bytes * 100, g.heap().liveBytes());
        // The leaked histories' samples: filed in LeakyService.SESSIONS, which is what keeps them.
        const HeapView samples = heap.view();
        Bitset leaked(samples.positions());
        samples.forEachLive([&](size_t pos) {
            if (samples.symbols().type(samples.type(pos)).name == "long[]") leaked.set(pos);
        });
        if (gc == system.front()) continue;  // (the leak starts with the second phase)
        ASSERT_GT(leaked.count(), 10u);
        auto report = buildGroupReport(g, g.fit(leaked));
        ASSERT_TRUE(report.ok()) << report.error().message;
        EXPECT_EQ(report->closure.unreached.objects, 0u);
        ASSERT_FALSE(report->reaching_roots.empty());
        bool sessions = false;
        for (const CountedName& r : report->reaching_roots)
            sessions |= r.name.find("SESSIONS") != std::string::npos;
        EXPECT_TRUE(sessions) << report->reaching_roots.front().name;
    }
    EXPECT_GE(types, 30u);
}

// H2 (a database no one here wrote) recorded sampled under its JVM's own collector (G1), with a
// snapshot after every GC: at every snapshot, young GCs' too, the
// heap made whole holds every type the census counted with the census's own count and bytes, and
// what the reported roots reach and what they do not add up to it.
TEST_F(Sampled, AnH2SnapshotIsTheHeapTheCensusCounts) {
    const std::string h2 = "/usr/share/java/h2.jar";
    if (!fs::exists(h2)) GTEST_SKIP() << "libh2-java is not installed (scripts/setup installs it)";
    const std::string trace = tracePath("h2-sampled-refs");
    Process p = run({kMemcity, "record", "-o", trace, "--sampled", "--interval", "16k", "--refs", "1", "--",
                     kJavaHome + "/bin/java", "-cp", classes_.string() + ":" + h2, "H2Workload", "10000"},
                    300);
    ASSERT_EQ(p.status, 0) << p.stderr_text;
    EXPECT_NE(p.stdout_text.find("checksum 18571"), std::string::npos) << p.stdout_text;
    Loaded l = load(trace);
    ASSERT_TRUE(l.history);
    const HeapHistory& h = *l.history;
    EXPECT_EQ(h.diagnostics().errorCount(), 0u) << describeAnomalies(h.diagnostics());
    size_t snapshots = 0, types = 0;
    for (const GcRecord& rec : h.gcs()) {
        if (!rec.has_snapshot) continue;
        SCOPED_TRACE("GC " + std::to_string(rec.index));
        ++snapshots;
        HeapState heap;
        types += expectMadeWholeAsCounted(h, rec.index, heap).types;
    }
    EXPECT_GE(snapshots, 2u);
    EXPECT_GE(types, 20 * snapshots);
    // The walks, as the trace sums them up.
    const auto& meta = l.file->meta();
    EXPECT_TRUE(
        std::any_of(meta.begin(), meta.end(), [](const auto& kv) { return kv.first == "snapshots.taken"; }));
}

}  // namespace
}  // namespace memcity
