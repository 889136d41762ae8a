// Fork/join for the analysis passes that split their work over a thread or two, without
// turning a failure on a worker into an abort: an exception a part throws (std::bad_alloc under
// an address-space limit, most often) reaches the caller, and a thread that cannot be created
// (std::system_error, "Resource temporarily unavailable") costs only the parallelism.
#pragma once

#include <cstddef>
#include <exception>
#include <functional>
#include <string>

namespace memcity {

// The most threads defaultThreads() gives without MEMCITY_THREADS: each thread of a pass holds
// buffers of its own (a closure's bitsets of one bit per object, a classification's count
// table per shape), so memory grows with threads; past 16 the passes wait on memory anyway.
inline constexpr unsigned kMaxDefaultThreads = 16;
// The most threads MEMCITY_THREADS may ask for.
inline constexpr unsigned kMaxThreads = 256;

// How many threads the analysis passes (reconstruction, classification, closures, dominators,
// the HPROF import) are given: the cores there are (std::thread::hardware_concurrency(), at
// least 1, at most kMaxDefaultThreads), or N where the environment has MEMCITY_THREADS=N
// (1..kMaxThreads; for tests and benchmarks). A pass may use fewer (reconstruction and
// dominators use at most 2). Results never depend on the count. A MEMCITY_THREADS that is not
// such a number is reported once on stderr and ignored. Read once, then cached.
unsigned defaultThreads();

// The choice defaultThreads() makes, for a MEMCITY_THREADS value (null: not set) on a machine
// with `cores` cores (0: unknown). `warning` (empty where none) is the one line to report.
struct ThreadChoice {
    unsigned threads = 1;
    std::string warning;
};
ThreadChoice chooseThreads(const char* memcity_threads, unsigned cores);

// Runs part(0) .. part(count - 1) and returns when every one has ended: part(0) on the calling
// thread, each other on a thread of its own; a part whose thread cannot be created runs on the
// calling thread instead, at once. Once the calling thread's parts are done, `waiting` (may be
// empty) is called on it every 20 ms until the others are. After all have ended, the first
// exception any part threw (in the order they threw) is rethrown here; the other parts still
// ran to their end, so they must not depend on the one that failed.
void runParts(size_t count, const std::function<void(size_t)>& part,
              const std::function<void()>& waiting = {});

// One line for an exception caught at the top of a long-lived thread: "out of memory: ..." for
// std::bad_alloc and std::length_error, what() for another std::exception.
std::string describeFailure(std::exception_ptr failure);

}  // namespace memcity
