// Session, its live control: the recording JVM's program paused, stepped and resumed through
// the trace's control channel (live_link.h), and the one pause condition the agent cannot judge,
// the selection's growth, judged here GC by GC.
#include "classify/series.h"
#include "explore/session.h"
#include "util/units.h"

namespace memcity::explore {

LiveState Session::liveState() const {
    return live_state_;
}

uint64_t Session::liveRequest(const live::Request& r) {
    if (!live_) return 0;
    if (r.command == live::Command::kResume || r.command == live::Command::kStep) live_note_.clear();
    return live_->request(r);
}

uint64_t Session::setPauseConditions(const live::PauseConditions& when, uint64_t grows_by) {
    live_when_ = when;
    live_grows_by_ = grows_by;
    live::Request r{live::Command::kWhen, when};
    r.when.every_gc = grows_by != 0;  // the agent stops at every GC; the session judges each
    return liveRequest(r);
}

bool Session::waitLive(const std::function<bool(const LiveState&)>& done, double timeout_s) {
    if (!live_) return false;
    const bool ok = live_->waitFor(done, timeout_s);
    updateLive();
    return ok;
}

bool Session::updateLive() {
    if (!live_) return false;
    LiveState now = live_->state();
    if (now.version == live_version_) {
        // A pause waiting for its GC's series to judge the selection's growth by.
        if (live_grows_by_ == 0 || live_state_.status.state != live::ProgramState::kPaused ||
            live_state_.status.paused_gc == live_judged_gc_)
            return false;
    }
    live_version_ = now.version;
    live_state_ = std::move(now);
    const live::AgentStatus& st = live_state_.status;
    if (!live_state_.connected || st.state != live::ProgramState::kPaused) {
        if (st.state != live::ProgramState::kPaused) live_judged_gc_ = -1;
        return true;
    }
    const int64_t gc = st.paused_gc;
    if (gc == live_judged_gc_) return true;
    const bool gate_only = (st.why & ~live::kPauseEvery) == 0;
    if (!gate_only || live_grows_by_ == 0) {
        live_judged_gc_ = gc;
        std::string why;
        if (st.why & live::kPauseAsked) why = "as asked";
        if (st.why & live::kPauseFull) why += std::string(why.empty() ? "" : ", ") + "a full GC";
        if (st.why & live::kPauseUsed)
            why += std::string(why.empty() ? "" : ", ") + "the JVM uses more than " +
                   formatBytes(st.when.used_above);
        live_note_ = "paused at GC " + std::to_string(gc) + (why.empty() ? "" : " (" + why + ")");
        return true;
    }
    // Stopped only so that the selection's growth be judged: once the series holds its GC.
    if (!series_ || series_->gcs().empty() || series_->lastGc() < gc) return true;
    live_judged_gc_ = gc;
    const auto g = static_cast<uint32_t>(gc);
    const double grew =
        selectionValueAt(g, Metric::kBytes) - (g > 0 ? selectionValueAt(g - 1, Metric::kBytes) : 0.0);
    if (grew > static_cast<double>(live_grows_by_)) {
        live_note_ = "paused at GC " + std::to_string(gc) + ": the selection grew by " +
                     (sampled() ? "\u2248 " : "") + formatBytes(static_cast<uint64_t>(grew)) +
                     ", more than " + formatBytes(live_grows_by_);
    } else {
        live_->request({live::Command::kResume, {}});  // paused again at the next GC
    }
    return true;
}

}  // namespace memcity::explore
