// Session, its series and time: the classifier chain's tree series recomputed in the background
// (carrying the selection and the drill root over by their label paths), the time cursor, the
// timeline's range and playback with its stops.
#include <algorithm>
#include <cmath>

#include "classify/churn.h"
#include "explore/session.h"
#include "explore/session_pending.h"
#include "scene/estimates.h"

namespace memcity::explore {

bool Session::recomputing() const {
    return !series_worker_->idle();
}

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
            so.progress = token;
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

}  // namespace memcity::explore
