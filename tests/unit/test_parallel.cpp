// runParts: every part runs, and a part's exception reaches the caller after all have ended.
#include <gtest/gtest.h>

#include <atomic>
#include <new>
#include <stdexcept>
#include <vector>

#include "util/parallel.h"

namespace memcity {
namespace {

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
