// Session: construction, opening a trace or a heap dump, adopting what the background threads
// finished, and settling. Each feature's members live in their own file (session_*.cpp).
#include "explore/session.h"

#include <algorithm>
#include <chrono>
#include <filesystem>
#include <thread>

#include "explore/session_pending.h"
#include "graph/heap_graph.h"
#include "hprof/import_cache.h"
#include "scene/city_state.h"
#include "scene/estimates.h"

namespace memcity::explore {

Session::Session(SessionOptions options)
    : options_(std::move(options)),
      chain_(options_.chain),
      view_(options_.view),
      pending_(std::make_shared<Pending>()),
      series_worker_(std::make_unique<Worker>("memcity series")),
      inspect_worker_(std::make_unique<Worker>("memcity inspect")),
      sizes_worker_(std::make_unique<Worker>("memcity sizes")),
      heap_map_(std::make_unique<HeapMapModel>(options_.threads, options_.wake, options_.measure)),
      diff_(std::make_unique<DiffModel>(options_.wake, options_.threads)) {
    dominators_ = std::make_unique<DominatorModel>(options_.wake, options_.threads);
}

Session::~Session() {
    // The workers and the loader read the history and the chains: stop them first.
    dominators_.reset();
    heap_map_.reset();
    series_worker_.reset();
    inspect_worker_.reset();
    sizes_worker_.reset();
    diff_.reset();
    loader_.reset();
}

void Session::closeTrace() {
    for (Worker* w : {series_worker_.get(), inspect_worker_.get(), sizes_worker_.get()}) {
        w->cancel();
        w->waitIdle();
    }
    diff_->reset();
    // Its jobs read the history: stopped and waited for before the loader frees it.
    dominators_->reset();
    dominator_highlight_.clear();
    dominator_highlight_text_.clear();
    dominator_highlight_last_.reset();
    objects_.clear();
    objects_name_.clear();
    objects_row_.clear();
    heap_map_->reset();
    notice_.clear();
    loader_.reset();
    live_.reset();
    live_version_ = 0;
    live_state_ = {};
    live_when_ = {};
    live_grows_by_ = 0;
    live_judged_gc_ = -1;
    live_note_.clear();
    pending_ = std::make_shared<Pending>();  // what the stopped jobs left is dropped with the old one
    goto_after_series_.reset();
    series_.reset();
    series_chain_.reset();
    series_final_ = false;
    series_error_.clear();
    series_window_.reset();
    gcs_.clear();
    gcs_revision_ = 0;
    load_ = {};
    load_version_ = 0;
    cursor_ = scene::TimeCursor{};
    range_.reset();
    composer_.reset();
    user_camera_.reset();
    selection_.clear();
    drill_root_ = TreeSeries::kRoot;
    hovered_ = scene::kNoPick;
    inspection_.reset();
    inspection_error_.clear();
    sizes_.clear();
    sizes_requested_.clear();
    sizes_gc_ = UINT32_MAX;
}

void Session::open(const std::string& path) {
    closeTrace();
    path_ = path;
    auto chain = buildChain(chain_);
    if (chain) stream_chain_ = std::make_shared<const ClassifierChain>(std::move(*chain));
    if (!hprof::isHeapDump(path)) {
        import_.reset();
        openTrace(path);
        return;
    }
    // A dump: its import in the cache; else the same dump's import under way (a chain changed
    // while it loads opens it again) or failed (it fails again, unless the dump changed: its
    // place in the cache then changes too); else one started now.
    auto place = hprof::cachedImportOf(path);
    if (!place || place->ready) {
        import_.reset();
        if (place) {
            openTrace(place->trace);
        } else {
            load_.phase = LoadPhase::kFailed;
            load_.error = place.error().message;
        }
        return;
    }
    if (!import_ || import_->place().trace != place->trace)
        import_ = std::make_unique<DumpJob>(std::move(*place), options_.wake);
    updateImport();
}

std::optional<std::string> Session::importing() const {
    if (!import_ || import_->state().done) return std::nullopt;
    return import_->describe();
}

bool Session::updateImport() {
    if (!import_) return false;
    const DumpJobState st = import_->state();
    if (!st.error.empty()) {
        if (load_.phase == LoadPhase::kFailed && load_.error == st.error) return false;
        // What the loader read of the partial trace goes with it.
        closeTrace();
        load_.phase = LoadPhase::kFailed;
        load_.error = st.error;
        return true;
    }
    if (loader_ && st.done && load_.phase == LoadPhase::kFailed &&
        loader_->path() == import_->place().partial) {
        // The import ended, its trace renamed, before the loader opened the partial one.
        closeTrace();
        openTrace(import_->place().trace);
        return true;
    }
    if (loader_ || !st.started) return false;
    openTrace(st.done ? import_->place().trace : import_->place().partial);
    return true;
}

void Session::openTrace(const std::string& trace) {
    LoaderOptions lo;
    lo.chain = stream_chain_.get();
    lo.threads = options_.threads;
    lo.wake = options_.wake;
    loader_ = std::make_unique<TraceLoader>(trace, std::move(lo));
    live_ = std::make_unique<LiveLink>(trace, options_.wake);
}

const HeapHistory* Session::history() const {
    return loaded() ? &loader_->history() : nullptr;
}

const std::vector<Window>& Session::windows() const {
    static const std::vector<Window> kNone;
    return loaded() ? loader_->windows() : kNone;
}

bool Session::update() {
    bool changed = updateLive();
    if (loader_ && loader_->version() != load_version_) {
        load_version_ = loader_->version();
        const LoadPhase before = load_.phase;
        load_ = loader_->progress();
        loader_->syncGcs(&gcs_, &gcs_revision_);
        if (auto streamed = loader_->takeSeries()) {
            const bool final = loader_->streamedSeriesFinal();
            adoptSeries(std::make_shared<const TreeSeries>(std::move(*streamed)), stream_chain_, final);
        }
        if (before != LoadPhase::kReady && load_.phase == LoadPhase::kReady && !series_final_) recompute();
        changed = true;
    }
    // After the loader's word: an import's error stands over what its trace said.
    changed = updateImport() || changed;
    std::unique_lock lock(pending_->mutex);
    if (pending_->series && pending_->series_request == series_request_) {
        auto series = std::move(pending_->series);
        auto chain = std::move(pending_->chain);
        lock.unlock();
        series_error_.clear();
        adoptSeries(std::move(series), std::move(chain), true);
        lock.lock();
        changed = true;
    }
    if (pending_->series_error) {
        series_error_ = *pending_->series_error;
        pending_->series_error.reset();
        changed = true;
    }
    if (pending_->inspection) {
        if (pending_->inspection->request == inspection_request_) {
            inspection_ = std::move(pending_->inspection);
            inspection_error_.clear();
        }
        pending_->inspection.reset();
        changed = true;
    }
    if (pending_->inspection_error) {
        if (pending_->inspection_error->first == inspection_request_)
            inspection_error_ = pending_->inspection_error->second;
        pending_->inspection_error.reset();
        changed = true;
    }
    if (pending_->sizes) {
        if (pending_->sizes->first == sizes_gc_)
            for (const auto& [id, s] : pending_->sizes->second)
                sizes_[id] = s;
        pending_->sizes.reset();
        changed = true;
    }
    lock.unlock();
    if (diff_->update(series_.get(), series_chain_)) changed = true;
    if (heap_map_->update()) changed = true;
    if (auto groups = heap_map_->takeGroups()) adoptTileGroups(std::move(*groups));
    if (diff_shown_) requestDiff();
    if (dominators_shown_ && loaded()) {
        dominators_->follow(history(), currentGc());
        if (dominators_->update()) {
            changed = true;
            refreshDominatorObjects();
        }
        dominators_->requestHighlight(series_chain_);
        if (auto h = dominators_->takeHighlight()) {
            adoptDominatorHighlight(std::move(*h));
            changed = true;
        }
    }
    // The inspector follows the cursor: a new GC under it asks for a new inspection.
    if (series_ && (!selection_.empty() || !objects_.empty()) && inspection_wanted_.gc != currentGc() &&
        loaded())
        requestInspection();
    return changed;
}

bool Session::settled(bool live_ok) const {
    // The loader's done() before its version(): a load that ends between the two is not taken
    // for settled with its last records not yet taken up (TraceLoader::done).
    const bool loader_done = loader_ && loader_->done();
    // A dump's import decides: before it writes a trace there is none, its trace may look whole
    // (or cut off) a moment before the import says it failed, and the loader may fail to open
    // the partial trace that the import has just renamed (update() then opens the final one).
    if (import_ && !import_->state().done && (!loader_ || loader_done)) return false;
    if (loader_ && loader_->version() != load_version_) return false;
    if (loader_ && !loader_done && !(live_ok && load_.live)) return false;
    if (!series_worker_->idle() || !inspect_worker_->idle() || !sizes_worker_->idle() || !diff_->idle() ||
        !heap_map_->idle() || (dominators_shown_ && !dominators_->idle()))
        return false;
    std::lock_guard lock(pending_->mutex);
    return !pending_->series && !pending_->series_error && !pending_->inspection &&
           !pending_->inspection_error && !pending_->sizes;
}

void Session::waitSettled() {
    for (;;) {
        update();
        if (settled()) {
            update();  // what settling asked for (an inspection following the cursor)
            if (settled()) return;
        }
        std::this_thread::sleep_for(std::chrono::milliseconds(2));
    }
}

std::string Session::sizesUnavailable() const {
    return sampled() ? scene::sampledSizesReason(gcs_) : std::string();
}

std::string Session::referencesUnavailable() const {
    return sampled() ? scene::sampledReferencesReason(gcs_) : std::string();
}

}  // namespace memcity::explore
