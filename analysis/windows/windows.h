// Suspicious time windows (VMIL19 §3): from the per-GC series of a trace, the windows
// a person should look at first —
//   - a memory-leak window: memory that keeps growing up to the end of the run, found on the
//     reachable memory (§3.2.1) by a linear-regression search or a heuristic (§3.2.2), each with
//     its steepest sub-window ("narrowing");
//   - a high GC overhead window: 5..50 GCs with the highest share of time in GC pauses, kept
//     when that share is at least 10% (§3.3);
//   - a high memory churn window: 5..50 GCs that free memory fastest (§3.4).
// The paper's parameters are the defaults of WindowOptions; memcity adds a few tests of
// significance (flagged below) so that noise is not reported; WindowOptions::paper() turns
// them off. docs/windows.md explains the algorithms.
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "heap/heap_state.h"
#include "util/result.h"

namespace memcity {

enum class WindowKind : uint8_t {
    kLeakRegression,  // memory grows: the window ending at the last GC with the steepest regression line
    kLeakHeuristic,   // memory grows: the longest window ending at the last GC that grows, small dips allowed
    kGcOverhead,      // the most time in GC pauses for the time spent, over min_gcs..max_gcs GCs
    kChurn,           // memory freed fastest, over min_gcs..max_gcs GCs
};
// "leak-regression", "leak-heuristic", "gc-overhead", "churn".
std::string_view windowKindName(WindowKind kind);

enum class LeakMethod : uint8_t {
    kRegression,  // the linear-regression search only
    kHeuristic,   // the heuristic only
    kBoth,        // both (the paper shows both)
};

enum class LeakSeries : uint8_t {
    kAuto,       // options only: reachable when enough GCs have a snapshot; for a sampled trace
                 // without them, full-gc when enough GCs are full; otherwise live
    kReachable,  // bytes reachable from GC roots, at the GCs with a reference snapshot (§3.2.1)
    kLive,       // bytes live after every GC: floating garbage included, but known at every GC
    kFullGc,     // bytes live after each full GC: what a full GC leaves is what is reachable
                 // (a sampled trace's: counted by the census there)
};
// "auto", "reachable", "live", "full-gc".
std::string_view leakSeriesName(LeakSeries series);

enum class ChurnMeasure : uint8_t {
    kFreed,       // the bytes each GC freed (the paper's measure)
    kShortLived,  // the bytes each GC freed, at most those allocated since the previous GC: data
                  // that lived long and is dropped at once (a cache cleared) is not churn
};
// "freed", "short-lived".
std::string_view churnMeasureName(ChurnMeasure measure);

// Shares are fractions (0.10 = 10%). The paper's values are the defaults; the fields marked
// "memcity" are additions that keep noise out (paper() sets them to the paper's behaviour).
struct WindowOptions {
    LeakMethod leak_method = LeakMethod::kBoth;
    LeakSeries leak_series = LeakSeries::kAuto;
    bool narrow = true;  // also report each leak window's steepest sub-window

    // Regression: the first window holds the last 10% of the series' points (at least
    // min_leak_points) and grows by one point at a time up to the whole series.
    double leak_initial_share = 0.10;
    // Heuristic: the window must cover at least 10% of all GCs.
    double leak_min_share = 0.10;
    // Heuristic: a point below the one before it still counts as growth when it is above the
    // window's first point and at least 75% of the highest point so far in the window.
    double leak_dip_tolerance = 0.75;
    // Narrowing: sub-windows hold 10%..50% of the window's points (at least min_leak_points,
    // and fewer than the window).
    double narrow_min_share = 0.10, narrow_max_share = 0.50;
    // GC-overhead and churn windows cover min_gcs..max_gcs GCs.
    uint32_t min_gcs = 5, max_gcs = 50;
    // A GC-overhead window is kept at >= 10% of its time in GC pauses.
    double min_overhead = 0.10;

    // memcity: a leak window holds at least this many points of the series (paper: 2).
    uint32_t min_leak_points = 3;
    // memcity: a leak window grows by at least this share of its first point's bytes (regression:
    // the line's rise over the window; heuristic: last minus first). Paper: any growth.
    double min_leak_growth = 0.10;
    // memcity: the least-squares line explains at least this share of the variance (r²) of
    // the window's points. Paper: 0 (not tested).
    double min_leak_r2 = 0.5;
    // memcity: what churn counts (paper: kFreed).
    ChurnMeasure churn_measure = ChurnMeasure::kShortLived;
    // memcity: a churn window frees memory at least this many times as fast as the whole run
    // does. Paper: 0 (the fastest window is always shown).
    double min_churn_ratio = 3.0;

    // The paper's algorithms exactly: the memcity additions off, churn counted as freed bytes.
    static WindowOptions paper();
};

// Checks the options; the error names the field and its value ("min_gcs is 0; ...").
Status validate(const WindowOptions& options);

// The time a trace covers. Windows of GC overhead and churn that start at the first GC start
// at `start_ns`; the run's overall overhead and churn rate are measured over the whole span.
struct RunSpan {
    int64_t start_ns = 0, end_ns = 0;
};

struct LeakFigures {
    LeakSeries series = LeakSeries::kReachable;  // what was measured: kReachable or kLive
    uint32_t points = 0;                         // GCs of the window that have a value in the series
    uint64_t first_bytes = 0, last_bytes = 0;    // at the window's first and last GC
    uint64_t peak_bytes = 0;                     // the highest point of the window
    uint32_t peak_gc = 0;                        // where it is
    int64_t growth_bytes = 0;                    // last_bytes - first_bytes
    double growth_share = 0;  // the growth the method measured (see min_leak_growth) / first_bytes
    double growth_per_s = 0;  // growth_bytes / the window's duration (0 when that is 0)
    double slope_per_s = 0;   // slope of the least-squares line through the points, bytes/s
    double r2 = 0;            // its coefficient of determination; 0 when the points are flat
};

struct OverheadFigures {
    uint64_t gc_ns = 0;       // pauses of the window's GCs
    double overhead = 0;      // gc_ns / the window's duration (at most 1)
    double run_overhead = 0;  // the same over the whole run
};

struct ChurnFigures {
    ChurnMeasure measure = ChurnMeasure::kShortLived;
    uint64_t churned_bytes = 0;  // freed by the window's GCs, counted by `measure`
    double per_s = 0;            // churned_bytes / the window's duration, bytes/s
    double run_per_s = 0;        // the same over the whole run
    double ratio = 0;            // per_s / run_per_s (0 when the run frees nothing)
};

struct Window {
    WindowKind kind = WindowKind::kLeakHeuristic;
    bool narrowed = false;  // leak windows: the steepest sub-window of the window listed before it
    // GC indices (GcRecord::index), inclusive, and the number of GCs from first to last.
    uint32_t first_gc = 0, last_gc = 0, gcs = 0;
    // Leak windows: from the end of first_gc to the end of last_gc. GC-overhead and churn
    // windows: from the end of the GC before first_gc (the run's start for the first GC) to the
    // end of last_gc, so that first_gc's pause lies inside.
    int64_t start_ns = 0, end_ns = 0;
    LeakFigures leak;          // for leak windows
    OverheadFigures overhead;  // for GC-overhead windows
    ChurnFigures churn;        // for churn windows
    std::string reason;        // one line: why this window was chosen
};
// The window's kind as people read it: "memory leak (regression)", "high GC overhead", with
// ", steepest part" for a narrowed leak window.
std::string windowTitle(const Window& w);

// The GC a window's next step (the diff or the churn over it) starts from, as its time span does:
// a leak window's first GC; for a GC-overhead or churn window the GC before its first (what the
// first GC freed or kept is then in), GC 0 for a window from the run's first GC.
uint32_t nextStepFrom(const Window& w);

struct WindowReport {
    uint32_t gcs = 0;                            // GCs in the series
    LeakSeries leak_series = LeakSeries::kLive;  // what the leak search used: kReachable, kLive or kFullGc
    uint32_t leak_points = 0;                    // points in that series
    uint32_t snapshot_gcs = 0;                   // GCs whose reachable bytes are known
    RunSpan run;                                 // the span used for the run's figures
    double run_overhead = 0;                     // share of the run in GC pauses
    double run_churn_per_s = 0;                  // bytes churned per second over the run
    // In this order, each where found: leak-regression (then its narrowed sub-window),
    // leak-heuristic (then its narrowed sub-window), gc-overhead, churn.
    std::vector<Window> windows;
    // One line for each kind that was looked for and has no window, saying why.
    std::vector<std::string> notes;
};

// Finds the suspicious windows of a trace's GC series (HeapHistory::gcs(), in GC order).
// `run` defaults to the first GC's start .. the last GC's end and is widened to cover the GCs.
// Any series is accepted (empty, one GC, equal or decreasing timestamps): a window whose
// duration is not positive is never chosen, and every figure is finite. Error only for
// invalid options.
Result<WindowReport> findWindows(const std::vector<GcRecord>& gcs, const WindowOptions& options = {},
                                 std::optional<RunSpan> run = std::nullopt);

}  // namespace memcity
