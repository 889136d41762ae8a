#include "explore/loader.h"

#include <pthread.h>

#include <chrono>
#include <system_error>

#include "util/parallel.h"

namespace memcity::explore {
namespace {

using Clock = std::chrono::steady_clock;

double secondsSince(Clock::time_point start) {
    return std::chrono::duration<double>(Clock::now() - start).count();
}

}  // namespace

TraceLoader::TraceLoader(std::string path, LoaderOptions options)
    : path_(std::move(path)), options_(std::move(options)) {
    try {
        thread_ = std::thread([this] { run(); });
    } catch (const std::system_error& e) {
        progress_.phase = LoadPhase::kFailed;
        progress_.error = path_ + ": cannot start the loading thread: " + e.what();
        return;
    }
    ::pthread_setname_np(thread_.native_handle(), "memcity load");
}

TraceLoader::~TraceLoader() {
    stop_ = true;
    if (thread_.joinable()) thread_.join();
}

LoadProgress TraceLoader::progress() const {
    std::lock_guard lock(mutex_);
    return progress_;
}

bool TraceLoader::done() const {
    std::lock_guard lock(mutex_);
    return progress_.phase == LoadPhase::kReady || progress_.phase == LoadPhase::kFailed;
}

void TraceLoader::syncGcs(std::vector<GcRecord>* records, uint64_t* revision) const {
    std::lock_guard lock(mutex_);
    if (*revision != gcs_revision_ || records->size() > gcs_.size()) {
        *records = gcs_;
        *revision = gcs_revision_;
    } else {
        records->insert(records->end(), gcs_.begin() + static_cast<std::ptrdiff_t>(records->size()),
                        gcs_.end());
    }
}

std::optional<TreeSeries> TraceLoader::takeSeries() {
    std::lock_guard lock(mutex_);
    std::optional<TreeSeries> out = std::move(series_);
    series_.reset();
    return out;
}

bool TraceLoader::streamedSeriesFinal() const {
    std::lock_guard lock(mutex_);
    return series_final_;
}

void TraceLoader::publish() {
    version_.fetch_add(1, std::memory_order_acq_rel);
    if (options_.wake) options_.wake();
}

bool TraceLoader::waitForMore() {
    const auto poll = std::chrono::duration<double>(options_.follow_poll_s);
    for (;;) {
        if (stop_) return false;
        auto grown = trace_->grow();
        const bool live = grown && trace_->beingWritten();
        bool changed = !grown || !live;
        {
            std::lock_guard lock(mutex_);
            changed = changed || progress_.bytes_total != trace_->fileSize() || progress_.live != live;
            progress_.bytes_total = trace_->fileSize();
            progress_.live = live;
            if (!grown)
                progress_.notes.push_back(grown.error().message);
            else if (!live && trace_->truncated())
                progress_.notes.push_back(trace_->truncationNote());
        }
        if (!grown) return false;
        if (*grown > 0) return true;
        // (Nothing new: the window is not woken for it, so the writer has the cores.)
        if (changed) publish();
        if (!live) return false;
        // In short sleeps: a window closed meanwhile does not wait for the poll.
        for (auto slept = std::chrono::duration<double>(0); slept < poll && !stop_;
             slept += std::chrono::milliseconds(10))
            std::this_thread::sleep_for(std::chrono::milliseconds(10));
    }
}

void TraceLoader::fail(Clock::time_point start, std::string message) {
    {
        std::lock_guard lock(mutex_);
        progress_.phase = LoadPhase::kFailed;
        progress_.error = std::move(message);
        progress_.seconds = secondsSince(start);
        version_.fetch_add(1, std::memory_order_acq_rel);  // with the phase (done())
    }
    publish();
}

void TraceLoader::run() {
    const Clock::time_point start = Clock::now();
    try {
        load(start);
    } catch (...) {  // (std::bad_alloc, most often: the trace needs more than the process may use)
        fail(start, path_ + ": " + describeFailure(std::current_exception()));
    }
}

void TraceLoader::load(Clock::time_point start) {
    auto fail = [&](std::string message) { this->fail(start, std::move(message)); };

    auto file = TraceFile::open(path_);
    if (!file) return fail(file.error().message);
    trace_ = std::make_unique<TraceFile>(std::move(*file));
    {
        std::lock_guard lock(mutex_);
        progress_.phase = LoadPhase::kRebuilding;
        progress_.bytes_total = trace_->fileSize();
        progress_.notes = trace_->warnings();
        progress_.live = options_.follow && trace_->beingWritten();
        progress_.sampling_interval = trace_->header().sampling_interval;
        if (trace_->truncated() && !progress_.live) progress_.notes.push_back(trace_->truncationNote());
    }
    publish();

    std::unique_ptr<TreeSeriesBuilder> stream;
    if (options_.chain && !options_.chain->needsReferences())
        stream = std::make_unique<TreeSeriesBuilder>(trace_->symbols(), *options_.chain, SeriesOptions{});
    Clock::time_point last_series{};
    bool stream_failed = false;
    bool series_pending = false;  // heaps streamed since the series was last published
    auto publishSeries = [&] {
        // Copied outside the lock: the window only waits for the hand-over.
        TreeSeries copy = stream->series();
        std::lock_guard lock(mutex_);
        series_ = std::move(copy);
        last_series = Clock::now();
        series_pending = false;
    };

    HistoryOptions ho;
    ho.threads = options_.threads;
    ho.progress = Progress([&](const ProgressReport& p) {
        {
            std::lock_guard lock(mutex_);
            progress_.bytes_done = p.position;
            progress_.seconds = secondsSince(start);
        }
        publish();
        return true;
    });
    ho.on_heap = [&](const HeapView& heap, const GcRecord& record) {
        if (stop_) return false;
        const bool first = heap.gc() == 0;
        bool series_due = false;
        if (stream && !stream_failed) {
            stream_failed = !stream->add(heap).ok();
            series_due = !stream_failed && (first || secondsSince(last_series) >= options_.series_interval_s);
            series_pending = !stream_failed && !series_due;
        }
        {
            std::lock_guard lock(mutex_);
            gcs_.push_back(record);
            progress_.gcs = static_cast<uint32_t>(gcs_.size());
            progress_.seconds = secondsSince(start);
            if (first) progress_.first_gc_seconds = progress_.seconds;
        }
        if (series_due) publishSeries();
        publish();
        return true;
    };
    if (options_.follow && trace_->beingWritten())
        ho.more = [&] {
            // Caught up with the recorder: the newest GC is shown now, not with the next one (a
            // paused program writes no next one).
            if (series_pending) {
                publishSeries();
                publish();
            }
            return waitForMore();
        };
    auto history = HeapHistory::build(*trace_, ho);
    if (!history) return fail(history.error().message);
    if (stop_) return;
    history_ = std::make_unique<HeapHistory>(std::move(*history));
    if (auto found = findWindows(history_->gcs()); found) windows_ = std::move(found->windows);

    const Diagnostics& d = history_->diagnostics();
    const bool countable = d[Anomaly::kLateAlloc].count == 0 && d[Anomaly::kDuplicateAlloc].count == 0;
    {
        std::lock_guard lock(mutex_);
        gcs_ = history_->gcs();  // reachable bytes of snapshots read after their GC completed
        ++gcs_revision_;
        for (size_t i = 0; i < Diagnostics::kKinds; ++i) {
            const AnomalyRecord& r = d[static_cast<Anomaly>(i)];
            if (r.count > 0)
                progress_.notes.push_back(r.first + (r.count > 1
                                                         ? " (and " + std::to_string(r.count - 1) + " more)"
                                                         : std::string()));
        }
        if (stream && !stream_failed && countable) {
            series_ = stream->take();
            series_final_ = true;
        }
        progress_.phase = LoadPhase::kReady;
        progress_.bytes_done = progress_.bytes_total;
        progress_.seconds = secondsSince(start);
        version_.fetch_add(1, std::memory_order_acq_rel);  // with the phase (done())
    }
    publish();
}

}  // namespace memcity::explore
