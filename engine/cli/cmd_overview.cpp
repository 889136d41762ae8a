// memcity [FILE] [--gc N]: a terminal overview of a trace. A sampled recording's figures are
// estimates, marked "≈" (the types' with their 95% intervals), and the line above them says so.
#include <algorithm>
#include <cstdio>
#include <iostream>
#include <string>
#include <unordered_map>
#include <vector>

#include "cli/args.h"
#include "cli/commands.h"
#include "cli/load.h"
#include "cli/one_trace.h"
#include "cli/sampled_output.h"
#include "cli/text_format.h"
#include "trace/event_decoder.h"

namespace memcity::cli {
namespace {

// Live bytes per GC as rows of block characters, the tallest column at full height.
void printChart(const HeapHistory& h) {
    const auto& gcs = h.gcs();
    if (gcs.empty()) return;
    const size_t cols = std::min<size_t>(gcs.size(), 64);
    const int rows = 8;
    std::vector<uint64_t> live(cols, 0), reach(cols, 0);
    for (size_t c = 0; c < cols; ++c) {
        size_t a = c * gcs.size() / cols, b = std::max(a + 1, (c + 1) * gcs.size() / cols);
        for (size_t g = a; g < b; ++g) {
            live[c] = std::max(live[c], gcs[g].live_bytes);
            if (gcs[g].has_snapshot) reach[c] = std::max(reach[c], gcs[g].reachable_bytes);
        }
    }
    uint64_t top = std::max<uint64_t>(1, *std::max_element(live.begin(), live.end()));
    static const char* blocks[] = {" ", "▁", "▂", "▃", "▄", "▅", "▆", "▇", "█"};
    std::cout << "\nlive heap after each GC (" << (h.sampled() ? "estimated, " : "") << gcs.size() << " GCs"
              << (cols < gcs.size() ? ", max per column" : "") << ")\n";
    for (int r = rows - 1; r >= 0; --r) {
        std::string label = r == rows - 1 ? (h.sampled() ? "\u2248 " : "") + formatBytes(top)
                            : r == 0      ? "0"
                                          : "";
        std::printf("%s |", padLeft(label, 10).c_str());
        for (size_t c = 0; c < cols; ++c) {
            double eighths = static_cast<double>(live[c]) * rows * 8 / static_cast<double>(top) - r * 8;
            int e = std::clamp(static_cast<int>(eighths + 0.5), 0, 8);
            std::cout << blocks[e];
        }
        std::cout << "\n";
    }
    std::printf("%10s +%s\n", "", std::string(cols, '-').c_str());
    std::printf("%10s  GC 0%*s\n", "", static_cast<int>(cols > 6 ? cols - 4 : 2),
                ("GC " + std::to_string(gcs.size() - 1)).c_str());
}

void printTopTypes(const LoadedTrace& t, uint32_t gc) {
    auto heap = t.history->heapAt(gc);
    if (!heap) {
        std::cerr << "error: " << heap.error().message << "\n";
        return;
    }
    HeapView v = heap->view();
    // A sampled heap's rows are what its samples stand for (heap/sampling.h).
    struct Row {
        uint64_t objects = 0, bytes = 0;
        SampleSums sampled;
    };
    std::unordered_map<uint32_t, Row> by_type;
    v.forEachLive([&](size_t pos) {
        Row& r = by_type[v.type(pos)];
        r.objects++;
        r.bytes += v.size(pos);
        if (v.sampled()) r.sampled.add(v.weight(pos), v.size(pos));
    });
    if (v.sampled()) {
        for (auto& [type, r] : by_type) {
            r.objects = r.sampled.roundedObjects();
            r.bytes = r.sampled.roundedBytes();
        }
        const GcRecord& record = t.history->gcs()[gc];
        std::cout << "\nbiggest types at GC " << gc << " (" << estimateText(record.live_sampled, false)
                  << " objects, " << estimateText(record.live_sampled, true) << ", from "
                  << formatCountOf(record.live_sampled.samples, "sample", "samples") << ")\n";
    }
    std::vector<std::pair<uint32_t, Row>> rows(by_type.begin(), by_type.end());
    std::sort(rows.begin(), rows.end(), [](const auto& a, const auto& b) {
        return a.second.bytes != b.second.bytes ? a.second.bytes > b.second.bytes : a.first < b.first;
    });
    if (!v.sampled())
        std::cout << "\nbiggest types at GC " << gc << " (" << formatCount(v.liveObjects()) << " objects, "
                  << formatBytes(v.liveBytes()) << ")\n";
    const uint64_t live_bytes = v.sampled() ? t.history->gcs()[gc].live_bytes : v.liveBytes();
    const SymbolTable& s = t.trace->symbols();
    for (size_t i = 0; i < std::min<size_t>(rows.size(), 10); ++i) {
        const auto& [type, r] = rows[i];
        double share = live_bytes ? static_cast<double>(r.bytes) / static_cast<double>(live_bytes) : 0.0;
        std::string bar(static_cast<size_t>(share * 30 + 0.5), '#');
        if (v.sampled()) {
            std::printf("  %s %6s %s  %-30s %s\n", padLeft(estimateText(r.sampled, true), 30).c_str(),
                        formatPercent(share).c_str(),
                        padLeft(estimateText(r.sampled, false) + " objects", 34).c_str(), bar.c_str(),
                        printable(s.type(type).name).c_str());
            continue;
        }
        std::printf("  %10s %6s %12s %s  %-30s %s\n", formatBytes(r.bytes).c_str(),
                    formatPercent(share).c_str(), formatCount(r.objects).c_str(),
                    r.objects == 1 ? "object " : "objects", bar.c_str(),
                    printable(s.type(type).name).c_str());
    }
}

}  // namespace

int runOverview(const Words& words) {
    auto args = Args::parse("open", words);
    if (!args) {
        std::cerr << args.error().message << "\n";
        return 1;
    }
    if (args->help()) return printHelp("open");
    // Of the window's options the terminal overview takes --gc (and --text, which chose it).
    for (const OptionSpec& o : findCommand("open")->options)
        if (o.name != "--gc" && o.name != "--text" && args->has(o.name)) {
            std::cerr << "memcity open: " << o.name
                      << " is for the window; the terminal overview takes --gc N\n";
            return 1;
        }
    if (args->positionals().size() > 1) {
        std::cerr << "memcity: expected at most one trace file (see 'memcity --help')\n";
        return 1;
    }
    std::string path = args->positionals().empty() ? demoTracePath() : args->positionals()[0];
    if (path.empty()) {
        std::cerr << "memcity: the bundled demo trace (assets/demo.mct) was not found; name a FILE, or "
                     "record the demo again with scripts/record-demo\n";
        return 1;
    }
    auto gc_opt = args->unsignedValue("--gc", 0);
    if (!gc_opt) {
        std::cerr << gc_opt.error().message << "\n";
        return 1;
    }
    auto loaded = loadOrSay(path);
    if (!loaded) return 1;
    const HeapHistory& h = *loaded->history;
    if (args->has("--gc") && *gc_opt >= h.gcCount()) {
        std::cerr << "memcity: " << h.gcRangeError(*gc_opt) << "\n";
        return 1;
    }
    const EventCounts& c = h.counts();
    std::string scenario;
    for (const auto& [k, v] : loaded->trace->meta())
        if (k == "synth.scenario" || k == "command") scenario = v;
    if (args->positionals().empty()) scenario = "the bundled demo";
    // A sampled recording's allocations are its samples, and its heaps estimates.
    const std::string allocated = h.sampled()
                                      ? formatCountOf(c.objects_allocated, "allocation", "allocations") +
                                            " sampled (" + formatBytes(c.bytes_allocated) + " of their own)"
                                      : formatCount(c.objects_allocated) + " objects allocated (" +
                                            formatBytes(c.bytes_allocated) + ")";
    const std::string about = h.sampled() ? "\u2248 " : "";
    std::cout << path << (scenario.empty() ? "" : "  (" + printable(scenario) + ")") << "\n"
              << "  " << formatDuration(clampNs(durationNs(c.first_time_ns, c.last_time_ns))) << " recorded, "
              << formatCountOf(h.gcCount(), "GC", "GCs") << ", " << allocated << "\n"
              << "  peak live heap " << about << formatBytes(c.peak_live_bytes) << " (" << about
              << formatCount(c.peak_live_objects) << " objects) at GC " << c.peak_bytes_gc << ", "
              << formatCountOf(h.snapshots().size(), "reference snapshot", "reference snapshots") << "\n";
    if (h.sampled()) {
        std::cout << "  ";
        sayEstimates(h, std::cout);
    }
    printDiagnostics(*loaded, std::cerr, false);
    if (h.gcCount() == 0) {
        std::cout << "  the trace has no GCs\n";
        return 0;
    }
    printChart(h);
    uint32_t gc = c.peak_bytes_gc;
    if (args->has("--gc")) gc = static_cast<uint32_t>(*gc_opt);
    printTopTypes(*loaded, gc);
    std::cout << "\nmore: memcity info " << path << "  |  memcity gcs " << path << "\n";
    return 0;
}

extern const Command kOpen{
    .name = "open",
    .summary = "explore a trace in a window; the terminal overview without a display (the default)",
    .usage = R"(usage: memcity [FILE] [--gc N] [--classify CHAIN] [--filter EXPR] [--metric objects|bytes]
               [--sort start|end|growth] [--view V] [--size WxH]
               [--script FILE] [--no-vsync] [--validate] [--settings FILE|-] [--text]
       memcity open [FILE] [--gc N]        the terminal overview

With a display, opens the explorer window: the trace loads in the background (the first
GC shows as soon as it is rebuilt), the memory city, sunburst and icicle of the classifier
chain, the timeline, the tree table and the inspector (docs/explorer.md). Without a display,
or with --text, prints the terminal overview: what was recorded, the live heap at every GC
as a chart, and the types holding the most memory at the peak GC (or at GC N).
Without FILE, opens the bundled demo trace.

)",
    .options =
        {
            {"--gc", "N", "", "start at GC N (the overview: list the biggest types at GC N)"},
            {"--classify", "CHAIN", "", "the classifier chain (default: package,type; docs/classifiers.md)"},
            {"--filter", "EXPR", "", "keep only the objects EXPR accepts (docs/expressions.md)"},
            {"--metric", "M", "", "objects or bytes (default bytes)"},
            {"--sort", "S", "", "the order of siblings: start, end or growth (default growth)"},
            {"--view", "V", "",
             "city, sunburst, icicle, timeline-trees or heapmap (default: the last one used)"},
            {"--size", "WxH", "", "the window's size (default: the last one used)"},
            {"--script", "FILE", "", "run the commands of FILE in the window, then quit (docs/explorer.md)"},
            {"--no-vsync", "", "", "draw as fast as possible"},
            {"--validate", "", "", "the Vulkan validation layer on"},
            {"--settings", "FILE", "",
             "read and write settings there ('-': neither; default\n~/.config/memcity/settings.ini, "
             "$MEMCITY_SETTINGS)"},
            {"--text", "", "", "the terminal overview even with a display"},
        },
    .run = [](const Words& a, const Services&) { return runOverview(a); },
};

}  // namespace memcity::cli
