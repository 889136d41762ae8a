// Opening a trace in the background: the file is mapped and its heap history rebuilt on a thread
// of its own while the window keeps drawing. Every GC's record is published as soon as its heap
// is complete, and a chain that reads no references classifies each heap as it completes, so
// the first GC can be shown long before the last one is rebuilt.
#pragma once

#include <atomic>
#include <chrono>
#include <cstdint>
#include <functional>
#include <memory>
#include <mutex>
#include <optional>
#include <string>
#include <thread>
#include <vector>

#include "classify/series.h"
#include "heap/heap_history.h"
#include "trace/trace_reader.h"
#include "windows/windows.h"

namespace memcity::explore {

enum class LoadPhase : uint8_t {
    kOpening,     // mapping the file, reading its index and symbols
    kRebuilding,  // rebuilding the heap GC by GC (records and heaps arrive)
    kReady,       // the history is complete: history() and windows() are valid
    kFailed,      // error says why; nothing else is valid
};

struct LoadProgress {
    LoadPhase phase = LoadPhase::kOpening;
    uint64_t bytes_done = 0, bytes_total = 0;  // trace bytes read so far, and in all
    uint32_t gcs = 0;                          // GCs whose heap is complete
    double seconds = 0;                        // since the load started (until it ended)
    double first_gc_seconds = -1;              // when GC 0's heap was complete (-1: not yet)
    std::string error;                         // kFailed: one line naming the file
    std::vector<std::string> notes;            // a cut-off trace, anomalies: one line each
    bool live = false;                         // following a trace its recorder is still writing
    // A sampled recording's interval (TraceHeader::sampling_interval, bytes), known once the file
    // is open; 0: every allocation was recorded.
    uint64_t sampling_interval = 0;
};

struct LoaderOptions {
    // Classifies the heaps as they complete (a chain that reads references waits for the
    // snapshots: nothing is streamed for it; null: nothing either). Contract: outlives the loader.
    const ClassifierChain* chain = nullptr;
    unsigned threads = 1;  // HistoryOptions::threads
    // Called on the loader thread after it published something (progress, records, a series):
    // the place to wake the window's event loop. May be empty.
    std::function<void()> wake;
    double series_interval_s = 0.25;  // the streamed series is published at most this often
    // A trace still being written is followed: each GC is rebuilt as its chunks land, until the
    // recorder finishes it (or is gone). False: the chunks there are at the start are all.
    bool follow = true;
    double follow_poll_s = 0.1;  // how often a followed trace is looked at for new chunks
};

class TraceLoader {
public:
    // Starts loading `path` on a new thread.
    TraceLoader(std::string path, LoaderOptions options);
    // Stops the rebuild at its next GC and joins the thread.
    ~TraceLoader();
    TraceLoader(const TraceLoader&) = delete;
    TraceLoader& operator=(const TraceLoader&) = delete;

    const std::string& path() const { return path_; }
    LoadProgress progress() const;
    // Ready or failed. The version that ends the load is bumped with the phase, so a caller that
    // asks done() before version() never takes a done load's older version for its last.
    bool done() const;

    // Bumped whenever records or a series are published: poll it each frame.
    uint64_t version() const { return version_.load(std::memory_order_acquire); }
    // Brings `records` up to the GCs rebuilt so far: appends the records published since the last
    // call, or copies them all when the load has revised them (reachable bytes of snapshots read
    // after their GC). `revision` belongs to the caller and starts at 0.
    void syncGcs(std::vector<GcRecord>* records, uint64_t* revision) const;
    // The series streamed since the last call (a copy of the series so far), or nothing new.
    std::optional<TreeSeries> takeSeries();
    // Whether the streamed series is the final one: the load is ready, a chain was streamed, and
    // the history had no late or duplicate allocations (which a stream cannot count right).
    bool streamedSeriesFinal() const;

    // Valid once progress().phase == kReady; they live as long as the loader.
    const TraceFile& trace() const { return *trace_; }
    const HeapHistory& history() const { return *history_; }
    const std::vector<Window>& windows() const { return windows_; }

private:
    using Clock = std::chrono::steady_clock;
    void run();  // load(), with an exception turned into the load's error
    void load(Clock::time_point start);
    void fail(Clock::time_point start, std::string message);
    void publish();
    // HistoryOptions::more: waits for the followed trace to grow (false: it ended, or stop).
    bool waitForMore();

    std::string path_;
    LoaderOptions options_;
    std::atomic<bool> stop_{false};
    std::atomic<uint64_t> version_{0};
    mutable std::mutex mutex_;
    LoadProgress progress_;
    std::vector<GcRecord> gcs_;
    uint64_t gcs_revision_ = 1;  // bumped when gcs_ is replaced rather than appended to
    std::optional<TreeSeries> series_;
    bool series_final_ = false;
    std::unique_ptr<TraceFile> trace_;
    std::unique_ptr<HeapHistory> history_;
    std::vector<Window> windows_;
    std::thread thread_;
};

}  // namespace memcity::explore
