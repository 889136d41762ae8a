// Script verbs of time: waiting, the cursor, playback and its stops, pins, the range.
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

Status Runner::stopAt(const Cmd& c) {
    const std::vector<std::string>& a = c.args;
    explore::PlayStops stops = ex_.session().playStops();
    if (a[0] == "none" && a.size() == 1) {
        stops = {};
    } else if (a[0] == "full-gc" && a.size() == 1) {
        stops.full_gc = true;
    } else if (a[0] == "window" && a.size() == 1) {
        stops.window_start = true;
    } else if (a[0] == "grows" && a.size() == 2) {
        auto n = number(a[1]);
        if (!n) return n.error();
        if (*n == 0) return Error{"stop-at grows expects a positive number, got '0'"};
        stops.grows_over = *n;
    } else {
        return Error{"stop-at expects full-gc, window, grows N or none, got '" + c.rest + "'"};
    }
    ex_.session().setPlayStops(stops);
    return {};
}

Status Runner::pinOrUnpin(const Cmd& c) {
    explore::Session& s = ex_.session();
    const bool pin = c.verb == "pin";
    auto gc = number(c.args[0]);
    if (!gc) return gc.error();
    if (*gc > UINT32_MAX || !(pin ? s.pin(static_cast<uint32_t>(*gc)) : s.unpin(static_cast<uint32_t>(*gc))))
        return Error{c.verb + ": GC " + c.args[0] +
                     (pin ? " is not in the series or pinned already" : " is not pinned")};
    return {};
}

Status Runner::range(const Cmd& c) {
    explore::Session& s = ex_.session();
    const std::vector<std::string>& a = c.args;
    if (a[0] == "none" && a.size() == 1) {
        s.setRange(std::nullopt);
        return {};
    }
    if (a.size() != 2) return Error{"range expects A B or none"};
    auto from = number(a[0]);
    auto to = number(a[1]);
    if (!from) return from.error();
    if (!to) return to.error();
    if (*from >= s.gcs().size() || *to >= s.gcs().size())
        return Error{"range " + a[0] + " " + a[1] + ": the trace has " + std::to_string(s.gcs().size()) +
                     " GCs"};
    s.setRange(explore::GcRange{static_cast<uint32_t>(*from), static_cast<uint32_t>(*to)});
    return {};
}

Status Runner::verbWait(const Cmd&) {
    live_ = false;  // settle() before the next command waits, for the end of a live trace too
    return {};
}

Status Runner::verbGc(const Cmd& c) {
    auto n = number(c.args[0]);
    if (!n) return n.error();
    return ex_.session().goToGc(*n);
}

Status Runner::verbTime(const Cmd& c) {
    auto t = real(c.args[0]);
    if (!t) return t.error();
    ex_.session().cursor().seek(*t);
    return {};
}

Status Runner::verbNext(const Cmd&) {
    ex_.session().cursor().stepNext();
    return {};
}

Status Runner::verbPrev(const Cmd&) {
    ex_.session().cursor().stepPrevious();
    return {};
}

Status Runner::verbPlay(const Cmd& c) {
    auto seconds = real(c.args[0]);
    if (!seconds) return seconds.error();
    ex_.session().cursor().play();
    for (double t = 0; t < *seconds; t += kStep)
        if (!ex_.frame(kStep)) return {};
    ex_.session().cursor().pause();
    return {};
}

Status Runner::verbSeriesRange(const Cmd&) {
    return ex_.session().seriesOverRange();
}

}  // namespace memcity::app::scripts
