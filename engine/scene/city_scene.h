// The city as a frame for the renderer: district plates and buildings as boxes (culled to the view
// and merged where they are too small to see apart), district labels and a colour legend, written
// into a render::DrawList; and picking against the same boxes.
//
// Culling: a district whose column (its plate up to the top of the city's bounds) lies outside the
// view frustum is skipped with everything inside it; otherwise each plate and building is tested
// on its own.
//
// Merging: a district of depth >= 1 whose largest building footprint (longest side) projects
// below merge_below_px pixels, seen from the nearest point of its plate, is drawn as its plate and
// ONE box for everything inside it (its buildings and the plates of its sub-districts):
//   footprint  the bounding rectangle of all its buildings' footprints (fixed over time);
//   height     the lot-weighted mean height: sum of footprint * height (from the district's plate
//              top) over the buildings drawn at t, divided by the sum of all their footprints
//              (an empty lot counts as height 0), so the box holds about the buildings' volume;
//   colour     the trend holding the most volume, with the volume-weighted mean of the buildings'
//              alphas (translucent when mostly unsuspicious);
//   id         the district's node id; selected / highlighted when the district or anything in it
//              is.
// From far away such a district is a few pixels wide, so the picture barely changes while the
// box count drops by the number of buildings merged.
#pragma once

#include <cstddef>
#include <cstdint>
#include <functional>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "render/draw_list.h"
#include "scene/camera.h"
#include "scene/city_layout.h"
#include "scene/city_state.h"
#include "scene/screen.h"

namespace memcity::scene {

struct CitySceneOptions {
    bool cull = true;             // drop boxes outside the view frustum
    bool merge = true;            // merge districts whose buildings all look small (see above)
    float merge_below_px = 3.0f;  // largest footprint side, pixels
    // Building ids (node ids, Other ids) and district node ids drawn with kFlagSelected /
    // kFlagHighlighted.
    std::vector<uint32_t> selected;
    std::vector<uint32_t> highlighted;

    bool labels = true;
    size_t max_labels = 48;
    float label_size_px = 16.0f;      // depth-1 districts; 2 px less per level deeper
    float min_label_size_px = 11.0f;  // never smaller
    // A district is labelled only when its plate is at least this wide on screen (pixels); a label
    // wider than the plate is cut short with "...".
    float min_label_district_px = 40.0f;
    // Width in pixels of `text` drawn at `size_px`; empty: 0.55 * size_px per character (UTF-8
    // code point).
    MeasureText measure_text;

    bool legend = true;  // the colours' meaning, bottom left
    // The legend's rows, top down; empty: the four trends, strongest growth first.
    std::vector<std::pair<std::string, uint32_t>> legend_rows;
    float legend_bottom_inset_px = 0.0f;  // the legend stays this far above the viewport's bottom
    float legend_size_px = 14.0f;         // its text size
    std::string legend_title = "growth since the first GC";
};

// What a frame holds and what it left out (counts of layout elements, not of pixels).
struct CitySceneStats {
    size_t plates = 0;            // district plates drawn
    size_t buildings = 0;         // buildings drawn one box each
    size_t merged_boxes = 0;      // boxes standing for merged districts
    size_t merged_buildings = 0;  // buildings drawn as part of a merged box
    size_t culled_plates = 0;     // plates outside the frustum
    size_t culled_buildings = 0;  // buildings outside the frustum (drawn at t or not)
    size_t hidden_buildings = 0;  // buildings holding nothing at t (alpha 0)
    size_t labels = 0;

    // Sums of several cities drawn in one frame (the pinned GCs as cities).
    CitySceneStats& operator+=(const CitySceneStats& o) {
        plates += o.plates, buildings += o.buildings, merged_boxes += o.merged_boxes;
        merged_buildings += o.merged_buildings, culled_plates += o.culled_plates;
        culled_buildings += o.culled_buildings, hidden_buildings += o.hidden_buildings, labels += o.labels;
        return *this;
    }
};

// Appends the city at `state` seen by `camera` in a viewport of `viewport` pixels to `out`
// (boxes, labels, rects) and sets out.camera and out.clear_color; it clears nothing.
// Contract: `state` was computed from `layout` (cityAt).
CitySceneStats buildCityDrawList(const CityLayout& layout, const CityState& state,
                                 const render::CameraMatrices& camera, glm::vec2 viewport,
                                 const CitySceneOptions& options, render::DrawList& out);

// The width of `text` at `size_px` as the scene estimates it (options.measure_text or 0.55 em per
// code point).
float textWidth(const CitySceneOptions& options, std::string_view text, float size_px);

// What a ray hits first in the exact (unmerged) city at `state`: a building drawn at t or a
// district plate.
struct CityHit {
    uint32_t id = 0;        // building id (node or Other id) or the district's node id
    bool district = false;  // true: a plate
    uint32_t index = 0;     // into layout.buildings or layout.districts
    float distance = 0;     // along the ray, world units
};
std::optional<CityHit> pickCity(const CityLayout& layout, const CityState& state, const Ray& ray);

}  // namespace memcity::scene
