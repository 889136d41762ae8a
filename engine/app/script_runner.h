// Runs an explorer script (explore/script.h) in a live window: each command after the previous
// one's work has settled, input fed through ImGui as the mouse and keyboard would, and the
// figures a benchmark needs (frame times while loading, input to picture) printed by
// `print timing`.
#pragma once

#include <span>
#include <string>
#include <vector>

#include "explore/script.h"

namespace memcity::app {

class Explorer;

// Reads the script at `path` and runs it. Returns the exit status: 0, or 1 after printing
// "memcity: PATH:LINE: what went wrong" (or why the script cannot be read or parsed).
int runScript(Explorer& explorer, const std::string& path);

// The commands scripts may use (their names, argument counts and usage lines).
std::span<const explore::ScriptVerb* const> scriptVerbs();

}  // namespace memcity::app
