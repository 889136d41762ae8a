// The sunburst and the icicle of a RadialLayout as render::DrawList data (STAG20), and
// picking a pixel back to the node (or "Other" group) under it.
//
// Sunburst: the layout's root is the centre disc, each deeper level a ring of the same
// thickness; fractions run clockwise from 12 o'clock. Icicle: rows of equal height top-down, the
// root on top, fractions left to right. The local and the global view side by side are two
// calls with two viewports (hover the same pick id in both to link them, as §4.3 does).
//
// Rules:
//   - colour by growth trend (the item's value at the series' first GC against its value at t,
//     palette::trendColor) or by top-level category (the node's ancestor just below the series
//     root, by its place in the sort order, palette::categoryColor, lighter one step per level);
//     or, with a diff (RadialSceneOptions::diff), by the cohort that dominates the item at the
//     diff's GC (cohortColor; an "Other" group: its folded children's sum);
//     "Other" groups are greyer than their siblings;
//   - gaps: sector_gap_px between neighbours along a ring / row (left out where a sector is
//     narrower than twice the gap) and ring_gap_px between rings / rows;
//   - global view drilled below the series root: items on the drill-down branch are drawn with
//     kFlagHighlighted, the others at off_branch_alpha, and the drill root carries a rim;
//   - labels only where they fit (checked with options.measure, or 0.55 × size_px per
//     character): icicle labels centred in their rectangle when it is wide and tall enough;
//     sunburst labels horizontal at the sector's mid-angle (12 o'clock for a whole ring) and
//     mid-radius when the arc length there is at least the text's width and the text's box
//     lies inside the sector; the centre disc's label at the centre; a label that
//     does not fit is shortened with ".." down to 3 characters, else left out;
//   - items with zero extent (value 0 at t) and slivers under a quarter pixel are not drawn.
#pragma once

#include <cstdint>
#include <vector>

#include "render/draw_list.h"
#include "scene/cohorts.h"
#include "scene/palette.h"
#include "scene/radial_layout.h"
#include "scene/screen.h"

namespace memcity::scene {

enum class RadialShape : uint8_t {
    kSunburst,  // rings of arcs around a centre disc
    kIcicle,    // rows of rectangles, top-down
};

enum class RadialColoring : uint8_t {
    kTrend,     // by growth from the series' first GC to t (the default: growth is what leaks show)
    kCategory,  // by the top-level node the item lies under, so a branch keeps one hue
};

// The angle of fraction 0 (12 o'clock) in draw_list.h's convention; fractions run clockwise.
inline constexpr float kSunburstStartAngle = -1.57079632679489661923f;
inline constexpr float kTwoPi = 6.28318530717958647692f;

struct RadialSceneOptions {
    RadialShape shape = RadialShape::kSunburst;
    RadialColoring coloring = RadialColoring::kTrend;
    TrendOptions trend;
    // The GC time (as TreeSeries::valueAt takes it) the trend compares the value at t with;
    // negative: the series' first GC.
    double trend_from = -1.0;
    // Colour by born / died / permanent instead (overrides `coloring`). Contract: laid onto the
    // layout's series.
    const SeriesDiff* diff = nullptr;
    float padding_px = 6.0f;     // between the viewport's edge and the chart
    float sector_gap_px = 1.5f;  // between neighbours along a ring / row, pixels
    float ring_gap_px = 1.0f;    // between rings / rows, pixels
    bool labels = true;
    float label_size_px = 12.0f;     // line height; never more than a ring / row
    bool breadcrumb = true;          // the drill-down path along the viewport's top edge
    MeasureText measure;             // text width in pixels; null: the 0.55 × size_px estimate
    std::vector<uint32_t> selected;  // pick ids (pickIdOf) drawn with kFlagSelected
    uint32_t hovered = kNoPick;      // a pick id drawn with kFlagHighlighted
    uint8_t off_branch_alpha = 80;   // global view: items off the drill-down branch
};

// Where a built scene put its items, for picking. Each item covers its nominal cell (gaps
// included, so the pointer never falls between two sectors of one ring).
struct RadialScene {
    RadialShape shape = RadialShape::kSunburst;
    PixelRect chart;                // the rings' bounding square / the rows' rectangle
    glm::vec2 center{0.0f};         // sunburst centre
    float ring_px = 0.0f;           // ring thickness (and the centre disc's radius) / row height
    uint32_t levels = 0;            // rings / rows
    std::vector<RadialItem> items;  // the layout's items
    std::vector<uint32_t> colors;   // fill of each item as drawn (0 when not drawn)
};

struct RadialHit {
    uint32_t item = kNoItem;     // index into the layout's items; kNoItem when nothing is hit
    uint32_t node = kNoNode;     // the node, or the "Other" group's parent
    bool other = false;          // an "Other" group
    uint32_t pick_id = kNoPick;  // pickIdOf(item)
};

// Appends the layout drawn in `viewport` (pixels) to `out`: arcs (sunburst) or rects (icicle) with
// ids = pick ids, then labels and the breadcrumb. `series` must be the one the layout came from.
RadialScene buildRadialScene(const TreeSeries& series, const RadialLayout& layout, PixelRect viewport,
                             const RadialSceneOptions& options, render::DrawList& out);

// The item under `pixel`, or a miss (outside the chart, beyond the last ring, in empty space).
RadialHit pickRadial(const RadialScene& scene, glm::vec2 pixel);

// The fill of an item before flags and dimming (exposed for legends and tests).
uint32_t radialItemColor(const TreeSeries& series, const RadialLayout& layout, const RadialItem& item,
                         RadialColoring coloring, const TrendOptions& trend = {}, double trend_from = -1.0);

}  // namespace memcity::scene
