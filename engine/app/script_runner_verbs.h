// The script runner's inside (script_runner.h runs it): the Runner that runs a script's commands
// in the window, and its verbs. The verbs are grouped by what they do, one file per group
// (script_runner_<group>.cpp, named at each group below); script_runner.cpp holds the one table of
// verbs (name, arguments, usage, handler, how it runs). Adding a verb: its handler in its
// group's file, its declaration here, and one line in that table.
#pragma once

#include <cstdint>
#include <functional>
#include <span>
#include <string>
#include <vector>

#include <glm/glm.hpp>

#include "explore/script.h"
#include "util/result.h"

namespace memcity::app {

class Explorer;

namespace scripts {

constexpr double kStep = 1.0 / 60.0;  // seconds of play per frame in scripts

struct Latency {
    std::string command;
    double ms = 0;
};

class Runner {
public:
    Runner(Explorer& ex, std::string name) : ex_(ex), script_(std::move(name)) {}

    // How a command runs: after the previous one's work settled (timed: its input to picture
    // is measured), or at once, against a trace still being written (wait-gc, live-).
    enum class Kind : uint8_t { kSettled, kTimed, kLive, kQuit };
    using Cmd = explore::ScriptCommand;
    struct Verb : explore::ScriptVerb {
        Status (Runner::*run)(const Cmd& c);
        Kind kind = Kind::kSettled;
    };
    // Every command, in the order errors and docs list them: the one place each is described.
    static const std::vector<Verb>& verbs();
    // The table as the parser takes it.
    static std::span<const explore::ScriptVerb* const> specs() {
        static const std::vector<const explore::ScriptVerb*> all = [] {
            std::vector<const explore::ScriptVerb*> v;
            for (const Verb& verb : verbs())
                v.push_back(&verb);
            return v;
        }();
        return all;
    }

    // script_runner.cpp: running, settling, arguments, and the verbs that read SDL
    int run(const std::vector<Cmd>& commands);
    // Runs the window's loop (as for a user: frames while something changes, else sleeps that
    // leave the cores to the background work) until the session settled. What the session takes
    // up here is drawn before the script goes on, as the loop's own update would have it drawn.
    bool settle();
    // Runs the window's loop until `done` holds or `timeout_s` passes.
    bool until(const std::function<bool()>& done, double timeout_s);
    Result<uint64_t> number(const std::string& word) const;
    // A window's index from its number K (from 1), the command's first argument.
    Result<size_t> windowIndex(const Cmd& c) const;
    // "on" or "off" as the whole rest of the line.
    static Result<bool> onOff(const Cmd& c);
    Result<double> real(const std::string& word) const;
    // "X Y" in framebuffer pixels, or "view": the centre of the main view. In display units.
    Result<glm::vec2> pixel(const explore::ScriptCommand& c) const;

private:
    std::string where() const { return script_ + ":" + std::to_string(line_ ? line_->line : 0) + ": "; }

    // The verbs; each group's handlers are defined in its file.
    Status size(const Cmd& c);
    Status verbOpen(const Cmd& c);
    Status verbKey(const Cmd& c);
    Status verbQuit(const Cmd& c);

    // script_runner_time.cpp: time verbs: waiting, the cursor, playback and its stops, pins, the range
    Status stopAt(const Cmd& c);
    Status pinOrUnpin(const Cmd& c);
    Status range(const Cmd& c);
    Status verbWait(const Cmd& c);
    Status verbGc(const Cmd& c);
    Status verbTime(const Cmd& c);
    Status verbNext(const Cmd& c);
    Status verbPrev(const Cmd& c);
    Status verbPlay(const Cmd& c);
    Status verbSeriesRange(const Cmd& c);

    // script_runner_view.cpp: view and camera verbs: the view and its options, the camera, panels, the
    // pointer click X Y|view [shift|double]: the pointer's press and release (twice for double).
    Status click(const Cmd& c);
    Status camera(const explore::ScriptCommand& c);
    Status panel(const std::string& name, const std::string& state);
    Status heapMap(const Cmd& c);
    Status verbView(const Cmd& c);
    Status verbTrees(const Cmd& c);
    Status verbScaled(const Cmd& c);
    Status verbMode(const Cmd& c);
    Status verbHover(const Cmd& c);
    Status verbFrame(const Cmd& c);
    Status verbPanel(const Cmd& c);

    // script_runner_selection.cpp: selection verbs: selecting, drilling, the classifier chain, the dominator
    // view
    Status chain(const explore::ScriptCommand& c);
    // dominators on|off, group CLASSIFIER|none, expand|collapse|select LABEL.
    Status dominators(const Cmd& c);
    Status verbSelect(const Cmd& c);
    Status verbSelectAdd(const Cmd& c);
    Status verbDeselect(const Cmd& c);
    Status verbDrill(const Cmd& c);
    Status verbDrillUp(const Cmd& c);

    // script_runner_compare.cpp: compare verbs: suspicious windows, the diff, churn mode
    Status verbWindow(const Cmd& c);
    Status verbWindowNext(const Cmd& c);
    Status verbChurn(const Cmd& c);
    Status verbDiff(const Cmd& c);

    // script_runner_print.cpp: print and capture verbs: what the window shows, to standard output or a PNG
    Status print(const std::string& what);
    Status printTile(const Cmd& c);
    void printTiming() const;
    Status verbScreenshot(const Cmd& c);
    Status verbPrint(const Cmd& c);

    // script_runner_live.cpp: live verbs: a trace still being written and its recording program (live_link.h)
    // wait-gc N: the window's loop runs until GC N is in the session and its series (a trace
    // still being written goes on growing; the commands after it do not wait for its end).
    Status waitGc(const explore::ScriptCommand& c);
    // live-pause, live-step, live-resume, live-snapshot, live-pause-when: sent through the trace's control
    // channel; each waits (up to a minute) until the program is where it asked, and what it
    // paused at is on screen. The commands after them do not wait for the trace's end.
    Status liveCommand(const explore::ScriptCommand& c);
    static std::vector<std::string> splitConditions(const std::string& text);
    std::string liveError() const;

    Explorer& ex_;
    std::string script_;
    bool live_ = false;  // after wait-gc: a trace still being written counts as loaded
    const explore::ScriptCommand* line_ = nullptr;
    std::vector<Latency> latencies_;
};

}  // namespace scripts
}  // namespace memcity::app
