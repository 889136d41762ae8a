#include "explore/live_link.h"

#include <chrono>
#include <optional>

#include "live/control_client.h"
#include "trace/trace_reader.h"

namespace memcity::explore {
namespace {

using Clock = std::chrono::steady_clock;
constexpr auto kPoll = std::chrono::milliseconds(200);
constexpr auto kRetry = std::chrono::milliseconds(500);

}  // namespace

LiveLink::LiveLink(std::string trace, std::function<void()> wake)
    : trace_(std::move(trace)), wake_(std::move(wake)) {
    thread_ = std::thread([this] { run(); });
}

LiveLink::~LiveLink() {
    {
        std::lock_guard lock(mutex_);
        stop_ = true;
    }
    changed_.notify_all();
    thread_.join();
}

LiveState LiveLink::state() const {
    std::lock_guard lock(mutex_);
    return state_;
}

uint64_t LiveLink::request(const live::Request& r) {
    uint64_t number = 0;
    {
        std::lock_guard lock(mutex_);
        number = ++requested_;
        requests_.emplace_back(number, r);
    }
    changed_.notify_all();
    return number;
}

bool LiveLink::waitFor(const std::function<bool(const LiveState&)>& done, double timeout_s) const {
    std::unique_lock lock(mutex_);
    return changed_.wait_for(lock, std::chrono::duration<double>(timeout_s), [&] {
        return done(state_) || state_.ended || stop_;
    }) && done(state_);
}

void LiveLink::publish(const std::function<void(LiveState&)>& change) {
    {
        std::lock_guard lock(mutex_);
        change(state_);
        ++state_.version;
    }
    changed_.notify_all();
    if (wake_) wake_();
}

void LiveLink::run() {
    std::optional<live::ControlClient> client;
    auto next_poll = Clock::now();
    for (;;) {
        std::optional<std::pair<uint64_t, live::Request>> request;
        {
            std::unique_lock lock(mutex_);
            changed_.wait_until(lock, next_poll, [&] { return stop_ || (client && !requests_.empty()); });
            if (stop_) return;
            if (client && !requests_.empty()) {
                request = requests_.front();
                requests_.pop_front();
            }
        }
        if (!client) {
            // The channel the recording named, while the trace is being written.
            auto trace = TraceFile::open(trace_);
            const bool writing = trace && trace->beingWritten();
            // The agent names its channel as it opens the trace, and listens once the recording
            // has begun: connections are tried until it does, or the trace is finished.
            const std::string* socket = trace ? trace->metaValue("control") : nullptr;
            // Its first metadata (the producer's name) comes with the channel's, if any.
            const bool told = trace && trace->metaValue("producer");
            if (trace && (!writing || (told && (!socket || socket->empty())))) {
                publish([&](LiveState& s) {
                    s.connected = false;
                    s.ended = true;
                    s.error = writing ? "the recording has no control channel" : "the recording has ended";
                });
                return;
            }
            // (A trace from elsewhere may name any path: only our own socket directory's are tried.)
            if (socket && socket->size() > 0)
                if (Status own = live::checkOwnSocketPath(*socket); !own.ok()) {
                    publish([&](LiveState& s) {
                        s.connected = false;
                        s.ended = true;
                        s.error = own.error().message;
                    });
                    return;
                }
            if (socket) {
                auto c = live::ControlClient::connect(*socket, 2.0);
                if (c) {
                    client = std::move(*c);
                    publish([&](LiveState& s) {
                        s.connected = true;
                        s.error.clear();
                        s.status = client->last();
                    });
                } else {
                    publish([&](LiveState& s) { s.error = c.error().message; });
                }
            }
            next_poll = Clock::now() + (client ? kPoll : kRetry);
            continue;
        }
        // ("snapshot now" is answered once the heap is walked: seconds for a large one.)
        const bool walk =
            request && request->second.command == live::Command::kSnapshot && request->second.now;
        auto status = client->call(request ? request->second : live::Request{live::Command::kStatus, {}},
                                   walk ? 150.0 : 5.0);
        const uint64_t answered = request ? request->first : 0;
        if (status) {
            publish([&](LiveState& s) {
                s.status = *status;
                if (request) {
                    s.error.clear();
                    s.answered = answered;
                }
            });
        } else if (request && client->status()) {
            // Refused (the JVM cannot suspend threads...): said, and the channel stays.
            publish([&](LiveState& s) {
                s.error = status.error().message;
                s.status = client->last();
                s.answered = answered;
            });
        } else {
            client.reset();  // the recording ended, or the agent went away: looked at again
            publish([&](LiveState& s) {
                s.connected = false;
                s.error = status.error().message;
                if (request) s.answered = answered;
            });
        }
        if (!request) next_poll = Clock::now() + kPoll;
    }
}

}  // namespace memcity::explore
