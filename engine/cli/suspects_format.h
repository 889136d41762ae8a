// The leak-suspects report (graph/suspects.h) as a document: titled sections of lines, written
// out as terminal text, Markdown or one self-contained HTML file (the timeline chart as inline
// SVG, the city as an inline PNG), so that the four formats say the same things.
#pragma once

#include <string>
#include <vector>

#include "graph/suspects.h"
#include "heap/heap_history.h"

namespace memcity::cli {

struct SuspectsSection {
    std::string title;
    std::vector<std::string> lines;  // plain UTF-8 text, one finding or figure each
};

// The report's sections: the header, the leak window, each suspect, the growth by type, the
// biggest retained groups, the other windows and notes, the next commands. `approx` is "≈ "
// for a sampled trace's estimates, else "".
std::vector<SuspectsSection> suspectsSections(const SuspectsReport& r, const HeapHistory& h,
                                              const std::string& file);

std::string suspectsText(const std::vector<SuspectsSection>& sections);
std::string suspectsMarkdown(const std::vector<SuspectsSection>& sections);

// An SVG line chart of the live bytes after every GC (and the reachable bytes at snapshot GCs),
// the leak window shaded; self-contained, no external reference.
std::string suspectsChartSvg(const SuspectsReport& r, const HeapHistory& h);

// One HTML file: the sections, the chart, and `png` (a PNG file's bytes) as a data URI, or, when
// `png` is empty, `no_picture` (why there is no city picture) in its place. No external URL.
std::string suspectsHtml(const std::vector<SuspectsSection>& sections, const std::string& chart_svg,
                         const std::string& png, const std::string& no_picture);

}  // namespace memcity::cli
