// LiveLink: the explorer's end of the live control channel of a trace still being written
// (analysis/live/control_client.h). On a thread of its own it finds the channel the recording
// named in the trace (the meta "control"), connects, asks for the agent's status every 0.2 s,
// and sends what the user asks for (pause, step, resume, conditions); the window reads the
// newest state each frame without waiting on the socket. It ends when the trace is finished, or
// on its own when the trace names no channel (recorded with control=no, or by another tool).
#pragma once

#include <atomic>
#include <condition_variable>
#include <deque>
#include <functional>
#include <mutex>
#include <string>
#include <thread>

#include "live/control_protocol.h"

namespace memcity::explore {

struct LiveState {
    bool connected = false;    // the agent answers
    bool ended = false;        // no more to come: the trace is finished, or names no channel
    std::string error;         // why it is not connected (one line), or a refused request
    live::AgentStatus status;  // the newest, when connected
    uint64_t answered = 0;     // the last request (LiveLink::request's number) sent and answered
    uint64_t version = 0;      // bumped at every change
};

class LiveLink {
public:
    // Starts following `trace`. `wake` is called (on the link's thread) after each change.
    LiveLink(std::string trace, std::function<void()> wake);
    ~LiveLink();
    LiveLink(const LiveLink&) = delete;
    LiveLink& operator=(const LiveLink&) = delete;

    LiveState state() const;
    // Queues a request; it is sent in order on the link's thread, and the state after it is
    // published (or the agent's refusal, as the state's error), with LiveState::answered at the
    // number returned (numbers count from 1).
    uint64_t request(const live::Request& r);
    // Waits (up to `timeout_s`) until `done(state)` holds; false on timeout or when the link
    // ended first. For scripts.
    bool waitFor(const std::function<bool(const LiveState&)>& done, double timeout_s) const;

private:
    void run();
    void publish(const std::function<void(LiveState&)>& change);

    const std::string trace_;
    const std::function<void()> wake_;
    mutable std::mutex mutex_;
    mutable std::condition_variable changed_;
    LiveState state_;
    std::deque<std::pair<uint64_t, live::Request>> requests_;
    uint64_t requested_ = 0;
    bool stop_ = false;
    std::thread thread_;
};

}  // namespace memcity::explore
