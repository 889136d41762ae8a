// Progress (analysis/util/progress.h): what a pass reports arrives, a cancel from another thread
// is seen, a default one never cancels, and a callback that answers "stop" cancels for good.
#include <gtest/gtest.h>

#include <atomic>
#include <thread>
#include <vector>

#include "util/progress.h"

using namespace memcity;

TEST(Progress, DefaultReportsNowhereAndNeverCancels) {
    const Progress p;
    EXPECT_FALSE(p.cancelled());
    EXPECT_TRUE(p.report({.fraction = 0.5}));
    p.cancel();
    EXPECT_FALSE(p.cancelled());
    EXPECT_TRUE(p.report(ProgressReport{.fraction = 1, .position = 10, .total = 10}));
}

TEST(Progress, ReportsFractionsAndCounts) {
    std::vector<ProgressReport> seen;
    const Progress p([&](const ProgressReport& r) {
        seen.push_back(r);
        return true;
    });
    EXPECT_TRUE(p.report({.fraction = 0.25}));
    EXPECT_TRUE(
        p.report(ProgressReport{.fraction = 0.5, .stage = 2, .position = 50, .total = 100, .count = 3}));
    ASSERT_EQ(seen.size(), 2u);
    EXPECT_EQ(seen[0].fraction, 0.25);
    EXPECT_EQ(seen[0].position, 0u);
    EXPECT_EQ(seen[1].fraction, 0.5);
    EXPECT_EQ(seen[1].stage, 2u);
    EXPECT_EQ(seen[1].position, 50u);
    EXPECT_EQ(seen[1].total, 100u);
    EXPECT_EQ(seen[1].count, 3u);
    EXPECT_FALSE(p.cancelled());
}

TEST(Progress, ACallbackThatSaysStopCancelsForGood) {
    int calls = 0;
    const Progress p([&](const ProgressReport& r) {
        ++calls;
        return r.fraction < 0.5;
    });
    EXPECT_TRUE(p.report({.fraction = 0.1}));
    EXPECT_FALSE(p.cancelled());
    EXPECT_FALSE(p.report({.fraction = 0.6}));
    EXPECT_TRUE(p.cancelled());
    // Once stopped, the callback is not asked again and the answer stays "stop".
    EXPECT_FALSE(p.report({.fraction = 0.2}));
    EXPECT_EQ(calls, 2);
    EXPECT_TRUE(p.cancelled());
}

TEST(Progress, ACancelFromAnotherThreadIsSeenByACopy) {
    const Progress caller = Progress::cancellable();
    const Progress pass = caller;  // what a job hands to an analysis pass
    std::atomic<bool> started{false};
    std::atomic<long> steps{0};
    std::thread t([&] {
        started = true;
        while (!pass.cancelled())
            ++steps;
    });
    while (!started)
        std::this_thread::yield();
    caller.cancel();
    t.join();  // returns only because the pass saw the cancel
    EXPECT_TRUE(pass.cancelled());
    EXPECT_FALSE(pass.report({.fraction = 0.5}));
}
