// Runs an explorer script (explore/script.h) in a live window: each command after the previous
// one's work has settled, input fed through ImGui as the mouse and keyboard would, and the
// figures a benchmark needs (frame times while loading, input to picture) printed by
// `print timing`.
#pragma once

#include <string>
#include <vector>

#include "explore/script.h"

namespace memcity::app {

class Explorer;

// Returns the exit status: 0, or 1 after printing "memcity: NAME:LINE: what went wrong".
int runScript(Explorer& explorer, const std::vector<explore::ScriptCommand>& commands,
              const std::string& name);

}  // namespace memcity::app
