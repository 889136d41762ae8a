// The client end of the live control channel (live/control_protocol.h): what memcity's window,
// its scripts and its CLI use to talk to a recording JVM's agent.
#pragma once

#include <string>
#include <string_view>

#include "live/control_protocol.h"
#include "util/result.h"

namespace memcity::live {

// `text` with each byte a terminal could act on (below 0x20, 0x7f) written as \xNN: for anything
// a peer sent that goes into a message.
std::string escapeControls(std::string_view text);

// Checks that the trace file `path` an agent named is one to open: a regular file (not a link)
// owned by our user. Error: one line naming the path and what is wrong.
Status checkAgentTrace(const std::string& path);

// Checks that `socket_path` is a control socket in our own socket directory
// (socketDirectory(geteuid())/PID.sock), as a trace's metadata names it: memcity connects to no
// other. Error: one line naming the path.
Status checkOwnSocketPath(const std::string& socket_path);

class ControlClient {
public:
    // Connects to the agent listening at `socket_path`, and checks that it speaks the protocol
    // (hello). The socket's directory must be a private one of ours (checkPrivateDirectory), the
    // peer must run as our user (SO_PEERCRED), and the connect, the hello and every later
    // request give up after `timeout_s` / their own timeout. Error: one line naming the socket
    // and what failed.
    static Result<ControlClient> connect(const std::string& socket_path, double timeout_s = 2.0);
    ControlClient(ControlClient&& other) noexcept;
    ControlClient& operator=(ControlClient&& other) noexcept;
    ControlClient(const ControlClient&) = delete;
    ControlClient& operator=(const ControlClient&) = delete;
    ~ControlClient();

    // Sends a request and returns the agent's status after it (a status reply for hello and
    // status; for the others, a status asked right after their "ok"). Error: the agent's "error"
    // reply, a reply with control characters (never passed on: they could drive a terminal), a
    // closed channel, or no request sent and reply read within `timeout_s`.
    Result<AgentStatus> call(const Request& r, double timeout_s = 5.0);
    Result<AgentStatus> status(double timeout_s = 5.0) { return call({Command::kStatus, {}}, timeout_s); }

    const std::string& path() const { return path_; }
    // The status the last call returned (the one connect read first).
    const AgentStatus& last() const { return last_; }

private:
    ControlClient(int fd, std::string path) : fd_(fd), path_(std::move(path)) {}
    // One request line out, one reply line back.
    Result<std::string> exchange(const std::string& line, double timeout_s);

    int fd_ = -1;
    std::string path_;
    std::string buffer_;  // bytes read past the last reply line
    AgentStatus last_;
};

}  // namespace memcity::live
