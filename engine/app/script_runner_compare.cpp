// Script verbs of comparison: suspicious windows, the diff, churn mode.
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

Status Runner::verbWindow(const Cmd& c) {
    auto k = windowIndex(c);
    return k ? ex_.session().selectWindow(*k) : Status(k.error());
}

Status Runner::verbWindowNext(const Cmd& c) {
    auto k = windowIndex(c);
    return k ? ex_.session().windowNext(*k) : Status(k.error());
}

Status Runner::verbChurn(const Cmd& c) {
    auto on = onOff(c);
    return on ? ex_.session().showChurn(*on) : Status(on.error());
}

Status Runner::verbDiff(const Cmd& c) {
    auto on = onOff(c);
    if (on) ex_.session().showDiff(*on);
    return on ? Status{} : Status(on.error());
}

}  // namespace memcity::app::scripts
