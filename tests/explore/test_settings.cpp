// The explorer's settings: the text format round trip with awkward strings, unknown keys,
// malformed lines (warned with their line numbers, the rest loads), a missing file, atomic saves
// and their errors, the default path, and the recent files.
#include "explore/settings.h"

#include <gtest/gtest.h>
#include <unistd.h>

#include <algorithm>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <optional>
#include <sstream>
#include <string>
#include <vector>

#include "unit/trace_builder.h"

namespace memcity::explore {
namespace {

namespace fs = std::filesystem;

// A fresh folder in the test temp directory, removed at the end of the test.
class TempDir {
public:
    TempDir() : path_(::memcity::testing::tempPath("settings") + ".d") { fs::create_directories(path_); }
    ~TempDir() {
        std::error_code ec;
        fs::remove_all(path_, ec);
    }
    const std::string& path() const { return path_; }
    std::string file(const std::string& name) const { return path_ + "/" + name; }

private:
    std::string path_;
};

void writeText(const std::string& path, const std::string& text) {
    std::ofstream(path, std::ios::binary) << text;
}

std::string readText(const std::string& path) {
    std::ifstream in(path, std::ios::binary);
    std::stringstream ss;
    ss << in.rdbuf();
    return ss.str();
}

using testing::ScopedEnv;

Settings awkwardSettings() {
    Settings s;
    s.window_width = 1280;
    s.window_height = 720;
    s.window_x = -1920;
    s.window_y = 0;
    s.maximised = true;
    s.vsync = false;
    s.panels = {false, true, false, true, true};
    s.view = "sunburst = \"x\" # not a comment ; either";
    s.metric = "objects";
    s.sort = "end";
    s.recent_files = {"/home/me/my traces/a=b#c.mct",
                      "/tmp/\"quoted\"\\back\\slash.mct",
                      "/tmp/new\nline\tand\rreturn.mct",
                      std::string("/tmp/ctrl\x01\x7f.mct"),
                      "/tmp/\xC3\xBCnicode \xE2\x86\x92 \xF0\x9F\x99\x82.mct",
                      "  /tmp/leading and trailing  "};
    s.chains["by package"] = {"package,type", ""};
    s.chains["sites ] [chain \"x\"] = #"] = {"type,site(callers=2)", "name == \"a#b\" && size > 10"};
    s.chains["\xE2\x98\x83 snow"] = {"type", "  spaced  "};
    s.camera_speed = 0.1f;
    s.ui_scale = 1.25f;
    return s;
}

TEST(Settings, AwkwardStringsRoundTrip) {
    const Settings s = awkwardSettings();
    const std::string text = formatSettings(s);
    const LoadedSettings loaded = parseSettings(text, "settings.ini");
    EXPECT_TRUE(loaded.warnings.empty()) << loaded.warnings.front();
    EXPECT_EQ(loaded.settings, s) << text;
    EXPECT_EQ(parseSettings(formatSettings(Settings{}), "x").settings, Settings{});

    TempDir dir;
    const std::string path = dir.file("settings.ini");
    ASSERT_TRUE(saveSettings(path, s).ok());
    auto read = loadSettings(path);
    ASSERT_TRUE(read.ok()) << read.error().message;
    EXPECT_TRUE(read->warnings.empty());
    EXPECT_EQ(read->settings, s);
}

TEST(Settings, TheFormatIsReadableAndHandWritable) {
    Settings s;
    s.window_x = 40;
    s.recent_files = {"/a.mct"};
    s.chains["mine"] = {"package,type", "size > 1024"};
    EXPECT_EQ(formatSettings(s),
              "# memcity explorer settings (format: engine/explore/settings.h)\n"
              "window.width = 1600\n"
              "window.height = 900\n"
              "window.x = 40\n"
              "window.maximised = false\n"
              "vsync = true\n"
              "panel.chain_editor = true\n"
              "panel.table = true\n"
              "panel.inspector = true\n"
              "panel.timeline = true\n"
              "panel.stats = false\n"
              "view = \"city\"\n"
              "metric = \"bytes\"\n"
              "sort = \"growth\"\n"
              "camera_speed = 1\n"
              "ui_scale = 1\n"
              "recent = \"/a.mct\"\n"
              "\n"
              "[chain \"mine\"]\n"
              "spec = \"package,type\"\n"
              "filter = \"size > 1024\"\n");

    // By hand: unquoted values, CRLF, a byte order mark, comments, blanks, an unquoted chain name.
    const LoadedSettings loaded = parseSettings(
        "\xEF\xBB\xBF; hand written\r\n"
        "  view =   icicle  \r\n"
        "\tmetric=objects\r\n"
        "# window.width = 5\r\n"
        "ui_scale = 2\r\n"
        "[chain by type]\r\n"
        "spec = type\r\n",
        "hand.ini");
    EXPECT_TRUE(loaded.warnings.empty()) << loaded.warnings.front();
    EXPECT_EQ(loaded.settings.view, "icicle");
    EXPECT_EQ(loaded.settings.metric, "objects");
    EXPECT_EQ(loaded.settings.window_width, 1600);
    EXPECT_EQ(loaded.settings.ui_scale, 2.0f);
    ASSERT_EQ(loaded.settings.chains.count("by type"), 1u);
    EXPECT_EQ(loaded.settings.chains.at("by type"), (SavedChain{"type", ""}));
}

TEST(Settings, UnknownKeysAndSectionsAreIgnored) {
    const LoadedSettings loaded = parseSettings(
        "future.key = 1\n"
        "future.quoted = \"unterminated\n"  // unknown: not even parsed
        "vsync = false\n"
        "[layout \"later\"]\n"
        "view = sunburst\n"  // belongs to the unknown section
        "[chain \"c\"]\n"
        "spec = type\n"
        "colour = red\n"
        "[chainsaw]\n"
        "spec = x\n",
        "f.ini");
    EXPECT_TRUE(loaded.warnings.empty()) << loaded.warnings.front();
    EXPECT_FALSE(loaded.settings.vsync);
    EXPECT_EQ(loaded.settings.view, "city");
    ASSERT_EQ(loaded.settings.chains.size(), 1u);
    EXPECT_EQ(loaded.settings.chains.at("c"), (SavedChain{"type", ""}));
}

TEST(Settings, MalformedLinesAreWarnedWithTheirLineNumbersAndTheRestLoads) {
    const LoadedSettings loaded = parseSettings(
        "window.width = 1024\n"          // 1
        "just some text\n"               // 2
        "window.height = tall\n"         // 3
        "view = \"unterminated\n"        // 4
        "metric = pounds\n"              // 5
        "= 3\n"                          // 6
        "vsync = maybe\n"                // 7
        "sort = \"end\" trailing\n"      // 8
        "camera_speed = -2\n"            // 9
        "ui_scale = 100\n"               // 10
        "window.x = 12abc\n"             // 11
        "recent = \"bad \\q escape\"\n"  // 12
        "[chain \"empty\"]\n"            // 13
        "filter = size > 1\n"            // 14
        "[chain \"\"]\n"                 // 15
        "spec = type\n"                  // 16
        "[broken\n"                      // 17
        "view = ignored\n"               // 18
        "[chain ok]\n"                   // 19
        "spec = \"\\x4\"\n"              // 20
        "spec = site\n"                  // 21
        "[chain ok2]\n"                  // 22
        "spec = type\n",                 // 23
        "/cfg/settings.ini");
    const std::vector<std::string> expected = {
        "/cfg/settings.ini: line 2: expected key = value, got \"just some text\"",
        "/cfg/settings.ini: line 3: window.height: expected a whole number from 1 to 100000, got \"tall\"",
        "/cfg/settings.ini: line 4: view: unterminated quoted string",
        "/cfg/settings.ini: line 5: metric: expected one of objects, bytes, got \"pounds\"",
        "/cfg/settings.ini: line 6: missing key before '='",
        "/cfg/settings.ini: line 7: vsync: expected true or false, got \"maybe\"",
        "/cfg/settings.ini: line 8: sort: text after the closing quote",
        "/cfg/settings.ini: line 9: camera_speed: expected a number above 0, got \"-2\"",
        "/cfg/settings.ini: line 10: ui_scale: expected a number from 0.25 to 8, got \"100\"",
        "/cfg/settings.ini: line 11: window.x: expected a whole number from -1000000 to 1000000, got "
        "\"12abc\"",
        "/cfg/settings.ini: line 12: recent: unknown escape \\q",
        "/cfg/settings.ini: line 13: chain \"empty\" has no spec; skipped",
        "/cfg/settings.ini: line 15: chain without a name",
        "/cfg/settings.ini: line 17: malformed section header \"[broken\"",
        "/cfg/settings.ini: line 20: spec: \\x must be followed by two hex digits",
    };
    EXPECT_EQ(loaded.warnings, expected);
    const Settings& s = loaded.settings;
    EXPECT_EQ(s.window_width, 1024);
    EXPECT_EQ(s.window_height, 900);  // the default stays
    EXPECT_EQ(s.view, "city");
    EXPECT_EQ(s.metric, "bytes");
    EXPECT_TRUE(s.vsync);
    EXPECT_EQ(s.sort, "growth");
    EXPECT_EQ(s.camera_speed, 1.0f);
    EXPECT_EQ(s.ui_scale, 1.0f);
    EXPECT_FALSE(s.window_x.has_value());
    EXPECT_TRUE(s.recent_files.empty());
    ASSERT_EQ(s.chains.size(), 2u);
    EXPECT_EQ(s.chains.at("ok").spec, "site");
    EXPECT_EQ(s.chains.at("ok2").spec, "type");
}

TEST(Settings, LoadingAFileWithMalformedLinesNamesTheFile) {
    TempDir dir;
    const std::string path = dir.file("s.ini");
    writeText(path, "vsync = false\nnonsense\nmetric = objects\n");
    auto loaded = loadSettings(path);
    ASSERT_TRUE(loaded.ok()) << loaded.error().message;
    EXPECT_EQ(loaded->warnings,
              (std::vector<std::string>{path + ": line 2: expected key = value, got \"nonsense\""}));
    EXPECT_FALSE(loaded->settings.vsync);
    EXPECT_EQ(loaded->settings.metric, "objects");
}

TEST(Settings, AMissingFileGivesTheDefaults) {
    TempDir dir;
    auto loaded = loadSettings(dir.file("nothing/here.ini"));
    ASSERT_TRUE(loaded.ok()) << loaded.error().message;
    EXPECT_EQ(loaded->settings, Settings{});
    EXPECT_TRUE(loaded->warnings.empty());
}

TEST(Settings, UnreadableAndUnwritablePathsAreErrorsNamingThePath) {
    TempDir dir;
    // A folder where the file should be.
    auto loaded = loadSettings(dir.path());
    ASSERT_FALSE(loaded.ok());
    EXPECT_EQ(loaded.error().message, dir.path() + ": cannot read: Is a directory");

    // A regular file where a folder should be (fails for root too).
    const std::string blocker = dir.file("blocker");
    writeText(blocker, "x");
    Status st = saveSettings(blocker + "/memcity/settings.ini", Settings{});
    ASSERT_FALSE(st.ok());
    EXPECT_EQ(st.error().message, blocker + "/memcity: cannot create folder: Not a directory");

    // A folder in the file's place: the rename fails, the temporary file is removed.
    fs::create_directories(dir.file("taken.ini"));
    st = saveSettings(dir.file("taken.ini"), Settings{});
    ASSERT_FALSE(st.ok());
    EXPECT_EQ(st.error().message, dir.file("taken.ini") + ": cannot replace: Is a directory");
    std::vector<std::string> left;
    for (const auto& e : fs::directory_iterator(dir.path()))
        left.push_back(e.path().filename().string());
    std::sort(left.begin(), left.end());
    EXPECT_EQ(left, (std::vector<std::string>{"blocker", "taken.ini"}));
}

TEST(Settings, SavingCreatesTheFolderAndReplacesTheFileWhole) {
    TempDir dir;
    const std::string path = dir.file("deep/er/settings.ini");
    Settings s;
    s.view = "icicle";
    ASSERT_TRUE(saveSettings(path, s).ok());
    EXPECT_EQ(readText(path), formatSettings(s));
    s.view = "sunburst";
    s.recent_files = {"/x.mct"};
    ASSERT_TRUE(saveSettings(path, s).ok());
    EXPECT_EQ(readText(path), formatSettings(s));
    size_t files = 0;
    for (const auto& e : fs::directory_iterator(dir.file("deep/er"))) {
        (void)e;
        ++files;
    }
    EXPECT_EQ(files, 1u);  // no temporary file left
}

TEST(Settings, DefaultPathFollowsTheEnvironment) {
    ScopedEnv a("MEMCITY_SETTINGS", "/explicit/s.ini");
    ScopedEnv b("XDG_CONFIG_HOME", "/xdg");
    ScopedEnv c("HOME", "/home/me");
    EXPECT_EQ(*defaultSettingsPath(), "/explicit/s.ini");
    {
        ScopedEnv unset("MEMCITY_SETTINGS", "");
        EXPECT_EQ(*defaultSettingsPath(), "/xdg/memcity/settings.ini");
        {
            ScopedEnv relative("XDG_CONFIG_HOME", "relative/dir");  // not absolute: ignored (XDG spec)
            EXPECT_EQ(*defaultSettingsPath(), "/home/me/.config/memcity/settings.ini");
        }
        ScopedEnv no_xdg("XDG_CONFIG_HOME", nullptr);
        EXPECT_EQ(*defaultSettingsPath(), "/home/me/.config/memcity/settings.ini");
        ScopedEnv no_home("HOME", nullptr);
        auto none = defaultSettingsPath();
        ASSERT_FALSE(none.ok());
        EXPECT_NE(none.error().message.find("HOME"), std::string::npos);
    }
    EXPECT_EQ(*defaultSettingsPath(), "/explicit/s.ini");
}

TEST(Settings, RecentFilesAreAbsoluteDedupedAndCapped) {
    Settings s;
    for (int i = 0; i < 12; ++i)
        addRecentFile(s, "/traces/t" + std::to_string(i) + ".mct");
    ASSERT_EQ(s.recent_files.size(), kMaxRecentFiles);
    EXPECT_EQ(s.recent_files.front(), "/traces/t11.mct");
    EXPECT_EQ(s.recent_files.back(), "/traces/t2.mct");

    addRecentFile(s, "/traces/t5.mct");  // moves to the front, no duplicate
    ASSERT_EQ(s.recent_files.size(), kMaxRecentFiles);
    EXPECT_EQ(s.recent_files[0], "/traces/t5.mct");
    EXPECT_EQ(s.recent_files[1], "/traces/t11.mct");
    EXPECT_EQ(std::count(s.recent_files.begin(), s.recent_files.end(), "/traces/t5.mct"), 1);
    EXPECT_EQ(s.recent_files.back(), "/traces/t2.mct");

    addRecentFile(s, "/traces/sub/../t11.mct");  // normalised: the same file
    EXPECT_EQ(s.recent_files[0], "/traces/t11.mct");
    EXPECT_EQ(s.recent_files[1], "/traces/t5.mct");
    EXPECT_EQ(s.recent_files.size(), kMaxRecentFiles);

    addRecentFile(s, "");
    EXPECT_EQ(s.recent_files[0], "/traces/t11.mct");

    Settings r;
    addRecentFile(r, "rel/app.mct");
    EXPECT_EQ(r.recent_files, (std::vector<std::string>{(fs::current_path() / "rel/app.mct").string()}));

    // Loading keeps the first occurrence and at most kMaxRecentFiles.
    std::string text;
    for (int i = 0; i < 12; ++i)
        text += "recent = /f" + std::to_string(i % 11) + "\n";
    const LoadedSettings loaded = parseSettings(text, "r.ini");
    EXPECT_TRUE(loaded.warnings.empty());
    ASSERT_EQ(loaded.settings.recent_files.size(), kMaxRecentFiles);
    EXPECT_EQ(loaded.settings.recent_files.front(), "/f0");
    EXPECT_EQ(loaded.settings.recent_files.back(), "/f9");
}

}  // namespace
}  // namespace memcity::explore

namespace memcity::explore {
namespace {

// The table of keys (settings.cpp kKeys) drives reading, writing and merging alike: a key changed
// alone is taken by the merge and nothing else is, and each key is written once, in table order.
TEST(SettingsChanges, EachKeyChangedAloneIsTakenAndOnlyIt) {
    const Settings base;
    Settings disk;
    disk.window_width = 800;
    disk.view = "icicle";
    disk.panels.stats = true;
    const Settings changed = awkwardSettings();
    using Change = void (*)(Settings&, const Settings&);
    const Change changes[] = {
        [](Settings& s, const Settings& c) { s.window_width = c.window_width; },
        [](Settings& s, const Settings& c) { s.window_height = c.window_height; },
        [](Settings& s, const Settings& c) { s.window_x = c.window_x; },
        [](Settings& s, const Settings& c) { s.window_y = c.window_y; },
        [](Settings& s, const Settings& c) { s.maximised = c.maximised; },
        [](Settings& s, const Settings& c) { s.vsync = c.vsync; },
        [](Settings& s, const Settings& c) { s.panels.chain_editor = c.panels.chain_editor; },
        [](Settings& s, const Settings& c) { s.panels.inspector = c.panels.inspector; },
        [](Settings& s, const Settings& c) { s.view = c.view; },
        [](Settings& s, const Settings& c) { s.metric = c.metric; },
        [](Settings& s, const Settings& c) { s.sort = c.sort; },
        [](Settings& s, const Settings& c) { s.camera_speed = c.camera_speed; },
        [](Settings& s, const Settings& c) { s.ui_scale = c.ui_scale; },
    };
    for (size_t i = 0; i < std::size(changes); ++i) {
        Settings now = base;
        changes[i](now, changed);
        ASSERT_NE(now, base) << i;
        Settings expected = disk;
        changes[i](expected, changed);
        EXPECT_EQ(mergeSettings(disk, base, now), expected) << i;
    }
    const std::string text = formatSettings(base);
    const char* keys[] = {"window.width",       "window.height", "window.maximised", "vsync",
                          "panel.chain_editor", "panel.table",   "panel.inspector",  "panel.timeline",
                          "panel.stats",        "view",          "metric",           "sort",
                          "camera_speed",       "ui_scale"};
    size_t at = 0;
    for (const char* key : keys) {
        const size_t found = text.find(std::string("\n") + key + " = ", at);
        ASSERT_NE(found, std::string::npos) << key;
        EXPECT_EQ(text.find(std::string("\n") + key + " = ", found + 1), std::string::npos) << key;
        at = found + 1;
    }
    EXPECT_EQ(text.find("window.x"), std::string::npos);  // unset positions are not written
}

// The table of panels: each row's key reads and writes its own flag and no other, and the
// scripts' names find their rows.
TEST(SettingsChanges, EachPanelsKeyIsItsFlag) {
    ASSERT_EQ(panelTable().size(), 5u);
    for (const PanelInfo& panel : panelTable()) {
        EXPECT_EQ(findPanel(panel.name), &panel);
        Settings flipped;
        flipped.panels.*panel.shown = !(flipped.panels.*panel.shown);
        const std::string text = formatSettings(flipped);
        const std::string line =
            std::string(panel.key) + " = " + (flipped.panels.*panel.shown ? "true" : "false") + "\n";
        EXPECT_NE(text.find(line), std::string::npos) << text;
        const LoadedSettings loaded = parseSettings(
            std::string(panel.key) + " = " + (flipped.panels.*panel.shown ? "true" : "false") + "\n",
            "p.ini");
        EXPECT_TRUE(loaded.warnings.empty()) << panel.name;
        EXPECT_EQ(loaded.settings, flipped) << panel.name;
        EXPECT_FALSE(panel.menu.empty());
    }
    EXPECT_EQ(findPanel("chain")->key, "panel.chain_editor");
    EXPECT_EQ(findPanel("chain_editor"), nullptr);
    EXPECT_EQ(findPanel("bogus"), nullptr);
}

// Two explorers: each loaded the file at its start and saves at its end. The second save keeps
// the chain the first one saved, and each keeps what the other changed.
TEST(SettingsChanges, TwoSessionsSavingDifferentChainsBothKept) {
    const std::string dir = ::memcity::testing::tempDir("settings-merge");
    const std::string path = dir + "/settings.ini";
    Settings start;
    start.chains["old"] = {"type", ""};
    start.chains["gone"] = {"package", ""};
    ASSERT_TRUE(saveSettings(path, start).ok());

    auto a_loaded = loadSettings(path), b_loaded = loadSettings(path);
    ASSERT_TRUE(a_loaded.ok() && b_loaded.ok());
    Settings a = a_loaded->settings, b = b_loaded->settings;
    a.chains["from a"] = {"package,type", "size > 1024"};
    a.view = "icicle";
    a.chains.erase("gone");
    b.chains["from b"] = {"site", ""};
    b.ui_scale = 2.0f;
    ASSERT_TRUE(saveSettingsChanges(path, a_loaded->settings, a).ok());
    ASSERT_TRUE(saveSettingsChanges(path, b_loaded->settings, b).ok());

    auto after = loadSettings(path);
    ASSERT_TRUE(after.ok());
    EXPECT_TRUE(after->warnings.empty());
    const std::map<std::string, SavedChain> chains = {
        {"from a", {"package,type", "size > 1024"}}, {"from b", {"site", ""}}, {"old", {"type", ""}}};
    EXPECT_EQ(after->settings.chains, chains);
    EXPECT_EQ(after->settings.view, "icicle");
    EXPECT_EQ(after->settings.ui_scale, 2.0f);
    std::error_code ec;
    EXPECT_FALSE(fs::exists(path + ".tmp-" + std::to_string(::getpid()), ec));
}

// Lines this version does not read (a later version's keys and sections, malformed lines,
// comments) are written back as they were.
TEST(SettingsChanges, UnknownAndMalformedLinesSurviveASave) {
    const std::string dir = ::memcity::testing::tempDir("settings-keep");
    const std::string path = dir + "/settings.ini";
    const std::vector<std::string> kept = {
        "future.key = 1",      "# my note",          "this line has no equals sign",
        "ui_scale = banana",   "  [chain \"c\"]",    "    spec = type",
        "colour = red",        "[layout \"later\"]", "view = sunburst",
        "[chain \"no spec\"]", "filter = x",
    };
    {
        std::ofstream f(path);
        for (const std::string& l : kept)
            f << l << "\n";
    }
    auto loaded = loadSettings(path);
    ASSERT_TRUE(loaded.ok());
    Settings now = loaded->settings;
    now.view = "icicle";
    ASSERT_TRUE(saveSettingsChanges(path, loaded->settings, now).ok());

    std::ifstream f(path);
    std::stringstream text;
    text << f.rdbuf();
    for (const std::string& l : kept) {
        if (l.find("[chain \"c\"]") != std::string::npos || l.find("spec = type") != std::string::npos)
            continue;  // read, and written anew
        EXPECT_NE(text.str().find("\n" + l + "\n"), std::string::npos) << l << " in:\n" << text.str();
    }
    auto again = loadSettings(path);
    ASSERT_TRUE(again.ok());
    EXPECT_EQ(again->settings.view, "icicle");
    EXPECT_EQ(again->settings.chains.at("c"), (SavedChain{"type", ""}));
    EXPECT_EQ(again->extras, loaded->extras);  // and a second save keeps them the same way
}

}  // namespace
}  // namespace memcity::explore
