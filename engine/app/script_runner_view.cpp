// Script verbs of the view and the camera: the view and its options, the camera, panels, the
// pointer (the window size and keys are in script_runner.cpp).
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

// click X Y|view [shift|double]: the pointer's press and release (twice for double).
Status Runner::click(const Cmd& c) {
    const std::vector<std::string>& a = c.args;
    auto p = pixel(c);
    if (!p) return p.error();
    const size_t flag = a[0] == "view" ? 1 : 2;  // the word after the place, if any
    const bool shift = a.size() > flag && a[flag] == "shift";
    if (a.size() > flag + 1 || (a.size() > flag && a[flag] != "shift" && a[flag] != "double"))
        return Error{"click takes shift or double after the place, got '" + c.rest + "'"};
    auto& in = ex_.input();
    in.push_back({*p, false, false, -1, shift});
    in.push_back({*p, true, false, -1, shift});
    in.push_back({*p, false, false, -1, shift});
    if (a.size() > flag && a[flag] == "double") {
        in.push_back({*p, true, true, -1, shift});
        in.push_back({*p, false, true, -1, shift});
    }
    return {};
}

Status Runner::camera(const explore::ScriptCommand& c) {
    explore::Session& s = ex_.session();
    const std::vector<std::string>& a = c.args;
    if (a.size() == 1) return s.resetCamera(a[0]);
    scene::OrbitCamera* cam = s.camera();
    if (!cam) return Error{"camera: the city is not shown"};
    std::vector<float> v;
    for (size_t i = 1; i < a.size(); ++i) {
        auto x = real(a[i]);
        if (!x) return x.error();
        v.push_back(static_cast<float>(*x));
    }
    if (a[0] == "orbit" && v.size() == 2) {
        cam->orbit(v[0], v[1]);
    } else if (a[0] == "dolly" && v.size() == 1) {
        cam->dolly(v[0]);
    } else if (a[0] == "fly" && v.size() == 3) {
        cam->fly(v[0], v[1], v[2]);
    } else {
        return Error{"camera expects PRESET, orbit DYAW DPITCH, dolly FACTOR or fly R U F"};
    }
    cam->fitClipPlanes(s.cityBounds());
    return {};
}

Status Runner::panel(const std::string& name, const std::string& state) {
    if (state != "on" && state != "off") return Error{"panel expects on or off, got '" + state + "'"};
    const explore::PanelInfo* panel = explore::findPanel(name);
    if (!panel) {
        std::string names;
        for (const explore::PanelInfo& p : explore::panelTable())
            names += (names.empty() ? "" : ", ") + std::string(p.name);
        return Error{"unknown panel '" + name + "' (" + names + ")"};
    }
    ex_.ui().settings.panels.*panel->shown = state == "on";
    return {};
}

Status Runner::heapMap(const Cmd& c) {
    explore::HeapMapModel& m = ex_.session().heapMap();
    const std::string& what = c.args[0];
    // The rest after the first word (a space's name may have spaces).
    std::string value = c.rest.substr(std::min(c.rest.size(), c.rest.find(what) + what.size()));
    value.erase(0, value.find_first_not_of(" \t"));
    if (what == "stream") {
        auto stream = scene::parseHeapStream(value);
        if (!stream) return Error{"heapmap stream: " + stream.error().message};
        if (auto why = explore::HeapMapModel::streamUnavailable(*stream, ex_.session().sampled());
            !why.empty())
            return Error{"heapmap stream " + value + ": " + std::string(why) + " (only 'used' can be drawn)"};
        m.setStream(*stream);
    } else if (what == "zoom") {
        char* end = nullptr;
        const long zoom = std::strtol(value.c_str(), &end, 10);
        if (value.empty() || *end != '\0' || zoom < -explore::HeapMapModel::kMaxZoom ||
            zoom > explore::HeapMapModel::kMaxZoom)
            return Error{"heapmap zoom expects -" + std::to_string(explore::HeapMapModel::kMaxZoom) + ".." +
                         std::to_string(explore::HeapMapModel::kMaxZoom) + ", got '" + value + "'"};
        m.setZoom(static_cast<int>(zoom));
    } else if (what == "space") {
        if (value == "largest") {
            m.setHistorySpace("");
            return {};
        }
        const HeapHistory* h = ex_.session().history();
        if (!h) return Error{"heapmap space: the trace is still loading"};
        const std::vector<std::string> names = m.spaceNames(*h);
        if (std::find(names.begin(), names.end(), value) == names.end()) {
            std::string all;
            for (const std::string& n : names)
                all += (all.empty() ? "" : ", ") + n;
            return Error{"heapmap space: no space '" + value +
                         "' (its spaces: " + (all.empty() ? "none" : all) + ")"};
        }
        m.setHistorySpace(value);
    } else {
        return Error{"heapmap expects stream, zoom or space, got '" + what + "'"};
    }
    return {};
}

Status Runner::verbView(const Cmd& c) {
    auto kind = scene::parseViewKind(c.args[0]);
    if (!kind || !scene::isWindowView(*kind))
        return Error{"view expects " + scene::viewNames(true, ", ", " or ") + ", got '" + c.args[0] + "'"};
    ex_.session().setView(*kind);
    return {};
}

Status Runner::verbTrees(const Cmd& c) {
    if (c.rest != "sunburst" && c.rest != "cities")
        return Error{"trees expects sunburst or cities, got '" + c.rest + "'"};
    ex_.session().setTreesCities(c.rest == "cities");
    return {};
}

Status Runner::verbScaled(const Cmd& c) {
    auto on = onOff(c);
    if (on) ex_.session().setScaled(*on);
    return on ? Status{} : Status(on.error());
}

Status Runner::verbMode(const Cmd& c) {
    if (c.args[0] != "orbit" && c.args[0] != "fly")
        return Error{"mode expects orbit or fly, got '" + c.args[0] + "'"};
    ex_.ui().camera_mode = c.args[0] == "fly" ? CameraMode::kFly : CameraMode::kOrbit;
    return {};
}

Status Runner::verbHover(const Cmd& c) {
    auto p = pixel(c);
    if (!p) return p.error();
    ex_.input().push_back({*p, false, false, -1, false});
    return {};
}

Status Runner::verbFrame(const Cmd&) {
    if (!ex_.session().frameSelection()) return Error{"frame: nothing selected stands in the city"};
    return {};
}

Status Runner::verbPanel(const Cmd& c) {
    return panel(c.args[0], c.args[1]);
}

}  // namespace memcity::app::scripts
