#include "heap/batch_pipeline.h"

namespace memcity {

BatchPipeline::BatchPipeline(const TraceFile& trace, ShapeTable& shapes, size_t depth)
    : trace_(trace), shapes_(shapes) {
    for (size_t i = 0; i < depth; ++i) {
        storage_.push_back(std::make_unique<EventBatch>());
        free_.push_back(storage_.back().get());
    }
    thread_ = std::thread([this] { run(); });
}

BatchPipeline::~BatchPipeline() {
    stop();
}

void BatchPipeline::stop() {
    {
        std::lock_guard lock(mutex_);
        stop_ = true;
    }
    cv_.notify_all();
    if (thread_.joinable()) thread_.join();
}

void BatchPipeline::runTasks(std::unique_lock<std::mutex>& lock) {
    while (!tasks_.empty()) {
        auto task = std::move(tasks_.front());
        tasks_.pop_front();
        lock.unlock();
        Status s = task();
        lock.lock();
        if (!s && task_status_.ok()) task_status_ = s;
    }
}

void BatchPipeline::post(std::function<Status()> task) {
    {
        std::lock_guard lock(mutex_);
        tasks_.push_back(std::move(task));
    }
    cv_.notify_all();
}

Status BatchPipeline::taskStatus() {
    std::lock_guard lock(mutex_);
    if (failure_) std::rethrow_exception(failure_);
    return task_status_;
}

void BatchPipeline::run() {
    try {
        decode();
    } catch (...) {
        std::lock_guard lock(mutex_);
        failure_ = std::current_exception();
        done_ = true;
    }
    cv_.notify_all();
}

void BatchPipeline::decode() {
    std::vector<uint8_t> scratch;
    const auto& chunks = trace_.chunks();
    for (size_t c = 0; c < chunks.size(); ++c) {
        if (chunks[c].kind != static_cast<uint16_t>(format::ChunkKind::kEvents)) continue;
        EventBatch* batch = nullptr;
        {
            std::unique_lock lock(mutex_);
            for (;;) {
                runTasks(lock);
                if (stop_ || !free_.empty()) break;
                cv_.wait(lock, [&] { return stop_ || !free_.empty() || !tasks_.empty(); });
            }
            if (stop_) break;
            batch = free_.front();
            free_.pop_front();
        }
        Status s = decodeBatch(trace_, c, shapes_, scratch, batch);
        if (!s) batch->error = s.error().message;
        {
            std::lock_guard lock(mutex_);
            full_.push_back(batch);
        }
        cv_.notify_all();
        if (!s) break;
    }
    std::unique_lock lock(mutex_);
    done_ = true;
    cv_.notify_all();
    // Decoding is over; tasks keep coming until the rebuild stops the pipeline.
    for (;;) {
        runTasks(lock);
        if (stop_) break;
        cv_.wait(lock, [&] { return stop_ || !tasks_.empty(); });
    }
}

EventBatch* BatchPipeline::next() {
    std::unique_lock lock(mutex_);
    cv_.wait(lock, [&] { return !full_.empty() || done_ || stop_; });
    if (full_.empty() && failure_) std::rethrow_exception(failure_);
    if (full_.empty()) return nullptr;
    EventBatch* b = full_.front();
    full_.pop_front();
    return b;
}

void BatchPipeline::release(EventBatch* batch) {
    {
        std::lock_guard lock(mutex_);
        free_.push_back(batch);
    }
    cv_.notify_all();
}

}  // namespace memcity
