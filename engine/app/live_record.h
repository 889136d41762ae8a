// memcity record --live: the trace shown while the recorded program writes it.
#pragma once

#include <functional>
#include <string>

#include "cli/commands.h"

namespace memcity::app {

// Shows `trace` while a program writes it (memcity record --live, memcity attach --live): with a
// display, the explorer window on it until the window is closed; without one, a line per GC on
// standard output (time, live bytes, pause) until `recording` returns false and the trace is
// read to its end. Returns once the window is closed (the recording may go on: the caller says
// what happens to it) or the recording ended. `window`: the window's options (--script FILE).
void watchRecording(const std::string& trace, const std::function<bool()>& recording,
                    const cli::Words& window);

}  // namespace memcity::app
