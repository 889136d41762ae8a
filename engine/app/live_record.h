// memcity record --live: the trace shown while the recorded program writes it.
#pragma once

#include <sys/types.h>

#include <string>

#include "cli/commands.h"

namespace memcity::app {

// Shows `trace`, which `program` (the recorded command, a child of this process) is writing:
// with a display, the explorer window on it until the window is closed (the program goes on);
// without one, a line per GC on standard output (time, live bytes, pause) until the recording
// ends. Returns then; `program` is left for the caller to wait for.
// `window`: the window's options (--script FILE).
void watchRecording(const std::string& trace, pid_t program, const cli::Words& window);

}  // namespace memcity::app
