// The memory timeline (STAG20 §5.4; suspicious windows of VMIL19) as
// render::DrawList data: time runs left to right from the first GC's start to the last GC's end,
// bytes bottom to top.
//
// Drawn, back to front: the selected GC range and the suspicious windows as translucent bands
// (leak / GC overhead / churn, narrowed leak windows stronger), the grid, live bytes after each
// GC (GcRecord::live_bytes at end_ns) as a filled area under a polyline (a sampled recording's
// with its 95% interval as a lighter band: TimelineLayoutOptions::estimates), reachable bytes as a
// line through the GCs with a snapshot (a dot at each; a sampled recording's are exact, its
// snapshot making the heap whole, and the legend says so), GC pauses as thin bars in a strip under
// the plot (from start_ns to end_ns, height ∝ pause_ns or a fixed tick), a tick per GC on the
// time axis, the cursor at fractional GC time t (labelled in the row above the plot), axis labels
// (time in s / ms / us from the first GC's start, bytes in B / KiB / MiB / GiB; a label that
// would leave the viewport is left out) and a legend in the row above the plot.
//
// GC time: a fractional GC index into `gcs` (GcRecord::index for HeapHistory::gcs()); GC k sits
// at its end_ns (its heap is the one after it), and between two GCs time is interpolated
// linearly between their end times.
#pragma once

#include <cstdint>
#include <optional>
#include <span>
#include <string>
#include <vector>

#include "heap/heap_state.h"
#include "render/draw_list.h"
#include "scene/screen.h"
#include "windows/windows.h"

namespace memcity::scene {

struct TimelineLayoutOptions {
    float padding_px = 6.0f;
    float axis_label_size_px = 11.0f;
    float top_px = 16.0f;          // a row above the plot for the legend and the cursor's label
    float left_axis_px = 64.0f;    // room for the bytes labels left of the plot
    float bottom_axis_px = 18.0f;  // room for the time labels under the pause strip
    float pause_strip_px = 10.0f;  // the GC pause bars' strip under the plot (0: none)
    // A sampled recording's GCs (heap/sampling.h): live bytes are estimates, drawn with their 95%
    // interval (GcRecord::live_sampled) as a band around the line, which the y range holds too,
    // and the legend says "live ≈ (95%)".
    bool estimates = false;
};

// Where things go in the viewport; pure geometry, kept for scrubbing (timelineGcAt).
struct TimelineLayout {
    PixelRect viewport;
    PixelRect top_row;               // above the plot: the legend (right) and the cursor's label
    PixelRect plot;                  // bytes over time
    PixelRect pause_strip;           // under the plot, same x range
    int64_t t0_ns = 0, t1_ns = 1;    // the x range: first GC's start .. last GC's end (t1 > t0)
    uint64_t max_bytes = 1;          // the y range 0 .. max_bytes (rounded up to the top grid line)
    uint64_t byte_step = 1;          // the grid step, bytes
    std::vector<int64_t> gc_end_ns;  // per GC of `gcs`
    TimelineLayoutOptions options;
};

// Lays the timeline of `gcs` (in GC order) out in `viewport` (pixels). Accepts any series:
// empty, one GC, equal or decreasing timestamps (the x range is then at least 1 ns wide).
TimelineLayout layoutTimeline(std::span<const GcRecord> gcs, PixelRect viewport,
                              const TimelineLayoutOptions& options = {});

// Pixel x of a time (ns, the trace's clock) and pixel y of a byte count; not clamped.
float timelineX(const TimelineLayout& layout, int64_t ns);
float timelineY(const TimelineLayout& layout, double bytes);
// Pixel x of fractional GC time t (clamped to the GCs): GC k's end_ns, linear in between.
float timelineCursorX(const TimelineLayout& layout, double t);
// The fractional GC time at pixel x, the inverse of timelineCursorX for x over the GCs' span;
// clamped to [0, GCs - 1] outside it (0 when there are no GCs).
double timelineGcAt(const TimelineLayout& layout, float x_pixel);

struct TimelineSceneOptions {
    double t = 0;  // the cursor's fractional GC time
    bool cursor = true;
    std::optional<uint32_t> range_from, range_to;  // the selected GCs, inclusive (both or none)
    bool proportional_pauses = true;  // bar height ∝ pause_ns (longest = the strip); false: a fixed tick
    bool legend = true;
    // GCs pinned for the timeline trees (STAG20 §5.4): a line across the chart each, with its number.
    std::vector<uint32_t> pins;
    float pin_label_px = 10.0f;
    MeasureText measure;  // text width in pixels; null: the 0.55 × size_px estimate
};

// What a built timeline drew, for tests and picking of windows.
struct TimelineScene {
    std::vector<PixelRect> window_bands;  // one per window of `windows`, in order
    std::optional<PixelRect> range_band;  // the selected GCs
    float cursor_x = 0.0f;
};

// Appends the timeline of `gcs` (those the layout was made from) to `out`. `windows` may be
// empty (WindowReport::windows). Rect ids: a window band carries the window's index in
// `windows`, a pause bar its GC's index, other rects 0.
TimelineScene buildTimelineScene(const TimelineLayout& layout, std::span<const GcRecord> gcs,
                                 std::span<const Window> windows, const TimelineSceneOptions& options,
                                 render::DrawList& out);

// The band colour of a window kind (translucent).
uint32_t windowColor(WindowKind kind, bool narrowed = false);

// Axis texts: "0 B", "512 B", "1.5 KiB", "256 MiB", "2 GiB"; and "0 s", "250 ms", "1.5 s", "40 us".
std::string formatAxisBytes(double bytes);
std::string formatAxisSeconds(double ns);

}  // namespace memcity::scene
