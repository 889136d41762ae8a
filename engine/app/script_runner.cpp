#include "app/script_runner.h"

#include <imgui.h>

#include <algorithm>
#include <chrono>
#include <cmath>
#include <cstdio>
#include <iostream>
#include <map>

#include <charconv>
#include "app/explorer_app.h"
#include "scene/estimates.h"
#include "scene/heap_map_scene.h"
#include "util/units.h"

namespace memcity::app {
namespace {

constexpr double kStep = 1.0 / 60.0;  // seconds of play per frame in scripts

struct Latency {
    std::string command;
    double ms = 0;
};

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

double percentile(std::vector<double> v, double p) {
    if (v.empty()) return 0;
    std::sort(v.begin(), v.end());
    return v[std::min(v.size() - 1, static_cast<size_t>(p * static_cast<double>(v.size() - 1) + 0.5))];
}

class Runner {
public:
    Runner(Explorer& ex, std::string name) : ex_(ex), script_(std::move(name)) {}

    // How a command runs: after the previous one's work settled (timed: its input to picture
    // is measured), or at once, against a trace still being written (wait-gc, live-).
    enum class Kind : uint8_t { kSettled, kTimed, kLive, kQuit };
    using Cmd = explore::ScriptCommand;
    struct Verb : explore::ScriptVerb {
        Status (*run)(Runner& r, const Cmd& c);
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

    int run(const std::vector<Cmd>& commands) {
        for (const Cmd& c : commands) {
            const Verb& verb = *static_cast<const Verb*>(c.spec);
            if (verb.kind == Kind::kLive) {
                line_ = &c;
                if (Status st = verb.run(*this, c); !st) {
                    std::cerr << "memcity: " << script_ << ":" << c.line << ": " << st.error().message
                              << "\n";
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
            if (Status st = verb.run(*this, c); !st) {
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
                latencies_.push_back({c.text, std::chrono::duration<double, std::milli>(
                                                  std::chrono::steady_clock::now() - effect)
                                                  .count()});
        }
        settle();
        return 0;
    }

private:
    std::string where() const { return script_ + ":" + std::to_string(line_ ? line_->line : 0) + ": "; }

    // Runs the window's loop (as for a user: frames while something changes, else sleeps that
    // leave the cores to the background work) until the session settled. What the session takes
    // up here is drawn before the script goes on, as the loop's own update would have it drawn.
    bool settle() {
        explore::Session& s = ex_.session();
        for (;;) {
            if (s.update() && !ex_.frame(0)) return false;
            if (s.settled(live_) && ex_.input().empty() && !ex_.ui().sizes_due) return true;
            if (!ex_.turn(10, true)) return false;
        }
    }

    // wait-gc N: the window's loop runs until GC N is in the session and its series (a trace
    // still being written goes on growing; the commands after it do not wait for its end).
    Status waitGc(const explore::ScriptCommand& c) {
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
    Status liveCommand(const explore::ScriptCommand& c) {
        explore::Session& s = ex_.session();
        // The channel first: the trace names it once its first chunk is there.
        if (!until([&] { return s.liveState().connected || s.liveState().ended; }, 30))
            return Error{c.verb + ": no answer from the recording's control channel within 30 s" +
                         liveError()};
        if (!s.liveState().connected)
            return Error{c.verb + ": the trace is not being recorded live with a control channel" +
                         liveError()};
        using live::ProgramState;
        auto pausedAtShown = [&](int64_t after) {
            const live::AgentStatus& st = s.liveState().status;
            return st.state == ProgramState::kPaused && st.paused_gc > after && s.series() &&
                   s.series()->lastGc() >= st.paused_gc &&
                   s.gcs().size() > static_cast<size_t>(st.paused_gc) && s.settled(true);
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

    static std::vector<std::string> splitConditions(const std::string& text) {
        std::vector<std::string> out;
        size_t start = 0;
        for (size_t comma; (comma = text.find(',', start)) != std::string::npos; start = comma + 1)
            out.push_back(text.substr(start, comma - start));
        out.push_back(text.substr(start));
        return out;
    }

    std::string liveError() const {
        const std::string& e = ex_.session().liveState().error;
        return e.empty() ? "" : " (" + e + ")";
    }

    // Runs the window's loop until `done` holds or `timeout_s` passes.
    bool until(const std::function<bool()>& done, double timeout_s) {
        explore::Session& s = ex_.session();
        const auto deadline = std::chrono::steady_clock::now() + std::chrono::duration<double>(timeout_s);
        for (;;) {
            if (s.update() && !ex_.frame(0)) return false;
            if (done()) return true;
            if (std::chrono::steady_clock::now() > deadline) return false;
            if (!ex_.turn(10, true)) return false;
        }
    }

    Result<uint64_t> number(const std::string& word) const {
        uint64_t v = 0;
        const auto [end, ec] = std::from_chars(word.data(), word.data() + word.size(), v);
        if (ec != std::errc() || end != word.data() + word.size() || word.empty())
            return Error{"expected a number, got '" + word + "'"};
        return v;
    }

    // A window's index from its number K (from 1), the command's first argument.
    Result<size_t> windowIndex(const Cmd& c) const {
        auto k = number(c.args[0]);
        if (!k) return k.error();
        if (*k == 0) return Error{c.verb + " expects a number from 1, got '0'"};
        return static_cast<size_t>(*k - 1);
    }

    // "on" or "off" as the whole rest of the line.
    static Result<bool> onOff(const Cmd& c) {
        if (c.rest != "on" && c.rest != "off")
            return Error{c.verb + " expects on or off, got '" + c.rest + "'"};
        return c.rest == "on";
    }

    Result<double> real(const std::string& word) const {
        char* end = nullptr;
        const double v = std::strtod(word.c_str(), &end);
        if (word.empty() || *end != '\0' || !std::isfinite(v))
            return Error{"expected a number, got '" + word + "'"};
        return v;
    }

    // "X Y" in framebuffer pixels, or "view": the centre of the main view. In display units.
    Result<glm::vec2> pixel(const explore::ScriptCommand& c) const {
        if (c.args[0] == "view") return ex_.ui().layout.center.center();
        if (c.args.size() < 2) return Error{c.verb + " expects X Y or view"};
        auto x = real(c.args[0]);
        auto y = real(c.args[1]);
        if (!x) return x.error();
        if (!y) return y.error();
        return glm::vec2(static_cast<float>(*x), static_cast<float>(*y)) / ex_.fbScale();  // to display units
    }

    // click X Y|view [shift|double]: the pointer's press and release (twice for double).
    Status click(const Cmd& c) {
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

    Status stopAt(const Cmd& c) {
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

    Status pinOrUnpin(const Cmd& c) {
        explore::Session& s = ex_.session();
        const bool pin = c.verb == "pin";
        auto gc = number(c.args[0]);
        if (!gc) return gc.error();
        if (*gc > UINT32_MAX ||
            !(pin ? s.pin(static_cast<uint32_t>(*gc)) : s.unpin(static_cast<uint32_t>(*gc))))
            return Error{c.verb + ": GC " + c.args[0] +
                         (pin ? " is not in the series or pinned already" : " is not pinned")};
        return {};
    }

    Status range(const Cmd& c) {
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

    Status size(const Cmd& c) {
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

    Status camera(const explore::ScriptCommand& c) {
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

    Status chain(const explore::ScriptCommand& c) {
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

    Status panel(const std::string& name, const std::string& state) {
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

    Status print(const std::string& what) {
        explore::Session& s = ex_.session();
        if (what == "inspector") {
            if (s.selection().empty() && s.inspectedObjects().empty())
                return Error{"print inspector: nothing is selected"};
            if (!s.inspectionError().empty()) return Error{"the inspector failed: " + s.inspectionError()};
            if (!s.inspection()) return Error{"print inspector: no inspection (is the trace loaded?)"};
            std::cout << explore::formatInspection(*s.inspection()) << std::flush;
        } else if (what == "pins") {
            std::cout << "pins:";
            for (uint32_t pin : s.pins())
                std::cout << " " << pin;
            std::cout << "\n" << std::flush;
        } else if (what == "selection") {
            for (uint32_t id : s.selection())
                std::cout << "selected: " << s.nameOf(id) << "\n";
            std::cout << std::flush;
        } else if (what == "state") {
            std::cout << "gc: " << s.currentGc() << "\nt: " << s.cursor().t()
                      << "\nview: " << scene::viewKindName(s.view()) << (s.scaled() ? " (scaled)" : "")
                      << (s.view() == scene::ViewKind::kTimelineTrees && s.treesCities() ? " (cities)" : "")
                      << "\nchain: " << s.chain().spec() << "\ndrill: " << s.nameOf(s.drillRoot())
                      << "\nselected: " << s.selection().size() << "\n";
            if (s.sampled()) {
                // What the figures are, and the heap at the cursor as the window shows it.
                std::cout << scene::samplingBadge(s.samplingInterval()) << ": "
                          << scene::samplingNote(s.samplingInterval()) << "\n";
                if (const TreeSeries* series = s.series(); series && series->sampled()) {
                    const uint32_t root[] = {TreeSeries::kRoot};
                    const SampleSums all = scene::sampledSumAt(*series, root, s.cursor().gcTime());
                    std::cout << "overall: " << scene::estimateText(all, Metric::kBytes) << ", "
                              << scene::estimateText(all, Metric::kObjects) << ", "
                              << scene::samplesText(all.samples) << "\n";
                }
                if (const std::string at = scene::snapshotGcsText(s.gcs()); at.empty())
                    std::cout
                        << "unavailable: retained and deep sizes, GC roots, paths, classifiers that read "
                           "references ("
                        << scene::kNoSnapshotsReason << "); the heap map's objects ("
                        << scene::kNoAddressesReason << ")\n";
                else
                    std::cout
                        << "reference snapshots: " << at
                        << " (the inspector: what a group's sampled objects reference and retain there)\n"
                        << "unavailable: classifiers that read references (" << s.referencesUnavailable()
                        << "); the tree table's deep and retained sizes (" << s.sizesUnavailable()
                        << "); the heap map's objects (" << scene::kNoAddressesReason << ")\n";
            }
            if (const HeapMap* map = s.heapMap().shown(); map && s.view() == scene::ViewKind::kHeapMap) {
                uint64_t selected = 0;
                for (const SpaceMap& space : map->spaces)
                    for (const HeapTile& t : space.tiles)
                        selected += t.selected_bytes;
                std::cout << "heapmap: GC " << map->gc << ", " << scene::heapStreamName(s.heapMap().stream())
                          << ", tiles of " << map->tile_bytes << " bytes, " << map->spaces.size() << " spaces"
                          << (map->addresses ? "" : ", no addresses") << ", " << selected
                          << " bytes selected\n";
            }
            if (!s.heapMap().error().empty()) std::cout << "heapmap error: " << s.heapMap().error() << "\n";
            if (const scene::CityLayout* city = s.cityLayout())
                std::cout << "city: " << city->buildings.size() << " buildings in " << city->districts.size()
                          << " districts, " << ex_.ui().boxes << " boxes drawn\n";
            for (size_t i = 0; i < s.windows().size(); ++i) {
                const Window& w = s.windows()[i];
                std::cout << "window " << i + 1 << ": " << windowKindName(w.kind) << " " << w.first_gc << ".."
                          << w.last_gc << "\n";
            }
            if (const explore::PlayStops& st = s.playStops(); st.any())
                std::cout << "stop at:" << (st.full_gc ? " full-gc" : "")
                          << (st.window_start ? " window" : "")
                          << (st.grows_over ? " grows " + std::to_string(st.grows_over) : "") << "\n";
            if (!s.lastStop().empty()) std::cout << s.lastStop() << "\n";
            if (const auto& range = s.range())
                std::cout << "range: " << range->from << ".." << range->to << "\n";
            if (const auto& churn = s.churnWindow()) {
                const TreeSeries* series = s.series();
                std::cout << "churn: GCs " << churn->from << ".." << churn->to;
                if (series && series->firstGc() == churn->from + 1 && series->lastGc() == churn->to) {
                    const SeriesCounts all = series->counts(TreeSeries::kRoot, series->lastGc());
                    const char* about = series->sampled() ? "\u2248 " : "";
                    std::cout << ", " << about << all.objects << " objects (" << about << all.bytes
                              << " bytes) died young";
                } else {
                    std::cout << " (computing)";
                }
                std::cout << "\n";
            }
            if (s.diffShown()) {
                if (const auto& d = s.diff(); d && s.diffCurrent()) {
                    const scene::CohortCounts& all = d->at(TreeSeries::kRoot);
                    const char* about = s.sampled() ? "\u2248 " : "";  // a sampled heap's: estimates
                    std::cout << "diff: GC " << d->baseGc() << " -> " << d->gc() << ", born " << about
                              << all.born.objects << " objects (" << about << all.born.bytes
                              << " bytes), died " << about << all.died.objects << " (" << about
                              << all.died.bytes << "), permanent " << about << all.permanent.objects << " ("
                              << about << all.permanent.bytes << ")\n";
                } else {
                    std::cout << "diff: " << (s.diffError().empty() ? "computing" : s.diffError()) << "\n";
                }
            }
            if (s.load().live)
                std::cout << "live: " << s.gcs().size() << " GCs, " << s.load().bytes_total
                          << " bytes written\n";
            if (const auto importing = s.importing()) std::cout << "import: " << *importing << "\n";
            if (const explore::LiveState live = s.liveState(); live.connected) {
                std::cout << "program: " << live::stateName(live.status.state);
                if (live.status.state == live::ProgramState::kPaused)
                    std::cout << " at GC " << live.status.paused_gc;
                std::cout << " (pause when " << live::formatConditions(s.pauseConditions())
                          << (s.pauseGrowth() ? ", grows>" + std::to_string(s.pauseGrowth()) : "") << ")\n";
                if (!s.liveNote().empty()) std::cout << "program note: " << s.liveNote() << "\n";
            }
            for (const std::string& note : s.load().notes)
                std::cout << "note: " << note << "\n";
            if (const Ui& ui = ex_.ui(); ui.now < ui.status_until)
                std::cout << "status: " << ui.status << "\n";
            std::cout << std::flush;
        } else if (what == "table") {
            const Ui& ui = ex_.ui();
            if (!ui.table) return Error{"print table: no table yet"};
            std::cout << explore::tableCsv(ui.table->rows()) << std::flush;
        } else if (what == "timing") {
            printTiming();
        } else if (what == "dominators") {
            if (!s.dominatorsShown())
                return Error{"print dominators: the dominator view is off (dominators on)"};
            std::cout << explore::dominatorText(s.dominators());
            if (!s.dominatorHighlightText().empty()) std::cout << s.dominatorHighlightText() << "\n";
            std::cout << std::flush;
        } else {
            return Error{
                "print expects inspector, selection, table, dominators, timing, state or pins, got '" + what +
                "'"};
        }
        return {};
    }

    // dominators on|off, group CLASSIFIER|none, expand|collapse|select LABEL.
    Status dominators(const Cmd& c) {
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
            return Error{"dominators " + what + ": no row '" + label + "' is shown (the first: " + shown +
                         ")"};
        }
        if (what == "select") return s.selectDominatorRow(key);
        if (!m.expand(key, what == "expand"))
            return Error{"dominators " + what + ": '" + label + "' dominates nothing"};
        return {};
    }

    Status heapMap(const Cmd& c) {
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
                return Error{"heapmap stream " + value + ": " + std::string(why) +
                             " (only 'used' can be drawn)"};
            m.setStream(*stream);
        } else if (what == "zoom") {
            char* end = nullptr;
            const long zoom = std::strtol(value.c_str(), &end, 10);
            if (value.empty() || *end != '\0' || zoom < -explore::HeapMapModel::kMaxZoom ||
                zoom > explore::HeapMapModel::kMaxZoom)
                return Error{"heapmap zoom expects -" + std::to_string(explore::HeapMapModel::kMaxZoom) +
                             ".." + std::to_string(explore::HeapMapModel::kMaxZoom) + ", got '" + value +
                             "'"};
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

    Status printTile(const Cmd& c) {
        explore::Session& s = ex_.session();
        if (s.view() != scene::ViewKind::kHeapMap) return Error{"tile: the heap map is not shown"};
        auto x = real(c.args[0]);
        auto y = real(c.args[1]);
        if (!x) return x.error();
        if (!y) return y.error();
        if (!ex_.frame(0.0)) return {};
        const auto pick = s.heapTileAt(glm::vec2(static_cast<float>(*x), static_cast<float>(*y)));
        const HeapHistory* h = s.history();
        const auto info = pick && h ? s.heapMap().describe(*pick, h->trace().symbols()) : std::nullopt;
        if (!info) return Error{"tile: no tile at " + c.args[0] + " " + c.args[1]};
        if (s.sampled() && !info->addresses) {
            std::printf("tile: %s 0x%llx-0x%llx GC %u: %llu bytes used; objects unknown: %s\n",
                        info->space.c_str(), static_cast<unsigned long long>(info->from),
                        static_cast<unsigned long long>(info->to), info->gc,
                        static_cast<unsigned long long>(info->tile.bytes),
                        std::string(scene::kNoAddressesReason).c_str());
            std::fflush(stdout);
            return {};
        }
        std::printf("tile: %s 0x%llx-0x%llx GC %u: %llu objects, %llu bytes, %llu selected\n",
                    info->space.c_str(), static_cast<unsigned long long>(info->from),
                    static_cast<unsigned long long>(info->to), info->gc,
                    static_cast<unsigned long long>(info->tile.objects),
                    static_cast<unsigned long long>(info->tile.bytes),
                    static_cast<unsigned long long>(info->tile.selected_bytes));
        for (size_t i = 0; i < info->contents.types.size(); ++i)
            std::printf("tile type: %s %llu objects, %llu bytes\n", info->type_names[i].c_str(),
                        static_cast<unsigned long long>(info->contents.types[i].objects),
                        static_cast<unsigned long long>(info->contents.types[i].bytes));
        std::fflush(stdout);
        return {};
    }

    void printTiming() const {
        std::vector<double> loading, after;
        const auto& ms = ex_.frameTimes();
        const auto& during = ex_.frameLoading();
        for (size_t i = 0; i < ms.size(); ++i)
            (during[i] ? loading : after).push_back(ms[i]);
        const explore::LoadProgress& load = ex_.session().load();
        std::printf("timing: trace loaded in %.2f s (%u GCs, %.1f MiB)\n", load.seconds, load.gcs,
                    static_cast<double>(load.bytes_total) / (1024.0 * 1024.0));
        std::printf(
            "timing: first GC rebuilt after %.3f s, on screen after %.3f s (%.3f s after memcity started)\n",
            load.first_gc_seconds, ex_.firstGcShownAt(), ex_.firstGcShownSinceLaunch());
        std::printf("timing: %zu frames while loading: median %.1f ms, 95%% %.1f ms, longest %.1f ms\n",
                    loading.size(), percentile(loading, 0.5), percentile(loading, 0.95),
                    loading.empty() ? 0.0 : *std::max_element(loading.begin(), loading.end()));
        std::printf("timing: %zu frames after: median %.1f ms, 95%% %.1f ms, longest %.1f ms\n", after.size(),
                    percentile(after, 0.5), percentile(after, 0.95),
                    after.empty() ? 0.0 : *std::max_element(after.begin(), after.end()));
        if (const auto& b = ex_.session().heapMap().lastBuild())
            std::printf(
                "timing: heap map of GC %u built in %.1f ms (heap rebuilt, placed: %.1f ms; map: %.1f ms)\n",
                b->gc, b->place_ms + b->map_ms, b->place_ms, b->map_ms);
        for (const Latency& l : latencies_)
            std::printf("timing: input to picture %6.1f ms  %s\n", l.ms, l.command.c_str());
        std::fflush(stdout);
    }

    Explorer& ex_;
    std::string script_;
    bool live_ = false;  // after wait-gc: a trace still being written counts as loaded
    const explore::ScriptCommand* line_ = nullptr;
    std::vector<Latency> latencies_;
};

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
         [](Runner& r, const Cmd& c) -> Status {
             r.ex_.open(c.rest);
             return {};
         }},
        {{"wait", 0, 0, "wait: until loading and every background computation finished"},
         [](Runner& r, const Cmd&) -> Status {
             r.live_ = false;  // settle() before the next command waits, for the end of a live trace too
             return {};
         }},
        {{"wait-gc", 1, 1,
          "wait-gc N: until GC N has arrived (a trace still being written: the commands after it "
          "run while it grows)"},
         [](Runner& r, const Cmd& c) { return r.waitGc(c); },
         K::kLive},
        {{"gc", 1, 1, "gc N: move the cursor to GC N"},
         [](Runner& r, const Cmd& c) -> Status {
             auto n = r.number(c.args[0]);
             if (!n) return n.error();
             return r.ex_.session().goToGc(*n);
         },
         K::kTimed},
        {{"time", 1, 1, "time T: move the cursor to index time T (fractional: tweened)"},
         [](Runner& r, const Cmd& c) -> Status {
             auto t = r.real(c.args[0]);
             if (!t) return t.error();
             r.ex_.session().cursor().seek(*t);
             return {};
         },
         K::kTimed},
        {{"next", 0, 0, "next: the next GC"},
         [](Runner& r, const Cmd&) -> Status {
             r.ex_.session().cursor().stepNext();
             return {};
         },
         K::kTimed},
        {{"prev", 0, 0, "prev: the previous GC"},
         [](Runner& r, const Cmd&) -> Status {
             r.ex_.session().cursor().stepPrevious();
             return {};
         },
         K::kTimed},
        {{"play", 1, 1, "play SECONDS: play for SECONDS (frames of 1/60 s), then pause"},
         [](Runner& r, const Cmd& c) -> Status {
             auto seconds = r.real(c.args[0]);
             if (!seconds) return seconds.error();
             r.ex_.session().cursor().play();
             for (double t = 0; t < *seconds; t += kStep)
                 if (!r.ex_.frame(kStep)) return {};
             r.ex_.session().cursor().pause();
             return {};
         }},
        {{"view", 1, 1, view_usage},
         [](Runner& r, const Cmd& c) -> Status {
             auto kind = scene::parseViewKind(c.args[0]);
             if (!kind || !scene::isWindowView(*kind))
                 return Error{"view expects " + scene::viewNames(true, ", ", " or ") + ", got '" + c.args[0] +
                              "'"};
             r.ex_.session().setView(*kind);
             return {};
         },
         K::kTimed},
        {{"heapmap", 2, explore::kRestOfLine,
          "heapmap stream used|objects|age|selected|dying | heapmap zoom N (0: fit; each step in halves "
          "the tile) | heapmap space NAME|largest: the heap map's toolbar"},
         [](Runner& r, const Cmd& c) { return r.heapMap(c); },
         K::kTimed},
        {{"tile", 2, 2,
          "tile X Y: what the heap map's tile at framebuffer pixel X Y holds, to standard output"},
         [](Runner& r, const Cmd& c) { return r.printTile(c); }},
        {{"pin", 1, 1, "pin N: pin GC N (a tree of the timeline-trees view)"},
         [](Runner& r, const Cmd& c) { return r.pinOrUnpin(c); }},
        {{"stop-at", 1, 2,
          "stop-at full-gc|window|grows N|none: playback stops at a full GC, a window's start, the "
          "selection growing by more than N (bytes or objects) between GCs; none clears"},
         [](Runner& r, const Cmd& c) { return r.stopAt(c); }},
        {{"window", 1, 1,
          "window K: suspicious window K ('print state' lists them) as the range, the series built over it"},
         [](Runner& r, const Cmd& c) -> Status {
             auto k = r.windowIndex(c);
             return k ? r.ex_.session().selectWindow(*k) : Status(k.error());
         }},
        {{"window-next", 1, 1,
          "window-next K: suspicious window K's next step: the diff over it at its last GC (leak, GC "
          "overhead) or its churn (churn)"},
         [](Runner& r, const Cmd& c) -> Status {
             auto k = r.windowIndex(c);
             return k ? r.ex_.session().windowNext(*k) : Status(k.error());
         }},
        {{"dominators", 1, explore::kRestOfLine,
          "dominators on|off | group CLASSIFIER|none | expand LABEL | collapse LABEL | select LABEL: the "
          "tree "
          "table's dominator view"},
         [](Runner& r, const Cmd& c) { return r.dominators(c); }},
        {{"churn", 1, 1, "churn on|off: the range's short-lived objects instead of the heap"},
         [](Runner& r, const Cmd& c) -> Status {
             auto on = onOff(c);
             return on ? r.ex_.session().showChurn(*on) : Status(on.error());
         }},
        {{"diff", 1, 1,
          "diff on|off: colour by born / died / permanent since the base GC (the range's start)"},
         [](Runner& r, const Cmd& c) -> Status {
             auto on = onOff(c);
             if (on) r.ex_.session().showDiff(*on);
             return on ? Status{} : Status(on.error());
         }},
        {{"trees", 1, 1, "trees sunburst|cities: the timeline trees as sunbursts or as small cities"},
         [](Runner& r, const Cmd& c) -> Status {
             if (c.rest != "sunburst" && c.rest != "cities")
                 return Error{"trees expects sunburst or cities, got '" + c.rest + "'"};
             r.ex_.session().setTreesCities(c.rest == "cities");
             return {};
         }},
        {{"unpin", 1, 1, "unpin N: unpin GC N"}, [](Runner& r, const Cmd& c) { return r.pinOrUnpin(c); }},
        {{"scaled", 1, 1, "scaled on|off: the sunburst's and icicle's extent follows the heap's size"},
         [](Runner& r, const Cmd& c) -> Status {
             auto on = onOff(c);
             if (on) r.ex_.session().setScaled(*on);
             return on ? Status{} : Status(on.error());
         }},
        {{"camera", 1, 4,
          "camera PRESET | camera orbit DYAW DPITCH | camera dolly FACTOR | camera fly R U F"},
         [](Runner& r, const Cmd& c) { return r.camera(c); },
         K::kTimed},
        {{"mode", 1, 1, "mode orbit|fly: the camera's mode"},
         [](Runner& r, const Cmd& c) -> Status {
             if (c.args[0] != "orbit" && c.args[0] != "fly")
                 return Error{"mode expects orbit or fly, got '" + c.args[0] + "'"};
             r.ex_.ui().camera_mode = c.args[0] == "fly" ? CameraMode::kFly : CameraMode::kOrbit;
             return {};
         }},
        {{"select", 1, explore::kRestOfLine,
          "select PATH[;PATH...]: select groups by their label paths ('a / b')"},
         [](Runner& r, const Cmd& c) { return r.ex_.session().selectPath(c.rest, false); },
         K::kTimed},
        {{"select+", 1, explore::kRestOfLine, "select+ PATH: add groups to the selection"},
         [](Runner& r, const Cmd& c) { return r.ex_.session().selectPath(c.rest, true); }},
        {{"deselect", 0, 0, "deselect: clear the selection"},
         [](Runner& r, const Cmd&) -> Status {
             r.ex_.session().clearSelection();
             return {};
         }},
        {{"click", 1, 3,
          "click X Y|view [shift|double]: a left click at framebuffer pixel X Y (view: its centre)"},
         [](Runner& r, const Cmd& c) { return r.click(c); },
         K::kTimed},
        {{"hover", 1, 2, "hover X Y|view: the pointer at framebuffer pixel X Y (view: the view's centre)"},
         [](Runner& r, const Cmd& c) -> Status {
             auto p = r.pixel(c);
             if (!p) return p.error();
             r.ex_.input().push_back({*p, false, false, -1, false});
             return {};
         },
         K::kTimed},
        {{"drill", 1, explore::kRestOfLine, "drill PATH: the sunburst's and icicle's root"},
         [](Runner& r, const Cmd& c) { return r.ex_.session().drillPath(c.rest); },
         K::kTimed},
        {{"drill-up", 0, 0, "drill-up: one level up"},
         [](Runner& r, const Cmd&) -> Status {
             r.ex_.session().drillUp();
             return {};
         },
         K::kTimed},
        {{"frame", 0, 0, "frame: frame the selection (the F key)"},
         [](Runner& r, const Cmd&) -> Status {
             if (!r.ex_.session().frameSelection())
                 return Error{"frame: nothing selected stands in the city"};
             return {};
         },
         K::kTimed},
        {{"chain", 1, explore::kRestOfLine, "chain SPEC: classify by SPEC (\"package,type\"), filters kept"},
         [](Runner& r, const Cmd& c) { return r.chain(c); }},
        {{"filter", 1, explore::kRestOfLine, "filter EXPR | filter none: the chain's one filter"},
         [](Runner& r, const Cmd& c) { return r.chain(c); }},
        {{"metric", 1, 1, "metric objects|bytes"}, [](Runner& r, const Cmd& c) { return r.chain(c); }},
        {{"sort", 1, 1, "sort start|end|growth"}, [](Runner& r, const Cmd& c) { return r.chain(c); }},
        {{"prune", 1, 1, "prune on|off: fold small children into Other (the views' pruning)"},
         [](Runner& r, const Cmd& c) { return r.chain(c); }},
        {{"range", 1, 2, "range A B | range none: the timeline's selected GCs"},
         [](Runner& r, const Cmd& c) { return r.range(c); }},
        {{"series-range", 0, 0, "series-range: recompute the series over the selected range"},
         [](Runner& r, const Cmd&) { return r.ex_.session().seriesOverRange(); }},
        {{"panel", 2, 2, panel_usage}, [](Runner& r, const Cmd& c) { return r.panel(c.args[0], c.args[1]); }},
        {{"key", 1, 2, "key NAME [shift]: press a key (space, left, right, f, f12, w, a, s, d, q, e, ...)"},
         [](Runner& r, const Cmd& c) -> Status {
             const int key = keyOf(c.args[0]);
             if (key < 0) return Error{"unknown key '" + c.args[0] + "'"};
             const bool shift = c.args.size() > 1 && c.args[1] == "shift";
             r.ex_.input().push_back({std::nullopt, false, false, key, shift});  // released the frame after
             return {};
         },
         K::kTimed},
        {{"screenshot", 1, explore::kRestOfLine, "screenshot FILE.png: the window's picture as PNG"},
         [](Runner& r, const Cmd& c) -> Status {
             if (!r.ex_.frame(0.0)) return {};
             Status st = r.ex_.screenshot(c.rest);
             if (!st) return st;
             std::cerr << "wrote " << c.rest << "\n";
             return {};
         }},
        {{"print", 1, 1, "print inspector|selection|table|timing|state|pins: to standard output"},
         [](Runner& r, const Cmd& c) { return r.print(c.args[0]); }},
        {{"size", 2, 2, "size W H: resize the window"}, [](Runner& r, const Cmd& c) { return r.size(c); }},
        {{"live-pause", 0, 0,
          "live-pause: pause the recorded program at its next GC's end (a trace still being written), and "
          "wait until that GC is shown"},
         [](Runner& r, const Cmd& c) { return r.liveCommand(c); },
         K::kLive},
        {{"live-step", 0, 0, "live-step: let the paused program run to its next GC's end, and show it"},
         [](Runner& r, const Cmd& c) { return r.liveCommand(c); },
         K::kLive},
        {{"live-resume", 0, 0, "live-resume: let the program run"},
         [](Runner& r, const Cmd& c) { return r.liveCommand(c); },
         K::kLive},
        {{"live-snapshot", 0, 1,
          "live-snapshot [now]: a reference snapshot at the program's next GC; now: at a GC forced for it, "
          "waiting until the snapshot is shown"},
         [](Runner& r, const Cmd& c) { return r.liveCommand(c); },
         K::kLive},
        {{"live-pause-when", 1, explore::kRestOfLine,
          "live-pause-when CONDITIONS: pause the program at full GCs (full), when the JVM uses more than "
          "SIZE (used>SIZE), when the selection grows by more than SIZE between GCs (grows>SIZE); "
          "comma-separated, or none"},
         [](Runner& r, const Cmd& c) { return r.liveCommand(c); },
         K::kLive},
        {{"quit", 0, 0, "quit: close the window (the end of a script quits too)"},
         [](Runner&, const Cmd&) -> Status { return {}; },
         K::kQuit},
    };
    return all;
}

}  // namespace

int runScript(Explorer& explorer, const std::string& path) {
    auto script = explore::loadScript(path, Runner::specs());
    if (!script) {
        std::cerr << "memcity: " << script.error().message << "\n";
        return 1;
    }
    Runner runner(explorer, path);
    return runner.run(*script);
}

std::span<const explore::ScriptVerb* const> scriptVerbs() {
    return Runner::specs();
}

}  // namespace memcity::app
