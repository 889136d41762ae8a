#include "app/script_runner.h"

#include <imgui.h>

#include <algorithm>
#include <charconv>
#include <chrono>
#include <cmath>
#include <cstdio>
#include <iostream>
#include <map>

#include "app/explorer_app.h"
#include "app/script_runner_verbs.h"
#include "scene/estimates.h"
#include "scene/heap_map_scene.h"
#include "util/units.h"

namespace memcity::app {
namespace scripts {
namespace {

int keyOf(const std::string& name) {
    static const std::map<std::string, Key> keys = {
        {"space", Key::kSpace},
        {"left", Key::kLeft},
        {"right", Key::kRight},
        {"up", Key::kUp},
        {"down", Key::kDown},
        {"escape", Key::kEscape},
        {"f", Key::kF},
        {"f12", Key::kF12},
        {"w", Key::kW},
        {"a", Key::kA},
        {"s", Key::kS},
        {"d", Key::kD},
        {"q", Key::kQ},
        {"e", Key::kE},
        {"home", Key::kHome},
        {"end", Key::kEnd},
        {"backspace", Key::kBackspace},
        {"tab", Key::kTab},
    };
    auto it = keys.find(name);
    return it == keys.end() ? -1 : keyIndex(it->second);
}

}  // namespace

int Runner::run(const std::vector<Cmd>& commands) {
    for (const Cmd& c : commands) {
        const Verb& verb = *static_cast<const Verb*>(c.spec);
        if (verb.kind == Kind::kLive) {
            line_ = &c;
            if (Status st = (this->*verb.run)(c); !st) {
                std::cerr << "memcity: " << script_ << ":" << c.line << ": " << st.error().message << "\n";
                return 1;
            }
            live_ = true;
            // Its GC drawn, as after any command.
            if (!ex_.frame(kStep)) return 0;
            ex_.renderer().waitIdle();
            continue;
        }
        if (!settle()) return 0;  // the window was closed
        if (ex_.session().load().phase == explore::LoadPhase::kFailed) {
            std::cerr << "memcity: " << ex_.session().load().error << "\n";
            return 1;
        }
        line_ = &c;
        const auto t0 = std::chrono::steady_clock::now();
        if (verb.kind == Kind::kQuit) return 0;
        if (Status st = (this->*verb.run)(c); !st) {
            std::cerr << "memcity: " << where() << st.error().message << "\n";
            return 1;
        }
        // Draw until the command's input is consumed and its picture is on the screen.
        // The input takes effect in the frame that consumes its last step (a click: the
        // release; a key: the press); input to picture runs from that frame's start until
        // the GPU finished drawing it.
        auto effect = t0;
        do {
            if (ex_.input().size() == 1) effect = std::chrono::steady_clock::now();
            if (!ex_.frame(kStep)) return 0;  // a held key moves the fly camera by one frame's step
        } while (!ex_.input().empty());
        ex_.renderer().waitIdle();
        if (verb.kind == Kind::kTimed)
            latencies_.push_back(
                {c.text, std::chrono::duration<double, std::milli>(std::chrono::steady_clock::now() - effect)
                             .count()});
    }
    settle();
    return 0;
}

// Runs the window's loop (as for a user: frames while something changes, else sleeps that
// leave the cores to the background work) until the session settled. What the session takes
// up here is drawn before the script goes on, as the loop's own update would have it drawn.
bool Runner::settle() {
    explore::Session& s = ex_.session();
    for (;;) {
        if (s.update() && !ex_.frame(0)) return false;
        if (s.settled(live_) && ex_.input().empty() && !ex_.ui().sizes_due) return true;
        if (!ex_.turn(10, true)) return false;
    }
}

// Runs the window's loop until `done` holds or `timeout_s` passes.
bool Runner::until(const std::function<bool()>& done, double timeout_s) {
    explore::Session& s = ex_.session();
    const auto deadline = std::chrono::steady_clock::now() + std::chrono::duration<double>(timeout_s);
    for (;;) {
        if (s.update() && !ex_.frame(0)) return false;
        if (done()) return true;
        if (std::chrono::steady_clock::now() > deadline) return false;
        if (!ex_.turn(10, true)) return false;
    }
}

Result<uint64_t> Runner::number(const std::string& word) const {
    uint64_t v = 0;
    const auto [end, ec] = std::from_chars(word.data(), word.data() + word.size(), v);
    if (ec != std::errc() || end != word.data() + word.size() || word.empty())
        return Error{"expected a number, got '" + word + "'"};
    return v;
}

// A window's index from its number K (from 1), the command's first argument.
Result<size_t> Runner::windowIndex(const Cmd& c) const {
    auto k = number(c.args[0]);
    if (!k) return k.error();
    if (*k == 0) return Error{c.verb + " expects a number from 1, got '0'"};
    return static_cast<size_t>(*k - 1);
}

// "on" or "off" as the whole rest of the line.
Result<bool> Runner::onOff(const Cmd& c) {
    if (c.rest != "on" && c.rest != "off") return Error{c.verb + " expects on or off, got '" + c.rest + "'"};
    return c.rest == "on";
}

Result<double> Runner::real(const std::string& word) const {
    char* end = nullptr;
    const double v = std::strtod(word.c_str(), &end);
    if (word.empty() || *end != '\0' || !std::isfinite(v))
        return Error{"expected a number, got '" + word + "'"};
    return v;
}

// "X Y" in framebuffer pixels, or "view": the centre of the main view. In display units.
Result<glm::vec2> Runner::pixel(const explore::ScriptCommand& c) const {
    if (c.args[0] == "view") return ex_.ui().layout.center.center();
    if (c.args.size() < 2) return Error{c.verb + " expects X Y or view"};
    auto x = real(c.args[0]);
    auto y = real(c.args[1]);
    if (!x) return x.error();
    if (!y) return y.error();
    return glm::vec2(static_cast<float>(*x), static_cast<float>(*y)) / ex_.fbScale();  // to display units
}

Status Runner::size(const Cmd& c) {
    auto w = number(c.args[0]);
    auto h = number(c.args[1]);
    if (!w) return w.error();
    if (!h) return h.error();
    const glm::uvec2 lo = kMinWindowSize, hi = kMaxWindowSize;
    if (*w < lo.x || *h < lo.y || *w > hi.x || *h > hi.y)
        return Error{"size expects " + std::to_string(lo.x) + ".." + std::to_string(hi.x) + " x " +
                     std::to_string(lo.y) + ".." + std::to_string(hi.y)};
    ex_.platform().setWindowSize(static_cast<int>(*w), static_cast<int>(*h));
    return {};
}

Status Runner::verbOpen(const Cmd& c) {
    ex_.open(c.rest);
    return {};
}

Status Runner::verbKey(const Cmd& c) {
    const int key = keyOf(c.args[0]);
    if (key < 0) return Error{"unknown key '" + c.args[0] + "'"};
    const bool shift = c.args.size() > 1 && c.args[1] == "shift";
    ex_.input().push_back({std::nullopt, false, false, key, shift});  // released the frame after
    return {};
}

Status Runner::verbQuit(const Cmd&) {
    return {};
}

// The one table of verbs: adding one is a line here and its handler in its group's file.
const std::vector<Runner::Verb>& Runner::verbs() {
    using K = Kind;
    static const std::string view_usage = "view " + scene::viewNames(true, "|", "|");
    static const std::string panel_usage = [] {
        std::string u = "panel ";
        for (const explore::PanelInfo& p : explore::panelTable())
            u += std::string(p.name) + (&p == &explore::panelTable().back() ? " on|off" : "|");
        return u;
    }();
    static const std::vector<Verb> all = {
        {{"open", 1, explore::kRestOfLine, "open FILE: load another trace (or heap dump)"},
         &Runner::verbOpen},
        {{"wait", 0, 0, "wait: until loading and every background computation finished"}, &Runner::verbWait},
        {{"wait-gc", 1, 1,
          "wait-gc N: until GC N has arrived (a trace still being written: the commands after it "
          "run while it grows)"},
         &Runner::waitGc,
         K::kLive},
        {{"gc", 1, 1, "gc N: move the cursor to GC N"}, &Runner::verbGc, K::kTimed},
        {{"time", 1, 1, "time T: move the cursor to index time T (fractional: tweened)"},
         &Runner::verbTime,
         K::kTimed},
        {{"next", 0, 0, "next: the next GC"}, &Runner::verbNext, K::kTimed},
        {{"prev", 0, 0, "prev: the previous GC"}, &Runner::verbPrev, K::kTimed},
        {{"play", 1, 1, "play SECONDS: play for SECONDS (frames of 1/60 s), then pause"}, &Runner::verbPlay},
        {{"view", 1, 1, view_usage}, &Runner::verbView, K::kTimed},
        {{"heapmap", 2, explore::kRestOfLine,
          "heapmap stream used|objects|age|selected|dying | heapmap zoom N (0: fit; each step in halves "
          "the tile) | heapmap space NAME|largest: the heap map's toolbar"},
         &Runner::heapMap,
         K::kTimed},
        {{"tile", 2, 2,
          "tile X Y: what the heap map's tile at framebuffer pixel X Y holds, to standard output"},
         &Runner::printTile},
        {{"pin", 1, 1, "pin N: pin GC N (a tree of the timeline-trees view)"}, &Runner::pinOrUnpin},
        {{"stop-at", 1, 2,
          "stop-at full-gc|window|grows N|none: playback stops at a full GC, a window's start, the "
          "selection growing by more than N (bytes or objects) between GCs; none clears"},
         &Runner::stopAt},
        {{"window", 1, 1,
          "window K: suspicious window K ('print state' lists them) as the range, the series built over it"},
         &Runner::verbWindow},
        {{"window-next", 1, 1,
          "window-next K: suspicious window K's next step: the diff over it at its last GC (leak, GC "
          "overhead) or its churn (churn)"},
         &Runner::verbWindowNext},
        {{"dominators", 1, explore::kRestOfLine,
          "dominators on|off | group CLASSIFIER|none | expand LABEL | collapse LABEL | select LABEL: the "
          "tree "
          "table's dominator view"},
         &Runner::dominators},
        {{"churn", 1, 1, "churn on|off: the range's short-lived objects instead of the heap"},
         &Runner::verbChurn},
        {{"diff", 1, 1,
          "diff on|off: colour by born / died / permanent since the base GC (the range's start)"},
         &Runner::verbDiff},
        {{"trees", 1, 1, "trees sunburst|cities: the timeline trees as sunbursts or as small cities"},
         &Runner::verbTrees},
        {{"unpin", 1, 1, "unpin N: unpin GC N"}, &Runner::pinOrUnpin},
        {{"scaled", 1, 1, "scaled on|off: the sunburst's and icicle's extent follows the heap's size"},
         &Runner::verbScaled},
        {{"camera", 1, 4,
          "camera PRESET | camera orbit DYAW DPITCH | camera dolly FACTOR | camera fly R U F"},
         &Runner::camera,
         K::kTimed},
        {{"mode", 1, 1, "mode orbit|fly: the camera's mode"}, &Runner::verbMode},
        {{"select", 1, explore::kRestOfLine,
          "select PATH[;PATH...]: select groups by their label paths ('a / b')"},
         &Runner::verbSelect,
         K::kTimed},
        {{"select+", 1, explore::kRestOfLine, "select+ PATH: add groups to the selection"},
         &Runner::verbSelectAdd},
        {{"deselect", 0, 0, "deselect: clear the selection"}, &Runner::verbDeselect},
        {{"click", 1, 3,
          "click X Y|view [shift|double]: a left click at framebuffer pixel X Y (view: its centre)"},
         &Runner::click,
         K::kTimed},
        {{"hover", 1, 2, "hover X Y|view: the pointer at framebuffer pixel X Y (view: the view's centre)"},
         &Runner::verbHover,
         K::kTimed},
        {{"drill", 1, explore::kRestOfLine, "drill PATH: the sunburst's and icicle's root"},
         &Runner::verbDrill,
         K::kTimed},
        {{"drill-up", 0, 0, "drill-up: one level up"}, &Runner::verbDrillUp, K::kTimed},
        {{"frame", 0, 0, "frame: frame the selection (the F key)"}, &Runner::verbFrame, K::kTimed},
        {{"chain", 1, explore::kRestOfLine, "chain SPEC: classify by SPEC (\"package,type\"), filters kept"},
         &Runner::chain},
        {{"filter", 1, explore::kRestOfLine, "filter EXPR | filter none: the chain's one filter"},
         &Runner::chain},
        {{"metric", 1, 1, "metric objects|bytes"}, &Runner::chain},
        {{"sort", 1, 1, "sort start|end|growth"}, &Runner::chain},
        {{"prune", 1, 1, "prune on|off: fold small children into Other (the views' pruning)"},
         &Runner::chain},
        {{"range", 1, 2, "range A B | range none: the timeline's selected GCs"}, &Runner::range},
        {{"series-range", 0, 0, "series-range: recompute the series over the selected range"},
         &Runner::verbSeriesRange},
        {{"panel", 2, 2, panel_usage}, &Runner::verbPanel},
        {{"key", 1, 2, "key NAME [shift]: press a key (space, left, right, f, f12, w, a, s, d, q, e, ...)"},
         &Runner::verbKey,
         K::kTimed},
        {{"screenshot", 1, explore::kRestOfLine, "screenshot FILE.png: the window's picture as PNG"},
         &Runner::verbScreenshot},
        {{"print", 1, 1, "print inspector|selection|table|timing|state|pins: to standard output"},
         &Runner::verbPrint},
        {{"size", 2, 2, "size W H: resize the window"}, &Runner::size},
        {{"live-pause", 0, 0,
          "live-pause: pause the recorded program at its next GC's end (a trace still being written), and "
          "wait until that GC is shown"},
         &Runner::liveCommand,
         K::kLive},
        {{"live-step", 0, 0, "live-step: let the paused program run to its next GC's end, and show it"},
         &Runner::liveCommand,
         K::kLive},
        {{"live-resume", 0, 0, "live-resume: let the program run"}, &Runner::liveCommand, K::kLive},
        {{"live-snapshot", 0, 1,
          "live-snapshot [now]: a reference snapshot at the program's next GC; now: at a GC forced for it, "
          "waiting until the snapshot is shown"},
         &Runner::liveCommand,
         K::kLive},
        {{"live-pause-when", 1, explore::kRestOfLine,
          "live-pause-when CONDITIONS: pause the program at full GCs (full), when the JVM uses more than "
          "SIZE (used>SIZE), when the selection grows by more than SIZE between GCs (grows>SIZE); "
          "comma-separated, or none"},
         &Runner::liveCommand,
         K::kLive},
        {{"quit", 0, 0, "quit: close the window (the end of a script quits too)"},
         &Runner::verbQuit,
         K::kQuit},
    };
    return all;
}

}  // namespace scripts

int runScript(Explorer& explorer, const std::string& path) {
    auto script = explore::loadScript(path, scripts::Runner::specs());
    if (!script) {
        std::cerr << "memcity: " << script.error().message << "\n";
        return 1;
    }
    scripts::Runner runner(explorer, path);
    return runner.run(*script);
}

std::span<const explore::ScriptVerb* const> scriptVerbs() {
    return scripts::Runner::specs();
}

}  // namespace memcity::app
