// A heap dump opened in the window: imported into the cache (hprof/import_cache.h) on a thread of
// its own while the window follows the trace the import writes (TraceLoader follows a trace
// still being written), so the dump's heap is on screen as soon as its objects are written,
// before the import has written their references.
#pragma once

#include <atomic>
#include <functional>
#include <mutex>
#include <string>
#include <thread>

#include "hprof/import_cache.h"

namespace memcity::explore {

struct DumpJobState {
    bool started = false;  // the trace is being written: `place.partial` can be followed
    bool done = false;     // the import ended: `place.trace` is whole, or `error` says why not
    std::string error;     // one line naming the dump
    hprof::ImportStep step = hprof::ImportStep::kReading;
    double fraction = 0;  // through the step
};

class DumpJob {
public:
    // Starts importing `place.dump` into `place`; `wake` (may be empty) is called on the job's
    // thread when its state changes.
    DumpJob(hprof::CachedImport place, std::function<void()> wake);
    // Cancels the import (the partial trace goes) and joins the thread.
    ~DumpJob();
    DumpJob(const DumpJob&) = delete;
    DumpJob& operator=(const DumpJob&) = delete;

    const hprof::CachedImport& place() const { return place_; }
    DumpJobState state() const;
    // While it runs: "importing app.hprof (953.0 MiB): reading the dump 45%"
    std::string describe() const;

private:
    void run();

    hprof::CachedImport place_;
    std::function<void()> wake_;
    std::atomic<bool> stop_{false};
    mutable std::mutex mutex_;
    DumpJobState state_;
    std::thread thread_;
};

}  // namespace memcity::explore
