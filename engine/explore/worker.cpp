#include "explore/worker.h"

#include <pthread.h>
#include <sys/resource.h>

#include <unistd.h>

#include <algorithm>

namespace memcity::explore {

void lowerThreadPriority() {
    // Best effort: where it is refused the thread keeps its priority.
    const auto self = static_cast<id_t>(::gettid());
    ::setpriority(PRIO_PROCESS, self, std::min(19, ::getpriority(PRIO_PROCESS, self) + 10));
}

Worker::Worker(std::string name) {
    thread_ = std::thread([this] { run(); });
    ::pthread_setname_np(thread_.native_handle(), name.substr(0, 15).c_str());
}

Worker::~Worker() {
    {
        std::lock_guard lock(mutex_);
        stopping_ = true;
        pending_ = nullptr;
        running_token_.flag_->store(true);
    }
    changed_.notify_all();
    thread_.join();
}

void Worker::submit(Job job) {
    {
        std::lock_guard lock(mutex_);
        pending_ = std::move(job);
        running_token_.flag_->store(true);
    }
    changed_.notify_all();
}

void Worker::cancel() {
    std::lock_guard lock(mutex_);
    pending_ = nullptr;
    running_token_.flag_->store(true);
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
        pending_ = nullptr;
        running_token_ = CancelToken{};
        const CancelToken token = running_token_;
        running_ = true;
        lock.unlock();
        job(token);
        job = nullptr;  // whatever it captured goes before the worker says it is idle
        lock.lock();
        running_ = false;
        changed_.notify_all();
    }
}

}  // namespace memcity::explore
