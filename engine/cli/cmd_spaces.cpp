// memcity spaces FILE [--gc N] [--tile BYTES] [--json]
#include <cinttypes>
#include <cstdio>
#include <iostream>

#include "classify/heap_map_at.h"
#include "cli/args.h"
#include "cli/commands.h"
#include "cli/json_writer.h"
#include "cli/load.h"
#include "cli/one_trace.h"
#include "cli/text_format.h"
#include "heap/heap_map.h"
#include "util/parallel.h"

namespace memcity::cli {
namespace {

std::string hex(uint64_t v) {
    char b[24];
    std::snprintf(b, sizeof b, "0x%" PRIx64, v);
    return b;
}

// G1's roles as its log counts them ("Humongous regions: 24->32" adds starts and continues).
struct RoleColumn {
    const char* name;
    std::initializer_list<RegionRole> roles;
};
const RoleColumn kRoleColumns[] = {
    {"eden", {RegionRole::kEden}},
    {"survivor", {RegionRole::kSurvivor}},
    {"old", {RegionRole::kOld}},
    {"archive", {RegionRole::kArchive}},
    {"humongous", {RegionRole::kHumongousStart, RegionRole::kHumongousContinues}},
    {"free", {RegionRole::kFree}},
    {"unknown", {RegionRole::kUnknown}},
};

uint32_t regionsOf(const RegionsRecord* r, const RoleColumn& c) {
    uint32_t n = 0;
    for (RegionRole role : c.roles)
        n += r ? r->counts[static_cast<size_t>(role)] : 0;
    return n;
}

// G1's regions per role before and after a GC: "eden 1->0 survivor 0->1 ...". Archive and
// unknown only where a table has any.
std::string regionsLine(const RegionsRecord* before, const RegionsRecord& after) {
    std::string line;
    for (const RoleColumn& c : kRoleColumns) {
        const uint32_t b = regionsOf(before, c), a = regionsOf(&after, c);
        if (b == 0 && a == 0 &&
            (c.roles.begin()[0] == RegionRole::kArchive || c.roles.begin()[0] == RegionRole::kUnknown))
            continue;
        line +=
            "  " + std::string(c.name) + " " + (before ? std::to_string(b) : "?") + "->" + std::to_string(a);
    }
    return line;
}

// One line per GC with spaces: each space's used bytes before and after it, and its capacity;
// under G1, its regions per role before and after it.
void printSeries(const LoadedTrace& t) {
    const HeapHistory& h = *t.history;
    const SymbolTable& sym = t.trace->symbols();
    if (!h.regions().empty()) {
        const RegionsRecord& r = h.regions().front();
        const std::string* told = t.trace->metaValue("dump " + std::to_string(r.gc) + " regions");
        std::printf(
            "G1's regions of %s, %u in its table (the heap's maximum); regions per role before->after "
            "each GC, %s\n",
            formatBytes(r.region_bytes).c_str(), r.regions,
            told ? ("at each dump: " + *told).c_str() : "as -Xlog:gc+heap counts them");
    }
    for (const GcRecord& g : h.gcs()) {
        const GcSpacesEvent* e = h.spacesAt(g.index);
        const RegionsRecord* regions = h.regionsAt(g.index);
        std::printf("%5u %-6s%s", g.index, std::string(format::gcKindName(g.kind)).c_str(),
                    g.has_addresses ? " @" : "  ");
        if (regions) std::printf("%s", regionsLine(h.regionsAt(g.index, false), *regions).c_str());
        if (!e && !regions) std::printf("  -");
        for (const SpaceState& s : e ? e->spaces : std::vector<SpaceState>{})
            std::printf("  %s %s->%s/%s", spaceName(sym, s.space).c_str(),
                        formatBytes(s.usedBefore()).c_str(), formatBytes(s.used()).c_str(),
                        formatBytes(s.capacity()).c_str());
        std::printf("\n");
    }
}

void printMap(const HeapMap& m, bool with_addresses) {
    std::printf("%-18s %14s %14s %14s %10s %10s %11s %10s %10s\n", "space", "bottom", "top", "end", "used",
                "capacity", "objects", "bytes", "gaps");
    for (const SpaceMap& s : m.spaces) {
        std::printf("%-18s %14s %14s %14s %10s %10s %11s %10s %10s", printable(s.name, 18).c_str(),
                    hex(s.state.bottom).c_str(), hex(s.state.top).c_str(), hex(s.state.end).c_str(),
                    formatBytes(s.state.used()).c_str(), formatBytes(s.state.capacity()).c_str(),
                    with_addresses ? formatCount(s.objects).c_str() : "-",
                    with_addresses ? formatBytes(s.bytes).c_str() : "-",
                    with_addresses ? formatBytes(s.gap_bytes).c_str() : "-");
        if (s.overlaps) std::printf("  %s overlapping", formatCount(s.overlaps).c_str());
        std::printf("\n");
    }
    if (!with_addresses) return;
    if (m.unplaced_objects)
        std::printf("without an address: %s objects, %s\n", formatCount(m.unplaced_objects).c_str(),
                    formatBytes(m.unplaced_bytes).c_str());
    if (m.outside_objects)
        std::printf("outside every space's used part: %s objects, %s\n",
                    formatCount(m.outside_objects).c_str(), formatBytes(m.outside_bytes).c_str());
}

void printJson(const LoadedTrace& t, const HeapMap& m, bool with_addresses) {
    JsonWriter j;
    j.beginObject();
    j.field("file", t.trace->path()).field("gc", m.gc).field("addresses", with_addresses);
    j.field("tile_bytes", m.tile_bytes);
    j.field("unplaced_objects", m.unplaced_objects).field("unplaced_bytes", m.unplaced_bytes);
    j.field("outside_objects", m.outside_objects).field("outside_bytes", m.outside_bytes);
    if (m.region_bytes) {  // G1: its grid's regions, each one's role in address order
        j.field("region_bytes", m.region_bytes);
        j.key("region_roles").beginArray();
        for (RegionRole role : m.region_roles)
            j.value(regionRoleName(role));
        j.endArray();
    }
    j.key("spaces").beginArray();
    for (const SpaceMap& s : m.spaces) {
        j.beginObject();
        j.field("name", s.name)
            .field("bottom", s.state.bottom)
            .field("top", s.state.top)
            .field("end", s.state.end);
        j.field("objects", s.objects).field("bytes", s.bytes).field("gap_bytes", s.gap_bytes);
        j.field("overlaps", s.overlaps);
        j.key("tiles").beginArray();
        for (const HeapTile& tile : s.tiles) {
            j.beginArray();
            j.value(tile.objects).value(tile.bytes);
            j.endArray();
        }
        j.endArray();
        j.endObject();
    }
    j.endArray();
    j.endObject();
    std::cout << j.str();
}

int runSpaces(const Words& words) {
    auto args = oneTraceArgs("spaces", words);
    if (!args) return args.status();
    uint64_t tile = 64 << 10;
    if (auto text = args->value("--tile");
        text && (!parseBytes(*text, &tile) || tile < 64 || tile > (1u << 30))) {
        std::cerr << "memcity spaces: --tile takes a size from 64 to 1g (512k, 4m), not '" << *text << "'\n";
        return 1;
    }
    auto loaded = loadOrSay(args->positionals()[0]);
    if (!loaded) return 1;
    const HeapHistory& h = *loaded->history;
    if (!args->has("--gc")) {
        if (args->has("--json")) {
            std::cerr << "memcity spaces: --json needs --gc N\n";
            return 1;
        }
        printSeries(*loaded);
        return 0;
    }
    auto gc = args->unsignedValue("--gc", 0);
    if (!gc) {
        std::cerr << gc.error().message << "\n";
        return 1;
    }
    if (*gc >= h.gcCount()) {
        std::cerr << "error: " << h.gcRangeError(*gc) << "\n";
        return 1;
    }
    auto heap = h.heapAt(static_cast<uint32_t>(*gc));
    if (!heap) {
        std::cerr << "error: " << heap.error().message << "\n";
        return 1;
    }
    auto addresses = h.addressesFor(*heap, defaultThreads());
    if (!addresses) {
        std::cerr << "error: " << addresses.error().message << "\n";
        return 1;
    }
    const GcSpacesEvent* spaces = h.spacesAt(static_cast<uint32_t>(*gc));
    if (!spaces && addresses->empty()) {
        std::cerr << "memcity spaces: " << loaded->trace->path() << " has neither spaces nor addresses at GC "
                  << *gc << "\n";
        return 1;
    }
    const std::optional<GcRegionsEvent> regions = regionTableAt(h, static_cast<uint32_t>(*gc));
    HeapMapOptions options;
    options.tile_bytes = tile;
    options.regions = regions ? &*regions : nullptr;
    options.threads = defaultThreads();
    const HeapMap m = buildHeapMap(heap->view(), *addresses, spaces, loaded->trace->symbols(), options);
    if (args->has("--json")) {
        printJson(*loaded, m, !addresses->empty());
        return 0;
    }
    std::printf("%s, GC %u (%s): %s\n", loaded->trace->path().c_str(), m.gc,
                std::string(format::gcKindName(h.gcs()[m.gc].kind)).c_str(),
                addresses->empty() ? "spaces only (no addresses at this GC)" : "spaces and addresses");
    printMap(m, !addresses->empty());
    return 0;
}

}  // namespace

extern const Command kSpaces{
    .name = "spaces",
    .summary = "the collector's spaces at each GC, and where the objects lie in them",
    .usage = R"(usage: memcity spaces FILE [--gc N [--tile BYTES] [--json]]

Without --gc: one row per GC with each of the collector's spaces, its used bytes before and
after the GC and its capacity (@ marks the GCs whose objects' addresses the trace has); under
G1, its regions per role before->after each GC, as -Xlog:gc+heap counts them, and its grid as
one space, "G1 heap", with the regions' used bytes. With --gc: that GC's spaces with
their bounds, and where the trace has addresses, the objects in each, the bytes between them
and any that overlap; --json adds the tiles of BYTES each (docs/heapmap.md).

)",
    .options =
        {
            {"--gc", "N", "", "one GC's spaces and objects"},
            {"--tile", "BYTES", "", "tile size of --json's tiles (default 64k)"},
            {"--json", "", "", "print JSON instead of a table (with --gc)"},
        },
    .run = [](const Words& a, const Services&) { return runSpaces(a); },
};

}  // namespace memcity::cli
