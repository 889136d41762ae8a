#include "scene/timeline_scene.h"

#include <algorithm>
#include <cmath>
#include <cstdio>

#include "scene/palette.h"

namespace memcity::scene {

namespace {

constexpr uint32_t kLiveLine = render::rgba(86, 180, 233);
constexpr uint32_t kLiveFill = render::rgba(86, 180, 233, 70);
constexpr uint32_t kLiveInterval = render::rgba(86, 180, 233, 45);  // a sampled recording's 95% interval
constexpr uint32_t kReachableLine = render::rgba(0, 158, 115);
constexpr uint32_t kPauseColor = render::rgba(204, 121, 167);
constexpr uint32_t kJvmLine = render::rgba(230, 159, 0);           // the JVM's heap in use after each GC
constexpr uint32_t kFullGcLine = render::rgba(255, 255, 255, 60);  // a full GC, across the plot
constexpr uint32_t kCursorColor = palette::kSelection;
constexpr uint32_t kRangeColor = render::rgba(255, 255, 255, 28);
constexpr uint32_t kRangeEdge = render::rgba(255, 255, 255, 150);

// 1, 2 or 5 times a power of ten, at least `raw`.
double niceStep(double raw) {
    if (!(raw > 0)) return 1.0;
    const double p = std::pow(10.0, std::floor(std::log10(raw)));
    for (double m : {1.0, 2.0, 5.0, 10.0})
        if (m * p >= raw * (1 - 1e-9)) return m * p;
    return 10.0 * p;
}

std::string trimmed(double v, int decimals) {
    char buf[32];
    std::snprintf(buf, sizeof buf, "%.*f", decimals, v);
    std::string s = buf;
    if (s.find('.') != std::string::npos) {
        while (s.back() == '0')
            s.pop_back();
        if (s.back() == '.') s.pop_back();
    }
    return s;
}

void addQuad(std::vector<render::Vertex2D>& tris, glm::vec2 a, glm::vec2 b, glm::vec2 c, glm::vec2 d,
             uint32_t color) {
    // a-b-c-d around the quad.
    tris.push_back({a, color});
    tris.push_back({b, color});
    tris.push_back({c, color});
    tris.push_back({a, color});
    tris.push_back({c, color});
    tris.push_back({d, color});
}

render::Label makeLabel(glm::vec2 pos, std::string text, uint32_t color, float size,
                        render::TextAnchor anchor) {
    render::Label l;
    l.pos = pos;
    l.text = std::move(text);
    l.color = color;
    l.size_px = size;
    l.anchor = anchor;
    return l;
}

}  // namespace

std::string formatAxisBytes(double bytes) {
    static constexpr const char* kUnits[] = {"B", "KiB", "MiB", "GiB", "TiB"};
    int unit = 0;
    double v = bytes;
    while (std::abs(v) >= 1024.0 && unit < 4) {
        v /= 1024.0;
        ++unit;
    }
    return trimmed(v, unit == 0 ? 0 : 2) + " " + kUnits[unit];
}

std::string formatAxisSeconds(double ns) {
    const double a = std::abs(ns);
    if (a == 0) return "0 s";
    if (a >= 1e9) return trimmed(ns / 1e9, 3) + " s";
    if (a >= 1e6) return trimmed(ns / 1e6, 3) + " ms";
    if (a >= 1e3) return trimmed(ns / 1e3, 3) + " us";
    return trimmed(ns, 0) + " ns";
}

uint32_t windowColor(WindowKind kind, bool narrowed) {
    const uint8_t alpha = narrowed ? 70 : 40;
    switch (kind) {
        case WindowKind::kLeakRegression:
        case WindowKind::kLeakHeuristic: return render::rgba(213, 94, 0, alpha);  // vermillion
        case WindowKind::kGcOverhead: return render::rgba(240, 228, 66, alpha);   // yellow
        case WindowKind::kChurn: return render::rgba(204, 121, 167, alpha);       // reddish purple
    }
    return render::rgba(255, 0, 255, alpha);
}

TimelineLayout layoutTimeline(std::span<const GcRecord> gcs, PixelRect viewport,
                              const TimelineLayoutOptions& options) {
    TimelineLayout l;
    l.viewport = viewport;
    l.options = options;
    const PixelRect inner = viewport.inset(options.padding_px);
    l.plot = inner;
    l.plot.min.x = std::min(inner.max.x, inner.min.x + options.left_axis_px);
    l.plot.min.y = std::min(inner.max.y, inner.min.y + options.top_px);
    l.top_row = {{l.plot.min.x, inner.min.y}, {l.plot.max.x, l.plot.min.y}};
    l.plot.max.y = std::max(inner.min.y, inner.max.y - options.bottom_axis_px - options.pause_strip_px);
    l.pause_strip = {{l.plot.min.x, l.plot.max.y}, {l.plot.max.x, l.plot.max.y + options.pause_strip_px}};

    uint64_t top = 0;
    if (!gcs.empty()) {
        l.t0_ns = gcs.front().start_ns;
        l.t1_ns = gcs.front().end_ns;
    }
    for (const GcRecord& gc : gcs) {
        l.t0_ns = std::min({l.t0_ns, gc.start_ns, gc.end_ns});
        l.t1_ns = std::max({l.t1_ns, gc.start_ns, gc.end_ns});
        l.gc_end_ns.push_back(gc.end_ns);
        top = std::max(top, gc.live_bytes);
        if (options.estimates)
            top = std::max(top, static_cast<uint64_t>(std::ceil(gc.live_sampled.bytesEstimate().high)));
        if (gc.has_snapshot) top = std::max(top, gc.reachable_bytes);
        if (gc.jvm >= 0) top = std::max(top, gc.vm_heap_after);
    }
    // One instant (a single heap dump): a second of axis, so that its labels read as times.
    if (l.t1_ns <= l.t0_ns) l.t1_ns = l.t0_ns + 1'000'000'000;

    // About four grid steps of 1, 2 or 5 in the unit of the largest value; fewer when the plot is
    // too short for four rows of labels (at least 28 pixels apart).
    const double steps = std::clamp(std::floor(static_cast<double>(l.plot.height()) / 28.0), 1.0, 4.0);
    double unit = 1.0;
    while (static_cast<double>(top) >= 1024.0 * unit && unit < 1024.0 * 1024 * 1024 * 1024)
        unit *= 1024.0;
    const double step = std::max(1.0, niceStep(static_cast<double>(top) / unit / steps) * unit);
    l.byte_step = static_cast<uint64_t>(std::llround(step));
    l.max_bytes = std::max<uint64_t>(l.byte_step, (top + l.byte_step - 1) / l.byte_step * l.byte_step);
    return l;
}

float timelineX(const TimelineLayout& layout, int64_t ns) {
    const double f =
        static_cast<double>(ns - layout.t0_ns) / static_cast<double>(layout.t1_ns - layout.t0_ns);
    return layout.plot.min.x + static_cast<float>(f) * layout.plot.width();
}

float timelineY(const TimelineLayout& layout, double bytes) {
    const double f = bytes / static_cast<double>(layout.max_bytes);
    return layout.plot.max.y - static_cast<float>(f) * layout.plot.height();
}

float timelineCursorX(const TimelineLayout& layout, double t) {
    const std::vector<int64_t>& ends = layout.gc_end_ns;
    if (ends.empty()) return layout.plot.min.x;
    t = std::clamp(t, 0.0, static_cast<double>(ends.size() - 1));
    const auto k = static_cast<size_t>(std::floor(t));
    if (k + 1 >= ends.size()) return timelineX(layout, ends.back());
    const double ns = static_cast<double>(ends[k]) +
                      (t - static_cast<double>(k)) * static_cast<double>(ends[k + 1] - ends[k]);
    const double f =
        (ns - static_cast<double>(layout.t0_ns)) / static_cast<double>(layout.t1_ns - layout.t0_ns);
    return layout.plot.min.x + static_cast<float>(f) * layout.plot.width();
}

double timelineGcAt(const TimelineLayout& layout, float x_pixel) {
    const std::vector<int64_t>& ends = layout.gc_end_ns;
    if (ends.empty() || layout.plot.width() <= 0) return 0.0;
    const double ns = static_cast<double>(layout.t0_ns) +
                      static_cast<double>((x_pixel - layout.plot.min.x) / layout.plot.width()) *
                          static_cast<double>(layout.t1_ns - layout.t0_ns);
    if (ns <= static_cast<double>(ends.front())) return 0.0;
    for (size_t k = 0; k + 1 < ends.size(); ++k) {
        const auto a = static_cast<double>(ends[k]), b = static_cast<double>(ends[k + 1]);
        if (ns < b) return b > a ? static_cast<double>(k) + (ns - a) / (b - a) : static_cast<double>(k);
    }
    return static_cast<double>(ends.size() - 1);
}

TimelineScene buildTimelineScene(const TimelineLayout& layout, std::span<const GcRecord> gcs,
                                 std::span<const Window> windows, const TimelineSceneOptions& options,
                                 render::DrawList& out) {
    TimelineScene scene;
    const PixelRect& plot = layout.plot;
    const float label_px = layout.options.axis_label_size_px;
    if (plot.empty()) return scene;
    auto clampX = [&](float x) { return std::clamp(x, plot.min.x, plot.max.x); };
    auto gcEndX = [&](uint32_t gc) {
        return gc < gcs.size() ? timelineX(layout, gcs[gc].end_ns) : plot.max.x;
    };

    // Bands: the selected range, then the windows (narrowed ones after their parents).
    if (options.range_from && options.range_to && !gcs.empty()) {
        const uint32_t a = std::min(*options.range_from, *options.range_to);
        const uint32_t b = std::max(*options.range_from, *options.range_to);
        float x0 = clampX(gcEndX(a)), x1 = clampX(gcEndX(b));
        if (x1 - x0 < 2.0f) x0 -= 1.0f, x1 = x0 + 2.0f;
        scene.range_band = PixelRect{{x0, plot.min.y}, {x1, plot.max.y}};
        out.rects.push_back(
            {scene.range_band->min, scene.range_band->max, kRangeColor, 0, render::kFlagNone});
        // Its edges, so that it stands out over the windows' bands too.
        for (float x : {x0, x1})
            out.lines.push_back({{x, plot.min.y}, {x, plot.max.y}, 1.0f, kRangeEdge});
    }
    for (size_t i = 0; i < windows.size(); ++i) {
        const Window& w = windows[i];
        float x0 = clampX(timelineX(layout, w.start_ns)), x1 = clampX(timelineX(layout, w.end_ns));
        if (x1 - x0 < 1.0f) x1 = x0 + 1.0f;
        PixelRect band{{x0, plot.min.y}, {x1, plot.max.y}};
        scene.window_bands.push_back(band);
        out.rects.push_back({band.min, band.max, windowColor(w.kind, w.narrowed), static_cast<uint32_t>(i),
                             render::kFlagNone});
    }

    // Grid and bytes labels.
    for (uint64_t b = 0; b <= layout.max_bytes; b += layout.byte_step) {
        const float y = timelineY(layout, static_cast<double>(b));
        out.lines.push_back({{plot.min.x, y}, {plot.max.x, y}, 1.0f, palette::kGrid});
        out.labels.push_back(makeLabel({plot.min.x - 4.0f, y}, formatAxisBytes(static_cast<double>(b)),
                                       palette::kTextDim, label_px, render::TextAnchor::kRightCenter));
    }
    // Time labels: about one per 90 pixels, at round trace times (since the recording began).
    const double span_ns = static_cast<double>(layout.t1_ns - layout.t0_ns);
    const double time_step =
        niceStep(span_ns / std::max(1.0, std::floor(static_cast<double>(plot.width()) / 90.0)));
    const float axis_y = layout.pause_strip.max.y;
    const auto t0 = static_cast<double>(layout.t0_ns), t1 = static_cast<double>(layout.t1_ns);
    for (double ns = std::ceil(t0 / time_step) * time_step; ns <= t1 + span_ns * 1e-9; ns += time_step) {
        const float x = plot.min.x + static_cast<float>((ns - t0) / span_ns) * plot.width();
        out.lines.push_back({{x, axis_y}, {x, axis_y + 3.0f}, 1.0f, palette::kTextDim});
        std::string text = formatAxisSeconds(ns);
        const float half = 0.5f * textWidth(options.measure, text, label_px);
        if (x - half < layout.viewport.min.x || x + half > layout.viewport.max.x) continue;
        out.labels.push_back(makeLabel({x, axis_y + 3.0f}, std::move(text), palette::kTextDim, label_px,
                                       render::TextAnchor::kTopCenter));
    }
    out.lines.push_back({{plot.min.x, axis_y}, {plot.max.x, axis_y}, 1.0f, palette::kGrid});

    // A sampled recording's live bytes: their 95% interval, a band behind the line.
    const bool estimates = layout.options.estimates;
    for (size_t k = 0; estimates && k + 1 < gcs.size(); ++k) {
        const Estimate a = gcs[k].live_sampled.bytesEstimate(), b = gcs[k + 1].live_sampled.bytesEstimate();
        const float xa = timelineX(layout, gcs[k].end_ns), xb = timelineX(layout, gcs[k + 1].end_ns);
        addQuad(out.triangles, {xa, timelineY(layout, a.low)}, {xa, timelineY(layout, a.high)},
                {xb, timelineY(layout, b.high)}, {xb, timelineY(layout, b.low)}, kLiveInterval);
    }
    // Live bytes: an area under a polyline through (end_ns, live_bytes).
    for (size_t k = 0; k + 1 < gcs.size(); ++k) {
        const glm::vec2 a{timelineX(layout, gcs[k].end_ns),
                          timelineY(layout, static_cast<double>(gcs[k].live_bytes))};
        const glm::vec2 b{timelineX(layout, gcs[k + 1].end_ns),
                          timelineY(layout, static_cast<double>(gcs[k + 1].live_bytes))};
        addQuad(out.triangles, {a.x, plot.max.y}, a, b, {b.x, plot.max.y}, kLiveFill);
        out.lines.push_back({a, b, 1.5f, kLiveLine});
    }
    if (gcs.size() == 1) {
        const glm::vec2 a{timelineX(layout, gcs[0].end_ns),
                          timelineY(layout, static_cast<double>(gcs[0].live_bytes))};
        out.lines.push_back({{a.x, plot.max.y}, a, 1.5f, kLiveLine});
    }
    glm::vec2 previous{0.0f};
    // Full GCs: a faint line across the plot, where the JVM's count and memcity's can be held
    // side by side (heap/jvm_check.h).
    bool any_full = false;
    for (const GcRecord& gc : gcs) {
        if (gc.kind != static_cast<uint8_t>(format::GcKind::kMajor)) continue;
        const float x = timelineX(layout, gc.end_ns);
        out.lines.push_back({{x, plot.min.y}, {x, plot.max.y}, 1.0f, kFullGcLine});
        any_full = true;
    }
    // The JVM's heap in use after each GC, where the trace has its figures.
    bool any_jvm = false;
    previous = glm::vec2{0.0f};
    for (const GcRecord& gc : gcs) {
        if (gc.jvm < 0) continue;
        const glm::vec2 p{timelineX(layout, gc.end_ns),
                          timelineY(layout, static_cast<double>(gc.vm_heap_after))};
        if (any_jvm) out.lines.push_back({previous, p, 1.0f, kJvmLine});
        previous = p;
        any_jvm = true;
    }
    // Reachable bytes: a line through the GCs with a snapshot, with a dot at each.
    bool any_reachable = false;
    previous = glm::vec2{0.0f};
    for (const GcRecord& gc : gcs) {
        if (!gc.has_snapshot) continue;
        const glm::vec2 p{timelineX(layout, gc.end_ns),
                          timelineY(layout, static_cast<double>(gc.reachable_bytes))};
        if (any_reachable) out.lines.push_back({previous, p, 1.5f, kReachableLine});
        out.rects.push_back({p - glm::vec2(1.5f), p + glm::vec2(1.5f), kReachableLine, 0, render::kFlagNone});
        previous = p;
        any_reachable = true;
    }

    // Pauses: a bar from start_ns to end_ns (at least a pixel) in the strip; a tick per GC.
    uint64_t longest = 0;
    for (const GcRecord& gc : gcs)
        longest = std::max(longest, gc.pause_ns);
    const PixelRect& strip = layout.pause_strip;
    for (const GcRecord& gc : gcs) {
        float x0 = timelineX(layout, gc.start_ns), x1 = timelineX(layout, gc.end_ns);
        if (x1 - x0 < 1.0f) x0 = 0.5f * (x0 + x1) - 0.5f, x1 = x0 + 1.0f;
        float h = strip.height();
        if (options.proportional_pauses)
            h = longest > 0 ? std::max(1.0f, h * static_cast<float>(static_cast<double>(gc.pause_ns) /
                                                                    static_cast<double>(longest)))
                            : 1.0f;
        if (strip.height() > 0)
            out.rects.push_back(
                {{x0, strip.max.y - h}, {x1, strip.max.y}, kPauseColor, gc.index, render::kFlagNone});
        const float xe = timelineX(layout, gc.end_ns);
        out.lines.push_back({{xe, plot.max.y}, {xe, plot.max.y + 3.0f}, 1.0f, palette::kTextDim});
    }

    // The cursor (its label goes last, over the legend).
    std::optional<render::Label> cursor_label;
    scene.cursor_x = timelineCursorX(layout, options.t);
    if (options.cursor && !gcs.empty()) {
        out.lines.push_back(
            {{scene.cursor_x, layout.top_row.min.y}, {scene.cursor_x, strip.max.y}, 1.5f, kCursorColor});
        // "GC 12.5" right of the line in the row above the plot, or left of it near the right edge.
        std::string text = "GC " + trimmed(options.t, 2);
        const float w = textWidth(options.measure, text, label_px);
        const bool right = scene.cursor_x + 3.0f + w <= layout.viewport.max.x;
        render::Label label =
            makeLabel({scene.cursor_x + (right ? 3.0f : -3.0f), layout.top_row.center().y}, std::move(text),
                      palette::kText, label_px,
                      right ? render::TextAnchor::kLeftCenter : render::TextAnchor::kRightCenter);
        label.background = palette::withAlpha(palette::kPanel, 230);
        cursor_label = std::move(label);
    }

    // Legend: the row above the plot, right-aligned, one entry per series and window kind shown.
    if (options.legend) {
        std::vector<std::pair<std::string, uint32_t>> entries = {
            {estimates ? "live \u2248 (95% interval)" : "live", kLiveLine}};
        // (A sampled recording's reachable bytes are not estimates: its snapshots make the heap whole.)
        if (any_reachable) entries.push_back({estimates ? "reachable (exact)" : "reachable", kReachableLine});
        if (any_jvm) entries.push_back({"JVM used", kJvmLine});
        if (any_full) entries.push_back({"full GC", render::rgba(255, 255, 255, 140)});
        bool leak = false, overhead = false, churn = false;
        for (const Window& w : windows) {
            leak = leak || w.kind == WindowKind::kLeakRegression || w.kind == WindowKind::kLeakHeuristic;
            overhead = overhead || w.kind == WindowKind::kGcOverhead;
            churn = churn || w.kind == WindowKind::kChurn;
        }
        if (leak) entries.push_back({"leak", render::rgba(213, 94, 0)});
        if (overhead) entries.push_back({"GC overhead", render::rgba(240, 228, 66)});
        if (churn) entries.push_back({"churn", render::rgba(204, 121, 167)});
        // Left-aligned, so the cursor's label (at the right end when t is the last GC) never hides it.
        float x = plot.min.x;
        const float y = layout.top_row.center().y;
        for (const auto& [text, color] : entries) {
            out.rects.push_back(
                {{x, y - 4.0f}, {x + 8.0f, y + 4.0f}, palette::withAlpha(color, 255), 0, render::kFlagNone});
            x += 12.0f;
            out.labels.push_back(
                makeLabel({x, y}, text, palette::kText, label_px, render::TextAnchor::kLeftCenter));
            x += textWidth(options.measure, text, label_px) + 14.0f;
        }
    }
    if (cursor_label) out.labels.push_back(std::move(*cursor_label));
    for (uint32_t pin : options.pins) {
        const float x = timelineCursorX(layout, static_cast<double>(pin));
        out.lines.push_back({{x, plot.min.y}, {x, plot.max.y}, 1.5f, palette::kTextDim});
        render::Label l;
        l.pos = {x + 3.0f, plot.min.y};
        l.text = std::to_string(pin);
        l.color = palette::kTextDim;
        l.size_px = options.pin_label_px;
        out.labels.push_back(std::move(l));
    }
    return scene;
}

}  // namespace memcity::scene
