#include "explore/diff_model.h"

#include <mutex>
#include <utility>

namespace memcity::explore {

// What the worker hands over: the diff of the key it was asked for, or why it failed.
struct DiffModel::Pending {
    std::mutex mutex;
    std::optional<std::pair<Key, Result<HeapDiff>>> diff;
};

DiffModel::DiffModel(std::function<void()> wake, unsigned threads)
    : wake_(std::move(wake)),
      threads_(threads),
      pending_(std::make_shared<Pending>()),
      worker_(std::make_unique<Worker>("memcity diff")) {}

DiffModel::~DiffModel() = default;

void DiffModel::request(const HeapHistory& history, uint32_t base, uint32_t gc,
                        std::shared_ptr<const ClassifierChain> chain) {
    const Key want{base, gc, std::move(chain)};
    if (asked_ && *asked_ == want) return;
    asked_ = want;
    if (want.gc < want.base) {
        error_ = "no diff: the cursor (GC " + std::to_string(want.gc) + ") is before the base GC " +
                 std::to_string(want.base);
        worker_->cancel();
        return;
    }
    error_.clear();
    std::shared_ptr<Pending> pending = pending_;
    auto wake = wake_;
    const unsigned threads = threads_;
    const HeapHistory* h = &history;
    auto failed = [want, pending, wake](const std::string& message) {
        {
            std::lock_guard lock(pending->mutex);
            pending->diff.emplace(want, Error{message});
        }
        if (wake) wake();
    };
    worker_->submit(
        [h, want, threads, pending, wake](const CancelToken& token) {
            TreeOptions to;
            to.threads = threads;
            auto diff = HeapDiff::between(*h, want.base, want.gc, *want.chain, to);
            if (token.cancelled()) return;
            {
                std::lock_guard lock(pending->mutex);
                pending->diff.emplace(want, std::move(diff));
            }
            if (wake) wake();
        },
        failed);
}

bool DiffModel::update(const TreeSeries* series, const std::shared_ptr<const ClassifierChain>& series_chain) {
    std::unique_lock lock(pending_->mutex);
    if (!pending_->diff) return false;
    auto [key, diff] = std::move(*pending_->diff);
    pending_->diff.reset();
    lock.unlock();
    if (!asked_ || key != *asked_) return false;
    if (diff) {
        raw_ = std::make_shared<const HeapDiff>(std::move(*diff));
        key_ = key;
        lay(series, series_chain);
        error_.clear();
    } else {
        error_ = "the diff failed: " + diff.error().message;
    }
    return true;
}

void DiffModel::lay(const TreeSeries* series, const std::shared_ptr<const ClassifierChain>& series_chain) {
    laid_.reset();
    if (raw_ && series && key_.chain == series_chain)
        laid_ = std::make_shared<const scene::SeriesDiff>(scene::SeriesDiff::lay(*raw_, *series));
}

bool DiffModel::current(uint32_t base, uint32_t gc,
                        const std::shared_ptr<const ClassifierChain>& chain) const {
    return laid_ && laid_->baseGc() == base && laid_->gc() == gc && key_.chain == chain;
}

bool DiffModel::idle() const {
    // The worker first: a job hands its result over before the worker turns idle.
    if (!worker_->idle()) return false;
    std::lock_guard lock(pending_->mutex);
    return !pending_->diff;
}

void DiffModel::reset() {
    worker_->cancel();
    worker_->waitIdle();
    pending_ = std::make_shared<Pending>();  // what the stopped job left is dropped with the old one
    asked_.reset();
    raw_.reset();
    key_ = {};
    laid_.reset();
    error_.clear();
}

}  // namespace memcity::explore
