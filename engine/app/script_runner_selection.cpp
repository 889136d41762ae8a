// Script verbs of the selection: selecting, drilling, the classifier chain, the dominator view.
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

Status Runner::chain(const explore::ScriptCommand& c) {
    explore::Session& s = ex_.session();
    explore::ChainConfig config = s.chain();
    if (c.verb == "chain") {
        auto parsed = explore::chainConfigOf(c.rest);
        if (!parsed) return parsed.error();
        config.classifiers = parsed->classifiers;
    } else if (c.verb == "filter") {
        config.filters.clear();
        if (c.rest != "none") config.filters.push_back(c.rest);
    } else if (c.verb == "prune") {
        auto on = onOff(c);
        if (!on) return on.error();
        config.prune.enabled = *on;
    } else if (c.verb == "metric") {
        auto m = parseMetric(c.rest);
        if (!m) return Error{"metric expects objects or bytes, got '" + c.rest + "'"};
        config.metric = *m;
    } else {
        auto sort = parseSortStrategy(c.rest);
        if (!sort) return Error{"sort expects start, end or growth, got '" + c.rest + "'"};
        config.sort = *sort;
    }
    Status st = s.applyChain(config);
    if (st) ex_.ui().chain_edit = s.chain();
    return st;
}

// dominators on|off, group CLASSIFIER|none, expand|collapse|select LABEL.
Status Runner::dominators(const Cmd& c) {
    explore::Session& s = ex_.session();
    const std::string& what = c.args[0];
    std::string label = c.rest.substr(std::min(c.rest.size(), what.size()));
    label.erase(0, label.find_first_not_of(' '));
    if (what == "on" || what == "off") {
        if (c.args.size() != 1) return Error{"dominators " + what + " takes nothing more"};
        s.showDominators(what == "on");
        return {};
    }
    if (!s.dominatorsShown())
        return Error{"dominators " + what + ": the dominator view is off (dominators on)"};
    if (label.empty()) return Error{"dominators " + what + " expects a classifier or a row's label"};
    explore::DominatorModel& m = s.dominators();
    if (what == "group")
        return m.setGroupBy(label == "none" ? std::nullopt : std::optional<std::string>(label));
    if (what != "expand" && what != "collapse" && what != "select")
        return Error{"dominators expects on, off, group, expand, collapse or select, got '" + what + "'"};
    if (!m.error().empty()) return Error{"dominators " + what + ": " + m.error()};
    const std::string key = m.findLabel(label);
    if (key.empty()) {
        std::string shown;
        for (size_t i = 0; i < m.rows().size() && i < 5; ++i)
            shown += (i ? ", " : "") + m.rows()[i].label;
        return Error{"dominators " + what + ": no row '" + label + "' is shown (the first: " + shown + ")"};
    }
    if (what == "select") return s.selectDominatorRow(key);
    if (!m.expand(key, what == "expand"))
        return Error{"dominators " + what + ": '" + label + "' dominates nothing"};
    return {};
}

Status Runner::verbSelect(const Cmd& c) {
    return ex_.session().selectPath(c.rest, false);
}

Status Runner::verbSelectAdd(const Cmd& c) {
    return ex_.session().selectPath(c.rest, true);
}

Status Runner::verbDeselect(const Cmd&) {
    ex_.session().clearSelection();
    return {};
}

Status Runner::verbDrill(const Cmd& c) {
    return ex_.session().drillPath(c.rest);
}

Status Runner::verbDrillUp(const Cmd&) {
    ex_.session().drillUp();
    return {};
}

}  // namespace memcity::app::scripts
