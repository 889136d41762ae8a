// Child processes for the recorder's tests: started with pipes on all three streams, read
// without blocking, waited for with a time limit that kills a hung process group.
#pragma once

#include <sys/types.h>

#include <string>
#include <vector>

namespace memcity::testing {

struct Process {
    pid_t pid = -1;
    int in = -1, out = -1, err = -1;
    std::string stdout_text, stderr_text;
    int status = -1;  // exit status, or 128 + signal
};

// Starts `argv` with pipes on all three streams (in a process group of its own).
Process start(const std::vector<std::string>& argv);
// Reads what is available within `timeout_ms`; returns false once both output streams are closed.
bool pump(Process& p, int timeout_ms);
// Closes stdin and waits for the process to end; kills its group and records a test failure
// after `timeout_s`.
void finish(Process& p, int timeout_s);
// start + finish.
Process run(const std::vector<std::string>& argv, int timeout_s = 120);
// Pumps until `pattern` (a regular expression) matches the standard output, or `timeout_s`
// passes; the first group of the match, or "" on timeout.
std::string waitForOutput(Process& p, const std::string& pattern, int timeout_s);

}  // namespace memcity::testing
