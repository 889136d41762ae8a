// A background thread that runs the latest job handed to it: the explorer recomputes a tree
// series, an inspection or the table's sizes there while the window keeps drawing. A job that
// is superseded before it starts is dropped; one that is running is asked to stop (its token
// turns cancelled) and finishes early when it looks.
#pragma once

#include <condition_variable>
#include <functional>
#include <memory>
#include <mutex>
#include <string>
#include <thread>

#include "util/progress.h"

namespace memcity::explore {

// Lowers the calling thread's scheduling priority (nice +10; on Linux the nice value is per
// thread, and threads it starts inherit it). Background work calls it so that the window's thread
// and the Vulkan driver's threads (lavapipe draws on the CPU) win the cores when they compete:
// the picture comes first, the background result a little later.
void lowerThreadPriority();

// What a running job checks between its steps: a Progress the worker cancels when the job is
// superseded, so a job hands it straight to an analysis pass. A default-constructed one never
// cancels (for calling a job's code outside a worker).
using CancelToken = Progress;

class Worker {
public:
    using Job = std::function<void(const CancelToken&)>;
    // Told, on the worker's thread, why a job ended in an exception (one line: "out of memory: ...").
    using Failed = std::function<void(const std::string& message)>;

    // Starts the thread (named `name`, at most 15 characters, for debuggers and `top -H`).
    // Throws std::system_error, naming it, when the thread cannot be created.
    explicit Worker(std::string name);
    // Cancels the running job, drops a pending one and joins the thread.
    ~Worker();
    Worker(const Worker&) = delete;
    Worker& operator=(const Worker&) = delete;

    // Runs `job` next: replaces a job waiting to start and cancels the running one. An exception
    // the job throws goes to `failed` (where empty: a line on stderr naming the worker).
    void submit(Job job, Failed failed = {});
    // Drops a waiting job and cancels the running one.
    void cancel();
    // Nothing running and nothing waiting.
    bool idle() const;
    // Blocks until idle() (scripts and tests wait for results this way).
    void waitIdle() const;

private:
    void run();

    mutable std::mutex mutex_;
    mutable std::condition_variable changed_;
    std::string name_;
    Job pending_;
    Failed pending_failed_;
    CancelToken running_token_;
    bool running_ = false;
    bool stopping_ = false;
    std::thread thread_;
};

}  // namespace memcity::explore
