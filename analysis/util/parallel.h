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
