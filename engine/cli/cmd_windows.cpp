// memcity windows FILE [--json] [--leak-method regression|heuristic|both] [--leak-series
// auto|reachable|live|full-gc]
//                 [--min-overhead PCT] [--min-gcs N] [--max-gcs N] [--min-growth PCT] [--min-r2 X]
//                 [--min-points N] [--churn freed|short-lived] [--min-churn-ratio X] [--no-narrow] [--paper]
#include <charconv>
#include <cmath>
#include <cstdio>
#include <iostream>

#include "cli/args.h"
#include "cli/commands.h"
#include "cli/json_writer.h"
#include "cli/load.h"
#include "cli/one_trace.h"
#include "cli/sampled_output.h"
#include "cli/text_format.h"
#include "trace/event_decoder.h"
#include "windows/windows.h"

namespace memcity::cli {
namespace {

const std::string kPrefix = "memcity windows: ";

// A decimal number from `min` to `max` ("12", "12.5"; a trailing '%' when `percent`).
Result<double> decimalValue(const Args& args, std::string_view name, double fallback, double min, double max,
                            bool percent, const std::string& expects) {
    auto v = args.value(name);
    if (!v) return fallback;
    std::string_view text = *v;
    if (percent && !text.empty() && text.back() == '%') text.remove_suffix(1);
    double d = 0;
    auto [end, ec] = std::from_chars(text.data(), text.data() + text.size(), d, std::chars_format::fixed);
    if (text.empty() || ec != std::errc() || end != text.data() + text.size() || !std::isfinite(d) ||
        d < min || d > max)
        return Error{kPrefix + std::string(name) + " expects " + expects + ", got '" + *v + "'"};
    return d;
}

Result<WindowOptions> readOptions(const Args& args) {
    WindowOptions o = args.has("--paper") ? WindowOptions::paper() : WindowOptions{};
    if (auto m = args.value("--leak-method")) {
        if (*m == "regression")
            o.leak_method = LeakMethod::kRegression;
        else if (*m == "heuristic")
            o.leak_method = LeakMethod::kHeuristic;
        else if (*m == "both")
            o.leak_method = LeakMethod::kBoth;
        else
            return Error{kPrefix + "--leak-method expects regression, heuristic or both, got '" + *m + "'"};
    }
    if (auto s = args.value("--leak-series")) {
        if (*s == "auto")
            o.leak_series = LeakSeries::kAuto;
        else if (*s == "reachable")
            o.leak_series = LeakSeries::kReachable;
        else if (*s == "live")
            o.leak_series = LeakSeries::kLive;
        else if (*s == "full-gc")
            o.leak_series = LeakSeries::kFullGc;
        else
            return Error{kPrefix + "--leak-series expects auto, reachable, live or full-gc, got '" + *s +
                         "'"};
    }
    if (auto c = args.value("--churn")) {
        if (*c == "freed")
            o.churn_measure = ChurnMeasure::kFreed;
        else if (*c == "short-lived")
            o.churn_measure = ChurnMeasure::kShortLived;
        else
            return Error{kPrefix + "--churn expects freed or short-lived, got '" + *c + "'"};
    }
    o.narrow = !args.has("--no-narrow");

    const std::string pct = "a percentage from 0 to 100";
    auto overhead = decimalValue(args, "--min-overhead", o.min_overhead * 100, 0, 100, true, pct);
    if (!overhead) return overhead.error();
    o.min_overhead = *overhead / 100;
    auto growth = decimalValue(args, "--min-growth", o.min_leak_growth * 100, 0, 1e9, true,
                               "a percentage of at least 0");
    if (!growth) return growth.error();
    o.min_leak_growth = *growth / 100;
    auto r2 = decimalValue(args, "--min-r2", o.min_leak_r2, 0, 1, false, "a number from 0 to 1");
    if (!r2) return r2.error();
    o.min_leak_r2 = *r2;
    auto ratio =
        decimalValue(args, "--min-churn-ratio", o.min_churn_ratio, 0, 1e9, false, "a number of at least 0");
    if (!ratio) return ratio.error();
    o.min_churn_ratio = *ratio;

    auto min_gcs = args.unsignedValue("--min-gcs", o.min_gcs, 1, 100000);
    if (!min_gcs) return min_gcs.error();
    auto max_gcs = args.unsignedValue("--max-gcs", std::max<uint64_t>(o.max_gcs, *min_gcs), 1, 100000);
    if (!max_gcs) return max_gcs.error();
    if (*max_gcs < *min_gcs)
        return Error{kPrefix + "--max-gcs " + std::to_string(*max_gcs) + " is below --min-gcs " +
                     std::to_string(*min_gcs)};
    o.min_gcs = static_cast<uint32_t>(*min_gcs);
    o.max_gcs = static_cast<uint32_t>(*max_gcs);
    auto points = args.unsignedValue("--min-points", o.min_leak_points, 2, 100000);
    if (!points) return points.error();
    o.min_leak_points = static_cast<uint32_t>(*points);
    if (Status s = validate(o); !s) return Error{kPrefix + s.error().message};
    return o;
}

std::string signedBytes(int64_t b) {
    return (b < 0 ? "-" : "+") + formatBytes(b < 0 ? 0 - static_cast<uint64_t>(b) : static_cast<uint64_t>(b));
}

// A rate in bytes per second, rounded to whole bytes.
std::string rate(double per_s) {
    const double a = std::min(std::fabs(per_s), 9e18);
    return std::string(per_s < 0 ? "-" : "") + formatBytes(static_cast<uint64_t>(std::llround(a))) + "/s";
}

// `approx`: "≈ " where the figures are a sampled trace's estimates, else "".
void printWindow(const Window& w, const std::string& path, const char* approx) {
    std::printf("%s\n", windowTitle(w).c_str());
    std::printf("  GCs %u..%u (%s, %s: %s .. %s)\n", w.first_gc, w.last_gc,
                formatCountOf(w.gcs, "GC", "GCs").c_str(),
                formatDuration(clampNs(durationNs(w.start_ns, w.end_ns))).c_str(),
                formatDuration(w.start_ns).c_str(), formatDuration(w.end_ns).c_str());
    switch (w.kind) {
        case WindowKind::kLeakRegression:
        case WindowKind::kLeakHeuristic: {
            const LeakFigures& f = w.leak;
            std::printf("  %s memory %s%s -> %s%s (%s%s, %+.1f%%), peak %s%s at GC %u\n",
                        std::string(leakSeriesName(f.series)).c_str(), approx,
                        formatBytes(f.first_bytes).c_str(), approx, formatBytes(f.last_bytes).c_str(), approx,
                        signedBytes(f.growth_bytes).c_str(),
                        static_cast<double>(f.growth_bytes) * 100.0 /
                            static_cast<double>(std::max<uint64_t>(f.first_bytes, 1)),
                        approx, formatBytes(f.peak_bytes).c_str(), f.peak_gc);
            std::printf("  grows %s%s; least-squares line %s%s (r² %.2f) through %s\n", approx,
                        rate(f.growth_per_s).c_str(), approx, rate(f.slope_per_s).c_str(), f.r2,
                        formatCountOf(f.points, "point", "points").c_str());
            break;
        }
        case WindowKind::kGcOverhead:
            std::printf("  %s of the time in GC pauses (%s); the whole run: %s\n",
                        formatPercent(w.overhead.overhead).c_str(),
                        formatDuration(clampNs(w.overhead.gc_ns)).c_str(),
                        formatPercent(w.overhead.run_overhead).c_str());
            break;
        case WindowKind::kChurn:
            std::printf("  %s%s %s (%s%s in the window), %.1fx the whole run's %s%s\n", approx,
                        rate(w.churn.per_s).c_str(),
                        w.churn.measure == ChurnMeasure::kFreed ? "freed" : "of short-lived memory freed",
                        approx, formatBytes(w.churn.churned_bytes).c_str(), w.churn.ratio, approx,
                        rate(w.churn.run_per_s).c_str());
            break;
    }
    std::printf("  why: %s\n", w.reason.c_str());
    if (w.kind == WindowKind::kLeakRegression || w.kind == WindowKind::kLeakHeuristic)
        std::printf(
            "  next: memcity diff %s --from %u --to %u --classify type,site   (born: what accumulated)\n",
            path.c_str(), nextStepFrom(w), w.last_gc);
    else if (w.kind == WindowKind::kGcOverhead)
        std::printf(
            "  next: memcity diff %s --from %u --to %u --classify type,site   (born: what survived)\n",
            path.c_str(), nextStepFrom(w), w.last_gc);
    else if (w.kind == WindowKind::kChurn && w.last_gc > 0)
        std::printf(
            "  next: memcity churn %s --from %u --to %u --classify type,site   (what died young, by cause)\n",
            path.c_str(), nextStepFrom(w), w.last_gc);
}

void printText(const WindowReport& r, const std::string& path, const HeapHistory& h) {
    const char* approx = h.sampled() ? "\u2248 " : "";
    std::printf("%s: %s over %s\n", path.c_str(), formatCountOf(r.gcs, "GC", "GCs").c_str(),
                formatDuration(clampNs(durationNs(r.run.start_ns, r.run.end_ns))).c_str());
    std::fflush(stdout);
    sayEstimates(h, std::cout);
    std::cout.flush();
    if (r.leak_series == LeakSeries::kReachable)
        std::printf("leaks looked for in reachable memory (%s with a reference snapshot)\n",
                    formatCountOf(r.leak_points, "GC", "GCs").c_str());
    else if (r.leak_series == LeakSeries::kFullGc)
        std::printf("leaks looked for in the memory full GCs leave (%s; no reference snapshot)\n",
                    formatCountOf(r.leak_points, "full GC", "full GCs").c_str());
    else
        std::printf("leaks looked for in live memory (%s; reachable memory is known at %s)\n",
                    formatCountOf(r.leak_points, "GC", "GCs").c_str(),
                    formatCountOf(r.snapshot_gcs, "GC", "GCs").c_str());
    std::printf("the whole run: %s of the time in GC pauses, %s%s churned\n",
                formatPercent(r.run_overhead).c_str(), approx, rate(r.run_churn_per_s).c_str());
    for (const Window& w : r.windows) {
        std::printf("\n");
        printWindow(w, path, approx);
    }
    std::printf("\n");
    if (r.windows.empty()) std::printf("no suspicious window\n");
    if (!r.notes.empty()) {
        std::printf("not found:\n");
        for (const std::string& n : r.notes)
            std::printf("  %s\n", n.c_str());
    }
}

void jsonOptions(JsonWriter& j, const WindowOptions& o) {
    j.key("options").beginObject();
    j.field("leak_method", o.leak_method == LeakMethod::kBoth         ? "both"
                           : o.leak_method == LeakMethod::kRegression ? "regression"
                                                                      : "heuristic");
    j.field("leak_series", leakSeriesName(o.leak_series)).field("narrow", o.narrow);
    j.field("leak_initial_share", o.leak_initial_share).field("leak_min_share", o.leak_min_share);
    j.field("leak_dip_tolerance", o.leak_dip_tolerance);
    j.field("narrow_min_share", o.narrow_min_share).field("narrow_max_share", o.narrow_max_share);
    j.field("min_gcs", o.min_gcs).field("max_gcs", o.max_gcs).field("min_overhead", o.min_overhead);
    j.field("min_leak_points", o.min_leak_points).field("min_leak_growth", o.min_leak_growth);
    j.field("min_leak_r2", o.min_leak_r2).field("churn_measure", churnMeasureName(o.churn_measure));
    j.field("min_churn_ratio", o.min_churn_ratio);
    j.endObject();
}

void jsonWindow(JsonWriter& j, const Window& w) {
    j.beginObject();
    j.field("kind", windowKindName(w.kind)).field("narrowed", w.narrowed);
    j.field("first_gc", w.first_gc).field("last_gc", w.last_gc).field("gcs", w.gcs);
    j.field("start_ns", w.start_ns)
        .field("end_ns", w.end_ns)
        .field("duration_ns", durationNs(w.start_ns, w.end_ns));
    switch (w.kind) {
        case WindowKind::kLeakRegression:
        case WindowKind::kLeakHeuristic: {
            const LeakFigures& f = w.leak;
            j.key("leak").beginObject();
            j.field("series", leakSeriesName(f.series)).field("points", f.points);
            j.field("first_bytes", f.first_bytes).field("last_bytes", f.last_bytes);
            j.field("peak_bytes", f.peak_bytes).field("peak_gc", f.peak_gc);
            j.field("growth_bytes", f.growth_bytes).field("growth_share", f.growth_share);
            j.field("growth_bytes_per_s", f.growth_per_s).field("slope_bytes_per_s", f.slope_per_s);
            j.field("r2", f.r2);
            j.endObject();
            break;
        }
        case WindowKind::kGcOverhead:
            j.key("gc_overhead").beginObject();
            j.field("gc_ns", w.overhead.gc_ns).field("overhead", w.overhead.overhead);
            j.field("run_overhead", w.overhead.run_overhead);
            j.endObject();
            break;
        case WindowKind::kChurn:
            j.key("churn").beginObject();
            j.field("measure", churnMeasureName(w.churn.measure))
                .field("churned_bytes", w.churn.churned_bytes);
            j.field("bytes_per_s", w.churn.per_s).field("run_bytes_per_s", w.churn.run_per_s);
            j.field("ratio", w.churn.ratio);
            j.endObject();
            break;
    }
    j.field("reason", w.reason);
    j.endObject();
}

void printJson(const WindowReport& r, const WindowOptions& o, const std::string& path, const HeapHistory& h) {
    JsonWriter j;
    j.beginObject();
    j.field("file", path).field("gcs", r.gcs);
    jsonSampling(j, h);  // a sampled trace's bytes are estimates
    j.key("run").beginObject();
    j.field("start_ns", r.run.start_ns).field("end_ns", r.run.end_ns);
    j.field("gc_overhead", r.run_overhead).field("churn_bytes_per_s", r.run_churn_per_s);
    j.endObject();
    j.field("leak_series", leakSeriesName(r.leak_series)).field("leak_points", r.leak_points);
    j.field("snapshot_gcs", r.snapshot_gcs);
    jsonOptions(j, o);
    j.key("windows").beginArray();
    for (const Window& w : r.windows)
        jsonWindow(j, w);
    j.endArray();
    j.key("notes").beginArray();
    for (const std::string& n : r.notes)
        j.value(n);
    j.endArray();
    j.endObject();
    std::cout << j.str();
}

int runWindows(const Words& words) {
    auto args = oneTraceArgs("windows", words);
    if (!args) return args.status();
    auto options = readOptions(*args);
    if (!options) {
        std::cerr << options.error().message << "\n";
        return 1;
    }
    auto loaded = loadOrSay(args->positionals()[0]);
    if (!loaded) return 1;
    printDiagnostics(*loaded, std::cerr, false);
    const HeapHistory& h = *loaded->history;
    std::optional<RunSpan> run;
    if (h.counts().any_time) run = RunSpan{h.counts().first_time_ns, h.counts().last_time_ns};
    auto report = findWindows(h.gcs(), *options, run);
    if (!report) {
        std::cerr << kPrefix << report.error().message << "\n";
        return 1;
    }
    if (args->has("--json"))
        printJson(*report, *options, loaded->trace->path(), *loaded->history);
    else
        printText(*report, loaded->trace->path(), *loaded->history);
    return 0;
}

}  // namespace

extern const Command kWindows{
    .name = "windows",
    .summary = "suspicious time windows: memory leak, high GC overhead, high churn",
    .usage = R"(usage: memcity windows FILE [--json] [--leak-method regression|heuristic|both]
                       [--leak-series auto|reachable|live|full-gc] [--min-overhead PCT]
                       [--min-gcs N] [--max-gcs N] [--min-growth PCT] [--min-r2 X]
                       [--min-points N] [--churn freed|short-lived] [--min-churn-ratio X]
                       [--no-narrow] [--paper]

Finds the time windows to look at first (VMIL19; docs/windows.md explains how):
  memory leak      memory that keeps growing up to the end of the run, on the reachable
                   memory of the GCs with a reference snapshot (on the live memory when there
                   are too few): the steepest regression line, and the longest stretch of
                   growth with small dips allowed; each with its steepest part
  high GC overhead the window of 5..50 GCs with the highest share of time in GC pauses,
                   shown when that share is at least 10%
  high churn       the window of 5..50 GCs that frees short-lived memory fastest, shown
                   when that is at least 3 times the whole run's rate
Each window is printed with the figures behind it and why it was chosen; kinds without a
window say why not.

)",
    .options =
        {
            {"--leak-method", "M", "", "regression, heuristic or both (default both)"},
            {"--leak-series", "S", "", "auto (default), reachable, live or full-gc (what full GCs leave)"},
            {"--min-overhead", "PCT", "",
             "keep a GC-overhead window from PCT% of the time in pauses (default 10)"},
            {"--min-gcs", "N", "", "GCs in a GC-overhead or churn window, at least (default 5)"},
            {"--max-gcs", "N", "", "... and at most (default 50)"},
            {"--min-growth", "PCT", "",
             "a leak window grows by PCT% of its first value, at least (default 10)"},
            {"--min-r2", "X", "", "a leak window's regression line explains X of its variance (default 0.5)"},
            {"--min-points", "N", "", "points of the series in a leak window, at least (default 3)"},
            {"--churn", "M", "",
             "short-lived (default: freed bytes, at most those allocated since the\nGC before) or freed "
             "(every freed byte, as the paper counts)"},
            {"--min-churn-ratio", "X", "", "keep a churn window at X times the whole run's rate (default 3)"},
            {"--no-narrow", "", "", "do not look for the steepest part of each leak window"},
            {"--paper", "", "",
             "the paper's algorithms exactly: no growth, r² or churn-ratio test,\n2 points suffice, churn "
             "counts freed bytes (options given still apply)"},
            {"--json", "", "", "print JSON instead (docs/cli.md describes its shape)"},
        },
    .run = [](const Words& a, const Services&) { return runWindows(a); },
};

}  // namespace memcity::cli
