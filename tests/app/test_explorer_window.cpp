// The explorer in a real window (SDL2 + Vulkan swapchain under Xvfb), driven by a script as a
// user would: it loads a scenario, scrubs, plays, flies the camera, selects the biggest grower by
// clicking its building, reads the inspector, switches views and drills down; the screenshot is
// compared with tests/golden/explorer.png (MEMCITY_UPDATE_GOLDEN=1 rewrites it; look at it before
// committing). Bad input ends with one line and a non-zero status. Needs Xvfb (scripts/setup
// installs it); without it the tests are skipped.
#include <gtest/gtest.h>
#include <sys/stat.h>

#include <algorithm>
#include <cstdlib>
#include <fstream>

#include "app/virtual_display.h"
#include "cli/run_memcity.h"
#include "render/png.h"
#include "unit/sampled_trace.h"
#include "unit/slow_copy.h"
#include "unit/trace_builder.h"

namespace memcity {
namespace {

using testing::Outcome;

// `memcity ARGS` in the virtual display.
Outcome windowed(const std::string& args) {
    const std::string& display = testing::VirtualDisplay::name();
    EXPECT_FALSE(display.empty()) << testing::kXvfb << " did not start";
    return testing::runShell("DISPLAY=" + display + " " + MEMCITY_BINARY + " " + args);
}

std::string writeScript(const std::string& name, const std::string& text) {
    const std::string path = testing::tempPath(name + ".script");
    std::ofstream(path) << text;
    return path;
}

const std::string& growingMap() {
    static const std::string path = [] {
        const std::string dir = testing::tempDir("window");
        const std::string p = dir + "/growing-map.mct";
        EXPECT_EQ(testing::runMemcity("synth growing-map -o " + p).status, 0);
        return p;
    }();
    return path;
}

// The window's picture `image` (written to `shot`) against tests/golden/NAME, to within 1% of its
// pixels; MEMCITY_UPDATE_GOLDEN=1 rewrites the reference instead (look at it before committing).
enum class Golden { kCompared, kRewritten };
Golden matchesGolden(const render::Image& image, const std::string& shot, const std::string& name) {
    const std::string golden = std::string(MEMCITY_GOLDEN_DIR) + "/" + name;
    if (const char* update = std::getenv("MEMCITY_UPDATE_GOLDEN"); update && std::string(update) == "1") {
        EXPECT_TRUE(render::writePng(golden, image).ok());
        return Golden::kRewritten;
    }
    auto want = render::readPng(golden);
    EXPECT_TRUE(want.ok()) << want.error().message;
    if (!want.ok()) return Golden::kCompared;
    const render::ImageDiff d = render::compareImages(image, *want, 24);
    EXPECT_TRUE(d.same_size);
    EXPECT_LE(d.fractionOverThreshold(), 0.01)
        << d.pixels_over_threshold << " of " << d.pixel_count << " pixels differ; the picture is " << shot
        << ", the reference " << golden;
    return Golden::kCompared;
}

const std::string kLocation =
    "com / com.dynatrace / com.dynatrace.easytravel / com.dynatrace.easytravel.jpa / "
    "com.dynatrace.easytravel.jpa.business / com.dynatrace.easytravel.jpa.business.Location";

TEST(ExplorerWindow, ScrubFlySelectTheBiggestGrowerAndReadItsRoots) {
    if (!testing::haveXvfb()) GTEST_SKIP() << "no " << testing::kXvfb;
    const std::string shot = testing::tempPath("explorer.png");
    const std::string sunburst = testing::tempPath("explorer-sunburst.png");
    const std::string unscaled = testing::tempPath("explorer-unscaled.png");
    const std::string scaled = testing::tempPath("explorer-scaled.png");
    const std::string trees = testing::tempPath("explorer-trees.png");
    const std::string diff = testing::tempPath("explorer-diff.png");
    const std::string cities = testing::tempPath("explorer-cities.png");
    const std::string script = writeScript("smoke",
                                           "wait\n"
                                           "gc 3\n"
                                           "time 10.5\n"
                                           "play 1\n"
                                           "next\n"
                                           "key right\n"
                                           "print state\n"
                                           "mode fly\n"
                                           "key w\n"
                                           "mode orbit\n"
                                           "camera overview\n"
                                           "gc 26\n"
                                           "select " +
                                               kLocation +
                                               "\n"
                                               "frame\n"
                                               "deselect\n"
                                               "click view\n"
                                               "print selection\n"
                                               "print inspector\n"
                                               "hover 1270 12\n"
                                               "screenshot " +
                                               shot +
                                               "\n"
                                               "view sunburst\n"
                                               "drill java / java.util\n"
                                               "screenshot " +
                                               sunburst +
                                               "\n"
                                               "print state\n"
                                               "print timing\n"
                                               "drill-up\n"
                                               "gc 4\n"
                                               "screenshot " +
                                               unscaled +
                                               "\n"
                                               "scaled on\n"
                                               "screenshot " +
                                               scaled +
                                               "\n"
                                               "print state\n"
                                               "view timeline-trees\n"
                                               "pin 5\n"
                                               "pin 12\n"
                                               "print pins\n"
                                               "screenshot " +
                                               trees +
                                               "\n"
                                               "unpin 5\n"
                                               "print pins\n"
                                               "print state\n"
                                               "trees cities\n"
                                               "print state\n"
                                               "screenshot " +
                                               cities +
                                               "\n"
                                               "view city\n"
                                               "window-next 3\n"
                                               "wait\n"
                                               "print state\n"
                                               "print table\n"
                                               "screenshot " +
                                               diff +
                                               "\n"
                                               "diff off\n"
                                               "print state\n"
                                               "quit\n");
    const Outcome r = windowed(growingMap() + " --size 1280x800 --script " + script);
    ASSERT_EQ(r.status, 0) << r.err << r.out;
    // Time moved as asked: GC 3, then 10.5, a second of play (2 GCs), a step and a key.
    EXPECT_NE(r.out.find("gc: 14\nt: 14\n"), std::string::npos) << r.out;
    // The click on the framed building selected it, and the inspector read its roots.
    EXPECT_NE(r.out.find("selected: " + kLocation + "\n"), std::string::npos) << r.out;
    EXPECT_NE(r.out.find("group: " + kLocation + "\nGC 26: "), std::string::npos) << r.out;
    EXPECT_NE(r.out.find("retained: "), std::string::npos) << r.out;
    EXPECT_NE(r.out.find("path: static field com.dynatrace.easytravel.business.JourneyService.INSTANCE"),
              std::string::npos)
        << r.out;
    EXPECT_NE(r.out.find("view: sunburst\n"), std::string::npos);
    EXPECT_NE(r.out.find("drill: java / java.util\n"), std::string::npos);
    EXPECT_NE(r.out.find("timing: input to picture"), std::string::npos);

    auto image = render::readPng(shot);
    ASSERT_TRUE(image.ok()) << image.error().message;
    EXPECT_EQ(image->width, 1280u);
    EXPECT_EQ(image->height, 800u);
    if (matchesGolden(*image, shot, "explorer.png") == Golden::kRewritten)
        GTEST_SKIP() << "rewrote explorer.png";
    // The sunburst is another picture of the same window.
    auto other = render::readPng(sunburst);
    ASSERT_TRUE(other.ok());
    EXPECT_GT(render::compareImages(*image, *other, 24).fractionOverThreshold(), 0.2);
    // Scaled, the sunburst of GC 4 (a sixth of the last GC's heap) shrinks towards its centre.
    EXPECT_NE(r.out.find("view: sunburst (scaled)\n"), std::string::npos) << r.out;
    auto full = render::readPng(unscaled);
    auto small = render::readPng(scaled);
    ASSERT_TRUE(full.ok() && small.ok());
    EXPECT_GT(render::compareImages(*full, *small, 24).fractionOverThreshold(), 0.1);
    // The timeline trees: the pins, and a tree each beside the cursor's (GC 4), scaled.
    EXPECT_NE(r.out.find("pins: 5 12\n"), std::string::npos) << r.out;
    EXPECT_NE(r.out.find("pins: 12\n"), std::string::npos) << r.out;
    EXPECT_NE(r.out.find("view: timeline-trees (scaled)\n"), std::string::npos) << r.out;
    auto row = render::readPng(trees);
    ASSERT_TRUE(row.ok());
    EXPECT_GT(render::compareImages(*small, *row, 24).fractionOverThreshold(), 0.02);
    // The same pins as small cities.
    EXPECT_NE(r.out.find("view: timeline-trees (scaled) (cities)\n"), std::string::npos) << r.out;
    auto town = render::readPng(cities);
    ASSERT_TRUE(town.ok());
    EXPECT_GT(render::compareImages(*row, *town, 24).fractionOverThreshold(), 0.05);
    // The heuristic leak window's next step: its range, the series over it, the cursor at its end,
    // the diff in the city and in the table's columns; then off again.
    EXPECT_NE(r.out.find("window 3: leak-heuristic 3..26\n"), std::string::npos) << r.out;
    const size_t diffed = r.out.find("diff: GC 3 -> 26, born ");
    EXPECT_NE(diffed, std::string::npos) << r.out;
    EXPECT_NE(r.out.find("range: 3..26\n"), std::string::npos) << r.out;
    EXPECT_NE(
        r.out.find(",born_objects,born_bytes,died_objects,died_bytes,permanent_objects,permanent_bytes\r\n"),
        std::string::npos)
        << r.out;
    EXPECT_EQ(r.out.find("diff: ", diffed + 1), std::string::npos) << r.out;  // off: no diff line
    auto coloured = render::readPng(diff);
    ASSERT_TRUE(coloured.ok());
    EXPECT_GT(render::compareImages(*image, *coloured, 24).fractionOverThreshold(), 0.05);
}

// The demo's heap map in the window (docs/heapmap.md): the audit history selected is outlined
// where it lies and coloured by its share (tests/golden/explorer_heapmap.png); a tile tells what it
// holds, a click on it selects its groups, and the tiles halve when magnified.
TEST(ExplorerWindow, TheDemosHeapMapShowsWhereTheAuditHistoryLives) {
    if (!testing::haveXvfb()) GTEST_SKIP() << "no " << testing::kXvfb;
    const std::string shot = testing::tempPath("explorer-heapmap.png");
    const std::string script = writeScript("heapmap",
                                           "wait\n"
                                           "chain type\n"
                                           "view heapmap\n"
                                           "gc 40\n"
                                           "select ShopServer$AuditEntry\n"
                                           "heapmap stream selected\n"
                                           "heapmap space Tenured Gen\n"
                                           "wait\n"
                                           "print state\n"
                                           "screenshot " +
                                               shot +
                                               "\n"
                                               "tile 420 240\n"
                                               "click 420 240\n"
                                               "wait\n"
                                               "print selection\n"
                                               "print state\n"
                                               "heapmap zoom 1\n"
                                               "wait\n"
                                               "print state\n"
                                               "heapmap space Old Gen\n");
    const Outcome r =
        windowed(std::string(MEMCITY_DEMO_TRACE) + " --size 1400x860 --settings - --script " + script);
    // The last line names a space the demo does not have: one line, the spaces it has, status 1.
    EXPECT_EQ(r.status, 1) << r.err << r.out;
    EXPECT_NE(r.err.find("heapmap space: no space 'Old Gen' (its spaces: Eden Space, Survivor Space 0, "
                         "Survivor Space 1, Tenured Gen)"),
              std::string::npos)
        << r.err;
    // At GC 40 the audit history holds 2,500 entries of 32 bytes: all of them placed.
    EXPECT_NE(r.out.find("view: heapmap\n"), std::string::npos) << r.out;
    EXPECT_NE(r.out.find("heapmap: GC 40, selected, tiles of 32768 bytes, 4 spaces, 80000 bytes selected\n"),
              std::string::npos)
        << r.out;
    // The tile under the pointer, in the old space, and what a click on it selected: its types.
    const size_t tile = r.out.find("tile: Tenured Gen 0x");
    ASSERT_NE(tile, std::string::npos) << r.out;
    const size_t first_type = r.out.find("tile type: ", tile);
    ASSERT_NE(first_type, std::string::npos) << r.out;
    const size_t name_end = r.out.find(' ', first_type + 11);
    const std::string top_type = r.out.substr(first_type + 11, name_end - first_type - 11);
    EXPECT_NE(r.out.find("selected: " + top_type + "\n"), std::string::npos) << top_type << "\n" << r.out;
    EXPECT_NE(r.out.find("status: selected the tile's "), std::string::npos) << r.out;
    EXPECT_NE(r.out.find("tiles of 16384 bytes"), std::string::npos) << r.out;

    auto image = render::readPng(shot);
    ASSERT_TRUE(image.ok()) << image.error().message;
    if (matchesGolden(*image, shot, "explorer_heapmap.png") == Golden::kRewritten)
        GTEST_SKIP() << "rewrote explorer_heapmap.png";
}

// The dominator view in the window (docs/explorer.md, "The dominator view"): on the demo at GC 41,
// grouped by type, the ConcurrentHashMap group opened and its biggest object (the audit history's
// map) selected; the inspector reads that object and the city highlights the buildings that hold
// what it retains; then the cursor moves to the snapshot GC 40 and
// the view follows, the object still selected by its id.
TEST(ExplorerWindow, TheDominatorViewFindsTheAuditHistorysMapAndFollowsTheCursor) {
    if (!testing::haveXvfb()) GTEST_SKIP() << "no " << testing::kXvfb;
    const std::string shot = testing::tempPath("explorer-dominators.png");
    const std::string map = "java.util.concurrent.ConcurrentHashMap";
    const std::string script = writeScript("dominators",
                                           "wait\n"
                                           "gc 41\n"
                                           "dominators on\n"
                                           "wait\n"
                                           "dominators group type\n"
                                           "dominators expand " +
                                               map +
                                               "\n"
                                               "print dominators\n"
                                               "dominators select " +
                                               map +
                                               "#11690\n"
                                               "wait\n"
                                               "print dominators\n"
                                               "print inspector\n"
                                               "screenshot " +
                                               shot +
                                               "\n"
                                               "gc 40\n"
                                               "wait\n"
                                               "print dominators\n"
                                               "print inspector\n"
                                               "select (no package) / ShopServer$AuditEntry\n"
                                               "wait\n"
                                               "print dominators\n"
                                               "quit\n");
    const Outcome r =
        windowed(std::string(MEMCITY_DEMO_TRACE) + " --size 1180x720 --settings - --script " + script);
    ASSERT_EQ(r.status, 0) << r.err << r.out;
    const size_t at40 = r.out.find("dominator tree of snapshot GC 40");
    ASSERT_NE(at40, std::string::npos) << r.out;
    const std::string early = r.out.substr(0, at40), late = r.out.substr(at40);
    // GC 41: the group of the 18 maps, the audit history's map first in it.
    EXPECT_EQ(
        early.rfind("dominator tree of snapshot GC 41, grouped by type\n"
                    "- " +
                        map +
                        ": retained 1257944 B, 30219 objects, 41.3%; shallow 1152 B, 18 objects\n"
                        "  + " +
                        map + "#11690: retained 1150120 B, 27402 objects, 37.8%; shallow 64 B, 1 object\n",
                    0),
        0u)
        << early;
    // The inspector reads that one object: what it retains, and the static field that holds it.
    EXPECT_NE(early.find("group: " + map + "#11690 (dominator tree of GC 41)\nGC 41: 1 objects, 64 B of "),
              std::string::npos)
        << early;
    EXPECT_NE(early.find("retained: 27402 objects, 1150120 B\n"), std::string::npos) << early;
    EXPECT_NE(early.find("path: static field ShopServer.AUDIT_HISTORY → " + map), std::string::npos) << early;
    // The city highlights the buildings that hold what the map retains: all of it.
    EXPECT_NE(early.find("city: 11 buildings hold 27402 objects, 1150120 B of the 27402 objects, 1150120 B "
                         "that " +
                         map + "#11690 retains at GC 41\n"),
              std::string::npos)
        << early;
    // GC 40: the view followed the cursor, the same map still open and selected, retaining less.
    EXPECT_NE(
        late.find("  + " + map +
                  "#11690: retained 1011760 B, 23143 objects, 26.1%; shallow 64 B, 1 object [selected]\n"),
        std::string::npos)
        << late;
    // The inspector reads the row again in GC 40's tree: its title, and the map's figures there
    // as `memcity inspect assets/demo.mct --gc 40 --filter 'id == 11690' --json` gives them (it
    // reaches the same 27402 objects as at GC 41, but 4259 of them are held from elsewhere too).
    const size_t building = late.find("building: ");
    ASSERT_NE(building, std::string::npos) << late;
    const std::string inspector = late.substr(0, building), clicked = late.substr(building);
    EXPECT_NE(inspector.find("group: " + map +
                             "#11690 (dominator tree of GC 40)\n"
                             "GC 40: 1 objects, 64 B of 95109 objects"),
              std::string::npos)
        << inspector;
    EXPECT_EQ(inspector.find("GC 41"), std::string::npos) << inspector;
    EXPECT_NE(inspector.find("deep: 27402 objects, 1150120 B\nretained: 23143 objects, 1011760 B\n"),
              std::string::npos)
        << inspector;
    // The AuditEntry building clicked: the view selects the map's group, which holds all of it.
    EXPECT_NE(clicked.find("building: (no package) / ShopServer$AuditEntry: " + map +
                           "#11690 retains 2500 of its 2500 objects (80000 B), in the group " + map + "\n"),
              std::string::npos)
        << clicked;
    EXPECT_NE(clicked.find("\n- " + map +
                           ": retained 1117256 B, 25894 objects, 28.8%; shallow 1152 B, 18 "
                           "objects [selected]\n"),
              std::string::npos)
        << clicked;
    EXPECT_NE(
        late.find("city: 11 buildings hold 23143 objects, 1011760 B of the 23143 objects, 1011760 B that " +
                  map + "#11690 retains at GC 40\n"),
        std::string::npos)
        << late;
    auto image = render::readPng(shot);
    ASSERT_TRUE(image.ok()) << image.error().message;
    if (matchesGolden(*image, shot, "explorer_dominators.png") == Golden::kRewritten)
        GTEST_SKIP() << "rewrote explorer_dominators.png";
}

// A sampled recording in the window (docs/explorer.md, "A sampled recording"): the status bar says
// so, every figure is an estimate with its 95% interval and the samples behind it (the table, the
// inspector, the hovered building's tooltip, the timeline), and what needs reference snapshots is
// greyed out with the reason (tests/golden/explorer_sampled.png); the heap map draws the spaces'
// tops, and its object streams are refused, saying why.
TEST(ExplorerWindow, ASampledRecordingShowsEstimatesAndSaysWhatItLacks) {
    if (!testing::haveXvfb()) GTEST_SKIP() << "no " << testing::kXvfb;
    const std::string trace = testing::writeSampledShop(testing::tempDir("window-sampled") + "/shop.mct");
    const std::string shot = testing::tempPath("explorer-sampled.png");
    const std::string map = testing::tempPath("explorer-sampled-heapmap.png");
    const std::string leak = "com.shop.Audit.record(Audit.java:17) / com.shop.AuditEntry";
    const std::string script = writeScript("sampled",
                                           "wait\n"
                                           "chain site,type\n"
                                           "gc 9\n"
                                           "select " +
                                               leak +
                                               "\n"
                                               "wait\n"
                                               "print state\n"
                                               "print inspector\n"
                                               "print table\n"
                                               "hover 420 300\n"
                                               "screenshot " +
                                               shot +
                                               "\n"
                                               "chain site,rooted\n");
    Outcome r = windowed(trace + " --size 1280x800 --settings - --script " + script);
    // The chain that reads references is refused, with the reason, in one line.
    EXPECT_EQ(r.status, 1) << r.err << r.out;
    EXPECT_NE(
        r.err.find(":11: classifier 2: reads references: this sampled recording has no reference snapshot\n"),
        std::string::npos)
        << r.err;
    EXPECT_NE(
        r.out.find("sampled: 1 per 64 KiB: one allocation per 64 KiB on average was recorded; objects and "
                   "bytes are estimates (\u2248) with 95% intervals\n"),
        std::string::npos)
        << r.out;
    EXPECT_NE(r.out.find("overall: \u2248 "), std::string::npos) << r.out;
    EXPECT_NE(
        r.out.find("unavailable: retained and deep sizes, GC roots, paths, classifiers that read references "
                   "(this sampled recording has no reference snapshot); the heap map's objects (a sampled "
                   "recording has no object addresses)\n"),
        std::string::npos)
        << r.out;
    // The inspector: the group's estimate and the heap's, what they rest on, no roots.
    EXPECT_NE(r.out.find("group: " + leak + "\nGC 9: \u2248 "), std::string::npos) << r.out;
    EXPECT_NE(r.out.find(" from 30 samples, of \u2248 "), std::string::npos) << r.out;
    EXPECT_NE(
        r.out.find("note: deep and retained sizes, GC roots and the paths to them: this sampled recording "
                   "has no reference snapshot\n"),
        std::string::npos)
        << r.out;
    // The table's copy: the intervals and samples beside the estimates, no retained sizes.
    EXPECT_NE(r.out.find(",bytes_growth,objects_low,objects_high,bytes_low,bytes_high,samples\r\n"),
              std::string::npos)
        << r.out;
    auto image = render::readPng(shot);
    ASSERT_TRUE(image.ok()) << image.error().message;
    const bool rewritten = matchesGolden(*image, shot, "explorer_sampled.png") == Golden::kRewritten;

    // The heap map: the spaces' tops only; the object streams are refused, saying why.
    const std::string heapmap = writeScript("sampled-heapmap",
                                            "wait\n"
                                            "view heapmap\n"
                                            "gc 9\n"
                                            "wait\n"
                                            "print state\n"
                                            "screenshot " +
                                                map +
                                                "\n"
                                                "tile 420 240\n"
                                                "click 420 240\n"
                                                "wait\n"
                                                "print state\n"
                                                "heapmap stream objects\n");
    r = windowed(trace + " --size 1280x800 --settings - --script " + heapmap);
    EXPECT_EQ(r.status, 1) << r.err << r.out;
    EXPECT_NE(r.out.find("heapmap: GC 9, used, tiles of "), std::string::npos) << r.out;
    EXPECT_NE(r.out.find(" 2 spaces, no addresses, 0 bytes selected\n"), std::string::npos) << r.out;
    // A tile's bytes used, its objects unknown; a click on it selects nothing and says why.
    EXPECT_NE(
        r.out.find(" GC 9: 65536 bytes used; objects unknown: a sampled recording has no object addresses\n"),
        std::string::npos)
        << r.out;
    EXPECT_NE(
        r.out.find("status: a sampled recording has no object addresses: a tile's objects are not known\n"),
        std::string::npos)
        << r.out;
    EXPECT_NE(
        r.err.find(":11: heapmap stream objects: a sampled recording has no object addresses (only 'used' "
                   "can be drawn)\n"),
        std::string::npos)
        << r.err;
    auto picture = render::readPng(map);
    ASSERT_TRUE(picture.ok()) << picture.error().message;
    if (rewritten) GTEST_SKIP() << "rewrote explorer_sampled.png";
}

// A trace its writer is still writing: the window shows the GCs that have arrived, says it is
// live, and ends with the whole trace once the writer finishes.
TEST(ExplorerWindow, ATraceStillBeingWrittenGrowsOnScreen) {
    if (!testing::haveXvfb()) GTEST_SKIP() << "no " << testing::kXvfb;
    const std::string path = testing::tempPath("window-live") + ".mct";
    // growing-map's 27 GCs in about 110 chunks: 4 to 5 s of writing.
    testing::SlowCopy writer(growingMap(), path, std::chrono::milliseconds(40), true);
    const std::string shot = testing::tempPath("window-live") + ".png";
    const std::string script =
        writeScript("live", "wait-gc 2\nprint state\nscreenshot " + shot + "\nwait\nprint state\n");
    const Outcome r = windowed(path + " --script " + script);
    EXPECT_EQ(r.status, 0) << r.err;
    const size_t second = r.out.find("gc: ", r.out.find("gc: ") + 1);
    ASSERT_NE(second, std::string::npos) << r.out;
    const std::string early = r.out.substr(0, second), late = r.out.substr(second);
    // At GC 2 (or a little later: the cursor follows the newest) the writer was not done.
    EXPECT_NE(early.find("live: "), std::string::npos) << early;
    EXPECT_NE(early.find("city: "), std::string::npos) << early;
    EXPECT_TRUE(writer.done());
    EXPECT_NE(late.find("gc: 26\n"), std::string::npos) << late;
    EXPECT_EQ(late.find("live: "), std::string::npos) << late;
    EXPECT_EQ(late.find("note: "), std::string::npos) << late;
    auto picture = render::readPng(shot);
    EXPECT_TRUE(picture.ok());
}

TEST(ExplorerWindow, BadInputEndsWithOneLineAndAnError) {
    if (!testing::haveXvfb()) GTEST_SKIP() << "no " << testing::kXvfb;
    const std::string unknown = writeScript("unknown", "wait\nfly-to 3\n");
    Outcome r = windowed(growingMap() + " --script " + unknown);
    EXPECT_EQ(r.status, 1) << r.err;
    EXPECT_NE(r.err.find("memcity: " + unknown + ":2: unknown command 'fly-to'"), std::string::npos) << r.err;

    const std::string range = writeScript("range", "gc 99\n");
    r = windowed(growingMap() + " --script " + range);
    EXPECT_EQ(r.status, 1) << r.err;
    EXPECT_NE(
        r.err.find(range + ":1: " + growingMap() + ": GC 99 is out of range: the trace has 27 GCs (0..26)"),
        std::string::npos)
        << r.err;

    const std::string wait_gc = writeScript("wait-gc", "wait-gc 30\n");
    r = windowed(growingMap() + " --script " + wait_gc);
    EXPECT_EQ(r.status, 1) << r.err;
    EXPECT_NE(r.err.find(wait_gc + ":1: wait-gc 30: the trace has 27 GCs"), std::string::npos) << r.err;

    const std::string select = writeScript("select", "select java / nope\n");
    r = windowed(growingMap() + " --script " + select);
    EXPECT_EQ(r.status, 1) << r.err;
    EXPECT_NE(r.err.find(select + ":1: no group 'java / nope' in the series by package,type"),
              std::string::npos)
        << r.err;

    r = windowed("/nonexistent/trace.mct --script " + range);
    EXPECT_EQ(r.status, 1) << r.err;
    EXPECT_EQ(r.err, "error: /nonexistent/trace.mct: cannot open: No such file or directory\n");

    // A trace cut off mid-write opens up to its last complete chunk, and says so.
    const std::string cut = testing::tempPath("cut.mct");
    {
        const std::string bytes = testing::slurp(growingMap());
        std::ofstream(cut, std::ios::binary) << bytes.substr(0, bytes.size() * 2 / 3);
    }
    const std::string state = writeScript("state", "print state\n");
    r = windowed(cut + " --script " + state);
    EXPECT_EQ(r.status, 0) << r.err;
    EXPECT_NE(r.out.find("gc: "), std::string::npos);
    EXPECT_NE(r.out.find("note: " + cut + ": offset "), std::string::npos) << r.out;
    EXPECT_NE(r.out.find("the trace is cut off here"), std::string::npos) << r.out;
    // A GC the cut trace does not have is said once it has loaded.
    const std::string loaded = writeScript("loaded", "wait\nprint state\n");
    r = windowed(cut + " --gc 99 --script " + loaded);
    EXPECT_EQ(r.status, 0) << r.err;
    EXPECT_NE(r.out.find("status: --gc: " + cut + ": GC 99 is out of range"), std::string::npos) << r.out;
    // A GC it has is no error, also for a chain that has no series until the trace has loaded.
    r = windowed(growingMap() + " --classify rooted,type --gc 20 --script " + loaded);
    EXPECT_EQ(r.status, 0) << r.err;
    EXPECT_EQ(r.out.find("out of range"), std::string::npos) << r.out;

    // Garbage is not a trace: the window says so, the script fails with the reader's message.
    const std::string garbage = testing::tempPath("garbage.mct");
    std::ofstream(garbage) << "this is not a trace";
    r = windowed(garbage + " --script " + state);
    EXPECT_EQ(r.status, 1) << r.err;
    EXPECT_NE(r.err.find(garbage), std::string::npos) << r.err;

    // A GC the trace does not have is refused before the window opens.
    r = windowed(growingMap() + " --gc 99");
    EXPECT_EQ(r.status, 1) << r.err;
    EXPECT_EQ(r.err, "error: " + growingMap() + ": GC 99 is out of range: the trace has 27 GCs (0..26)\n");

    for (const char* args : {" --size 10x10", " --view timeline", " --bogus", " --classify nope"}) {
        r = windowed(growingMap() + args);
        EXPECT_EQ(r.status, 1) << args;
        EXPECT_EQ(std::count(r.err.begin(), r.err.end(), '\n'), 1) << args << ": " << r.err;
    }
}

// Without a display the same command prints the terminal overview and says why.
TEST(ExplorerWindow, WithoutADisplayTheOverviewIsPrinted) {
    const Outcome r = testing::runShell("env -u DISPLAY -u WAYLAND_DISPLAY " + std::string(MEMCITY_BINARY) +
                                        " " + growingMap());
    EXPECT_EQ(r.status, 0) << r.err;
    EXPECT_NE(r.out.find("live heap after each GC"), std::string::npos);
    EXPECT_NE(r.err.find("no display"), std::string::npos) << r.err;
    // The window's options wait for a display; the overview still takes --gc.
    const Outcome options =
        testing::runShell("env -u DISPLAY -u WAYLAND_DISPLAY " + std::string(MEMCITY_BINARY) + " " +
                          growingMap() + " --classify type --size 800x600 --gc 3");
    EXPECT_EQ(options.status, 0) << options.err;
    EXPECT_NE(options.out.find("biggest types at GC 3 "), std::string::npos) << options.out;
    EXPECT_NE(options.err.find("where --classify, --size apply)"), std::string::npos) << options.err;
    const Outcome text = testing::runMemcity(growingMap() + " --text");
    EXPECT_EQ(text.status, 0);
    EXPECT_NE(text.out.find("live heap after each GC"), std::string::npos);
}

// A sampled recording's terminal overview: its allocations are samples, its heaps estimates.
TEST(ExplorerWindow, ASampledRecordingsOverviewShowsEstimates) {
    const std::string trace = testing::writeSampledShop(testing::tempDir("overview-sampled") + "/shop.mct");
    const Outcome r = testing::runMemcity(trace + " --text");
    EXPECT_EQ(r.status, 0) << r.err;
    EXPECT_NE(r.out.find(", 12 GCs, 212 allocations sampled ("), std::string::npos) << r.out;
    EXPECT_NE(r.out.find("  peak live heap \u2248 "), std::string::npos) << r.out;
    EXPECT_NE(r.out.find("  sampled: one allocation per 64.0 KiB on average; objects and bytes are estimates "
                         "(\u2248) with 95% intervals\n"),
              std::string::npos)
        << r.out;
    EXPECT_NE(r.out.find("live heap after each GC (estimated, 12 GCs)"), std::string::npos) << r.out;
    EXPECT_NE(r.out.find("biggest types at GC 11 (\u2248 "), std::string::npos) << r.out;
    EXPECT_NE(r.out.find(" from 91 samples)\n"), std::string::npos) << r.out;
    EXPECT_NE(r.out.find(" objects  ############                   com.shop.AuditEntry\n"), std::string::npos)
        << r.out;
}

}  // namespace
}  // namespace memcity
