#include "live/control_client.h"

#include <poll.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <sys/un.h>
#include <unistd.h>

#include <cerrno>
#include <chrono>
#include <cstdio>
#include <cstring>
#include <thread>

namespace memcity::live {
namespace {

using Clock = std::chrono::steady_clock;

int remainingMs(Clock::time_point deadline) {
    const auto left = std::chrono::duration_cast<std::chrono::milliseconds>(deadline - Clock::now()).count();
    return left <= 0 ? 0 : static_cast<int>(left);
}

Clock::time_point deadlineAfter(double seconds) {
    return Clock::now() + std::chrono::duration_cast<Clock::duration>(std::chrono::duration<double>(seconds));
}

bool isControl(char c) {
    return static_cast<unsigned char>(c) < 0x20 || static_cast<unsigned char>(c) == 0x7f;
}

}  // namespace

std::string escapeControls(std::string_view text) {
    std::string out;
    for (char c : text) {
        if (!isControl(c)) {
            out += c;
            continue;
        }
        char hex[8];
        std::snprintf(hex, sizeof hex, "\\x%02x", static_cast<unsigned>(static_cast<unsigned char>(c)));
        out += hex;
    }
    return out;
}

Status checkAgentTrace(const std::string& path) {
    struct stat st {};
    if (::lstat(path.c_str(), &st) != 0) return Error{escapeControls(path) + ": " + std::strerror(errno)};
    if (!S_ISREG(st.st_mode))
        return Error{escapeControls(path) + ": not a regular file (a link or something else)"};
    if (st.st_uid != ::geteuid())
        return Error{escapeControls(path) + ": belongs to uid " + std::to_string(st.st_uid) + ", not to you"};
    return {};
}

Status checkOwnSocketPath(const std::string& socket_path) {
    const std::string dir = socketDirectory(::geteuid()) + "/";
    const std::string_view name =
        std::string_view(socket_path).substr(socket_path.starts_with(dir) ? dir.size() : socket_path.size());
    const std::string_view digits = name.ends_with(".sock") ? name.substr(0, name.size() - 5) : "";
    if (digits.empty() || digits.find_first_not_of("0123456789") != std::string_view::npos)
        return Error{escapeControls(socket_path) + ": not a control socket in " + dir +
                     " (memcity connects only to its own)"};
    return {};
}

Result<ControlClient> ControlClient::connect(const std::string& socket_path, double timeout_s) {
    const auto deadline = deadlineAfter(timeout_s);
    sockaddr_un addr{};
    addr.sun_family = AF_UNIX;
    if (socket_path.size() >= sizeof addr.sun_path)
        return Error{socket_path + ": the socket path is too long"};
    std::memcpy(addr.sun_path, socket_path.c_str(), socket_path.size() + 1);
    // Only a socket in a directory nobody else can write to is the agent's: another user's
    // socket, or one under a link they made, could answer in its name.
    const size_t slash = socket_path.rfind('/');
    const std::string dir = slash == std::string::npos ? std::string(".")
                            : slash == 0               ? std::string("/")
                                                       : socket_path.substr(0, slash);
    if (Status s = checkPrivateDirectory(dir, ::geteuid()); !s.ok())
        return Error{socket_path +
                     ": refused, its directory is not a private one of yours: " + s.error().message};
    const int fd = ::socket(AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC | SOCK_NONBLOCK, 0);
    if (fd < 0) return Error{socket_path + ": cannot create a socket: " + std::strerror(errno)};
    for (;;) {
        if (::connect(fd, reinterpret_cast<const sockaddr*>(&addr), sizeof addr) == 0) break;
        const int err = errno;
        if (err == EINTR) continue;
        // A listener whose queue is full (it does not accept): tried again until the deadline.
        if (err == EAGAIN && remainingMs(deadline) > 0) {
            std::this_thread::sleep_for(std::chrono::milliseconds(10));
            continue;
        }
        ::close(fd);
        if (err == EAGAIN)
            return Error{socket_path + ": the agent did not accept the connection within " +
                         std::to_string(timeout_s) + " s"};
        if (err == ENOENT || err == ECONNREFUSED)
            return Error{socket_path +
                         ": no recording agent listens there (the program ended, or is not recorded)"};
        return Error{socket_path + ": cannot connect: " + std::strerror(err)};
    }
    // The peer, whatever the directory: our own user's process (a JVM memcity may attach to).
    ucred peer{};
    socklen_t peer_size = sizeof peer;
    if (::getsockopt(fd, SOL_SOCKET, SO_PEERCRED, &peer, &peer_size) != 0 || peer.uid != ::geteuid()) {
        const uid_t uid = peer.uid;
        ::close(fd);
        return Error{socket_path + ": refused, the peer runs as uid " + std::to_string(uid) +
                     ", not as you (uid " + std::to_string(::geteuid()) + ")"};
    }
    ControlClient client(fd, socket_path);
    auto hello = client.call({Command::kHello, {}}, timeout_s);
    if (!hello) return hello.error();
    if (hello->version != kProtocolVersion)
        return Error{socket_path + ": the agent speaks version " + std::to_string(hello->version) +
                     " of the control protocol, this memcity " + std::to_string(kProtocolVersion)};
    return client;
}

ControlClient::ControlClient(ControlClient&& other) noexcept
    : fd_(other.fd_), path_(std::move(other.path_)), buffer_(std::move(other.buffer_)), last_(other.last_) {
    other.fd_ = -1;
}

ControlClient& ControlClient::operator=(ControlClient&& other) noexcept {
    if (this != &other) {
        if (fd_ >= 0) ::close(fd_);
        fd_ = other.fd_;
        path_ = std::move(other.path_);
        buffer_ = std::move(other.buffer_);
        last_ = other.last_;
        other.fd_ = -1;
    }
    return *this;
}

ControlClient::~ControlClient() {
    if (fd_ >= 0) ::close(fd_);
}

Result<std::string> ControlClient::exchange(const std::string& line, double timeout_s) {
    if (fd_ < 0) return Error{path_ + ": the control channel is closed"};
    const auto deadline = deadlineAfter(timeout_s);
    const std::string out = line + "\n";
    for (size_t sent = 0; sent < out.size();) {
        const ssize_t n = ::send(fd_, out.data() + sent, out.size() - sent, MSG_NOSIGNAL | MSG_DONTWAIT);
        if (n < 0 && errno == EINTR) continue;
        if (n < 0 && (errno == EAGAIN || errno == EWOULDBLOCK)) {  // the agent does not read
            pollfd p{fd_, POLLOUT, 0};
            const int ready = ::poll(&p, 1, remainingMs(deadline));
            if (ready < 0 && errno == EINTR) continue;
            if (ready <= 0)
                return Error{path_ + ": the agent took no request within " + std::to_string(timeout_s) +
                             " s"};
            continue;
        }
        if (n <= 0) return Error{path_ + ": the agent closed the control channel"};
        sent += static_cast<size_t>(n);
    }
    for (;;) {
        if (const size_t nl = buffer_.find('\n'); nl != std::string::npos) {
            std::string reply = buffer_.substr(0, nl);
            buffer_.erase(0, nl + 1);
            // Nothing a terminal could act on (escape sequences) passes from the peer.
            for (char c : reply)
                if (isControl(c))
                    return Error{path_ + ": the agent's reply holds control characters: '" +
                                 escapeControls(reply.substr(0, 60)) + "'"};
            return reply;
        }
        if (buffer_.size() > kMaxLine)
            return Error{path_ + ": a reply longer than " + std::to_string(kMaxLine) + " bytes"};
        pollfd p{fd_, POLLIN, 0};
        const int ready = ::poll(&p, 1, remainingMs(deadline));
        if (ready < 0 && errno == EINTR) continue;
        if (ready == 0)
            return Error{path_ + ": no reply from the agent within " + std::to_string(timeout_s) + " s"};
        char buf[512];
        const ssize_t n = ::recv(fd_, buf, sizeof buf, MSG_DONTWAIT);
        if (n < 0 && (errno == EINTR || errno == EAGAIN || errno == EWOULDBLOCK)) continue;
        if (n <= 0) return Error{path_ + ": the agent closed the control channel"};
        buffer_.append(buf, static_cast<size_t>(n));
    }
}

Result<AgentStatus> ControlClient::call(const Request& r, double timeout_s) {
    auto reply = exchange(formatRequest(r), timeout_s);
    if (!reply) return reply.error();
    if (r.command != Command::kHello && r.command != Command::kStatus) {
        if (reply->starts_with("error ")) return Error{path_ + ": " + reply->substr(6)};
        if (*reply != "ok") return Error{path_ + ": unexpected reply '" + reply->substr(0, 60) + "'"};
        if (r.command == Command::kDetach) {  // the agent closes the channel once it has finished
            last_.state = ProgramState::kDetached;
            return last_;
        }
        reply = exchange("status", timeout_s);
        if (!reply) return reply.error();
    }
    auto status = parseStatus(*reply);
    if (!status) return Error{path_ + ": " + status.error().message};
    last_ = *status;
    return status;
}

}  // namespace memcity::live
