#include "live/control_client.h"

#include <poll.h>
#include <sys/socket.h>
#include <sys/un.h>
#include <unistd.h>

#include <cerrno>
#include <chrono>
#include <cstring>

namespace memcity::live {
namespace {

using Clock = std::chrono::steady_clock;

int remainingMs(Clock::time_point deadline) {
    const auto left = std::chrono::duration_cast<std::chrono::milliseconds>(deadline - Clock::now()).count();
    return left <= 0 ? 0 : static_cast<int>(left);
}

}  // namespace

Result<ControlClient> ControlClient::connect(const std::string& socket_path, double timeout_s) {
    sockaddr_un addr{};
    addr.sun_family = AF_UNIX;
    if (socket_path.size() >= sizeof addr.sun_path)
        return Error{socket_path + ": the socket path is too long"};
    std::memcpy(addr.sun_path, socket_path.c_str(), socket_path.size() + 1);
    const int fd = ::socket(AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC, 0);
    if (fd < 0) return Error{socket_path + ": cannot create a socket: " + std::strerror(errno)};
    if (::connect(fd, reinterpret_cast<const sockaddr*>(&addr), sizeof addr) != 0) {
        const int err = errno;
        ::close(fd);
        if (err == ENOENT || err == ECONNREFUSED)
            return Error{socket_path +
                         ": no recording agent listens there (the program ended, or is not recorded)"};
        return Error{socket_path + ": cannot connect: " + std::strerror(err)};
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
    const auto deadline =
        Clock::now() + std::chrono::duration_cast<Clock::duration>(std::chrono::duration<double>(timeout_s));
    const std::string out = line + "\n";
    for (size_t sent = 0; sent < out.size();) {
        const ssize_t n = ::send(fd_, out.data() + sent, out.size() - sent, MSG_NOSIGNAL);
        if (n < 0 && errno == EINTR) continue;
        if (n <= 0) return Error{path_ + ": the agent closed the control channel"};
        sent += static_cast<size_t>(n);
    }
    for (;;) {
        if (const size_t nl = buffer_.find('\n'); nl != std::string::npos) {
            std::string reply = buffer_.substr(0, nl);
            buffer_.erase(0, nl + 1);
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
        const ssize_t n = ::recv(fd_, buf, sizeof buf, 0);
        if (n < 0 && errno == EINTR) continue;
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
