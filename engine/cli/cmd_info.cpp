// memcity info FILE [--json]
#include <iostream>
#include <sstream>

#include "cli/args.h"
#include "cli/commands.h"
#include "cli/json_writer.h"
#include "cli/load.h"
#include "cli/one_trace.h"
#include "cli/sampled_output.h"
#include "cli/text_format.h"
#include "trace/event_decoder.h"

namespace memcity::cli {
namespace {

// The chunk kinds this reader knows: meta .. objects.
constexpr uint16_t kKnownChunkKinds = format::kLastChunkKind;

struct ChunkCounts {
    size_t total = 0, compressed = 0, unknown = 0;
    size_t by_kind[kKnownChunkKinds + 1] = {};
};

ChunkCounts countChunks(const TraceFile& t) {
    ChunkCounts c;
    for (const ChunkRef& ch : t.chunks()) {
        ++c.total;
        c.compressed += ch.compressed();
        if (ch.kind >= 1 && ch.kind <= kKnownChunkKinds)
            ++c.by_kind[ch.kind];
        else
            ++c.unknown;
    }
    return c;
}

// "45 young, 4 full", kinds in format order, those with no GC left out ("3 unknown" when no
// kind is known).
std::string gcKindCounts(const HeapHistory& h) {
    uint64_t n[4] = {};
    for (const GcRecord& g : h.gcs())
        ++n[g.kind < 4 ? g.kind : 0];
    std::string s;
    for (uint32_t k : {1u, 2u, 3u, 0u}) {
        if (n[k] == 0) continue;
        s += (s.empty() ? "" : ", ") + std::to_string(n[k]) + " " + std::string(format::gcKindName(k));
    }
    return s.empty() ? "none" : s;
}

const char* kEventKinds[] = {"alloc",        "alloc-array", "deaths", "gc-start", "gc-end",
                             "thread-start", "thread-end",  "move",   "extension"};
uint32_t eventKindIndex(std::string_view name) {
    for (uint32_t k = 0; k < format::kEventKindCount; ++k)
        if (format::eventKindName(k) == name) return k;
    return 0;
}

// What a sampled trace's samples stand for, its censuses, and how its estimates of the live
// heap compare with the JVM's used bytes after each GC.
struct SampledSummary {
    SampleSums allocated;             // up to the last GC
    size_t censuses = 0;              // GCs whose weights are scaled to the JVM's count
    uint64_t census_ns = 0;           // what the censuses cost the program
    size_t compared = 0, within = 0;  // GCs with the JVM's figures, and those inside the interval
    std::vector<double> gaps;         // estimate / JVM's used bytes - 1, per compared GC
    double medianGap() {
        if (gaps.empty()) return 0;
        std::nth_element(gaps.begin(), gaps.begin() + static_cast<ptrdiff_t>(gaps.size() / 2), gaps.end());
        return gaps[gaps.size() / 2];
    }
};

SampledSummary summarizeSampled(const HeapHistory& h) {
    SampledSummary s;
    for (const GcRecord& g : h.gcs()) {
        s.allocated += g.allocated_sampled;
        if (g.calibration >= 0) ++s.censuses;
        if (g.census >= 0) s.census_ns += h.censuses()[static_cast<size_t>(g.census)].duration_ns;
        if (g.jvm < 0 || g.vm_heap_after == 0 || g.calibration >= 0) continue;
        const Estimate e = g.live_sampled.bytesEstimate();
        ++s.compared;
        const auto used = static_cast<double>(g.vm_heap_after);
        s.within += used >= e.low && used <= e.high;
        s.gaps.push_back(e.value / used - 1);
    }
    return s;
}

void printJson(const LoadedTrace& t) {
    const TraceFile& f = *t.trace;
    const HeapHistory& h = *t.history;
    const EventCounts& c = h.counts();
    JsonWriter j;
    j.beginObject();
    j.field("file", f.path());
    j.field("bytes", f.fileSize());
    j.field("format_version",
            std::to_string(f.header().version_major) + "." + std::to_string(f.header().version_minor));
    j.field("truncated", f.truncated());
    j.field("being_written", f.beingWritten());
    j.key("truncation");
    if (f.truncated())
        j.value(f.truncationNote());
    else
        j.null();
    j.key("meta").beginObject();
    for (const auto& [k, v] : f.meta())
        j.field(k, v);
    j.endObject();
    j.key("time").beginObject();
    j.field("first_ns", c.first_time_ns)
        .field("last_ns", c.last_time_ns)
        .field("duration_ns", durationNs(c.first_time_ns, c.last_time_ns));
    j.endObject();
    j.key("events").beginObject();
    j.field("total", c.total());
    for (const char* k : kEventKinds)
        j.field(k, c.by_kind[eventKindIndex(k)]);
    j.endObject();
    j.field("gcs", static_cast<uint64_t>(h.gcCount()));
    {
        const JvmAgreement a = summarizeJvmChecks(h.jvmChecks());
        j.key("jvm_agreement").beginObject();
        j.field("gcs_with_jvm_figures", static_cast<uint64_t>(h.jvmFacts().size()));
        j.field("full_gcs", static_cast<uint64_t>(a.full_gcs))
            .field("disagreeing", static_cast<uint64_t>(a.disagreeing));
        j.field("with_census", static_cast<uint64_t>(a.with_census));
        j.field("used_gap_min", a.used_gap_min).field("used_gap_max", a.used_gap_max);
        j.field("gap_min", a.gap_min).field("gap_max", a.gap_max);
        j.field("dead_space_bytes", a.dead_space).field("dead_space_gc", a.dead_space_gc);
        j.field("text", describeJvmAgreement(a, !h.jvmFacts().empty()));
        j.endObject();
    }
    j.field("snapshots", static_cast<uint64_t>(h.snapshots().size()));
    jsonSampling(j, h);
    if (h.sampled()) {
        SampledSummary s = summarizeSampled(h);
        j.key("sampling").beginObject();
        j.field("samples", c.objects_allocated).field("sample_bytes", c.bytes_allocated);
        jsonEstimate(j, "allocated_objects", s.allocated, false);
        jsonEstimate(j, "allocated_bytes", s.allocated, true);
        j.field("census_gcs", static_cast<uint64_t>(s.censuses)).field("census_ns", s.census_ns);
        j.field("compared_gcs", static_cast<uint64_t>(s.compared))
            .field("within_interval", static_cast<uint64_t>(s.within));
        j.field("median_gap", s.medianGap());
        j.endObject();
    }
    j.field("objects_allocated", c.objects_allocated);
    j.field("bytes_allocated", c.bytes_allocated);
    j.field("deaths_from_heap", c.deaths_from_heap);
    j.key("peak_live").beginObject();
    j.field("objects", c.peak_live_objects).field("objects_gc", c.peak_objects_gc);
    j.field("bytes", c.peak_live_bytes).field("bytes_gc", c.peak_bytes_gc);
    j.endObject();
    const SymbolTable::Counts& s = f.symbols().counts();
    j.key("symbols").beginObject();
    j.field("types", uint64_t{s.types})
        .field("fields", uint64_t{s.fields})
        .field("methods", uint64_t{s.methods});
    j.field("sites", uint64_t{s.sites})
        .field("threads", uint64_t{s.threads})
        .field("strings", uint64_t{s.strings});
    j.field("root_kinds", uint64_t{s.root_kinds}).field("spaces", uint64_t{s.spaces});
    j.endObject();
    ChunkCounts cc = countChunks(f);
    j.key("chunks").beginObject();
    j.field("total", uint64_t{cc.total}).field("compressed", uint64_t{cc.compressed});
    for (uint16_t k = 1; k <= kKnownChunkKinds; ++k)
        j.field(format::chunkKindName(k), uint64_t{cc.by_kind[k]});
    j.field("unknown", uint64_t{cc.unknown});
    j.endObject();
    const Diagnostics& d = h.diagnostics();
    j.key("integrity").beginObject();
    j.field("errors", d.errorCount()).field("notes", d.noteCount());
    j.key("anomalies").beginArray();
    for (size_t i = 0; i < Diagnostics::kKinds; ++i) {
        auto a = static_cast<Anomaly>(i);
        if (d[a].count == 0) continue;
        j.beginObject();
        j.field("kind", Diagnostics::name(a))
            .field("error", Diagnostics::isError(a))
            .field("count", d[a].count);
        j.field("description", Diagnostics::description(a)).field("first", d[a].first);
        j.endObject();
    }
    j.endArray();
    j.key("warnings").beginArray();
    for (const std::string& w : f.warnings())
        j.value(w);
    j.endArray();
    j.endObject();
    j.endObject();
    std::cout << j.str();
}

void printSampled(const HeapHistory& h, const EventCounts& c) {
    SampledSummary s = summarizeSampled(h);
    const double run = static_cast<double>(durationNs(c.first_time_ns, c.last_time_ns));
    char share[32] = "-";
    if (run > 0) std::snprintf(share, sizeof share, "%.2f%%", 100.0 * static_cast<double>(s.census_ns) / run);
    std::cout << "sampled     one allocation per " << formatBytes(h.sampling()->interval())
              << " on average: " << formatCount(c.objects_allocated) << " samples ("
              << formatBytes(c.bytes_allocated) << ") standing for " << estimateText(s.allocated, false)
              << " objects, " << estimateText(s.allocated, true) << " allocated up to the last GC\n"
              << "census      " << formatCountOf(s.censuses, "GC", "GCs")
              << " with the JVM's count of every type (exact there), "
              << formatDuration(static_cast<int64_t>(s.census_ns)) << " of the program's time (" << share
              << ")\n";
    std::cout << "JVM         ";
    if (s.compared == 0) {
        std::cout << "no GC to compare the estimates with the JVM's used bytes at\n";
    } else {
        char gap[32];
        std::snprintf(gap, sizeof gap, "%+.1f%%", 100 * s.medianGap());
        std::cout << "estimated live bytes against the JVM's used bytes after "
                  << formatCountOf(s.compared, "GC", "GCs") << " without a census: median " << gap << ", "
                  << s.within << " within the 95% interval\n";
    }
    const GcRecord* peak = c.peak_bytes_gc < h.gcCount() ? &h.gcs()[c.peak_bytes_gc] : nullptr;
    std::cout << "objects     peak live "
              << (peak ? estimateText(peak->live_sampled, true) : std::string("-")) << " at GC "
              << c.peak_bytes_gc << "\n";
}

void printText(const LoadedTrace& t) {
    const TraceFile& f = *t.trace;
    const HeapHistory& h = *t.history;
    const EventCounts& c = h.counts();
    std::string producer;
    for (const auto& [k, v] : f.meta())
        if (k == "producer") producer = v;
    std::cout << "trace       " << f.path() << " (" << formatBytes(f.fileSize()) << ", format "
              << f.header().version_major << "." << f.header().version_minor
              << (producer.empty() ? "" : ", " + printable(producer)) << ")\n";
    for (const auto& [k, v] : f.meta())
        if (k != "producer") std::cout << "  " << printable(k) << " = " << printable(v) << "\n";
    std::cout << "time span   " << formatDuration(clampNs(durationNs(c.first_time_ns, c.last_time_ns)))
              << " (" << formatDuration(c.first_time_ns) << " .. " << formatDuration(c.last_time_ns) << ")\n";
    uint64_t pauses = 0;
    for (const GcRecord& g : h.gcs())
        pauses += g.pause_ns;
    std::cout << "GCs         " << formatCount(h.gcCount()) << " (" << gcKindCounts(h) << "), "
              << formatDuration(static_cast<int64_t>(pauses)) << " of pauses, " << h.snapshots().size()
              << " reference snapshots\n";
    if (h.sampled()) {
        printSampled(h, c);
    } else {
        std::cout << "JVM         "
                  << describeJvmAgreement(summarizeJvmChecks(h.jvmChecks()), !h.jvmFacts().empty()) << "\n";
        std::cout << "objects     " << formatCount(c.objects_allocated) << " allocated ("
                  << formatBytes(c.bytes_allocated) << "); peak live " << formatCount(c.peak_live_objects)
                  << " objects at GC " << c.peak_objects_gc << ", " << formatBytes(c.peak_live_bytes)
                  << " at GC " << c.peak_bytes_gc << "\n";
    }
    if (c.deaths_from_heap)
        std::cout << "            " << formatCount(c.deaths_from_heap)
                  << " died in the last GC as the JVM's heap after it says (their death events came after "
                     "the trace was closed)\n";
    std::cout << "events      " << formatCount(c.total()) << ":";
    bool first = true;
    for (const char* k : kEventKinds) {
        uint64_t n = c.by_kind[eventKindIndex(k)];
        if (n == 0) continue;
        std::cout << (first ? " " : ", ") << formatCount(n) << " " << k;
        first = false;
    }
    std::cout << "\n";
    const SymbolTable::Counts& s = f.symbols().counts();
    std::cout << "symbols     " << s.types << " types, " << s.fields << " fields, " << s.methods
              << " methods, " << s.sites << " sites, " << s.threads << " threads, " << s.strings << " strings"
              << (s.spaces ? ", " + std::to_string(s.spaces) + " spaces" : std::string()) << "\n";
    ChunkCounts cc = countChunks(f);
    std::cout << "chunks      " << cc.total << " (";
    first = true;
    for (uint16_t k = 1; k <= kKnownChunkKinds; ++k) {
        if (cc.by_kind[k] == 0) continue;
        std::cout << (first ? "" : ", ") << cc.by_kind[k] << " " << format::chunkKindName(k);
        first = false;
    }
    if (cc.unknown) std::cout << ", " << cc.unknown << " unknown";
    std::cout << "), " << cc.compressed << " zstd-compressed"
              << (f.hadFooterIndex() ? "" : ", no footer index") << "\n";
    const Diagnostics& d = h.diagnostics();
    if (d.errorCount() == 0 && d.noteCount() == 0 && !f.truncated() && f.warnings().empty()) {
        std::cout << "integrity   no problems found\n";
    } else {
        std::cout << "integrity   " << formatCount(d.errorCount()) << " errors, "
                  << formatCount(d.noteCount()) << " notes"
                  << (f.beingWritten() ? ", still being written"
                      : f.truncated()  ? ", cut off"
                                       : "")
                  << " (details on stderr)\n";
        for (size_t i = 0; i < Diagnostics::kKinds; ++i) {
            auto a = static_cast<Anomaly>(i);
            if (d[a].count)
                std::cout << "  " << formatCount(d[a].count) << " " << Diagnostics::description(a) << " ["
                          << Diagnostics::name(a) << "]\n";
        }
    }
}

int runInfo(const Words& words) {
    auto args = oneTraceArgs("info", words);
    if (!args) return args.status();
    auto loaded = loadOrSay(args->positionals()[0]);
    if (!loaded) return 1;
    if (args->has("--json"))
        printJson(*loaded);
    else
        printText(*loaded);
    printDiagnostics(*loaded, std::cerr, true);
    return loaded->history->diagnostics().errorCount() > 0 ? 2 : 0;
}

}  // namespace

extern const Command kInfo{
    .name = "info",
    .summary = "what a trace holds, and whether it is sound",
    .usage = R"(usage: memcity info FILE [--json]

Reads the whole trace and reports: format version, producer, time span, events by kind,
GCs, objects and bytes allocated, peak live objects and bytes, symbol counts, chunks,
and integrity diagnostics (deaths of unknown objects, double deaths, GC events out of
order, a cut-off tail, ...).

exit status: 0 sound (a cut-off tail only warns), 1 unreadable, 2 read but the trace
contradicts itself (each problem is printed on stderr with its file offset).

)",
    .options =
        {
            {"--json", "", "", "print JSON instead of text (docs/cli.md describes its shape)"},
        },
    .run = [](const Words& a, const Services&) { return runInfo(a); },
};

}  // namespace memcity::cli
