#include "cli/jvm_target_args.h"

#include <cstring>
#include <string>

namespace memcity::cli {

namespace {

volatile sig_atomic_t g_interrupted = 0;

void onInterrupt(int) {
    g_interrupted = 1;
}

}  // namespace

Result<pid_t> parsePid(const Args& args, const char* command) {
    uint64_t pid = 0;
    if (args.positionals().size() != 1 || !parseUnsigned(args.positionals()[0], &pid) || pid == 0 ||
        pid > 4194304)
        return Error{std::string("memcity ") + command +
                     ": give the process id of a running JVM, e.g. 'memcity " + command + " 1234" +
                     (std::strcmp(command, "attach") == 0 ? " -o app.mct'" : "'") +
                     " (jps or jcmd lists them)"};
    return static_cast<pid_t>(pid);
}

InterruptGuard::InterruptGuard() {
    g_interrupted = 0;
    struct sigaction sa {};
    sa.sa_handler = onInterrupt;
    sigemptyset(&sa.sa_mask);
    sigaction(SIGINT, &sa, &old_int_);
    sigaction(SIGTERM, &sa, &old_term_);
}

InterruptGuard::~InterruptGuard() {
    sigaction(SIGINT, &old_int_, nullptr);
    sigaction(SIGTERM, &old_term_, nullptr);
}

bool InterruptGuard::interrupted() {
    return g_interrupted != 0;
}

}  // namespace memcity::cli
