// memcity [FILE] [--gc N] [--classify CHAIN] [--filter EXPR] [--metric objects|bytes]
//         [--sort start|end|growth] [--view V] [--size WxH] [--script FILE]
//         [--no-vsync] [--validate] [--settings FILE|-] [--text]
//
// With a display: the explorer window. Without one (or with --text): the terminal overview.
#include <cstdlib>
#include <iostream>

#include "app/cmd_explore.h"
#include "app/explorer.h"
#include "cli/args.h"
#include "cli/commands.h"
#include "cli/dump_open.h"
#include "cli/load.h"

namespace memcity::app {
namespace {

int fail(const std::string& message) {
    std::cerr << message << "\n";
    return 1;
}

}  // namespace

bool hasDisplay() {
    for (const char* v : {"DISPLAY", "WAYLAND_DISPLAY"})
        if (const char* d = std::getenv(v); d && *d) return true;
    return false;
}

int runExplore(const cli::Words& words) {
    // The terminal overview takes its own options; --text or no display sends everything there.
    cli::Words rest;
    bool text = false;
    for (const std::string& w : words) {
        if (w == "--text")
            text = true;
        else
            rest.push_back(w);
    }
    // The terminal overview of a heap dump: its trace, imported first (the window imports it
    // while it shows it).
    if (text || !hasDisplay())
        if (Status s = cli::openDumpsIn(rest); !s.ok()) return fail("error: " + s.error().message);
    if (text) return cli::runOverview(rest);
    auto args = cli::Args::parse("open", rest);
    if (!args) return fail(args.error().message);
    if (args->help()) return cli::printHelp("open");
    if (!hasDisplay()) {
        if (args->has("--script"))
            return fail("memcity: --script needs a display (run it under xvfb-run -a)");
        // The overview takes the file and --gc; the window's options wait for a display.
        cli::Words overview = args->positionals();
        if (auto gc = args->value("--gc")) overview.insert(overview.end(), {"--gc", *gc});
        std::string note =
            "no display: this is the terminal overview; with a display, memcity opens its window";
        int unused = 0;
        for (const char* option : {"--classify", "--filter", "--metric", "--sort", "--view", "--size",
                                   "--settings", "--no-vsync", "--validate"})
            if (args->has(option)) note += std::string(unused++ == 0 ? ", where " : ", ") + option;
        if (unused > 0) note += unused == 1 ? " applies" : " apply";
        const int status = cli::runOverview(overview);
        if (status == 0) std::cerr << "(" << note << ")\n";
        return status;
    }
    if (args->positionals().size() > 1)
        return fail("memcity: expected at most one trace file (see 'memcity --help')");
    ExplorerOptions o;
    if (args->positionals().empty()) {
        o.path = cli::demoTracePath();
        o.title = "the bundled demo";
        if (o.path.empty())
            return fail(
                "memcity: the bundled demo trace (assets/demo.mct) was not found; name a FILE, or record the "
                "demo "
                "again with scripts/record-demo");
    } else {
        o.path = args->positionals()[0];
    }
    if (args->has("--gc")) {
        auto gc = args->unsignedValue("--gc", 0, 0, UINT32_MAX);
        if (!gc) return fail(gc.error().message);
        o.gc = static_cast<uint32_t>(*gc);
    }
    if (args->has("--classify") || args->has("--filter") || args->has("--metric") || args->has("--sort")) {
        auto chain = explore::chainConfigOf(args->value("--classify").value_or("package,type"),
                                            args->value("--filter").value_or(""));
        if (!chain) return fail("memcity: --classify: " + chain.error().message);
        if (auto m = args->value("--metric")) {
            auto metric = parseMetric(*m);
            if (!metric) return fail("memcity: --metric expects objects or bytes, got '" + *m + "'");
            chain->metric = *metric;
        }
        if (auto s = args->value("--sort")) {
            auto sort = parseSortStrategy(*s);
            if (!sort) return fail("memcity: --sort expects start, end or growth, got '" + *s + "'");
            chain->sort = *sort;
        }
        o.chain = *chain;
    }
    if (auto v = args->value("--view")) {
        auto kind = scene::parseViewKind(*v);
        if (!kind || !scene::isWindowView(*kind))
            return fail("memcity: --view expects " + scene::viewNames(true, ", ", " or ") + ", got '" + *v +
                        "'");
        o.view = *kind;
    }
    auto size = args->sizeValue("--size", {0, 0}, {kMinWindowSize.x, kMinWindowSize.y},
                                {kMaxWindowSize.x, kMaxWindowSize.y});
    if (!size) return fail(size.error().message);
    o.size = {static_cast<int>(size->width), static_cast<int>(size->height)};
    o.script = args->value("--script").value_or("");
    o.settings_path = args->value("--settings").value_or(o.script.empty() ? "" : "-");
    if (args->has("--no-vsync") || !o.script.empty()) o.vsync = false;
    o.validate = args->has("--validate");
    return runExplorer(o);
}

}  // namespace memcity::app
