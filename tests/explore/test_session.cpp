// The explorer's logic without a window: loading in the background, one selection shared by the
// views, picking in the composed city, drill-down kept across time, classifier edits that keep
// the selection where it still exists, and the inspector's answers on scenarios with known ones.
#include <gtest/gtest.h>

#include <algorithm>
#include <chrono>
#include <filesystem>
#include <fstream>
#include <string>
#include <thread>

#include "classify/churn.h"
#include "explore/session.h"
#include "hprof/import_cache.h"
#include "scene/camera.h"
#include "scene/city_state.h"
#include "synth/synth.h"
#include "unit/hprof_builder.h"
#include "unit/trace_builder.h"

namespace memcity::explore {
namespace {

std::string scenario(const std::string& name) {
    static std::map<std::string, std::string> paths;
    auto it = paths.find(name);
    if (it != paths.end()) return it->second;
    const std::string path = testing::tempPath("session-" + name);
    EXPECT_TRUE(synth::synthesize(name, path, {}).ok());
    return paths[name] = path;
}

ChainConfig chainOf(const std::string& spec) {
    auto c = chainConfigOf(spec);
    EXPECT_TRUE(c.ok()) << (c.ok() ? "" : c.error().message);
    return c.ok() ? *c : ChainConfig{};
}

// A session that opened `path` by `spec` and finished loading and classifying.
std::unique_ptr<Session> opened(const std::string& path, const std::string& spec) {
    SessionOptions o;
    o.chain = chainOf(spec);
    auto s = std::make_unique<Session>(o);
    s->open(path);
    s->waitSettled();
    EXPECT_TRUE(s->loaded()) << s->load().error;
    EXPECT_NE(s->series(), nullptr);
    return s;
}

constexpr scene::PixelRect kRect{{100.0f, 50.0f}, {900.0f, 650.0f}};
constexpr glm::vec2 kFramebuffer{1000.0f, 700.0f};

// The framebuffer pixel where the middle of the top of the building showing `id` appears.
glm::vec2 pixelOfBuilding(Session& s, uint32_t id) {
    render::DrawList list;
    s.compose(kRect, kFramebuffer, list);  // lays the city out, places the camera
    const scene::OrbitCamera* cam = s.camera();
    EXPECT_NE(cam, nullptr);
    // Look at it from above so nothing stands in front of its roof.
    scene::OrbitCamera top = *cam;
    s.resetCamera("top").ok();
    s.compose(kRect, kFramebuffer, list);
    top = *s.camera();
    const scene::Bounds b = [&] {
        // The building's box at the cursor, as the frame drew it.
        for (const render::BoxInstance& box : list.boxes)
            if (box.id == id) return scene::Bounds{box.min, box.max};
        ADD_FAILURE() << "building " << id << " is not drawn";
        return scene::Bounds{};
    }();
    const glm::vec3 roof((b.min.x + b.max.x) * 0.5f, b.max.y, (b.min.z + b.max.z) * 0.5f);
    const auto p = scene::projectToPixel(top.matrices(), kRect.max - kRect.min, roof);
    EXPECT_TRUE(p.has_value());
    return kRect.min + glm::vec2(*p);
}

TEST(Session, LoadsInTheBackgroundAndShowsTheLastGc) {
    const std::string path = scenario("growing-map");
    auto s = opened(path, "package,type");
    EXPECT_EQ(s->load().phase, LoadPhase::kReady);
    EXPECT_EQ(s->gcs().size(), s->history()->gcCount());
    EXPECT_GE(s->load().first_gc_seconds, 0.0);
    EXPECT_LE(s->load().first_gc_seconds, s->load().seconds);
    EXPECT_TRUE(s->seriesFinal());
    EXPECT_EQ(s->series()->gcCount(), s->history()->gcCount());
    // The cursor followed the GCs as they came: it stands at the last one.
    EXPECT_EQ(s->currentGc(), s->history()->gcCount() - 1);
    EXPECT_TRUE(s->settled());
}

// The records reach the window as appended pieces while loading, and end equal to the history's
// (whose snapshot figures are filled in after their GC).
TEST(Session, LoaderRecordsArriveInOrderAndEndAsTheHistorys) {
    TraceLoader loader(scenario("multi-cache"), {});
    std::vector<GcRecord> records;
    uint64_t revision = 0;
    size_t seen = 0;
    while (!loader.done()) {
        loader.syncGcs(&records, &revision);
        ASSERT_GE(records.size(), seen);
        seen = records.size();
        for (size_t i = 0; i < records.size(); ++i)
            ASSERT_EQ(records[i].index, i);
        std::this_thread::sleep_for(std::chrono::milliseconds(1));
    }
    ASSERT_EQ(loader.progress().phase, LoadPhase::kReady) << loader.progress().error;
    loader.syncGcs(&records, &revision);
    const std::vector<GcRecord>& want = loader.history().gcs();
    ASSERT_EQ(records.size(), want.size());
    for (size_t i = 0; i < want.size(); ++i) {
        EXPECT_EQ(records[i].live_bytes, want[i].live_bytes) << i;
        EXPECT_EQ(records[i].has_snapshot, want[i].has_snapshot) << i;
        EXPECT_EQ(records[i].reachable_bytes, want[i].reachable_bytes) << i;
    }
    // Nothing new: nothing changes.
    const uint64_t before = revision;
    loader.syncGcs(&records, &revision);
    EXPECT_EQ(records.size(), want.size());
    EXPECT_EQ(revision, before);
}

TEST(Session, ErrorsNameTheFileAndTheValue) {
    Session s;
    s.open("/nonexistent/trace.mct");
    s.waitSettled();
    EXPECT_EQ(s.load().phase, LoadPhase::kFailed);
    EXPECT_NE(s.load().error.find("/nonexistent/trace.mct"), std::string::npos) << s.load().error;
    EXPECT_EQ(s.series(), nullptr);
    EXPECT_FALSE(s.goToGc(0).ok());

    auto g = opened(scenario("buggy-stack"), "type");
    Status st = g->goToGc(99);
    ASSERT_FALSE(st.ok());
    EXPECT_NE(st.error().message.find("GC 99 is out of range"), std::string::npos) << st.error().message;
    Status sel = g->selectPath("java.util.Nope");
    ASSERT_FALSE(sel.ok());
    EXPECT_EQ(sel.error().message, "no group 'java.util.Nope' in the series by type");
}

// A click in the composed city selects the building under the pointer; the selection is drawn
// selected in the next frame, and the inspector follows it.
TEST(Session, ClickingABuildingSelectsItInEveryView) {
    auto s = opened(scenario("growing-map"), "package,type");
    ASSERT_TRUE(s->selectPath(
                     "com / com.dynatrace / com.dynatrace.easytravel / com.dynatrace.easytravel.jpa / "
                     "com.dynatrace.easytravel.jpa.business / com.dynatrace.easytravel.jpa.business.Location")
                    .ok());
    ASSERT_EQ(s->selection().size(), 1u);
    const uint32_t location = s->selection().front();
    s->clearSelection();
    EXPECT_TRUE(s->selection().empty());

    const glm::vec2 pixel = pixelOfBuilding(*s, location);
    const auto pick = s->pick(pixel);
    ASSERT_TRUE(pick.has_value());
    EXPECT_EQ(pick->id, location);
    EXPECT_FALSE(pick->district);
    s->select(pick->id);
    render::DrawList list;
    s->compose(kRect, kFramebuffer, list);
    size_t selected = 0;
    for (const render::BoxInstance& box : list.boxes)
        if (box.flags & render::kFlagSelected) {
            ++selected;
            EXPECT_EQ(box.id, location);
        }
    EXPECT_EQ(selected, 1u);
    // The same selection in the sunburst: the node's sector is drawn selected.
    s->setView(scene::ViewKind::kSunburst);
    s->drill(s->series()->node(location).parent);
    s->compose(kRect, kFramebuffer, list);
    bool arc_selected = false;
    for (const render::Arc& a : list.arcs)
        arc_selected = arc_selected || (a.id == location && (a.flags & render::kFlagSelected));
    EXPECT_TRUE(arc_selected);
    // Outside the view nothing is picked; shift-click toggles.
    EXPECT_FALSE(s->pick({10.0f, 10.0f}).has_value());
    s->select(location, true);
    EXPECT_TRUE(s->selection().empty());
    s->select(location, true);
    EXPECT_EQ(s->selection(), std::vector<uint32_t>{location});
}

TEST(Session, DrillDownIsKeptAcrossTimeAndTheCentreGoesBackUp) {
    auto s = opened(scenario("growing-map"), "package,type,site");
    s->setView(scene::ViewKind::kSunburst);
    ASSERT_TRUE(s->drillPath("java / java.util").ok());
    const uint32_t drilled = s->drillRoot();
    EXPECT_EQ(s->nameOf(drilled), "java / java.util");
    std::vector<uint32_t> trail = s->drillTrail();
    ASSERT_EQ(trail.size(), 3u);
    EXPECT_EQ(trail.front(), TreeSeries::kRoot);
    render::DrawList list;
    for (uint64_t gc : {0ull, 5ull, 12ull, 20ull}) {
        ASSERT_TRUE(s->goToGc(gc).ok());
        s->compose(kRect, kFramebuffer, list);
        EXPECT_EQ(s->drillRoot(), drilled) << "at GC " << gc;
    }
    s->cursor().seek(7.5);
    s->compose(kRect, kFramebuffer, list);
    EXPECT_EQ(s->drillRoot(), drilled);
    // The local view's centre is the drill root: a click there goes back up.
    const float split = kRect.min.x + kRect.width() * 0.58f;
    const glm::vec2 centre((kRect.min.x + split) * 0.5f, (kRect.min.y + 22.0f + kRect.max.y) * 0.5f);
    const auto pick = s->pick(centre);
    ASSERT_TRUE(pick.has_value());
    EXPECT_TRUE(pick->drill_root);
    EXPECT_EQ(pick->id, drilled);
    s->drillUp();
    EXPECT_EQ(s->nameOf(s->drillRoot()), "java");
    s->drillUp();
    EXPECT_EQ(s->drillRoot(), TreeSeries::kRoot);
    s->drillUp();
    EXPECT_EQ(s->drillRoot(), TreeSeries::kRoot);
    // A leaf drills to its parent (the sunburst needs children to show).
    ASSERT_TRUE(s->selectPath("java / java.util / java.util.HashMap").ok());
    const uint32_t map = s->selection().front();
    const uint32_t leaf = s->series()->node(map).children.front();
    s->drill(leaf);
    EXPECT_EQ(s->drillRoot(), map);
}

TEST(Session, ClassifierEditsRecomputeAndKeepTheSelectionWhereItExists) {
    auto s = opened(scenario("growing-map"), "package,type");
    ASSERT_TRUE(s->selectPath("java / java.util; java / java.lang / java.lang.String").ok());
    ASSERT_TRUE(s->drillPath("java / java.util").ok());
    ASSERT_EQ(s->selection().size(), 2u);

    // A bad entry is refused with its error, and nothing changes.
    ChainConfig bad = s->chain();
    bad.classifiers.push_back("site(callers=x)");
    Status refused = s->applyChain(bad);
    ASSERT_FALSE(refused.ok());
    EXPECT_NE(refused.error().message.find("classifier 3:"), std::string::npos) << refused.error().message;
    EXPECT_EQ(s->chain().spec(), "package,type");

    // One level more: every selected path still exists (with new ids).
    ChainConfig deeper = s->chain();
    deeper.classifiers.push_back("site");
    ASSERT_TRUE(s->applyChain(deeper).ok());
    s->waitSettled();
    EXPECT_EQ(s->chain().spec(), "package,type,site");
    EXPECT_EQ(
        s->series()->size() > 0 && s->series()->find({"java", "java.util", "java.util.HashMap"}) != kNoNode,
        true);
    ASSERT_EQ(s->selection().size(), 2u);
    EXPECT_EQ(s->nameOf(s->selection()[0]), "java / java.util");
    EXPECT_EQ(s->nameOf(s->selection()[1]), "java / java.lang / java.lang.String");
    EXPECT_EQ(s->nameOf(s->drillRoot()), "java / java.util");

    // Type first: neither path is a group of the new tree.
    ChainConfig reordered = s->chain();
    ASSERT_TRUE(moveEntry(reordered.classifiers, 1, -1));
    EXPECT_EQ(reordered.spec(), "type,package,site");
    ASSERT_TRUE(s->applyChain(reordered).ok());
    s->waitSettled();
    EXPECT_TRUE(s->selection().empty());
    EXPECT_EQ(s->drillRoot(), TreeSeries::kRoot);

    // Metric and sort lay the same series out again without recomputing it.
    const TreeSeries* before = s->series();
    ChainConfig by_objects = s->chain();
    by_objects.metric = Metric::kObjects;
    ASSERT_TRUE(s->applyChain(by_objects).ok());
    EXPECT_EQ(s->series(), before);
    EXPECT_FALSE(s->recomputing());
}

// ManLang18 §5.1 through the explorer's inspector: the id cache's map alone retains 1,251,136
// bytes at the last GC of multi-cache (scale 1), held by the static field IdCache.idCache.
TEST(Session, InspectorShowsRootsAndRetainedSizesOfTheSelection) {
    auto s = opened(scenario("multi-cache"), "type,site");
    ASSERT_TRUE(
        s->selectPath("java.util.HashMap / jku.anttracks.example.data.IdCache.<clinit>(IdCache.java:9)")
            .ok());
    s->waitSettled();
    ASSERT_TRUE(s->inspectionCurrent()) << s->inspectionError();
    const Inspection& in = *s->inspection();
    EXPECT_EQ(in.gc, s->history()->gcCount() - 1);
    ASSERT_TRUE(in.closure.has_value());
    EXPECT_EQ(in.closure->retained.bytes, 1251136u);
    EXPECT_EQ(in.closure->retained.objects, 40002u);
    ASSERT_FALSE(in.direct_roots.empty());
    EXPECT_EQ(in.direct_roots.front().name, "static field jku.anttracks.example.data.IdCache.idCache");
    ASSERT_FALSE(in.paths.empty());
    EXPECT_EQ(in.paths.front().text.rfind("static field jku.anttracks.example.data.IdCache.idCache", 0), 0u);
    const std::string text = formatInspection(in);
    EXPECT_NE(text.find("retained: 40002 objects, 1251136 B"), std::string::npos) << text;

    // Both maps: together they retain far more than each alone (shared ownership).
    ASSERT_TRUE(
        s->selectPath("java.util.HashMap / jku.anttracks.example.data.NameCache.<clinit>(NameCache.java:9)",
                      true)
            .ok());
    s->waitSettled();
    ASSERT_TRUE(s->inspectionCurrent());
    EXPECT_EQ(s->inspection()->closure->retained.bytes, 5222272u);
    EXPECT_EQ(s->inspection()->names.size(), 2u);

    // The inspector follows the cursor; born / died / permanent since the range's start.
    s->setRange(GcRange{2, 5});
    ASSERT_TRUE(s->goToGc(5).ok());
    s->waitSettled();
    ASSERT_TRUE(s->inspectionCurrent());
    EXPECT_EQ(s->inspection()->gc, 5u);
    ASSERT_TRUE(s->inspection()->base_gc.has_value());
    EXPECT_EQ(*s->inspection()->base_gc, 2u);
    EXPECT_EQ(s->baseGc(), 2u);
    // The curve: one value per GC of the series.
    EXPECT_EQ(s->selectionCurve(Metric::kBytes).size(), s->series()->gcCount());
}

TEST(Session, TableSizesArriveForTheNodesAsked) {
    auto s = opened(scenario("multi-cache"), "type,site");
    const uint32_t map = s->series()->find({"java.util.HashMap"});
    ASSERT_NE(map, kNoNode);
    EXPECT_FALSE(s->sizesOf(map).has_value());
    s->requestSizes({map, TreeSeries::kRoot});
    s->waitSettled();
    const auto sizes = s->sizesOf(map);
    ASSERT_TRUE(sizes.has_value());
    EXPECT_GE(sizes->retained.bytes, 5222272u);  // every HashMap of the heap, the two caches included
    EXPECT_GE(sizes->deep.bytes, sizes->retained.bytes);
    ASSERT_TRUE(s->sizesOf(TreeSeries::kRoot).has_value());
}

TEST(Session, RangeRecomputesTheSeriesOverItsGcs) {
    auto s = opened(scenario("growing-map"), "package,type");
    s->setRange(GcRange{9, 4});  // either order
    ASSERT_TRUE(s->range().has_value());
    EXPECT_EQ(s->range()->from, 4u);
    ASSERT_TRUE(s->seriesOverRange().ok());
    s->waitSettled();
    EXPECT_EQ(s->series()->firstGc(), 4u);
    EXPECT_EQ(s->series()->lastGc(), 9u);
    EXPECT_FALSE(s->goToGc(2).ok());
    EXPECT_TRUE(s->goToGc(6).ok());
    EXPECT_EQ(s->currentGc(), 6u);
}

// Playback stops by itself where asked (GCspy's event filters): at a full GC, at a window's start,
// when the selection grows by more than N between GCs; each stop says why, once.
TEST(Session, PlaybackStopsOnEvents) {
    auto s = opened(scenario("buggy-stack"), "type");  // full GCs 3 and 4 (of 0..4)
    ASSERT_TRUE(s->goToGc(0).ok());
    s->setPlayStops({.full_gc = true});
    s->cursor().play();
    for (int frame = 0; frame < 600 && s->cursor().playing(); ++frame)
        s->advance(1.0 / 60);
    EXPECT_FALSE(s->cursor().playing());
    EXPECT_EQ(s->currentGc(), 3u);
    EXPECT_EQ(s->cursor().t(), 3.0);
    EXPECT_EQ(s->takeStop(), "stopped: GC 3 is a full GC");
    EXPECT_EQ(s->takeStop(), "");

    auto churn = opened(scenario("churn"), "type");  // windows start at GC 8 (docs/windows.md)
    ASSERT_FALSE(churn->windows().empty());
    const uint32_t start = churn->windows()[0].first_gc;
    ASSERT_TRUE(churn->goToGc(0).ok());
    churn->setPlayStops({.window_start = true});
    churn->cursor().play();
    churn->advance(100.0);  // one long step passes many GCs: it stops at the first that qualifies
    EXPECT_EQ(churn->currentGc(), start);
    EXPECT_NE(churn->lastStop().find("starts a"), std::string::npos) << churn->lastStop();
    ASSERT_TRUE(churn->selectWindow(0).ok());
    churn->waitSettled();
    EXPECT_EQ(churn->series()->firstGc(), churn->windows()[0].first_gc);
    EXPECT_EQ(churn->series()->lastGc(), churn->windows()[0].last_gc);
    EXPECT_FALSE(churn->selectWindow(99).ok());

    // The growing map's Location cache grows at every GC after the warm-up (by more than a byte,
    // by far less than 1 MiB).
    auto gm = opened(scenario("growing-map"), "type");
    const uint32_t location = gm->series()->find({"com.dynatrace.easytravel.jpa.business.Location"});
    ASSERT_NE(location, kNoNode);
    gm->select(location, false);
    ASSERT_TRUE(gm->goToGc(12).ok());
    gm->setPlayStops({.grows_over = 1});
    gm->cursor().play();
    gm->advance(100.0);
    EXPECT_EQ(gm->currentGc(), 13u);
    EXPECT_NE(gm->lastStop().find("the selection grew by"), std::string::npos) << gm->lastStop();
    ASSERT_TRUE(gm->goToGc(12).ok());
    gm->setPlayStops({.grows_over = 1u << 20});
    gm->cursor().play();
    gm->advance(100.0);
    EXPECT_EQ(gm->currentGc(), gm->series()->lastGc());  // played to the end
}

// The heap diff as a view (ICPE18 §5.3): born / died / permanent since the base GC at the
// cursor, in the background, following the cursor; a window's next step in one call.
TEST(Session, TheDiffShowsBornDiedAndPermanentSinceTheBaseGc) {
    auto s = opened(scenario("buggy-stack"), "type,site(callers=1)");
    EXPECT_EQ(s->diff(), nullptr);
    s->setRange(GcRange{3, 4});
    ASSERT_TRUE(s->goToGc(4).ok());
    s->showDiff(true);
    s->waitSettled();
    ASSERT_NE(s->diff(), nullptr) << s->diffError();
    EXPECT_TRUE(s->diffCurrent());
    EXPECT_EQ(s->diff()->baseGc(), 3u);
    EXPECT_EQ(s->diff()->gc(), 4u);
    const uint32_t type = s->series()->find({"at.jku.data.TestObject"});
    const uint32_t refill =
        s->series()->find({"at.jku.data.TestObject", "at.jku.BuggyMain.fill(BuggyMain.java:21)",
                           "at.jku.BuggyMain.main(BuggyMain.java:47)"});
    ASSERT_NE(refill, kNoNode);
    EXPECT_EQ(s->diff()->at(type).born.objects, 1'000u);
    EXPECT_EQ(s->diff()->at(type).died.objects, 1'000u);
    EXPECT_EQ(s->diff()->at(type).permanent.objects, 9'000u);
    EXPECT_EQ(s->diff()->at(refill).born.objects, 1'000u);
    // The city draws the born group in the born colour.
    render::DrawList list;
    s->compose(kRect, kFramebuffer, list);
    const scene::CityLayout* city = s->cityLayout();
    ASSERT_NE(city, nullptr);
    bool drawn = false;
    for (const render::BoxInstance& box : list.boxes)
        if (box.id == refill) {
            EXPECT_EQ(box.color, scene::cohortColor(scene::Cohort::kBorn));
            drawn = true;
        }
    EXPECT_TRUE(drawn);

    // The cursor moves: the diff follows it (GC 3 against itself: all permanent).
    ASSERT_TRUE(s->goToGc(3).ok());
    s->waitSettled();
    ASSERT_TRUE(s->diffCurrent());
    EXPECT_EQ(s->diff()->at(TreeSeries::kRoot).born.objects + s->diff()->at(TreeSeries::kRoot).died.objects,
              0u);
    // Before the base: no diff, and why.
    s->setRange(GcRange{4, 4});
    s->waitSettled();
    EXPECT_FALSE(s->diffCurrent());
    EXPECT_NE(s->diffError().find("before the base GC 4"), std::string::npos) << s->diffError();
    s->showDiff(false);
    s->compose(kRect, kFramebuffer, list);
    for (const render::BoxInstance& box : list.boxes) {
        if (box.id != refill) continue;
        EXPECT_NE(box.color, scene::cohortColor(scene::Cohort::kBorn));
    }

    // A window's next step: the growing map's heuristic leak window (GCs 3..26, +1,417%) as the
    // range, the series over it, the cursor at its last GC and the diff over it, where the
    // Location cache is mostly born.
    auto gm = opened(scenario("growing-map"), "type");
    const auto& all = gm->windows();
    const auto found = std::find_if(all.begin(), all.end(),
                                    [](const Window& w) { return w.kind == WindowKind::kLeakHeuristic; });
    ASSERT_NE(found, all.end());
    const Window w = *found;
    ASSERT_TRUE(gm->windowNext(static_cast<size_t>(found - all.begin())).ok());
    gm->waitSettled();
    ASSERT_TRUE(gm->range().has_value());
    EXPECT_EQ(gm->range()->from, w.first_gc);
    EXPECT_EQ(gm->range()->to, w.last_gc);
    EXPECT_EQ(gm->series()->firstGc(), gm->range()->from);
    EXPECT_EQ(gm->currentGc(), w.last_gc);
    ASSERT_TRUE(gm->diffShown());
    ASSERT_TRUE(gm->diffCurrent()) << gm->diffError();
    const uint32_t location = gm->series()->find({"com.dynatrace.easytravel.jpa.business.Location"});
    ASSERT_NE(location, kNoNode);
    EXPECT_EQ(scene::dominantCohort(gm->diff()->at(location), Metric::kBytes), scene::Cohort::kBorn);
    EXPECT_FALSE(gm->windowNext(99).ok());
}

// Churn mode (VMIL19 §3.4.2): a churn window's next step shows what died young in it, by the
// same views and table; off again, the heap's series comes back.
TEST(Session, ChurnModeShowsWhatDiedYoungInTheRange) {
    auto s = opened(scenario("churn"), "type");
    EXPECT_FALSE(s->showChurn(true).ok());  // no range yet
    const auto& all = s->windows();
    const auto found =
        std::find_if(all.begin(), all.end(), [](const Window& w) { return w.kind == WindowKind::kChurn; });
    ASSERT_NE(found, all.end());
    const Window w = *found;
    ASSERT_TRUE(s->windowNext(static_cast<size_t>(found - all.begin())).ok());
    s->waitSettled();
    ASSERT_TRUE(s->churnShown());
    EXPECT_FALSE(s->diffShown());
    ASSERT_EQ(s->range(), (GcRange{w.first_gc - 1, w.last_gc}));
    const TreeSeries* series = s->series();
    ASSERT_NE(series, nullptr) << s->seriesError();
    EXPECT_EQ(series->firstGc(), w.first_gc);
    EXPECT_EQ(series->lastGc(), w.last_gc);
    EXPECT_EQ(s->currentGc(), w.last_gc);
    // The series is the churn's: its groups and counts are churnSeries's over the range.
    auto chain = parseChain("type");
    ASSERT_TRUE(chain.ok());
    auto expected = churnSeries(*s->history(), w.first_gc - 1, w.last_gc, *chain);
    ASSERT_TRUE(expected.ok());
    const uint32_t integer = series->find({"java.lang.Integer"});
    ASSERT_NE(integer, kNoNode);
    EXPECT_EQ(series->counts(integer, w.last_gc),
              expected->counts(expected->find({"java.lang.Integer"}), w.last_gc));
    EXPECT_EQ(series->counts(TreeSeries::kRoot, w.last_gc), expected->counts(TreeSeries::kRoot, w.last_gc));
    // The inspector reads heaps: off in churn mode, saying why.
    s->select(integer);
    s->waitSettled();
    EXPECT_FALSE(s->inspection().has_value());
    EXPECT_NE(s->inspectionError().find("churn mode"), std::string::npos) << s->inspectionError();
    // A chain that reads references is refused; off again, the heap's series over the range.
    ASSERT_TRUE(s->applyChain(chainOf("pointed-from(type)")).ok());
    s->waitSettled();
    EXPECT_NE(s->seriesError(), "");
    ASSERT_TRUE(s->applyChain(chainOf("type")).ok());
    ASSERT_TRUE(s->showChurn(false).ok());
    s->waitSettled();
    EXPECT_FALSE(s->churnShown());
    EXPECT_EQ(s->series()->firstGc(), w.first_gc - 1);
    // (the burst's Integers are gone from the heap: fewer live than died young)
    const uint32_t live_integer = s->series()->find({"java.lang.Integer"});
    const uint64_t churned = expected->counts(expected->find({"java.lang.Integer"}), w.last_gc).objects;
    EXPECT_LT(live_integer == kNoNode ? 0 : s->series()->counts(live_integer, w.last_gc).objects, churned);
    ASSERT_TRUE(s->showChurn(true).ok());  // the range is still there: on again works
    s->waitSettled();
    EXPECT_TRUE(s->churnShown());
    s->showDiff(true);  // the diff is of heaps: churn mode ends
    s->waitSettled();
    EXPECT_FALSE(s->churnShown());
}

}  // namespace
}  // namespace memcity::explore

namespace memcity::explore {
namespace {

// Composes the view until a frame asks the background for nothing more (the heap map asks for
// its maps, then its history graph's tiles, as frames show what has come).
void composeSettled(Session& s, render::DrawList& list) {
    for (int frame = 0; frame < 8; ++frame) {
        s.compose(kRect, kFramebuffer, list);
        if (s.settled()) return;
        s.waitSettled();
    }
    ADD_FAILURE() << "the view still asks for work after 8 frames";
}

// The heap map in the explorer (docs/heapmap.md) on synth's simulated Serial layout: the map of
// the cursor's GC built in the background, a tile picked in the frame holding what the map says,
// a click selecting its groups, and the selection outlined where it lies.
TEST(Session, TheHeapMapShowsTheCursorsGcAndATileSelectsWhatItHolds) {
    const std::string path = scenario("growing-map");
    auto s = opened(path, "type");
    const HeapHistory& h = *s->history();
    uint32_t gc = 0;
    for (uint32_t g = 0; g < h.gcCount(); ++g)
        if (h.gcs()[g].has_addresses) gc = g;
    ASSERT_GT(gc, 0u);
    s->setView(scene::ViewKind::kHeapMap);
    ASSERT_TRUE(s->goToGc(gc));
    render::DrawList list;
    auto settle = [&] { composeSettled(*s, list); };
    settle();
    const HeapMap* map = s->heapMap().shown();
    ASSERT_NE(map, nullptr) << s->heapMap().error();
    EXPECT_EQ(map->gc, gc);
    EXPECT_TRUE(map->addresses);
    EXPECT_FALSE(list.rects.empty());
    // Every live object is in a space, outside, or without an address.
    auto heap = h.heapAt(gc);
    ASSERT_TRUE(heap);
    uint64_t bytes = map->outside_bytes + map->unplaced_bytes;
    for (const SpaceMap& space : map->spaces)
        bytes += space.bytes;
    EXPECT_EQ(bytes, heap->liveBytes());

    // A tile with objects, found by pointing at the frame: the types in it add up to the map's.
    std::optional<scene::HeapTilePick> tile;
    for (float y = kRect.min.y; y < kRect.max.y && !tile; y += 3.0f)
        for (float x = kRect.min.x; x < kRect.max.x && !tile; x += 3.0f)
            if (auto p = s->heapTileAt({x, y}); p && map->spaces[p->space].tiles[p->tile].objects > 3)
                tile = p;
    ASSERT_TRUE(tile.has_value());
    EXPECT_FALSE(s->heapTileAt(kRect.min - 1.0f).has_value());
    const auto info = s->heapMap().describe(*tile, h.trace().symbols());
    ASSERT_TRUE(info.has_value());
    EXPECT_EQ(info->to - info->from, map->tile_bytes);
    EXPECT_EQ(info->contents.objects, info->tile.objects);
    EXPECT_EQ(info->contents.bytes, info->tile.bytes);
    ASSERT_FALSE(info->type_names.empty());

    // A click selects the tile's groups: by type, the types in it that start there.
    s->selectTile(*tile);
    s->waitSettled();
    EXPECT_NE(s->takeNotice().find("selected the tile's"), std::string::npos);
    ASSERT_FALSE(s->selection().empty());
    for (uint32_t id : s->selection()) {
        const std::string name = s->nameOf(id);
        EXPECT_NE(std::find(info->type_names.begin(), info->type_names.end(), name), info->type_names.end())
            << name;
    }
    // The selection is outlined: its bytes in the map are those of its types at the GC.
    settle();
    map = s->heapMap().shown();
    ASSERT_NE(map, nullptr);
    uint64_t selected = 0, want = 0;
    for (const SpaceMap& space : map->spaces)
        for (const HeapTile& t : space.tiles)
            selected += t.selected_bytes;
    for (uint32_t id : s->selection())
        want += s->series()->counts(id, gc).bytes;
    EXPECT_EQ(selected, want);
    EXPECT_TRUE(std::any_of(list.rects.begin(), list.rects.end(),
                            [](const render::Rect& r) { return (r.flags & render::kFlagSelected) != 0; }));

    // Between two GCs the map of each is asked for, and the frame tweens them.
    s->cursor().seek(s->cursor().indexTimeOf(gc - 1) + 0.5);
    settle();
    ASSERT_NE(s->heapMap().shown(), nullptr);
    EXPECT_EQ(s->heapMap().shown()->gc, gc - 1);
    // Another view: no tiles.
    s->setView(scene::ViewKind::kCity);
    s->compose(kRect, kFramebuffer, list);
    EXPECT_FALSE(s->heapTileAt(kRect.center()).has_value());
}

}  // namespace
}  // namespace memcity::explore

namespace memcity::explore {
namespace {

// A trace without the collector's spaces (a heap dump's, G1's): the map fits the objects' range
// itself, a zoom halves its tiles; a GC with neither spaces nor addresses shows its own error,
// not the map of the GC before.
TEST(Session, TheHeapMapOfATraceWithoutSpacesFitsItselfAndSaysWhatAGcLacks) {
    testing::TraceBuilder b("no-spaces");
    for (uint64_t id = 1; id <= 64; ++id)
        b.alloc(id, id % 2 ? 1 : 2);  // A (16 B), B (24 B)
    b.gc(0, 65);
    std::vector<ObjectAddress> placed;
    for (uint64_t id = 1; id <= 64; ++id)
        placed.push_back({id, 0x10000 + (id - 1) * 32});
    b.writer().addresses(0, placed);
    b.alloc(65, 1);
    b.gc(1, 66);
    auto s = opened(b.finish(), "type");
    s->setView(scene::ViewKind::kHeapMap);
    ASSERT_TRUE(s->goToGc(0));
    render::DrawList list;
    auto settle = [&] { composeSettled(*s, list); };
    // Magnified before the first map came: the tiles are half the fitted size.
    s->heapMap().setZoom(1);
    settle();
    const HeapMap* map = s->heapMap().shown();
    ASSERT_NE(map, nullptr) << s->heapMap().error();
    ASSERT_EQ(map->spaces.size(), 1u);
    EXPECT_EQ(map->spaces[0].name, "heap");
    EXPECT_EQ(map->spaces[0].objects, 64u);
    const uint64_t magnified = map->tile_bytes;
    EXPECT_EQ(s->heapMap().tileBytes(), magnified);
    s->heapMap().setZoom(0);
    settle();
    ASSERT_NE(s->heapMap().shown(), nullptr);
    EXPECT_EQ(s->heapMap().shown()->tile_bytes, 2 * magnified);

    ASSERT_TRUE(s->goToGc(1));
    settle();
    EXPECT_NE(s->heapMap().error().find("GC 1 has neither"), std::string::npos) << s->heapMap().error();
    EXPECT_TRUE(list.rects.empty()) << "GC 0's tiles drawn for GC 1";
    ASSERT_FALSE(list.labels.empty());
    EXPECT_NE(list.labels.front().text.find("GC 1"), std::string::npos) << list.labels.front().text;
}

// A heap dump opened in the session: imported into the cache while the session follows the
// trace the import writes, then opened from the cache; a bad dump's error names it, and nothing
// of its import stays behind.
TEST(Session, AHeapDumpIsImportedOnceIntoTheCacheAndShown) {
    namespace fs = std::filesystem;
    const std::string dir = testing::tempDir("session-dump");
    testing::ScopedEnv cache("XDG_CACHE_HOME", (dir + "/cache").c_str());
    auto writeDump = [&](const std::string& name, std::vector<uint8_t> bytes) {
        const std::string path = dir + "/" + name;
        std::ofstream(path, std::ios::binary)
            .write(reinterpret_cast<const char*>(bytes.data()), static_cast<std::streamsize>(bytes.size()));
        return path;
    };
    const std::string dump = writeDump("little.hprof", hprof::testing::littleHeap());
    auto s = opened(dump, "type");
    EXPECT_EQ(s->path(), dump);
    EXPECT_FALSE(s->importing());
    ASSERT_EQ(s->gcs().size(), 1u);
    EXPECT_EQ(s->gcs()[0].live_objects, 17u);  // (test_hprof_import.cpp's little heap)
    EXPECT_TRUE(s->gcs()[0].has_snapshot);
    auto place = hprof::cachedImportOf(dump);
    ASSERT_TRUE(place.ok()) << place.error().message;
    EXPECT_TRUE(place->ready);
    EXPECT_FALSE(fs::exists(place->partial));

    // Again: from the cache at once.
    s->open(dump);
    EXPECT_FALSE(s->importing());
    s->waitSettled();
    EXPECT_TRUE(s->loaded()) << s->load().error;
    EXPECT_EQ(s->gcs().size(), 1u);

    // Cut short: the reader's error, naming the dump; no partial trace left.
    std::vector<uint8_t> cut = hprof::testing::littleHeap();
    cut.resize(cut.size() - 40);
    const std::string bad = writeDump("cut.hprof", cut);
    s->open(bad);
    s->waitSettled();
    EXPECT_EQ(s->load().phase, LoadPhase::kFailed);
    EXPECT_EQ(s->load().error.rfind(bad + ": offset ", 0), 0u) << s->load().error;
    EXPECT_FALSE(s->importing());
    EXPECT_EQ(s->series(), nullptr);
    auto bad_place = hprof::cachedImportOf(bad);
    ASSERT_TRUE(bad_place.ok());
    EXPECT_FALSE(bad_place->ready);
    EXPECT_FALSE(fs::exists(bad_place->partial));

    // A session closed while it imports: the import stops, and leaves nothing half-written.
    const std::string other = writeDump("other.hprof", hprof::testing::littleHeap(1'700'000'001'000ull));
    auto closing = std::make_unique<Session>(SessionOptions{});
    closing->open(other);
    closing.reset();
    auto other_place = hprof::cachedImportOf(other);
    ASSERT_TRUE(other_place.ok());
    EXPECT_FALSE(fs::exists(other_place->partial));
    fs::remove_all(dir);
}

}  // namespace
}  // namespace memcity::explore
