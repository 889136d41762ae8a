// A virtual X display for the tests that open windows: one Xvfb server per test process.
#pragma once

#include <fcntl.h>
#include <poll.h>
#include <sys/wait.h>

#include <signal.h>
#include <unistd.h>

#include <string>

namespace memcity::testing {

inline constexpr const char* kXvfb = "/usr/bin/Xvfb";

inline bool haveXvfb() {
    return ::access(kXvfb, X_OK) == 0;
}

// One Xvfb server of 1600x1000 for this test process, started on first use and stopped at exit.
// The server picks a free display itself (-displayfd), so test processes running side by side
// never race for a display number; xvfb-run -a did, and its clean-up then failed with status 5.
class VirtualDisplay {
public:
    // The display (":N"), or "" when the server did not start.
    static const std::string& name() {
        static VirtualDisplay display;
        return display.name_;
    }

    ~VirtualDisplay() {
        if (pid_ <= 0) return;
        ::kill(pid_, SIGTERM);
        ::waitpid(pid_, nullptr, 0);
    }

private:
    VirtualDisplay() {
        int fds[2];
        if (::pipe(fds) != 0) return;
        pid_ = ::fork();
        if (pid_ == 0) {
            ::close(fds[0]);
            if (const int null = ::open("/dev/null", O_WRONLY); null >= 0) {
                ::dup2(null, STDOUT_FILENO);
                ::dup2(null, STDERR_FILENO);
            }
            const std::string fd = std::to_string(fds[1]);
            ::execl(kXvfb, kXvfb, "-displayfd", fd.c_str(), "-screen", "0", "1600x1000x24", "-nolisten",
                    "tcp", static_cast<char*>(nullptr));
            ::_exit(127);
        }
        ::close(fds[1]);
        // The server writes its display number and a newline once it accepts connections.
        std::string number;
        pollfd p{fds[0], POLLIN, 0};
        char c = 0;
        while (::poll(&p, 1, 20000) == 1 && ::read(fds[0], &c, 1) == 1 && c != '\n')
            number += c;
        ::close(fds[0]);
        if (c == '\n' && !number.empty()) name_ = ":" + number;
    }

    pid_t pid_ = -1;
    std::string name_;
};

}  // namespace memcity::testing
