// The memory timeline: layout (time and bytes to pixels, the cursor, scrubbing back to GC time)
// and its draw list (live area, reachable line, pauses, window bands, range, axes, legend), on
// hand-made GC records with exact answers.
#include <gtest/gtest.h>

#include <algorithm>
#include <map>

#include "scene/palette.h"
#include "scene/timeline_scene.h"

namespace memcity::scene {
namespace {

constexpr uint64_t kKiB = 1024;

GcRecord gcRecord(uint32_t index, int64_t start, int64_t end, uint64_t live,
                  std::optional<uint64_t> reachable) {
    GcRecord g;
    g.index = index;
    g.start_ns = start;
    g.end_ns = end;
    g.pause_ns = static_cast<uint64_t>(end - start);
    g.live_bytes = live;
    g.has_snapshot = reachable.has_value();
    g.reachable_bytes = reachable.value_or(0);
    return g;
}

// Four GCs over 1,000..16,000 ns; snapshots at GCs 0, 2 and 3.
std::vector<GcRecord> fourGcs() {
    return {gcRecord(0, 1000, 2000, 100 * kKiB, 80 * kKiB), gcRecord(1, 5000, 5500, 200 * kKiB, std::nullopt),
            gcRecord(2, 9000, 11000, 150 * kKiB, 120 * kKiB),
            gcRecord(3, 15000, 16000, 300 * kKiB, 250 * kKiB)};
}

constexpr PixelRect kViewport{{0.0f, 0.0f}, {800.0f, 300.0f}};

// The plot: 6 px padding, a 16 px row for the legend on top, 64 px of bytes labels on the left,
// 18 px of time labels and a 10 px pause strip at the bottom.
constexpr float kPlotLeft = 70.0f, kPlotRight = 794.0f, kPlotTop = 22.0f, kPlotBottom = 266.0f;

float xOf(int64_t ns) {
    return kPlotLeft + static_cast<float>(ns - 1000) / 15000.0f * (kPlotRight - kPlotLeft);
}

TEST(TimelineLayout, MapsTimeAndBytesToThePlot) {
    const std::vector<GcRecord> gcs = fourGcs();
    const TimelineLayout l = layoutTimeline(gcs, kViewport);
    EXPECT_EQ(l.plot.min, glm::vec2(kPlotLeft, kPlotTop));
    EXPECT_EQ(l.plot.max, glm::vec2(kPlotRight, kPlotBottom));
    EXPECT_EQ(l.top_row.min, glm::vec2(kPlotLeft, 6.0f));
    EXPECT_EQ(l.top_row.max, glm::vec2(kPlotRight, kPlotTop));
    EXPECT_EQ(l.pause_strip.min, glm::vec2(kPlotLeft, kPlotBottom));
    EXPECT_EQ(l.pause_strip.max, glm::vec2(kPlotRight, kPlotBottom + 10.0f));
    EXPECT_EQ(l.t0_ns, 1000);
    EXPECT_EQ(l.t1_ns, 16000);
    // 300 KiB at most: steps of 100 KiB up to 300 KiB.
    EXPECT_EQ(l.byte_step, 100 * kKiB);
    EXPECT_EQ(l.max_bytes, 300 * kKiB);
    EXPECT_FLOAT_EQ(timelineX(l, 1000), kPlotLeft);
    EXPECT_FLOAT_EQ(timelineX(l, 16000), kPlotRight);
    EXPECT_FLOAT_EQ(timelineY(l, 0), kPlotBottom);
    EXPECT_FLOAT_EQ(timelineY(l, 300.0 * kKiB), kPlotTop);
    EXPECT_FLOAT_EQ(timelineY(l, 150.0 * kKiB), 0.5f * (kPlotTop + kPlotBottom));
}

TEST(TimelineLayout, CursorSitsAtTheGcsEndAndScrubbingInvertsIt) {
    const std::vector<GcRecord> gcs = fourGcs();
    const TimelineLayout l = layoutTimeline(gcs, kViewport);
    for (uint32_t k = 0; k < gcs.size(); ++k) {
        EXPECT_FLOAT_EQ(timelineCursorX(l, k), xOf(gcs[k].end_ns)) << "GC " << k;
        EXPECT_NEAR(timelineGcAt(l, xOf(gcs[k].end_ns)), k, 1e-4) << "GC " << k;
    }
    // Between GCs: linear in the end times (GC 1 ends at 5,500, GC 2 at 11,000).
    EXPECT_FLOAT_EQ(timelineCursorX(l, 1.5), xOf(8250));
    for (double t = 0; t <= 3.0; t += 0.125)
        EXPECT_NEAR(timelineGcAt(l, timelineCursorX(l, t)), t, 1e-4) << t;
    // Clamped: before GC 0's end, and past the end.
    EXPECT_EQ(timelineGcAt(l, kPlotLeft), 0.0);
    EXPECT_EQ(timelineGcAt(l, 0.0f), 0.0);
    EXPECT_EQ(timelineGcAt(l, 2000.0f), 3.0);
    EXPECT_FLOAT_EQ(timelineCursorX(l, -1.0), xOf(2000));
    EXPECT_FLOAT_EQ(timelineCursorX(l, 7.0), xOf(16000));
}

TEST(TimelineLayout, AcceptsDegenerateSeries) {
    const TimelineLayout empty = layoutTimeline({}, kViewport);
    EXPECT_EQ(timelineGcAt(empty, 100.0f), 0.0);
    EXPECT_FLOAT_EQ(timelineCursorX(empty, 2.0), empty.plot.min.x);
    render::DrawList dl;
    buildTimelineScene(empty, {}, {}, {}, dl);
    EXPECT_TRUE(dl.triangles.empty());
    // One GC, and equal timestamps (a heap dump): a second's range, no division by zero.
    const std::vector<GcRecord> one = {gcRecord(0, 500, 500, 10, std::nullopt)};
    const TimelineLayout l = layoutTimeline(one, kViewport);
    EXPECT_EQ(l.t1_ns, l.t0_ns + 1'000'000'000);
    EXPECT_EQ(timelineGcAt(l, 400.0f), 0.0);
    EXPECT_EQ(l.max_bytes, 10u);
    render::DrawList d1;
    buildTimelineScene(l, one, {}, {}, d1);
    EXPECT_FALSE(d1.lines.empty());
    // Its axis reads in times a person reads, not fractions of a nanosecond.
    for (const render::Label& label : d1.labels)
        EXPECT_EQ(label.text.find(" ns"), std::string::npos) << label.text;
}

TEST(TimelineScene, LiveAreaReachableLineAndPauses) {
    const std::vector<GcRecord> gcs = fourGcs();
    const TimelineLayout l = layoutTimeline(gcs, kViewport);
    render::DrawList dl;
    TimelineSceneOptions o;
    o.legend = false;
    buildTimelineScene(l, gcs, {}, o, dl);
    // Live bytes: two triangles per pair of GCs, from the baseline up to the points.
    ASSERT_EQ(dl.triangles.size(), 6u * 3u);
    for (size_t k = 0; k + 1 < gcs.size(); ++k) {
        const glm::vec2 a{xOf(gcs[k].end_ns), timelineY(l, static_cast<double>(gcs[k].live_bytes))};
        const glm::vec2 b{xOf(gcs[k + 1].end_ns), timelineY(l, static_cast<double>(gcs[k + 1].live_bytes))};
        EXPECT_NEAR(dl.triangles[6 * k + 1].pos.x, a.x, 1e-3f);
        EXPECT_NEAR(dl.triangles[6 * k + 1].pos.y, a.y, 1e-3f);
        EXPECT_NEAR(dl.triangles[6 * k + 2].pos.x, b.x, 1e-3f);
        EXPECT_NEAR(dl.triangles[6 * k + 2].pos.y, b.y, 1e-3f);
        EXPECT_FLOAT_EQ(dl.triangles[6 * k].pos.y, kPlotBottom);
    }
    // The polyline over it, and the reachable line through the three snapshots (two segments).
    std::map<uint32_t, size_t> by_color;
    for (const render::Line2D& line : dl.lines)
        ++by_color[line.color];
    EXPECT_EQ(by_color[render::rgba(86, 180, 233)], 3u);
    EXPECT_EQ(by_color[render::rgba(0, 158, 115)], 2u);
    // Pause bars: one per GC in the strip, the longest (GC 2, 2,000 ns) full height; ids = GC index.
    std::vector<render::Rect> pauses;
    for (const render::Rect& r : dl.rects)
        if (r.min.y >= kPlotBottom) pauses.push_back(r);
    ASSERT_EQ(pauses.size(), 4u);
    for (size_t k = 0; k < 4; ++k) {
        EXPECT_EQ(pauses[k].id, k);
        EXPECT_FLOAT_EQ(pauses[k].max.y, kPlotBottom + 10.0f);
        EXPECT_NEAR(pauses[k].max.y - pauses[k].min.y, 10.0f * static_cast<float>(gcs[k].pause_ns) / 2000.0f,
                    1e-4f);
        EXPECT_NEAR(pauses[k].min.x, xOf(gcs[k].start_ns), 1e-3f);
        EXPECT_NEAR(pauses[k].max.x, xOf(gcs[k].end_ns), 1e-3f);
    }
    // Fixed ticks instead.
    o.proportional_pauses = false;
    render::DrawList fixed;
    buildTimelineScene(l, gcs, {}, o, fixed);
    for (const render::Rect& r : fixed.rects)
        if (r.min.y >= kPlotBottom) {
            EXPECT_FLOAT_EQ(r.max.y - r.min.y, 10.0f);
        }
    // Reachable dots at the snapshots only.
    size_t dots = 0;
    for (const render::Rect& r : dl.rects)
        dots += r.color == render::rgba(0, 158, 115);
    EXPECT_EQ(dots, 3u);
}

// Each pinned GC: a line across the plot at the cursor's place for that GC, and its number.
TEST(TimelineScene, PinsAreLinesWithTheirNumbers) {
    const std::vector<GcRecord> gcs = fourGcs();
    const TimelineLayout l = layoutTimeline(gcs, kViewport);
    TimelineSceneOptions o;
    o.cursor = false;
    render::DrawList without;
    buildTimelineScene(l, gcs, {}, o, without);
    o.pins = {1, 3};
    o.pin_label_px = 12.0f;
    render::DrawList with;
    buildTimelineScene(l, gcs, {}, o, with);
    ASSERT_EQ(with.lines.size(), without.lines.size() + 2);
    ASSERT_EQ(with.labels.size(), without.labels.size() + 2);
    for (size_t k = 0; k < 2; ++k) {
        const render::Line2D& line = with.lines[without.lines.size() + k];
        const float x = timelineCursorX(l, static_cast<double>(o.pins[k]));
        EXPECT_FLOAT_EQ(line.a.x, x);
        EXPECT_FLOAT_EQ(line.b.x, x);
        EXPECT_FLOAT_EQ(line.a.y, l.plot.min.y);
        EXPECT_FLOAT_EQ(line.b.y, l.plot.max.y);
        const render::Label& label = with.labels[without.labels.size() + k];
        EXPECT_EQ(label.text, std::to_string(o.pins[k]));
        EXPECT_FLOAT_EQ(label.size_px, 12.0f);
    }
}

TEST(TimelineScene, WindowBandsSpanTheirGcs) {
    const std::vector<GcRecord> gcs = fourGcs();
    const TimelineLayout l = layoutTimeline(gcs, kViewport);
    std::vector<Window> windows(3);
    // A leak window from GC 1's end to GC 3's end; GC overhead from the run's start to GC 1's end;
    // its narrowed sub-window GCs 2..3.
    windows[0].kind = WindowKind::kLeakHeuristic;
    windows[0].first_gc = 1, windows[0].last_gc = 3;
    windows[0].start_ns = 5500, windows[0].end_ns = 16000;
    windows[1].kind = WindowKind::kLeakHeuristic;
    windows[1].narrowed = true;
    windows[1].first_gc = 2, windows[1].last_gc = 3;
    windows[1].start_ns = 11000, windows[1].end_ns = 16000;
    windows[2].kind = WindowKind::kGcOverhead;
    windows[2].first_gc = 0, windows[2].last_gc = 1;
    windows[2].start_ns = 1000, windows[2].end_ns = 5500;
    render::DrawList dl;
    const TimelineScene scene = buildTimelineScene(l, gcs, windows, {}, dl);
    ASSERT_EQ(scene.window_bands.size(), 3u);
    for (size_t i = 0; i < 2; ++i) {
        EXPECT_FLOAT_EQ(scene.window_bands[i].min.x, timelineCursorX(l, windows[i].first_gc));
        EXPECT_FLOAT_EQ(scene.window_bands[i].max.x, timelineCursorX(l, windows[i].last_gc));
    }
    EXPECT_FLOAT_EQ(scene.window_bands[2].min.x, kPlotLeft);
    EXPECT_FLOAT_EQ(scene.window_bands[2].max.x, timelineCursorX(l, 1));
    for (const PixelRect& band : scene.window_bands) {
        EXPECT_FLOAT_EQ(band.min.y, kPlotTop);
        EXPECT_FLOAT_EQ(band.max.y, kPlotBottom);
    }
    // Drawn translucent, with the window's index as id, narrowed leak windows stronger.
    size_t bands = 0;
    for (const render::Rect& r : dl.rects) {
        for (size_t i = 0; i < windows.size(); ++i) {
            if (r.min != scene.window_bands[i].min || r.max != scene.window_bands[i].max) continue;
            EXPECT_EQ(r.id, i);
            EXPECT_EQ(r.color, windowColor(windows[i].kind, windows[i].narrowed));
            EXPECT_LT(render::alphaOf(r.color), 255);
            ++bands;
        }
    }
    EXPECT_EQ(bands, 3u);
    EXPECT_GT(render::alphaOf(windowColor(WindowKind::kLeakRegression, true)),
              render::alphaOf(windowColor(WindowKind::kLeakRegression)));
    // The legend names the kinds present.
    std::vector<std::string> texts;
    for (const render::Label& label : dl.labels)
        texts.push_back(label.text);
    for (const char* name : {"live", "reachable", "leak", "GC overhead"})
        EXPECT_NE(std::find(texts.begin(), texts.end(), name), texts.end()) << name;
    EXPECT_EQ(std::find(texts.begin(), texts.end(), "churn"), texts.end());
}

TEST(TimelineScene, FoundWindowsSpanTheirGcs) {
    // 40 GCs, 100 us apart, each pausing 5 us; live memory flat for 20 GCs, then growing.
    std::vector<GcRecord> gcs;
    for (uint32_t k = 0; k < 40; ++k) {
        const int64_t start = 100'000 * (k + 1);
        const uint64_t live = (k < 20 ? 1000 : 1000 + 300 * (k - 19)) * kKiB;
        gcs.push_back(gcRecord(k, start, start + 5'000, live, std::nullopt));
    }
    auto report = findWindows(gcs);
    ASSERT_TRUE(report.ok());
    ASSERT_FALSE(report->windows.empty());
    const TimelineLayout l = layoutTimeline(gcs, {{0.0f, 0.0f}, {1000.0f, 200.0f}});
    render::DrawList dl;
    const TimelineScene scene = buildTimelineScene(l, gcs, report->windows, {}, dl);
    ASSERT_EQ(scene.window_bands.size(), report->windows.size());
    bool leak = false;
    for (size_t i = 0; i < report->windows.size(); ++i) {
        const Window& w = report->windows[i];
        const PixelRect& band = scene.window_bands[i];
        EXPECT_FLOAT_EQ(band.min.x, timelineX(l, w.start_ns));
        EXPECT_FLOAT_EQ(band.max.x, timelineX(l, w.end_ns));
        EXPECT_FLOAT_EQ(band.max.x, timelineCursorX(l, w.last_gc));
        if (w.kind == WindowKind::kLeakRegression || w.kind == WindowKind::kLeakHeuristic) {
            leak = true;
            EXPECT_FLOAT_EQ(band.min.x, timelineCursorX(l, w.first_gc));
            EXPECT_NEAR(timelineGcAt(l, band.min.x), w.first_gc, 1e-3);
        }
    }
    EXPECT_TRUE(leak);
    // Bytes labels in MiB (at most 7 MiB here).
    bool mib = false;
    for (const render::Label& label : dl.labels)
        mib = mib || label.text.ends_with(" MiB");
    EXPECT_TRUE(mib);
}

TEST(TimelineScene, CursorRangeAndAxes) {
    const std::vector<GcRecord> gcs = fourGcs();
    const TimelineLayout l = layoutTimeline(gcs, kViewport);
    TimelineSceneOptions o;
    o.t = 2.5;
    o.range_from = 1;
    o.range_to = 2;
    render::DrawList dl;
    const TimelineScene scene = buildTimelineScene(l, gcs, {}, o, dl);
    EXPECT_FLOAT_EQ(scene.cursor_x, xOf(13500));
    bool cursor = false;
    for (const render::Line2D& line : dl.lines)
        cursor =
            cursor || (line.color == palette::kSelection && line.a.x == scene.cursor_x &&
                       line.b.x == scene.cursor_x && line.a.y == 6.0f && line.b.y == kPlotBottom + 10.0f);
    EXPECT_TRUE(cursor);
    ASSERT_TRUE(scene.range_band.has_value());
    EXPECT_FLOAT_EQ(scene.range_band->min.x, timelineCursorX(l, 1));
    EXPECT_FLOAT_EQ(scene.range_band->max.x, timelineCursorX(l, 2));
    // Axis labels: bytes on the left, trace time (since the recording began, as everywhere) at
    // round values at the bottom: the plot starts at 1 us, so no "0 s".
    std::vector<std::string> texts;
    for (const render::Label& label : dl.labels)
        texts.push_back(label.text);
    EXPECT_EQ(std::find(texts.begin(), texts.end(), "0 s"), texts.end());
    for (const char* text : {"0 B", "100 KiB", "200 KiB", "300 KiB", "2 us", "14 us", "GC 2.5"})
        EXPECT_NE(std::find(texts.begin(), texts.end(), text), texts.end()) << text;
    const auto us =
        std::count_if(texts.begin(), texts.end(), [](const std::string& t) { return t.ends_with(" us"); });
    EXPECT_GE(us, 3);
}

TEST(TimelineScene, AxisTexts) {
    EXPECT_EQ(formatAxisBytes(0), "0 B");
    EXPECT_EQ(formatAxisBytes(512), "512 B");
    EXPECT_EQ(formatAxisBytes(1536), "1.5 KiB");
    EXPECT_EQ(formatAxisBytes(256.0 * 1024 * 1024), "256 MiB");
    EXPECT_EQ(formatAxisBytes(2.0 * 1024 * 1024 * 1024), "2 GiB");
    EXPECT_EQ(formatAxisSeconds(0), "0 s");
    EXPECT_EQ(formatAxisSeconds(1.5e9), "1.5 s");
    EXPECT_EQ(formatAxisSeconds(250e6), "250 ms");
    EXPECT_EQ(formatAxisSeconds(40e3), "40 us");
    EXPECT_EQ(formatAxisSeconds(500), "500 ns");
}

}  // namespace
}  // namespace memcity::scene
