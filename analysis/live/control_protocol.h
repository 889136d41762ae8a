// The live control channel between a recording JVM's agent and memcity: GCspy's control stream
// (*GCspy: An Adaptable Heap Visualisation Framework*, §5) over a local socket. The agent
// listens on a Unix socket in a directory that only the recording user can open, checks every
// caller's credentials, and answers one line per request line. Through it a client pauses the
// program at a GC's end (its Java threads suspended, so the heap a viewer shows is the heap in
// memory), steps it GC by GC, resumes it, sets pause conditions, and ends the recording.
//
// Requests (one line each, at most kMaxLine bytes, printable ASCII):
//   hello | status           the agent's status (a reply line: formatStatus)
//   pause                    pause at the next GC's end
//   step                     resume a paused program, and pause at the next GC's end
//   resume                   resume, and pause at no GC unless a condition says so
//   when CONDITIONS          pause conditions: "none", or comma-separated "full", "used>SIZE",
//                            "every-gc" (see parseConditions)
//   snapshot [now]           a reference snapshot at the next GC the agent writes (now: forces
//                            that GC, and replies once the snapshot is taken or missed)
//   detach                   finish the trace and stop recording; the program goes on
//   own                      this connection owns the recording (memcity attach): when it
//                            closes, for whatever reason, the agent detaches
// Replies: "ok ..." or "error WHAT". A line that is not a request, too long or not printable
// gets "error ..." and the connection is closed. When the last client goes, a paused program
// resumes and the conditions are dropped: no program stays paused without someone to resume it.
#pragma once

#include <sys/types.h>

#include <cstdint>
#include <string>
#include <string_view>

#include "util/result.h"

namespace memcity::live {

inline constexpr size_t kMaxLine = 512;  // bytes of a request or reply, its newline included
inline constexpr int kProtocolVersion = 1;

// The directory of the channel's sockets, /tmp/memcity-UID, and the socket of the JVM with
// process id `pid` in it.
std::string socketDirectory(uid_t uid);
std::string socketPath(uid_t uid, pid_t pid);
// Checks (lstat: the path itself, not where a link leads) that `dir` is a directory owned by
// `uid` that nobody else can enter (no group or other permission bits). Error: one line naming
// the path and what is wrong.
Status checkPrivateDirectory(const std::string& dir, uid_t uid);
// Creates `dir` (mode 0700) if it is missing, then checkPrivateDirectory.
Status ensurePrivateDirectory(const std::string& dir, uid_t uid);
// The same check, creating nothing.
Status checkPrivateDirectory(const std::string& dir, uid_t uid);

// When the agent pauses the program, besides a pause asked for.
struct PauseConditions {
    bool every_gc = false;    // at every GC's end (a client decides, GC by GC)
    bool full_gc = false;     // at a full GC's end
    uint64_t used_above = 0;  // at a GC's end that leaves the JVM more used bytes than this; 0: off

    bool any() const { return every_gc || full_gc || used_above != 0; }
    bool operator==(const PauseConditions&) const = default;
};
// "none", or comma-separated "full", "used>SIZE" (SIZE as 64m, 1g, 4194304), "every-gc".
// Error: which word is wrong.
Result<PauseConditions> parseConditions(std::string_view text);
std::string formatConditions(const PauseConditions& c);  // "full,used>67108864" or "none": as read

enum class Command : uint8_t {
    kHello,     // the status, and the protocol's version
    kStatus,    // the status
    kPause,     // pause at the next GC's end
    kStep,      // resume, and pause at the next GC's end
    kResume,    // resume
    kWhen,      // set the pause conditions
    kDetach,    // finish the trace, stop recording
    kSnapshot,  // a reference snapshot at the next GC
    kOwn,       // this connection owns the recording: the agent detaches when it closes
};
struct Request {
    Command command = Command::kStatus;
    PauseConditions when;  // kWhen
    bool now = false;      // kSnapshot: force that GC, and reply once the snapshot is written
};
// Parses one request line, without its newline. Error: what is wrong with it.
Result<Request> parseRequest(std::string_view line);
std::string formatRequest(const Request& r);  // without the newline

enum class ProgramState : uint8_t {
    kRunning,   // the program runs
    kPausing,   // it runs until the next GC's end, where it pauses
    kPaused,    // its Java threads are suspended at a GC's end
    kDetached,  // the recording ended; the program runs without the agent
};
std::string_view stateName(ProgramState s);

// Why the program paused at a GC, a bit each (several may hold).
enum PauseReason : uint8_t {
    kPauseAsked = 1,  // a pause or step asked for it
    kPauseFull = 2,   // a full GC, with the condition full
    kPauseUsed = 4,   // the JVM's used bytes passed the condition's size
    kPauseEvery = 8,  // the condition every-gc
};
std::string formatReasons(uint8_t reasons);  // "asked,full", or "none"

struct AgentStatus {
    int version = kProtocolVersion;
    pid_t pid = 0;
    ProgramState state = ProgramState::kRunning;
    int64_t paused_gc = -1;  // the GC the program is paused at (kPaused), else -1
    uint8_t why = 0;         // PauseReason bits of that pause (kPaused)
    uint64_t gcs = 0;        // GCs finished so far
    bool can_pause = true;   // the JVM lets the agent suspend threads
    PauseConditions when;
    // Reference snapshots: taken so far, the GC of the last one (-1: none), whether one was
    // asked for and is not taken yet.
    uint64_t snapshots = 0;
    int64_t snapshot_gc = -1;
    bool snapshot_asked = false;
    std::string file;  // the trace, an absolute path
};
// "ok version=1 pid=1234 state=paused gc=12 why=full gcs=13 pause=yes when=full snapshots=2
// snapshot_gc=9 snapshot=asked file=/tmp/app.mct" (the file last: the rest of the line;
// snapshot_gc and snapshot only where they hold).
std::string formatStatus(const AgentStatus& s);
// Parses a status reply. Error: "error ..." replies as their text, or what is malformed.
Result<AgentStatus> parseStatus(std::string_view line);

// Agent_OnAttach's return codes (the JVM hands them to whoever loaded the agent).
enum class AttachCode : int {
    kOk = 0,
    kBadOptions = 2,        // the options did not parse
    kAlreadyRecording = 3,  // a memcity agent records this JVM already
    kNoJvmti = 4,           // no JVMTI 11 (the JVM is older than Java 11)
    kRefused = 5,           // the JVM refused a capability (another agent holds it)
    kCannotStart = 6,       // the trace could not be created, or the start failed
    kNoControl = 7,         // the control channel could not start: the agent stopped (nothing recorded)
};
// What a code means, for a one-line error: "a memcity agent records this JVM already".
std::string attachCodeMessage(int code);

}  // namespace memcity::live
