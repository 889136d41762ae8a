// The city at one moment: every building's value, height, trend and colour at fractional index
// time t (scene/time_cursor.h), tweened between the two GCs around t. Footprints never change
// (they are the layout's); only heights, colours and alphas do.
//
// Rules (documented here, tested in tests/scene/test_city.cpp):
//  - value: linear between the GCs before and after t, v = v0 + (v1 - v0) * f (f = t - floor(t));
//    an Other building's value is its group's (CityBuilding::group_begin).
//  - height: h = H * v / sqrt(peak * global_peak), H = the layout's `height`, peak = the
//    building's own peak and global_peak the largest building peak, in the state's metric. The
//    biggest building is both the widest (its footprint) and, at its peak, the tallest (H); each
//    building's height is proportional to its value, so it grows and shrinks linearly over time;
//    at its peak a building is as much taller than another as it is wider (h ~ sqrt(peak),
//    side ~ sqrt(peak)), so no small building towers over big ones. `min_height` lifts buildings
//    holding anything to a visible minimum (0: off).
//  - colour: the growth trend (palette classifyTrend) from the value at index time `trend_from`
//    (default 0: the series' first GC) to the value at t, in the Okabe-Ito trend colours.
//  - or, with a diff (CityStateOptions::diff), the colour of the cohort that dominates the
//    building at the diff's GC (born, died or permanent since its base; an Other building: the
//    sum of its folded children), whatever t is;
//  - alpha: stable and shrinking buildings are "unsuspicious" and drawn with unsuspicious_alpha
//    when translucent_unsuspicious is on (the default), growing ones opaque; a building whose
//    node holds nothing at one of the two GCs around t fades in or out with the tween (alpha
//    times f when it appears, times 1 - f when it vanishes); holding nothing at t: alpha 0.
#pragma once

#include <cstdint>
#include <vector>

#include "scene/city_layout.h"
#include "scene/cohorts.h"
#include "scene/palette.h"

namespace memcity::scene {

struct CityStateOptions {
    Metric metric = Metric::kBytes;  // what heights and trends read (footprints are the layout's)
    double trend_from = 0.0;         // index time the trend compares with
    TrendOptions trend;
    bool translucent_unsuspicious = true;  // stable and shrinking buildings drawn translucent
    uint8_t unsuspicious_alpha = 90;       // their alpha (0..255)
    float min_height = 0.0f;               // world units; buildings holding anything are at least this tall
    // Colour by the cohort that dominates each building instead of the trend (born buildings
    // opaque, the others "unsuspicious"). Contract: laid onto the layout's series.
    const SeriesDiff* diff = nullptr;
};

struct BuildingState {
    double value = 0;  // at t, in the state's metric (objects or bytes)
    float height = 0;  // world units above the building's base
    Trend trend = Trend::kStable;
    uint8_t alpha = 0;   // 0: not drawn (holds nothing at t)
    uint32_t color = 0;  // trend colour with `alpha`
};

struct CityState {
    double t = 0;  // index time, clamped to the series
    Metric metric = Metric::kBytes;
    std::vector<BuildingState> buildings;  // one per CityLayout::buildings, same order
    std::vector<double> district_values;   // per district: the sum of its buildings' values at t

    // Reused between calls so a frame allocates nothing.
    std::vector<SeriesCounts> scratch_before, scratch_after;
};

// Fills `out` with the city at index time `t` (clamped to [0, gcCount() - 1]). Contract: `series`
// is the one `layout` was built from. Reads two of the series' columns (four when trend_from is
// fractional) and touches each node once: O(nodes).
void cityAt(const CityLayout& layout, const TreeSeries& series, double t, const CityStateOptions& options,
            CityState& out);
CityState cityAt(const CityLayout& layout, const TreeSeries& series, double t,
                 const CityStateOptions& options = {});

// The box of building `index` at `state` (footprint, base to base + height).
Bounds buildingBounds(const CityLayout& layout, const CityState& state, size_t index);

}  // namespace memcity::scene
