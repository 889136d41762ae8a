// The heap diff as a view (ICPE18 §5.3), its state: the diff of two GCs of a history by a
// classifier chain (born / died / permanent since the base GC), computed in the background when
// asked for, and laid onto the series shown (scene::SeriesDiff) once it is of the series' chain.
// The session owns one: it asks for the diff of its base GC and its cursor's GC while the diff
// is shown, lays it again when a new series comes, and waits for idle() to settle.
//
// Threads: used from the window's thread; one worker computes the diff and hands it over to
// update().
#pragma once

#include <cstdint>
#include <functional>
#include <memory>
#include <optional>
#include <string>

#include "classify/diff.h"
#include "classify/series.h"
#include "explore/worker.h"
#include "scene/cohorts.h"
#include "util/result.h"

namespace memcity::explore {

class DiffModel {
public:
    // `wake` is called from the worker when a diff (or its failure) is ready (may be empty);
    // `threads` classify each heap (TreeOptions::threads).
    DiffModel(std::function<void()> wake, unsigned threads);
    ~DiffModel();
    DiffModel(const DiffModel&) = delete;
    DiffModel& operator=(const DiffModel&) = delete;

    // Asks for the diff of GCs `base` and `gc` of `history` by `chain` (not null), in the
    // background; it replaces what was asked for before (a running job is cancelled and its result
    // dropped). Asking again for what was last asked for does nothing. With `gc` before `base`
    // nothing is computed and error() says why.
    // Contract: `history` outlives the model or the next reset().
    void request(const HeapHistory& history, uint32_t base, uint32_t gc,
                 std::shared_ptr<const ClassifierChain> chain);
    // Adopts the diff the worker finished, where it is of the last request, and lays it onto
    // `series` (see lay()); a failure becomes error() ("the diff failed: ..."). True when
    // current() or error() changed.
    bool update(const TreeSeries* series, const std::shared_ptr<const ClassifierChain>& series_chain);
    // Lays the last diff adopted onto `series`, which `series_chain` built; laid() is null where
    // there is no diff, no series, or the diff was classified by another chain.
    void lay(const TreeSeries* series, const std::shared_ptr<const ClassifierChain>& series_chain);

    // The diff as laid onto the series (null until one is adopted and laid). It may be of other
    // GCs than those last asked for while the next one is computed (current()).
    const std::shared_ptr<const scene::SeriesDiff>& laid() const { return laid_; }
    // Whether laid() is the diff of `base` and `gc` by `chain`.
    bool current(uint32_t base, uint32_t gc, const std::shared_ptr<const ClassifierChain>& chain) const;
    // Why no diff is shown ("" when one is or is on its way).
    const std::string& error() const { return error_; }

    // Nothing running, nothing waiting, and nothing finished that update() has not taken.
    bool idle() const;
    // Blocks until the worker is idle (a finished diff may still wait for update()).
    void waitIdle() const { worker_->waitIdle(); }
    // Forgets the trace: stops the worker and waits for it (its job reads the history), then
    // drops what was asked for, the diff and its error. Call before the history is freed.
    void reset();

private:
    struct Pending;
    // What a diff is of; it holds the chain, so a later chain can never take its address and
    // pass for it.
    struct Key {
        uint32_t base = 0, gc = 0;
        std::shared_ptr<const ClassifierChain> chain;
        bool operator==(const Key&) const = default;
    };

    std::function<void()> wake_;
    unsigned threads_;
    std::optional<Key> asked_;
    std::shared_ptr<const HeapDiff> raw_;
    Key key_;  // of raw_
    std::shared_ptr<const scene::SeriesDiff> laid_;
    std::string error_;

    std::shared_ptr<Pending> pending_;
    std::unique_ptr<Worker> worker_;  // last: stopped first
};

}  // namespace memcity::explore
