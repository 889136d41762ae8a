// End-to-end pictures: `memcity render` on a known scenario, compared with the reference PNGs in
// tests/golden/ (looked at by a person whenever they change). MEMCITY_UPDATE_GOLDEN=1 rewrites the
// references instead of comparing; look at them before committing.
#include <gtest/gtest.h>
#include <sys/stat.h>
#include <sys/wait.h>

#include <cstdio>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <sstream>

#include "cli/run_memcity.h"
#include "render/png.h"
#include "scene/palette.h"
#include "unit/g1_trace.h"
#include "unit/sampled_trace.h"
#include "unit/trace_builder.h"

namespace memcity {
namespace {

using testing::Outcome;
using testing::slurp;

Outcome run(const std::string& args) {
    return testing::runMemcity(args);
}

// The growing-map scenario (STAG20 §7.2): a cache whose keys lack equals/hashCode grows GC by GC.
const std::string& growingMap() {
    static const std::string path = [] {
        // A fixed file name: the title bar shows it, and the reference pictures too.
        const std::string dir = testing::tempDir("views");
        const std::string p = dir + "/growing-map.mct";
        const Outcome r = run("synth growing-map -o " + p);
        EXPECT_EQ(r.status, 0) << r.err;
        return p;
    }();
    return path;
}

render::Image load(const std::string& path) {
    auto image = render::readPng(path);
    EXPECT_TRUE(image.ok()) << (image.ok() ? "" : image.error().message);
    return image ? std::move(*image) : render::Image{};
}

// The sampled shop (tests/unit/sampled_trace.h): a sampled recording, under a fixed name too.
const std::string& sampledShop() {
    static const std::string path =
        testing::writeSampledShop(testing::tempDir("views-sampled") + "/shop.mct");
    return path;
}

// Renders `args` of `trace` to a PNG and compares it with tests/golden/NAME.png: at most 1% of the
// pixels may differ by more than 24 in a channel (other drivers and Mesa versions antialias a
// little differently; a changed layout or colour moves far more).
void expectGoldenOf(const std::string& trace, const std::string& name, const std::string& args) {
    const std::string out = testing::tempPath(name + ".png");
    const Outcome r = run("render " + trace + " " + args + " -o " + out);
    ASSERT_EQ(r.status, 0) << r.err;
    const std::string golden = std::string(MEMCITY_GOLDEN_DIR) + "/" + name + ".png";
    if (const char* update = std::getenv("MEMCITY_UPDATE_GOLDEN"); update && std::string(update) == "1") {
        ASSERT_TRUE(render::writePng(golden, load(out)).ok());
        GTEST_SKIP() << "rewrote " << golden;
    }
    const render::Image got = load(out), want = load(golden);
    const render::ImageDiff d = render::compareImages(got, want, 24);
    EXPECT_TRUE(d.same_size) << got.width << "x" << got.height << " vs " << want.width << "x" << want.height;
    EXPECT_LE(d.fractionOverThreshold(), 0.01)
        << name << ": " << d.pixels_over_threshold << " of " << d.pixel_count << " pixels differ (mean "
        << d.mean_abs_diff << "); the picture is " << out << ", the reference " << golden;
}

void expectGolden(const std::string& name, const std::string& args) {
    expectGoldenOf(growingMap(), name, args);
}

TEST(RenderGolden, City) {
    expectGolden("city", "--view city --gc 20 --size 800x450");
}
TEST(RenderGolden, CityTop) {
    expectGolden("city_top", "--view city --camera top --size 800x450");
}
TEST(RenderGolden, Sunburst) {
    expectGolden("sunburst", "--view sunburst --gc 20 --size 800x450");
}
TEST(RenderGolden, Icicle) {
    expectGolden("icicle", "--view icicle --gc 20 --size 800x450");
}
TEST(RenderGolden, Timeline) {
    expectGolden("timeline", "--view timeline --gc 20 --size 800x450");
}

// STAG20's timeline-based view: a scaled sunburst per pinned GC, the cursor's (GC 26) marked,
// the leaking Location cache selected in every tree.
TEST(RenderGolden, TimelineTrees) {
    expectGolden("timeline_trees",
                 "--view timeline-trees --pins 5,12,20 --classify package,type --size 1000x450 --select "
                 "'com / com.dynatrace / com.dynatrace.easytravel / com.dynatrace.easytravel.jpa / "
                 "com.dynatrace.easytravel.jpa.business / com.dynatrace.easytravel.jpa.business.Location'");
}

// The heap diff as a view (ICPE18 §5.3): the city coloured by what dominates each group from GC
// 13 to GC 26, the leaking Location cache and its Strings mostly born (vermillion).
TEST(RenderGolden, CityDiff) {
    expectGolden("city_diff", "--view city --classify type --diff-from 13 --gc 26 --size 1000x450");
}

// The same pins as small cities on one layout: the selected Location cache on its lot, taller in
// every city.
TEST(RenderGolden, TimelineCities) {
    expectGolden("timeline_cities",
                 "--view timeline-trees --pins 5,12,20 --shape city --classify package,type --size 1000x450 "
                 "--select 'com / com.dynatrace / com.dynatrace.easytravel / com.dynatrace.easytravel.jpa / "
                 "com.dynatrace.easytravel.jpa.business / com.dynatrace.easytravel.jpa.business.Location'");
}

// GCspy's heap map of the simulated Serial layout: the old space's holes where objects died.
TEST(RenderGolden, HeapMap) {
    expectGolden("heapmap", "--view heapmap --gc 20 --size 800x450");
}
// What dies at the next GC, and the history of eden filling and emptying.
TEST(RenderGolden, HeapMapDyingAndEden) {
    expectGolden("heapmap_dying",
                 "--view heapmap --stream dying --space 'Eden Space' --gc 12 --size 800x450");
}

// A sampled recording's views say so: the title bar shows the heap as an estimate with its 95%
// interval and "sampled: 1 per 64 KiB"; the timeline draws the live bytes' interval as a band
// ("live ≈ (95% interval)"); the heap map draws the spaces' tops only, saying why.
TEST(RenderGolden, SampledCity) {
    expectGoldenOf(sampledShop(), "city_sampled", "--view city --classify site,type --size 800x450");
}
TEST(RenderGolden, SampledTimelineTrees) {
    expectGoldenOf(sampledShop(), "timeline_trees_sampled",
                   "--view timeline-trees --pins 3,7 --classify site,type --size 1000x450");
}
TEST(RenderGolden, SampledTimeline) {
    expectGoldenOf(sampledShop(), "timeline_sampled", "--view timeline --size 800x450");
}
TEST(RenderGolden, SampledHeapMap) {
    expectGoldenOf(sampledShop(), "heapmap_sampled", "--view heapmap --gc 8 --size 800x450");
}

// G1's heap (tests/unit/g1_trace.h) as its region grid: a tile per region, each region's role as
// a band along its top (the humongous object's joined over its three regions), the roles counted
// in the legend, and the history of every region's role before and after each GC.
TEST(RenderGolden, G1RegionGrid) {
    static const std::string path = [] {
        const std::string p = testing::tempDir("views-g1") + "/g1-heap.mct";
        std::filesystem::copy_file(testing::writeG1Heap(), p);
        return p;
    }();
    expectGoldenOf(path, "heapmap_g1", "--view heapmap --gc 0 --tile 64k --tile-px 30 --size 800x450");
}

// What a sampled recording cannot have is refused with the reason, in one line.
TEST(RenderCli, ASampledRecordingSaysWhatItCannotDraw) {
    const std::string t = sampledShop(), out = testing::tempPath("sampled-bad.png");
    Outcome r = run("render " + t + " --view heapmap --stream age -o " + out);
    EXPECT_EQ(r.status, 1);
    EXPECT_EQ(r.err,
              "memcity render: --stream age: " + t +
                  ": a sampled recording has no object addresses (only --stream used, the spaces' tops, "
                  "can be drawn)\n");
    r = run("render " + t + " --classify type,rooted -o " + out);
    EXPECT_EQ(r.status, 1);
    EXPECT_EQ(r.err,
              "memcity render: 'type,rooted' reads references: this sampled recording has no reference "
              "snapshot\n");
    // What it has draws, the diff among it (its cohorts are estimates, and the title marks them).
    r = run("render " + t + " --view city --classify type --diff-from 4 --gc 9 --size 480x270 -o " + out);
    EXPECT_EQ(r.status, 0) << r.err;
}

TEST(RenderCli, EveryViewOfTheRealDemoRecording) {
    // The bundled demo: a JVM recorded through our agent. Each view draws a picture that is mostly
    // not background, and the city shows the leaking audit history's types growing.
    for (const char* view : {"city", "sunburst", "icicle", "timeline"}) {
        const std::string out = testing::tempPath(std::string("demo-") + view + ".png");
        const Outcome r = run(std::string("render ") + MEMCITY_DEMO_TRACE + " --view " + view +
                              " --classify package,type --gc 40 --size 480x270 -o " + out);
        ASSERT_EQ(r.status, 0) << view << ": " << r.err;
        const render::Image img = load(out);
        ASSERT_EQ(img.width, 480u);
        const uint32_t background = scene::palette::kBackground;
        size_t differ = 0;
        for (uint32_t y = 0; y < img.height; ++y)
            for (uint32_t x = 0; x < img.width; ++x)
                differ += img.pixel(x, y) != background;
        EXPECT_GT(differ, img.width * img.height / 10) << view;
    }
}

TEST(RenderCli, SameInputSamePicture) {
    const std::string a = testing::tempPath("same-a.png"), b = testing::tempPath("same-b.png");
    for (const std::string& out : {a, b}) {
        const Outcome r = run("render " + growingMap() + " --view city --gc 12 --size 320x200 -o " + out);
        ASSERT_EQ(r.status, 0) << r.err;
    }
    EXPECT_EQ(slurp(a), slurp(b));
}

TEST(RenderCli, AnimationWritesEveryFrameAndEndsAtTheLastGc) {
    const std::string dir = testing::tempPath("frames");
    const Outcome r = run("render " + growingMap() + " --view sunburst --frames 4 --size 320x200 -o " + dir);
    ASSERT_EQ(r.status, 0) << r.err;
    EXPECT_NE(r.err.find("wrote 4 frames"), std::string::npos) << r.err;
    for (const char* f : {"frame_0000.png", "frame_0001.png", "frame_0002.png", "frame_0003.png"}) {
        const render::Image img = load(dir + "/" + f);
        EXPECT_EQ(img.width, 320u);
        EXPECT_EQ(img.height, 200u);
    }
    // The last frame is the picture of the last GC.
    const std::string last = testing::tempPath("last.png");
    ASSERT_EQ(run("render " + growingMap() + " --view sunburst --size 320x200 -o " + last).status, 0);
    EXPECT_TRUE(render::compareImages(load(dir + "/frame_0003.png"), load(last), 0).identical());
    // Frames differ from each other: the heap grows.
    EXPECT_FALSE(render::compareImages(load(dir + "/frame_0000.png"), load(last), 0).identical());
}

TEST(RenderCli, TheCityKeepsItsCameraThroughTime) {
    // The same window, two GCs: the plates (drawn the same at every GC) stay where they are, so
    // the pictures differ only where buildings grew.
    const std::string a = testing::tempPath("gc5.png"), b = testing::tempPath("gc6.png");
    ASSERT_EQ(run("render " + growingMap() + " --gc 5 --size 320x200 -o " + a).status, 0);
    ASSERT_EQ(run("render " + growingMap() + " --gc 6 --size 320x200 -o " + b).status, 0);
    const render::ImageDiff d = render::compareImages(load(a), load(b), 8);
    EXPECT_GT(d.pixels_over_threshold, 0u);
    EXPECT_LT(d.fractionOverThreshold(), 0.25);
}

TEST(RenderCli, EveryViewPassesTheValidationLayer) {
    // --validate fails the command on any message of VK_LAYER_KHRONOS_validation.
    for (const char* view : {"city", "sunburst", "icicle", "timeline", "timeline-trees"}) {
        const Outcome r = run("render " + growingMap() + " --view " + view +
                              " --gc 9 --size 320x200 --validate -o " + testing::tempPath("validated.png"));
        EXPECT_EQ(r.status, 0) << view << ": " << r.err;
    }
    const Outcome anim =
        run("render " + growingMap() + " --camera street --frames 3 --size 320x200 --validate -o " +
            testing::tempPath("validated-frames"));
    EXPECT_EQ(anim.status, 0) << anim.err;
}

TEST(RenderCli, BadInputGetsOneLineAndExitStatus1) {
    const std::string t = growingMap(), out = testing::tempPath("bad.png");
    struct Case {
        std::string args, err;
    };
    const Case cases[] = {
        {"render " + t, "memcity render: -o OUT.png (or -o DIR with --frames) is required\n"},
        {"render " + t + " --view tower -o " + out,
         "memcity render: unknown view 'tower' (expected city, sunburst, icicle, timeline, "
         "timeline-trees or heapmap)\n"},
        {"render " + t + " --view heapmap --stream heat -o " + out,
         "memcity render: --stream: unknown stream 'heat' (expected used, objects, age, selected or "
         "dying)\n"},
        {"render " + t + " --view heapmap --stream selected -o " + out,
         "memcity render: --stream selected needs --select PATHS (the groups to show)\n"},
        {"render " + t + " --view heapmap --space Metaspace -o " + out,
         "memcity render: --space: no space 'Metaspace' in " + t +
             " (its spaces: Eden Space, Survivor Space 0, Survivor Space 1, Tenured Gen)\n"},
        {"render " + t + " --view heapmap --tile 8 -o " + out,
         "memcity render: --tile takes a size of at least 64 bytes (512, 64k, 1m), not '8'\n"},
        {"render " + t + " --view heapmap --camera top -o " + out,
         "memcity render: --camera is not for --view heapmap\n"},
        {"render " + t + " --pins 3 -o " + out, "memcity render: --pins is for --view timeline-trees\n"},
        {"render " + t + " --view timeline-trees --pins 3,x -o " + out,
         "memcity render: --pins expects GC numbers separated by commas, got '3,x'\n"},
        {"render " + t + " --view timeline-trees --pins 3,999 -o " + out,
         "memcity render: --pins: " + t + ": GC 999 is out of range: the trace has"},
        {"render " + t + " --view timeline-trees --from 5 --pins 3 -o " + out,
         "memcity render: --pins: GC 3 is outside --from 5 --to 26\n"},
        {"render " + t + " --view timeline-trees --shape donut -o " + out,
         "memcity render: --shape expects sunburst, icicle or city, got 'donut'\n"},
        {"render " + t + " --camera drone -o " + out,
         "memcity render: unknown camera 'drone' (expected overview, top, front, street)\n"},
        {"render " + t + " --size 0x10 -o " + out,
         "memcity render: --size 0x10 is out of range (16x16 to 8192x8192)\n"},
        {"render " + t + " --size big -o " + out,
         "memcity render: --size expects WIDTHxHEIGHT (like 1280x720), got 'big'\n"},
        {"render " + t + " --gc 9999 -o " + out,
         "memcity render: " + t + ": GC 9999 is out of range: the trace has"},
        {"render " + t + " --gc 3 --frames 5 -o " + out,
         "memcity render: --gc picks one picture; --frames animates --from..--to (give one of them)\n"},
        {"render " + t + " --view sunburst --drill nowhere -o " + out,
         "memcity render: --drill: no group 'nowhere' in the series ('memcity series' lists the groups)\n"},
        {"render " + t + " --diff-from 3 --frames 4 -o " + out,
         "memcity render: --diff-from draws one picture (of --gc), not --frames\n"},
        {"render " + t + " --view timeline --diff-from 3 -o " + out,
         "memcity render: --diff-from is for the city, sunburst and icicle views\n"},
        {"render " + t + " --diff-from 20 --gc 10 -o " + out,
         "memcity render: --diff-from 20 must lie in --from 0 .. --gc 10\n"},
        {"render " + t + " --diff-from 999 -o " + out,
         "memcity render: --diff-from: " + t + ": GC 999 is out of range: the trace has"},
        {"render " + t + " --diff-from x -o " + out, "memcity render: --diff-from expects"},
        {"render /nonexistent.mct -o " + out, "error: /nonexistent.mct"},
        {"render " + t + " -o /nonexistent-dir/x.png", "memcity render: /nonexistent-dir/x.png"},
    };
    for (const Case& c : cases) {
        const Outcome r = run(c.args);
        EXPECT_EQ(r.status, 1) << c.args;
        EXPECT_EQ(r.err.substr(0, c.err.size()), c.err) << c.args;
        EXPECT_LE(std::count(r.err.begin(), r.err.end(), '\n'), 1) << r.err;
    }
}

}  // namespace
}  // namespace memcity
