// `memcity [FILE]` with a display: the interactive explorer. An SDL2 window with a Vulkan
// swapchain, Dear ImGui panels around the main view (city, sunburst or icicle), the timeline
// below it. The trace loads in the background; the window keeps drawing.
#pragma once

#include <optional>
#include <string>

#include <glm/glm.hpp>

#include "explore/chain_config.h"
#include "scene/views.h"

namespace memcity::app {

// The sizes a window may have (--size and the script's `size`).
inline constexpr glm::uvec2 kMinWindowSize{320, 240};
inline constexpr glm::uvec2 kMaxWindowSize{8192, 8192};

struct ExplorerOptions {
    std::string path;            // the trace to open (required)
    std::string title;           // what the window calls it ("the bundled demo"); empty: the file's name
    std::string script;          // --script FILE: run its commands, then quit (see docs/explorer.md)
    glm::ivec2 size{0};          // --size: the window's size (0: the remembered one)
    std::optional<uint32_t> gc;  // --gc: where the cursor starts (default: the last GC)
    std::optional<explore::ChainConfig> chain;  // --classify / --filter / --metric / --sort
    std::optional<scene::ViewKind> view;        // --view
    std::optional<bool> vsync;                  // --no-vsync
    bool validate = false;                      // --validate: Vulkan validation layer on
    // Where settings are read and written: "" the default place (explore::defaultSettingsPath),
    // "-" nowhere (scripts and tests run with the defaults and leave no trace).
    std::string settings_path;
};

// Runs the explorer until the window closes (or the script quits). Returns the exit status: 0,
// or 1 with a one-line error on stderr (no display, no Vulkan device, a script error).
int runExplorer(const ExplorerOptions& options);

}  // namespace memcity::app
