// The attach client (cli/jvm_attach.h) on a live process: the checks on /proc, the trigger and
// the signal, the socket. The parsers beneath are in jvm_attach_parse.cpp.
#include "cli/jvm_attach.h"

#include <fcntl.h>
#include <grp.h>
#include <poll.h>
#include <pwd.h>
#include <signal.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <sys/syscall.h>
#include <sys/un.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <charconv>
#include <chrono>
#include <cmath>
#include <cstdio>
#include <system_error>
#include <thread>
#include <utility>

namespace memcity::cli {
namespace {

using Clock = std::chrono::steady_clock;

constexpr size_t kMaxNameBytes = 16;                            // HotSpot's AttachOperation::name_length_max
constexpr size_t kMaxArgBytes = 1024;                           // ... and arg_length_max (protocol version 1)
constexpr size_t kMaxReplyBytes = size_t{64} << 20;             // a class histogram of a big heap: some MiB
constexpr size_t kMaxProcFileBytes = size_t{64} << 20;          // maps of a big JVM: some MiB
constexpr size_t kMaxPerfDataBytes = size_t{64} << 20;          // -XX:PerfDataMemorySize, 64 KiB by default
constexpr uint64_t kSigQuitBit = uint64_t{1} << (SIGQUIT - 1);  // in /proc/PID/status Sig* masks
constexpr const char* kCapabilities = "sun.rt.jvmCapabilities";  // first char '1': attach supported

// A file descriptor, closed on destruction.
class Fd {
public:
    Fd() = default;
    explicit Fd(int fd) : fd_(fd) {}
    Fd(Fd&& o) noexcept : fd_(std::exchange(o.fd_, -1)) {}
    Fd& operator=(Fd&& o) noexcept {
        if (this != &o) {
            reset();
            fd_ = std::exchange(o.fd_, -1);
        }
        return *this;
    }
    Fd(const Fd&) = delete;
    Fd& operator=(const Fd&) = delete;
    ~Fd() { reset(); }

    int get() const { return fd_; }
    bool valid() const { return fd_ >= 0; }

private:
    void reset() {
        if (fd_ >= 0) ::close(fd_);
        fd_ = -1;
    }
    int fd_ = -1;
};

std::string errnoText(int err) {
    return std::generic_category().message(err);
}

std::string seconds(double s) {
    char buf[32];
    std::snprintf(buf, sizeof buf, "%g s", s);
    return buf;
}

// ---- /proc ----

struct FileText {
    std::string text;
    int error = 0;  // errno of the failure, 0 when read
};

// Reads a whole (small) file; a file longer than `max_bytes` fails with EFBIG.
FileText readFile(const std::string& path, size_t max_bytes) {
    FileText out;
    Fd fd(::open(path.c_str(), O_RDONLY | O_CLOEXEC | O_NOCTTY));
    if (!fd.valid()) {
        out.error = errno;
        return out;
    }
    char buf[16384];
    for (;;) {
        const ssize_t n = ::read(fd.get(), buf, sizeof buf);
        if (n < 0 && errno == EINTR) continue;
        if (n < 0) {
            out.error = errno;
            return out;
        }
        if (n == 0) return out;
        if (out.text.size() + static_cast<size_t>(n) > max_bytes) {
            out.error = EFBIG;
            return out;
        }
        out.text.append(buf, static_cast<size_t>(n));
    }
}

std::vector<std::string> splitNul(const std::string& s) {
    std::vector<std::string> out;
    size_t i = 0;
    while (i < s.size()) {
        size_t nul = s.find('\0', i);
        if (nul == std::string::npos) nul = s.size();
        out.push_back(s.substr(i, nul - i));
        i = nul + 1;
    }
    return out;
}

// The fields of /proc/PID/status the checks read.
struct ProcStatus {
    char state = '?';
    pid_t tgid = 0;
    pid_t ns_pid = 0;  // innermost; 0 on kernels without NSpid
    uid_t euid = 0;
    gid_t egid = 0;
    uint64_t sig_ign = 0, sig_cgt = 0;
};

template <class T>
bool parseNumber(std::string_view s, T& v, int base = 10) {
    auto [ptr, ec] = std::from_chars(s.data(), s.data() + s.size(), v, base);
    return ec == std::errc() && ptr == s.data() + s.size();
}

std::vector<std::string_view> fields(std::string_view line) {
    std::vector<std::string_view> out;
    size_t i = 0;
    while (i < line.size()) {
        while (i < line.size() && (line[i] == ' ' || line[i] == '\t'))
            ++i;
        size_t j = i;
        while (j < line.size() && line[j] != ' ' && line[j] != '\t')
            ++j;
        if (j > i) out.push_back(line.substr(i, j - i));
        i = j;
    }
    return out;
}

// Calls f(line) for each line of `text`, without its newline.
template <class F>
void forEachLine(std::string_view text, F&& f) {
    for (size_t i = 0; i < text.size();) {
        size_t nl = text.find('\n', i);
        if (nl == std::string_view::npos) nl = text.size();
        f(text.substr(i, nl - i));
        i = nl + 1;
    }
}

ProcStatus parseStatus(std::string_view text) {
    ProcStatus st;
    forEachLine(text, [&](std::string_view line) {
        const size_t colon = line.find(':');
        if (colon == std::string_view::npos) return;
        const std::string_view key = line.substr(0, colon);
        const std::vector<std::string_view> f = fields(line.substr(colon + 1));
        if (f.empty()) return;
        if (key == "State") st.state = f[0][0];
        if (key == "Tgid") parseNumber(f[0], st.tgid);
        if (key == "NSpid") parseNumber(f.back(), st.ns_pid);
        if (key == "Uid" && f.size() >= 2) parseNumber(f[1], st.euid);
        if (key == "Gid" && f.size() >= 2) parseNumber(f[1], st.egid);
        if (key == "SigIgn") parseNumber(f[0], st.sig_ign, 16);
        if (key == "SigCgt") parseNumber(f[0], st.sig_cgt, 16);
    });
    return st;
}

// What /proc/PID/maps says of a JVM (paths as the process sees its own file system).
struct MapsFacts {
    std::string libjvm;     // "" when libjvm.so is not mapped
    std::string perf_data;  // its hsperfdata file; "" with -XX:-UsePerfData or when deleted
    bool openj9 = false;    // OpenJ9 also has a libjvm.so, and another attach mechanism
};

MapsFacts scanMaps(std::string_view maps, pid_t ns_pid) {
    MapsFacts m;
    const std::string perf_leaf = "/" + std::to_string(ns_pid);
    forEachLine(maps, [&](std::string_view line) {
        // address perms offset dev inode path: the path is what follows the fifth field.
        size_t at = 0;
        for (int field = 0; field < 5 && at != std::string_view::npos; ++field) {
            at = line.find_first_not_of(' ', at);
            at = at == std::string_view::npos ? at : line.find(' ', at);
        }
        if (at == std::string_view::npos) return;
        at = line.find_first_not_of(' ', at);
        if (at == std::string_view::npos || line[at] != '/') return;
        std::string_view path = line.substr(at);
        const bool deleted = path.ends_with(" (deleted)");
        if (deleted) path.remove_suffix(10);
        if (path.find("/libj9vm") != std::string_view::npos) m.openj9 = true;
        if (m.libjvm.empty() && path.ends_with("/libjvm.so")) m.libjvm = path;
        if (!deleted && path.find("/hsperfdata_") != std::string_view::npos && path.ends_with(perf_leaf))
            m.perf_data = path;
    });
    return m;
}

std::string userName(uid_t uid) {
    passwd pw{}, *found = nullptr;
    std::vector<char> buf(16384);
    if (getpwuid_r(uid, &pw, buf.data(), buf.size(), &found) != 0 || !found) return {};
    return pw.pw_name;
}

std::string groupName(gid_t gid) {
    group gr{}, *found = nullptr;
    std::vector<char> buf(16384);
    if (getgrgid_r(gid, &gr, buf.data(), buf.size(), &found) != 0 || !found) return {};
    return gr.gr_name;
}

std::string describeUser(uid_t uid) {
    const std::string name = userName(uid);
    return name.empty() ? "uid " + std::to_string(uid)
                        : "user " + name + " (uid " + std::to_string(uid) + ")";
}

std::string describeGroup(gid_t gid) {
    const std::string name = groupName(gid);
    return name.empty() ? "gid " + std::to_string(gid)
                        : "group " + name + " (gid " + std::to_string(gid) + ")";
}

std::string describe(pid_t pid, std::string_view command) {
    std::string s = "process " + std::to_string(pid);
    if (!command.empty()) s += " (" + printable(command, 64) + ")";
    return s;
}
std::string describe(const JvmTarget& t) {
    return describe(t.pid, t.command);
}

std::string procPath(pid_t pid, std::string_view leaf) {
    return "/proc/" + std::to_string(pid) + "/" + std::string(leaf);
}

// The JVM's files, reached through its own root (a container's /tmp, a PrivateTmp).
std::string socketPath(const JvmTarget& t) {
    return procPath(t.pid, "root/tmp/.java_pid") + std::to_string(t.ns_pid);
}
std::string triggerName(const JvmTarget& t) {
    return ".attach_pid" + std::to_string(t.ns_pid);
}

bool isSocket(const std::string& path) {
    struct stat st {};
    return ::stat(path.c_str(), &st) == 0 && S_ISSOCK(st.st_mode);
}

bool catchesSigQuit(const ProcStatus& st) {
    return (st.sig_cgt & kSigQuitBit) && !(st.sig_ign & kSigQuitBit);
}

// Whether attach is enabled: perf data first (what the JVM decided), else its options.
AttachSwitch attachSwitch(pid_t pid, const MapsFacts& maps, const JavaCommandLine& command_line) {
    if (!maps.perf_data.empty()) {
        const FileText perf = readFile(procPath(pid, "root") + maps.perf_data, kMaxPerfDataBytes);
        if (perf.error == 0) {
            const auto bytes =
                std::span(reinterpret_cast<const uint8_t*>(perf.text.data()), perf.text.size());
            const Result<std::string> caps = perfDataString(bytes, kCapabilities);
            if (caps.ok() && !caps->empty())
                return (*caps)[0] == '1' ? AttachSwitch::kEnabled : AttachSwitch::kDisabled;
        }
    }
    return command_line.attach;
}

// ---- The operation ----

// A process to attach to: its checks passed, and a pidfd that keeps the signal on this very process.
struct Session {
    JvmTarget target;
    Fd pidfd;  // invalid on kernels without pidfd_open (before 5.3): kill() then
};

Result<Session> openSession(pid_t pid) {
    Session s;
#ifdef SYS_pidfd_open
    // Opened before the checks: whatever they find is the process the signal would reach.
    if (pid > 0) s.pidfd = Fd(static_cast<int>(::syscall(SYS_pidfd_open, pid, 0)));
#endif
    Result<JvmTarget> target = checkAttachable(pid);
    if (!target.ok()) return target.error();
    s.target = std::move(*target);
    return s;
}

Status sendSigQuit(const Session& s) {
    int rc = -1;
#ifdef SYS_pidfd_send_signal
    if (s.pidfd.valid())
        rc = static_cast<int>(::syscall(SYS_pidfd_send_signal, s.pidfd.get(), SIGQUIT, nullptr, 0));
#endif
    if (!s.pidfd.valid()) rc = ::kill(s.target.pid, SIGQUIT);
    if (rc == 0) return {};
    const int err = errno;
    if (err == ESRCH) return Error{describe(s.target) + " has exited"};
    return Error{describe(s.target) + ": cannot send SIGQUIT: " + errnoText(err)};
}

// The trigger file .attach_pid<PID>, removed on destruction when this client created it.
class TriggerFile {
public:
    TriggerFile() = default;
    TriggerFile(const TriggerFile&) = delete;
    TriggerFile& operator=(const TriggerFile&) = delete;
    ~TriggerFile() {
        if (!ours_.empty()) ::unlink(ours_.c_str());
    }

    // Creates it where HotSpot looks: its working directory, else its /tmp. HotSpot reads the
    // first that exists and starts the listener only if it belongs to its user or root; if the
    // one it reads is someone else's, SIGQUIT would print a thread dump: an error, no signal.
    Status create(const JvmTarget& t) {
        std::string why;
        for (const char* dir : {"cwd/", "root/tmp/"}) {
            const std::string path = procPath(t.pid, dir) + triggerName(t);
            Fd fd(::open(path.c_str(), O_WRONLY | O_CREAT | O_EXCL | O_CLOEXEC | O_NOFOLLOW, 0600));
            const int err = errno;
            if (fd.valid()) {
                ours_ = path;
                return {};
            }
            if (err == EEXIST) {
                struct stat st {};
                if (::stat(path.c_str(), &st) == 0 && (st.st_uid == t.uid || st.st_uid == 0)) return {};
                return Error{describe(t) + ": a " + triggerName(t) + " of another user is in its " +
                             (dir[0] == 'c' ? "working directory" : "/tmp") +
                             ": the JVM would not start its listener (and print a thread dump)"};
            }
            why += std::string(why.empty() ? "" : ", ") + (dir[0] == 'c' ? "working directory: " : "/tmp: ") +
                   errnoText(err);
        }
        return Error{describe(t) + ": cannot create the trigger file " + triggerName(t) + " (" + why + ")"};
    }

    // Leaves the file in place: a SIGQUIT the JVM has not handled yet still finds it.
    void keep() { ours_.clear(); }

private:
    std::string ours_;
};

// Starts the JVM's attach listener and waits for its socket until `deadline`. One signal only
// (the JDK's own client sends a second half way): HotSpot ignores SIGQUIT while its listener
// starts, but once it runs, a second one that crossed the socket's appearance prints a thread dump.
Status startListener(const Session& s, Clock::time_point deadline, double timeout_s) {
    const JvmTarget& t = s.target;
    TriggerFile trigger;
    if (Status made = trigger.create(t); !made) return made;
    // Only to a process that catches SIGQUIT now (one that does not would die of it).
    const FileText status = readFile(procPath(t.pid, "status"), kMaxProcFileBytes);
    if (status.error != 0) return Error{describe(t) + " has exited"};
    if (!catchesSigQuit(parseStatus(status.text)))
        return Error{describe(t) + " no longer catches SIGQUIT: its attach listener cannot be started"};
    if (Status sig = sendSigQuit(s); !sig) return sig;

    const std::string socket = socketPath(t);
    for (std::chrono::milliseconds step(5); !isSocket(socket);
         step = std::min(step * 2, std::chrono::milliseconds(100))) {
        if (Clock::now() >= deadline) {
            // The signal may still be pending (a JVM paused, swapping): without the file it would
            // print a thread dump when it comes.
            trigger.keep();
            return Error{describe(t) + ": no attach listener within " + seconds(timeout_s) +
                         " (its socket /tmp/.java_pid" + std::to_string(t.ns_pid) +
                         " did not appear after SIGQUIT; " + triggerName(t) +
                         " is left in place, so that the signal cannot print a thread dump later)"};
        }
        std::this_thread::sleep_for(std::min<Clock::duration>(step, deadline - Clock::now()));
    }
    return {};
}

int msUntil(Clock::time_point deadline) {
    const auto left = std::chrono::ceil<std::chrono::milliseconds>(deadline - Clock::now()).count();
    return static_cast<int>(std::clamp<decltype(left)>(left, 0, 1 << 30));
}

// Waits until `fd` is ready for `events`; false on timeout.
bool waitFor(int fd, short events, Clock::time_point deadline) {
    for (;;) {
        pollfd p{fd, events, 0};
        const int n = ::poll(&p, 1, msUntil(deadline));
        if (n > 0) return true;
        if (n == 0) return false;
        if (errno != EINTR) return true;  // let the next call report it
    }
}

Result<Fd> connectTo(const JvmTarget& t, const std::string& path, Clock::time_point deadline,
                     double timeout_s) {
    sockaddr_un addr{};
    addr.sun_family = AF_UNIX;
    if (path.size() >= sizeof addr.sun_path) return Error{describe(t) + ": socket path too long: " + path};
    path.copy(addr.sun_path, path.size());
    Fd s(::socket(AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC | SOCK_NONBLOCK, 0));
    if (!s.valid()) return Error{describe(t) + ": cannot create a socket: " + errnoText(errno)};
    for (;;) {
        if (::connect(s.get(), reinterpret_cast<const sockaddr*>(&addr), sizeof addr) == 0) break;
        const int err = errno;
        if (err == EINTR) continue;
        if (err == EAGAIN && Clock::now() < deadline) {  // its backlog is full: it is busy
            std::this_thread::sleep_for(std::chrono::milliseconds(10));
            continue;
        }
        if (err == EAGAIN)
            return Error{describe(t) + ": no connection within " + seconds(timeout_s) + " (listener busy)"};
        if (err == ECONNREFUSED)
            return Error{describe(t) + ": connection refused on /tmp/.java_pid" + std::to_string(t.ns_pid) +
                         " (a stale socket: its attach listener is gone)"};
        return Error{describe(t) + ": cannot connect to " + path + ": " + errnoText(err)};
    }
    // The socket must be the JVM's own: a file in /tmp could be anyone's.
    ucred peer{};
    socklen_t len = sizeof peer;
    if (::getsockopt(s.get(), SOL_SOCKET, SO_PEERCRED, &peer, &len) != 0)
        return Error{describe(t) + ": cannot read the socket's peer: " + errnoText(errno)};
    if (peer.uid != t.uid || (peer.pid != 0 && peer.pid != t.pid))
        return Error{describe(t) + ": the socket /tmp/.java_pid" + std::to_string(t.ns_pid) +
                     " belongs to process " + std::to_string(peer.pid) + " of uid " +
                     std::to_string(peer.uid) + ", not to the JVM"};
    return s;
}

Status sendAll(const JvmTarget& t, int fd, std::string_view data, Clock::time_point deadline,
               double timeout_s) {
    while (!data.empty()) {
        const ssize_t n = ::send(fd, data.data(), data.size(), MSG_NOSIGNAL);
        if (n > 0) {
            data.remove_prefix(static_cast<size_t>(n));
            continue;
        }
        const int err = errno;
        if (n < 0 && err == EINTR) continue;
        if (n < 0 && err == EAGAIN && waitFor(fd, POLLOUT, deadline)) continue;
        if (n < 0 && err == EAGAIN)
            return Error{describe(t) + ": could not send the operation within " + seconds(timeout_s)};
        return Error{describe(t) + ": cannot send the operation: " + errnoText(err)};
    }
    return {};
}

Result<std::string> readAll(const JvmTarget& t, int fd, std::string_view command, Clock::time_point deadline,
                            double timeout_s) {
    std::string out;
    char buf[16384];
    for (;;) {
        const ssize_t n = ::read(fd, buf, sizeof buf);
        if (n == 0) return out;
        if (n > 0) {
            if (out.size() + static_cast<size_t>(n) > kMaxReplyBytes)
                return Error{describe(t) + ": the reply to '" + std::string(command) + "' is longer than " +
                             std::to_string(kMaxReplyBytes >> 20) + " MiB"};
            out.append(buf, static_cast<size_t>(n));
            continue;
        }
        const int err = errno;
        if (err == EINTR) continue;
        if (err == EAGAIN && waitFor(fd, POLLIN, deadline)) continue;
        if (err == EAGAIN)
            return Error{describe(t) + ": no " + (out.empty() ? "" : "complete ") + "reply to '" +
                         printable(command, 32) + "' within " + seconds(timeout_s)};
        return Error{describe(t) + ": cannot read the reply to '" + printable(command, 32) +
                     "': " + errnoText(err)};
    }
}

Result<AttachReply> runOperation(const Session& s, std::string_view command,
                                 const std::array<std::string, 3>& args, double timeout_s) {
    const JvmTarget& t = s.target;
    if (!(timeout_s > 0) || !std::isfinite(timeout_s))
        return Error{describe(t) + ": the attach timeout must be a positive number of seconds"};
    if (command.empty() || command.size() > kMaxNameBytes || command.find('\0') != std::string_view::npos)
        return Error{describe(t) + ": the attach operation '" + printable(command, 32) +
                     "' is not a name of 1 to " + std::to_string(kMaxNameBytes) + " bytes"};
    for (const std::string& a : args)
        if (a.size() > kMaxArgBytes || a.find('\0') != std::string::npos)
            return Error{describe(t) + ": an argument of '" + printable(command, 32) + "' is longer than " +
                         std::to_string(kMaxArgBytes) + " bytes or holds a NUL: \"" + printable(a, 60) +
                         "\""};
    const auto wait =
        std::chrono::duration_cast<Clock::duration>(std::chrono::duration<double>(std::min(timeout_s, 1e6)));

    const std::string socket = socketPath(t);
    if (!isSocket(socket))
        if (Status started = startListener(s, Clock::now() + wait, timeout_s); !started)
            return started.error();
    Result<Fd> fd = connectTo(t, socket, Clock::now() + wait, timeout_s);
    if (!fd.ok()) return fd.error();

    // Version 1: "1", the name and three arguments, each NUL-terminated.
    std::string request = "1";
    request += '\0';
    for (std::string_view part :
         {command, std::string_view(args[0]), std::string_view(args[1]), std::string_view(args[2])}) {
        request += part;
        request += '\0';
    }
    if (Status sent = sendAll(t, fd->get(), request, Clock::now() + wait, timeout_s); !sent)
        return sent.error();
    Result<std::string> raw = readAll(t, fd->get(), command, Clock::now() + wait, timeout_s);
    if (!raw.ok()) return raw.error();
    Result<AttachReply> reply = parseAttachReply(*raw);
    if (!reply.ok())
        return Error{describe(t) + ": " + reply.error().message + " to '" + printable(command, 32) + "'"};
    return reply;
}

}  // namespace

Result<JvmTarget> checkAttachable(pid_t pid) {
    if (pid <= 0) return Error{"process " + std::to_string(pid) + " does not exist (not a process id)"};
    const FileText status_file = readFile(procPath(pid, "status"), kMaxProcFileBytes);
    if (status_file.error == ENOENT || status_file.error == ESRCH)
        return Error{"process " + std::to_string(pid) + " does not exist"};
    if (status_file.error != 0)
        return Error{"process " + std::to_string(pid) + ": cannot read /proc/" + std::to_string(pid) +
                     "/status: " + errnoText(status_file.error)};
    const ProcStatus st = parseStatus(status_file.text);

    JvmTarget t;
    t.pid = pid;
    t.ns_pid = st.ns_pid > 0 ? st.ns_pid : pid;
    t.uid = st.euid;
    t.gid = st.egid;
    t.command = readFile(procPath(pid, "comm"), 4096).text;
    while (!t.command.empty() && t.command.back() == '\n')
        t.command.pop_back();
    const std::string who = describe(t);
    if (st.tgid != 0 && st.tgid != pid)
        return Error{who + " is a thread of process " + std::to_string(st.tgid) + ": give the process id"};
    if (st.state == 'Z' || st.state == 'X') return Error{who + " has exited"};

    // A JVM maps libjvm.so. /proc/PID/maps of another user's process is unreadable: that
    // process is not ours, which the check after this one says.
    const FileText maps_file = readFile(procPath(pid, "maps"), kMaxProcFileBytes);
    const uid_t me = geteuid();
    if (maps_file.error != 0 && t.uid == me)
        return Error{who + ": cannot read /proc/" + std::to_string(pid) +
                     "/maps: " + errnoText(maps_file.error)};
    const MapsFacts maps = scanMaps(maps_file.text, t.ns_pid);
    if (maps_file.error == 0) {
        if (maps.openj9)
            return Error{who + " is an OpenJ9 virtual machine: memcity attaches only to HotSpot"};
        if (maps.libjvm.empty()) return Error{who + " is not a Java virtual machine"};
    }
    t.libjvm = maps.libjvm;

    // Ours only, even for root: an agent runs with the JVM's rights, and loads code into the
    // program of another user. HotSpot itself answers only its own uid and gid, or root.
    if (t.uid != me)
        return Error{who + " belongs to " + describeUser(t.uid) +
                     ": memcity attaches only to your own processes"};
    if (me != 0 && t.gid != getegid())
        return Error{who + " runs as " + describeGroup(t.gid) + " and memcity as " +
                     describeGroup(getegid()) + ": a JVM answers only its own user and group"};

    const FileText cmdline = readFile(procPath(pid, "cmdline"), kMaxProcFileBytes);
    const FileText environ_file = readFile(procPath(pid, "environ"), kMaxProcFileBytes);
    JavaCommandLine command_line = parseJavaCommandLine(splitNul(cmdline.text), splitNul(environ_file.text));
    if (cmdline.error != 0 || environ_file.error != 0) command_line.attach = AttachSwitch::kUnknown;
    t.main_class = command_line.main_class;

    const AttachSwitch attach = attachSwitch(pid, maps, command_line);
    if (attach == AttachSwitch::kDisabled)
        return Error{who + " was started with -XX:+DisableAttachMechanism: it accepts no agent"};
    t.listener_running = isSocket(socketPath(t));
    if (!t.listener_running) {
        // Starting the listener takes a SIGQUIT: sent only where it cannot print a thread dump
        // (attach surely enabled) nor kill (the signal caught).
        if (attach == AttachSwitch::kUnknown)
            return Error{who +
                         ": memcity cannot tell whether it was started with -XX:+DisableAttachMechanism "
                         "(no perf data, and options from a file or a launcher other than java), so it "
                         "sends no SIGQUIT to start its attach listener"};
        if (st.state == 'T' || st.state == 't')
            return Error{who +
                         " is stopped (SIGSTOP, or a debugger): its attach listener cannot be started now"};
        if (!catchesSigQuit(st))
            return Error{
                who +
                " does not catch SIGQUIT (started with -Xrs, or still starting): its attach listener "
                "cannot be started"};
    }
    return t;
}

Result<AttachReply> attachOperation(pid_t pid, std::string_view command,
                                    const std::array<std::string, 3>& args, double timeout_s) {
    Result<Session> s = openSession(pid);
    if (!s.ok()) return s.error();
    return runOperation(*s, command, args, timeout_s);
}

Result<int> loadAgent(pid_t pid, const std::string& library, const std::string& options, double timeout_s) {
    if (!library.starts_with("/"))
        return Error{"process " + std::to_string(pid) +
                     ": the agent library must be an absolute path, not \"" + printable(library, 100) + "\""};
    Result<Session> s = openSession(pid);
    if (!s.ok()) return s.error();
    // "load" LIBRARY IS_ABSOLUTE OPTIONS
    Result<AttachReply> reply = runOperation(*s, "load", {library, "true", options}, timeout_s);
    if (!reply.ok()) return reply.error();
    return agentReturnCode(describe(s->target), *reply);
}

}  // namespace memcity::cli
