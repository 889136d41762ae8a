// One way for a long pass (a rebuild, a tree series, an import, a report) to say how far it got
// and to learn whether to stop. The caller makes a Progress and hands it (by value or const
// reference) to the pass; the pass calls report() every so often and checks cancelled() between
// its steps. A default-constructed Progress reports nowhere and never cancels.
//
// Copies share their state: a copy handed to a pass on another thread sees the caller's
// cancel(), which is what the explorer's worker does with each job (explore::CancelToken).
#pragma once

#include <atomic>
#include <cstdint>
#include <functional>
#include <memory>
#include <utility>

namespace memcity {

// What a pass reports; a field a pass has nothing for stays 0.
struct ProgressReport {
    double fraction = 0;    // of the whole pass, 0..1
    uint32_t stage = 0;     // the pass's own stage, an enum's value (hprof::ImportStep)
    uint64_t position = 0;  // where it is, in its own unit: trace bytes read, the GC just counted
    uint64_t total = 0;     // the end of that unit (the file's size, the last GC)
    uint64_t count = 0;     // a second figure a caller shows (GCs whose heap is complete)
};

class Progress {
public:
    // Reports go to `on_report`, on the pass's thread; false cancels (for good).
    using Callback = std::function<bool(const ProgressReport&)>;

    // Reports nowhere, never cancels; cancel() on it does nothing.
    Progress() = default;
    // Reports to `on_report` (may be empty: a cancel flag only).
    explicit Progress(Callback on_report) : state_(std::make_shared<State>(std::move(on_report))) {}
    // A cancel flag only: cancel() from any thread, cancelled() seen by every copy.
    static Progress cancellable() { return Progress(Callback{}); }

    // Tells the caller how far the pass got; returns !cancelled() after it (false: stop).
    // Called on the pass's thread, one call at a time.
    bool report(const ProgressReport& r) const {
        if (!state_) return true;
        if (state_->on_report && !state_->stop.load(std::memory_order_relaxed) && !state_->on_report(r))
            cancel();
        return !cancelled();
    }
    // Asks the pass to stop; from any thread. A no-op on a default-constructed Progress.
    void cancel() const {
        if (state_) state_->stop.store(true, std::memory_order_relaxed);
    }
    // Whether the pass should stop: cancel() was called or a report was answered false.
    bool cancelled() const { return state_ && state_->stop.load(std::memory_order_relaxed); }

private:
    struct State {
        explicit State(Callback r) : on_report(std::move(r)) {}
        Callback on_report;
        std::atomic<bool> stop{false};
    };
    std::shared_ptr<State> state_;
};

}  // namespace memcity
