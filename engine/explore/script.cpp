#include "explore/script.h"

#include <cstdint>
#include <fstream>
#include <sstream>

namespace memcity::explore {
namespace {

constexpr size_t kRest = SIZE_MAX;

std::string_view trim(std::string_view s) {
    const size_t a = s.find_first_not_of(" \t\r");
    if (a == std::string_view::npos) return {};
    const size_t b = s.find_last_not_of(" \t\r");
    return s.substr(a, b - a + 1);
}

std::vector<std::string> words(std::string_view s) {
    std::vector<std::string> out;
    size_t i = 0;
    while (i < s.size()) {
        while (i < s.size() && (s[i] == ' ' || s[i] == '\t'))
            ++i;
        const size_t start = i;
        while (i < s.size() && s[i] != ' ' && s[i] != '\t')
            ++i;
        if (i > start) out.emplace_back(s.substr(start, i - start));
    }
    return out;
}

}  // namespace

const std::vector<ScriptVerb>& scriptVerbs() {
    static const std::vector<ScriptVerb> verbs = {
        {"open", 1, kRest, "open FILE: load another trace"},
        {"wait", 0, 0, "wait: until loading and every background computation finished"},
        {"wait-gc", 1, 1,
         "wait-gc N: until GC N has arrived (a trace still being written: the commands after it "
         "run while it grows)"},
        {"gc", 1, 1, "gc N: move the cursor to GC N"},
        {"time", 1, 1, "time T: move the cursor to index time T (fractional: tweened)"},
        {"next", 0, 0, "next: the next GC"},
        {"prev", 0, 0, "prev: the previous GC"},
        {"play", 1, 1, "play SECONDS: play for SECONDS (frames of 1/60 s), then pause"},
        {"view", 1, 1, "view city|sunburst|icicle|timeline-trees"},
        {"pin", 1, 1, "pin N: pin GC N (a tree of the timeline-trees view)"},
        {"stop-at", 1, 2,
         "stop-at full-gc|window|grows N|none: playback stops at a full GC, a window's start, the "
         "selection growing by more than N (bytes or objects) between GCs; none clears"},
        {"window", 1, 1,
         "window K: suspicious window K ('print state' lists them) as the range, the series built over it"},
        {"unpin", 1, 1, "unpin N: unpin GC N"},
        {"scaled", 1, 1, "scaled on|off: the sunburst's and icicle's extent follows the heap's size"},
        {"camera", 1, 4, "camera PRESET | camera orbit DYAW DPITCH | camera dolly FACTOR | camera fly R U F"},
        {"mode", 1, 1, "mode orbit|fly: the camera's mode"},
        {"select", 1, kRest, "select PATH[;PATH...]: select groups by their label paths ('a / b')"},
        {"select+", 1, kRest, "select+ PATH: add groups to the selection"},
        {"deselect", 0, 0, "deselect: clear the selection"},
        {"click", 1, 3,
         "click X Y|view [shift|double]: a left click at framebuffer pixel X Y (view: its centre)"},
        {"hover", 1, 2, "hover X Y|view: the pointer at framebuffer pixel X Y (view: the view's centre)"},
        {"drill", 1, kRest, "drill PATH: the sunburst's and icicle's root"},
        {"drill-up", 0, 0, "drill-up: one level up"},
        {"frame", 0, 0, "frame: frame the selection (the F key)"},
        {"chain", 1, kRest, "chain SPEC: classify by SPEC (\"package,type\"), filters kept"},
        {"filter", 1, kRest, "filter EXPR | filter none: the chain's one filter"},
        {"metric", 1, 1, "metric objects|bytes"},
        {"sort", 1, 1, "sort start|end|growth"},
        {"prune", 1, 1, "prune on|off: fold small children into Other (the views' pruning)"},
        {"range", 1, 2, "range A B | range none: the timeline's selected GCs"},
        {"series-range", 0, 0, "series-range: recompute the series over the selected range"},
        {"panel", 2, 2, "panel chain|table|inspector|timeline|stats on|off"},
        {"key", 1, 2, "key NAME [shift]: press a key (space, left, right, f, f12, w, a, s, d, q, e, ...)"},
        {"screenshot", 1, kRest, "screenshot FILE.png: the window's picture as PNG"},
        {"print", 1, 1, "print inspector|selection|table|timing|state|pins: to standard output"},
        {"size", 2, 2, "size W H: resize the window"},
        {"live-pause", 0, 0,
         "live-pause: pause the recorded program at its next GC's end (a trace still being written), and "
         "wait until that GC is shown"},
        {"live-step", 0, 0, "live-step: let the paused program run to its next GC's end, and show it"},
        {"live-resume", 0, 0, "live-resume: let the program run"},
        {"live-pause-when", 1, kRest,
         "live-pause-when CONDITIONS: pause the program at full GCs (full), when the JVM uses more than "
         "SIZE (used>SIZE), when the selection grows by more than SIZE between GCs (grows>SIZE); "
         "comma-separated, or none"},
        {"quit", 0, 0, "quit: close the window (the end of a script quits too)"},
    };
    return verbs;
}

Result<std::vector<ScriptCommand>> parseScript(std::string_view text, const std::string& name) {
    std::vector<ScriptCommand> out;
    size_t line_no = 0;
    size_t start = 0;
    while (start <= text.size()) {
        const size_t end = text.find('\n', start);
        const std::string_view raw =
            text.substr(start, end == std::string_view::npos ? text.size() - start : end - start);
        ++line_no;
        start = end == std::string_view::npos ? text.size() + 1 : end + 1;
        const std::string_view line = trim(raw);
        if (line.empty() || line[0] == '#') continue;
        ScriptCommand c;
        c.line = line_no;
        c.text = std::string(line);
        const size_t space = line.find_first_of(" \t");
        c.verb = std::string(line.substr(0, space));
        c.rest = space == std::string_view::npos ? std::string() : std::string(trim(line.substr(space)));
        c.args = words(c.rest);
        const ScriptVerb* verb = nullptr;
        for (const ScriptVerb& v : scriptVerbs())
            if (v.name == c.verb) verb = &v;
        const std::string where = name + ":" + std::to_string(line_no) + ": ";
        if (!verb) {
            std::string names;
            for (const ScriptVerb& v : scriptVerbs())
                names += (names.empty() ? "" : ", ") + std::string(v.name);
            return Error{where + "unknown command '" + c.verb + "' (commands: " + names + ")"};
        }
        if (c.args.size() < verb->min_args || c.args.size() > verb->max_args) {
            const std::string want = verb->max_args == verb->min_args ? std::to_string(verb->min_args)
                                     : verb->max_args == kRest ? "at least " + std::to_string(verb->min_args)
                                                               : std::to_string(verb->min_args) + " to " +
                                                                     std::to_string(verb->max_args);
            return Error{where + c.verb + " expects " + want + " argument" + (want == "1" ? "" : "s") +
                         ", got " + std::to_string(c.args.size()) + " (" + std::string(verb->usage) + ")"};
        }
        out.push_back(std::move(c));
    }
    return out;
}

Result<std::vector<ScriptCommand>> loadScript(const std::string& path) {
    std::ifstream in(path, std::ios::binary);
    if (!in) return Error{"cannot read the script " + path};
    std::stringstream ss;
    ss << in.rdbuf();
    return parseScript(ss.str(), path);
}

}  // namespace memcity::explore
