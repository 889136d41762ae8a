// A forked child that reports through a pipe: how it ended, and what it wrote. For tests that run
// a reader where a crash, a signal or an abort must not take the test binary with it.
#pragma once

#include <sys/types.h>
#include <sys/wait.h>
#include <unistd.h>

#include <string>

namespace memcity::testing {

struct ChildEnd {
    bool exited = false;  // normally, not by a signal
    int code = 0;         // its exit status, where it exited
    int signal = 0;       // the signal that ended it, or 0
    std::string said;     // what it wrote to the pipe
};

// Reads what child `pid` writes to `read_fd` until it closes it, closes it, and waits for the
// child to end.
inline ChildEnd awaitChild(pid_t pid, int read_fd) {
    ChildEnd end;
    char buffer[4096];
    for (ssize_t n; (n = ::read(read_fd, buffer, sizeof buffer)) > 0;)
        end.said.append(buffer, static_cast<size_t>(n));
    ::close(read_fd);
    int status = 0;
    ::waitpid(pid, &status, 0);
    end.exited = WIFEXITED(status);
    end.code = end.exited ? WEXITSTATUS(status) : 0;
    end.signal = WIFSIGNALED(status) ? WTERMSIG(status) : 0;
    return end;
}

}  // namespace memcity::testing
