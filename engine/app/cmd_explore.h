// `memcity [FILE] ...`: the explorer window when there is a display, the terminal overview
// otherwise (or with --text). Options and their errors as the other commands have them.
#pragma once

#include "cli/commands.h"

namespace memcity::app {

int runExplore(const cli::Words& words);
// Whether a window can be opened (DISPLAY or WAYLAND_DISPLAY is set).
bool hasDisplay();

}  // namespace memcity::app
