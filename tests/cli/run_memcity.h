// Running the memcity binary as a user does, for the end-to-end tests: exit status, stdout and
// stderr of one command line.
#pragma once

#include <sys/wait.h>

#include <cstdlib>
#include <fstream>
#include <sstream>
#include <string>

#include "unit/trace_builder.h"

namespace memcity::testing {

struct Outcome {
    int status = -1;  // the exit status; -1 when the process did not exit normally
    std::string out, err;
};

inline std::string slurp(const std::string& path) {
    std::ifstream in(path);
    std::stringstream ss;
    ss << in.rdbuf();
    return ss.str();
}

// Runs a shell command line, capturing its output.
inline Outcome runShell(const std::string& command) {
    const std::string out = tempPath("stdout"), err = tempPath("stderr");
    const std::string cmd = "{ " + command + "; } >" + out + " 2>" + err;
    const int raw = std::system(cmd.c_str());
    Outcome r;
    r.status = WIFEXITED(raw) ? WEXITSTATUS(raw) : -1;
    r.out = slurp(out);
    r.err = slurp(err);
    return r;
}

// Runs `MEMCITY_BINARY args` through the shell (args are shell words).
inline Outcome runMemcity(const std::string& args) {
    return runShell(std::string(MEMCITY_BINARY) + " " + args);
}

}  // namespace memcity::testing
