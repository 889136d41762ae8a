// Suspicious time windows (VMIL19): hand-made GC series with exact answers, the synthetic
// scenarios of docs/scenarios.md, and the real demo recording.
#include <gtest/gtest.h>

#include <cmath>
#include <optional>

#include "heap/heap_history.h"
#include "synth/synth.h"
#include "unit/trace_builder.h"
#include "windows/windows.h"

namespace memcity {
namespace {

constexpr int64_t kSecond = 1'000'000'000;
constexpr int64_t kMs = 1'000'000;

// One GC per second (GC i ends at i + 1 s after a 1 ms pause), with a reference snapshot whose
// reachable bytes are `bytes[i]`; live bytes are the same.
std::vector<GcRecord> series(const std::vector<uint64_t>& bytes) {
    std::vector<GcRecord> gcs(bytes.size());
    for (size_t i = 0; i < bytes.size(); ++i) {
        GcRecord& g = gcs[i];
        g.index = static_cast<uint32_t>(i);
        g.end_ns = static_cast<int64_t>(i + 1) * kSecond;
        g.start_ns = g.end_ns - kMs;
        g.pause_ns = kMs;
        g.live_objects = g.reachable_objects = bytes[i] / 16 + 1;
        g.live_bytes = g.reachable_bytes = bytes[i];
        g.has_snapshot = true;
    }
    return gcs;
}

WindowReport detect(const std::vector<GcRecord>& gcs, const WindowOptions& o = {},
                    std::optional<RunSpan> run = std::nullopt) {
    auto r = findWindows(gcs, o, run);
    EXPECT_TRUE(r.ok()) << (r.ok() ? "" : r.error().message);
    return r.ok() ? *r : WindowReport{};
}

std::vector<const Window*> ofKind(const WindowReport& r, WindowKind kind, bool narrowed = false) {
    std::vector<const Window*> out;
    for (const Window& w : r.windows)
        if (w.kind == kind && w.narrowed == narrowed) out.push_back(&w);
    return out;
}

// The window of a kind (a copy: reports are often temporaries), or none.
std::optional<Window> one(const WindowReport& r, WindowKind kind, bool narrowed = false) {
    auto ws = ofKind(r, kind, narrowed);
    EXPECT_LE(ws.size(), 1u);
    if (ws.empty()) return std::nullopt;
    return *ws[0];
}

bool hasNote(const WindowReport& r, const std::string& note) {
    for (const std::string& n : r.notes)
        if (n == note) return true;
    return false;
}

std::string notes(const WindowReport& r) {
    std::string s;
    for (const std::string& n : r.notes)
        s += n + "\n";
    return s;
}

// Every figure of every window is a finite number.
void expectFinite(const WindowReport& r) {
    EXPECT_TRUE(std::isfinite(r.run_overhead) && std::isfinite(r.run_churn_per_s));
    for (const Window& w : r.windows) {
        for (double v :
             {w.leak.growth_share, w.leak.growth_per_s, w.leak.slope_per_s, w.leak.r2, w.overhead.overhead,
              w.overhead.run_overhead, w.churn.per_s, w.churn.run_per_s, w.churn.ratio})
            EXPECT_TRUE(std::isfinite(v)) << windowKindName(w.kind);
        EXPECT_GE(w.leak.r2, 0.0);
        EXPECT_LE(w.leak.r2, 1.0);
    }
}

// Flat at 1,000 bytes for GCs 0..9, then 500 bytes more every second: GC 9 is the line's first
// point, so both searches find GCs 9..19.
TEST(Windows, LinearLeakAfterAFlatStart) {
    std::vector<uint64_t> bytes(20, 1000);
    for (size_t i = 10; i < 20; ++i)
        bytes[i] = 1000 + 500 * (i - 9);
    const WindowReport r = detect(series(bytes));
    expectFinite(r);
    EXPECT_EQ(r.leak_series, LeakSeries::kReachable);
    EXPECT_EQ(r.leak_points, 20u);
    for (WindowKind kind : {WindowKind::kLeakRegression, WindowKind::kLeakHeuristic}) {
        const std::optional<Window> w = one(r, kind);
        ASSERT_TRUE(w) << windowKindName(kind) << "\n" << notes(r);
        EXPECT_EQ(w->first_gc, 9u);
        EXPECT_EQ(w->last_gc, 19u);
        EXPECT_EQ(w->gcs, 11u);
        EXPECT_EQ(w->start_ns, 10 * kSecond);
        EXPECT_EQ(w->end_ns, 20 * kSecond);
        EXPECT_EQ(w->leak.points, 11u);
        EXPECT_EQ(w->leak.first_bytes, 1000u);
        EXPECT_EQ(w->leak.last_bytes, 6000u);
        EXPECT_EQ(w->leak.peak_bytes, 6000u);
        EXPECT_EQ(w->leak.peak_gc, 19u);
        EXPECT_EQ(w->leak.growth_bytes, 5000);
        EXPECT_DOUBLE_EQ(w->leak.growth_share, 5.0);
        EXPECT_DOUBLE_EQ(w->leak.growth_per_s, 500.0);
        EXPECT_NEAR(w->leak.slope_per_s, 500.0, 1e-9);
        EXPECT_NEAR(w->leak.r2, 1.0, 1e-12);
        // Narrowing: 3..5 of the 11 points; every sub-window grows at 500 B/s, the first wins.
        const std::optional<Window> n = one(r, kind, true);
        ASSERT_TRUE(n);
        EXPECT_EQ(n->first_gc, 9u);
        EXPECT_EQ(n->last_gc, 11u);
        EXPECT_EQ(n->leak.points, 3u);
        EXPECT_DOUBLE_EQ(n->leak.growth_per_s, 500.0);
        EXPECT_EQ(n->reason, std::string("the fastest-growing sub-window of 3..5 of the ") +
                                 (kind == WindowKind::kLeakRegression ? "regression" : "heuristic") +
                                 " window's 11 points: grows 100.0%, 1.0x the window's rate");
    }
    EXPECT_EQ(r.windows.size(), 4u);  // the two leak windows and their narrowed ones; no GC trouble
    EXPECT_EQ(r.windows[0].kind, WindowKind::kLeakRegression);
    EXPECT_FALSE(r.windows[0].narrowed);
    EXPECT_TRUE(r.windows[1].narrowed);
    EXPECT_EQ(r.windows[2].kind, WindowKind::kLeakHeuristic);
}

TEST(Windows, NarrowingFindsTheSteepestPart) {
    // Slow growth (100 B/s) with a steep stretch (GCs 12..15: +1,000 B/s) inside it.
    std::vector<uint64_t> bytes;
    uint64_t b = 10'000;
    for (size_t i = 0; i < 20; ++i) {
        bytes.push_back(b);
        b += (i >= 12 && i < 15) ? 1000 : 100;
    }
    const WindowReport r = detect(series(bytes));
    const std::optional<Window> h = one(r, WindowKind::kLeakHeuristic);
    ASSERT_TRUE(h) << notes(r);
    EXPECT_EQ(h->first_gc, 0u);
    EXPECT_EQ(h->last_gc, 19u);
    const std::optional<Window> n = one(r, WindowKind::kLeakHeuristic, true);
    ASSERT_TRUE(n);
    EXPECT_EQ(n->first_gc, 12u);
    // 3..10 points: those of the steep stretch grow fastest; of the equally fast, the first and
    // shortest wins.
    EXPECT_EQ(n->last_gc, 14u);
    EXPECT_DOUBLE_EQ(n->leak.growth_per_s, 1000.0);
    EXPECT_EQ(n->leak.growth_bytes, 2000);
}

TEST(Windows, FlatSeriesHasNoWindow) {
    const WindowReport r = detect(series(std::vector<uint64_t>(20, 1000)));
    expectFinite(r);
    EXPECT_TRUE(r.windows.empty());
    EXPECT_TRUE(hasNote(r, "leak-regression: no window: no window ending at the last GC has a rising line"))
        << notes(r);
    EXPECT_TRUE(hasNote(r,
                        "leak-heuristic: no window: the growing stretch at the end (GCs 19..19) has 1 point, "
                        "fewer than 3"))
        << notes(r);
    // 1 ms of pause per second; nothing is freed.
    EXPECT_DOUBLE_EQ(r.run_overhead, 20.0 * kMs / (20.0 * kSecond - 1.0 * kSecond + kMs));
    EXPECT_TRUE(hasNote(r,
                        "gc-overhead: no window: the highest overhead over 5..50 GCs is 0.1% (GCs 0..4), "
                        "below 10.0%"))
        << notes(r);
    EXPECT_TRUE(hasNote(r, "churn: no window: no window of 5..50 GCs frees memory")) << notes(r);
}

// A spike in the middle of a flat series: the paper's regression search reports the whole run
// (the spike lies right of its centre: slope 2000 / 665 B/s); memcity's tests reject it.
TEST(Windows, SpikeIsNotALeak) {
    std::vector<uint64_t> bytes(20, 1000);
    bytes[10] = 5000;
    const WindowReport r = detect(series(bytes));
    expectFinite(r);
    EXPECT_TRUE(ofKind(r, WindowKind::kLeakRegression).empty());
    EXPECT_TRUE(ofKind(r, WindowKind::kLeakHeuristic).empty());
    EXPECT_TRUE(hasNote(r,
                        "leak-regression: no window: the steepest rising window (GCs 0..19) grows 5.7% "
                        "(< 10.0%)"))
        << notes(r);

    const WindowReport p = detect(series(bytes), WindowOptions::paper());
    const std::optional<Window> w = one(p, WindowKind::kLeakRegression);
    ASSERT_TRUE(w) << notes(p);
    EXPECT_EQ(w->first_gc, 0u);
    EXPECT_EQ(w->last_gc, 19u);
    EXPECT_NEAR(w->leak.slope_per_s, 2000.0 / 665.0, 1e-9);
    EXPECT_NEAR(w->leak.r2, 2000.0 * 2000.0 / (665.0 * 15'200'000.0), 1e-12);
    EXPECT_TRUE(ofKind(p, WindowKind::kLeakHeuristic).empty());  // the drop after the spike restarts it
}

TEST(Windows, HeuristicToleratesSmallDips) {
    // 250 after 300 is a dip to 83% of the peak (kept); 290 after 400 is 72.5% (restart).
    const WindowReport r = detect(series({100, 200, 300, 250, 400, 290, 350, 450, 500}));
    const std::optional<Window> w = one(r, WindowKind::kLeakHeuristic);
    ASSERT_TRUE(w) << notes(r);
    EXPECT_EQ(w->first_gc, 5u);
    EXPECT_EQ(w->last_gc, 8u);
    EXPECT_EQ(w->leak.growth_bytes, 210);
    // Exactly 75% of the peak is still growth.
    const WindowReport r2 = detect(series({100, 200, 300, 250, 400, 300, 350, 450, 500}));
    const std::optional<Window> w2 = one(r2, WindowKind::kLeakHeuristic);
    ASSERT_TRUE(w2) << notes(r2);
    EXPECT_EQ(w2->first_gc, 0u);
    EXPECT_EQ(w2->last_gc, 8u);
    EXPECT_EQ(w2->leak.peak_bytes, 500u);
    // Below the window's first point is a restart, however close to the peak.
    const WindowReport r3 = detect(series({100, 104, 110, 99, 120, 140, 160}));
    const std::optional<Window> w3 = one(r3, WindowKind::kLeakHeuristic);
    ASSERT_TRUE(w3) << notes(r3);
    EXPECT_EQ(w3->first_gc, 3u);
}

TEST(Windows, HeuristicNeedsTenPercentOfTheGcs) {
    // 40 GCs, flat, then growing over the last 3: the stretch covers 3 GCs < 4 (10% of 40).
    std::vector<uint64_t> bytes(40, 1000);
    bytes[38] = 2000;
    bytes[39] = 3000;
    WindowOptions o;
    o.min_leak_points = 2;
    const WindowReport r = detect(series(bytes), o);
    EXPECT_TRUE(ofKind(r, WindowKind::kLeakHeuristic).empty());
    EXPECT_TRUE(
        hasNote(r,
                "leak-heuristic: no window: the growing stretch at the end (GCs 37..39) covers 3 GCs, "
                "fewer than 10.0% of 40 (4)"))
        << notes(r);
    bytes[36] = 500;  // now GCs 36..39 grow: 4 GCs are enough
    const WindowReport r2 = detect(series(bytes), o);
    const std::optional<Window> w = one(r2, WindowKind::kLeakHeuristic);
    ASSERT_TRUE(w) << notes(r2);
    EXPECT_EQ(w->first_gc, 36u);
    EXPECT_EQ(w->gcs, 4u);
}

// Growth that flattens (a cache warming up) passes the paper's heuristic but not the r² test.
TEST(Windows, WarmUpThenPlateauIsNotALeak) {
    std::vector<uint64_t> bytes(30, 4000);
    bytes[0] = 1000, bytes[1] = 2000, bytes[2] = 3000;
    const WindowReport r = detect(series(bytes));
    EXPECT_TRUE(ofKind(r, WindowKind::kLeakHeuristic).empty());
    EXPECT_TRUE(ofKind(r, WindowKind::kLeakRegression).empty());
    const WindowReport p = detect(series(bytes), WindowOptions::paper());
    const std::optional<Window> w = one(p, WindowKind::kLeakHeuristic);
    ASSERT_TRUE(w);
    EXPECT_EQ(w->first_gc, 0u);
    EXPECT_EQ(w->last_gc, 29u);
    EXPECT_LT(w->leak.r2, 0.5);
}

TEST(Windows, OneGcAndNoGc) {
    const WindowReport r = detect(series({1000}));
    expectFinite(r);
    EXPECT_TRUE(r.windows.empty());
    EXPECT_EQ(r.notes,
              (std::vector<std::string>{"leak: no window: live memory is known at 1 GC, a window needs 3",
                                        "gc-overhead: no window: the trace has 1 GC, a window needs 5",
                                        "churn: no window: the trace has 1 GC, a window needs 5"}));
    const WindowReport p = detect(series({1000}), WindowOptions::paper());
    EXPECT_TRUE(p.windows.empty());
    EXPECT_EQ(p.leak_series, LeakSeries::kLive);  // one snapshot is not enough for the paper's 2 points
    const WindowReport e = detect({});
    EXPECT_TRUE(e.windows.empty());
    EXPECT_EQ(e.notes, std::vector<std::string>{"no window: the trace has no GCs"});
    EXPECT_EQ(e.run_overhead, 0.0);
}

TEST(Windows, EqualTimestamps) {
    std::vector<GcRecord> gcs = series({100, 200, 300, 400, 500, 600, 700, 800});
    for (GcRecord& g : gcs) {
        g.start_ns = 5 * kSecond;
        g.end_ns = 5 * kSecond;
    }
    for (const WindowOptions& o : {WindowOptions{}, WindowOptions::paper()}) {
        const WindowReport r = detect(gcs, o);
        expectFinite(r);
        EXPECT_TRUE(ofKind(r, WindowKind::kLeakRegression).empty());  // no line through one x
        EXPECT_TRUE(ofKind(r, WindowKind::kGcOverhead).empty());
        EXPECT_TRUE(ofKind(r, WindowKind::kChurn).empty());
        EXPECT_TRUE(hasNote(r, "gc-overhead: no window: no window of 5..50 GCs has a positive duration"))
            << notes(r);
        EXPECT_EQ(r.run_overhead, 0.0);
        EXPECT_EQ(r.run_churn_per_s, 0.0);
    }
    // The paper's heuristic still sees growth (with no rate: the window lasts 0 s).
    const WindowReport p = detect(gcs, WindowOptions::paper());
    const std::optional<Window> w = one(p, WindowKind::kLeakHeuristic);
    ASSERT_TRUE(w);
    EXPECT_EQ(w->leak.growth_bytes, 700);
    EXPECT_EQ(w->leak.growth_per_s, 0.0);
    EXPECT_EQ(w->leak.slope_per_s, 0.0);
    EXPECT_FALSE(one(p, WindowKind::kLeakHeuristic, true));
    // Time running backwards is no better.
    for (size_t i = 0; i < gcs.size(); ++i)
        gcs[i].end_ns = gcs[i].start_ns = static_cast<int64_t>(gcs.size() - i) * kSecond;
    expectFinite(detect(gcs));
    expectFinite(detect(gcs, WindowOptions::paper()));
}

TEST(Windows, SeriesSource) {
    // Reachable memory grows steadily; live memory carries floating garbage that comes and goes.
    std::vector<uint64_t> reach(20);
    for (size_t i = 0; i < 20; ++i)
        reach[i] = 10'000 + 1000 * i;
    std::vector<GcRecord> gcs = series(reach);
    for (size_t i = 0; i < 20; ++i)
        gcs[i].live_bytes += (i % 4) * 8000;
    const WindowReport r = detect(gcs);
    EXPECT_EQ(r.leak_series, LeakSeries::kReachable);
    const std::optional<Window> w = one(r, WindowKind::kLeakHeuristic);
    ASSERT_TRUE(w);
    EXPECT_EQ(w->first_gc, 0u);
    EXPECT_EQ(w->leak.series, LeakSeries::kReachable);

    // On live memory the drops restart the heuristic: its stretch is the last four GCs.
    WindowOptions live;
    live.leak_series = LeakSeries::kLive;
    const WindowReport l = detect(gcs, live);
    EXPECT_EQ(l.leak_series, LeakSeries::kLive);
    const std::optional<Window> lw = one(l, WindowKind::kLeakHeuristic);
    ASSERT_TRUE(lw) << notes(l);
    EXPECT_EQ(lw->first_gc, 16u);
    EXPECT_EQ(lw->leak.series, LeakSeries::kLive);

    // Snapshots at every other GC: ten points; without any, the live series.
    for (size_t i = 1; i < 20; i += 2)
        gcs[i].has_snapshot = false;
    const WindowReport half = detect(gcs);
    EXPECT_EQ(half.leak_series, LeakSeries::kReachable);
    EXPECT_EQ(half.leak_points, 10u);
    EXPECT_EQ(half.snapshot_gcs, 10u);
    ASSERT_TRUE(one(half, WindowKind::kLeakHeuristic));
    EXPECT_EQ(one(half, WindowKind::kLeakHeuristic)->last_gc, 18u);
    for (GcRecord& g : gcs) {
        g.has_snapshot = true;  // marked, but never walked: reachable bytes unknown
        g.reachable_objects = g.reachable_bytes = 0;
    }
    const WindowReport none = detect(gcs);
    EXPECT_EQ(none.snapshot_gcs, 0u);
    EXPECT_EQ(none.leak_series, LeakSeries::kLive);
    EXPECT_EQ(none.leak_points, 20u);
    WindowOptions reachable;
    reachable.leak_series = LeakSeries::kReachable;
    EXPECT_TRUE(hasNote(detect(gcs, reachable),
                        "leak: no window: reachable memory is known at 0 GCs, a window needs 3"));
}

// 20 GCs 10 ms apart with 0.5 ms pauses, and 3 ms pauses at GCs 8..12.
std::vector<GcRecord> pauses(uint64_t hot_pause_ns) {
    std::vector<GcRecord> gcs = series(std::vector<uint64_t>(20, 1000));
    for (size_t i = 0; i < gcs.size(); ++i) {
        gcs[i].end_ns = static_cast<int64_t>(i + 1) * 10 * kMs;
        gcs[i].pause_ns = i >= 8 && i <= 12 ? hot_pause_ns : kMs / 2;
        gcs[i].start_ns = gcs[i].end_ns - static_cast<int64_t>(gcs[i].pause_ns);
    }
    return gcs;
}

TEST(Windows, GcOverhead) {
    const WindowReport r = detect(pauses(3 * kMs), {}, RunSpan{0, 200 * kMs});
    expectFinite(r);
    const std::optional<Window> w = one(r, WindowKind::kGcOverhead);
    ASSERT_TRUE(w) << notes(r);
    EXPECT_EQ(w->first_gc, 8u);
    EXPECT_EQ(w->last_gc, 12u);
    EXPECT_EQ(w->gcs, 5u);
    EXPECT_EQ(w->start_ns, 80 * kMs);  // the end of GC 7
    EXPECT_EQ(w->end_ns, 130 * kMs);
    EXPECT_EQ(w->overhead.gc_ns, static_cast<uint64_t>(15 * kMs));
    EXPECT_DOUBLE_EQ(w->overhead.overhead, 0.3);
    EXPECT_DOUBLE_EQ(w->overhead.run_overhead, 22.5 / 200.0);
    EXPECT_DOUBLE_EQ(r.run_overhead, 22.5 / 200.0);

    // Window sizes: three GCs at most keep to the hot ones (the first of the equal ones wins).
    WindowOptions small;
    small.min_gcs = 2;
    small.max_gcs = 3;
    const std::optional<Window> s = one(detect(pauses(3 * kMs), small), WindowKind::kGcOverhead);
    ASSERT_TRUE(s);
    EXPECT_EQ(s->first_gc, 8u);
    EXPECT_EQ(s->last_gc, 9u);
    EXPECT_DOUBLE_EQ(s->overhead.overhead, 0.3);

    // 0.9 ms pauses: 9% is below the threshold, unless the threshold is lowered.
    const WindowReport low = detect(pauses(kMs * 9 / 10));
    EXPECT_TRUE(ofKind(low, WindowKind::kGcOverhead).empty());
    EXPECT_TRUE(hasNote(low,
                        "gc-overhead: no window: the highest overhead over 5..50 GCs is 9.0% (GCs 8..12), "
                        "below 10.0%"))
        << notes(low);
    WindowOptions lower;
    lower.min_overhead = 0.05;
    const std::optional<Window> l = one(detect(pauses(kMs * 9 / 10), lower), WindowKind::kGcOverhead);
    ASSERT_TRUE(l);
    EXPECT_DOUBLE_EQ(l->overhead.overhead, 0.09);

    // The run's start: GC 0's window starts there (the default is GC 0's start).
    const WindowReport first = detect(pauses(3 * kMs), small, RunSpan{5 * kMs, 200 * kMs});
    EXPECT_EQ(first.run.start_ns, 5 * kMs);
    // A pause longer than its window is capped at 100%.
    std::vector<GcRecord> odd = pauses(3 * kMs);
    odd[10].pause_ns = 500 * kMs;
    const std::optional<Window> o = one(detect(odd), WindowKind::kGcOverhead);
    ASSERT_TRUE(o);
    EXPECT_DOUBLE_EQ(o->overhead.overhead, 1.0);
}

// 20 GCs 10 ms apart that each free the 100,000 bytes allocated since the one before, except
// GCs 5..9, which free 2,000,000 each.
std::vector<GcRecord> churning() {
    std::vector<GcRecord> gcs = pauses(kMs / 2);
    for (size_t i = 0; i < gcs.size(); ++i)
        gcs[i].allocated_bytes = gcs[i].freed_bytes = i >= 5 && i <= 9 ? 2'000'000 : 100'000;
    return gcs;
}

TEST(Windows, Churn) {
    const WindowReport r = detect(churning(), {}, RunSpan{0, 200 * kMs});
    expectFinite(r);
    const std::optional<Window> w = one(r, WindowKind::kChurn);
    ASSERT_TRUE(w) << notes(r);
    EXPECT_EQ(w->first_gc, 5u);
    EXPECT_EQ(w->last_gc, 9u);
    EXPECT_EQ(w->start_ns, 50 * kMs);
    EXPECT_EQ(w->churn.churned_bytes, 10'000'000u);
    EXPECT_DOUBLE_EQ(w->churn.per_s, 2e8);
    EXPECT_DOUBLE_EQ(w->churn.run_per_s, 11.5e6 / 0.2);
    EXPECT_DOUBLE_EQ(w->churn.ratio, 2e8 / (11.5e6 / 0.2));
    EXPECT_EQ(w->churn.measure, ChurnMeasure::kShortLived);

    WindowOptions strict;
    strict.min_churn_ratio = 4;
    const WindowReport s = detect(churning(), strict, RunSpan{0, 200 * kMs});
    EXPECT_TRUE(ofKind(s, WindowKind::kChurn).empty());
    EXPECT_TRUE(
        hasNote(s,
                "churn: no window: the fastest 5..50 GCs (GCs 5..9) churn 3.48x the run's rate, below "
                "4.00x"))
        << notes(s);
}

// A GC that drops a big, old data structure frees much more than was allocated since the GC
// before: freed bytes call that churn, short-lived bytes do not.
TEST(Windows, DroppingOldDataIsNotChurn) {
    std::vector<GcRecord> gcs = pauses(kMs / 2);
    for (GcRecord& g : gcs)
        g.allocated_bytes = g.freed_bytes = 100'000;
    gcs[12].freed_bytes = 50'000'000;
    const WindowReport r = detect(gcs);
    EXPECT_TRUE(ofKind(r, WindowKind::kChurn).empty()) << r.windows.size();
    WindowOptions freed;
    freed.churn_measure = ChurnMeasure::kFreed;
    const std::optional<Window> w = one(detect(gcs, freed), WindowKind::kChurn);
    ASSERT_TRUE(w);
    EXPECT_EQ(w->first_gc, 8u);  // the first window of five that holds GC 12
    EXPECT_EQ(w->last_gc, 12u);
    EXPECT_EQ(w->churn.churned_bytes, 50'400'000u);
}

TEST(Windows, OptionsAreChecked) {
    WindowOptions o;
    o.min_gcs = 0;
    auto r = findWindows(series({1, 2, 3}), o);
    ASSERT_FALSE(r.ok());
    EXPECT_EQ(r.error().message, "min_gcs is 0; it must be at least 1");
    o = {};
    o.max_gcs = 4;
    EXPECT_EQ(validate(o).error().message, "max_gcs is 4; it must be at least min_gcs");
    o = {};
    o.leak_dip_tolerance = 1.5;
    EXPECT_EQ(validate(o).error().message, "leak_dip_tolerance is 1.5; it must be from 0 to 1");
    o = {};
    o.min_leak_r2 = std::nan("");
    EXPECT_FALSE(validate(o).ok());
    o = {};
    o.narrow_min_share = 0.6;
    EXPECT_EQ(validate(o).error().message, "narrow_max_share is 0.5; it must be at least narrow_min_share");
    o = {};
    o.min_leak_points = 1;
    EXPECT_EQ(validate(o).error().message, "min_leak_points is 1; it must be at least 2");
    EXPECT_TRUE(validate(WindowOptions{}).ok());
    EXPECT_TRUE(validate(WindowOptions::paper()).ok());
}

TEST(Windows, PaperOptions) {
    const WindowOptions p = WindowOptions::paper();
    EXPECT_EQ(p.leak_initial_share, 0.10);
    EXPECT_EQ(p.leak_min_share, 0.10);
    EXPECT_EQ(p.leak_dip_tolerance, 0.75);
    EXPECT_EQ(p.narrow_min_share, 0.10);
    EXPECT_EQ(p.narrow_max_share, 0.50);
    EXPECT_EQ(p.min_gcs, 5u);
    EXPECT_EQ(p.max_gcs, 50u);
    EXPECT_EQ(p.min_overhead, 0.10);
    EXPECT_EQ(p.min_leak_points, 2u);
    EXPECT_EQ(p.min_leak_growth, 0.0);
    EXPECT_EQ(p.min_leak_r2, 0.0);
    EXPECT_EQ(p.churn_measure, ChurnMeasure::kFreed);
    EXPECT_EQ(p.min_churn_ratio, 0.0);
    // The paper's defaults are WindowOptions' defaults.
    const WindowOptions d;
    EXPECT_EQ(d.leak_initial_share, p.leak_initial_share);
    EXPECT_EQ(d.leak_dip_tolerance, p.leak_dip_tolerance);
    EXPECT_EQ(d.min_gcs, p.min_gcs);
    EXPECT_EQ(d.max_gcs, p.max_gcs);
    EXPECT_EQ(d.min_overhead, p.min_overhead);
}

// --- The synthetic scenarios (docs/scenarios.md) at scale 1, and the demo recording ---

struct Traced {
    std::unique_ptr<TraceFile> file;
    std::unique_ptr<HeapHistory> history;

    std::pair<uint32_t, uint32_t> phase(const std::string& name) const {
        for (const auto& [k, v] : file->meta())
            if (k == "synth.phase." + name) {
                auto dots = v.find("..");
                return {static_cast<uint32_t>(std::stoul(v.substr(0, dots))),
                        static_cast<uint32_t>(std::stoul(v.substr(dots + 2)))};
            }
        ADD_FAILURE() << "no phase " << name;
        return {0, 0};
    }
    WindowReport windows(const WindowOptions& o = {}) const {
        const EventCounts& c = history->counts();
        return detect(history->gcs(), o, RunSpan{c.first_time_ns, c.last_time_ns});
    }
};

Traced open(const std::string& path) {
    Traced t;
    auto f = TraceFile::open(path);
    EXPECT_TRUE(f.ok()) << (f.ok() ? "" : f.error().message);
    t.file = std::make_unique<TraceFile>(std::move(*f));
    auto h = HeapHistory::build(*t.file);
    EXPECT_TRUE(h.ok()) << (h.ok() ? "" : h.error().message);
    t.history = std::make_unique<HeapHistory>(std::move(*h));
    return t;
}

Traced scenario(const std::string& name) {
    const std::string path = testing::tempPath(name);
    synth::SynthOptions o;
    o.scale = 1;
    o.seed = 1;
    Status st = synth::synthesize(name, path, o);
    EXPECT_TRUE(st.ok()) << (st.ok() ? "" : st.error().message);
    return open(path);
}

void expectInside(const Window& w, std::pair<uint32_t, uint32_t> phase) {
    EXPECT_GE(w.first_gc, phase.first) << windowKindName(w.kind);
    EXPECT_LE(w.last_gc, phase.second) << windowKindName(w.kind);
}

TEST(WindowsScenario, ChurnBurst) {
    const Traced t = scenario("churn");
    const auto burst = t.phase("burst");
    ASSERT_EQ(burst, (std::pair<uint32_t, uint32_t>{7, 43}));
    const WindowReport r = t.windows();
    expectFinite(r);
    const std::optional<Window> c = one(r, WindowKind::kChurn);
    ASSERT_TRUE(c) << notes(r);
    expectInside(*c, burst);
    EXPECT_EQ(c->gcs, 5u);
    EXPECT_GT(c->churn.ratio, 6.0);  // 310 MiB/s against 46 MiB/s over the run
    // The burst's GCs come back to back: GC overhead too (docs: 14.2% over the whole phase).
    const std::optional<Window> g = one(r, WindowKind::kGcOverhead);
    ASSERT_TRUE(g) << notes(r);
    expectInside(*g, burst);
    EXPECT_GT(g->overhead.overhead, 0.142);
    // Nothing leaks: reachable memory is flat.
    EXPECT_TRUE(ofKind(r, WindowKind::kLeakRegression).empty());
    EXPECT_TRUE(ofKind(r, WindowKind::kLeakHeuristic).empty());
}

TEST(WindowsScenario, GcHotspot) {
    const Traced t = scenario("gc-hotspot");
    const auto hot = t.phase("hotspot");
    ASSERT_EQ(hot, (std::pair<uint32_t, uint32_t>{4, 12}));
    const auto& gcs = t.history->gcs();
    // The phase as a whole: 17.5% of its time in pauses (docs/scenarios.md).
    uint64_t pause = 0;
    for (uint32_t g = hot.first; g <= hot.second; ++g)
        pause += gcs[g].pause_ns;
    const double phase_overhead =
        static_cast<double>(pause) / static_cast<double>(gcs[hot.second].end_ns - gcs[hot.first - 1].end_ns);
    EXPECT_NEAR(phase_overhead, 0.175, 0.001);

    const WindowReport r = t.windows();
    expectFinite(r);
    const std::optional<Window> g = one(r, WindowKind::kGcOverhead);
    ASSERT_TRUE(g) << notes(r);
    expectInside(*g, hot);
    // The phase is one of the windows searched, so the most intense one is at least as high.
    EXPECT_GE(g->overhead.overhead, phase_overhead);
    EXPECT_LT(g->overhead.overhead, 0.30);
    EXPECT_NEAR(r.run_overhead, 0.035, 0.001);
    // Dropping the index at GC 13 frees 2.3 MiB of old objects: not churn, unless freed bytes count.
    EXPECT_TRUE(ofKind(r, WindowKind::kChurn).empty()) << notes(r);
    const WindowReport p = t.windows(WindowOptions::paper());
    const std::optional<Window> c = one(p, WindowKind::kChurn);
    ASSERT_TRUE(c);
    EXPECT_LE(c->first_gc, 13u);
    EXPECT_GE(c->last_gc, 13u);
    // The index grows during the hotspot but is gone at the end: no leak.
    EXPECT_TRUE(ofKind(r, WindowKind::kLeakRegression).empty());
    EXPECT_TRUE(ofKind(r, WindowKind::kLeakHeuristic).empty());
}

TEST(WindowsScenario, GrowingMapLeaksThroughTheServingPhase) {
    const Traced t = scenario("growing-map");
    const auto serving = t.phase("serving");
    ASSERT_EQ(serving, (std::pair<uint32_t, uint32_t>{3, 26}));
    for (const WindowOptions& o : {WindowOptions{}, WindowOptions::paper()}) {
        const WindowReport r = t.windows(o);
        expectFinite(r);
        EXPECT_EQ(r.leak_series, LeakSeries::kReachable);
        const std::optional<Window> h = one(r, WindowKind::kLeakHeuristic);
        ASSERT_TRUE(h) << notes(r);
        EXPECT_EQ(h->first_gc, serving.first);  // the drop of the warm-up index starts it
        EXPECT_EQ(h->last_gc, serving.second);
        EXPECT_EQ(h->leak.points, 24u);
        EXPECT_GT(h->leak.r2, 0.99);
        EXPECT_EQ(h->leak.first_bytes, t.history->gcs()[3].reachable_bytes);
        const std::optional<Window> g = one(r, WindowKind::kLeakRegression);
        ASSERT_TRUE(g) << notes(r);
        expectInside(*g, serving);
        EXPECT_EQ(g->last_gc, serving.second);
        // The leak grows at about 11 MiB/s through the phase.
        EXPECT_NEAR(g->leak.slope_per_s / h->leak.slope_per_s, 1.0, 0.1);
        // Narrowed windows lie inside.
        for (const Window& w : r.windows)
            if (w.narrowed) expectInside(w, serving);
        EXPECT_TRUE(ofKind(r, WindowKind::kGcOverhead).empty());
    }
}

TEST(WindowsScenario, SteadyHasNoWindow) {
    const Traced t = scenario("steady");
    const WindowReport r = t.windows();
    expectFinite(r);
    EXPECT_TRUE(r.windows.empty()) << windowKindName(r.windows[0].kind);
    EXPECT_NEAR(r.run_overhead, 0.056, 0.0005);  // docs/scenarios.md: 5.6% < 10%
    EXPECT_EQ(r.notes.size(), 4u);
    // The cache fills during GCs 0..2 and then stays: the paper's searches take that warm-up
    // for a leak over the whole run, which the r² test refuses.
    const WindowReport p = t.windows(WindowOptions::paper());
    const std::optional<Window> h = one(p, WindowKind::kLeakHeuristic);
    ASSERT_TRUE(h);
    EXPECT_EQ(h->first_gc, 0u);
    EXPECT_EQ(h->last_gc, 30u);
    EXPECT_LT(h->leak.r2, 0.2);
    EXPECT_TRUE(ofKind(p, WindowKind::kGcOverhead).empty());
}

// The bundled recording: a web shop whose static audit history keeps every order. Reachable
// memory is known at 12 GCs (a snapshot every 4th, and at the GC at exit): 605 KiB at GC 0,
// growing to 3.7 MiB at GC 40; the final GC at exit (41) drops it to 2.9 MiB, 79% of the peak.
TEST(WindowsScenario, DemoRecordingLeaks) {
    const Traced t = open(MEMCITY_DEMO_TRACE);
    ASSERT_EQ(t.history->gcCount(), 42u);
    const WindowReport r = t.windows();
    expectFinite(r);
    EXPECT_EQ(r.leak_series, LeakSeries::kReachable);
    EXPECT_EQ(r.leak_points, 12u);
    const std::optional<Window> h = one(r, WindowKind::kLeakHeuristic);
    ASSERT_TRUE(h) << notes(r);
    EXPECT_EQ(h->first_gc, 0u);
    EXPECT_EQ(h->last_gc, 41u);
    EXPECT_EQ(h->leak.points, 12u);
    EXPECT_EQ(h->leak.peak_gc, 40u);
    EXPECT_GT(h->leak.growth_bytes, 2 << 20);
    EXPECT_GE(static_cast<double>(h->leak.last_bytes), 0.75 * static_cast<double>(h->leak.peak_bytes));
    EXPECT_GT(h->leak.r2, 0.7);
    const std::optional<Window> g = one(r, WindowKind::kLeakRegression);
    ASSERT_TRUE(g) << notes(r);
    EXPECT_EQ(g->last_gc, 41u);
    EXPECT_GT(g->leak.slope_per_s, 400.0 * 1024);  // over 400 KiB/s
    // On live memory, known at every GC, the whole run leaks too: its least-squares line through
    // all 42 GCs (4.3 MiB at GC 40; 3.1 MiB after the final GC, which frees what the requests
    // left, below the heuristic's 75% of the peak).
    WindowOptions live;
    live.leak_series = LeakSeries::kLive;
    const std::optional<Window> l = one(t.windows(live), WindowKind::kLeakRegression);
    ASSERT_TRUE(l);
    EXPECT_EQ(l->first_gc, 0u);
    EXPECT_EQ(l->last_gc, 41u);
    EXPECT_EQ(l->leak.points, 42u);
    // Pauses are 6.1% of the run; no 5..50 GCs reach 10% (9.6% at most, with the GC at exit).
    EXPECT_TRUE(ofKind(r, WindowKind::kGcOverhead).empty());
}

}  // namespace
}  // namespace memcity
