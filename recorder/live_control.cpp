#include "live_control.h"

#include <fcntl.h>
#include <poll.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <sys/un.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <chrono>
#include <cstdio>
#include <cstring>
#include <string>
#include <string_view>
#include <thread>

#include "jvmti_util.h"
#include "recorder.h"
#include "tags.h"

namespace memcity::agent {
namespace {

constexpr int kPollMs = 100;  // how often the control thread looks at its stop flag
constexpr size_t kMaxClients = 16;

void sendLine(int fd, const std::string& line) {
    const std::string out = line + "\n";
    for (size_t sent = 0; sent < out.size();) {
        const ssize_t n = ::send(fd, out.data() + sent, out.size() - sent, MSG_NOSIGNAL | MSG_DONTWAIT);
        if (n < 0 && errno == EINTR) continue;
        if (n <= 0) return;  // a client that does not read loses its replies
        sent += static_cast<size_t>(n);
    }
}

// Whether the peer of a connected Unix socket runs as `uid`.
bool peerIs(int fd, uid_t uid) {
    ucred cred{};
    socklen_t len = sizeof cred;
    return ::getsockopt(fd, SOL_SOCKET, SO_PEERCRED, &cred, &len) == 0 && len == sizeof cred &&
           cred.uid == uid;
}

// Threads that keep running while the program is paused: the agent's own, and the JVM's threads
// that answer the outside (signals such as Ctrl-C, and the attach mechanism).
bool keepsRunning(jvmtiEnv* jvmti, JNIEnv* jni, jthread thread) {
    jlong tag = 0;
    if (jvmti->GetTag(thread, &tag) == JVMTI_ERROR_NONE && tag == kAgentObjectTag) return true;
    jvmtiThreadInfo info{};
    if (jvmti->GetThreadInfo(thread, &info) != JVMTI_ERROR_NONE) return true;
    const std::string name = info.name ? info.name : "";
    if (info.name) jvmti->Deallocate(reinterpret_cast<unsigned char*>(info.name));
    if (info.thread_group) jni->DeleteLocalRef(info.thread_group);
    if (info.context_class_loader) jni->DeleteLocalRef(info.context_class_loader);
    return name == "Signal Dispatcher" || name == "Attach Listener";
}

}  // namespace

LiveControl::LiveControl(Recorder& recorder, jvmtiEnv* jvmti, bool can_suspend)
    : recorder_(recorder), jvmti_(jvmti), can_suspend_(can_suspend) {}

LiveControl::~LiveControl() {
    closeAll();
    // Not in closeAll, which the control thread runs as it ends while stop() may still write.
    for (int fd : {wake_read_, wake_write_})
        if (fd >= 0) ::close(fd);
}

Status LiveControl::start(JNIEnv* jni, const std::string& trace_file, bool owned) {
    trace_file_ = trace_file;
    owned_ = owned;
    owner_deadline_ = std::chrono::steady_clock::now() + std::chrono::seconds(kOwnerWaitSeconds);
    const uid_t uid = ::geteuid();
    const std::string dir = live::socketDirectory(uid);
    if (Status s = live::ensurePrivateDirectory(dir, uid); !s) return s;
    socket_path_ = live::socketPath(uid, ::getpid());
    sockaddr_un addr{};
    addr.sun_family = AF_UNIX;
    if (socket_path_.size() >= sizeof addr.sun_path)
        return Error{socket_path_ + ": the path is too long for a socket"};
    std::memcpy(addr.sun_path, socket_path_.c_str(), socket_path_.size() + 1);
    listen_fd_ = ::socket(AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC | SOCK_NONBLOCK, 0);
    if (listen_fd_ < 0) return Error{std::string("cannot create a socket: ") + std::strerror(errno)};
    ::unlink(socket_path_.c_str());  // a JVM that had this pid before, and died
    const mode_t old_mask = ::umask(077);
    const int bound = ::bind(listen_fd_, reinterpret_cast<const sockaddr*>(&addr), sizeof addr);
    ::umask(old_mask);
    if (bound != 0 || ::listen(listen_fd_, 8) != 0) {
        const std::string why = std::strerror(errno);
        closeAll();
        return Error{socket_path_ + ": cannot listen: " + why};
    }
    int wake[2];
    if (::pipe2(wake, O_CLOEXEC | O_NONBLOCK) == 0) wake_read_ = wake[0], wake_write_ = wake[1];
    running_ = true;
    if (Status s = recorder_.startAgentThread(
            jni, "memcity-control",
            [](jvmtiEnv*, JNIEnv* env, void* arg) { static_cast<LiveControl*>(arg)->serve(env); }, this);
        !s) {
        running_ = false;
        closeAll();
        return s;
    }
    return {};
}

void LiveControl::closeAll() {
    for (Client& c : clients_)
        ::close(c.fd);
    clients_.clear();
    if (listen_fd_ >= 0) {
        ::close(listen_fd_);
        listen_fd_ = -1;
        ::unlink(socket_path_.c_str());
    }
}

void LiveControl::stop(JNIEnv* jni) {
    stopping_ = true;
    pause_asked_ = false;
    when_every_ = when_full_ = false;
    when_used_above_ = 0;
    resumeProgram(jni);
    if (std::this_thread::get_id() == serving_) return;  // a detach: serve() ends on its own
    // The control thread closes the connections and the socket as it ends; woken, at once.
    if (wake_write_ >= 0) {
        const char byte = 1;
        (void)!::write(wake_write_, &byte, 1);
    }
    while (running_.load(std::memory_order_acquire))
        ::usleep(1000);
    closeAll();
}

// ---- The program's hold and suspension ----

void LiveControl::onGcEnd(uint32_t gc, bool full, uint64_t used_after) {
    if (stopping_.load(std::memory_order_relaxed) || held_.load(std::memory_order_relaxed)) return;
    const uint64_t above = when_used_above_.load(std::memory_order_relaxed);
    uint8_t why = 0;
    if (pause_asked_.load(std::memory_order_relaxed)) why |= live::kPauseAsked;
    if (full && when_full_.load(std::memory_order_relaxed)) why |= live::kPauseFull;
    if (above && used_after > above) why |= live::kPauseUsed;
    if (when_every_.load(std::memory_order_relaxed)) why |= live::kPauseEvery;
    if (!why) return;
    pause_asked_.store(false, std::memory_order_relaxed);
    held_gc_.store(gc, std::memory_order_relaxed);
    held_why_.store(why, std::memory_order_relaxed);
    held_.store(true, std::memory_order_release);
}

bool LiveControl::onSignalThread() const {
    jthread current = nullptr;
    if (jvmti_->GetCurrentThread(&current) != JVMTI_ERROR_NONE || !current) return false;
    jvmtiThreadInfo info{};
    const bool named = jvmti_->GetThreadInfo(current, &info) == JVMTI_ERROR_NONE;
    // The dispatcher makes a thread "SIGINT handler" (jdk.internal.misc.Signal) to run the
    // handler: a sampled recording may see no allocation of the first, but sees the second start.
    const std::string_view name = named && info.name ? info.name : "";
    const bool dispatcher =
        name == "Signal Dispatcher" || (name.starts_with("SIG") && name.ends_with(" handler"));
    if (named && info.name) jvmti_->Deallocate(reinterpret_cast<unsigned char*>(info.name));
    // (Its thread group and class loader, local references, go when the callback returns.)
    return dispatcher;
}

void LiveControl::waitSlow(JNIEnv* jni) {
    if (onSignalThread()) {
        // A signal for the program (Ctrl-C, SIGTERM): its handler's thread is being made. The
        // program runs, so that the handler can end it (the recording finishes with it).
        pause_asked_ = false;
        when_every_ = when_full_ = false;
        when_used_above_ = 0;
        resumeProgram(jni);
        return;
    }
    std::unique_lock lock(hold_mutex_);
    hold_cv_.wait(lock, [&] { return !held_.load(std::memory_order_acquire); });
}

void LiveControl::release() {
    {
        std::lock_guard lock(hold_mutex_);
        held_.store(false, std::memory_order_release);
        held_gc_.store(-1, std::memory_order_relaxed);
    }
    hold_cv_.notify_all();
}

void LiveControl::afterGcsWritten(JNIEnv* jni, uint64_t gcs_written) {
    if (!held_.load(std::memory_order_acquire) || paused_.load(std::memory_order_acquire)) return;
    // The GC it is held at is written (its heap complete and on disk): the program stops.
    if (gcs_written <= static_cast<uint64_t>(held_gc_.load(std::memory_order_relaxed))) return;
    suspendProgram(jni);
}

void LiveControl::suspendProgram(JNIEnv* jni) {
    std::lock_guard lock(program_mutex_);
    if (paused_ || stopping_) return;
    if (can_suspend_) {
        jint n = 0;
        JvmtiPtr<jthread> threads(jvmti_);
        if (jvmti_->GetAllThreads(&n, threads.out()) == JVMTI_ERROR_NONE) {
            std::vector<jthread> chosen;
            for (jint i = 0; i < n; ++i) {
                jthread t = threads[static_cast<size_t>(i)];
                if (jni->IsSameObject(t, nullptr) || keepsRunning(jvmti_, jni, t))
                    jni->DeleteLocalRef(t);
                else
                    chosen.push_back(t);
            }
            std::vector<jvmtiError> results(chosen.size(), JVMTI_ERROR_NONE);
            if (!chosen.empty())
                jvmti_->SuspendThreadList(static_cast<jint>(chosen.size()), chosen.data(), results.data());
            for (size_t i = 0; i < chosen.size(); ++i) {
                // A thread suspended by someone else (a debugger) stays theirs to resume.
                if (results[i] == JVMTI_ERROR_NONE)
                    suspended_.push_back(static_cast<jthread>(jni->NewGlobalRef(chosen[i])));
                jni->DeleteLocalRef(chosen[i]);
            }
        }
    }
    paused_ = true;
}

void LiveControl::resumeProgram(JNIEnv* jni) {
    {
        std::lock_guard lock(program_mutex_);
        if (!suspended_.empty()) {
            std::vector<jvmtiError> results(suspended_.size());
            jvmti_->ResumeThreadList(static_cast<jint>(suspended_.size()), suspended_.data(), results.data());
            for (jthread t : suspended_)
                jni->DeleteGlobalRef(t);
            suspended_.clear();
        }
        paused_ = false;
    }
    release();
}

// ---- The channel ----

live::AgentStatus LiveControl::status() {
    live::AgentStatus s;
    s.pid = ::getpid();
    s.gcs = recorder_.gcsFinished();
    s.can_pause = can_suspend_;
    s.file = trace_file_;
    s.when.every_gc = when_every_.load();
    s.when.full_gc = when_full_.load();
    s.when.used_above = when_used_above_.load();
    s.snapshots = recorder_.snapshotsTaken();
    s.snapshot_gc = recorder_.lastSnapshotGc();
    s.snapshot_asked = recorder_.snapshotAsked();
    if (detaching_) {
        s.state = live::ProgramState::kDetached;
    } else if (paused_) {
        s.state = live::ProgramState::kPaused;
        s.paused_gc = held_gc_.load();
        s.why = held_why_.load();
    } else if (held_ || pause_asked_) {
        s.state = live::ProgramState::kPausing;  // held at a GC not written yet, or waiting for one
    }
    return s;
}

bool LiveControl::handle(JNIEnv* jni, Client& client, std::string_view line) {
    auto request = live::parseRequest(line);
    if (!request) {
        sendLine(client.fd, "error " + request.error().message);
        return false;
    }
    using live::Command;
    switch (request->command) {
        case Command::kHello:
        case Command::kStatus: sendLine(client.fd, live::formatStatus(status())); return true;
        case Command::kPause:
        case Command::kStep:
            if (!can_suspend_) {
                sendLine(client.fd,
                         "error this JVM does not let the agent suspend threads (another agent holds "
                         "can_suspend)");
                return true;
            }
            if (request->command == Command::kStep) resumeProgram(jni);
            if (!paused_) pause_asked_ = true;
            sendLine(client.fd, "ok");
            return true;
        case Command::kResume:
            pause_asked_ = false;
            resumeProgram(jni);
            sendLine(client.fd, "ok");
            return true;
        case Command::kWhen:
            if (request->when.any() && !can_suspend_) {
                sendLine(client.fd, "error this JVM does not let the agent suspend threads");
                return true;
            }
            when_every_ = request->when.every_gc;
            when_full_ = request->when.full_gc;
            when_used_above_ = request->when.used_above;
            sendLine(client.fd, "ok");
            return true;
        case Command::kSnapshot: sendLine(client.fd, takeSnapshot(request->now)); return true;
        case Command::kDetach:
            sendLine(client.fd, "ok");
            detaching_ = true;
            return false;
        case Command::kOwn:
            if (!owned_ || owner_seen_) {
                sendLine(client.fd, owned_ ? "error the recording has its owner already"
                                           : "error this recording has no owner (memcity attach gives one)");
                return true;
            }
            client.owner = owner_seen_ = true;
            sendLine(client.fd, "ok");
            return true;
    }
    return false;
}

std::string LiveControl::takeSnapshot(bool now) {
    if (!now) {
        recorder_.askSnapshot();
        return "ok";
    }
    // A forced GC would hold a paused program again at its end, before the agent walks it.
    if (paused_ || held_)
        return "error the program is paused: 'snapshot' (without now) takes one at the GC after the next "
               "step";
    const uint64_t taken = recorder_.snapshotsTaken();
    uint64_t missed = recorder_.snapshotsMissed();
    using Clock = std::chrono::steady_clock;
    const auto deadline = Clock::now() + std::chrono::seconds(kSnapshotWaitSeconds);
    // A walk is missed when the program's own GC comes before it starts (a busy program, one that
    // calls System.gc()): asked for now, it is asked again, a few times.
    for (int tries = 1;; ++tries) {
        recorder_.askSnapshot();
        if (jvmtiError err = jvmti_->ForceGarbageCollection(); err != JVMTI_ERROR_NONE)
            return "error the JVM refused to collect (JVMTI error " + std::to_string(err) + ")";
        // The agent thread writes that GC and walks its heap: a large heap takes seconds.
        bool again = false;
        while (!again && Clock::now() < deadline && !stopping_.load(std::memory_order_acquire)) {
            if (recorder_.snapshotsTaken() != taken) return "ok";
            if (const uint64_t now_missed = recorder_.snapshotsMissed(); now_missed != missed) {
                if (tries == kSnapshotTries)
                    return std::string("error the snapshot was missed ") + std::to_string(tries) +
                           " times: " + recorder_.lastSnapshotMiss();
                missed = now_missed;
                again = true;
            }
            if (!again) std::this_thread::sleep_for(std::chrono::milliseconds(10));
        }
        if (!again) break;
    }
    return "error no snapshot within " + std::to_string(kSnapshotWaitSeconds) +
           " s of the forced GC (it is still asked for)";
}

void LiveControl::serve(JNIEnv* jni) {
    serving_ = std::this_thread::get_id();
    const uid_t uid = ::geteuid();
    while (!stopping_.load(std::memory_order_acquire) && !detaching_.load(std::memory_order_acquire)) {
        std::vector<pollfd> fds;
        fds.push_back({listen_fd_, POLLIN, 0});
        for (const Client& c : clients_)
            fds.push_back({c.fd, POLLIN, 0});
        fds.push_back({wake_read_, POLLIN, 0});  // last: stop() (a negative fd is left out)
        // An owned recording whose owner never came (the client died while the agent loaded).
        if (owned_ && !owner_seen_ && std::chrono::steady_clock::now() > owner_deadline_) {
            std::fprintf(stderr,
                         "memcity agent: no client claimed the recording within %d s of attach: it stops\n",
                         kOwnerWaitSeconds);
            detaching_ = true;
            break;
        }
        const int ready = ::poll(fds.data(), fds.size(), kPollMs);
        if (ready <= 0 || fds.back().revents) continue;  // the loop's condition sees stopping_
        fds.pop_back();
        if (fds[0].revents & POLLIN) {
            const int fd = ::accept4(listen_fd_, nullptr, nullptr, SOCK_CLOEXEC | SOCK_NONBLOCK);
            // Only the recording user: the directory keeps others out, the credentials check it.
            if (fd >= 0 && (!peerIs(fd, uid) || clients_.size() >= kMaxClients))
                ::close(fd);
            else if (fd >= 0)
                clients_.push_back({fd, {}});
        }
        bool lost = false;
        for (size_t i = 1; i < fds.size(); ++i) {
            if (!(fds[i].revents & (POLLIN | POLLHUP | POLLERR))) continue;
            Client& c = clients_[i - 1];
            char buf[512];
            const ssize_t n = ::recv(c.fd, buf, sizeof buf, 0);
            bool keep = n > 0 || (n < 0 && (errno == EAGAIN || errno == EINTR));
            if (n > 0) c.in.append(buf, static_cast<size_t>(n));
            for (size_t nl; keep && (nl = c.in.find('\n')) != std::string::npos;) {
                const std::string line = c.in.substr(0, nl);
                c.in.erase(0, nl + 1);
                keep = handle(jni, c, line);
            }
            if (keep && c.in.size() >= live::kMaxLine) {
                sendLine(c.fd, "error a request longer than " + std::to_string(live::kMaxLine) + " bytes");
                keep = false;
            }
            if (!keep) {
                // The owner gone (whatever ended it): the recording ends, as at a detach.
                if (c.owner && !detaching_) {
                    std::fprintf(stderr, "memcity agent: the recording's client went away: it stops\n");
                    detaching_ = true;
                }
                ::close(c.fd);
                c.fd = -1;
                lost = true;
            }
        }
        if (lost) {
            clients_.erase(
                std::remove_if(clients_.begin(), clients_.end(), [](const Client& c) { return c.fd < 0; }),
                clients_.end());
            // Nobody left to resume it: the program goes on, and pauses at no condition.
            if (clients_.empty() && !detaching_) {
                pause_asked_ = false;
                when_every_ = when_full_ = false;
                when_used_above_ = 0;
                resumeProgram(jni);
            }
        }
    }
    if (detaching_ && !stopping_) {
        resumeProgram(jni);
        recorder_.detach(jni);  // stops this control: stopping_ is set, and the socket closed
    }
    closeAll();
    running_.store(false, std::memory_order_release);
}

}  // namespace memcity::agent
