#include "explore/worker.h"

#include <pthread.h>
#include <sys/resource.h>

#include <unistd.h>

#include <algorithm>
#include <cstdio>
#include <system_error>

#include "util/parallel.h"

namespace memcity::explore {

void lowerThreadPriority() {
    // Best effort: where it is refused the thread keeps its priority.
    const auto self = static_cast<id_t>(::gettid());
    ::setpriority(PRIO_PROCESS, self, std::min(19, ::getpriority(PRIO_PROCESS, self) + 10));
}

Worker::Worker(std::string name) : name_(std::move(name)) {
    try {
        thread_ = std::thread([this] { run(); });
    } catch (const std::system_error& e) {
        throw std::system_error(e.code(), "cannot start the thread '" + name_ + "'");
    }
    ::pthread_setname_np(thread_.native_handle(), name_.substr(0, 15).c_str());
}

Worker::~Worker() {
    {
        std::lock_guard lock(mutex_);
        stopping_ = true;
        pending_ = nullptr;
        running_token_.cancel();
    }
    changed_.notify_all();
    thread_.join();
}

void Worker::submit(Job job, Failed failed) {
    {
        std::lock_guard lock(mutex_);
        pending_ = std::move(job);
        pending_failed_ = std::move(failed);
        running_token_.cancel();
    }
    changed_.notify_all();
}

void Worker::cancel() {
    std::lock_guard lock(mutex_);
    pending_ = nullptr;
    running_token_.cancel();
    changed_.notify_all();
}

bool Worker::idle() const {
    std::lock_guard lock(mutex_);
    return !running_ && !pending_;
}

void Worker::waitIdle() const {
    std::unique_lock lock(mutex_);
    changed_.wait(lock, [this] { return !running_ && !pending_; });
}

void Worker::run() {
    lowerThreadPriority();
    std::unique_lock lock(mutex_);
    for (;;) {
        changed_.wait(lock, [this] { return stopping_ || pending_; });
        if (stopping_) return;
        Job job = std::move(pending_);
        Failed failed = std::move(pending_failed_);
        pending_ = nullptr;
        pending_failed_ = nullptr;
        running_token_ = CancelToken::cancellable();
        const CancelToken token = running_token_;
        running_ = true;
        lock.unlock();
        try {
            job(token);
        } catch (...) {  // (std::bad_alloc, most often: the heap needs more than the process may use)
            const std::string message = describeFailure(std::current_exception());
            try {
                if (failed)
                    failed(message);
                else
                    std::fprintf(stderr, "%s: %s\n", name_.c_str(), message.c_str());
            } catch (...) {  // (no memory even for that: the job's result stays absent)
            }
        }
        job = nullptr;
        failed = nullptr;  // whatever it captured goes before the worker says it is idle
        lock.lock();
        running_ = false;
        changed_.notify_all();
    }
}

}  // namespace memcity::explore
