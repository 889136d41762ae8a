// `memcity suspects` end to end: the bundled demo's leak and the synthetic growing map named
// (exact names in the report), a trace without a leak, bad input in one line, and the HTML report
// checked structurally (one file, no external reference); in a real headless browser by
// tests/render/test_suspects_browser.cpp (memcity_view_tests: it reads the screenshot with render/).
#include <gtest/gtest.h>

#include <algorithm>
#include <cstdlib>
#include <regex>
#include <sstream>

#include "cli/run_memcity.h"
#include "unit/trace_builder.h"

namespace memcity {
namespace {

using testing::Outcome;
using testing::runMemcity;
using testing::slurp;
using testing::tempPath;

const std::string kDemo = MEMCITY_DEMO_TRACE;

// `memcity suspects ARGS --format html`: the report renders the city with Vulkan in the child
// process, where the loader unloads the driver before LeakSanitizer could name the driver's own
// leaks (as for memcity_view_tests, leak checking of the renderer stays with memcity_render_tests).
Outcome htmlReport(const std::string& args) {
    return testing::runShell("ASAN_OPTIONS=detect_leaks=0:abort_on_error=1 " + std::string(MEMCITY_BINARY) +
                             " suspects " + args + " --format html");
}

std::string synth(const std::string& scenario) {
    const std::string path = tempPath("suspects-" + scenario) + ".mct";
    Outcome r = runMemcity("synth " + scenario + " -o " + path);
    EXPECT_EQ(r.status, 0) << r.err;
    return path;
}

bool has(const std::string& text, const std::string& what) {
    return text.find(what) != std::string::npos;
}

size_t count(const std::string& text, const std::string& what) {
    size_t n = 0;
    for (size_t at = text.find(what); at != std::string::npos; at = text.find(what, at + 1))
        ++n;
    return n;
}

TEST(CliSuspects, NamesTheDemoLeak) {
    Outcome r = runMemcity("suspects " + kDemo);
    ASSERT_EQ(r.status, 0) << r.err;
    // The window, the accumulation point (the audit history's map), its root path from the static
    // field, the entries, and the sites that feed them.
    EXPECT_TRUE(has(r.out, "Leak window: memory leak (regression)\n  GCs 0..41 (42 GCs")) << r.out;
    EXPECT_TRUE(has(r.out, "Suspect 1: java.util.concurrent.ConcurrentHashMap\n")) << r.out;
    EXPECT_TRUE(has(r.out, "holding the growth through its java.util.concurrent.ConcurrentHashMap$Node[]"))
        << r.out;
    EXPECT_TRUE(has(r.out,
                    "(the root references it directly; strong references only): static field "
                    "ShopServer.AUDIT_HISTORY \u2192 "
                    "java.util.concurrent.ConcurrentHashMap\n"))
        << r.out;
    EXPECT_TRUE(has(r.out, "  ShopServer$AuditEntry\n")) << r.out;
    EXPECT_TRUE(has(r.out, "allocation sites feeding it (with callers):\n")) << r.out;
    // The AuditEntry allocations: 2,500 of them in the request handler.
    EXPECT_TRUE(has(r.out,
                    "2,500 objects     78.1 KiB  ShopServer$Worker.handle(ShopServer.java:93) \u2190 "
                    "ShopServer$Worker.run(ShopServer.java:62)\n"))
        << r.out;
    EXPECT_TRUE(has(r.out, "verdict: java.util.concurrent.ConcurrentHashMap (object ")) << r.out;

    Outcome j = runMemcity("suspects " + kDemo + " --format json");
    ASSERT_EQ(j.status, 0) << j.err;
    EXPECT_TRUE(has(j.out, "\"root\": \"static field ShopServer.AUDIT_HISTORY\"")) << j.out;
    EXPECT_TRUE(has(j.out, "\"name\": \"ShopServer$AuditEntry\"")) << j.out;

    Outcome md = runMemcity("suspects " + kDemo + " --format md");
    ASSERT_EQ(md.status, 0) << md.err;
    EXPECT_TRUE(has(md.out, "\n## Suspect 1: java.util.concurrent.ConcurrentHashMap\n")) << md.out;
}

TEST(CliSuspects, NamesTheGrowingMapAndItsEntries) {
    Outcome r = runMemcity("suspects " + synth("growing-map"));
    ASSERT_EQ(r.status, 0) << r.err;
    // The cache (a ConcurrentHashMap under JourneyService's singleton), its entries' Locations and
    // Dates, and the request threads that add them.
    EXPECT_TRUE(has(r.out, "Suspect 1: java.util.concurrent.ConcurrentHashMap\n")) << r.out;
    EXPECT_TRUE(has(r.out,
                    "(1 reference from the root; strong references only): static field "
                    "com.dynatrace.easytravel.business.JourneyService.INSTANCE "
                    "\u2192 com.dynatrace.easytravel.business.JourneyService \u2192 "
                    "java.util.concurrent.ConcurrentHashMap\n"))
        << r.out;
    EXPECT_TRUE(has(r.out, "  com.dynatrace.easytravel.jpa.business.Location\n")) << r.out;
    EXPECT_TRUE(has(r.out, "com.dynatrace.easytravel.business.JourneyService.findLocations(")) << r.out;
    EXPECT_TRUE(has(r.out, "  http-nio-8080-exec-1\n")) << r.out;
    EXPECT_TRUE(has(r.out, "  java.util.Date\n")) << r.out;
}

TEST(CliSuspects, ATraceWithoutALeakSaysSo) {
    Outcome r = runMemcity("suspects " + synth("steady"));
    ASSERT_EQ(r.status, 0) << r.err;
    EXPECT_TRUE(has(r.out, "verdict: no leak found\n")) << r.out;
    EXPECT_TRUE(has(r.out, "no leak: memory does not keep growing to the end of the run")) << r.out;
    EXPECT_FALSE(has(r.out, "Suspect 1")) << r.out;
}

TEST(CliSuspects, BadInputIsOneLine) {
    Outcome f = runMemcity("suspects " + kDemo + " --format xml");
    EXPECT_EQ(f.status, 1);
    EXPECT_EQ(f.err, "memcity suspects: unknown --format 'xml' (expected text, md, html or json)\n");
    EXPECT_TRUE(f.out.empty());

    Outcome g = runMemcity("suspects " + kDemo + " --gc 1");
    EXPECT_EQ(g.status, 1);
    EXPECT_EQ(count(g.err, "\n"), 1u) << g.err;
    EXPECT_TRUE(has(g.err, "memcity suspects: " + kDemo + ": GC 1 has no reference snapshot")) << g.err;

    Outcome o = runMemcity("suspects " + kDemo + " --gc 4000");
    EXPECT_EQ(o.status, 1);
    EXPECT_EQ(count(o.err, "\n"), 1u) << o.err;

    Outcome m = runMemcity("suspects /nonexistent/trace.mct");
    EXPECT_EQ(m.status, 1);
    EXPECT_EQ(count(m.err, "\n"), 1u) << m.err;
    EXPECT_TRUE(has(m.err, "/nonexistent/trace.mct")) << m.err;
}

// The number after `"key": ` at the first such key after `anchors` (found one after the other)
// in a JSON report; -1 if none.
double jsonAfter(const std::string& json, const std::vector<std::string>& anchors, const std::string& key) {
    size_t at = 0;
    for (const std::string& a : anchors)
        if ((at = json.find(a, at)) == std::string::npos) return -1;
    const size_t k = json.find("\"" + key + "\": ", at);
    if (k == std::string::npos) return -1;
    return std::stod(json.substr(k + key.size() + 4));
}

// The lines of `text` after the line `title` up to the next line that does not start with 4
// spaces (a list of the report).
std::vector<std::string> listAfter(const std::string& text, const std::string& title) {
    std::vector<std::string> lines;
    size_t at = text.find("  " + title + "\n");
    if (at == std::string::npos) return lines;
    at = text.find('\n', at) + 1;
    while (at < text.size() && text.compare(at, 4, "    ") == 0) {
        const size_t end = text.find('\n', at);
        lines.push_back(text.substr(at, end - at));
        at = end + 1;
    }
    return lines;
}

TEST(CliSuspects, ASampledTraceShowsItsGrowthSitesAndThreadsAsEstimatesWithIntervals) {
    // The same scenario and seed recorded exact and sampled: the exact figures are the truth the
    // sampled report's intervals must hold.
    const std::string sampled = tempPath("suspects-gm-sampled") + ".mct";
    const std::string exact = tempPath("suspects-gm-exact") + ".mct";
    ASSERT_EQ(runMemcity("synth growing-map --seed 3 --refs 5 --sampled 4k -o " + sampled).status, 0);
    ASSERT_EQ(runMemcity("synth growing-map --seed 3 --refs 5 -o " + exact).status, 0);

    Outcome r = runMemcity("suspects " + sampled);
    ASSERT_EQ(r.status, 0) << r.err;
    EXPECT_TRUE(has(r.out, "Suspect 1: java.util.concurrent.ConcurrentHashMap\n")) << r.out;
    // The growth is the samples born in the window, as estimates with intervals.
    const std::string range = "\\([0-9.,]+( [KM]?i?B)?\u2013[0-9.,]+( [KM]?i?B)?\\)";
    const std::regex growth("growth: \u2248 [0-9,]+ " + range + " objects, \u2248 [0-9.]+ [KM]iB " + range +
                            ", [0-9,]+ samples born after GC 0");
    EXPECT_TRUE(std::regex_search(r.out, growth)) << r.out;
    EXPECT_TRUE(has(r.out, "found by following the sampled growth (")) << r.out;
    EXPECT_TRUE(has(r.out, " of the reached heap; exact, from the snapshot)\n")) << r.out;
    EXPECT_TRUE(std::regex_search(
        r.out, std::regex("holds \u2248 [0-9,]+ " + range + " objects, \u2248 [0-9.]+ [KM]iB " + range +
                          ", [0-9,]+ samples of the growth \\(\u2248 ")))
        << r.out;
    // Every site, thread and type the point holds: an estimate with its intervals and samples;
    // no bucket for the objects the snapshot alone listed.
    const std::regex estimate(": \u2248 [0-9,]+ " + range + " objects, \u2248 [0-9.]+ [KM]?i?B " + range +
                              ", [0-9,]+ samples?$");
    for (const char* title : {"allocation sites feeding it (with callers, estimated from its samples):",
                              "threads feeding it, estimated from its samples:",
                              "accumulated, by type, estimated from its samples:"}) {
        const auto lines = listAfter(r.out, title);
        EXPECT_FALSE(lines.empty()) << title << "\n" << r.out;
        for (const std::string& l : lines)
            EXPECT_TRUE(std::regex_search(l, estimate)) << l;
    }
    EXPECT_FALSE(has(r.out, "<unknown site>")) << r.out;
    EXPECT_FALSE(has(r.out, "<unknown thread>")) << r.out;

    Outcome j = runMemcity("suspects " + sampled + " --format json");
    ASSERT_EQ(j.status, 0) << j.err;
    Outcome e = runMemcity("suspects " + exact + " --format json");
    ASSERT_EQ(e.status, 0) << e.err;
    EXPECT_TRUE(has(j.out, "\"points_found_by\": \"sampled growth\"")) << j.out;
    EXPECT_TRUE(has(e.out, "\"points_found_by\": \"growth\"")) << e.out;
    // The point's growth, and the entries' Locations in the growth by type: the true figures lie
    // within the sampled report's intervals.
    const std::vector<std::string> point{"\"suspects\": [", "\"growth\": {"},
        location{"\"growth_by_type\"", "\"com.dynatrace.easytravel.jpa.business.Location\""};
    for (const std::vector<std::string>& anchor : {point, location}) {
        for (const std::string unit : {"objects", "bytes"}) {
            const double truth = jsonAfter(e.out, anchor, unit);
            const double low = jsonAfter(j.out, anchor, unit + "_low"),
                         high = jsonAfter(j.out, anchor, unit + "_high");
            EXPECT_GT(truth, 0) << anchor.back() << " " << unit;
            EXPECT_LE(low, truth) << anchor.back() << " " << unit;
            EXPECT_GE(high, truth) << anchor.back() << " " << unit;
            EXPECT_LT(high, 2 * truth) << anchor.back() << " " << unit;  // an interval, not "anything"
        }
        EXPECT_GE(jsonAfter(j.out, anchor, "samples"), 30) << anchor.back();
        EXPECT_EQ(jsonAfter(e.out, anchor, "samples"), -1) << anchor.back();  // counted: no samples field
    }
}

TEST(CliSuspects, ASparselySampledTraceFindsThePointFromRetainedSizesAndSaysSo) {
    // At 256 KiB a sample the growing map's growth rests on 7 samples: too few to follow.
    const std::string sparse = tempPath("suspects-gm-sparse") + ".mct";
    ASSERT_EQ(runMemcity("synth growing-map --refs 5 --sampled 256k -o " + sparse).status, 0);
    Outcome r = runMemcity("suspects " + sparse);
    ASSERT_EQ(r.status, 0) << r.err;
    EXPECT_TRUE(has(r.out, "Suspect 1: java.util.concurrent.ConcurrentHashMap\n")) << r.out;
    EXPECT_TRUE(has(
        r.out, "found from the whole heap's retained sizes: only 7 samples of growth, too few to follow\n"))
        << r.out;
    EXPECT_TRUE(has(r.out, ") retains 97.2% of the reached heap, kept by static field")) << r.out;
    Outcome j = runMemcity("suspects " + sparse + " --format json");
    ASSERT_EQ(j.status, 0) << j.err;
    EXPECT_TRUE(has(j.out, "\"points_found_by\": \"retained\"")) << j.out;
}

// The HTML report of the demo, written once for the two tests below.
const std::string& demoHtml() {
    static const std::string path = [] {
        const std::string p = tempPath("suspects-demo") + ".html";
        Outcome r = htmlReport(kDemo + " -o " + p);
        EXPECT_EQ(r.status, 0) << r.err;
        return p;
    }();
    return path;
}

TEST(CliSuspects, HtmlIsOneWellFormedFileWithNoExternalReference) {
    const std::string html = slurp(demoHtml());
    ASSERT_FALSE(html.empty());
    EXPECT_EQ(html.rfind("<!DOCTYPE html>\n<html lang=\"en\">", 0), 0u);
    EXPECT_TRUE(html.size() > 8 && html.substr(html.size() - 8) == "</html>\n");
    // Nothing fetched: no links, scripts, stylesheets or URLs other than the SVG namespace.
    for (const char* bad : {"href=", "<script", "<link", "url(", "@import", "src=\"http", "https://"})
        EXPECT_FALSE(has(html, bad)) << bad;
    EXPECT_EQ(count(html, "http://"), count(html, "xmlns=\"http://www.w3.org/2000/svg\""));
    // Balanced elements.
    for (const char* tag : {"pre", "div", "svg", "h2", "body", "head", "style"})
        EXPECT_EQ(count(html, std::string("<") + tag + ">") + count(html, std::string("<") + tag + " "),
                  count(html, std::string("</") + tag + ">"))
            << tag;
    // The chart with the leak window shaded, and the city inlined or its absence said.
    EXPECT_EQ(count(html, "<rect class=\"leak-window\""), 1u);
    EXPECT_EQ(count(html, "<polyline class=\"live\""), 1u);
    EXPECT_TRUE(has(html,
                    "<img alt=\"the heap as a city at the analysed GC\" width=\"800\" "
                    "src=\"data:image/png;base64,iVBORw0KGgo") ||
                has(html, "<p class=\"missing\">no city picture: "));
    EXPECT_TRUE(has(html, "ShopServer$AuditEntry"));
    EXPECT_TRUE(
        has(html, "static field ShopServer.AUDIT_HISTORY \u2192 java.util.concurrent.ConcurrentHashMap"));
}

// "1,234,567": a count as the reports print it.
std::string grouped(double value) {
    std::string digits = std::to_string(static_cast<uint64_t>(value));
    for (size_t at = digits.size(); at > 3; at -= 3)
        digits.insert(at - 3, ",");
    return digits;
}

TEST(CliSuspects, HtmlLaysTheFindingsOutAsTables) {
    const std::string html = slurp(demoHtml());
    // The verdict box above the first section: the point, the path that keeps it, what it holds.
    const size_t verdict = html.find(
        "<div class=\"verdict\"><strong>Verdict.</strong> The leak suspect is one "
        "java.util.concurrent.ConcurrentHashMap (object 11690), kept by static field "
        "ShopServer.AUDIT_HISTORY "
        "\u2192 java.util.concurrent.ConcurrentHashMap. It retains 1.1 MiB (37.8% of the reached heap) and "
        "holds 1.1 MiB (47.3%) of the 2.3 MiB that accumulated over GCs 0..41.</div>");
    ASSERT_NE(verdict, std::string::npos) << html.substr(0, 3000);
    EXPECT_LT(verdict, html.find("<h2>"));
    // The window's evidence and the suspect's facts as two-column tables.
    EXPECT_EQ(count(html, "<table class=\"facts\">"), 2u);
    EXPECT_TRUE(has(html, "<tr><th>growth</th><td>+2.3 MiB (2,426,904 bytes)</td></tr>"));
    EXPECT_TRUE(has(html,
                    "<tr><th>retained</th><td>27,402 objects, 1.1 MiB (1,150,120 bytes), 37.8% of the "
                    "reached heap</td></tr>"));
    // The root path as a chain of steps.
    EXPECT_TRUE(has(html,
                    "<ol class=\"path\"><li>static field ShopServer.AUDIT_HISTORY</li><li>"
                    "java.util.concurrent.ConcurrentHashMap (object 11690)</li></ol>"));
    // A table per list: the suspect's types, sites and threads, the growth by type, the retained
    // groups by type and the single objects.
    EXPECT_EQ(count(html, "<table class=\"list\">"), 6u);
    for (const char* caption :
         {"<h3>Accumulated, by type</h3>", "<h3>Threads feeding it</h3>",
          "<h3>Allocation sites feeding it (the allocating frame first, then its callers)</h3>",
          "<h3>By type (what the top-level dominators of the type retain)</h3>",
          "<h3>Single objects retaining the most</h3>"})
        EXPECT_TRUE(has(html, std::string(caption) + "\n<table class=\"list\">")) << caption;
    // Numbers right-aligned, the share as a bar and a percentage.
    EXPECT_TRUE(has(html,
                    "<tr><td class=\"name\">ShopServer$AuditEntry</td><td class=\"num\">2,500</td>"
                    "<td class=\"num\">78.1&nbsp;KiB</td><td class=\"share\"><span class=\"bar\"><span "
                    "style=\"width:7.0%\"></span></span><span class=\"pct\">7.0%</span></td></tr>"));
    // A site: the allocating frame emphasised, each caller on its own line.
    EXPECT_TRUE(has(html,
                    "<td class=\"name\"><strong>ShopServer$Worker.<wbr>handle(<wbr>ShopServer.<wbr>java:93)"
                    "</strong><br><span class=\"caller\">\u2190\u00a0ShopServer$Worker.<wbr>run(<wbr>"
                    "ShopServer.<wbr>java:62)</span></td><td class=\"num\">2,500</td>"));
    EXPECT_TRUE(has(html, "<tr><td class=\"name\">http-worker-2</td><td class=\"num\">13,273</td>"));
    for (const char* tag : {"table", "thead", "tbody", "tr", "th", "td", "ol", "li", "ul", "h3"})
        EXPECT_EQ(count(html, std::string("<") + tag + ">") + count(html, std::string("<") + tag + " "),
                  count(html, std::string("</") + tag + ">"))
            << tag;
    EXPECT_FALSE(has(html, "<pre>java")) << "no list left as preformatted text";
}

TEST(CliSuspects, HtmlShowsEveryMainFigureOfTheJson) {
    Outcome j = runMemcity("suspects " + kDemo + " --format json");
    ASSERT_EQ(j.status, 0) << j.err;
    const std::string html = slurp(demoHtml());
    const std::string window = "\"leak_window\"", point = "\"suspects\": [";
    const std::vector<std::pair<std::vector<std::string>, std::string>> figures{
        {{}, "gcs"},
        {{window}, "first_gc"},
        {{window}, "last_gc"},
        {{window}, "first_bytes"},
        {{window}, "last_bytes"},
        {{window}, "growth_bytes"},
        {{"\"reached\""}, "objects"},
        {{"\"reached\""}, "bytes"},
        {{window, "\"growth\": {"}, "objects"},
        {{window, "\"growth\": {"}, "bytes"},
        {{point}, "id"},
        {{point, "\"retained\""}, "objects"},
        {{point, "\"retained\""}, "bytes"},
        {{point, "\"growth\": {"}, "objects"},
        {{point, "\"growth\": {"}, "bytes"},
        {{"\"largest\""}, "id"},
    };
    for (const auto& [anchors, key] : figures) {
        const double v = jsonAfter(j.out, anchors, key);
        ASSERT_GE(v, 0) << key;
        EXPECT_GT(v, key == "first_gc" ? -1 : 0) << key;
        // Object ids are names ("object 11690"), the rest counts ("1,150,120").
        const std::string shown =
            key == "id" ? "(object " + std::to_string(static_cast<uint64_t>(v)) + ")" : grouped(v);
        EXPECT_TRUE(has(html, shown)) << key << " " << shown;
    }
    const double gc = jsonAfter(j.out, {"\"r2\""}, "gc");
    EXPECT_TRUE(has(html, "heap analysed at GC " + grouped(gc) +
                              " (its reference snapshot): 66,457 objects, "
                              "2.9 MiB (3,046,648 bytes) reached from the GC roots"));
}

TEST(CliSuspects, TimelineHasAxesALegendTheLabelledWindowAndTheSnapshot) {
    const std::string html = slurp(demoHtml());
    // The demo leaks over the whole trace: the shaded window says so.
    EXPECT_TRUE(has(html, ">leak window GCs 0..41 (the whole trace)</text>"));
    // MiB gridlines 0..5 (the demo peaks at 4.3 MiB live), GC ticks 0, 10, .., 40, the legend.
    for (const char* label : {">0 MiB</text>", ">1 MiB</text>", ">5 MiB</text>", ">0</text>", ">10</text>",
                              ">40</text>", ">GC number</text>", ">live after each GC</text>",
                              ">reachable from the roots (snapshot GCs)</text>", ">snapshot GC 41</text>"})
        EXPECT_TRUE(has(html, label)) << label;
    EXPECT_FALSE(has(html, ">6 MiB</text>"));
    EXPECT_EQ(count(html, "<line class=\"snapshot\""), 1u);

    // The growing map leaks from GC 3 on: a window that is part of the trace, labelled plainly.
    const std::string p = tempPath("suspects-gm") + ".html";
    ASSERT_EQ(htmlReport(synth("growing-map") + " -o " + p).status, 0);
    const std::string gm = slurp(p);
    EXPECT_TRUE(has(gm, ">leak window GCs 3..26</text>")) << gm.substr(0, 4000);
}

TEST(CliSuspects, MarkdownHasTheVerdictAsABlockquoteAndTheListsAsTables) {
    Outcome md = runMemcity("suspects " + kDemo + " --format md");
    ASSERT_EQ(md.status, 0) << md.err;
    EXPECT_TRUE(
        has(md.out,
            "\n\n> **Verdict:** The leak suspect is one java.util.concurrent.ConcurrentHashMap (object "
            "11690), kept by static field ShopServer.AUDIT\\_HISTORY \u2192 "
            "java.util.concurrent.ConcurrentHashMap. It retains 1.1 MiB"))
        << md.out;
    EXPECT_EQ(count(md.out, "| --- | ---: | ---: | ---: |\n"), 6u) << md.out;
    EXPECT_TRUE(has(md.out, "\n| ShopServer$AuditEntry | 2,500 | 78.1 KiB | 7.0% |\n")) << md.out;
    EXPECT_TRUE(has(md.out,
                    "\n| **ShopServer$Worker.handle(ShopServer.java:93)**<br>\u2190 "
                    "ShopServer$Worker.run(ShopServer.java:62) | 2,500 | 78.1 KiB | 7.0% |\n"))
        << md.out;
    EXPECT_TRUE(has(md.out, "\n| **growth** | +2.3 MiB (2,426,904 bytes) |\n")) << md.out;
    EXPECT_TRUE(has(md.out, "\n| byte\\[\\] | 8,000 | 549.2 KiB | 48.9% |\n")) << md.out;
    // Every row of a table has its header's cells (no unescaped "|" in a name).
    size_t cells = 0;
    std::istringstream lines(md.out);
    for (std::string l; std::getline(lines, l);) {
        if (l.empty() || l[0] != '|') {
            cells = 0;
            continue;
        }
        size_t n = 0;
        for (size_t i = 0; i < l.size(); ++i)
            if (l[i] == '|' && (i == 0 || l[i - 1] != '\\')) ++n;
        if (cells == 0) cells = n;
        EXPECT_EQ(n, cells) << l;
    }
}

}  // namespace
}  // namespace memcity
