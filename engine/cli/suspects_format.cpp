#include "cli/suspects_format.h"

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <sstream>

#include "cli/sampled_output.h"
#include "cli/text_format.h"

namespace memcity::cli {
namespace {

std::string rate(double per_s) {
    const double a = std::min(std::fabs(per_s), 9e18);
    return std::string(per_s < 0 ? "-" : "") + formatBytes(static_cast<uint64_t>(std::llround(a))) + "/s";
}

std::string signedBytes(int64_t b) {
    return (b < 0 ? "-" : "+") + formatBytes(b < 0 ? 0 - static_cast<uint64_t>(b) : static_cast<uint64_t>(b));
}

std::string share(uint64_t part, uint64_t whole) {
    return formatPercent(whole ? static_cast<double>(part) / static_cast<double>(whole) : 0.0);
}

std::string sizes(const Sizes& s, const std::string& approx) {
    return approx + formatCountOf(s.objects, "object", "objects") + ", " + approx + formatBytes(s.bytes);
}

// "≈ 1,234 objects (1,001–1,512), ≈ 38.6 KiB (31.3–47.3 KiB), 52 samples": a sampled
// estimate with its intervals and the samples behind it.
std::string estimateSizes(const SampleSums& e) {
    return estimateText(e, false) + " objects, " + estimateText(e, true) + ", " +
           formatCountOf(e.samples, "sample", "samples");
}

// A counted name: aligned columns; an estimated one (it has samples): the name, then its
// estimates with their intervals.
std::string nameLine(const SuspectName& n) {
    if (n.sampled.samples) return "  " + n.name + ": " + estimateSizes(n.sampled);
    return padLeft(formatCount(n.objects), 12) + " objects " + padLeft(formatBytes(n.bytes), 12) + "  " +
           n.name;
}

// "the root references it directly" / "2 references from the root".
std::string pathLength(size_t references) {
    if (references == 0) return "the root references it directly";
    return formatCountOf(references, "reference", "references") + " from the root";
}

std::string kindTitle(const Window& w) {
    std::string t;
    switch (w.kind) {
        case WindowKind::kLeakRegression: t = "memory leak (regression)"; break;
        case WindowKind::kLeakHeuristic: t = "memory leak (heuristic)"; break;
        case WindowKind::kGcOverhead: t = "high GC overhead"; break;
        case WindowKind::kChurn: t = "high memory churn"; break;
    }
    return w.narrowed ? t + ", steepest part" : t;
}

std::string windowSpan(const Window& w) {
    return "GCs " + std::to_string(w.first_gc) + ".." + std::to_string(w.last_gc) + " (" +
           formatCountOf(w.gcs, "GC", "GCs") + ", " + formatDuration(w.start_ns) + " .. " +
           formatDuration(w.end_ns) + ")";
}

std::string htmlEscape(const std::string& s) {
    std::string o;
    o.reserve(s.size());
    for (char c : s) {
        switch (c) {
            case '&': o += "&amp;"; break;
            case '<': o += "&lt;"; break;
            case '>': o += "&gt;"; break;
            case '"': o += "&quot;"; break;
            default: o += c;
        }
    }
    return o;
}

std::string base64(const std::string& bytes) {
    static const char* k = "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789+/";
    std::string o;
    o.reserve((bytes.size() + 2) / 3 * 4);
    size_t i = 0;
    for (; i + 2 < bytes.size(); i += 3) {
        const uint32_t v = (uint32_t{static_cast<uint8_t>(bytes[i])} << 16) |
                           (uint32_t{static_cast<uint8_t>(bytes[i + 1])} << 8) |
                           static_cast<uint8_t>(bytes[i + 2]);
        o += k[(v >> 18) & 63];
        o += k[(v >> 12) & 63];
        o += k[(v >> 6) & 63];
        o += k[v & 63];
    }
    if (i < bytes.size()) {
        const bool two = i + 1 < bytes.size();
        const uint32_t v = (uint32_t{static_cast<uint8_t>(bytes[i])} << 16) |
                           (two ? uint32_t{static_cast<uint8_t>(bytes[i + 1])} << 8 : 0u);
        o += k[(v >> 18) & 63];
        o += k[(v >> 12) & 63];
        o += two ? k[(v >> 6) & 63] : '=';
        o += '=';
    }
    return o;
}

}  // namespace

std::vector<SuspectsSection> suspectsSections(const SuspectsReport& r, const HeapHistory& h,
                                              const std::string& file) {
    const std::string approx = h.sampled() ? "\u2248 " : "";
    std::vector<SuspectsSection> out;
    {
        SuspectsSection s{"Leak suspects: " + file, {}};
        s.lines.push_back(formatCountOf(r.windows.gcs, "GC", "GCs") + " over " +
                          formatDuration(clampNs(durationNs(r.windows.run.start_ns, r.windows.run.end_ns))) +
                          "; leaks looked for in " + std::string(leakSeriesName(r.windows.leak_series)) +
                          " memory (" + formatCountOf(r.windows.leak_points, "point", "points") + ")");
        if (r.has_snapshot)
            s.lines.push_back("heap analysed at GC " + std::to_string(r.gc) + " (its reference snapshot): " +
                              sizes(r.reached, "") + " reached from the GC roots");
        std::ostringstream est;
        sayEstimates(h, est);
        if (!est.str().empty()) {
            std::string e = est.str();
            while (!e.empty() && e.back() == '\n')
                e.pop_back();
            s.lines.push_back(e + "; reference figures are exact for the heap made whole at the snapshot");
        }
        if (!r.leak)
            s.lines.push_back("verdict: no leak found");
        else if (r.suspects.empty())
            s.lines.push_back("verdict: memory leaks, but no single object holds the growth");
        else {
            const Suspect& top = r.suspects.front();
            const std::string holds =
                r.basis == PointBasis::kRetained
                    ? "retains " + share(top.retained.bytes, r.reached.bytes) + " of the reached heap"
                    : "holds " + approx + formatPercent(top.share) + " of the growth";
            s.lines.push_back("verdict: " + top.type + " (object " + std::to_string(top.id) + ") " + holds +
                              (top.root.empty() ? std::string() : ", kept by " + top.root));
        }
        out.push_back(std::move(s));
    }
    if (r.leak) {
        const Window& w = *r.leak;
        const LeakFigures& f = w.leak;
        SuspectsSection s{"Leak window: " + kindTitle(w), {}};
        s.lines.push_back(windowSpan(w));
        s.lines.push_back(std::string(leakSeriesName(f.series)) + " memory " + approx +
                          formatBytes(f.first_bytes) + " -> " + approx + formatBytes(f.last_bytes) + " (" +
                          approx + signedBytes(f.growth_bytes) + "), peak " + approx +
                          formatBytes(f.peak_bytes) + " at GC " + std::to_string(f.peak_gc));
        char line[200];
        std::snprintf(line, sizeof line,
                      "grows %s%s; least-squares line %s%s (r\u00b2 %.2f) through %u points", approx.c_str(),
                      rate(f.growth_per_s).c_str(), approx.c_str(), rate(f.slope_per_s).c_str(), f.r2,
                      f.points);
        s.lines.push_back(line);
        s.lines.push_back("why: " + w.reason);
        if (r.has_snapshot && r.sampled)
            s.lines.push_back("growth: " + estimateSizes(r.growth_sampled) + " born after GC " +
                              std::to_string(w.first_gc) + " and still reached at GC " +
                              std::to_string(r.gc) +
                              " (estimated from the samples: the birth of an object the snapshot alone "
                              "lists is unknown)");
        else if (r.has_snapshot)
            s.lines.push_back("growth: " + sizes(r.growth, "") + " born after GC " +
                              std::to_string(w.first_gc) + " and still reached at GC " +
                              std::to_string(r.gc));
        out.push_back(std::move(s));
    }
    for (size_t i = 0; i < r.suspects.size(); ++i) {
        const Suspect& p = r.suspects[i];
        SuspectsSection s{"Suspect " + std::to_string(i + 1) + ": " + p.type, {}};
        s.lines.push_back("accumulation point: " + p.type + " (object " + std::to_string(p.id) + ")" +
                          (p.via.empty() ? std::string() : ", holding the growth through its " + p.via));
        if (r.basis == PointBasis::kSampledGrowth)
            s.lines.push_back("found by following the sampled growth (" +
                              formatCountOf(r.growth_sampled.samples, "sample", "samples") +
                              ", weighted) down the whole heap's dominator tree");
        else if (r.basis == PointBasis::kRetained)
            s.lines.push_back("found from the whole heap's retained sizes: only " +
                              formatCountOf(r.growth_sampled.samples, "sample", "samples") +
                              " of growth, too few to follow");
        s.lines.push_back("retains " + sizes(p.retained, "") + " (" +
                          share(p.retained.bytes, r.reached.bytes) + " of the reached heap" +
                          (r.sampled ? "; exact, from the snapshot)" : ")"));
        if (r.sampled)
            s.lines.push_back("holds " + estimateSizes(p.growth_sampled) + " of the growth (" + approx +
                              formatPercent(p.share) + ")");
        else
            s.lines.push_back("holds " + sizes(p.growth, "") + " of the growth (" +
                              share(p.growth.bytes, r.growth.bytes) + ")");
        if (p.path.empty())
            s.lines.push_back("root path: no GC root reaches it");
        else {
            std::string path = p.root.empty() ? "root" : p.root;
            for (const SuspectStep& st : p.path)
                path += " \u2192 " + st.type;
            s.lines.push_back("root path (" + pathLength(p.path.size() - 1) +
                              "; strong references only): " + path);
        }
        const std::string estimated = r.sampled ? ", estimated from its samples" : "";
        s.lines.push_back("accumulated, by type" + estimated + ":");
        for (const SuspectName& n : p.types)
            s.lines.push_back(nameLine(n));
        s.lines.push_back("allocation sites feeding it (with callers" + estimated + "):");
        for (const SuspectName& n : p.sites)
            s.lines.push_back(nameLine(n));
        s.lines.push_back("threads feeding it" + estimated + ":");
        for (const SuspectName& n : p.threads)
            s.lines.push_back(nameLine(n));
        out.push_back(std::move(s));
    }
    if (!r.growth_types.empty()) {
        SuspectsSection s{"Growth by type (born in the window, reached at GC " + std::to_string(r.gc) +
                              (r.sampled ? "; estimated from the samples)" : ")"),
                          {}};
        for (const SuspectName& n : r.growth_types)
            s.lines.push_back(nameLine(n));
        out.push_back(std::move(s));
    }
    if (r.has_snapshot) {
        SuspectsSection s{"Biggest retained groups at GC " + std::to_string(r.gc) + " (top-level dominators)",
                          {}};
        s.lines.push_back("by type (what objects of the type retain):");
        for (const SuspectName& n : r.retained_groups)
            s.lines.push_back(nameLine(n));
        s.lines.push_back("single objects retaining the most:");
        for (const SuspectRetainer& o : r.largest)
            s.lines.push_back(padLeft(formatCount(o.retained.objects), 12) + " objects " +
                              padLeft(formatBytes(o.retained.bytes), 12) + "  object " +
                              std::to_string(o.id) + ", " + o.type);
        out.push_back(std::move(s));
    }
    {
        SuspectsSection s{"Other windows and notes", {}};
        for (const Window& w : r.windows.windows)
            if (w.kind == WindowKind::kGcOverhead || w.kind == WindowKind::kChurn)
                s.lines.push_back(kindTitle(w) + ": " + windowSpan(w) + "; " + w.reason);
        for (const std::string& n : r.notes)
            s.lines.push_back(n);
        if (!s.lines.empty()) out.push_back(std::move(s));
    }
    if (r.leak && r.has_snapshot) {
        SuspectsSection s{"Next", {}};
        s.lines.push_back("memcity diff " + file + " --from " + std::to_string(r.leak->first_gc) + " --to " +
                          std::to_string(r.leak->last_gc) + " --classify type,site");
        s.lines.push_back("memcity series " + file + " --from " + std::to_string(r.leak->first_gc) +
                          " --to " + std::to_string(r.leak->last_gc) + " --classify type --sort growth");
        out.push_back(std::move(s));
    }
    return out;
}

std::string suspectsText(const std::vector<SuspectsSection>& sections) {
    std::string o;
    for (size_t i = 0; i < sections.size(); ++i) {
        if (i) o += "\n";
        o += sections[i].title + "\n";
        for (const std::string& l : sections[i].lines)
            o += "  " + l + "\n";
    }
    return o;
}

std::string suspectsMarkdown(const std::vector<SuspectsSection>& sections) {
    std::string o;
    for (size_t i = 0; i < sections.size(); ++i) {
        o += (i ? "\n## " : "# ") + sections[i].title + "\n\n";
        for (const std::string& l : sections[i].lines) {
            // Table-like lines (leading spaces) keep their alignment in a code span.
            if (!l.empty() && l.front() == ' ')
                o += "    " + l + "\n";
            else
                o += "- " + l + "\n";
        }
    }
    return o;
}

std::string suspectsChartSvg(const SuspectsReport& r, const HeapHistory& h) {
    const auto& gcs = h.gcs();
    const double w = 800, ht = 240, left = 70, right = 10, top = 10, bottom = 30;
    uint64_t max_bytes = 1;
    for (const GcRecord& g : gcs)
        max_bytes = std::max({max_bytes, g.live_bytes, g.has_snapshot ? g.reachable_bytes : 0});
    const size_t n = gcs.size();
    auto x = [&](size_t i) {
        return left +
               (n > 1 ? static_cast<double>(i) / static_cast<double>(n - 1) : 0.5) * (w - left - right);
    };
    auto y = [&](uint64_t b) {
        return top + (1.0 - static_cast<double>(b) / static_cast<double>(max_bytes)) * (ht - top - bottom);
    };
    std::ostringstream s;
    s.setf(std::ios::fixed);
    s.precision(1);
    s << "<svg xmlns=\"http://www.w3.org/2000/svg\" width=\"" << w << "\" height=\"" << ht
      << "\" viewBox=\"0 0 " << w << ' ' << ht << "\" role=\"img\" aria-label=\"live bytes per GC\">\n";
    s << "<rect x=\"0\" y=\"0\" width=\"" << w << "\" height=\"" << ht << "\" fill=\"#ffffff\"/>\n";
    if (r.leak && n > 0) {
        const double x0 = x(std::min<size_t>(r.leak->first_gc, n - 1)),
                     x1 = x(std::min<size_t>(r.leak->last_gc, n - 1));
        s << "<rect class=\"leak-window\" x=\"" << x0 << "\" y=\"" << top << "\" width=\""
          << std::max(x1 - x0, 2.0) << "\" height=\"" << (ht - top - bottom)
          << "\" fill=\"#f4b4b4\" fill-opacity=\"0.6\"/>\n";
    }
    s << "<line x1=\"" << left << "\" y1=\"" << (ht - bottom) << "\" x2=\"" << (w - right) << "\" y2=\""
      << (ht - bottom) << "\" stroke=\"#444\"/>\n";
    s << "<line x1=\"" << left << "\" y1=\"" << top << "\" x2=\"" << left << "\" y2=\"" << (ht - bottom)
      << "\" stroke=\"#444\"/>\n";
    s << "<text x=\"" << (left - 4) << "\" y=\"" << (top + 10) << "\" font-size=\"11\" text-anchor=\"end\">"
      << htmlEscape(formatBytes(max_bytes)) << "</text>\n";
    s << "<text x=\"" << (left - 4) << "\" y=\"" << (ht - bottom)
      << "\" font-size=\"11\" text-anchor=\"end\">0</text>\n";
    s << "<text x=\"" << left << "\" y=\"" << (ht - 10) << "\" font-size=\"11\">GC 0</text>\n";
    if (n > 1)
        s << "<text x=\"" << (w - right) << "\" y=\"" << (ht - 10)
          << "\" font-size=\"11\" text-anchor=\"end\">GC " << (n - 1) << "</text>\n";
    if (n > 0) {
        s << "<polyline class=\"live\" fill=\"none\" stroke=\"#3060c0\" stroke-width=\"2\" points=\"";
        for (size_t i = 0; i < n; ++i)
            s << x(i) << ',' << y(gcs[i].live_bytes) << ' ';
        s << "\"/>\n";
        s << "<polyline class=\"reachable\" fill=\"none\" stroke=\"#c03030\" stroke-width=\"2\" points=\"";
        for (size_t i = 0; i < n; ++i)
            if (gcs[i].has_snapshot) s << x(i) << ',' << y(gcs[i].reachable_bytes) << ' ';
        s << "\"/>\n";
    }
    s << "<text x=\"" << (left + 8) << "\" y=\"" << (top + 12)
      << "\" font-size=\"11\" fill=\"#3060c0\">live after each GC</text>\n";
    s << "<text x=\"" << (left + 8) << "\" y=\"" << (top + 26)
      << "\" font-size=\"11\" fill=\"#c03030\">reachable (snapshot GCs)</text>\n";
    s << "</svg>\n";
    return s.str();
}

std::string suspectsHtml(const std::vector<SuspectsSection>& sections, const std::string& chart_svg,
                         const std::string& png, const std::string& no_picture) {
    std::string o =
        "<!DOCTYPE html>\n<html lang=\"en\">\n<head>\n<meta charset=\"utf-8\">\n<title>" +
        htmlEscape(sections.empty() ? std::string("memcity suspects") : sections.front().title) +
        "</title>\n<style>\nbody{font-family:sans-serif;margin:2em;max-width:70em;color:#222}\n"
        "h1{font-size:1.4em}h2{font-size:1.15em;margin-top:1.5em}\n"
        "pre{background:#f6f6f6;padding:.5em;white-space:pre-wrap}\n"
        ".figure{margin:1em 0}.missing{color:#a00;font-style:italic}\n</style>\n</head>\n<body>\n";
    for (size_t i = 0; i < sections.size(); ++i) {
        const SuspectsSection& s = sections[i];
        o += i ? "<h2>" : "<h1>";
        o += htmlEscape(s.title);
        o += i ? "</h2>\n" : "</h1>\n";
        o += "<pre>";
        for (const std::string& l : s.lines)
            o += htmlEscape(l) + "\n";
        o += "</pre>\n";
        if (i == 0) {
            o += "<div class=\"figure\" id=\"timeline\">\n" + chart_svg + "</div>\n";
            o += "<div class=\"figure\" id=\"city\">\n";
            if (!png.empty())
                o += "<img alt=\"the heap as a city at the analysed GC\" width=\"800\" "
                     "src=\"data:image/png;base64," +
                     base64(png) + "\">\n";
            else
                o += "<p class=\"missing\">" + htmlEscape(no_picture) + "</p>\n";
            o += "</div>\n";
        }
    }
    o += "</body>\n</html>\n";
    return o;
}

}  // namespace memcity::cli
