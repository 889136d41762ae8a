#include "explore/dump_job.h"

#include <pthread.h>

#include <chrono>
#include <cmath>
#include <filesystem>
#include <system_error>

#include "util/parallel.h"
#include "util/units.h"

namespace memcity::explore {

DumpJob::DumpJob(hprof::CachedImport place, std::function<void()> wake)
    : place_(std::move(place)), wake_(std::move(wake)) {
    try {
        thread_ = std::thread([this] { run(); });
    } catch (const std::system_error& e) {
        state_.done = true;
        state_.error = place_.dump + ": cannot start the import thread: " + e.what();
        return;
    }
    ::pthread_setname_np(thread_.native_handle(), "memcity import");
}

DumpJob::~DumpJob() {
    stop_ = true;
    if (thread_.joinable()) thread_.join();
}

DumpJobState DumpJob::state() const {
    std::lock_guard lock(mutex_);
    return state_;
}

std::string DumpJob::describe() const {
    const DumpJobState s = state();
    std::string out = "importing " + std::filesystem::path(place_.dump).filename().string() + " (" +
                      formatBytes(place_.dump_bytes) + "): ";
    out += hprof::importStepName(s.step);
    if (s.fraction > 0) out += " " + std::to_string(static_cast<int>(std::floor(s.fraction * 100))) + "%";
    return out;
}

void DumpJob::run() {
    using Clock = std::chrono::steady_clock;
    const Clock::time_point start = Clock::now();
    auto seconds = [&] { return std::chrono::duration<double>(Clock::now() - start).count(); };
    // The window is woken for a new step, and at most twice a second within one: each wake
    // draws frames, which take the cores from the import.
    double notified = -1;
    auto notify = [&] {
        notified = seconds();
        if (wake_) wake_();
    };
    std::string error;
    try {
        auto imported = hprof::importIntoCache(
            place_, Progress([&](const ProgressReport& r) {
                const auto step = static_cast<hprof::ImportStep>(r.stage);
                const double fraction = r.fraction;
                bool changed = false;
                {
                    std::lock_guard lock(mutex_);
                    changed = !state_.started || step != state_.step ||
                              (seconds() - notified >= 0.5 &&
                               std::floor(fraction * 100) != std::floor(state_.fraction * 100));
                    state_.started = true;
                    state_.step = step;
                    state_.fraction = fraction;
                }
                if (changed) notify();
                return !stop_.load();
            }));
        if (!imported) error = imported.error().message;
    } catch (...) {  // (std::bad_alloc, most often: the dump needs more than the process may use)
        error = place_.dump + ": " + describeFailure(std::current_exception());
    }
    {
        std::lock_guard lock(mutex_);
        state_.done = true;
        state_.error = std::move(error);
    }
    notify();
}

}  // namespace memcity::explore
