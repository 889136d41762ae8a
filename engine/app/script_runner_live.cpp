// Script verbs of a trace still being written and its recording program (live_link.h).
#include <algorithm>
#include <chrono>
#include <cmath>
#include <iostream>

#include "app/explorer_app.h"
#include "app/script_runner_verbs.h"
#include "scene/estimates.h"
#include "scene/heap_map_scene.h"
#include "util/units.h"

namespace memcity::app::scripts {

// wait-gc N: the window's loop runs until GC N is in the session and its series (a trace
// still being written goes on growing; the commands after it do not wait for its end).
Status Runner::waitGc(const explore::ScriptCommand& c) {
    auto n = number(c.args[0]);
    if (!n) return n.error();
    explore::Session& s = ex_.session();
    for (;;) {
        if (s.update() && !ex_.frame(0)) return {};
        if (s.load().phase == explore::LoadPhase::kFailed) return Error{s.load().error};
        if (s.gcs().size() > *n && s.series() && s.series()->gcCount() > *n && s.settled(true)) return {};
        if (s.load().phase == explore::LoadPhase::kReady && s.settled())
            return Error{"wait-gc " + std::to_string(*n) + ": the trace has " +
                         std::to_string(s.gcs().size()) + " GCs"};
        if (!ex_.turn(10, true)) return {};
    }
}

// live-pause, live-step, live-resume, live-snapshot, live-pause-when: sent through the trace's control
// channel; each waits (up to a minute) until the program is where it asked, and what it
// paused at is on screen. The commands after them do not wait for the trace's end.
Status Runner::liveCommand(const explore::ScriptCommand& c) {
    explore::Session& s = ex_.session();
    // The channel first: the trace names it once its first chunk is there.
    if (!until([&] { return s.liveState().connected || s.liveState().ended; }, 30))
        return Error{c.verb + ": no answer from the recording's control channel within 30 s" + liveError()};
    if (!s.liveState().connected)
        return Error{c.verb + ": the trace is not being recorded live with a control channel" + liveError()};
    using live::ProgramState;
    auto pausedAtShown = [&](int64_t after) {
        const live::AgentStatus& st = s.liveState().status;
        return st.state == ProgramState::kPaused && st.paused_gc > after && s.series() &&
               s.series()->lastGc() >= st.paused_gc && s.gcs().size() > static_cast<size_t>(st.paused_gc) &&
               s.settled(true);
    };
    const int64_t paused_at =
        s.liveState().status.state == ProgramState::kPaused ? s.liveState().status.paused_gc : -1;
    // Each waits for its answer first: the state it asked for may not last until the next look.
    auto answered = [&](uint64_t ticket) { return s.liveState().answered >= ticket; };
    if (c.verb == "live-pause") {
        if (paused_at >= 0) return {};
        const uint64_t ticket = s.liveRequest({live::Command::kPause, {}});
        if (!until([&] { return answered(ticket) && pausedAtShown(-1); }, 60))
            return Error{"live-pause: the program reached no GC to pause at within 60 s" + liveError()};
    } else if (c.verb == "live-step") {
        const uint64_t ticket = s.liveRequest({live::Command::kStep, {}});
        if (!until([&] { return answered(ticket) && pausedAtShown(paused_at); }, 60))
            return Error{"live-step: the program reached no next GC within 60 s" + liveError()};
    } else if (c.verb == "live-snapshot") {
        // A reference snapshot: at the next GC, or (now) at a GC forced for it, waited for.
        if (!c.rest.empty() && c.rest != "now")
            return Error{"live-snapshot: expected 'now' or nothing, got '" + c.rest + "'"};
        const bool now = c.rest == "now";
        const uint64_t taken = s.liveState().status.snapshots;
        const uint64_t ticket = s.liveRequest({live::Command::kSnapshot, {}, now});
        if (!until([&] { return answered(ticket); }, now ? 160 : 30))
            return Error{"live-snapshot: the agent did not answer" + liveError()};
        if (!s.liveState().error.empty()) return Error{"live-snapshot: " + s.liveState().error};
        // The snapshot's GC, once the session has read it.
        if (now && !until(
                       [&] {
                           const live::AgentStatus& st = s.liveState().status;
                           return st.snapshots > taken && st.snapshot_gc >= 0 &&
                                  s.gcs().size() > static_cast<size_t>(st.snapshot_gc) &&
                                  s.gcs()[static_cast<size_t>(st.snapshot_gc)].has_snapshot &&
                                  s.settled(true);
                       },
                       60))
            return Error{"live-snapshot: the trace did not show the snapshot within 60 s" + liveError()};
    } else if (c.verb == "live-resume") {
        const uint64_t ticket = s.liveRequest({live::Command::kResume, {}});
        if (!until([&] { return answered(ticket); }, 30))
            return Error{"live-resume: the agent did not answer within 30 s" + liveError()};
    } else if (c.verb == "live-pause-when") {
        live::PauseConditions when;
        uint64_t grows_by = 0;
        for (const std::string& word : splitConditions(c.rest)) {
            if (word.starts_with("grows>")) {
                if (!parseBytes(word.substr(6), &grows_by) || grows_by == 0)
                    return Error{"live-pause-when: '" + word +
                                 "': expected grows>SIZE with a size such as 64k"};
                continue;
            }
            auto parsed = live::parseConditions(word);
            if (!parsed) return Error{"live-pause-when: " + parsed.error().message + " (or grows>SIZE)"};
            when.full_gc |= parsed->full_gc;
            when.used_above = parsed->used_above ? parsed->used_above : when.used_above;
        }
        const uint64_t ticket = s.setPauseConditions(when, grows_by);
        if (!until([&] { return answered(ticket); }, 30))
            return Error{"live-pause-when: the agent did not answer within 30 s" + liveError()};
        if (!s.liveState().error.empty()) return Error{"live-pause-when: " + s.liveState().error};
    }
    return {};
}

std::vector<std::string> Runner::splitConditions(const std::string& text) {
    std::vector<std::string> out;
    size_t start = 0;
    for (size_t comma; (comma = text.find(',', start)) != std::string::npos; start = comma + 1)
        out.push_back(text.substr(start, comma - start));
    out.push_back(text.substr(start));
    return out;
}

std::string Runner::liveError() const {
    const std::string& e = ex_.session().liveState().error;
    return e.empty() ? "" : " (" + e + ")";
}

}  // namespace memcity::app::scripts
