// Timing shared by the benchmarks that time a step in-process.
#pragma once

#include <algorithm>
#include <chrono>
#include <functional>
#include <vector>

namespace memcity::bench {

// The median of `runs` timings of f, in milliseconds.
inline double medianMs(int runs, const std::function<void()>& f) {
    std::vector<double> ms;
    for (int i = 0; i < runs; ++i) {
        const auto t0 = std::chrono::steady_clock::now();
        f();
        ms.push_back(
            std::chrono::duration<double, std::milli>(std::chrono::steady_clock::now() - t0).count());
    }
    std::sort(ms.begin(), ms.end());
    return ms[ms.size() / 2];
}

}  // namespace memcity::bench
