// A whole picture of one view at one moment: the city, the sunburst, the icicle or the timeline,
// with a title bar and, under the tree views, a strip of the timeline showing where in time the
// picture stands. `memcity render` draws these frames; the explorer's main view is the same.
//
// A ViewComposer is prepared once for a series and the options (the city's layout, its camera and
// the radial drill root are fixed then), and composes frames at any index time t: nothing but the
// tweened values changes between two frames, so an animation never moves the camera or a lot.
#pragma once

#include <array>
#include <memory>
#include <optional>
#include <span>
#include <string>
#include <string_view>
#include <vector>

#include "classify/series.h"
#include "heap/heap_state.h"
#include "render/draw_list.h"
#include "scene/camera.h"
#include "scene/city_layout.h"
#include "scene/city_scene.h"
#include "scene/city_state.h"
#include "scene/cohorts.h"
#include "scene/radial_layout.h"
#include "scene/radial_scene.h"
#include "scene/screen.h"
#include "scene/time_cursor.h"
#include "scene/timeline_scene.h"
#include "util/result.h"
#include "windows/windows.h"

namespace memcity::scene {

enum class ViewKind : uint8_t {
    kCity,      // the memory city: districts and buildings
    kSunburst,  // the local view (drill root + 2 levels) beside the global view
    kIcicle,    // the same as rows of rectangles
    kTimeline,  // live and reachable bytes, pauses, suspicious windows
    // STAG20's timeline-based view (§5.4): one small tree per pinned GC, side by side, the
    // cursor's GC always among them and marked, over the memory chart
    kTimelineTrees,
    // GCspy's heap map (scene/heap_map_scene.h): drawn from the heap's addresses, not the series,
    // so not by a ViewComposer
    kHeapMap,
};

// The one table of views: everything the render command, the explorer's menus and toolbar and
// the scripts know of a view. Adding a view: a ViewKind value, one row in kViews (views.cpp), and
// its drawing (ViewComposer::compose, or its own scene like the heap map).
struct ViewInfo {
    ViewKind kind;
    std::string_view name;     // as the CLI, scripts and settings spell it ("timeline-trees")
    std::string_view label;    // the explorer toolbar's radio button ("trees")
    std::string_view tooltip;  // the toolbar button's tooltip; empty: none
    bool window = true;        // the explorer's main view shows it (the timeline has its own panel)
    bool composed = true;      // drawn by a ViewComposer (the heap map has its own scene)
    bool diff = false;         // a heap diff (--diff-from, the diff window) colours it
};
// Every view, in the order the CLI lists them.
std::span<const ViewInfo> viewTable();
const ViewInfo& viewInfo(ViewKind kind);
std::string_view viewKindName(ViewKind kind);
// The views the explorer's main view shows (the timeline has its own panel).
inline bool isWindowView(ViewKind kind) {
    return viewInfo(kind).window;
}
// The names of the views (only the window views if window_only), joined by `separator` and the
// last two by `last`: viewNames(false, ", ", " or ") is "city, sunburst, ..., timeline-trees or heapmap".
std::string viewNames(bool window_only, std::string_view separator, std::string_view last);
// "city", "sunburst", "icicle", "timeline", "timeline-trees" or "heapmap"; the error lists them.
Result<ViewKind> parseViewKind(std::string_view name);

// What the views read. Contract: everything pointed to outlives the composer.
struct ViewInputs {
    const TreeSeries* series = nullptr;  // required
    std::span<const GcRecord> gcs;       // every GC of the trace (HeapHistory::gcs())
    std::span<const Window> windows;     // suspicious windows (may be empty)
    std::string title;                   // the trace's name, shown in the title bar
    std::string chain;                   // the classifier chain's spec, shown in the title bar
    // A sampled recording's interval (TraceHeader::sampling_interval, bytes; 0: every allocation
    // was recorded). The title bar then says "sampled: 1 per N" and shows the heap as an estimate
    // with its interval, the trees' headings are marked "≈", and the timeline draws the live
    // bytes' interval (scene/estimates.h).
    uint64_t sampling_interval = 0;
};

struct ViewOptions {
    ViewKind kind = ViewKind::kCity;
    Metric metric = Metric::kBytes;
    SortStrategy sort = SortStrategy::kGrowth;
    // Pruning of the sunburst and icicle (the paper's 90% / 9 / "Other"); the city shows far more
    // groups (city_prune) since it has room for tens of thousands of buildings.
    PruneOptions prune;
    PruneOptions city_prune{.share = 0.999, .max_children = 400, .enabled = true};
    // Colours show the growth over the last trend_window of the series' GCs before t (a share of
    // the series, at least one GC): what grows *now* stands out, not what grew at start-up.
    double trend_window = 0.25;
    std::string camera = "overview";          // city camera preset (cameraPresetNames())
    uint32_t drill_root = TreeSeries::kRoot;  // sunburst / icicle drill-down root (a series node)
    RadialScale scale = RadialScale::kUnscaled;
    uint32_t depth = 8;  // levels below the root: the city's deepest districts, the global view's rings
    bool title_bar = true;
    bool time_strip = true;          // a timeline strip under the city, sunburst and icicle
    std::vector<uint32_t> selected;  // node ids (or Other ids) drawn selected in every view
    // Node ids drawn highlighted in the city (the dominator view's selected row's buildings),
    // besides the hovered one.
    std::vector<uint32_t> highlighted;
    // Timeline trees: the pinned GCs (GC numbers of the series; others are ignored) and the shape
    // of each small tree (scale: kScaled by default for this view, so absolute growth shows).
    std::vector<uint32_t> pins;
    RadialShape trees_shape = RadialShape::kSunburst;
    // Timeline trees: the pinned GCs as small cities in a row instead (one layout, so a lot stands
    // at the same place in every city and growth jumps out; heights on one scale).
    bool trees_cities = false;
    MeasureText measure;  // text widths in pixels (the renderer's font); null: estimate
    // A heap diff laid onto the series (ICPE18 §5.3): the city, the sunburst and the icicle are
    // coloured by the cohort that dominates each group (born, died, permanent since its base GC)
    // instead of the trend, and the title bar says so. Null: the trend colours.
    std::shared_ptr<const SeriesDiff> diff;
};

// What a pixel of the last composed frame shows (ViewComposer::pick).
struct ViewPick {
    uint32_t id = 0;          // a series node id, or an Other id (kOtherBit | parent; otherParentOf)
    bool district = false;    // city: a district plate (id is its node)
    bool drill_root = false;  // sunburst / icicle: the centre disc or top row of the local view
    RadialView radial_view = RadialView::kLocal;  // sunburst / icicle: which of the two views
    uint32_t tree_gc = ~uint32_t{0};              // timeline trees: the GC of the tree picked
};

// How a frame went (for benchmarks and the explorer's status line).
struct ViewFrameStats {
    CitySceneStats city;
    size_t radial_items = 0;
};

class ViewComposer {
public:
    // Lays out what stays fixed for the series: the city's lots and its camera (for a viewport of
    // `size` pixels), the radial drill root. Errors: no series, an unknown camera preset, a
    // series without GCs.
    static Result<ViewComposer> prepare(const ViewInputs& inputs, const ViewOptions& options, glm::vec2 size);

    // Index time of the series (scene/time_cursor.h): 0 .. gcCount() - 1.
    double maxT() const { return cursor_.maxT(); }
    // The index time of GC number `gc` (between held GCs: interpolated; clamped to the series).
    double indexTimeOf(uint32_t gc) const { return cursor_.indexTimeOf(static_cast<double>(gc)); }

    // Clears `out` and draws the view at index time `t` (clamped) into it.
    ViewFrameStats compose(double t, render::DrawList& out);

    // What pixel `pixel` of the last composed frame shows, as compose drew it (the city at that
    // frame's t, exact buildings rather than merged boxes; the sunburst's and icicle's items).
    std::optional<ViewPick> pick(glm::vec2 pixel) const;
    // The rectangle the view itself takes (below the title bar, above the time strip).
    PixelRect mainRect() const;
    // Timeline trees: the GCs drawn at index time t, in order: the pins the series holds and the
    // GC at t (marked).
    std::vector<uint32_t> treeGcs(double t) const;
    void setPins(std::vector<uint32_t> pins) { options_.pins = std::move(pins); }
    // The last timeline-trees frame: its trees (as treeGcs said), one scene each.
    const std::vector<RadialScene>& treeScenes() const { return tree_scenes_; }
    // The last timeline-trees frame as cities (ViewOptions::trees_cities): one state per tree.
    const std::vector<CityState>& treeCities() const { return tree_cities_; }

    // The explorer's changes between frames; none of them lays the city out again.
    void setSelected(std::vector<uint32_t> ids) { options_.selected = std::move(ids); }
    void setHovered(uint32_t id) { hovered_ = id; }  // kNoPick: none
    void setHighlighted(std::vector<uint32_t> ids) { options_.highlighted = std::move(ids); }
    void setDrillRoot(uint32_t node) { options_.drill_root = node; }
    void setDiff(std::shared_ptr<const SeriesDiff> diff) { options_.diff = std::move(diff); }
    // A new picture size: the camera keeps its place and takes the new aspect.
    void resize(glm::vec2 size);
    OrbitCamera& camera() { return camera_; }
    const OrbitCamera& camera() const { return camera_; }
    // Puts the camera back to a preset (cameraPresetNames()). Error for an unknown name.
    Status resetCamera(std::string_view preset);

    const ViewOptions& options() const { return options_; }
    const ViewInputs& inputs() const { return inputs_; }
    const CityLayout& cityLayout() const { return city_layout_; }
    // The city as the last frame drew it (heights at its t).
    const CityState& cityState() const { return city_state_; }
    glm::vec2 size() const { return size_; }

private:
    ViewComposer() = default;
    void drawTitle(double t, render::DrawList& out) const;
    void drawTimeStrip(double t, PixelRect rect, render::DrawList& out) const;
    void drawRadial(double t, PixelRect rect, ViewFrameStats& stats, render::DrawList& out);
    void drawTimelineTrees(double t, PixelRect rect, ViewFrameStats& stats, render::DrawList& out);
    void drawPinnedCities(double t, PixelRect rect, ViewFrameStats& stats, render::DrawList& out);
    // "GC 12  1.5 MiB  (cursor)": a pinned tree's or city's heading.
    std::string treeHeading(uint32_t gc, bool current) const;
    // The world offset of the pinned city `index` along x.
    float pinnedCityOffset(size_t index) const;
    // The main view's camera matrices, its projection drawn into mainRect().
    render::CameraMatrices viewMatrices() const;
    // The index time the trend colours compare the value at t with, and how many GCs back it is.
    double trendFrom(double t) const;
    double trendGcs() const;

    ViewInputs inputs_;
    ViewOptions options_;
    glm::vec2 size_{0.0f};
    TimeCursor cursor_;
    CityLayout city_layout_;
    CityState city_state_;
    OrbitCamera camera_;
    uint32_t hovered_ = kNoPick;
    // The last frame's sunburst / icicle, local then global, for picking.
    std::array<RadialScene, 2> radial_scenes_;
    // The last frame's timeline trees (or cities) and their GCs.
    std::vector<RadialScene> tree_scenes_;
    std::vector<CityState> tree_cities_;
    std::vector<uint32_t> tree_gcs_;
};

// Moves a frame composed for a picture of rect's size into `rect` of a framebuffer of
// `framebuffer` pixels: 2D items shift by rect.min, the 3D projection draws into the rect.
void placeInRect(render::DrawList& list, PixelRect rect, glm::vec2 framebuffer);

}  // namespace memcity::scene
