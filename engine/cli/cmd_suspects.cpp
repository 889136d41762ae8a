// memcity suspects FILE [--gc N] [--format text|md|html|json] [-o FILE]
//
// One leak-suspects report (graph/suspects.h computes it; suspects_format.h lays it out): the
// leak window, the accumulation point with its retained size and root path, the sites and
// threads feeding it, the biggest retained groups. docs/suspects.md.
#include <unistd.h>

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <fstream>
#include <iostream>
#include <sstream>

#include "cli/args.h"
#include "cli/commands.h"
#include "cli/json_writer.h"
#include "cli/load.h"
#include "cli/one_trace.h"
#include "cli/sampled_output.h"
#include "cli/suspects_format.h"
#include "cli/text_format.h"
#include "graph/suspects.h"
#include "trace/event_decoder.h"

namespace memcity::cli {
namespace {

const std::string kPrefix = "memcity suspects: ";

void jsonSizes(JsonWriter& j, const char* key, const Sizes& s) {
    j.key(key).beginObject().field("objects", s.objects).field("bytes", s.bytes).endObject();
}

// A sampled figure's interval and samples beside its estimate: objects_low, objects_high,
// bytes_low, bytes_high, samples (nothing for a counted one).
void jsonBounds(JsonWriter& j, const SampleSums& s) {
    const Estimate objects = s.objectsEstimate(), bytes = s.bytesEstimate();
    auto whole = [](double v) { return static_cast<uint64_t>(std::llround(std::max(v, 0.0))); };
    j.field("objects_low", whole(objects.low)).field("objects_high", whole(objects.high));
    j.field("bytes_low", whole(bytes.low)).field("bytes_high", whole(bytes.high));
    j.field("samples", s.samples);
}

// {"objects": O, "bytes": B} under `key`; in a sampled report the estimates, with their bounds.
void jsonEstimatedSizes(JsonWriter& j, const char* key, const Sizes& s, const SampleSums* sampled) {
    j.key(key).beginObject().field("objects", s.objects).field("bytes", s.bytes);
    if (sampled) jsonBounds(j, *sampled);
    j.endObject();
}

void jsonNames(JsonWriter& j, const char* key, const std::vector<SuspectName>& v) {
    j.key(key).beginArray();
    for (const SuspectName& n : v) {
        j.beginObject().field("name", n.name).field("objects", n.objects).field("bytes", n.bytes);
        if (n.sampled.samples) jsonBounds(j, n.sampled);
        j.endObject();
    }
    j.endArray();
}

const char* basisName(PointBasis b) {
    switch (b) {
        case PointBasis::kGrowth: return "growth";
        case PointBasis::kSampledGrowth: return "sampled growth";
        case PointBasis::kRetained: return "retained";
    }
    return "growth";
}

std::string json(const SuspectsReport& r, const HeapHistory& h, const std::string& file) {
    JsonWriter j;
    j.beginObject();
    j.field("file", file).field("gcs", r.windows.gcs);
    jsonSampling(j, h);
    j.field("leak_series", leakSeriesName(r.windows.leak_series));
    j.key("leak_window");
    if (r.leak) {
        const Window& w = *r.leak;
        j.beginObject();
        j.field("kind", windowKindName(w.kind)).field("first_gc", w.first_gc).field("last_gc", w.last_gc);
        j.field("start_ns", w.start_ns).field("end_ns", w.end_ns);
        j.field("first_bytes", w.leak.first_bytes).field("last_bytes", w.leak.last_bytes);
        j.field("growth_bytes", w.leak.growth_bytes).field("growth_bytes_per_s", w.leak.growth_per_s);
        j.field("slope_bytes_per_s", w.leak.slope_per_s).field("r2", w.leak.r2).field("reason", w.reason);
        j.endObject();
    } else {
        j.null();
    }
    j.key("gc");
    if (r.has_snapshot)
        j.value(r.gc);
    else
        j.null();
    jsonSizes(j, "reached", r.reached);
    jsonEstimatedSizes(j, "growth", r.growth, r.sampled ? &r.growth_sampled : nullptr);
    jsonNames(j, "growth_by_type", r.growth_types);
    j.field("points_found_by", basisName(r.basis));
    j.key("suspects").beginArray();
    for (const Suspect& s : r.suspects) {
        j.beginObject();
        j.field("id", s.id).field("type", s.type).field("via", s.via);
        jsonSizes(j, "retained", s.retained);
        jsonEstimatedSizes(j, "growth", s.growth, r.sampled ? &s.growth_sampled : nullptr);
        j.field("growth_share", s.share).field("root", s.root);
        j.key("path").beginArray();
        for (const SuspectStep& st : s.path)
            j.beginObject().field("id", st.id).field("type", st.type).endObject();
        j.endArray();
        jsonNames(j, "types", s.types);
        jsonNames(j, "sites", s.sites);
        jsonNames(j, "threads", s.threads);
        j.endObject();
    }
    j.endArray();
    jsonNames(j, "retained_groups", r.retained_groups);
    j.key("largest").beginArray();
    for (const SuspectRetainer& o : r.largest) {
        j.beginObject().field("id", o.id).field("type", o.type);
        jsonSizes(j, "retained", o.retained);
        j.endObject();
    }
    j.endArray();
    j.key("notes").beginArray();
    for (const std::string& n : r.notes)
        j.value(n);
    j.endArray();
    j.endObject();
    return j.str();
}

// The city at the analysed GC, rendered offscreen by `memcity render` into a temporary PNG: its
// bytes, or "" with `why` set when it cannot be drawn (no Vulkan device, ...).
std::string renderCity(const std::string& file, uint32_t gc, std::string& why) {
    char path[] = "/tmp/memcity-suspects-XXXXXX.png";
    const int fd = ::mkstemps(path, 4);
    if (fd < 0) {
        why = "no city picture: cannot create a temporary file";
        return {};
    }
    ::close(fd);
    std::ostringstream captured;
    std::streambuf* old = std::cerr.rdbuf(captured.rdbuf());
    const int rc = runRender({file, "--gc", std::to_string(gc), "--size", "960x540", "-o", path});
    std::cerr.rdbuf(old);
    std::string png;
    if (rc == 0) {
        if (std::FILE* in = std::fopen(path, "rb")) {
            char buf[65536];
            for (size_t got; (got = std::fread(buf, 1, sizeof buf, in)) > 0;)
                png.append(buf, got);
            std::fclose(in);
        }
    }
    ::unlink(path);
    if (png.empty()) {
        std::string msg = captured.str();
        const size_t nl = msg.find('\n');
        if (nl != std::string::npos) msg.resize(nl);
        why = "no city picture: it could not be rendered" + (msg.empty() ? std::string() : " (" + msg + ")");
    }
    return png;
}

int runSuspects(const Words& words) {
    auto args = oneTraceArgs("suspects", words);
    if (!args) return args.status();
    const std::string format = args->value("--format").value_or("text");
    if (format != "text" && format != "md" && format != "html" && format != "json") {
        std::cerr << kPrefix << "unknown --format '" << printable(format, 40)
                  << "' (expected text, md, html or json)\n";
        return 1;
    }
    SuspectsOptions options;
    if (args->has("--gc")) {
        auto gc = args->unsignedValue("--gc", 0, 0, UINT32_MAX - 1);
        if (!gc) {
            std::cerr << gc.error().message << "\n";
            return 1;
        }
        options.gc = static_cast<uint32_t>(*gc);
    }
    auto loaded = loadOrSay(args->positionals()[0]);
    if (!loaded) return 1;
    printDiagnostics(*loaded, std::cerr, false);
    const HeapHistory& h = *loaded->history;
    const std::string& file = loaded->trace->path();
    auto report = findSuspects(h, options);
    if (!report) {
        std::cerr << kPrefix << file << ": " << report.error().message << "\n";
        return 1;
    }
    std::string out;
    if (format == "json") {
        out = json(*report, h, file);
    } else {
        const auto sections = suspectsSections(*report, h, file);
        if (format == "text")
            out = suspectsText(sections);
        else if (format == "md")
            out = suspectsMarkdown(sections);
        else {
            std::string why = "no city picture: the trace has no reference snapshot";
            const std::string png = report->has_snapshot ? renderCity(file, report->gc, why) : std::string();
            out = suspectsHtml(sections, suspectsChartSvg(*report, h), png, why);
        }
    }
    if (auto o = args->value("--output")) {
        std::ofstream f(*o, std::ios::binary);
        f << out;
        f.close();
        if (!f) {
            std::cerr << kPrefix << "cannot write " << *o << "\n";
            return 1;
        }
        std::cerr << "wrote " << *o << "\n";
    } else {
        std::cout << out;
    }
    return 0;
}

}  // namespace

extern const Command kSuspects{
    .name = "suspects",
    .summary = "one leak-suspects report: leak window, accumulation point, root path, sites",
    .usage = R"(usage: memcity suspects FILE [--gc N] [--format text|md|html|json] [-o FILE]

One run, one report (MAT's Leak Suspects; docs/suspects.md explains how): the leak window
of reachable memory and its growth, the accumulation point (the object whose dominator
subtree holds the growth) with its retained size, the shortest path of strong references
from a GC root to it, the allocation sites (with callers) and threads that feed it, and the
biggest retained groups at the GC, each finding with its numbers. A trace without a leak
says so. html is one self-contained file with the timeline chart and the city inlined.

)",
    .options =
        {
            {"--gc", "N", "", "the snapshot GC to analyse (default: the last with a reference snapshot)"},
            {"--format", "F", "", "text (default), md, html or json"},
            {"--output", "FILE", "-o", "write the report to FILE instead of stdout"},
        },
    .run = [](const Words& a, const Services&) { return runSuspects(a); },
};

}  // namespace memcity::cli
