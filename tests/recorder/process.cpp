#include "recorder/process.h"

#include <gtest/gtest.h>
#include <poll.h>
#include <signal.h>
#include <sys/wait.h>
#include <unistd.h>

#include <chrono>
#include <cstdlib>
#include <regex>

namespace memcity::testing {

Process start(const std::vector<std::string>& argv) {
    int in[2], out[2], err[2];
    if (pipe(in) || pipe(out) || pipe(err)) std::abort();
    Process p;
    p.pid = fork();
    if (p.pid == 0) {
        setpgid(0, 0);
        dup2(in[0], 0);
        dup2(out[1], 1);
        dup2(err[1], 2);
        for (int fd : {in[0], in[1], out[0], out[1], err[0], err[1]})
            close(fd);
        std::vector<char*> args;
        for (const std::string& a : argv)
            args.push_back(const_cast<char*>(a.c_str()));
        args.push_back(nullptr);
        execvp(args[0], args.data());
        _exit(127);
    }
    close(in[0]);
    close(out[1]);
    close(err[1]);
    p.in = in[1];
    p.out = out[0];
    p.err = err[0];
    return p;
}

bool pump(Process& p, int timeout_ms) {
    pollfd fds[2] = {{p.out, POLLIN, 0}, {p.err, POLLIN, 0}};
    int open = (p.out >= 0) + (p.err >= 0);
    if (open == 0) return false;
    if (p.out < 0) fds[0].fd = -1;
    if (p.err < 0) fds[1].fd = -1;
    if (poll(fds, 2, timeout_ms) <= 0) return true;
    char buf[4096];
    for (int i = 0; i < 2; ++i) {
        if (!(fds[i].revents & (POLLIN | POLLHUP))) continue;
        int& fd = i == 0 ? p.out : p.err;
        ssize_t n = read(fd, buf, sizeof buf);
        if (n <= 0) {
            close(fd);
            fd = -1;
        } else {
            (i == 0 ? p.stdout_text : p.stderr_text).append(buf, static_cast<size_t>(n));
        }
    }
    return true;
}

void finish(Process& p, int timeout_s) {
    if (p.in >= 0) {
        close(p.in);
        p.in = -1;
    }
    auto deadline = std::chrono::steady_clock::now() + std::chrono::seconds(timeout_s);
    while (pump(p, 100)) {
        if (std::chrono::steady_clock::now() > deadline) {
            ADD_FAILURE() << "timed out after " << timeout_s << " s (a hang): killing\nstderr:\n"
                          << p.stderr_text;
            kill(-p.pid, SIGKILL);
            break;
        }
    }
    int raw = 0;
    waitpid(p.pid, &raw, 0);
    p.status = WIFEXITED(raw) ? WEXITSTATUS(raw) : 128 + WTERMSIG(raw);
}

Process run(const std::vector<std::string>& argv, int timeout_s) {
    Process p = start(argv);
    finish(p, timeout_s);
    return p;
}

std::string waitForOutput(Process& p, const std::string& pattern, int timeout_s) {
    std::smatch m;
    const std::regex re(pattern);
    auto deadline = std::chrono::steady_clock::now() + std::chrono::seconds(timeout_s);
    while (!std::regex_search(p.stdout_text, m, re) && std::chrono::steady_clock::now() < deadline)
        if (!pump(p, 100)) break;
    return std::regex_search(p.stdout_text, m, re) && m.size() > 1 ? m[1].str() : std::string();
}

}  // namespace memcity::testing
