// The explorer's settings, remembered between runs: window, panels, view, recent files, saved
// classifier chains, camera and UI scale. Plain data and a small text file; no UI.
//
// File format (UTF-8 text, one setting per line; settings.ini):
//
//   # memcity explorer settings      <- a line whose first non-blank character is '#' or ';'
//   window.width = 1600                 is a comment; blank lines are skipped
//   window.x = 40                    <- key = value; blanks around key and value are dropped
//   view = "city"
//   recent = "/home/me/app.mct"     <- repeated: one line per file, most recent first
//   [chain "by package"]             <- a saved chain: its section runs to the next header
//   spec = "package,type"
//   filter = "size > 1024"
//
// Values. Strings are written in double quotes, with backslash escapes \\ \" \n \r \t and \xNN
// for other control bytes; every other byte (UTF-8 included, '=', '#', ';', spaces) stands as
// is, so any string round-trips. A value not starting with '"' is read as the raw text up to
// the end of the line (blanks trimmed), so `view = city` may be written by hand; a '#' after a
// value is part of it (comments are whole lines). Booleans are true / false, numbers decimal.
// Section names are quoted the same way ([chain "NAME"]; [chain NAME] is read too).
//
// Reading. Unknown keys and unknown sections are ignored (files written by a later version
// load). A malformed line (no '=', a bad quoted string, a value of the wrong kind or out of
// range, a chain without a spec) is skipped with a warning "PATH: line N: what", and the rest
// of the file loads. A key given twice keeps its last value; `recent` lines are deduplicated
// and capped at kMaxRecentFiles.
#pragma once

#include <cstdint>
#include <map>
#include <optional>
#include <span>
#include <string>
#include <string_view>
#include <vector>

#include "explore/panels.h"
#include "util/result.h"

namespace memcity::explore {

inline constexpr size_t kMaxRecentFiles = 10;

// Which panels are shown (one flag per line of MEMCITY_PANELS, in its order, with its default).
struct PanelSettings {
#define MEMCITY_PANEL_FLAG(field, Draw, name, key, menu, shown) bool field = shown;
    MEMCITY_PANELS(MEMCITY_PANEL_FLAG)
#undef MEMCITY_PANEL_FLAG
    bool operator==(const PanelSettings&) const = default;
};

// A panel as the View menu, the scripts' `panel` command and the settings file know it: one line
// of MEMCITY_PANELS (explore/panels.h), where adding a panel starts.
struct PanelInfo {
    std::string_view name;       // the scripts' word: `panel NAME on|off`
    std::string_view key;        // its settings key ("panel.chain_editor = true")
    std::string_view menu;       // its entry in the View menu
    bool PanelSettings::*shown;  // its flag
};
// Every panel, in MEMCITY_PANELS's order: the View menu's (and the settings file's).
std::span<const PanelInfo> panelTable();
// The panel the scripts call `name`; null when none is.
const PanelInfo* findPanel(std::string_view name);

// A classifier chain saved under a name.
struct SavedChain {
    std::string spec;    // chain spec, as parseChain reads it: "package,type", "type,site(callers=2)"
    std::string filter;  // filter expression; empty: none
    bool operator==(const SavedChain&) const = default;
};

struct Settings {
    // The window, in screen pixels; no position: the window manager places it.
    int32_t window_width = 1600;  // > 0
    int32_t window_height = 900;  // > 0
    std::optional<int32_t> window_x, window_y;
    bool maximised = false;
    bool vsync = true;
    PanelSettings panels;
    std::string view = "city";     // the last view: "city", "sunburst", "icicle" (kept as written)
    std::string metric = "bytes";  // "objects" or "bytes"
    std::string sort = "growth";   // "start", "end" or "growth"
    // Absolute paths, most recent first, no duplicates, at most kMaxRecentFiles (addRecentFile).
    std::vector<std::string> recent_files;
    std::map<std::string, SavedChain> chains;  // by name (not empty)
    float camera_speed = 1.0f;                 // multiplies the camera's movement speed; finite, > 0
    float ui_scale = 1.0f;                     // multiplies the UI's font and widget sizes; in [0.25, 8]
    bool operator==(const Settings&) const = default;
};

// The lines of a settings file this version does not read (keys and sections of a later
// version, malformed lines, comments), kept verbatim so that a save writes them back.
struct SettingsExtras {
    std::vector<std::string> main;                          // of the part before any section
    std::map<std::string, std::vector<std::string>> chain;  // of a chain's section, by chain name
    std::vector<std::string> sections;  // whole sections (header first) that are not chains read
    bool operator==(const SettingsExtras&) const = default;
};

struct LoadedSettings {
    Settings settings;
    std::vector<std::string> warnings;  // "PATH: line N: what", in line order
    SettingsExtras extras;
};

// Where the settings live: $MEMCITY_SETTINGS if set, else $XDG_CONFIG_HOME/memcity/settings.ini
// (XDG_CONFIG_HOME absolute), else $HOME/.config/memcity/settings.ini. Empty variables count as
// unset. Error when none of them gives a path.
Result<std::string> defaultSettingsPath();

// Reads the settings at `path` (see "Reading"). A missing file gives the defaults, without
// warnings. Errors (the file exists but cannot be read) name the path and the system's reason.
Result<LoadedSettings> loadSettings(const std::string& path);
// The file text for `settings` (what saveSettings writes), with `extras` after what they were
// found with (the main part's after its keys, a chain's after its keys, sections at the end).
std::string formatSettings(const Settings& settings, const SettingsExtras& extras = {});
// Parses file text; `path` only names the file in warnings.
LoadedSettings parseSettings(const std::string& text, const std::string& path);

// Writes the settings to `path` atomically: a temporary file in the same folder, flushed to
// disk, then renamed over `path` (readers see the old or the new file, never half of one).
// Creates the folder. Errors name the path (or the folder) and the system's reason.
Status saveSettings(const std::string& path, const Settings& settings);

// What another explorer saved since, kept: `disk` with each setting that `now` changed from `base`
// set as in `now`. Chains: one that `now` added or changed is `now`'s, one it removed goes, the rest
// are `disk`'s. Recent files: `now`'s first (when it changed them), then `disk`'s others, capped.
Settings mergeSettings(const Settings& disk, const Settings& base, const Settings& now);
// Saves what this explorer changed, from `base` (what it loaded, or saved last) to `now`, into the
// file as it is now: under a lock (PATH.lock, beside it) the file is read again, merged
// (mergeSettings), its lines this version does not read kept (SettingsExtras), and replaced
// atomically as saveSettings does. Errors as saveSettings's, or the lock's (naming PATH.lock).
Status saveSettingsChanges(const std::string& path, const Settings& base, const Settings& now);

// Puts `path`, made absolute (against the current folder, lexically normalised), first in
// settings.recent_files, removing an earlier entry for it and the oldest past kMaxRecentFiles.
// An empty path changes nothing.
void addRecentFile(Settings& settings, const std::string& path);

}  // namespace memcity::explore
