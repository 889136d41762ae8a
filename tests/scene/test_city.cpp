// The city: layout (treemap, streets, pruning, Other), the state at fractional t (heights, tween,
// fade, trends), and what the draw list holds (fixed footprints, merging, labels, legend).
#include <gtest/gtest.h>

#include <cmath>
#include <map>
#include <set>

#include "scene/city_layout.h"
#include "scene/city_scene.h"
#include "scene/city_state.h"
#include "scene/scene_fixture.h"
#include "scene/time_cursor.h"

namespace memcity::scene {
namespace {

using testing::Fixture;
using testing::fixtureOf;
using testing::kOther;
using testing::kRun;

CityLayout layoutOf(const TreeSeries& s, const CityLayoutOptions& o = {}) {
    auto l = buildCityLayout(s, o);
    if (!l) {
        ADD_FAILURE() << l.error().message;
        std::abort();
    }
    return std::move(*l);
}

uint32_t buildingOf(const CityLayout& l, uint32_t id) {
    const uint32_t b = l.findBuilding(id);
    EXPECT_NE(b, kNoIndex) << "no building " << id;
    return b;
}

bool inside(float x0, float z0, float x1, float z1, float ox0, float oz0, float ox1, float oz1) {
    const float eps = 1e-3f;
    return x0 >= ox0 - eps && z0 >= oz0 - eps && x1 <= ox1 + eps && z1 <= oz1 + eps;
}

bool overlap(const CityBuilding& a, const CityBuilding& b) {
    const float eps = 1e-3f;
    return a.x0 < b.x1 - eps && b.x0 < a.x1 - eps && a.z0 < b.z1 - eps && b.z0 < a.z1 - eps;
}

// Structure every layout keeps: children inside their parents, no two buildings or sibling
// districts overlapping, ranges as documented.
void expectSound(const CityLayout& l) {
    ASSERT_FALSE(l.districts.empty());
    EXPECT_EQ(l.districts[0].parent, kNoIndex);
    EXPECT_EQ(l.districts[0].district_end, l.districts.size());
    EXPECT_EQ(l.districts[0].building_end, l.buildings.size());
    for (size_t i = 0; i < l.districts.size(); ++i) {
        const CityDistrict& d = l.districts[i];
        EXPECT_LT(d.x0, d.x1);
        EXPECT_LT(d.z0, d.z1);
        EXPECT_FLOAT_EQ(d.y0, static_cast<float>(d.depth) * l.options.plate_height);
        for (uint32_t b = d.building_begin; b < d.direct_end; ++b)
            EXPECT_EQ(l.buildings[b].district, i);
        for (uint32_t b = d.building_begin; b < d.building_end; ++b) {
            const CityBuilding& x = l.buildings[b];
            EXPECT_TRUE(inside(x.x0, x.z0, x.x1, x.z1, d.x0, d.z0, d.x1, d.z1)) << "building " << b;
            EXPECT_GT(x.area(), 0.0f);
        }
        for (uint32_t c = static_cast<uint32_t>(i) + 1; c < d.district_end; ++c) {
            const CityDistrict& k = l.districts[c];
            EXPECT_TRUE(inside(k.x0, k.z0, k.x1, k.z1, d.x0, d.z0, d.x1, d.z1)) << "district " << c;
            EXPECT_GT(k.depth, d.depth);
            EXPECT_GE(k.building_begin, d.direct_end);
            EXPECT_LE(k.building_end, d.building_end);
        }
        if (d.parent != kNoIndex) {
            EXPECT_EQ(l.districts[d.parent].depth + 1, d.depth);
        }
    }
    for (size_t a = 0; a < l.buildings.size(); ++a)
        for (size_t b = a + 1; b < l.buildings.size(); ++b)
            EXPECT_FALSE(overlap(l.buildings[a], l.buildings[b])) << a << " and " << b;
    // Sibling districts do not overlap (nor buildings beside them: a building and a district
    // under the same parent).
    for (size_t a = 1; a < l.districts.size(); ++a) {
        const CityDistrict& da = l.districts[a];
        for (size_t b = a + 1; b < l.districts.size(); ++b) {
            const CityDistrict& db = l.districts[b];
            if (da.parent != db.parent) continue;
            EXPECT_FALSE(da.x0 < db.x1 - 1e-3f && db.x0 < da.x1 - 1e-3f && da.z0 < db.z1 - 1e-3f &&
                         db.z0 < da.z1 - 1e-3f);
        }
        const CityDistrict& p = l.districts[da.parent];
        for (uint32_t b = p.building_begin; b < p.direct_end; ++b) {
            const CityBuilding& x = l.buildings[b];
            EXPECT_FALSE(x.x0 < da.x1 - 1e-3f && da.x0 < x.x1 - 1e-3f && x.z0 < da.z1 - 1e-3f &&
                         da.z0 < x.z1 - 1e-3f);
        }
    }
}

// District labels are the series' (the layout asks once per distinct label).
void expectLabels(const CityLayout& l, const TreeSeries& s) {
    for (size_t i = 0; i < l.districts.size(); ++i)
        EXPECT_EQ(l.districtLabel(i), s.label(l.districts[i].node));
}

TEST(CityLayout, ReadsTheSameColumnsAsCounts) {
    Fixture f = fixtureOf(testing::lifecycleTrace(), "type,site");
    const TreeSeries& s = *f.series;
    std::vector<SeriesCounts> col;
    for (size_t g = 0; g < s.gcCount(); ++g) {
        readColumn(s, g, col);
        ASSERT_EQ(col.size(), s.size());
        for (uint32_t id = 0; id < s.size(); ++id)
            EXPECT_EQ(col[id], s.counts(id, s.gcs()[g]));
    }
}

// orderSeries reads every node at once; it must agree with the series' own order and pruning.
TEST(CityLayout, OrderAndPruningAgreeWithTheSeries) {
    for (const auto& [trace, chain] : std::vector<std::pair<std::string, std::string>>{
             {testing::lifecycleTrace(), "type,site"},
             {testing::scenarioTrace("growing-map"), "type,site"},
             {testing::scenarioTrace("multi-cache"), "package,type"},
             {testing::scenarioTrace("steady"), "site,type"}}) {
        Fixture f = fixtureOf(trace, chain);
        const TreeSeries& s = *f.series;
        for (SortStrategy sort : {SortStrategy::kStartSize, SortStrategy::kEndSize, SortStrategy::kGrowth})
            for (Metric metric : {Metric::kObjects, Metric::kBytes})
                for (PruneOptions prune : {PruneOptions{}, PruneOptions{0.5, 2, true},
                                           PruneOptions{0.99, 30, true}, PruneOptions{0.9, 9, false}}) {
                    const SeriesOrder o = orderSeries(s, sort, metric, prune);
                    for (uint32_t id = 0; id < s.size(); ++id) {
                        const auto mine = o.childrenOf(id);
                        EXPECT_EQ(std::vector<uint32_t>(mine.begin(), mine.end()),
                                  s.sortedChildren(id, sort, metric))
                            << chain << " node " << s.path(id);
                        const SeriesPrunedChildren p = s.prunedChildren(id, sort, metric, prune);
                        EXPECT_EQ(o.shown_count[id], p.shown.size()) << chain << " node " << s.path(id);
                        const std::vector<uint64_t> v = s.values(id, metric);
                        EXPECT_EQ(o.peak[metricIndex(metric)][id], *std::max_element(v.begin(), v.end()));
                        // The Other building's peak: what the node holds beyond its shown children,
                        // or its folded children's sum when larger.
                        uint64_t other = 0;
                        for (uint32_t gc : s.gcs()) {
                            const uint64_t folded = s.sum(p.folded, gc, metric),
                                           shown = s.sum(p.shown, gc, metric);
                            const uint64_t whole = s.value(id, gc, metric);
                            other = std::max({other, folded, whole > shown ? whole - shown : 0});
                        }
                        EXPECT_EQ(o.other_peak[metricIndex(metric)][id], mine.empty() ? 0 : other)
                            << chain << " node " << s.path(id);
                    }
                }
    }
}

// Splitting the GCs between threads gives the same order, pruning and peaks.
TEST(CityLayout, ThreadsReadTheSameSeries) {
    Fixture f = fixtureOf(testing::scenarioTrace("growing-map"), "type,site");
    const TreeSeries& s = *f.series;
    ASSERT_GE(s.gcCount(), 4u);
    for (PruneOptions prune : {PruneOptions{}, PruneOptions{0.5, 2, true}, PruneOptions{0.9, 9, false}}) {
        const SeriesOrder one = orderSeries(s, SortStrategy::kGrowth, Metric::kBytes, prune, 1);
        for (unsigned threads : {2u, 3u, 64u}) {
            const SeriesOrder more = orderSeries(s, SortStrategy::kGrowth, Metric::kBytes, prune, threads);
            EXPECT_EQ(more.children, one.children);
            EXPECT_EQ(more.shown_count, one.shown_count);
            EXPECT_EQ(more.peak, one.peak);
            EXPECT_EQ(more.other_peak, one.other_peak);
        }
    }
}

TEST(CityLayout, FootprintsAreProportionalToPeaksWithoutStreets) {
    Fixture f = fixtureOf(testing::lifecycleTrace(), "type,site");
    const TreeSeries& s = *f.series;
    CityLayoutOptions o;
    o.street = 0;
    o.prune.enabled = false;
    const CityLayout l = layoutOf(s, o);
    expectSound(l);
    // Districts: the city, A, B, int[]; buildings: the five (type, site) pairs.
    EXPECT_EQ(l.districts.size(), 4u);
    ASSERT_EQ(l.buildings.size(), 5u);
    const std::map<std::vector<std::string>, double> peaks = {{{"A", kRun}, 32},
                                                              {{"A", kOther}, 16},
                                                              {{"B", kOther}, 24},
                                                              {{"int[]", kRun}, 56},
                                                              {{"int[]", kOther}, 416}};
    const double city = 1000.0 * 1000.0;
    for (const auto& [path, peak] : peaks) {
        const CityBuilding& b = l.buildings[buildingOf(l, s.find(path))];
        EXPECT_EQ(b.peak[metricIndex(Metric::kBytes)], peak);
        EXPECT_NEAR(static_cast<double>(b.area()) / city, peak / 544.0, 1e-5) << path[0];
    }
    EXPECT_EQ(l.global_peak[metricIndex(Metric::kBytes)], 416.0);
    EXPECT_EQ(l.global_peak[metricIndex(Metric::kObjects)], 2.0);  // A/run
    // The tallest building reaches `height` above the highest plate.
    EXPECT_FLOAT_EQ(l.bounds.max.y, 2 * o.plate_height + o.height);
    EXPECT_EQ(l.districtLabel(0), "Overall");
}

TEST(CityLayout, AreasFollowWeightsOnALargerTree) {
    Fixture f = fixtureOf(testing::scenarioTrace("big-heap"), "type,site,thread");
    const TreeSeries& s = *f.series;
    CityLayoutOptions o;
    o.street = 0;
    o.prune.enabled = false;
    const CityLayout l = layoutOf(s, o);
    ASSERT_GT(l.buildings.size(), 1000u);
    double total = 0;
    for (const CityBuilding& b : l.buildings)
        total += b.peak[metricIndex(o.metric)];
    double worst = 0;
    for (const CityBuilding& b : l.buildings) {
        const double want = b.peak[metricIndex(o.metric)] / total * 1e6;
        worst = std::max(worst, std::fabs(static_cast<double>(b.area()) - want) / want);
    }
    EXPECT_LT(worst, 1e-3);
    // Squarified: most footprints are not slivers.
    size_t squarish = 0;
    for (const CityBuilding& b : l.buildings) {
        const float w = b.x1 - b.x0, d = b.z1 - b.z0;
        squarish += std::max(w, d) / std::min(w, d) < 4.0f;
    }
    EXPECT_GT(squarish, l.buildings.size() * 8 / 10);
}

TEST(CityLayout, StreetsKeepEverythingApart) {
    for (const auto& [name, chain] : std::vector<std::pair<std::string, std::string>>{
             {"growing-map", "type,site"}, {"multi-cache", "package,type,site"}, {"steady", "thread,type"}}) {
        Fixture f = fixtureOf(testing::scenarioTrace(name), chain);
        const CityLayout l = layoutOf(*f.series);
        SCOPED_TRACE(name);
        expectSound(l);
        expectLabels(l, *f.series);
        // Siblings are one street apart at least: no two buildings touch.
        for (size_t a = 0; a < l.buildings.size(); ++a)
            for (size_t b = a + 1; b < l.buildings.size(); ++b) {
                const CityBuilding &x = l.buildings[a], &y = l.buildings[b];
                const float gap = std::max({y.x0 - x.x1, x.x0 - y.x1, y.z0 - x.z1, x.z0 - y.z1});
                EXPECT_GT(gap, 0.0f);
            }
    }
}

TEST(CityLayout, PrunedChildrenBecomeOneOtherBuilding) {
    Fixture f = fixtureOf(testing::lifecycleTrace(), "type,site");
    const TreeSeries& s = *f.series;
    CityLayoutOptions o;
    o.prune.max_children = 1;  // by growth: int[] (+416) shown, A (+16) and B (-24) folded
    const CityLayout l = layoutOf(s, o);
    expectSound(l);
    const uint32_t other = buildingOf(l, otherIdOf(TreeSeries::kRoot));
    const CityBuilding& b = l.buildings[other];
    EXPECT_EQ(b.district, 0u);
    const std::vector<uint32_t> folded(l.group_ids.begin() + b.group_begin,
                                       l.group_ids.begin() + b.group_mid);
    EXPECT_EQ(folded, (std::vector<uint32_t>{s.find({"A"}), s.find({"B"})}));
    // A + B per GC: 56, 32, 56, 48.
    EXPECT_EQ(b.peak[metricIndex(Metric::kBytes)], 56.0);
    EXPECT_EQ(l.findBuilding(s.find({"A", kRun})), kNoIndex);
    EXPECT_TRUE(isOtherId(b.id));
    EXPECT_EQ(otherParentOf(b.id), TreeSeries::kRoot);
    // int[] is a district with its two sites; the Other building stands last in the order.
    EXPECT_NE(l.findDistrict(s.find({"int[]"})), kNoIndex);
    const CityState st = cityAt(l, s, 1.0);
    EXPECT_EQ(st.buildings[other].value, 32.0);
}

// A one-to-hierarchy path that stops at an inner node leaves objects there: they show in the
// node's Other building (its value minus its shown children), also without pruning.
TEST(CityLayout, ObjectsLeftAtAnInnerNodeStandInItsOtherBuilding) {
    ::memcity::testing::TraceBuilder t("city-path");
    const Frame frames[] = {{1, 10}, {2, 20}};  // Main.run:10 called by Main.other:20
    t.writer().defineSite(3, frames);
    t.alloc(0, 1, 1).alloc(1, 1, 3).alloc(2, 1, 3);
    t.gc(0, 3);
    t.alloc(3, 1, 1);
    t.gc(1, 4, {1});
    Fixture f = fixtureOf(t.finish(), "site(callers=1)");
    const TreeSeries& s = *f.series;
    CityLayoutOptions o;
    o.prune.enabled = false;
    const CityLayout l = layoutOf(s, o);
    expectSound(l);
    const uint32_t run = s.find({kRun});
    ASSERT_NE(l.findDistrict(run), kNoIndex);
    expectLabels(l, s);
    const uint32_t rest = buildingOf(l, otherIdOf(run));
    const CityState a = cityAt(l, s, 0.0), b = cityAt(l, s, 1.0);
    EXPECT_EQ(a.buildings[rest].value, 16.0);  // object 0
    EXPECT_EQ(b.buildings[rest].value, 32.0);  // objects 0 and 3
    EXPECT_EQ(a.buildings[buildingOf(l, s.find({kRun, kOther}))].value, 32.0);
}

TEST(CityLayout, MaxDepthTurnsDeeperNodesIntoBuildings) {
    Fixture f = fixtureOf(testing::lifecycleTrace(), "type,site");
    CityLayoutOptions o;
    o.max_depth = 1;
    const CityLayout l = layoutOf(*f.series, o);
    expectSound(l);
    EXPECT_EQ(l.districts.size(), 1u);
    EXPECT_EQ(l.buildings.size(), 3u);  // A, B, int[]
    EXPECT_NE(l.findBuilding(f.series->find({"int[]"})), kNoIndex);
    o.max_depth = 0;
    EXPECT_FALSE(buildCityLayout(*f.series, o).ok());
}

// Heights: h = H * v / sqrt(peak * global peak); linear in the value at every t.
TEST(CityState, HeightsFollowValuesAndTweenLinearly) {
    Fixture f = fixtureOf(testing::lifecycleTrace(), "type,site");
    const TreeSeries& s = *f.series;
    CityLayoutOptions lo;
    lo.prune.enabled = false;
    const CityLayout l = layoutOf(s, lo);
    for (Metric m : {Metric::kBytes, Metric::kObjects}) {
        CityStateOptions so;
        so.metric = m;
        const double global = l.global_peak[metricIndex(m)];
        for (double t = 0; t <= 3.0; t += 0.25) {
            const CityState st = cityAt(l, s, t, so);
            for (size_t i = 0; i < l.buildings.size(); ++i) {
                const CityBuilding& b = l.buildings[i];
                const double v = s.valueAt(b.id, TimeCursor::gcTimeOf(s.gcs(), t), m);
                EXPECT_DOUBLE_EQ(st.buildings[i].value, v) << s.path(b.id) << " t=" << t;
                EXPECT_NEAR(st.buildings[i].height,
                            static_cast<double>(lo.height) * v / std::sqrt(b.peak[metricIndex(m)] * global),
                            1e-3);
            }
            EXPECT_DOUBLE_EQ(st.district_values[0], s.valueAt(TreeSeries::kRoot, t, m));
        }
    }
    // Halfway between two GCs is the mean of the two.
    for (double t = 0; t < 3.0; t += 1.0) {
        const CityState a = cityAt(l, s, t), b = cityAt(l, s, t + 0.5), c = cityAt(l, s, t + 1.0);
        for (size_t i = 0; i < l.buildings.size(); ++i)
            EXPECT_NEAR(b.buildings[i].height, (a.buildings[i].height + c.buildings[i].height) / 2, 1e-4);
    }
    // The biggest building at its peak is the tallest: int[]/other at GC 3.
    const CityState end = cityAt(l, s, 3.0);
    EXPECT_FLOAT_EQ(end.buildings[buildingOf(l, s.find({"int[]", kOther}))].height, lo.height);
    // Out of range: clamped.
    EXPECT_EQ(cityAt(l, s, 7.0).t, 3.0);
    EXPECT_EQ(cityAt(l, s, -1.0).t, 0.0);
}

TEST(CityState, BuildingsFadeInAndOutWhenTheirNodeAppearsOrVanishes) {
    Fixture f = fixtureOf(testing::lifecycleTrace(), "type,site");
    const TreeSeries& s = *f.series;
    CityLayoutOptions lo;
    lo.prune.enabled = false;
    const CityLayout l = layoutOf(s, lo);
    const uint32_t b_other = buildingOf(l, s.find({"B", kOther}));         // 24, 0, 24, 0
    const uint32_t ints_other = buildingOf(l, s.find({"int[]", kOther}));  // 0, 0, 0, 416
    CityStateOptions o;  // unsuspicious (stable, shrinking) at alpha 90
    EXPECT_EQ(cityAt(l, s, 0.0, o).buildings[b_other].alpha, 90);  // stable
    // Shrinking 24 -> 12 at t = 0.5, fading out: 90 * 0.5.
    const BuildingState half = cityAt(l, s, 0.5, o).buildings[b_other];
    EXPECT_EQ(half.trend, Trend::kShrinking);
    EXPECT_EQ(half.alpha, 45);
    EXPECT_EQ(cityAt(l, s, 0.75, o).buildings[b_other].alpha, 23);
    EXPECT_EQ(cityAt(l, s, 1.0, o).buildings[b_other].alpha, 0);
    // Fading in again from GC 1 to 2.
    EXPECT_EQ(cityAt(l, s, 1.25, o).buildings[b_other].alpha, 23);
    // int[]/other appears between GC 2 and 3: strongly growing, opaque, fading in.
    const BuildingState in = cityAt(l, s, 2.5, o).buildings[ints_other];
    EXPECT_EQ(in.trend, Trend::kStronglyGrowing);
    EXPECT_EQ(in.alpha, 128);
    EXPECT_EQ(in.value, 208.0);
    EXPECT_EQ(cityAt(l, s, 2.0, o).buildings[ints_other].alpha, 0);
    EXPECT_EQ(cityAt(l, s, 3.0, o).buildings[ints_other].alpha, 255);
    // Without translucency every building standing is opaque.
    o.translucent_unsuspicious = false;
    EXPECT_EQ(cityAt(l, s, 0.0, o).buildings[b_other].alpha, 255);
    EXPECT_EQ(cityAt(l, s, 0.5, o).buildings[b_other].alpha, 128);
}

TEST(CityState, ColoursShowTheTrendSinceTheFirstGc) {
    Fixture f = fixtureOf(testing::lifecycleTrace(), "type,site");
    const TreeSeries& s = *f.series;
    CityLayoutOptions lo;
    lo.prune.enabled = false;
    const CityLayout l = layoutOf(s, lo);
    const uint32_t a_run = buildingOf(l, s.find({"A", kRun}));         // 32, 32, 16, 32
    const uint32_t a_other = buildingOf(l, s.find({"A", kOther}));     // 0, 0, 16, 16
    const uint32_t ints_run = buildingOf(l, s.find({"int[]", kRun}));  // 0, 56, 56, 0
    const CityState at2 = cityAt(l, s, 2.0);
    EXPECT_EQ(at2.buildings[a_run].trend, Trend::kShrinking);
    EXPECT_EQ(at2.buildings[a_run].color, palette::trendColor(Trend::kShrinking, 90));
    EXPECT_EQ(at2.buildings[a_other].trend, Trend::kStronglyGrowing);
    EXPECT_EQ(at2.buildings[a_other].color, palette::trendColor(Trend::kStronglyGrowing));
    EXPECT_EQ(at2.buildings[ints_run].trend, Trend::kStronglyGrowing);
    EXPECT_EQ(cityAt(l, s, 3.0).buildings[a_run].trend, Trend::kStable);
    // 32 -> 30 (t = 1.125 between 32 and 16): within the 10% stable band; 32 -> 24 shrinks.
    EXPECT_EQ(cityAt(l, s, 1.125).buildings[a_run].trend, Trend::kStable);
    EXPECT_EQ(cityAt(l, s, 1.5).buildings[a_run].trend, Trend::kShrinking);
    // Compared with GC 2 instead: A/run grows 16 -> 32 (by half of 32: growing, not strongly).
    CityStateOptions o;
    o.trend_from = 2.0;
    EXPECT_EQ(cityAt(l, s, 3.0, o).buildings[a_run].trend, Trend::kGrowing);
    o.trend_from = 1.5;  // 24 -> 32
    EXPECT_EQ(cityAt(l, s, 3.0, o).buildings[a_run].trend, Trend::kGrowing);
    EXPECT_EQ(cityAt(l, s, 3.0, o).buildings[a_other].trend, Trend::kGrowing);  // 8 -> 16
}

render::DrawList frameOf(const CityLayout& l, const CityState& st, const OrbitCamera& cam,
                         const CitySceneOptions& o, CitySceneStats* stats = nullptr) {
    render::DrawList dl;
    const CitySceneStats got = buildCityDrawList(l, st, cam.matrices(), {1280.0f, 720.0f}, o, dl);
    if (stats) *stats = got;
    return dl;
}

OrbitCamera overview(const CityLayout& l) {
    auto cam = cameraPreset("overview", l.bounds, 1280.0f / 720.0f);
    EXPECT_TRUE(cam.ok());
    return *cam;
}

// Positions are computed once: at every t each building's box has the same footprint.
TEST(CityScene, FootprintsNeverMoveWhileTimeDoes) {
    Fixture f = fixtureOf(testing::scenarioTrace("growing-map"), "type,site");
    const TreeSeries& s = *f.series;
    const CityLayout l = layoutOf(s);
    const OrbitCamera cam = overview(l);
    CitySceneOptions o;
    o.merge = false;
    o.cull = false;
    std::map<std::pair<uint32_t, float>, std::array<float, 4>> seen;
    size_t checked = 0;
    for (double t = 0; t <= static_cast<double>(s.gcCount() - 1); t += 0.5) {
        const render::DrawList dl = frameOf(l, cityAt(l, s, t), cam, o);
        for (const render::BoxInstance& b : dl.boxes) {
            // A plate and a building are told apart by where they stand.
            const std::array<float, 4> rect = {b.min.x, b.min.z, b.max.x, b.max.z};
            const auto [it, fresh] = seen.emplace(std::make_pair(b.id, b.min.y), rect);
            if (!fresh) {
                EXPECT_EQ(it->second, rect) << s.path(b.id) << " moved at t=" << t;
                ++checked;
            }
        }
    }
    EXPECT_GT(checked, 100u);
    for (const CityBuilding& b : l.buildings) {
        const auto it = seen.find({b.id, b.base});
        if (it != seen.end()) {
            EXPECT_EQ(it->second, (std::array<float, 4>{b.x0, b.z0, b.x1, b.z1}));
        }
    }
}

TEST(CityScene, BoxesCarryIdsColoursAndSelection) {
    Fixture f = fixtureOf(testing::lifecycleTrace(), "type,site");
    const TreeSeries& s = *f.series;
    const CityLayout l = layoutOf(s);
    const CityState st = cityAt(l, s, 3.0);
    const uint32_t ints_other = s.find({"int[]", kOther}), a = s.find({"A"});
    CitySceneOptions o;
    o.selected = {ints_other};
    o.highlighted = {a};
    CitySceneStats stats;
    const render::DrawList dl = frameOf(l, st, overview(l), o, &stats);
    EXPECT_EQ(stats.plates, l.districts.size());
    EXPECT_EQ(stats.buildings + stats.hidden_buildings, l.buildings.size());
    size_t selected = 0, highlighted = 0;
    for (const render::BoxInstance& b : dl.boxes) {
        if (b.id == ints_other && b.max.y > b.min.y + 1) {
            EXPECT_EQ(b.flags, render::kFlagSelected);
            EXPECT_EQ(b.color, palette::trendColor(Trend::kStronglyGrowing));
            EXPECT_FLOAT_EQ(b.max.y - b.min.y, l.options.height);
        }
        selected += (b.flags & render::kFlagSelected) != 0;
        highlighted += (b.flags & render::kFlagHighlighted) != 0;
    }
    EXPECT_EQ(selected, 1u);
    EXPECT_EQ(highlighted, 1u);  // A's plate
    EXPECT_EQ(dl.clear_color, palette::kBackground);
    EXPECT_EQ(dl.camera.eye, overview(l).eye());
}

TEST(CityScene, CullingDropsWhatIsOffScreen) {
    Fixture f = fixtureOf(testing::scenarioTrace("big-heap"), "type,site,thread");
    const TreeSeries& s = *f.series;
    const CityLayout l = layoutOf(s);
    const CityState st = cityAt(l, s, static_cast<double>(s.gcCount() - 1));
    // Close to one corner of the city, looking at it.
    OrbitCamera cam = overview(l);
    cam.target = glm::vec3(100.0f, 0.0f, 100.0f);
    cam.distance = 150.0f;
    cam.fitClipPlanes(l.bounds);
    CitySceneOptions o;
    o.merge = false;
    o.labels = false;
    CitySceneStats culled, all;
    const render::DrawList kept = frameOf(l, st, cam, o, &culled);
    o.cull = false;
    const render::DrawList every = frameOf(l, st, cam, o, &all);
    EXPECT_LT(kept.boxes.size(), every.boxes.size() / 2);
    EXPECT_GT(culled.culled_buildings, 0u);
    EXPECT_EQ(culled.buildings + culled.culled_buildings + culled.hidden_buildings, l.buildings.size());
    const Frustum frustum = frustumOf(cam.matrices());
    std::set<std::pair<uint32_t, float>> drawn;
    for (const render::BoxInstance& b : kept.boxes) {
        EXPECT_TRUE(frustum.intersects({b.min, b.max}));
        drawn.emplace(b.id, b.min.y);
    }
    // Every box left out is outside the frustum.
    for (const render::BoxInstance& b : every.boxes)
        if (!drawn.count({b.id, b.min.y})) {
            EXPECT_FALSE(frustum.intersects({b.min, b.max}));
        }
}

TEST(CityScene, MergingFarAwayKeepsTheFootprintAndVolume) {
    Fixture f = fixtureOf(testing::scenarioTrace("big-heap"), "type,site,thread");
    const TreeSeries& s = *f.series;
    CityLayoutOptions lo;
    lo.prune.enabled = false;
    const CityLayout l = layoutOf(s, lo);
    const CityState st = cityAt(l, s, static_cast<double>(s.gcCount() - 1));
    OrbitCamera cam = overview(l);
    cam.dolly(4.0f);
    cam.fitClipPlanes(l.bounds);
    CitySceneOptions o;
    o.labels = false;
    CitySceneStats merged, plain;
    const render::DrawList few = frameOf(l, st, cam, o, &merged);
    o.merge = false;
    const render::DrawList many = frameOf(l, st, cam, o, &plain);
    EXPECT_GT(merged.merged_boxes, 0u);
    EXPECT_LT(few.boxes.size() * 2, many.boxes.size());
    EXPECT_EQ(merged.buildings + merged.merged_buildings, plain.buildings);
    // Each merged box covers the buildings it stands for and holds about their volume.
    double box_area = 0, lot_area = 0, box_volume = 0, volume = 0;
    for (const render::BoxInstance& b : few.boxes) {
        const uint32_t d = l.findDistrict(b.id);
        if (d == kNoIndex || b.min.y != l.districts[d].y1) continue;  // a plate, or a building
        const CityDistrict& district = l.districts[d];
        box_area += static_cast<double>((b.max.x - b.min.x) * (b.max.z - b.min.z));
        box_volume += static_cast<double>((b.max.x - b.min.x) * (b.max.z - b.min.z) * (b.max.y - b.min.y));
        for (uint32_t i = district.building_begin; i < district.building_end; ++i) {
            const CityBuilding& x = l.buildings[i];
            EXPECT_TRUE(inside(x.x0, x.z0, x.x1, x.z1, b.min.x, b.min.z, b.max.x, b.max.z));
            lot_area += static_cast<double>(x.area());
            volume += static_cast<double>(x.area()) *
                      static_cast<double>(x.base + st.buildings[i].height - district.y1) *
                      (st.buildings[i].alpha > 0);
        }
    }
    EXPECT_GE(box_area, lot_area);
    // The bounding rectangle of a district's buildings also covers the streets between its
    // sub-districts: a bit more than the lots, never a multiple of them.
    EXPECT_LT(box_area, lot_area * 3);
    EXPECT_GE(box_volume, volume * 0.999);
    EXPECT_LT(box_volume, volume * 2);
    // Near the city nothing is merged.
    const CitySceneStats near = [&] {
        CitySceneStats st2;
        o.merge = true;
        frameOf(l, st, overview(l), o, &st2);
        return st2;
    }();
    EXPECT_LT(near.merged_buildings, merged.merged_buildings);
}

TEST(CityScene, LabelsDoNotOverlapAndTheLegendShowsTheFourTrends) {
    Fixture f = fixtureOf(testing::scenarioTrace("multi-cache"), "package,type,site");
    const TreeSeries& s = *f.series;
    const CityLayout l = layoutOf(s);
    const CityState st = cityAt(l, s, static_cast<double>(s.gcCount() - 1));
    CitySceneOptions o;
    CitySceneStats stats;
    const render::DrawList dl = frameOf(l, st, overview(l), o, &stats);
    ASSERT_GT(stats.labels, 1u);
    ASSERT_EQ(dl.labels.size(), stats.labels + 1 + kTrendCount);
    std::vector<std::pair<glm::vec2, glm::vec2>> boxes;
    for (size_t i = 0; i < stats.labels; ++i) {
        const render::Label& label = dl.labels[i];
        EXPECT_EQ(label.anchor, render::TextAnchor::kCenter);
        const float w = textWidth(o, label.text, label.size_px) + 6, h = label.size_px + 4;
        const glm::vec2 a = label.pos - glm::vec2(w, h) * 0.5f, b = a + glm::vec2(w, h);
        EXPECT_GE(a.x, 0.0f);
        EXPECT_LE(b.x, 1280.0f);
        for (const auto& [c, d] : boxes)
            EXPECT_FALSE(a.x < d.x && c.x < b.x && a.y < d.y && c.y < b.y) << label.text;
        boxes.emplace_back(a, b);
        bool known = false;
        for (const std::string& text : l.labels)
            known |= text == label.text || (label.text.ends_with("...") &&
                                            text.starts_with(label.text.substr(0, label.text.size() - 3)));
        EXPECT_TRUE(known) << label.text;
    }
    // The legend: a panel and four swatches in the trend colours, strongest growth first.
    ASSERT_EQ(dl.rects.size(), 1u + kTrendCount);
    EXPECT_EQ(dl.rects[1].color, palette::trendColor(Trend::kStronglyGrowing));
    EXPECT_EQ(dl.rects[4].color, palette::trendColor(Trend::kShrinking));
    EXPECT_EQ(dl.labels.back().text, "shrinking");
    EXPECT_GT(dl.rects[0].min.y, 720.0f / 2);  // bottom left
    // A measure function is used when given: text too wide for every district gives no label.
    o.measure_text = [](std::string_view, float) { return 1e6f; };
    frameOf(l, st, overview(l), o, &stats);
    EXPECT_EQ(stats.labels, 0u);
    o.legend = false;
    o.labels = false;
    EXPECT_TRUE(frameOf(l, st, overview(l), o).labels.empty());
}

}  // namespace
}  // namespace memcity::scene
