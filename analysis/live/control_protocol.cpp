#include "live/control_protocol.h"

#include <sys/stat.h>
#include <unistd.h>

#include <cerrno>
#include <cstdio>
#include <cstring>
#include <vector>

#include "util/units.h"

namespace memcity::live {
namespace {

std::vector<std::string_view> split(std::string_view s, char sep) {
    std::vector<std::string_view> out;
    size_t start = 0;
    for (;;) {
        const size_t at = s.find(sep, start);
        out.push_back(s.substr(start, at == std::string_view::npos ? std::string_view::npos : at - start));
        if (at == std::string_view::npos) return out;
        start = at + 1;
    }
}

bool printableLine(std::string_view line) {
    for (char c : line)
        if (static_cast<unsigned char>(c) < 0x20 || static_cast<unsigned char>(c) > 0x7e) return false;
    return true;
}

std::string octalMode(mode_t mode) {
    char text[8];
    std::snprintf(text, sizeof text, "%03o", static_cast<unsigned>(mode & 0777));
    return text;
}

}  // namespace

std::string socketDirectory(uid_t uid) {
    return "/tmp/memcity-" + std::to_string(uid);
}

std::string socketPath(uid_t uid, pid_t pid) {
    return socketDirectory(uid) + "/" + std::to_string(pid) + ".sock";
}

Status ensurePrivateDirectory(const std::string& dir, uid_t uid) {
    if (::mkdir(dir.c_str(), 0700) != 0 && errno != EEXIST)
        return Error{dir + ": cannot create the directory: " + std::strerror(errno)};
    return checkPrivateDirectory(dir, uid);
}

Status checkPrivateDirectory(const std::string& dir, uid_t uid) {
    struct stat st {};
    if (::lstat(dir.c_str(), &st) != 0) return Error{dir + ": " + std::strerror(errno)};
    if (!S_ISDIR(st.st_mode)) return Error{dir + ": not a directory (a link or a file is in its place)"};
    if (st.st_uid != uid)
        return Error{dir + ": belongs to uid " + std::to_string(st.st_uid) + ", not to uid " +
                     std::to_string(uid)};
    if (st.st_mode & 077) return Error{dir + ": others may enter it (mode " + octalMode(st.st_mode) + ")"};
    return {};
}

Result<PauseConditions> parseConditions(std::string_view text) {
    PauseConditions c;
    if (text == "none") return c;
    if (text.empty()) return Error{"no condition (none, full, used>SIZE or every-gc)"};
    for (std::string_view word : split(text, ',')) {
        if (word == "full") {
            c.full_gc = true;
        } else if (word == "every-gc") {
            c.every_gc = true;
        } else if (word.starts_with("used>")) {
            uint64_t bytes = 0;
            if (!parseBytes(word.substr(5), &bytes) || bytes == 0)
                return Error{"'" + std::string(word) + "': expected used>SIZE with a size such as 64m"};
            c.used_above = bytes;
        } else {
            return Error{"unknown condition '" + std::string(word) + "' (none, full, used>SIZE or every-gc)"};
        }
    }
    return c;
}

std::string formatConditions(const PauseConditions& c) {
    std::string out;
    auto add = [&](const std::string& w) { out += (out.empty() ? "" : ",") + w; };
    if (c.full_gc) add("full");
    if (c.used_above) add("used>" + std::to_string(c.used_above));
    if (c.every_gc) add("every-gc");
    return out.empty() ? "none" : out;
}

Result<Request> parseRequest(std::string_view line) {
    if (line.size() >= kMaxLine) return Error{"a request longer than " + std::to_string(kMaxLine) + " bytes"};
    if (!printableLine(line)) return Error{"a request with bytes that are not printable ASCII"};
    const size_t space = line.find(' ');
    const std::string_view verb = line.substr(0, space);
    const std::string_view rest =
        space == std::string_view::npos ? std::string_view() : line.substr(space + 1);
    Request r;
    if (verb == "when") {
        auto c = parseConditions(rest);
        if (!c) return c.error();
        r.command = Command::kWhen;
        r.when = *c;
        return r;
    }
    if (verb == "hello")
        r.command = Command::kHello;
    else if (verb == "status")
        r.command = Command::kStatus;
    else if (verb == "pause")
        r.command = Command::kPause;
    else if (verb == "step")
        r.command = Command::kStep;
    else if (verb == "resume")
        r.command = Command::kResume;
    else if (verb == "detach")
        r.command = Command::kDetach;
    else if (verb == "own")
        r.command = Command::kOwn;
    else if (verb == "snapshot") {
        r.command = Command::kSnapshot;
        if (rest == "now") return Request{Command::kSnapshot, {}, true};
        if (!rest.empty())
            return Error{"'snapshot' takes 'now' or nothing, not '" + std::string(rest.substr(0, 40)) + "'"};
    } else
        return Error{"unknown request '" + std::string(verb.substr(0, 40)) +
                     "' (hello, status, pause, step, resume, when, snapshot, detach, own)"};
    if (!rest.empty()) return Error{"'" + std::string(verb) + "' takes no argument"};
    return r;
}

std::string formatRequest(const Request& r) {
    switch (r.command) {
        case Command::kHello: return "hello";
        case Command::kStatus: return "status";
        case Command::kPause: return "pause";
        case Command::kStep: return "step";
        case Command::kResume: return "resume";
        case Command::kWhen: return "when " + formatConditions(r.when);
        case Command::kDetach: return "detach";
        case Command::kSnapshot: return r.now ? "snapshot now" : "snapshot";
        case Command::kOwn: return "own";
    }
    return "status";
}

std::string formatReasons(uint8_t reasons) {
    std::string out;
    auto add = [&](const char* w) { out += (out.empty() ? "" : ",") + std::string(w); };
    if (reasons & kPauseAsked) add("asked");
    if (reasons & kPauseFull) add("full");
    if (reasons & kPauseUsed) add("used");
    if (reasons & kPauseEvery) add("every-gc");
    return out.empty() ? "none" : out;
}

std::string_view stateName(ProgramState s) {
    switch (s) {
        case ProgramState::kRunning: return "running";
        case ProgramState::kPausing: return "pausing";
        case ProgramState::kPaused: return "paused";
        case ProgramState::kDetached: return "detached";
    }
    return "running";
}

std::string formatStatus(const AgentStatus& s) {
    std::string out = "ok version=" + std::to_string(s.version) + " pid=" + std::to_string(s.pid) +
                      " state=" + std::string(stateName(s.state));
    if (s.paused_gc >= 0) out += " gc=" + std::to_string(s.paused_gc) + " why=" + formatReasons(s.why);
    out += " gcs=" + std::to_string(s.gcs) + " pause=" + (s.can_pause ? "yes" : "no") +
           " when=" + formatConditions(s.when) + " snapshots=" + std::to_string(s.snapshots);
    if (s.snapshot_gc >= 0) out += " snapshot_gc=" + std::to_string(s.snapshot_gc);
    if (s.snapshot_asked) out += " snapshot=asked";
    out += " file=" + s.file;
    return out;
}

Result<AgentStatus> parseStatus(std::string_view line) {
    if (line.starts_with("error "))
        return Error{line.size() > 6 ? std::string(line.substr(6))
                                     : "the agent answered an error without a reason"};
    if (!line.starts_with("ok "))
        return Error{"not a status reply: '" + std::string(line.substr(0, 60)) + "'"};
    AgentStatus s;
    std::string_view rest = line.substr(3);
    bool have_state = false;
    while (!rest.empty()) {
        const size_t eq = rest.find('=');
        if (eq == std::string_view::npos)
            return Error{"a status field without '=': '" + std::string(rest) + "'"};
        const std::string_view key = rest.substr(0, eq);
        if (key == "file") {  // the rest of the line
            s.file = std::string(rest.substr(eq + 1));
            break;
        }
        const size_t end = rest.find(' ', eq);
        const std::string_view value =
            rest.substr(eq + 1, end == std::string_view::npos ? end : end - eq - 1);
        rest = end == std::string_view::npos ? std::string_view() : rest.substr(end + 1);
        uint64_t n = 0;
        const bool number = parseUnsigned(value, &n);
        if (key == "version" && number) {
            s.version = static_cast<int>(n);
        } else if (key == "pid" && number) {
            s.pid = static_cast<pid_t>(n);
        } else if (key == "gc" && number) {
            s.paused_gc = static_cast<int64_t>(n);
        } else if (key == "gcs" && number) {
            s.gcs = n;
        } else if (key == "pause" && (value == "yes" || value == "no")) {
            s.can_pause = value == "yes";
        } else if (key == "why") {
            for (std::string_view word : split(value, ',')) {
                if (word == "asked") s.why |= kPauseAsked;
                if (word == "full") s.why |= kPauseFull;
                if (word == "used") s.why |= kPauseUsed;
                if (word == "every-gc") s.why |= kPauseEvery;
            }
        } else if (key == "snapshots" && number) {
            s.snapshots = n;
        } else if (key == "snapshot_gc" && number) {
            s.snapshot_gc = static_cast<int64_t>(n);
        } else if (key == "snapshot") {
            s.snapshot_asked = value == "asked";
        } else if (key == "when") {
            auto c = parseConditions(value);
            if (!c) return c.error();
            s.when = *c;
        } else if (key == "state") {
            have_state = true;
            if (value == "running")
                s.state = ProgramState::kRunning;
            else if (value == "pausing")
                s.state = ProgramState::kPausing;
            else if (value == "paused")
                s.state = ProgramState::kPaused;
            else if (value == "detached")
                s.state = ProgramState::kDetached;
            else
                have_state = false;
        }
        // Other fields are a later version's: skipped.
    }
    if (!have_state) return Error{"a status reply without a valid state"};
    return s;
}

std::string attachCodeMessage(int code) {
    switch (static_cast<AttachCode>(code)) {
        case AttachCode::kOk: return "recording";
        case AttachCode::kBadOptions: return "the agent refused its options";
        case AttachCode::kAlreadyRecording: return "a memcity agent records this JVM already";
        case AttachCode::kNoJvmti: return "this JVM has no JVMTI 11 (Java 11 or newer is needed)";
        case AttachCode::kRefused:
            return "the JVM refused the agent a capability it needs (another agent, such as a profiler, may "
                   "hold it)";
        case AttachCode::kCannotStart:
            return "the agent could not start (its message is in the program's output)";
        case AttachCode::kNoControl:
            return "the agent's control channel could not start, so it stopped without recording (its "
                   "message is in the program's output)";
    }
    return "the agent failed with code " + std::to_string(code);
}

}  // namespace memcity::live
