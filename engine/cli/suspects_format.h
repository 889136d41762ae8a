// The leak-suspects report (graph/suspects.h) as a document: titled sections of lines, written
// out as terminal text, Markdown or one self-contained HTML file (the timeline chart as inline
// SVG, the city as an inline PNG), so that the four formats say the same things.
#pragma once

#include <string>
#include <utility>
#include <vector>

#include "graph/suspects.h"
#include "heap/heap_history.h"

namespace memcity::cli {

// A table of the HTML and Markdown reports: a name column, then number columns (right-aligned),
// then, where `bars` is set, each row's share of the table's whole as a percentage and a bar.
struct SuspectsTable {
    std::string caption;
    std::vector<std::string> header;             // column titles; column 0 names the row
    std::vector<std::vector<std::string>> rows;  // plain UTF-8 cells, header.size() a row
    std::vector<double> bars;                    // a row's share (0..1); empty: no share column
    bool frames = false;  // column 0 is a call chain "frame ← caller ← ...": one frame a line,
                          // the allocating frame emphasised
};

struct SuspectsSection {
    std::string title;
    std::vector<std::string> lines;  // plain UTF-8 text, one finding or figure each (the text report)
    // The same findings laid out for the HTML and Markdown reports (a section with none of them
    // shows its lines as a list):
    std::string verdict;                                     // the report's answer in a sentence or two
    std::vector<std::pair<std::string, std::string>> facts;  // a facts table: what, figure
    std::vector<std::string> path;                           // a root path's steps, the root first
    std::vector<std::string> paragraphs;                     // findings outside tables
    std::vector<SuspectsTable> tables;
    std::vector<std::string> commands;  // commands to run next
};

// The report's sections: the header, the leak window, each suspect, the growth by type, the
// biggest retained groups, the other windows and notes, the next commands. `approx` is "≈ "
// for a sampled trace's estimates, else "".
std::vector<SuspectsSection> suspectsSections(const SuspectsReport& r, const HeapHistory& h,
                                              const std::string& file);

std::string suspectsText(const std::vector<SuspectsSection>& sections);
std::string suspectsMarkdown(const std::vector<SuspectsSection>& sections);

// An SVG line chart of the live bytes after every GC (and the reachable bytes at snapshot GCs)
// with GC-number and byte axes, a legend, the leak window shaded and labelled and the analysed
// snapshot GC marked; self-contained, no external reference.
std::string suspectsChartSvg(const SuspectsReport& r, const HeapHistory& h);

// One HTML file: the sections, the chart, and `png` (a PNG file's bytes) as a data URI, or, when
// `png` is empty, `no_picture` (why there is no city picture) in its place. No external URL.
std::string suspectsHtml(const std::vector<SuspectsSection>& sections, const std::string& chart_svg,
                         const std::string& png, const std::string& no_picture);

}  // namespace memcity::cli
