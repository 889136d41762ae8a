// What the commands that act on a running JVM (attach, detach, dump) share: the pid argument,
// and Ctrl-C (or a polite kill) asking the command to stop while the JVM goes on.
#pragma once

#include <sys/types.h>

#include <csignal>

#include "cli/args.h"
#include "util/result.h"

namespace memcity::cli {

// The one positional argument: a process id. The error shows the command's usage
// ("memcity dump 1234 -o app.mct").
Result<pid_t> parsePid(const Args& args, const char* command);

// While one lives, SIGINT and SIGTERM set interrupted() instead of ending the process.
class InterruptGuard {
public:
    InterruptGuard();
    ~InterruptGuard();
    InterruptGuard(const InterruptGuard&) = delete;
    InterruptGuard& operator=(const InterruptGuard&) = delete;

    static bool interrupted();

private:
    struct sigaction old_int_ {
    }, old_term_{};
};

}  // namespace memcity::cli
