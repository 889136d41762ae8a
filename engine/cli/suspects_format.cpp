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

std::string windowSpan(const Window& w) {
    return "GCs " + std::to_string(w.first_gc) + ".." + std::to_string(w.last_gc) + " (" +
           formatCountOf(w.gcs, "GC", "GCs") + ", " + formatDuration(w.start_ns) + " .. " +
           formatDuration(w.end_ns) + ")";
}

// "2,512 objects, 96.4 KiB (98,712 bytes)": counted sizes with the exact bytes.
std::string exactSizes(const Sizes& s) {
    return formatCountOf(s.objects, "object", "objects") + ", " + formatBytes(s.bytes) + " (" +
           formatCount(s.bytes) + " bytes)";
}

double fraction(uint64_t part, uint64_t whole) {
    return whole ? static_cast<double>(part) / static_cast<double>(whole) : 0.0;
}

// A list of names as a table: objects and bytes (a sampled row's estimates with their intervals
// and the samples behind them) and each row's share of `whole` bytes.
SuspectsTable nameTable(std::string caption, std::string what, const std::vector<SuspectName>& names,
                        uint64_t whole, std::string bytes_title = "bytes") {
    SuspectsTable t{std::move(caption), {std::move(what), "objects", std::move(bytes_title)}, {}, {}, false};
    const bool sampled =
        std::any_of(names.begin(), names.end(), [](const SuspectName& n) { return n.sampled.samples > 0; });
    if (sampled) t.header.push_back("samples");
    for (const SuspectName& n : names) {
        if (n.sampled.samples)
            t.rows.push_back({n.name, estimateText(n.sampled, false), estimateText(n.sampled, true),
                              formatCount(n.sampled.samples)});
        else
            t.rows.push_back({n.name, formatCount(n.objects), formatBytes(n.bytes)});
        if (sampled && t.rows.back().size() < t.header.size()) t.rows.back().push_back("");
        t.bars.push_back(fraction(n.bytes, whole));
    }
    return t;
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
        SuspectsSection s;
        s.title = "Leak suspects: " + file;
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
        for (const std::string& l : s.lines)
            if (l.rfind("heap analysed at", 0) == 0)
                s.paragraphs.push_back("heap analysed at GC " + std::to_string(r.gc) +
                                       " (its reference snapshot): " + exactSizes(r.reached) +
                                       " reached from the GC roots");
            else if (l.rfind("verdict: ", 0) != 0)
                s.paragraphs.push_back(l);
        if (!r.leak) {
            s.verdict = "No leak found: memory does not keep growing.";
        } else if (r.suspects.empty()) {
            s.verdict = "Memory leaks over GCs " + std::to_string(r.leak->first_gc) + ".." +
                        std::to_string(r.leak->last_gc) + " (" + approx +
                        signedBytes(r.leak->leak.growth_bytes) + "), but no single object holds the growth.";
        } else {
            const Suspect& top = r.suspects.front();
            std::string kept;
            if (!top.root.empty()) {
                kept = top.root;
                for (const SuspectStep& st : top.path)
                    kept += " \u2192 " + st.type;
            }
            s.verdict = "The leak suspect is one " + top.type + " (object " + std::to_string(top.id) + ")" +
                        (kept.empty() ? std::string(" that no GC root reaches") : ", kept by " + kept) +
                        ". It retains " + formatBytes(top.retained.bytes) + " (" +
                        share(top.retained.bytes, r.reached.bytes) + " of the reached heap)";
            if (r.basis == PointBasis::kRetained)
                s.verdict += "; the growth it holds rests on too few samples to weigh.";
            else
                s.verdict += " and holds " + approx + formatBytes(top.growth.bytes) + " (" + approx +
                             formatPercent(top.share) + ") of the " + approx + formatBytes(r.growth.bytes) +
                             " that accumulated over GCs " + std::to_string(r.leak->first_gc) + ".." +
                             std::to_string(r.leak->last_gc) + ".";
        }
        out.push_back(std::move(s));
    }
    if (r.leak) {
        const Window& w = *r.leak;
        const LeakFigures& f = w.leak;
        SuspectsSection s;
        s.title = "Leak window: " + windowTitle(w);
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
        s.facts.push_back({"kind", windowTitle(w)});
        s.facts.push_back({"window", windowSpan(w)});
        s.facts.push_back({std::string(leakSeriesName(f.series)) + " memory",
                           approx + formatBytes(f.first_bytes) + " \u2192 " + approx +
                               formatBytes(f.last_bytes) + " (" + approx + formatCount(f.first_bytes) +
                               " \u2192 " + approx + formatCount(f.last_bytes) + " bytes)"});
        s.facts.push_back(
            {"growth", approx + signedBytes(f.growth_bytes) + " (" + approx +
                           formatCount(static_cast<uint64_t>(f.growth_bytes < 0 ? 0 : f.growth_bytes)) +
                           " bytes)"});
        s.facts.push_back(
            {"peak", approx + formatBytes(f.peak_bytes) + " at GC " + std::to_string(f.peak_gc)});
        s.facts.push_back({"growth rate", approx + rate(f.growth_per_s)});
        std::snprintf(line, sizeof line, "%s%s, r\u00b2 %.2f through %u points", approx.c_str(),
                      rate(f.slope_per_s).c_str(), f.r2, f.points);
        s.facts.push_back({"least-squares line", line});
        s.facts.push_back({"why", w.reason});
        if (r.has_snapshot && r.sampled)
            s.facts.push_back({"growth born in it", estimateSizes(r.growth_sampled) + ", reached at GC " +
                                                        std::to_string(r.gc) +
                                                        " (estimated from the samples)"});
        else if (r.has_snapshot)
            s.facts.push_back(
                {"growth born in it", exactSizes(r.growth) + ", reached at GC " + std::to_string(r.gc)});
        out.push_back(std::move(s));
    }
    for (size_t i = 0; i < r.suspects.size(); ++i) {
        const Suspect& p = r.suspects[i];
        SuspectsSection s;
        s.title = "Suspect " + std::to_string(i + 1) + ": " + p.type;
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

        s.facts.push_back(
            {"accumulation point", p.type + " (object " + std::to_string(p.id) + ")" +
                                       (p.via.empty() ? std::string() : ", through its " + p.via)});
        if (r.basis == PointBasis::kSampledGrowth)
            s.facts.push_back({"found by", "the sampled growth (" +
                                               formatCountOf(r.growth_sampled.samples, "sample", "samples") +
                                               ", weighted) down the whole heap's dominator tree"});
        else if (r.basis == PointBasis::kRetained)
            s.facts.push_back({"found by", "the whole heap's retained sizes: only " +
                                               formatCountOf(r.growth_sampled.samples, "sample", "samples") +
                                               " of growth, too few to follow"});
        s.facts.push_back({"retained", exactSizes(p.retained) + ", " +
                                           share(p.retained.bytes, r.reached.bytes) + " of the reached heap" +
                                           (r.sampled ? " (exact, from the snapshot)" : "")});
        if (r.sampled)
            s.facts.push_back({"growth held", estimateSizes(p.growth_sampled) + ", " + approx +
                                                  formatPercent(p.share) + " of the growth"});
        else
            s.facts.push_back({"growth held", exactSizes(p.growth) + ", " +
                                                  share(p.growth.bytes, r.growth.bytes) + " of the growth"});
        if (p.path.empty()) {
            s.facts.push_back({"root path", "no GC root reaches it"});
        } else {
            s.facts.push_back({"root path", pathLength(p.path.size() - 1) + "; strong references only"});
            s.path.push_back(p.root.empty() ? "root" : p.root);
            for (const SuspectStep& st : p.path)
                s.path.push_back(st.type + " (object " + std::to_string(st.id) + ")");
        }
        const std::string held = r.sampled ? "bytes, estimated" : "bytes";
        s.tables.push_back(nameTable("Accumulated, by type", "type", p.types, p.growth.bytes, held));
        s.tables.push_back(
            nameTable("Allocation sites feeding it (the allocating frame first, then its callers)", "site",
                      p.sites, p.growth.bytes, held));
        s.tables.back().frames = true;
        s.tables.push_back(nameTable("Threads feeding it", "thread", p.threads, p.growth.bytes, held));
        out.push_back(std::move(s));
    }
    if (!r.growth_types.empty()) {
        SuspectsSection s;
        s.title = "Growth by type (born in the window, reached at GC " + std::to_string(r.gc) +
                  (r.sampled ? "; estimated from the samples)" : ")");
        for (const SuspectName& n : r.growth_types)
            s.lines.push_back(nameLine(n));
        s.tables.push_back(
            nameTable("", "type", r.growth_types, r.growth.bytes, r.sampled ? "bytes, estimated" : "bytes"));
        out.push_back(std::move(s));
    }
    if (r.has_snapshot) {
        SuspectsSection s;
        s.title = "Biggest retained groups at GC " + std::to_string(r.gc) + " (top-level dominators)";
        s.lines.push_back("by type (what objects of the type retain):");
        for (const SuspectName& n : r.retained_groups)
            s.lines.push_back(nameLine(n));
        s.lines.push_back("single objects retaining the most:");
        for (const SuspectRetainer& o : r.largest)
            s.lines.push_back(padLeft(formatCount(o.retained.objects), 12) + " objects " +
                              padLeft(formatBytes(o.retained.bytes), 12) + "  object " +
                              std::to_string(o.id) + ", " + o.type);
        s.tables.push_back(nameTable("By type (what the top-level dominators of the type retain)", "type",
                                     r.retained_groups, r.reached.bytes, "retained"));
        SuspectsTable t{
            "Single objects retaining the most", {"object", "objects", "retained"}, {}, {}, false};
        for (const SuspectRetainer& o : r.largest) {
            t.rows.push_back({o.type + " (object " + std::to_string(o.id) + ")",
                              formatCount(o.retained.objects), formatBytes(o.retained.bytes)});
            t.bars.push_back(fraction(o.retained.bytes, r.reached.bytes));
        }
        s.tables.push_back(std::move(t));
        out.push_back(std::move(s));
    }
    {
        SuspectsSection s;
        s.title = "Other windows and notes";
        for (const Window& w : r.windows.windows)
            if (w.kind == WindowKind::kGcOverhead || w.kind == WindowKind::kChurn)
                s.lines.push_back(windowTitle(w) + ": " + windowSpan(w) + "; " + w.reason);
        for (const std::string& n : r.notes)
            s.lines.push_back(n);
        s.paragraphs = s.lines;
        if (!s.lines.empty()) out.push_back(std::move(s));
    }
    if (r.leak && r.has_snapshot) {
        SuspectsSection s;
        s.title = "Next";
        s.lines.push_back("memcity diff " + file + " --from " + std::to_string(r.leak->first_gc) + " --to " +
                          std::to_string(r.leak->last_gc) + " --classify type,site");
        s.lines.push_back("memcity series " + file + " --from " + std::to_string(r.leak->first_gc) +
                          " --to " + std::to_string(r.leak->last_gc) + " --classify type --sort growth");
        s.commands = s.lines;
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

namespace {

bool structured(const SuspectsSection& s) {
    return !s.verdict.empty() || !s.facts.empty() || !s.path.empty() || !s.paragraphs.empty() ||
           !s.tables.empty() || !s.commands.empty();
}

// A Markdown table cell: no pipe ends it, no HTML or emphasis is read into it.
std::string mdCell(const std::string& s) {
    std::string o;
    for (char c : s) {
        switch (c) {
            case '|': o += "\\|"; break;
            case '<': o += "&lt;"; break;
            case '>': o += "&gt;"; break;
            case '*':
            case '_':
            case '`':
            case '[':
            case ']':
            case '\\':
                o += '\\';
                o += c;
                break;
            default: o += c;
        }
    }
    return o;
}

// A call chain's frames, the allocating frame first.
std::vector<std::string> frames(const std::string& chain) {
    static const std::string kArrow = " \u2190 ";
    std::vector<std::string> out;
    size_t at = 0;
    for (size_t next; (next = chain.find(kArrow, at)) != std::string::npos; at = next + kArrow.size())
        out.push_back(chain.substr(at, next - at));
    out.push_back(chain.substr(at));
    return out;
}

void mdTable(const SuspectsTable& t, std::string& o) {
    if (!t.caption.empty()) o += "**" + mdCell(t.caption) + "**\n\n";
    if (t.rows.empty()) {
        o += "(none)\n\n";
        return;
    }
    o += "|";
    for (const std::string& h : t.header)
        o += " " + mdCell(h) + " |";
    if (!t.bars.empty()) o += " share |";
    o += "\n|";
    for (size_t c = 0; c < t.header.size(); ++c)
        o += c ? " ---: |" : " --- |";
    if (!t.bars.empty()) o += " ---: |";
    o += "\n";
    for (size_t i = 0; i < t.rows.size(); ++i) {
        o += "|";
        for (size_t c = 0; c < t.rows[i].size(); ++c) {
            if (c == 0 && t.frames) {
                const auto f = frames(t.rows[i][c]);
                o += " **" + mdCell(f[0]) + "**";
                for (size_t k = 1; k < f.size(); ++k)
                    o += "<br>\u2190 " + mdCell(f[k]);
                o += " |";
            } else {
                o += " " + mdCell(t.rows[i][c]) + " |";
            }
        }
        if (!t.bars.empty()) o += " " + formatPercent(t.bars[i]) + " |";
        o += "\n";
    }
    o += "\n";
}

}  // namespace

std::string suspectsMarkdown(const std::vector<SuspectsSection>& sections) {
    std::string o;
    for (size_t i = 0; i < sections.size(); ++i) {
        const SuspectsSection& s = sections[i];
        o += (i ? "\n## " : "# ") + s.title + "\n\n";
        if (!structured(s)) {
            for (const std::string& l : s.lines)
                o += "- " + l + "\n";
            continue;
        }
        if (!s.verdict.empty()) o += "> **Verdict:** " + mdCell(s.verdict) + "\n\n";
        for (const std::string& p : s.paragraphs)
            o += "- " + mdCell(p) + "\n";
        if (!s.paragraphs.empty()) o += "\n";
        if (!s.facts.empty()) {
            o += "| | |\n| --- | --- |\n";
            for (const auto& [what, figure] : s.facts)
                o += "| **" + mdCell(what) + "** | " + mdCell(figure) + " |\n";
            o += "\n";
        }
        if (!s.path.empty()) {
            o += "Root path: ";
            for (size_t k = 0; k < s.path.size(); ++k)
                o += (k ? " \u2192 " : "") + ("`" + s.path[k] + "`");
            o += "\n\n";
        }
        for (const SuspectsTable& t : s.tables)
            mdTable(t, o);
        if (!s.commands.empty()) {
            o += "```\n";
            for (const std::string& c : s.commands)
                o += c + "\n";
            o += "```\n";
        }
        while (o.size() > 1 && o[o.size() - 1] == '\n' && o[o.size() - 2] == '\n')
            o.pop_back();
    }
    return o;
}

namespace {

// A step of 1, 2 or 5 times a power of ten (times `unit`) that cuts `span` into about `parts`.
double niceStep(double span, double parts) {
    const double raw = std::max(span / parts, 1e-9);
    const double p = std::pow(10.0, std::floor(std::log10(raw)));
    for (double m : {1.0, 2.0, 5.0})
        if (m * p >= raw) return m * p;
    return 10 * p;
}

std::string number(double v) {
    char b[32];
    std::snprintf(b, sizeof b, "%g", v);
    return b;
}

}  // namespace

std::string suspectsChartSvg(const SuspectsReport& r, const HeapHistory& h) {
    const auto& gcs = h.gcs();
    const double w = 800, ht = 280, left = 70, right = 20, top = 34, bottom = 40;
    const double plot_w = w - left - right, plot_h = ht - top - bottom;
    uint64_t max_bytes = 1;
    for (const GcRecord& g : gcs)
        max_bytes = std::max({max_bytes, g.live_bytes, g.has_snapshot ? g.reachable_bytes : 0});
    // The byte axis in MiB (KiB for a heap under 2 MiB), in steps of 1, 2 or 5.
    const bool mib = max_bytes >= (2u << 20);
    const double unit = mib ? 1048576.0 : 1024.0;
    const double step = niceStep(static_cast<double>(max_bytes) / unit, 5);
    const double y_max = std::ceil(static_cast<double>(max_bytes) / unit / step) * step * unit;
    const size_t n = gcs.size();
    auto x = [&](size_t i) {
        return left + (n > 1 ? static_cast<double>(i) / static_cast<double>(n - 1) : 0.5) * plot_w;
    };
    auto y = [&](double b) { return top + (1.0 - b / y_max) * plot_h; };
    std::ostringstream s;
    s.setf(std::ios::fixed);
    s.precision(1);
    s << "<svg xmlns=\"http://www.w3.org/2000/svg\" width=\"" << w << "\" height=\"" << ht
      << "\" viewBox=\"0 0 " << w << ' ' << ht
      << "\" role=\"img\" aria-label=\"live bytes per GC\" font-family=\"sans-serif\">\n";
    s << "<rect x=\"0\" y=\"0\" width=\"" << w << "\" height=\"" << ht << "\" fill=\"#ffffff\"/>\n";
    if (r.leak && n > 0) {
        const size_t a = std::min<size_t>(r.leak->first_gc, n - 1),
                     b = std::min<size_t>(r.leak->last_gc, n - 1);
        const double x0 = x(a), x1 = x(b);
        const bool whole = a == 0 && b == n - 1;
        s << "<rect class=\"leak-window\" x=\"" << x0 << "\" y=\"" << top << "\" width=\""
          << std::max(x1 - x0, 2.0) << "\" height=\"" << plot_h
          << "\" fill=\"#f8d0d0\" fill-opacity=\"0.7\"/>\n";
        s << "<text class=\"leak-label\" x=\"" << (x0 + x1) / 2 << "\" y=\"" << (top + 14)
          << "\" font-size=\"12\" text-anchor=\"middle\" fill=\"#a02020\">leak window GCs "
          << r.leak->first_gc << ".." << r.leak->last_gc << (whole ? " (the whole trace)" : "")
          << "</text>\n";
    }
    // The byte gridlines and their labels.
    for (double v = 0; v <= y_max / unit + step / 2; v += step) {
        const double yy = y(v * unit);
        s << "<line x1=\"" << left << "\" y1=\"" << yy << "\" x2=\"" << (w - right) << "\" y2=\"" << yy
          << "\" stroke=\"" << (v == 0 ? "#444" : "#dddddd") << "\"/>\n";
        s << "<text x=\"" << (left - 6) << "\" y=\"" << (yy + 4) << "\" font-size=\"11\" text-anchor=\"end\">"
          << number(v) << (mib ? " MiB" : " KiB") << "</text>\n";
    }
    s << "<line x1=\"" << left << "\" y1=\"" << top << "\" x2=\"" << left << "\" y2=\"" << (ht - bottom)
      << "\" stroke=\"#444\"/>\n";
    // GC-number ticks along x.
    if (n > 0) {
        const size_t gc_step =
            std::max<size_t>(1, static_cast<size_t>(niceStep(static_cast<double>(n - 1), 8)));
        for (size_t i = 0; i < n; i += gc_step) {
            s << "<line x1=\"" << x(i) << "\" y1=\"" << (ht - bottom) << "\" x2=\"" << x(i) << "\" y2=\""
              << (ht - bottom + 5) << "\" stroke=\"#444\"/>\n";
            s << "<text x=\"" << x(i) << "\" y=\"" << (ht - bottom + 17)
              << "\" font-size=\"11\" text-anchor=\"middle\">" << i << "</text>\n";
        }
    }
    s << "<text x=\"" << (left + plot_w / 2) << "\" y=\"" << (ht - 6)
      << "\" font-size=\"12\" text-anchor=\"middle\">GC number</text>\n";
    if (r.has_snapshot && r.gc < n) {
        const double xs = x(r.gc);
        s << "<line class=\"snapshot\" x1=\"" << xs << "\" y1=\"" << top << "\" x2=\"" << xs << "\" y2=\""
          << (ht - bottom) << "\" stroke=\"#555\" stroke-dasharray=\"4 3\"/>\n";
        s << "<text x=\"" << std::min(xs + 45, w - 2) << "\" y=\"" << (top - 5)
          << "\" font-size=\"11\" text-anchor=\"end\" "
          << "fill=\"#333\">snapshot GC " << r.gc << "</text>\n";
    }
    if (n > 0) {
        s << "<polyline class=\"live\" fill=\"none\" stroke=\"#3060c0\" stroke-width=\"2\" points=\"";
        for (size_t i = 0; i < n; ++i)
            s << x(i) << ',' << y(static_cast<double>(gcs[i].live_bytes)) << ' ';
        s << "\"/>\n";
        s << "<polyline class=\"reachable\" fill=\"none\" stroke=\"#c03030\" stroke-width=\"2\" points=\"";
        for (size_t i = 0; i < n; ++i)
            if (gcs[i].has_snapshot)
                s << x(i) << ',' << y(static_cast<double>(gcs[i].reachable_bytes)) << ' ';
        s << "\"/>\n";
        for (size_t i = 0; i < n; ++i)
            if (gcs[i].has_snapshot)
                s << "<circle cx=\"" << x(i) << "\" cy=\"" << y(static_cast<double>(gcs[i].reachable_bytes))
                  << "\" r=\"3\" fill=\"#c03030\"/>\n";
    }
    // The legend, above the plot.
    s << "<line x1=\"" << left << "\" y1=\"14\" x2=\"" << (left + 22) << "\" y2=\"14\" stroke=\"#3060c0\" "
      << "stroke-width=\"2\"/>\n<text x=\"" << (left + 28)
      << "\" y=\"18\" font-size=\"12\">live after each GC</text>\n";
    s << "<line x1=\"" << (left + 170) << "\" y1=\"14\" x2=\"" << (left + 192)
      << "\" y2=\"14\" stroke=\"#c03030\" "
      << "stroke-width=\"2\"/>\n<circle cx=\"" << (left + 181)
      << "\" cy=\"14\" r=\"3\" fill=\"#c03030\"/>\n<text x=\"" << (left + 198)
      << "\" y=\"18\" font-size=\"12\">reachable from the roots (snapshot GCs)</text>\n";
    s << "</svg>\n";
    return s.str();
}

namespace {

// A name cell's text, escaped, with break opportunities after its dots and parentheses, so that a
// long frame ("com.example.Service.find(Service.java:77)") wraps at its parts, not past the table.
std::string nameCell(const std::string& text) {
    std::string o;
    for (char c : htmlEscape(text)) {
        o += c;
        if (c == '.' || c == '(') o += "<wbr>";
    }
    return o;
}

// A number cell: a figure kept on one line; an estimate's interval "(low–high)" on a line below it.
std::string numberCell(const std::string& text) {
    const size_t open = text.find(" (");
    std::string figure = htmlEscape(text.substr(0, open));
    for (size_t at; (at = figure.find(' ')) != std::string::npos;)
        figure.replace(at, 1, "&nbsp;");
    if (open == std::string::npos) return figure;
    return figure + "<br><span class=\"interval\">" + htmlEscape(text.substr(open + 1)) + "</span>";
}

void htmlTable(const SuspectsTable& t, std::string& o) {
    if (!t.caption.empty()) o += "<h3>" + htmlEscape(t.caption) + "</h3>\n";
    if (t.rows.empty()) {
        o += "<p class=\"none\">none</p>\n";
        return;
    }
    o += "<table class=\"list\">\n<thead><tr>";
    for (size_t c = 0; c < t.header.size(); ++c)
        o += std::string(c ? "<th class=\"num\">" : "<th>") + htmlEscape(t.header[c]) + "</th>";
    if (!t.bars.empty()) o += "<th class=\"share\">share</th>";
    o += "</tr></thead>\n<tbody>\n";
    for (size_t i = 0; i < t.rows.size(); ++i) {
        o += "<tr>";
        for (size_t c = 0; c < t.rows[i].size(); ++c) {
            if (c == 0 && t.frames) {
                const auto f = frames(t.rows[i][c]);
                o += "<td class=\"name\"><strong>" + nameCell(f[0]) + "</strong>";
                for (size_t k = 1; k < f.size(); ++k)
                    o += "<br><span class=\"caller\">\u2190\u00a0" + nameCell(f[k]) + "</span>";
                o += "</td>";
            } else {
                o += c ? "<td class=\"num\">" + numberCell(t.rows[i][c]) + "</td>"
                       : "<td class=\"name\">" + nameCell(t.rows[i][c]) + "</td>";
            }
        }
        if (!t.bars.empty()) {
            char width[32];
            std::snprintf(width, sizeof width, "%.1f", std::clamp(t.bars[i], 0.0, 1.0) * 100);
            o += "<td class=\"share\"><span class=\"bar\"><span style=\"width:" + std::string(width) +
                 "%\"></span></span><span class=\"pct\">" + htmlEscape(formatPercent(t.bars[i])) +
                 "</span></td>";
        }
        o += "</tr>\n";
    }
    o += "</tbody>\n</table>\n";
}

const char* kCss =
    "body{font-family:system-ui,sans-serif;margin:2em auto;max-width:70em;padding:0 1em;color:#222;"
    "line-height:1.4}\n"
    "h1{font-size:1.5em;margin-bottom:.3em}h2{font-size:1.2em;margin-top:2em;border-bottom:2px solid #ccd;"
    "padding-bottom:.2em}h3{font-size:1em;margin:1.2em 0 .4em}\n"
    ".verdict{background:#fff4e5;border-left:6px solid #e07000;padding:.8em 1.2em;font-size:1.1em;margin:1em "
    "0}\n"
    ".verdict strong{color:#b04000}\n"
    "ul.summary{color:#555;padding-left:1.2em}\n"
    "table{border-collapse:collapse;margin:.3em 0 1em;font-size:.92em}\n"
    "th,td{padding:.25em .7em;border-bottom:1px solid #e4e4e4;vertical-align:top;text-align:left}\n"
    "th{background:#f0f2f6}td.num,th.num{text-align:right;white-space:nowrap;font-variant-numeric:tabular-"
    "nums}\n"
    "table.list{width:100%}td.name{overflow-wrap:break-word}.interval{color:#777;font-size:.85em}.pct{"
    "display:inline-block;width:3.6em}.caller{"
    "color:#666;font-size:.92em}\n"
    "td.share,th.share{white-space:nowrap;text-align:right;font-variant-numeric:tabular-nums}\n"
    ".bar{display:inline-block;width:6em;height:.7em;background:#eee;margin-right:.4em;vertical-align:middle}"
    "\n"
    ".bar span{display:block;height:100%;background:#d06040}\n"
    "table.facts th{background:none;width:11em;color:#555;font-weight:600}\n"
    "ol.path{list-style:none;padding:0;margin:.3em 0 1em}ol.path li{display:inline-block;background:#eef2fa;"
    "border:1px solid #c8d2e8;border-radius:4px;padding:.15em .5em;margin:.15em 0}\n"
    "ol.path li+li::before{content:\"\\2192\";margin:0 .5em 0 -.2em;color:#888}\n"
    "ol.path li+li{margin-left:1.6em}\n"
    "pre{background:#f6f6f6;padding:.5em;white-space:pre-wrap}\n"
    ".figure{margin:1em 0}.missing{color:#a00;font-style:italic}.none{color:#777}\n";

}  // namespace

std::string suspectsHtml(const std::vector<SuspectsSection>& sections, const std::string& chart_svg,
                         const std::string& png, const std::string& no_picture) {
    std::string o = "<!DOCTYPE html>\n<html lang=\"en\">\n<head>\n<meta charset=\"utf-8\">\n<title>" +
                    htmlEscape(sections.empty() ? std::string("memcity suspects") : sections.front().title) +
                    "</title>\n<style>\n" + kCss + "</style>\n</head>\n<body>\n";
    for (size_t i = 0; i < sections.size(); ++i) {
        const SuspectsSection& s = sections[i];
        o += i ? "<h2>" : "<h1>";
        o += htmlEscape(s.title);
        o += i ? "</h2>\n" : "</h1>\n";
        if (!structured(s)) {
            o += "<ul>\n";
            for (const std::string& l : s.lines)
                o += "<li>" + htmlEscape(l) + "</li>\n";
            o += "</ul>\n";
        }
        if (!s.verdict.empty())
            o += "<div class=\"verdict\"><strong>Verdict.</strong> " + htmlEscape(s.verdict) + "</div>\n";
        if (!s.paragraphs.empty()) {
            o += i ? "<ul>\n" : "<ul class=\"summary\">\n";
            for (const std::string& p : s.paragraphs)
                o += "<li>" + htmlEscape(p) + "</li>\n";
            o += "</ul>\n";
        }
        if (!s.facts.empty()) {
            o += "<table class=\"facts\">\n";
            for (const auto& [what, figure] : s.facts)
                o += "<tr><th>" + htmlEscape(what) + "</th><td>" + htmlEscape(figure) + "</td></tr>\n";
            o += "</table>\n";
        }
        if (!s.path.empty()) {
            o += "<ol class=\"path\">";
            for (const std::string& step : s.path)
                o += "<li>" + htmlEscape(step) + "</li>";
            o += "</ol>\n";
        }
        for (const SuspectsTable& t : s.tables)
            htmlTable(t, o);
        if (!s.commands.empty()) {
            o += "<pre>";
            for (const std::string& c : s.commands)
                o += htmlEscape(c) + "\n";
            o += "</pre>\n";
        }
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
