// The layer rule, checked on includes (not only on link lines): every #include of every source
// file under analysis/, render/ and engine/ is read, and one that reaches a layer above its own
// or a graphics library where none may be used fails the test, naming the file and line.
//
// The layers, bottom up (a folder may include its own files and those of the folders listed):
//   analysis/util      nothing
//   analysis/trace     util
//   analysis/live      util
//   analysis/heap      trace, util
//   analysis/windows   heap, trace, util
//   analysis/synth     trace, util
//   analysis/hprof     trace, util, live (the import cache asks a live recorder for its dumps)
//   analysis/graph     heap, trace, util, windows; and classify from graph/dominator_view.* only
//                      (the dominator view groups its rows by a classifier chain)
//   analysis/classify  graph, heap, trace, util
//   render/            util (util/result.h: its errors), its shaders; Vulkan, ImGui (its pass), glm
//   engine/scene       analysis/*, render/draw_list.h (plain vertices, no Vulkan)
//   engine/explore     analysis/*, scene, render/draw_list.h
//   engine/cli         analysis/*, scene, render; not app
//   engine/app         everything else; SDL from app/platform.* only, behind memcity's own types
//   engine/main.cpp    everything: the one file that joins the command line and the window
// None of analysis/, engine/scene, engine/explore, engine/cli includes SDL, Vulkan or ImGui;
// render/ includes no SDL.
#include <gtest/gtest.h>

#include <algorithm>
#include <filesystem>
#include <fstream>
#include <map>
#include <optional>
#include <set>
#include <sstream>
#include <string>
#include <vector>

namespace memcity {
namespace {

namespace fs = std::filesystem;

// What an include reaches: a project folder ("heap", "render", "app"), "SDL", "Vulkan",
// "ImGui", or "" (the standard library, another library, or a file beside the includer).
std::string reached(const std::string& name, bool quoted) {
    static const std::set<std::string> kFolders = {
        "util",     "trace",  "live",    "heap",  "windows", "synth", "hprof", "graph",
        "classify", "render", "shaders", "scene", "explore", "cli",   "app",
    };
    if (name.starts_with("SDL")) return "SDL";
    if (name.starts_with("vulkan/") || name == "volk.h") return "Vulkan";
    if (name.starts_with("imgui") || name.starts_with("backends/imgui")) return "ImGui";
    const size_t slash = name.find('/');
    if (!quoted || slash == std::string::npos) return "";
    const std::string folder = name.substr(0, slash);
    return kFolders.count(folder) ? folder : "";
}

struct Rule {
    std::set<std::string> allowed;  // what the layer may reach besides its own folder
    // Includes allowed from some files only: (what is reached or the whole include, file prefix).
    std::vector<std::pair<std::string, std::string>> exceptions;
};

const std::set<std::string> kAnalysis = {"util",  "trace", "live",  "heap",    "windows",
                                         "synth", "hprof", "graph", "classify"};

// The layer of a file, by its path from the repository root ("analysis/heap/heap_map.h" is
// "heap", "engine/cli/cmd_report.cpp" is "cli", "render/device.cpp" is "render").
std::string layerOf(const std::string& path) {
    std::vector<std::string> parts;
    std::stringstream ss(path);
    for (std::string part; std::getline(ss, part, '/');)
        parts.push_back(part);
    if (parts.size() >= 3 && (parts[0] == "analysis" || parts[0] == "engine")) return parts[1];
    if (parts.size() >= 2 && parts[0] == "render") return "render";
    return "";
}

const std::map<std::string, Rule>& rules() {
    auto with = [](std::set<std::string> a, std::initializer_list<std::string> more) {
        a.insert(more);
        return a;
    };
    static const std::map<std::string, Rule> kRules = {
        {"util", {{}, {}}},
        {"trace", {{"util"}, {}}},
        {"live", {{"util"}, {}}},
        {"heap", {{"trace", "util"}, {}}},
        {"windows", {{"heap", "trace", "util"}, {}}},
        {"synth", {{"trace", "util"}, {}}},
        {"hprof", {{"trace", "util", "live"}, {}}},
        {"graph", {{"heap", "trace", "util", "windows"}, {{"classify", "analysis/graph/dominator_view."}}}},
        {"classify", {{"graph", "heap", "trace", "util"}, {}}},
        {"render", {{"util", "shaders", "Vulkan", "ImGui"}, {}}},
        {"scene", {kAnalysis, {{"render/draw_list.h", "engine/scene/"}}}},
        {"explore", {with(kAnalysis, {"scene"}), {{"render/draw_list.h", "engine/explore/"}}}},
        {"cli", {with(kAnalysis, {"scene", "render"}), {}}},
        {"app",
         {with(kAnalysis, {"scene", "explore", "cli", "render", "shaders", "Vulkan", "ImGui"}),
          {{"SDL", "engine/app/platform."}}}},
    };
    return kRules;
}

// What `line` includes, if it is an #include ("SDL.h" for `#include <SDL.h>`); `quoted` says
// whether with "" rather than <>.
std::optional<std::string> includeOf(const std::string& line, bool& quoted) {
    size_t i = line.find_first_not_of(" \t");
    if (i == std::string::npos || line[i] != '#') return std::nullopt;
    i = line.find_first_not_of(" \t", i + 1);
    if (i == std::string::npos || line.compare(i, 7, "include") != 0) return std::nullopt;
    i = line.find_first_not_of(" \t", i + 7);
    if (i == std::string::npos || (line[i] != '"' && line[i] != '<')) return std::nullopt;
    quoted = line[i] == '"';
    const size_t end = line.find(quoted ? '"' : '>', i + 1);
    if (end == std::string::npos) return std::nullopt;
    return line.substr(i + 1, end - i - 1);
}

// The includes of `text` (a file at `path`) that its layer's rule forbids, each as
// "path:line: #include <...> (LAYER may not include WHAT)". Files outside the ruled layers
// (engine/app) give none.
std::vector<std::string> violations(const std::string& path, const std::string& text) {
    std::vector<std::string> out;
    const std::string layer = layerOf(path);
    auto rule = rules().find(layer);
    if (rule == rules().end()) return out;
    std::stringstream ss(text);
    size_t number = 0;
    for (std::string line; std::getline(ss, line);) {
        ++number;
        bool quoted = false;
        const std::optional<std::string> name = includeOf(line, quoted);
        if (!name) continue;
        const std::string what = reached(*name, quoted);
        if (what.empty() || what == layer || rule->second.allowed.count(what)) continue;
        const bool excepted =
            std::any_of(rule->second.exceptions.begin(), rule->second.exceptions.end(), [&](const auto& e) {
                return (e.first == what || e.first == *name) && path.starts_with(e.second);
            });
        if (excepted) continue;
        out.push_back(path + ":" + std::to_string(number) + ": " + line + " (" + layer + " may not include " +
                      what + ")");
    }
    return out;
}

TEST(Layers, TheRuleNamesTheFileTheLineAndWhatIsReached) {
    EXPECT_EQ(violations("analysis/heap/heap_map.h", "#pragma once\n#include \"graph/bitset.h\"\n"),
              std::vector<std::string>{
                  "analysis/heap/heap_map.h:2: #include \"graph/bitset.h\" (heap may not include graph)"});
    EXPECT_EQ(
        violations("analysis/classify/tree.cpp", "#include <SDL.h>\n#include <vulkan/vulkan.h>\n").size(),
        2u);
    EXPECT_EQ(violations("render/device.cpp", "#include \"scene/views.h\"\n").size(), 1u);
    EXPECT_EQ(violations("engine/scene/views.h", "#include \"app/ui.h\"\n#include <imgui.h>\n").size(), 2u);
    EXPECT_EQ(violations("engine/cli/cmd_report.cpp", "#include \"app/explorer.h\"\n").size(), 1u);
    EXPECT_EQ(violations("engine/app/explorer.cpp", "#include <SDL.h>\n").size(), 1u);
    // The allowed ones.
    EXPECT_TRUE(violations("engine/main.cpp", "#include \"app/explorer.h\"\n").empty());
    EXPECT_TRUE(violations("engine/app/platform.cpp", "#include <SDL.h>\n#include <SDL_vulkan.h>\n").empty());
    EXPECT_TRUE(violations("engine/scene/views.h", "#include \"render/draw_list.h\"\n").empty());
    EXPECT_EQ(violations("engine/scene/views.h", "#include \"render/device.h\"\n").size(), 1u);
    EXPECT_TRUE(
        violations("analysis/graph/dominator_view.h", "#include \"classify/classifier.h\"\n").empty());
    EXPECT_EQ(violations("analysis/graph/heap_graph.h", "#include \"classify/series.h\"\n").size(), 1u);
    EXPECT_TRUE(violations("engine/app/panel_view.cpp", "#include <imgui.h>\n").empty());
    EXPECT_TRUE(violations("analysis/heap/x.cpp", "#include <vector>\n#include \"heap_local.h\"\n").empty());
}

TEST(Layers, EveryIncludeOfTheTreeKeepsTheRule) {
    // MEMCITY_TEST_DATA is tests/data of the source tree.
    const fs::path root = fs::path(MEMCITY_TEST_DATA).parent_path().parent_path();
    size_t files = 0;
    std::vector<std::string> found;
    for (const char* top : {"analysis", "render", "engine"}) {
        ASSERT_TRUE(fs::is_directory(root / top)) << (root / top).string();
        for (const fs::directory_entry& e : fs::recursive_directory_iterator(root / top)) {
            const std::string ext = e.path().extension().string();
            if (!e.is_regular_file() || (ext != ".h" && ext != ".cpp")) continue;
            std::ifstream in(e.path());
            std::stringstream text;
            text << in.rdbuf();
            ++files;
            for (std::string& v : violations(fs::relative(e.path(), root).generic_string(), text.str()))
                found.push_back(std::move(v));
        }
    }
    EXPECT_GT(files, 250u);  // the walk found the tree
    std::string all;
    for (const std::string& v : found)
        all += v + "\n";
    EXPECT_TRUE(found.empty()) << all;
}

}  // namespace
}  // namespace memcity
