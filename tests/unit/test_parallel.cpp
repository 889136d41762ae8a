// runParts: every part runs, and a part's exception reaches the caller after all have ended.
// defaultThreads: the cores there are, bounded, or MEMCITY_THREADS.
#include <gtest/gtest.h>

#include <atomic>
#include <cstdlib>
#include <new>
#include <stdexcept>
#include <string>
#include <thread>
#include <vector>

#include "util/parallel.h"

namespace memcity {
namespace {

TEST(ChooseThreads, TheCoresThereAreAtLeastOneAtMostTheBound) {
    EXPECT_EQ(chooseThreads(nullptr, 0).threads, 1u);  // unknown
    EXPECT_EQ(chooseThreads(nullptr, 1).threads, 1u);
    EXPECT_EQ(chooseThreads(nullptr, 2).threads, 2u);
    EXPECT_EQ(chooseThreads(nullptr, 12).threads, 12u);
    EXPECT_EQ(chooseThreads(nullptr, 64).threads, kMaxDefaultThreads);
    EXPECT_EQ(chooseThreads(nullptr, 64).warning, "");
}

TEST(ChooseThreads, TheEnvironmentOverridesTheCores) {
    EXPECT_EQ(chooseThreads("1", 16).threads, 1u);
    EXPECT_EQ(chooseThreads("8", 2).threads, 8u);
    EXPECT_EQ(chooseThreads("256", 2).threads, kMaxThreads);
    EXPECT_EQ(chooseThreads("8", 2).warning, "");
}

TEST(ChooseThreads, ABadValueIsNamedAndIgnored) {
    for (const char* bad : {"", "0", "-2", "two", "4x", " 4", "257", "99999999999"}) {
        const ThreadChoice c = chooseThreads(bad, 4);
        EXPECT_EQ(c.threads, 4u) << bad;
        EXPECT_EQ(c.warning, "memcity: MEMCITY_THREADS=\"" + std::string(bad) +
                                 "\" is not a thread count (1 to 256); using 4");
    }
}

TEST(DefaultThreads, FollowsTheEnvironment) {
    const ThreadChoice c = chooseThreads(std::getenv("MEMCITY_THREADS"), std::thread::hardware_concurrency());
    EXPECT_EQ(defaultThreads(), c.threads);
    EXPECT_GE(defaultThreads(), 1u);
}

TEST(RunParts, EveryPartRunsOnce) {
    std::vector<std::atomic<int>> ran(5);
    runParts(5, [&](size_t p) { ++ran[p]; });
    for (const std::atomic<int>& r : ran)
        EXPECT_EQ(r.load(), 1);
}

TEST(RunParts, AFailingPartIsRethrownHereAfterTheOthersEnded) {
    for (size_t failing : {size_t{0}, size_t{2}}) {
        std::vector<std::atomic<int>> ran(4);
        EXPECT_THROW(runParts(4,
                              [&](size_t p) {
                                  if (p == failing) throw std::bad_alloc();
                                  ++ran[p];
                              }),
                     std::bad_alloc);
        for (size_t p = 0; p < ran.size(); ++p)
            EXPECT_EQ(ran[p].load(), p == failing ? 0 : 1)
                << "part " << p << ", part " << failing << " failing";
    }
}

TEST(RunParts, WaitingIsCalledUntilTheOtherPartsEnd) {
    std::atomic<bool> released{false};
    int calls = 0;
    runParts(
        2,
        [&](size_t p) {
            while (p == 1 && !released)
                ;
        },
        [&] {
            if (++calls == 3) released = true;
        });
    EXPECT_GE(calls, 3);
}

TEST(DescribeFailure, OneLinePerKind) {
    EXPECT_EQ(describeFailure(std::make_exception_ptr(std::bad_alloc())),
              "out of memory: the input needs more than this process may use");
    EXPECT_EQ(describeFailure(std::make_exception_ptr(std::runtime_error("x"))), "x");
}

}  // namespace
}  // namespace memcity
