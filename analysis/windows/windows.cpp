#include "windows/windows.h"

#include <algorithm>
#include <cmath>
#include <cstdio>

#include "heap/sampling.h"
#include "trace/trace_format.h"

namespace memcity {

namespace {

// One value of the leak series: the bytes after the GC at position `pos` of the GC series.
struct Point {
    size_t pos = 0;
    int64_t t_ns = 0;
    uint64_t bytes = 0;
    double variance = 0;  // of `bytes`, where it is a sampled trace's estimate (bytes^2); 0: counted
};

// Reachable bytes are known when the snapshot was walked: some object was classified either
// way, or the heap was empty. (A snapshot written after a later GC, or a history built without
// reachability, marks the GC but leaves both counts at 0.)
bool reachableKnown(const GcRecord& g) {
    return g.has_snapshot && (g.reachable_objects != 0 || g.unreached_objects != 0 || g.live_objects == 0);
}

std::vector<Point> seriesOf(const std::vector<GcRecord>& gcs, LeakSeries series) {
    std::vector<Point> points;
    for (size_t i = 0; i < gcs.size(); ++i) {
        const GcRecord& g = gcs[i];
        if (series == LeakSeries::kLive ||
            (series == LeakSeries::kFullGc && g.kind == static_cast<uint8_t>(format::GcKind::kMajor)))
            points.push_back({i, g.end_ns, g.live_bytes, g.live_sampled.var_bytes});
        else if (series == LeakSeries::kFullGc)
            continue;
        else if (reachableKnown(g))
            points.push_back({i, g.end_ns, g.reachable_bytes, 0});
    }
    return points;
}

double seconds(int64_t from_ns, int64_t to_ns) {
    return (static_cast<double>(to_ns) - static_cast<double>(from_ns)) / 1e9;
}

// The smallest count that is at least `share` of n (the 1e-9 absorbs rounding: 0.1 * 3 is
// 0.30000000000000004).
size_t atLeastShare(double share, size_t n) {
    return static_cast<size_t>(std::ceil(share * static_cast<double>(n) - 1e-9));
}

std::string percent(double fraction) {
    char buf[48];
    std::snprintf(buf, sizeof buf, "%.1f%%", fraction * 100.0);
    return buf;
}

// v with `decimals` digits after the point; decimals < 0: the shortest form (%g).
std::string number(double v, int decimals) {
    char buf[48];
    if (decimals < 0)
        std::snprintf(buf, sizeof buf, "%g", v);
    else
        std::snprintf(buf, sizeof buf, "%.*f", decimals, v);
    return buf;
}

std::string gcRange(const std::vector<GcRecord>& gcs, size_t first, size_t last) {
    return "GCs " + std::to_string(gcs[first].index) + ".." + std::to_string(gcs[last].index);
}

std::string gcCount(size_t n) {
    return std::to_string(n) + (n == 1 ? " GC" : " GCs");
}

std::string seriesWords(LeakSeries s) {
    return s == LeakSeries::kReachable ? "reachable memory"
           : s == LeakSeries::kFullGc  ? "memory after full GCs"
                                       : "live memory";
}

// Least-squares line through points added one at a time (Welford's updates: no cancellation
// between large sums). x in seconds from the first point added, y in bytes.
class LineFit {
public:
    // `variance`: of the point's y, where it is an estimate.
    void add(int64_t t_ns, uint64_t bytes, double variance = 0) {
        if (n_ == 0) t0_ = t_ns;
        const double x = seconds(t0_, t_ns), y = static_cast<double>(bytes);
        sv_ += variance;
        sxv_ += x * variance;
        sxxv_ += x * x * variance;
        ++n_;
        const double dx = x - mean_x_, dy = y - mean_y_;
        mean_x_ += dx / static_cast<double>(n_);
        mean_y_ += dy / static_cast<double>(n_);
        cxx_ += dx * (x - mean_x_);
        cyy_ += dy * (y - mean_y_);
        cxy_ += dx * (y - mean_y_);
    }
    // False when every x is the same (no line).
    bool valid() const { return n_ >= 2 && cxx_ > 0; }
    double slope() const { return valid() ? cxy_ / cxx_ : 0.0; }
    double r2() const {
        if (!valid() || cyy_ <= 0) return 0.0;
        return std::clamp(cxy_ * cxy_ / (cxx_ * cyy_), 0.0, 1.0);
    }
    // The slope's standard error from the points' own variances (estimates of a sampled trace,
    // taken as independent: their errors in common only shift the line): sqrt(sum((x - mean)^2
    // var) / cxx^2). 0 for counted points.
    double slopeError() const {
        if (!valid() || sv_ <= 0) return 0.0;
        const double spread = sxxv_ - 2 * mean_x_ * sxv_ + mean_x_ * mean_x_ * sv_;
        return std::sqrt(std::max(spread, 0.0)) / cxx_;
    }

private:
    size_t n_ = 0;
    int64_t t0_ = 0;
    double mean_x_ = 0, mean_y_ = 0, cxx_ = 0, cyy_ = 0, cxy_ = 0;
    double sv_ = 0, sxv_ = 0, sxxv_ = 0;  // sums of variance, x * variance, x^2 * variance
};

// Figures of the leak series over points [a, b]; growth_share from last minus first.
Window leakWindow(const std::vector<GcRecord>& gcs, const std::vector<Point>& p, size_t a, size_t b,
                  WindowKind kind, LeakSeries series) {
    Window w;
    w.kind = kind;
    w.first_gc = gcs[p[a].pos].index;
    w.last_gc = gcs[p[b].pos].index;
    w.gcs = static_cast<uint32_t>(p[b].pos - p[a].pos + 1);
    w.start_ns = p[a].t_ns;
    w.end_ns = p[b].t_ns;
    LeakFigures& f = w.leak;
    f.series = series;
    f.points = static_cast<uint32_t>(b - a + 1);
    f.first_bytes = p[a].bytes;
    f.last_bytes = p[b].bytes;
    LineFit fit;
    for (size_t i = a; i <= b; ++i) {
        fit.add(p[i].t_ns, p[i].bytes);
        if (p[i].bytes > f.peak_bytes || i == a) {
            f.peak_bytes = p[i].bytes;
            f.peak_gc = gcs[p[i].pos].index;
        }
    }
    f.growth_bytes = f.last_bytes >= f.first_bytes
                         ? static_cast<int64_t>(std::min<uint64_t>(f.last_bytes - f.first_bytes, INT64_MAX))
                         : -static_cast<int64_t>(std::min<uint64_t>(f.first_bytes - f.last_bytes, INT64_MAX));
    f.growth_share =
        static_cast<double>(f.growth_bytes) / static_cast<double>(std::max<uint64_t>(f.first_bytes, 1));
    const double duration = seconds(w.start_ns, w.end_ns);
    f.growth_per_s = duration > 0 ? static_cast<double>(f.growth_bytes) / duration : 0.0;
    f.slope_per_s = fit.slope();
    f.r2 = fit.r2();
    return w;
}

// Why a leak window fails memcity's significance tests, or "" when it passes.
std::string insignificance(const LeakFigures& f, const WindowOptions& o) {
    if (f.growth_share < o.min_leak_growth)
        return "grows " + percent(f.growth_share) + " (< " + percent(o.min_leak_growth) + ")";
    if (f.r2 < o.min_leak_r2) return "has r² " + number(f.r2, 2) + " (< " + number(o.min_leak_r2, 2) + ")";
    return "";
}

// A leak window and the points [a, b] of the series it covers.
struct LeakFound {
    Window window;
    size_t a = 0, b = 0;
};

// Linear-regression search (§3.2.2): windows ending at the last point, from the last 10% of
// the points up to all of them; the steepest line wins if its slope is positive. Each window
// is judged from the running fit in O(1), so the search is O(n).
std::optional<LeakFound> leakRegression(const std::vector<GcRecord>& gcs, const std::vector<Point>& p,
                                        LeakSeries series, const WindowOptions& o,
                                        std::vector<std::string>& notes) {
    const size_t n = p.size();
    const size_t initial = std::max<size_t>(o.min_leak_points, atLeastShare(o.leak_initial_share, n));
    if (n < initial) {
        notes.push_back("leak-regression: no window: the series has " + std::to_string(n) +
                        " points, the first window needs " + std::to_string(initial));
        return std::nullopt;
    }
    const size_t none = n;
    size_t best = none, rejected = none;
    double best_slope = 0, rejected_slope = 0;
    std::string rejected_why;
    LineFit fit;
    bool estimated = false;
    for (size_t i = n; i-- > 0;) {
        fit.add(p[i].t_ns, p[i].bytes, p[i].variance);
        if (n - i < initial || !fit.valid() || fit.slope() <= 0) continue;
        // Where the points are a sampled trace's estimates, the slope a short window shows is
        // mostly its noise: windows are compared by the lower end of their slope's 95% interval
        // (exactly the slope for counted points).
        const double error = fit.slopeError();
        estimated = estimated || error > 0;
        const double slope = fit.slope() - kConfidenceZ * error;
        // The rise of the line over the window, as a share of the first point.
        LeakFigures f;
        f.r2 = fit.r2();
        f.growth_share = slope * seconds(p[i].t_ns, p[n - 1].t_ns) /
                         static_cast<double>(std::max<uint64_t>(p[i].bytes, 1));
        std::string why = insignificance(f, o);
        if (why.empty()) {
            // Equal slopes (to rounding): the longer window, which holds more of the growth.
            if (best == none || slope >= best_slope * (1 - 1e-9))
                best = i, best_slope = std::max(slope, best_slope);
        } else if (rejected == none || slope > rejected_slope) {
            rejected = i, rejected_slope = slope;
            rejected_why = std::move(why);
        }
    }
    if (best == none) {
        if (rejected != none)
            notes.push_back("leak-regression: no window: the steepest rising window (" +
                            gcRange(gcs, p[rejected].pos, p[n - 1].pos) + ") " + rejected_why);
        else
            notes.push_back("leak-regression: no window: no window ending at the last GC has a rising line");
        return std::nullopt;
    }
    Window w = leakWindow(gcs, p, best, n - 1, WindowKind::kLeakRegression, series);
    w.leak.growth_share = w.leak.slope_per_s * seconds(w.start_ns, w.end_ns) /
                          static_cast<double>(std::max<uint64_t>(w.leak.first_bytes, 1));
    w.reason =
        "the steepest least-squares line of " + seriesWords(series) +
        " among the windows that end at the last GC (r² " + number(w.leak.r2, 2) + ", rises " +
        percent(w.leak.growth_share) + ")" +
        (estimated ? "; estimated points: compared by the lower end of each slope's 95% interval" : "");
    return LeakFound{std::move(w), best, n - 1};
}

// Heuristic search (§3.2.2): the longest window ending at the last point in which every point
// grows: it is above the one before, or above the window's first point and at least 75% of the
// window's highest point so far. It must cover 10% of all GCs.
std::optional<LeakFound> leakHeuristic(const std::vector<GcRecord>& gcs, const std::vector<Point>& p,
                                       LeakSeries series, const WindowOptions& o,
                                       std::vector<std::string>& notes) {
    const size_t n = p.size();
    size_t start = 0;
    uint64_t peak = p[0].bytes;
    for (size_t i = 1; i < n; ++i) {
        const uint64_t y = p[i].bytes;
        const bool grows = y > p[i - 1].bytes ||
                           (y > p[start].bytes &&
                            static_cast<double>(y) >= o.leak_dip_tolerance * static_cast<double>(peak));
        if (grows) {
            peak = std::max(peak, y);
        } else {
            start = i;
            peak = y;
        }
    }
    const std::string stretch =
        "the growing stretch at the end (" + gcRange(gcs, p[start].pos, p[n - 1].pos) + ")";
    const size_t points = n - start, covered = p[n - 1].pos - p[start].pos + 1;
    const size_t needed = atLeastShare(o.leak_min_share, gcs.size());
    if (points < o.min_leak_points) {
        notes.push_back("leak-heuristic: no window: " + stretch + " has " + std::to_string(points) +
                        (points == 1 ? " point" : " points") + ", fewer than " +
                        std::to_string(o.min_leak_points));
        return std::nullopt;
    }
    if (covered < needed) {
        notes.push_back("leak-heuristic: no window: " + stretch + " covers " + gcCount(covered) +
                        ", fewer than " + percent(o.leak_min_share) + " of " + std::to_string(gcs.size()) +
                        " (" + std::to_string(needed) + ")");
        return std::nullopt;
    }
    Window w = leakWindow(gcs, p, start, n - 1, WindowKind::kLeakHeuristic, series);
    std::string why = insignificance(w.leak, o);
    if (!why.empty()) {
        notes.push_back("leak-heuristic: no window: " + stretch + " " + why);
        return std::nullopt;
    }
    w.reason = "the longest stretch ending at the last GC in which " + seriesWords(series) +
               " keeps growing, dips to " + percent(o.leak_dip_tolerance) + " of its peak allowed (grows " +
               percent(w.leak.growth_share) + ")";
    return LeakFound{std::move(w), start, n - 1};
}

// Narrowing (§3.2.2): among the sub-windows of 10%..50% of the window's points, the one whose
// memory grows fastest per second (last minus first over the time between them).
std::optional<Window> narrowed(const std::vector<GcRecord>& gcs, const std::vector<Point>& all,
                               const LeakFound& found, const WindowOptions& o) {
    const Window& window = found.window;
    const std::vector<Point> p(all.begin() + static_cast<ptrdiff_t>(found.a),
                               all.begin() + static_cast<ptrdiff_t>(found.b) + 1);
    const size_t k = p.size();
    if (k < 2) return std::nullopt;
    const size_t min_len = std::max<size_t>({2, o.min_leak_points, atLeastShare(o.narrow_min_share, k)});
    const size_t max_len = std::min(
        k - 1, std::max(min_len,
                        static_cast<size_t>(std::floor(o.narrow_max_share * static_cast<double>(k) + 1e-9))));
    if (min_len > max_len) return std::nullopt;
    double best_rate = 0;
    size_t best_a = 0, best_b = 0;
    for (size_t a = 0; a + min_len <= k; ++a) {
        for (size_t len = min_len; len <= max_len && a + len <= k; ++len) {
            const size_t b = a + len - 1;
            const double duration = seconds(p[a].t_ns, p[b].t_ns);
            if (duration <= 0) continue;
            // Estimated points (a sampled trace's): by the lower end of the rate's 95% interval,
            // or the noise between two close points would win.
            const double rate = ((static_cast<double>(p[b].bytes) - static_cast<double>(p[a].bytes)) -
                                 kConfidenceZ * std::sqrt(p[a].variance + p[b].variance)) /
                                duration;
            if (rate > best_rate) {
                best_rate = rate;
                best_a = a;
                best_b = b;
            }
        }
    }
    if (best_rate <= 0) return std::nullopt;
    Window w = leakWindow(gcs, p, best_a, best_b, window.kind, window.leak.series);
    w.narrowed = true;
    std::string of = window.kind == WindowKind::kLeakRegression ? "regression" : "heuristic";
    const std::string sizes = min_len == max_len ? std::to_string(min_len)
                                                 : std::to_string(min_len) + ".." + std::to_string(max_len);
    w.reason = "the fastest-growing sub-window of " + sizes + " of the " + of + " window's " +
               std::to_string(k) + " points: grows " + percent(w.leak.growth_share);
    if (window.leak.growth_per_s > 0)
        w.reason += ", " + number(w.leak.growth_per_s / window.leak.growth_per_s, 1) + "x the window's rate";
    return w;
}

// The window of min_gcs..max_gcs consecutive GCs with the highest value per nanosecond; a window
// of GCs k..j runs from the end of GC k-1 (the run's start for k = 0) to the end of GC j.
struct Densest {
    bool found = false;
    size_t first = 0, last = 0;
    uint64_t sum = 0;
    int64_t start_ns = 0, end_ns = 0;
    double per_ns = 0;
};

Densest densest(const std::vector<GcRecord>& gcs, const std::vector<uint64_t>& value, int64_t run_start,
                const WindowOptions& o) {
    Densest best;
    const size_t n = gcs.size();
    for (size_t k = 0; k < n; ++k) {
        const int64_t start = k == 0 ? run_start : gcs[k - 1].end_ns;
        uint64_t sum = 0;
        for (size_t j = k; j < n && j - k + 1 <= o.max_gcs; ++j) {
            sum += value[j];
            if (j - k + 1 < o.min_gcs) continue;
            const double duration = static_cast<double>(gcs[j].end_ns) - static_cast<double>(start);
            if (duration <= 0) continue;
            const double per_ns = static_cast<double>(sum) / duration;
            if (!best.found || per_ns > best.per_ns) best = {true, k, j, sum, start, gcs[j].end_ns, per_ns};
        }
    }
    return best;
}

std::string sizeRange(const WindowOptions& o) {
    return std::to_string(o.min_gcs) + ".." + std::to_string(o.max_gcs);
}

Window spanWindow(const std::vector<GcRecord>& gcs, const Densest& d, WindowKind kind) {
    Window w;
    w.kind = kind;
    w.first_gc = gcs[d.first].index;
    w.last_gc = gcs[d.last].index;
    w.gcs = static_cast<uint32_t>(d.last - d.first + 1);
    w.start_ns = d.start_ns;
    w.end_ns = d.end_ns;
    return w;
}

// High GC overhead (§3.3): the highest share of time in GC pauses, kept at >= min_overhead.
std::optional<Window> gcOverhead(const std::vector<GcRecord>& gcs, const WindowReport& r,
                                 const WindowOptions& o, std::vector<std::string>& notes) {
    if (gcs.size() < o.min_gcs) {
        notes.push_back("gc-overhead: no window: the trace has " + gcCount(gcs.size()) + ", a window needs " +
                        std::to_string(o.min_gcs));
        return std::nullopt;
    }
    std::vector<uint64_t> pause(gcs.size());
    for (size_t i = 0; i < gcs.size(); ++i)
        pause[i] = gcs[i].pause_ns;
    const Densest d = densest(gcs, pause, r.run.start_ns, o);
    if (!d.found) {
        notes.push_back("gc-overhead: no window: no window of " + sizeRange(o) +
                        " GCs has a positive duration");
        return std::nullopt;
    }
    const double overhead = std::min(1.0, d.per_ns);
    if (overhead < o.min_overhead) {
        notes.push_back("gc-overhead: no window: the highest overhead over " + sizeRange(o) + " GCs is " +
                        percent(overhead) + " (" + gcRange(gcs, d.first, d.last) + "), below " +
                        percent(o.min_overhead));
        return std::nullopt;
    }
    Window w = spanWindow(gcs, d, WindowKind::kGcOverhead);
    w.overhead = {d.sum, overhead, r.run_overhead};
    w.reason = "the " + sizeRange(o) +
               " GCs with the highest share of time in GC pauses: " + percent(overhead) +
               " (>= " + percent(o.min_overhead) + "; the whole run: " + percent(r.run_overhead) + ")";
    return w;
}

uint64_t churned(const GcRecord& g, ChurnMeasure m) {
    return m == ChurnMeasure::kFreed ? g.freed_bytes : std::min(g.freed_bytes, g.allocated_bytes);
}

// High memory churn (§3.4): the highest rate of churned bytes, kept at >= min_churn_ratio times
// the run's rate.
std::optional<Window> churn(const std::vector<GcRecord>& gcs, const WindowReport& r, const WindowOptions& o,
                            std::vector<std::string>& notes) {
    if (gcs.size() < o.min_gcs) {
        notes.push_back("churn: no window: the trace has " + gcCount(gcs.size()) + ", a window needs " +
                        std::to_string(o.min_gcs));
        return std::nullopt;
    }
    std::vector<uint64_t> bytes(gcs.size());
    for (size_t i = 0; i < gcs.size(); ++i)
        bytes[i] = churned(gcs[i], o.churn_measure);
    const Densest d = densest(gcs, bytes, r.run.start_ns, o);
    if (!d.found) {
        notes.push_back("churn: no window: no window of " + sizeRange(o) + " GCs has a positive duration");
        return std::nullopt;
    }
    if (d.sum == 0) {
        notes.push_back("churn: no window: no window of " + sizeRange(o) + " GCs frees memory");
        return std::nullopt;
    }
    const double per_s = d.per_ns * 1e9;
    const double ratio = r.run_churn_per_s > 0 ? per_s / r.run_churn_per_s : 0.0;
    if (ratio < o.min_churn_ratio) {
        notes.push_back("churn: no window: the fastest " + sizeRange(o) + " GCs (" +
                        gcRange(gcs, d.first, d.last) + ") churn " + number(ratio, 2) +
                        "x the run's rate, below " + number(o.min_churn_ratio, 2) + "x");
        return std::nullopt;
    }
    Window w = spanWindow(gcs, d, WindowKind::kChurn);
    w.churn = {o.churn_measure, d.sum, per_s, r.run_churn_per_s, ratio};
    w.reason = "the " + sizeRange(o) + " GCs that free " +
               (o.churn_measure == ChurnMeasure::kFreed ? "memory" : "short-lived memory") +
               " fastest: " + number(ratio, 1) + "x the whole run's rate";
    return w;
}

bool isShare(double v) {
    return std::isfinite(v) && v >= 0 && v <= 1;
}

}  // namespace

uint32_t nextStepFrom(const Window& w) {
    const bool leak = w.kind == WindowKind::kLeakRegression || w.kind == WindowKind::kLeakHeuristic;
    return leak || w.first_gc == 0 ? w.first_gc : w.first_gc - 1;
}

std::string_view windowKindName(WindowKind kind) {
    switch (kind) {
        case WindowKind::kLeakRegression: return "leak-regression";
        case WindowKind::kLeakHeuristic: return "leak-heuristic";
        case WindowKind::kGcOverhead: return "gc-overhead";
        case WindowKind::kChurn: return "churn";
    }
    return "unknown";
}

std::string windowTitle(const Window& w) {
    std::string t;
    switch (w.kind) {
        case WindowKind::kLeakRegression: t = "memory leak (regression)"; break;
        case WindowKind::kLeakHeuristic: t = "memory leak (heuristic)"; break;
        case WindowKind::kGcOverhead: t = "high GC overhead"; break;
        case WindowKind::kChurn: t = "high memory churn"; break;
    }
    return w.narrowed ? t + ", steepest part" : t;
}

std::string_view leakSeriesName(LeakSeries series) {
    switch (series) {
        case LeakSeries::kAuto: return "auto";
        case LeakSeries::kReachable: return "reachable";
        case LeakSeries::kLive: return "live";
        case LeakSeries::kFullGc: return "full-gc";
    }
    return "unknown";
}

std::string_view churnMeasureName(ChurnMeasure measure) {
    return measure == ChurnMeasure::kFreed ? "freed" : "short-lived";
}

WindowOptions WindowOptions::paper() {
    WindowOptions o;
    o.min_leak_points = 2;
    o.min_leak_growth = 0;
    o.min_leak_r2 = 0;
    o.churn_measure = ChurnMeasure::kFreed;
    o.min_churn_ratio = 0;
    return o;
}

Status validate(const WindowOptions& o) {
    auto bad = [](const char* field, double v, const char* rule) {
        return Error{std::string(field) + " is " + number(v, -1) + "; it must be " + rule};
    };
    const std::pair<const char*, double> shares[] = {
        {"leak_initial_share", o.leak_initial_share},
        {"leak_min_share", o.leak_min_share},
        {"leak_dip_tolerance", o.leak_dip_tolerance},
        {"narrow_min_share", o.narrow_min_share},
        {"narrow_max_share", o.narrow_max_share},
        {"min_overhead", o.min_overhead},
        {"min_leak_r2", o.min_leak_r2},
    };
    for (const auto& [field, v] : shares)
        if (!isShare(v)) return bad(field, v, "from 0 to 1");
    if (o.narrow_max_share < o.narrow_min_share)
        return bad("narrow_max_share", o.narrow_max_share, "at least narrow_min_share");
    if (!std::isfinite(o.min_leak_growth) || o.min_leak_growth < 0)
        return bad("min_leak_growth", o.min_leak_growth, "a finite number >= 0");
    if (!std::isfinite(o.min_churn_ratio) || o.min_churn_ratio < 0)
        return bad("min_churn_ratio", o.min_churn_ratio, "a finite number >= 0");
    if (o.min_leak_points < 2) return bad("min_leak_points", o.min_leak_points, "at least 2");
    if (o.min_gcs < 1) return bad("min_gcs", o.min_gcs, "at least 1");
    if (o.max_gcs < o.min_gcs) return bad("max_gcs", o.max_gcs, "at least min_gcs");
    return {};
}

Result<WindowReport> findWindows(const std::vector<GcRecord>& gcs, const WindowOptions& o,
                                 std::optional<RunSpan> run) {
    if (Status s = validate(o); !s) return s.error();
    WindowReport r;
    r.gcs = static_cast<uint32_t>(gcs.size());
    for (const GcRecord& g : gcs)
        r.snapshot_gcs += reachableKnown(g) ? 1u : 0u;
    if (gcs.empty()) {
        r.run = run.value_or(RunSpan{});
        r.notes.push_back("no window: the trace has no GCs");
        return r;
    }

    // The run covers every GC, whatever the caller said.
    r.run = run.value_or(RunSpan{gcs.front().start_ns, gcs.back().end_ns});
    for (const GcRecord& g : gcs) {
        r.run.start_ns = std::min({r.run.start_ns, g.start_ns, g.end_ns});
        r.run.end_ns = std::max({r.run.end_ns, g.start_ns, g.end_ns});
    }
    const double run_ns = static_cast<double>(r.run.end_ns) - static_cast<double>(r.run.start_ns);
    uint64_t pauses = 0, churn_bytes = 0;
    for (const GcRecord& g : gcs) {
        pauses += g.pause_ns;
        churn_bytes += churned(g, o.churn_measure);
    }
    if (run_ns > 0) {
        r.run_overhead = std::min(1.0, static_cast<double>(pauses) / run_ns);
        r.run_churn_per_s = static_cast<double>(churn_bytes) / run_ns * 1e9;
    }

    // Memory leak: reachable memory where enough GCs have it (§3.2.1), otherwise live memory. A
    // sampled trace has no snapshots, and its live memory after young GCs holds the old
    // generation's garbage as it piles up: where it has enough full GCs, what they leave.
    r.leak_series = o.leak_series;
    if (r.leak_series == LeakSeries::kAuto) {
        const bool sampled =
            std::any_of(gcs.begin(), gcs.end(), [](const GcRecord& g) { return g.live_sampled.samples > 0; });
        const auto full = static_cast<size_t>(std::count_if(gcs.begin(), gcs.end(), [](const GcRecord& g) {
            return g.kind == static_cast<uint8_t>(format::GcKind::kMajor);
        }));
        r.leak_series = r.snapshot_gcs >= o.min_leak_points    ? LeakSeries::kReachable
                        : sampled && full >= o.min_leak_points ? LeakSeries::kFullGc
                                                               : LeakSeries::kLive;
    }
    const std::vector<Point> points = seriesOf(gcs, r.leak_series);
    r.leak_points = static_cast<uint32_t>(points.size());
    if (points.size() < o.min_leak_points) {
        r.notes.push_back("leak: no window: " + seriesWords(r.leak_series) + " is known at " +
                          gcCount(points.size()) + ", a window needs " + std::to_string(o.min_leak_points));
    } else {
        auto add = [&](const std::optional<LeakFound>& found) {
            if (!found) return;
            r.windows.push_back(found->window);
            if (!o.narrow) return;
            if (auto sub = narrowed(gcs, points, *found, o)) r.windows.push_back(std::move(*sub));
        };
        if (o.leak_method != LeakMethod::kHeuristic)
            add(leakRegression(gcs, points, r.leak_series, o, r.notes));
        if (o.leak_method != LeakMethod::kRegression)
            add(leakHeuristic(gcs, points, r.leak_series, o, r.notes));
    }

    if (auto w = gcOverhead(gcs, r, o, r.notes)) r.windows.push_back(std::move(*w));
    if (auto w = churn(gcs, r, o, r.notes)) r.windows.push_back(std::move(*w));
    return r;
}

}  // namespace memcity
