#include "explore/session.h"

#include <algorithm>
#include <chrono>
#include <filesystem>
#include <thread>

#include "classify/churn.h"
#include "graph/heap_graph.h"
#include "hprof/import_cache.h"
#include "scene/city_state.h"
#include "scene/estimates.h"

namespace memcity::explore {

// What the workers hand over; update() adopts it on the window's thread.
struct Session::Pending {
    std::mutex mutex;
    // Series.
    uint64_t series_request = 0;
    std::shared_ptr<const TreeSeries> series;
    std::shared_ptr<const ClassifierChain> chain;
    std::optional<std::string> series_error;
    // Inspection.
    std::optional<Inspection> inspection;
    std::optional<std::pair<uint64_t, std::string>> inspection_error;
    // Table sizes.
    std::optional<std::pair<uint32_t, std::map<uint32_t, GroupSizes>>> sizes;  // (gc, sizes)
    // Diff: of the key it was asked for, or why it failed.
    std::optional<std::pair<DiffKey, Result<HeapDiff>>> diff;
};

Session::Session(SessionOptions options)
    : options_(std::move(options)),
      chain_(options_.chain),
      view_(options_.view),
      pending_(std::make_shared<Pending>()),
      series_worker_(std::make_unique<Worker>("memcity series")),
      inspect_worker_(std::make_unique<Worker>("memcity inspect")),
      sizes_worker_(std::make_unique<Worker>("memcity sizes")),
      diff_worker_(std::make_unique<Worker>("memcity diff")),
      heap_map_(std::make_unique<HeapMapModel>(options_.threads, options_.wake, options_.measure)) {
    dominators_ = std::make_unique<DominatorModel>(options_.wake, options_.threads);
}

Session::~Session() {
    // The workers and the loader read the history and the chains: stop them first.
    dominators_.reset();
    heap_map_.reset();
    series_worker_.reset();
    inspect_worker_.reset();
    sizes_worker_.reset();
    diff_worker_.reset();
    loader_.reset();
}

void Session::closeTrace() {
    for (Worker* w : {series_worker_.get(), inspect_worker_.get(), sizes_worker_.get(), diff_worker_.get()}) {
        w->cancel();
        w->waitIdle();
    }
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
    diff_asked_.reset();
    diff_key_ = {};
    diff_raw_.reset();
    diff_.reset();
    diff_error_.clear();
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
    if (pending_->diff) {
        auto [key, diff] = std::move(*pending_->diff);
        pending_->diff.reset();
        if (diff_asked_ && key == *diff_asked_) {
            if (diff) {
                diff_raw_ = std::make_shared<const HeapDiff>(std::move(*diff));
                diff_key_ = key;
                layDiff();
                diff_error_.clear();
            } else {
                diff_error_ = "the diff failed: " + diff.error().message;
            }
            changed = true;
        }
    }
    lock.unlock();
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
    if (!series_worker_->idle() || !inspect_worker_->idle() || !sizes_worker_->idle() ||
        !diff_worker_->idle() || !heap_map_->idle() || (dominators_shown_ && !dominators_->idle()))
        return false;
    std::lock_guard lock(pending_->mutex);
    return !pending_->series && !pending_->series_error && !pending_->inspection &&
           !pending_->inspection_error && !pending_->sizes && !pending_->diff;
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

bool Session::recomputing() const {
    return !series_worker_->idle();
}

// --- series ---------------------------------------------------------------------------------

void Session::adoptSeries(std::shared_ptr<const TreeSeries> series,
                          std::shared_ptr<const ClassifierChain> chain, bool final) {
    // Carry the selection and the drill root over by their label paths.
    std::vector<std::vector<std::string>> selected;
    std::vector<bool> selected_other;
    for (uint32_t id : selection_) {
        selected.push_back(labelsOf(id));
        selected_other.push_back(scene::isOtherId(id));
    }
    const std::vector<std::string> drill = labelsOf(drill_root_);
    const double gc_time = series_ ? cursor_.gcTime() : 0.0;
    // While a trace loads, a cursor at the newest GC follows the GCs as they come.
    const bool at_end = !series_ || cursor_.atEnd();
    const bool playing = cursor_.playing();
    const bool had_series = series_ != nullptr;

    if (composer_ && view_ == scene::ViewKind::kCity) user_camera_ = composer_->camera();
    series_ = std::move(series);
    series_chain_ = std::move(chain);
    series_final_ = final;
    composer_.reset();

    scene::TimeCursorOptions to;
    to.speed = cursor_.speed();
    cursor_ = scene::TimeCursor::over(*series_, to);
    if (at_end && !playing)
        cursor_.seek(cursor_.maxT());
    else if (had_series)
        cursor_.seek(cursor_.indexTimeOf(gc_time));
    if (playing) cursor_.play();

    selection_.clear();
    for (size_t i = 0; i < selected.size(); ++i) {
        const uint32_t id = selected[i].empty() ? TreeSeries::kRoot : series_->find(selected[i]);
        if (id == kNoNode) continue;
        selection_.push_back(selected_other[i] ? scene::otherIdOf(id) : id);
    }
    const uint32_t d = drill.empty() ? TreeSeries::kRoot : series_->find(drill);
    drill_root_ = d == kNoNode ? TreeSeries::kRoot : d;
    hovered_ = scene::kNoPick;
    sizes_.clear();
    sizes_gc_ = UINT32_MAX;
    layDiff();  // the diff keeps its counts when the series is of the chain it classified by
    // The dominator highlight names nodes of the last series: found again in this one by labels.
    if (dominator_highlight_last_ && dominator_highlight_last_->chain == series_chain_) {
        adoptDominatorHighlight(*dominator_highlight_last_);
    } else {
        dominator_highlight_.clear();
        dominator_highlight_text_.clear();
        dominator_highlight_last_.reset();
    }
    if (goto_after_series_ && final && *goto_after_series_ >= series_->firstGc() &&
        *goto_after_series_ <= series_->lastGc()) {
        cursor_.pause();
        cursor_.seekGc(*goto_after_series_);
        goto_after_series_.reset();
    }
    if (loaded()) requestInspection();
}

void Session::recompute() {
    const HeapHistory* h = history();
    if (!h) return;  // the loader streams or rebuilds it once loaded
    auto chain = buildChain(chain_);
    if (!chain) {
        series_error_ = chain.error().message;
        return;
    }
    if (h->sampled() && chain->needsReferences()) {
        // (A chain the session was opened with: applyChain refuses it on a sampled recording.)
        series_error_ =
            "'" + chain->spec() + "' reads references: " + scene::sampledReferencesReason(h->gcs());
        return;
    }
    auto shared_chain = std::make_shared<const ClassifierChain>(std::move(*chain));
    SeriesOptions so;
    if (series_window_) {
        so.from = series_window_->from;
        so.to = series_window_->to;
    }
    so.threads = options_.threads;
    const uint64_t request = ++series_request_;
    std::shared_ptr<Pending> pending = pending_;
    auto wake = options_.wake;
    const std::optional<GcRange> churn = churn_window_;
    series_worker_->submit(
        [h, shared_chain, so, churn, request, pending, wake](const CancelToken& token) mutable {
            so.progress = [&token](uint32_t) { return !token.cancelled(); };
            auto series = churn ? churnSeries(*h, churn->from, churn->to, *shared_chain, so)
                                : buildWindowSeries(*h, *shared_chain, so);
            if (token.cancelled()) return;
            {
                std::lock_guard lock(pending->mutex);
                if (series) {
                    pending->series_request = request;
                    pending->series = std::make_shared<const TreeSeries>(std::move(*series));
                    pending->chain = shared_chain;
                } else {
                    pending->series_error = series.error().message;
                }
            }
            if (wake) wake();
        },
        [pending, wake](const std::string& message) {
            {
                std::lock_guard lock(pending->mutex);
                pending->series_error = message;
            }
            if (wake) wake();
        });
}

std::string Session::sizesUnavailable() const {
    return sampled() ? scene::sampledSizesReason(gcs_) : std::string();
}

std::string Session::referencesUnavailable() const {
    return sampled() ? scene::sampledReferencesReason(gcs_) : std::string();
}

Status Session::applyChain(const ChainConfig& config) {
    const ChainCheck check = checkChain(config, referencesUnavailable());
    if (!check.ok()) return Error{check.firstError()};
    const bool same_counts = config.classifiers == chain_.classifiers && config.filters == chain_.filters;
    chain_ = config;
    if (same_counts) {
        // Metric, sort or pruning: the same series, laid out again.
        composer_.reset();
        return {};
    }
    if (!loaded()) {
        // Still loading: stream with the new chain from the start.
        const std::string p = path_;
        open(p);
        return {};
    }
    recompute();
    return {};
}

// --- time -----------------------------------------------------------------------------------

uint32_t Session::currentGc() const {
    if (cursor_.gcCount() == 0) return 0;
    const size_t i = std::min(static_cast<size_t>(std::lround(cursor_.t())), cursor_.gcCount() - 1);
    return cursor_.gcs()[i];
}

Status Session::goToGc(uint64_t gc) {
    if (!series_) return Error{"no GC to go to yet: the trace is still loading"};
    if (gc >= gcs_.size() && !history()) {
        return Error{"GC " + std::to_string(gc) + " is not loaded yet (" + std::to_string(gcs_.size()) +
                     " GCs so far)"};
    }
    if (const HeapHistory* h = history(); h && gc >= h->gcCount()) return Error{h->gcRangeError(gc)};
    if (gc < series_->firstGc() || gc > series_->lastGc())
        return Error{"GC " + std::to_string(gc) + " is outside the series (GCs " +
                     std::to_string(series_->firstGc()) + ".." + std::to_string(series_->lastGc()) + ")"};
    cursor_.seekGc(static_cast<uint32_t>(gc));
    return {};
}

void Session::setRange(std::optional<GcRange> range) {
    if (range && range->from > range->to) std::swap(range->from, range->to);
    range_ = range;
    if (!selection_.empty()) requestInspection();
}

Status Session::seriesOverRange() {
    if (!loaded()) return Error{"the trace is still loading"};
    if (churn_window_) return showChurn(true);
    if (range_ && range_->to >= gcs_.size()) return Error{history()->gcRangeError(range_->to)};
    series_window_ = range_;
    recompute();
    return {};
}

uint32_t Session::baseGc() const {
    if (range_) return range_->from;
    return series_ ? series_->firstGc() : 0;
}

// --- view -----------------------------------------------------------------------------------

void Session::setView(scene::ViewKind kind) {
    if (kind == view_) return;
    if (composer_ && view_ == scene::ViewKind::kCity) user_camera_ = composer_->camera();
    view_ = kind;
    composer_.reset();
    hovered_ = scene::kNoPick;
}

Result<Window> Session::windowAt(size_t index) const {
    const std::vector<Window>& all = windows();
    if (index >= all.size())
        return Error{"no window " + std::to_string(index + 1) + " (" + std::to_string(all.size()) +
                     " suspicious windows)"};
    return all[index];
}

Status Session::selectWindow(size_t index) {
    auto w = windowAt(index);
    if (!w) return w.error();
    setRange(GcRange{w->first_gc, w->last_gc});
    return seriesOverRange();
}

// --- the diff -------------------------------------------------------------------------------

void Session::showDiff(bool on) {
    if (on) endChurn();  // the diff is of heaps
    diff_shown_ = on;
    if (on) requestDiff();
}

void Session::layDiff() {
    diff_.reset();
    if (diff_raw_ && series_ && diff_key_.chain == series_chain_)
        diff_ = std::make_shared<const scene::SeriesDiff>(scene::SeriesDiff::lay(*diff_raw_, *series_));
}

bool Session::diffCurrent() const {
    return diff_ && series_ && diff_->baseGc() == baseGc() && diff_->gc() == currentGc() &&
           diff_key_.chain == series_chain_;
}

void Session::requestDiff() {
    const HeapHistory* h = history();
    if (!h || !series_ || !series_chain_ || churn_window_) return;
    const DiffKey want{baseGc(), currentGc(), series_chain_};
    if (diff_asked_ && *diff_asked_ == want) return;
    diff_asked_ = want;
    if (want.gc < want.base) {
        diff_error_ = "no diff: the cursor (GC " + std::to_string(want.gc) + ") is before the base GC " +
                      std::to_string(want.base);
        diff_worker_->cancel();
        return;
    }
    diff_error_.clear();
    std::shared_ptr<Pending> pending = pending_;
    auto wake = options_.wake;
    const unsigned threads = options_.threads;
    auto failed = [want, pending, wake](const std::string& message) {
        {
            std::lock_guard lock(pending->mutex);
            pending->diff.emplace(want, Error{message});
        }
        if (wake) wake();
    };
    diff_worker_->submit(
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

Status Session::windowNext(size_t index) {
    auto w = windowAt(index);
    if (!w) return w.error();
    setRange(GcRange{nextStepFrom(*w), w->last_gc});
    goto_after_series_ = w->last_gc;
    if (w->kind == WindowKind::kChurn) return showChurn(true);
    churn_window_.reset();  // (the series over the range follows)
    if (Status st = seriesOverRange(); !st) return st;
    showDiff(true);
    return {};
}

// --- churn mode ----------------------------------------------------------------------------

void Session::endChurn() {
    if (!churn_window_) return;
    churn_window_.reset();
    recompute();
}

Status Session::showChurn(bool on) {
    if (!on) {
        endChurn();
        return {};
    }
    if (!loaded()) return Error{"churn: the trace is still loading"};
    if (!range_ || range_->from >= range_->to)
        return Error{"churn needs a range of two GCs or more (shift-drag in the timeline, or 'range A B')"};
    if (range_->to >= gcs_.size()) return Error{history()->gcRangeError(range_->to)};
    auto chain = buildChain(chain_);
    if (!chain) return chain.error();
    if (chain->needsReferences())
        return Error{"churn: '" + chain->spec() +
                     "' reads references, which objects that died between snapshots never had"};
    diff_shown_ = false;
    churn_window_ = range_;
    series_window_ = range_;
    recompute();
    return {};
}

std::string Session::stopReason(uint32_t gc, std::optional<uint32_t> previous) const {
    if (gc >= gcs().size()) return "";
    if (stops_.full_gc && gcs()[gc].kind == static_cast<uint8_t>(format::GcKind::kMajor))
        return "GC " + std::to_string(gc) + " is a full GC";
    if (stops_.window_start)
        for (const Window& w : windows())
            if (w.first_gc == gc)
                return "GC " + std::to_string(gc) + " starts a " + std::string(windowKindName(w.kind)) +
                       " window";
    if (stops_.grows_over && previous && !selection_.empty()) {
        const double grew = selectionValueAt(gc, chain_.metric) - selectionValueAt(*previous, chain_.metric);
        if (grew > static_cast<double>(stops_.grows_over))
            return "the selection grew by " + std::string(sampled() ? "\u2248 " : "") +
                   std::to_string(static_cast<uint64_t>(grew)) +
                   (chain_.metric == Metric::kBytes ? " bytes" : " objects") + " at GC " + std::to_string(gc);
    }
    return "";
}

bool Session::advance(double dt_seconds) {
    const double before = cursor_.t();
    if (!cursor_.advance(dt_seconds)) return false;
    if (!stops_.any() || !series_) return true;
    const double after = cursor_.t();
    const std::vector<uint32_t>& held = series_->gcs();
    // The GCs reached on the way, in the direction of play.
    const bool forward = after > before;
    const auto first = static_cast<long>(forward ? std::floor(before) + 1 : std::ceil(before) - 1);
    const auto last = static_cast<long>(forward ? std::floor(after) : std::ceil(after));
    for (long k = first; forward ? k <= last : k >= last; k += forward ? 1 : -1) {
        if (k < 0 || static_cast<size_t>(k) >= held.size()) break;
        std::optional<uint32_t> previous;
        if (k > 0) previous = held[static_cast<size_t>(k) - 1];
        std::string why = stopReason(held[static_cast<size_t>(k)], previous);
        if (why.empty()) continue;
        cursor_.pause();
        cursor_.seek(static_cast<double>(k));
        last_stop_ = new_stop_ = "stopped: " + why;
        break;
    }
    return true;
}

void Session::setScaled(bool scaled) {
    if (scaled == this->scaled()) return;
    (view_ == scene::ViewKind::kTimelineTrees ? trees_scaled_ : scaled_) = scaled;
    if (view_ != scene::ViewKind::kCity) composer_.reset();
}

void Session::setTreesCities(bool cities) {
    if (cities == trees_cities_) return;
    trees_cities_ = cities;
    if (view_ == scene::ViewKind::kTimelineTrees) invalidateView();
}

bool Session::pin(uint32_t gc) {
    if (!series_ || !std::binary_search(series_->gcs().begin(), series_->gcs().end(), gc)) return false;
    auto it = std::lower_bound(pins_.begin(), pins_.end(), gc);
    if (it != pins_.end() && *it == gc) return false;
    pins_.insert(it, gc);
    if (composer_) composer_->setPins(pins_);
    return true;
}

bool Session::unpin(uint32_t gc) {
    auto it = std::lower_bound(pins_.begin(), pins_.end(), gc);
    if (it == pins_.end() || *it != gc) return false;
    pins_.erase(it);
    if (composer_) composer_->setPins(pins_);
    return true;
}

void Session::togglePin(double gc_time) {
    if (!series_ || series_->gcCount() == 0) return;
    const std::vector<uint32_t>& held = series_->gcs();
    auto it = std::lower_bound(held.begin(), held.end(), gc_time);  // the nearest held GC
    if (it == held.end() || (it != held.begin() && gc_time - *(it - 1) < *it - gc_time)) --it;
    if (!unpin(*it)) pin(*it);
}

const PruneOptions& Session::viewPrune() const {
    static const scene::ViewOptions kDefaults;
    if (view_ != scene::ViewKind::kCity) return chain_.prune;
    return composer_ ? composer_->options().city_prune : kDefaults.city_prune;
}

scene::ViewFrameStats Session::compose(scene::PixelRect rect, glm::vec2 framebuffer, render::DrawList& out) {
    out.clear();
    view_rect_ = rect;
    framebuffer_ = framebuffer;
    if (!series_ || rect.empty()) return {};
    if (view_ == scene::ViewKind::kHeapMap) {
        if (const HeapHistory* h = history())
            heap_map_->compose(*h, std::filesystem::path(path_).filename().string(), heapMapFrame(), rect,
                               framebuffer, out);
        return {};
    }
    const glm::vec2 size(rect.width(), rect.height());
    if (!composer_) {
        scene::ViewInputs in;
        in.series = series_.get();
        in.sampling_interval = samplingInterval();
        scene::ViewOptions vo;
        vo.kind = view_;
        vo.metric = chain_.metric;
        vo.sort = chain_.sort;
        vo.prune = chain_.prune;
        vo.city_prune.enabled = chain_.prune.enabled;
        vo.scale = scaled() ? scene::RadialScale::kScaled : scene::RadialScale::kUnscaled;
        vo.pins = pins_;
        vo.trees_cities = trees_cities_;
        vo.title_bar = false;
        vo.time_strip = false;
        vo.measure = options_.measure;
        auto c = scene::ViewComposer::prepare(in, vo, size);
        if (!c) return {};
        composer_.emplace(std::move(*c));
        if (user_camera_ && view_ == scene::ViewKind::kCity) {
            composer_->camera() = *user_camera_;
            composer_->resize(size);
        }
    } else if (composer_->size() != size) {
        composer_->resize(size);
    }
    std::vector<uint32_t> selected = selection_;
    composer_->setSelected(std::move(selected));
    composer_->setHovered(hovered_);
    composer_->setHighlighted(dominators_shown_ ? dominator_highlight_ : std::vector<uint32_t>{});
    composer_->setDrillRoot(drill_root_);
    composer_->setDiff(diff_shown_ ? diff_ : nullptr);
    const scene::ViewFrameStats stats = composer_->compose(cursor_.t(), out);
    scene::placeInRect(out, rect, framebuffer);
    return stats;
}

HeapMapFrame Session::heapMapFrame() const {
    HeapMapFrame f;
    f.gc = cursor_.gcBefore();
    f.next_gc = cursor_.gcAfter();
    f.fraction = cursor_.fraction();
    f.held = cursor_.gcs();
    f.chain = series_chain_;
    for (uint32_t id : selection_)
        for (uint32_t node : nodesOf(id))
            f.selected.push_back(labelsOf(node));
    return f;
}

std::optional<scene::HeapTilePick> Session::heapTileAt(glm::vec2 pixel) const {
    if (view_ != scene::ViewKind::kHeapMap) return std::nullopt;
    return heap_map_->pick(pixel);
}

void Session::selectTile(const scene::HeapTilePick& tile, bool add) {
    if (const HeapHistory* h = history()) heap_map_->requestGroups(*h, tile, add);
}

void Session::adoptTileGroups(HeapMapModel::TileGroups groups) {
    if (!groups.error.empty()) {
        notice_ = groups.error;
        return;
    }
    if (!series_) return;
    if (groups.groups.empty()) {
        notice_ = "no object starts in that tile";
        return;
    }
    // The largest groups the series holds (a series over a window may lack one of the GC's).
    std::vector<uint32_t> ids;
    for (const RangeGroup& g : groups.groups)
        if (const uint32_t id = series_->find(g.labels); id != kNoNode && ids.size() < kTileGroups)
            ids.push_back(id);
    if (!groups.add) selection_.clear();
    for (uint32_t id : ids)
        if (std::find(selection_.begin(), selection_.end(), id) == selection_.end()) selection_.push_back(id);
    const size_t n = groups.groups.size();
    notice_ = ids.size() == n
                  ? "selected the tile's " + std::to_string(n) + (n == 1 ? " group" : " groups")
                  : "selected " + std::to_string(ids.size()) + " of the tile's " + std::to_string(n) +
                        " groups (the largest, at most " + std::to_string(kTileGroups) + ")";
    requestInspection();
}

std::optional<scene::ViewPick> Session::pick(glm::vec2 pixel) const {
    if (!composer_ || !view_rect_.contains(pixel)) return std::nullopt;
    return composer_->pick(pixel - view_rect_.min);
}

scene::OrbitCamera* Session::camera() {
    if (!composer_ || view_ != scene::ViewKind::kCity) return nullptr;
    return &composer_->camera();
}

Status Session::resetCamera(std::string_view preset) {
    if (!composer_ || view_ != scene::ViewKind::kCity) {
        // Checked against a unit box so an unknown name fails the same way without a city.
        auto c = scene::cameraPreset(preset, scene::Bounds{glm::vec3(0.0f), glm::vec3(1.0f)}, 1.0f);
        if (!c) return c.error();
        user_camera_.reset();
        return {};
    }
    Status st = composer_->resetCamera(preset);
    if (st) user_camera_ = composer_->camera();
    return st;
}

const scene::CityLayout* Session::cityLayout() const {
    return composer_ && view_ == scene::ViewKind::kCity ? &composer_->cityLayout() : nullptr;
}

scene::Bounds Session::cityBounds() const {
    return composer_ && view_ == scene::ViewKind::kCity ? composer_->cityLayout().bounds : scene::Bounds{};
}

bool Session::frameSelection() {
    if (!composer_ || view_ != scene::ViewKind::kCity) return false;
    const scene::CityLayout& layout = composer_->cityLayout();
    const scene::CityState& state = composer_->cityState();
    if (state.buildings.size() != layout.buildings.size()) return false;
    std::optional<scene::Bounds> box;
    auto grow = [&box](const scene::Bounds& b) {
        if (!box) {
            box = b;
        } else {
            box->min = glm::min(box->min, b.min);
            box->max = glm::max(box->max, b.max);
        }
    };
    for (uint32_t id : selection_) {
        if (const uint32_t b = layout.findBuilding(id); b != scene::kNoIndex) {
            scene::Bounds bounds = scene::buildingBounds(layout, state, b);
            bounds.max.y = std::max(bounds.max.y, bounds.min.y + 1.0f);
            grow(bounds);
        } else if (const uint32_t d = layout.findDistrict(id); d != scene::kNoIndex) {
            const scene::CityDistrict& c = layout.districts[d];
            grow(scene::Bounds{{c.x0, c.y0, c.z0}, {c.x1, c.y1 + 1.0f, c.z1}});
        }
    }
    if (!box) return false;
    scene::OrbitCamera& cam = composer_->camera();
    cam.target = (box->min + box->max) * 0.5f;
    cam.frame(*box, 1.3f);
    cam.fitClipPlanes(layout.bounds);
    user_camera_ = cam;
    return true;
}

// --- selection ------------------------------------------------------------------------------

std::vector<std::string> Session::labelsOf(uint32_t id) const {
    std::vector<std::string> labels;
    if (!series_) return labels;
    uint32_t at = scene::isOtherId(id) ? scene::otherParentOf(id) : id;
    if (at >= series_->size()) return labels;
    for (; at != TreeSeries::kRoot; at = series_->node(at).parent)
        labels.push_back(series_->label(at));
    std::reverse(labels.begin(), labels.end());
    return labels;
}

std::string Session::nameOf(uint32_t id) const {
    if (!series_) return {};
    if (scene::isOtherId(id)) {
        const uint32_t parent = scene::otherParentOf(id);
        const size_t n = nodesOf(id).size();
        std::string under = parent == TreeSeries::kRoot ? "Overall" : series_->path(parent);
        return "Other (" + std::to_string(n) + " groups) under " + under;
    }
    if (id >= series_->size()) return {};
    return id == TreeSeries::kRoot ? "Overall" : series_->path(id);
}

std::vector<uint32_t> Session::nodesOf(uint32_t id) const {
    if (!series_) return {};
    if (!scene::isOtherId(id))
        return id < series_->size() ? std::vector<uint32_t>{id} : std::vector<uint32_t>{};
    const uint32_t parent = scene::otherParentOf(id);
    if (parent >= series_->size()) return {};
    return series_->prunedChildren(parent, chain_.sort, chain_.metric, viewPrune()).folded;
}

void Session::select(uint32_t id, bool add) {
    if (!series_) return;
    objects_.clear();
    objects_name_.clear();
    objects_row_.clear();
    if (!add) {
        selection_.assign(1, id);
    } else if (auto it = std::find(selection_.begin(), selection_.end(), id); it != selection_.end()) {
        selection_.erase(it);
    } else {
        selection_.push_back(id);
    }
    requestInspection();
    locateInDominators();
}

void Session::clearSelection() {
    selection_.clear();
    objects_.clear();
    objects_name_.clear();
    objects_row_.clear();
    inspection_.reset();
    inspection_error_.clear();
    inspect_worker_->cancel();
    dominators_->select("");  // and the city's highlight of its row goes with it (update)
}

Status Session::selectPath(const std::string& paths, bool add) {
    if (!series_) return Error{"nothing to select yet: the trace is still loading"};
    std::vector<uint32_t> ids;
    for (const auto& labels : parseNodePaths(paths)) {
        const uint32_t id = labels.empty() ? TreeSeries::kRoot : series_->find(labels);
        if (id == kNoNode) {
            std::string path;
            for (const std::string& l : labels)
                path += (path.empty() ? "" : " / ") + l;
            return Error{"no group '" + path + "' in the series by " + chain_.spec()};
        }
        ids.push_back(id);
    }
    if (!add) selection_.clear();
    objects_.clear();
    objects_name_.clear();
    objects_row_.clear();
    for (uint32_t id : ids)
        if (std::find(selection_.begin(), selection_.end(), id) == selection_.end()) selection_.push_back(id);
    requestInspection();
    locateInDominators();
    return {};
}

void Session::drill(uint32_t node) {
    if (!series_) return;
    if (scene::isOtherId(node)) node = scene::otherParentOf(node);
    if (node >= series_->size()) return;
    if (series_->node(node).children.empty() && node != TreeSeries::kRoot) node = series_->node(node).parent;
    drill_root_ = node;
}

void Session::drillUp() {
    if (series_ && drill_root_ != TreeSeries::kRoot) drill_root_ = series_->node(drill_root_).parent;
}

Status Session::drillPath(const std::string& path) {
    if (!series_) return Error{"nothing to drill into yet: the trace is still loading"};
    const auto paths = parseNodePaths(path);
    if (paths.size() != 1) return Error{"drill takes one group path, like 'java.util / java.util.HashMap'"};
    const uint32_t id = paths[0].empty() ? TreeSeries::kRoot : series_->find(paths[0]);
    if (id == kNoNode) return Error{"no group '" + path + "' in the series by " + chain_.spec()};
    drill(id);
    return {};
}

std::vector<uint32_t> Session::drillTrail() const {
    std::vector<uint32_t> trail;
    if (!series_) return trail;
    for (uint32_t at = drill_root_; at != kNoNode; at = series_->node(at).parent) {
        trail.push_back(at);
        if (at == TreeSeries::kRoot) break;
    }
    std::reverse(trail.begin(), trail.end());
    return trail;
}

ItemInfo Session::describe(uint32_t id) const {
    ItemInfo info;
    info.id = id;
    if (!series_) return info;
    info.name = nameOf(id);
    const double gc_time = cursor_.gcTime();
    const std::vector<uint32_t> nodes = nodesOf(id);
    info.objects = series_->sumAt(nodes, gc_time, Metric::kObjects);
    info.bytes = series_->sumAt(nodes, gc_time, Metric::kBytes);
    // The views colour growth over the last quarter of the series (scene::ViewOptions::trend_window).
    const double back = std::max(1.0, std::round(cursor_.maxT() * scene::ViewOptions{}.trend_window));
    const double from = scene::TimeCursor::gcTimeOf(cursor_.gcs(), std::max(0.0, cursor_.t() - back));
    info.growth = series_->sumAt(nodes, gc_time, chain_.metric) - series_->sumAt(nodes, from, chain_.metric);
    info.district = !scene::isOtherId(id) && id < series_->size() && !series_->node(id).children.empty();
    if (series_->sampled()) info.sampled = scene::sampledSumAt(*series_, nodes, gc_time);
    return info;
}

// --- inspector ------------------------------------------------------------------------------

void Session::showDominators(bool on) {
    dominators_shown_ = on;
    if (on && loaded()) dominators_->follow(history(), currentGc());
    if (!on) {
        // Hidden: the heap, its references and its tree are not kept (built again when shown).
        dominators_->release();
        dominator_highlight_.clear();
        dominator_highlight_text_.clear();
        dominator_highlight_last_.reset();
    }
}

void Session::inspectObjects(std::vector<uint64_t> ids, std::string name) {
    objects_row_.clear();
    setInspectedObjects(std::move(ids), std::move(name));
}

void Session::setInspectedObjects(std::vector<uint64_t> ids, std::string name) {
    if (ids.empty()) return;
    objects_ = std::move(ids);
    objects_name_ = std::move(name);
    selection_.clear();
    requestInspection();
}

// "HashMap#12 (dominator tree of GC 41)": the title of a dominator row's objects.
static std::string dominatorRowTitle(const DominatorTableRow& row, std::optional<uint32_t> gc) {
    return row.label + " (dominator tree of GC " + std::to_string(gc.value_or(0)) + ")";
}

Status Session::selectDominatorRow(const std::string& key) {
    if (!dominators_->select(key)) return Error{"no row '" + key + "' in the dominator view"};
    const DominatorTableRow* row = dominators_->selectedRow();
    std::vector<uint64_t> ids = dominators_->selectedObjects();
    if (ids.empty()) return Error{"the dominator view's row '" + row->label + "' stands for no objects"};
    setInspectedObjects(std::move(ids), dominatorRowTitle(*row, dominators_->shownGc()));
    objects_row_ = key;
    return {};
}

void Session::refreshDominatorObjects() {
    // The inspected row's objects and title are of the heap they were picked in: read them again
    // from the heap now shown, where the row (kept by its key) still is.
    if (objects_row_.empty() || dominators_->selected() != objects_row_) return;
    const DominatorTableRow* row = dominators_->selectedRow();
    if (!row) return;
    std::vector<uint64_t> ids = dominators_->selectedObjects();
    std::string name = dominatorRowTitle(*row, dominators_->shownGc());
    if (ids.empty() || (ids == objects_ && name == objects_name_)) return;
    setInspectedObjects(std::move(ids), std::move(name));
}

void Session::locateInDominators() {
    if (!dominators_shown_ || !series_ || selection_.size() != 1) return;
    std::vector<std::vector<std::string>> groups;
    for (uint32_t node : nodesOf(selection_.front())) {
        if (node == TreeSeries::kRoot) return;  // the whole heap: no one row
        groups.push_back(labelsOf(node));
    }
    if (!groups.empty()) dominators_->locate(std::move(groups), nameOf(selection_.front()), series_chain_);
}

void Session::adoptDominatorHighlight(DominatorModel::Highlight h) {
    dominator_highlight_.clear();
    dominator_highlight_text_.clear();
    dominator_highlight_last_.reset();
    if (h.key.empty()) return;
    dominator_highlight_last_ = h;
    const DominatorTableRow* row = dominators_->selectedRow();
    const std::string name = row ? row->label : h.key;
    if (!h.error.empty()) {
        dominator_highlight_text_ = "city: " + name + ": " + h.error;
        return;
    }
    if (!series_) return;
    uint64_t objects = 0, bytes = 0;
    for (const RangeGroup& g : h.groups) {
        const uint32_t id = series_->find(g.labels);
        if (id == kNoNode) continue;
        dominator_highlight_.push_back(id);
        objects += g.objects;
        bytes += g.bytes;
    }
    const size_t n = dominator_highlight_.size();
    dominator_highlight_text_ = "city: " + std::to_string(n) +
                                (n == 1 ? " building holds " : " buildings hold ") + std::to_string(objects) +
                                " objects, " + std::to_string(bytes) + " B of the " +
                                std::to_string(h.objects) + " objects, " + std::to_string(h.bytes) +
                                " B that " + name + " retains at GC " + std::to_string(h.gc);
    if (n < h.groups.size())
        dominator_highlight_text_ += " (" + std::to_string(h.groups.size() - n) + " groups not in the city)";
}

void Session::requestInspection() {
    if (!series_ || (selection_.empty() && objects_.empty())) return;
    if (churn_window_) {
        ++inspection_request_;
        inspection_.reset();
        inspection_error_ =
            "churn mode: these groups hold objects that died young; the inspector reads heaps";
        return;
    }
    InspectionRequest r;
    r.id = ++inspection_request_;
    r.gc = currentGc();
    r.threads = options_.threads;
    const uint32_t base = baseGc();
    if (base < r.gc) r.base_gc = base;
    if (!objects_.empty()) {
        r.objects = objects_;
        r.names.assign(1, objects_name_);
    }
    for (uint32_t id : objects_.empty() ? selection_ : std::vector<uint32_t>{}) {
        for (uint32_t node : nodesOf(id)) {
            if (node == TreeSeries::kRoot) {
                r.groups.clear();  // the whole heap
                r.names.assign(1, "Overall");
                break;
            }
            r.groups.push_back(labelsOf(node));
            r.names.push_back(nameOf(node));
        }
        if (!r.names.empty() && r.names.front() == "Overall" && r.groups.empty()) break;
    }
    inspection_wanted_ = r;
    const HeapHistory* h = history();
    if (!h) return;  // asked again once loaded
    std::shared_ptr<const ClassifierChain> chain = series_chain_;
    std::shared_ptr<Pending> pending = pending_;
    auto wake = options_.wake;
    auto failed = [id = r.id, pending, wake](const std::string& message) {
        {
            std::lock_guard lock(pending->mutex);
            pending->inspection_error = {id, message};
        }
        if (wake) wake();
    };
    inspect_worker_->submit(
        [h, chain, r, pending, wake](const CancelToken& token) {
            auto result = inspect(*h, *chain, r, token);
            if (token.cancelled()) return;
            {
                std::lock_guard lock(pending->mutex);
                if (result)
                    pending->inspection = std::move(*result);
                else
                    pending->inspection_error = {r.id, result.error().message};
            }
            if (wake) wake();
        },
        failed);
}

bool Session::inspectionCurrent() const {
    return inspection_ && inspection_->request == inspection_request_;
}

bool Session::inspecting() const {
    return !inspect_worker_->idle();
}

std::vector<double> Session::selectionCurve(Metric metric) const {
    std::vector<double> curve;
    if (!series_) return curve;
    for (uint32_t g : series_->gcs())
        curve.push_back(selectionValueAt(g, metric));
    return curve;
}

double Session::selectionValueAt(uint32_t gc, Metric metric) const {
    if (!series_) return 0;
    std::vector<uint32_t> nodes;
    for (uint32_t id : selection_)
        for (uint32_t n : nodesOf(id))
            nodes.push_back(n);
    return static_cast<double>(series_->sum(nodes, gc, metric));
}

// --- table sizes ----------------------------------------------------------------------------

void Session::requestSizes(const std::vector<uint32_t>& nodes) {
    const HeapHistory* h = history();
    if (!h || !series_ || churn_window_ || !sizesUnavailable().empty()) return;
    const uint32_t gc = currentGc();
    if (gc != sizes_gc_) {
        sizes_.clear();
        sizes_requested_.clear();
        sizes_gc_ = gc;
    }
    std::vector<uint32_t> wanted;
    for (uint32_t id : nodes)
        if (!scene::isOtherId(id) && id < series_->size() && !sizes_.count(id) &&
            std::find(sizes_requested_.begin(), sizes_requested_.end(), id) == sizes_requested_.end())
            wanted.push_back(id);
    if (wanted.empty()) return;
    sizes_requested_.insert(sizes_requested_.end(), wanted.begin(), wanted.end());
    // Everything asked for at this GC and not known yet, in one pass over the heap.
    std::vector<uint32_t> ids;
    for (uint32_t id : sizes_requested_)
        if (!sizes_.count(id)) ids.push_back(id);
    std::vector<std::vector<std::string>> groups;
    for (uint32_t id : ids)
        groups.push_back(labelsOf(id));
    std::shared_ptr<const ClassifierChain> chain = series_chain_;
    std::shared_ptr<Pending> pending = pending_;
    auto wake = options_.wake;
    const unsigned threads = options_.threads;
    sizes_worker_->submit([h, chain, gc, ids, groups, threads, pending, wake](const CancelToken& token) {
        auto result = groupSizes(*h, *chain, gc, groups, threads, token);
        if (!result || token.cancelled()) return;
        std::map<uint32_t, GroupSizes> sizes;
        for (size_t i = 0; i < ids.size(); ++i)
            if (result->sizes[i]) sizes[ids[i]] = *result->sizes[i];
        {
            std::lock_guard lock(pending->mutex);
            pending->sizes = std::pair{gc, std::move(sizes)};
        }
        if (wake) wake();
    });
}

std::optional<GroupSizes> Session::sizesOf(uint32_t node) const {
    if (node == scene::kNoPick || currentGc() != sizes_gc_) return std::nullopt;
    auto it = sizes_.find(node);
    if (it == sizes_.end()) return std::nullopt;
    return it->second;
}

}  // namespace memcity::explore
