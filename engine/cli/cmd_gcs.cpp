// memcity gcs FILE [--from A] [--to B] [--json]
#include <algorithm>
#include <cstdio>
#include <iostream>
#include <span>

#include "cli/args.h"
#include "cli/commands.h"
#include "cli/json_writer.h"
#include "cli/load.h"
#include "cli/one_trace.h"
#include "cli/sampled_output.h"
#include "cli/text_format.h"

namespace memcity::cli {
namespace {

std::string causeOf(const TraceFile& f, const GcRecord& g) {
    return g.cause ? std::string(f.symbols().string(g.cause)) : std::string();
}

const JvmCheck* checkOf(const HeapHistory& h, uint32_t gc) {
    for (const JvmCheck& c : h.jvmChecks())
        if (c.gc == gc) return &c;
    return nullptr;
}

void jvmJson(JsonWriter& j, const LoadedTrace& t, const GcRecord& g) {
    const HeapHistory& h = *t.history;
    const SymbolTable& sym = t.trace->symbols();
    j.key("jvm");
    if (g.jvm < 0) {
        j.null();
    } else {
        const GcJvmEvent& e = h.jvmFacts()[static_cast<size_t>(g.jvm)];
        j.beginObject();
        j.key("collectors").beginArray();
        for (const CollectorRun& c : e.collectors) {
            if (c.after == c.before) continue;
            j.beginObject();
            j.field("name", sym.string(c.name)).field("runs", c.after - c.before).field("total", c.after);
            j.endObject();
        }
        j.endArray();
        j.key("pools").beginArray();
        for (const PoolFigures& p : e.pools) {
            j.beginObject();
            j.field("name", sym.string(p.name));
            j.field("used_before", p.used_before).field("committed_before", p.committed_before);
            j.field("used_after", p.used_after).field("committed_after", p.committed_after);
            j.endObject();
        }
        j.endArray();
        j.endObject();
    }
    j.key("census");
    if (g.census < 0) {
        j.null();
    } else {
        const GcCensusEvent& c = h.censuses()[static_cast<size_t>(g.census)];
        uint64_t objects = 0, bytes = 0, untracked_objects = 0, untracked_bytes = 0, agent_objects = 0,
                 agent_bytes = 0, filler_objects = 0, filler_bytes = 0;
        for (const CensusType& ty : c.types) {
            objects += ty.objects;
            bytes += ty.bytes;
            untracked_objects += ty.untracked_objects;
            untracked_bytes += ty.untracked_bytes;
            agent_objects += ty.agent_objects;
            agent_bytes += ty.agent_bytes;
            filler_objects += ty.filler_objects;
            filler_bytes += ty.filler_bytes;
        }
        j.beginObject();
        j.field("objects", objects).field("bytes", bytes);
        j.field("untracked_objects", untracked_objects).field("untracked_bytes", untracked_bytes);
        j.field("filler_objects", filler_objects).field("filler_bytes", filler_bytes);
        j.field("agent_objects", agent_objects).field("agent_bytes", agent_bytes);
        j.field("newer_objects", c.newer_objects).field("newer_bytes", c.newer_bytes);
        j.key("types").beginArray();
        for (const CensusType& ty : c.types) {
            j.beginObject();
            j.field("type", ty.type ? std::string(sym.type(ty.type).name) : std::string());
            j.field("objects", ty.objects).field("bytes", ty.bytes);
            j.field("untracked_objects", ty.untracked_objects).field("untracked_bytes", ty.untracked_bytes);
            j.field("agent_objects", ty.agent_objects).field("agent_bytes", ty.agent_bytes);
            j.field("filler_objects", ty.filler_objects).field("filler_bytes", ty.filler_bytes);
            j.endObject();
        }
        j.endArray();
        j.endObject();
    }
    j.key("check");
    if (const JvmCheck* c = checkOf(h, g.index)) {
        j.beginObject();
        j.key("jvm_live_bytes");
        if (c->has_census)
            j.value(c->jvm_bytes);
        else
            j.null();
        j.field("gap", c->gap()).field("used_gap", c->usedGap()).field("agrees", c->agrees());
        j.key("differences").beginArray();
        for (const TypeGap& d : c->biggest) {
            j.beginObject();
            j.field("type", d.type).field("objects", d.objects).field("bytes", d.bytes);
            j.endObject();
        }
        j.endArray();
        j.key("dead_space_bytes");
        if (c->has_census)
            j.value(c->deadSpace());
        else
            j.null();
        j.endObject();
    } else {
        j.null();
    }
}
void printJson(const LoadedTrace& t, uint32_t from, uint32_t to) {
    JsonWriter j;
    j.beginObject();
    j.field("file", t.trace->path());
    jsonSampling(j, *t.history);
    j.key("gcs").beginArray();
    const auto& gcs = t.history->gcs();
    for (uint32_t i = from; i <= to && i < gcs.size(); ++i) {
        const GcRecord& g = gcs[i];
        j.beginObject();
        j.field("index", g.index)
            .field("kind", format::gcKindName(g.kind))
            .field("cause", causeOf(*t.trace, g));
        j.field("start_ns", g.start_ns).field("end_ns", g.end_ns).field("pause_ns", g.pause_ns);
        j.field("live_objects", g.live_objects).field("live_bytes", g.live_bytes);
        j.field("allocated_objects", g.allocated_objects).field("allocated_bytes", g.allocated_bytes);
        j.field("freed_objects", g.freed_objects).field("freed_bytes", g.freed_bytes);
        if (t.history->sampled()) {
            j.key("estimates").beginObject();
            for (auto [name, sums] : {std::pair{"live", &g.live_sampled},
                                      {"allocated", &g.allocated_sampled},
                                      {"freed", &g.freed_sampled}}) {
                j.key(name).beginObject();
                jsonEstimate(j, "objects", *sums, false);
                jsonEstimate(j, "bytes", *sums, true);
                j.endObject();
            }
            j.field("census_exact", g.calibration >= 0);
            j.endObject();
        }
        j.field("snapshot", g.has_snapshot);
        bool reach = g.has_snapshot && (g.reachable_objects || g.unreached_objects);
        for (auto [k, v] : {std::pair{"reachable_objects", g.reachable_objects},
                            {"reachable_bytes", g.reachable_bytes},
                            {"unreached_objects", g.unreached_objects},
                            {"unreached_bytes", g.unreached_bytes}}) {
            j.key(k);
            if (reach)
                j.value(v);
            else
                j.null();
        }
        j.field("vm_heap_before", g.vm_heap_before).field("vm_heap_after", g.vm_heap_after);
        j.field("vm_heap_committed", g.vm_heap_committed);
        j.field("next_object_id", g.next_object_id);
        jvmJson(j, t, g);
        j.endObject();
    }
    j.endArray();
    j.endObject();
    std::cout << j.str();
}

// A sampled trace's GCs: every heap figure estimated, with its interval and samples, but at the
// GCs the JVM counted (a census: "="), and the JVM's own used bytes beside them; at the GCs with
// a reference snapshot, the bytes the roots reach (exact: the snapshot makes the heap whole).
void printSampledTable(const LoadedTrace& t, uint32_t from, uint32_t to) {
    sayEstimates(*t.history, std::cout);
    const std::span<const GcRecord> all(t.history->gcs());
    const size_t end = std::min<size_t>(size_t{to} + 1, all.size());
    const std::span<const GcRecord> shown = from < end ? all.subspan(from, end - from) : all.subspan(0, 0);
    if (std::any_of(shown.begin(), shown.end(), [](const GcRecord& g) { return g.has_snapshot; }))
        std::cout << "reachable: exact, at the GCs with a reference snapshot (the heap made whole there)\n";
    std::printf("%5s %-6s %-20s %10s %9s %14s %30s %10s %14s %14s %10s %8s\n", "GC", "kind", "cause", "time",
                "pause", "live objs", "live (95% interval)", "JVM after", "allocated", "freed", "reachable",
                "samples");
    const auto& gcs = t.history->gcs();
    for (uint32_t i = from; i <= to && i < gcs.size(); ++i) {
        const GcRecord& g = gcs[i];
        const std::string cause = printable(causeOf(*t.trace, g), 20);
        auto objects = [](const SampleSums& s) { return estimateValueText(s, false); };
        auto bytes = [](const SampleSums& s) { return estimateValueText(s, true); };
        const bool reach = g.has_snapshot && g.reachable_objects;
        std::printf(
            "%5u %-6s %-20s %10s %9s %s %s %10s %s %s %10s %8s\n", g.index,
            std::string(format::gcKindName(g.kind)).c_str(), cause.c_str(), formatDuration(g.end_ns).c_str(),
            formatDuration(static_cast<int64_t>(g.pause_ns)).c_str(),
            padLeft(objects(g.live_sampled), 14).c_str(),
            padLeft(estimateText(g.live_sampled, true), 30).c_str(),
            g.jvm >= 0 ? formatBytes(g.vm_heap_after).c_str() : "-",
            padLeft(bytes(g.allocated_sampled), 14).c_str(), padLeft(bytes(g.freed_sampled), 14).c_str(),
            reach ? formatBytes(g.reachable_bytes).c_str() : "-",
            formatCount(g.live_sampled.samples).c_str());
    }
}

void printTable(const LoadedTrace& t, uint32_t from, uint32_t to) {
    if (t.history->sampled()) return printSampledTable(t, from, to);
    // The JVM's figures where the trace has them: its heap in use after the GC, and at full GCs
    // how far memcity's live heap is from the JVM's count (heap/jvm_check.h).
    std::printf("%5s %-6s %-20s %10s %9s %11s %10s %10s %7s %10s %10s %10s\n", "GC", "kind", "cause", "time",
                "pause", "live objs", "live", "JVM after", "vs JVM", "allocated", "freed", "reachable");
    const auto& gcs = t.history->gcs();
    for (uint32_t i = from; i <= to && i < gcs.size(); ++i) {
        const GcRecord& g = gcs[i];
        std::string cause = printable(causeOf(*t.trace, g), 20);
        bool reach = g.has_snapshot && (g.reachable_objects || g.unreached_objects);
        char gap[16] = "-";
        if (const JvmCheck* c = checkOf(*t.history, g.index))
            std::snprintf(gap, sizeof gap, "%+.2f%%", c->usedGap() * 100);
        std::printf(
            "%5u %-6s %-20s %10s %9s %11s %10s %10s %7s %10s %10s %10s\n", g.index,
            std::string(format::gcKindName(g.kind)).c_str(), cause.c_str(), formatDuration(g.end_ns).c_str(),
            formatDuration(static_cast<int64_t>(g.pause_ns)).c_str(), formatCount(g.live_objects).c_str(),
            formatBytes(g.live_bytes).c_str(), g.jvm >= 0 ? formatBytes(g.vm_heap_after).c_str() : "-", gap,
            formatBytes(g.allocated_bytes).c_str(), formatBytes(g.freed_bytes).c_str(),
            reach ? formatBytes(g.reachable_bytes).c_str() : "-");
    }
}

int runGcs(const Words& words) {
    auto args = oneTraceArgs("gcs", words);
    if (!args) return args.status();
    auto from = args->unsignedValue("--from", 0);
    auto to = args->unsignedValue("--to", UINT64_MAX);
    for (const Result<uint64_t>* r : {&from, &to}) {
        if (!*r) {
            std::cerr << r->error().message << "\n";
            return 1;
        }
    }
    auto loaded = loadOrSay(args->positionals()[0]);
    if (!loaded) return 1;
    const HeapHistory& h = *loaded->history;
    uint64_t last = h.gcCount() == 0 ? 0 : h.gcCount() - 1;
    uint64_t a = *from, b = args->has("--to") ? *to : last;
    for (uint64_t gc : {a, b}) {
        if (h.gcCount() == 0 || gc > last) {
            if (gc == 0 && h.gcCount() == 0 && !args->has("--from") && !args->has("--to")) break;
            std::cerr << "memcity gcs: " << h.gcRangeError(gc) << "\n";
            return 1;
        }
    }
    if (a > b) {
        std::cerr << "memcity gcs: --from " << a << " is after --to " << b << "\n";
        return 1;
    }
    printDiagnostics(*loaded, std::cerr, false);
    if (args->has("--json"))
        printJson(*loaded, static_cast<uint32_t>(a), static_cast<uint32_t>(b));
    else if (h.gcCount() > 0)
        printTable(*loaded, static_cast<uint32_t>(a), static_cast<uint32_t>(b));
    else
        std::cout << "the trace has no GCs\n";
    return 0;
}

}  // namespace

extern const Command kGcs{
    .name = "gcs",
    .summary = "the per-GC series: live, allocated, freed, reachable, pauses",
    .usage = R"(usage: memcity gcs FILE [--from A] [--to B] [--json]

One row per GC: its kind and cause, end time, pause, live objects and bytes after it,
objects and bytes allocated since the previous GC, freed by it, and, where a reference
snapshot was taken, the bytes reachable from GC roots.

)",
    .options =
        {
            {"--from", "A", "", "first GC to list (default 0)"},
            {"--to", "B", "", "last GC to list (default: the last one)"},
            {"--json", "", "", "print JSON instead of a table (docs/cli.md describes its shape)"},
        },
    .run = [](const Words& a, const Services&) { return runGcs(a); },
};

}  // namespace memcity::cli
