// Session, its comparisons: the suspicious windows as ranges, the heap diff as a view (ICPE18
// §5.3, its state in DiffModel) and churn mode (VMIL19 §3.4.2).
#include "explore/session.h"
#include "explore/session_pending.h"

namespace memcity::explore {

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

void Session::showDiff(bool on) {
    if (on) endChurn();  // the diff is of heaps
    diff_shown_ = on;
    if (on) requestDiff();
}

void Session::layDiff() {
    diff_->lay(series_.get(), series_chain_);
}

bool Session::diffCurrent() const {
    return series_ && diff_->current(baseGc(), currentGc(), series_chain_);
}

void Session::requestDiff() {
    const HeapHistory* h = history();
    if (!h || !series_ || !series_chain_ || churn_window_) return;
    diff_->request(*h, baseGc(), currentGc(), series_chain_);
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

}  // namespace memcity::explore
