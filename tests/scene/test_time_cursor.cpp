// The time cursor: explicit steps only, clamped at the ends, index time over the GCs a series
// holds and its conversion to the GC time TreeSeries::valueAt reads.
#include <gtest/gtest.h>

#include <cmath>

#include "scene/scene_fixture.h"
#include "scene/time_cursor.h"

namespace memcity::scene {
namespace {

TEST(TimeCursor, StartsPausedAtZeroAndMovesOnlyWhenPlaying) {
    TimeCursor c({0, 1, 2, 3, 4});
    EXPECT_EQ(c.t(), 0.0);
    EXPECT_EQ(c.maxT(), 4.0);
    EXPECT_FALSE(c.playing());
    EXPECT_FALSE(c.advance(1.0));
    EXPECT_EQ(c.t(), 0.0);
    c.play();
    EXPECT_TRUE(c.advance(0.25));  // 2 GCs/s
    EXPECT_DOUBLE_EQ(c.t(), 0.5);
    c.pause();
    EXPECT_FALSE(c.advance(10.0));
    EXPECT_DOUBLE_EQ(c.t(), 0.5);
}

TEST(TimeCursor, FixedStepsGiveTheSameTimeEveryRun) {
    auto run = [] {
        TimeCursor c({0, 1, 2, 3, 4, 5, 6, 7, 8, 9}, {0.75, PlayEnd::kStop});
        c.play();
        std::vector<double> ts;
        for (int frame = 0; frame < 90; ++frame) {
            c.advance(1.0 / 60.0);
            ts.push_back(c.t());
        }
        return ts;
    };
    const std::vector<double> a = run(), b = run();
    EXPECT_EQ(a, b);
    EXPECT_NEAR(a[59], 0.75, 1e-12);  // one second
    EXPECT_NEAR(a[89], 1.125, 1e-12);
}

TEST(TimeCursor, StopsAndPausesAtTheEndsOrLoops) {
    TimeCursor c({10, 11, 12});
    c.play();
    EXPECT_TRUE(c.advance(5.0));
    EXPECT_EQ(c.t(), 2.0);
    EXPECT_TRUE(c.atEnd());
    EXPECT_FALSE(c.playing());
    c.play();  // from the end: starts over
    EXPECT_EQ(c.t(), 0.0);
    EXPECT_TRUE(c.playing());

    TimeCursor back({10, 11, 12}, {-1.0, PlayEnd::kStop});
    back.seek(1.5);
    back.play();
    back.advance(1.0);
    EXPECT_DOUBLE_EQ(back.t(), 0.5);
    back.advance(1.0);
    EXPECT_EQ(back.t(), 0.0);
    EXPECT_FALSE(back.playing());

    TimeCursor loop({10, 11, 12}, {1.0, PlayEnd::kLoop});
    loop.seek(1.5);
    loop.play();
    loop.advance(1.0);
    EXPECT_DOUBLE_EQ(loop.t(), 0.5);
    EXPECT_TRUE(loop.playing());
}

TEST(TimeCursor, StepsGoToTheNextAndPreviousGcAndPause) {
    TimeCursor c({0, 1, 2, 3, 4});
    c.seek(2.25);
    c.play();
    EXPECT_TRUE(c.stepNext());
    EXPECT_EQ(c.t(), 3.0);
    EXPECT_FALSE(c.playing());
    EXPECT_TRUE(c.stepNext());
    EXPECT_FALSE(c.stepNext());  // clamped at 4
    EXPECT_EQ(c.t(), 4.0);
    c.seek(2.25);
    EXPECT_TRUE(c.stepPrevious());
    EXPECT_EQ(c.t(), 2.0);
    EXPECT_TRUE(c.stepPrevious());
    EXPECT_EQ(c.t(), 1.0);
    c.seek(0.0);
    EXPECT_FALSE(c.stepPrevious());
    c.seek(-3.0);
    EXPECT_EQ(c.t(), 0.0);
    c.seek(99.0);
    EXPECT_EQ(c.t(), 4.0);
    c.seek(std::nan(""));
    EXPECT_EQ(c.t(), 0.0);
}

TEST(TimeCursor, EmptyAndSingleGcSeriesStayAtZero) {
    TimeCursor empty;
    empty.play();
    EXPECT_FALSE(empty.playing());
    EXPECT_FALSE(empty.advance(1.0));
    EXPECT_EQ(empty.gcTime(), 0.0);
    TimeCursor one({7});
    one.play();
    EXPECT_FALSE(one.advance(1.0));
    EXPECT_EQ(one.gcBefore(), 7u);
    EXPECT_EQ(one.gcAfter(), 7u);
    EXPECT_EQ(one.gcTime(), 7.0);
}

// Index time over sparse GCs: t = 1.5 stands halfway between the second and the third held GC.
TEST(TimeCursor, IndexTimeOverSparseGcsAndGcTime) {
    TimeCursor c({0, 2, 6, 7});
    c.seek(1.5);
    EXPECT_EQ(c.index(), 1u);
    EXPECT_DOUBLE_EQ(c.fraction(), 0.5);
    EXPECT_EQ(c.gcBefore(), 2u);
    EXPECT_EQ(c.gcAfter(), 6u);
    EXPECT_DOUBLE_EQ(c.gcTime(), 4.0);
    EXPECT_DOUBLE_EQ(c.indexTimeOf(4), 1.5);
    EXPECT_DOUBLE_EQ(c.indexTimeOf(6), 2.0);
    EXPECT_DOUBLE_EQ(c.indexTimeOf(100), 3.0);
    // Fractional GC time (a scrub position) is the inverse of gcTime().
    EXPECT_DOUBLE_EQ(c.indexTimeOf(3.0), 1.25);
    EXPECT_DOUBLE_EQ(c.indexTimeOf(6.5), 2.5);
    EXPECT_DOUBLE_EQ(c.indexTimeOf(-1.0), 0.0);
    for (double t : {0.0, 0.3, 1.7, 2.25, 3.0}) {
        c.seek(t);
        EXPECT_NEAR(c.indexTimeOf(c.gcTime()), t, 1e-12);
    }
    c.seekGc(1);
    EXPECT_DOUBLE_EQ(c.t(), 0.5);
    c.seek(3.0);
    EXPECT_EQ(c.gcBefore(), 7u);
    EXPECT_EQ(c.gcAfter(), 7u);
}

// The series interpolates in GC time, the cursor moves in index time: at every t the two agree,
// also when the series holds every other GC only.
TEST(TimeCursor, GcTimeReadsTheSameValueAsTheTween) {
    SeriesOptions o;
    o.include_gc = [](uint32_t gc) { return gc != 1; };
    testing::Fixture f = testing::fixtureOf(testing::lifecycleTrace(), "type", o);
    const TreeSeries& s = *f.series;
    ASSERT_EQ(s.gcs(), (std::vector<uint32_t>{0, 2, 3}));
    TimeCursor c = TimeCursor::over(s);
    const uint32_t ints = s.find({"int[]"});
    c.seek(0.5);  // halfway from GC 0 (0 B) to GC 2 (56 B)
    EXPECT_DOUBLE_EQ(c.gcTime(), 1.0);
    EXPECT_DOUBLE_EQ(s.valueAt(ints, c.gcTime(), Metric::kBytes), 28.0);
    c.seek(1.25);  // a quarter from GC 2 (56 B) to GC 3 (416 B)
    EXPECT_DOUBLE_EQ(s.valueAt(ints, c.gcTime(), Metric::kBytes), 56.0 + 0.25 * 360.0);
}

}  // namespace
}  // namespace memcity::scene
