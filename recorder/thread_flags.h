// The agent's thread-local flags and clocks, shared by the recorder's files: what the calling
// thread is doing on the agent's behalf.
#pragma once

#include <cstdint>

namespace memcity::agent {

// Set on a thread while what it allocates is the agent's, not the program's: through JNI in VM
// init, attach and the shutdown hook, and on the agent's own threads.
extern thread_local bool t_agent_allocating;
// Set on a thread while the classes it loads are the agent's own (its shutdown hook's).
extern thread_local bool t_agent_classes;
// Set when an allocation of the agent's was reported as sampled (see resetSamplingDistance).
extern thread_local bool t_agent_sampled;

// CLOCK_MONOTONIC and CLOCK_REALTIME, in ns.
int64_t monotonicNs();
int64_t wallNs();

}  // namespace memcity::agent
