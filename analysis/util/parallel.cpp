#include "util/parallel.h"

#include <algorithm>
#include <charconv>
#include <chrono>
#include <condition_variable>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <mutex>
#include <new>
#include <stdexcept>
#include <thread>
#include <vector>

namespace memcity {

ThreadChoice chooseThreads(const char* memcity_threads, unsigned cores) {
    ThreadChoice c;
    c.threads = std::clamp(cores, 1u, kMaxDefaultThreads);
    if (!memcity_threads) return c;
    const char* end = memcity_threads + std::strlen(memcity_threads);
    unsigned n = 0;
    auto [at, ec] = std::from_chars(memcity_threads, end, n);
    if (ec == std::errc{} && at == end && n >= 1 && n <= kMaxThreads) {
        c.threads = n;
        return c;
    }
    c.warning = "memcity: MEMCITY_THREADS=\"" + std::string(memcity_threads) +
                "\" is not a thread count (1 to " + std::to_string(kMaxThreads) + "); using " +
                std::to_string(c.threads);
    return c;
}

unsigned defaultThreads() {
    static const unsigned threads = [] {
        const ThreadChoice c =
            chooseThreads(std::getenv("MEMCITY_THREADS"), std::thread::hardware_concurrency());
        if (!c.warning.empty()) std::fprintf(stderr, "%s\n", c.warning.c_str());
        return c.threads;
    }();
    return threads;
}

void runParts(size_t count, const std::function<void(size_t)>& part, const std::function<void()>& waiting) {
    std::mutex mutex;
    std::condition_variable finished;
    size_t running = 0;          // parts on other threads not yet ended (under mutex)
    std::exception_ptr failure;  // the first (under mutex)
    auto guarded = [&](size_t p) {
        try {
            part(p);
        } catch (...) {
            std::lock_guard lock(mutex);
            if (!failure) failure = std::current_exception();
        }
    };
    std::vector<std::thread> threads;
    bool can_start = count > 1;
    try {
        if (can_start) threads.reserve(count - 1);
    } catch (...) {
        can_start = false;
    }
    for (size_t p = 1; p < count; ++p) {
        if (can_start) {
            std::unique_lock lock(mutex);
            ++running;
            lock.unlock();
            try {
                threads.emplace_back([&, p] {
                    guarded(p);
                    std::lock_guard done(mutex);
                    --running;
                    finished.notify_one();
                });
                continue;
            } catch (...) {  // (std::system_error, or std::bad_alloc for the thread's state)
                lock.lock();
                --running;
            }
        }
        guarded(p);  // here, at once
    }
    if (count > 0) guarded(0);
    {
        std::unique_lock lock(mutex);
        while (running > 0) {
            if (waiting) {
                lock.unlock();
                waiting();
                lock.lock();
            }
            finished.wait_for(lock, std::chrono::milliseconds(20), [&] { return running == 0; });
        }
    }
    for (std::thread& t : threads)
        t.join();
    if (failure) std::rethrow_exception(failure);
}

std::string describeFailure(std::exception_ptr failure) {
    try {
        std::rethrow_exception(failure);
    } catch (const std::bad_alloc&) {
        return "out of memory: the input needs more than this process may use";
    } catch (const std::length_error& e) {
        return std::string("out of memory: a size beyond what this process may use (") + e.what() + ")";
    } catch (const std::exception& e) {
        return e.what();
    } catch (...) {
        return "an unknown failure";
    }
}

}  // namespace memcity
