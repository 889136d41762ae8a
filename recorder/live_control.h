// LiveControl: the agent's end of the live control channel (analysis/live/control_protocol.h),
// GCspy's control stream. A thread of the agent's ("memcity-control") listens on a Unix socket
// in the recording user's private directory, takes only that user's connections, and answers
// their requests: pause the program at the next GC's end, step it GC by GC, resume it, pause it
// when a condition holds, take a reference snapshot, end the recording.
//
// Pausing, at GC g's end:
//  1. the GC finish callback (inside the JVM's pause) decides that the program stops here and
//     holds it: from then on every allocation callback, and every new thread, waits before it
//     records anything (so the heap in memory is GC g's, with at most one object per thread
//     that allocated after it: the one whose callback waits, recorded after GC g);
//  2. the agent thread writes GC g (its heap marked complete and flushed, for a viewer), then
//     suspends every Java thread but the agent's own and the JVM's signal and attach threads
//     (JVMTI SuspendThreadList), so the program stops whatever it does;
//  3. resume undoes both: the threads resumed, the hold released.
// Nothing here blocks the JVM: the GC callback only reads and writes atomics, and a client that
// sends garbage, or goes away, is dropped (a paused program resumes when its last client goes).
// An owned recording (memcity attach) ends, as at a detach, when its owner's connection closes:
// the kernel closes it however the client ends (exit, SIGHUP, SIGKILL, a crash).
// A signal the program handles in Java (Ctrl-C, SIGTERM, SIGHUP) releases a pause: the JVM's
// Signal Dispatcher thread, which runs while the program is paused, allocates the handler's
// thread, and finding the program held there it resumes it (see waitSlow).
#pragma once

#include <jvmti.h>

#include <atomic>
#include <chrono>
#include <condition_variable>
#include <cstdint>
#include <mutex>
#include <string>
#include <thread>
#include <vector>

#include "live/control_protocol.h"
#include "util/result.h"

namespace memcity::agent {

class Recorder;

class LiveControl {
public:
    // `can_suspend`: the agent holds JVMTI's can_suspend (without it, pausing is refused).
    LiveControl(Recorder& recorder, jvmtiEnv* jvmti, bool can_suspend);
    ~LiveControl();
    LiveControl(const LiveControl&) = delete;
    LiveControl& operator=(const LiveControl&) = delete;

    // How long an owned recording waits for its owner's "own" before it ends.
    static constexpr int kOwnerWaitSeconds = 10;
    // Listens at live::socketPath(euid, pid), in a private directory it checks, and starts the
    // control thread. `owned`: the recording ends when its owner goes (see the top of this
    // file). Error: one line (the recording goes on without control).
    Status start(JNIEnv* jni, const std::string& trace_file, bool owned);
    // Resumes a paused or held program, closes the socket and every connection, and waits for
    // the control thread to end; called at exit and at detach (not on the control thread
    // itself, which ends on its own after a detach).
    void stop(JNIEnv* jni);
    const std::string& socketPath() const { return socket_path_; }

    // ---- The recorder's hooks ----
    // Inside the GC finish callback of GC `gc` (atomics only): holds the program there if a
    // pause was asked for or a condition holds. `full`: a full GC; `used_after`: the JVM's used
    // bytes after it (0 if unknown).
    void onGcEnd(uint32_t gc, bool full, uint64_t used_after);
    // Allocation and thread-start callbacks of the program's threads (`jni`: the calling
    // thread's): wait while it is held.
    void waitWhileHeld(JNIEnv* jni) {
        if (held_.load(std::memory_order_acquire)) waitSlow(jni);
    }
    // The agent thread, after it wrote the GCs so far: suspends a held program's threads.
    void afterGcsWritten(JNIEnv* jni, uint64_t gcs_written);

    // The control thread's body (an agent thread's function).
    void serve(JNIEnv* jni);

private:
    struct Client {
        int fd = -1;
        std::string in;      // bytes read past the last request line
        bool owner = false;  // sent "own": its close ends the recording
    };
    // Waits for the hold's release, unless the caller is the JVM's Signal Dispatcher or a
    // signal handler's thread: a signal the program handles (Ctrl-C) resumes the program and
    // drops the pause conditions.
    void waitSlow(JNIEnv* jni);
    bool onSignalThread() const;
    // One request, answered on `client`; false closes the connection (garbage, detach).
    bool handle(JNIEnv* jni, Client& client, std::string_view line);
    // "snapshot [now]": asks the recorder for one at the next GC; `now` forces that GC and waits
    // (at most kSnapshotWaitSeconds in all) until the snapshot is taken, forcing another GC when
    // one is missed (another GC came before its walk), kSnapshotTries GCs at most. The reply line.
    static constexpr int kSnapshotWaitSeconds = 120;
    static constexpr int kSnapshotTries = 3;
    std::string takeSnapshot(bool now);
    live::AgentStatus status();
    void suspendProgram(JNIEnv* jni);
    void resumeProgram(JNIEnv* jni);
    void release();  // the hold, with every waiting callback
    void closeAll();

    Recorder& recorder_;
    jvmtiEnv* jvmti_;
    const bool can_suspend_;
    std::string socket_path_, trace_file_;
    int listen_fd_ = -1;
    // A pipe that stop() writes to, so that the control thread's poll ends at once (the JVM's
    // exit waits for that thread; a poll's timeout would cost every exit up to kPollMs).
    int wake_read_ = -1, wake_write_ = -1;
    std::vector<Client> clients_;  // control thread only

    // What clients asked for; read by the GC callback.
    std::atomic<bool> pause_asked_{false};
    std::atomic<bool> when_every_{false}, when_full_{false};
    std::atomic<uint64_t> when_used_above_{0};
    // The hold (see the top of this file), and the GC it was taken at.
    std::atomic<bool> held_{false};
    std::atomic<int64_t> held_gc_{-1};
    std::atomic<uint8_t> held_why_{0};  // live::PauseReason bits
    std::mutex hold_mutex_;
    std::condition_variable hold_cv_;
    // The suspended threads (global references), with program_mutex_.
    std::mutex program_mutex_;
    std::vector<jthread> suspended_;
    std::atomic<bool> paused_{false};
    std::atomic<bool> stopping_{false}, stopped_{false};
    std::atomic<bool> running_{false};  // the control thread runs
    std::thread::id serving_;           // the control thread
    std::atomic<bool> detaching_{false};
    bool owned_ = false;                                    // control thread only, after start
    bool owner_seen_ = false;                               // control thread only
    std::chrono::steady_clock::time_point owner_deadline_;  // an owned recording's wait for "own"
};

}  // namespace memcity::agent
