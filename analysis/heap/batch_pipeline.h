// BatchPipeline: a thread that reads the EVENTS chunks of a trace ahead of the rebuild, checks
// and decompresses them, decodes their events and interns their shapes (decodeBatch), handing
// the batches over in chunk order through a small bounded queue.
#pragma once

#include <condition_variable>
#include <deque>
#include <exception>
#include <functional>
#include <memory>
#include <mutex>
#include <thread>
#include <vector>

#include "heap/replayer.h"
#include "heap/shape_table.h"
#include "trace/trace_reader.h"

namespace memcity {

class BatchPipeline {
public:
    // Starts decoding at once. Contract: `trace` and `shapes` outlive the pipeline, and nothing
    // else interns into `shapes` while it runs. Throws std::system_error when its thread cannot
    // be created (the caller then decodes on its own thread).
    BatchPipeline(const TraceFile& trace, ShapeTable& shapes, size_t depth = 4);
    ~BatchPipeline();  // stops the thread
    BatchPipeline(const BatchPipeline&) = delete;
    BatchPipeline& operator=(const BatchPipeline&) = delete;

    // The next decoded EVENTS chunk, in file order; null when there are no more. An exception
    // the thread met (std::bad_alloc, most often) is rethrown here after the batches before it.
    EventBatch* next();
    // Gives a batch back once applied.
    void release(EventBatch* batch);
    // Runs `task` on the pipeline's thread (between chunks, or after the last one). stop() waits
    // for every posted task; taskStatus() is the first failure among them, and rethrows an
    // exception the thread met.
    void post(std::function<Status()> task);
    Status taskStatus();
    // Stops decoding, finishes the posted tasks, joins the thread.
    void stop();

private:
    void run();
    void decode();
    void runTasks(std::unique_lock<std::mutex>& lock);

    const TraceFile& trace_;
    ShapeTable& shapes_;
    std::vector<std::unique_ptr<EventBatch>> storage_;
    std::mutex mutex_;
    std::condition_variable cv_;
    std::deque<EventBatch*> full_, free_;
    std::deque<std::function<Status()>> tasks_;
    Status task_status_;
    std::exception_ptr failure_;  // what ended the thread early
    bool stop_ = false, done_ = false;
    std::thread thread_;
};

}  // namespace memcity
