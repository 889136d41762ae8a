// GC_REGIONS (trace/g1_regions.h): G1's region table round-trips, counts its roles, and a table
// that contradicts itself is an error naming where.
#include <gtest/gtest.h>

#include <algorithm>
#include <vector>

#include "classify/heap_map_at.h"
#include "cli/run_memcity.h"
#include "heap/heap_history.h"
#include "hprof/dump_regions.h"
#include "trace/g1_regions.h"
#include "unit/g1_trace.h"
#include "unit/trace_builder.h"
#include "util/bytes.h"

using namespace memcity;

namespace {

using R = RegionRole;

// Eight 1 MiB regions: two eden, a humongous object over three regions, an old one, two free.
GcRegionsEvent eightRegions() {
    GcRegionsEvent e;
    e.gc = 7;
    e.after = false;
    e.shift = 20;
    e.first = uint64_t{0xfc000000};
    e.roles = {
        R::kEden, R::kEden, R::kHumongousStart, R::kHumongousContinues, R::kHumongousContinues, R::kOld,
        R::kFree, R::kFree};
    e.used = {4096, 1 << 20, 1 << 20, 1 << 20, 1 << 20, 524288, 0, 0};
    return e;
}

}  // namespace

TEST(G1Regions, RoundTripsAndCountsItsRoles) {
    const GcRegionsEvent e = eightRegions();
    const std::vector<uint8_t> bytes = encodeGcRegions(e);
    GcRegionsEvent d;
    ASSERT_TRUE(decodeGcRegions(bytes, &d));
    EXPECT_EQ(d.gc, 7u);
    EXPECT_FALSE(d.after);
    EXPECT_EQ(d.regionBytes(), uint64_t{1} << 20);
    EXPECT_EQ(d.bottomOf(3), uint64_t{0xfc300000});
    EXPECT_EQ(d.roles, e.roles);
    EXPECT_EQ(d.used, e.used);
    const auto n = d.countRoles();
    EXPECT_EQ(n[static_cast<size_t>(R::kEden)], 2u);
    EXPECT_EQ(n[static_cast<size_t>(R::kHumongousStart)], 1u);
    EXPECT_EQ(n[static_cast<size_t>(R::kHumongousContinues)], 2u);
    EXPECT_EQ(n[static_cast<size_t>(R::kOld)], 1u);
    EXPECT_EQ(n[static_cast<size_t>(R::kFree)], 2u);
    EXPECT_EQ(regionRoleName(R::kHumongousContinues), "humongous continues");
}

TEST(G1Regions, ARoleOfALaterFormatReadsAsUnknown) {
    ByteWriter w;
    for (uint64_t v : {1u, 1u, 20u, 0u, 1u, 42u, 1u, 100u})
        w.varint(v);
    GcRegionsEvent d;
    ASSERT_TRUE(decodeGcRegions(w.bytes(), &d));
    ASSERT_EQ(d.roles.size(), 1u);
    EXPECT_EQ(d.roles[0], R::kUnknown);
    EXPECT_EQ(d.used[0], 100u);
}

TEST(G1Regions, ATableThatContradictsItselfIsAnErrorNamingWhere) {
    GcRegionsEvent e = eightRegions();
    e.roles[2] = R::kOld;  // the continuation now follows an old region
    GcRegionsEvent d;
    Status s = decodeGcRegions(encodeGcRegions(e), &d);
    ASSERT_FALSE(s);
    EXPECT_EQ(s.error().message, "region 3 continues a humongous object that starts nowhere");
    EXPECT_NE(s.error().offset, kNoOffset);

    e = eightRegions();
    e.used[5] = (1 << 20) + 8;  // used past the region's end
    s = decodeGcRegions(encodeGcRegions(e), &d);
    ASSERT_FALSE(s);
    EXPECT_EQ(s.error().message, "region 5 uses 1048584 bytes of 1048576");

    std::vector<uint8_t> bytes = encodeGcRegions(eightRegions());
    bytes.push_back(0);
    s = decodeGcRegions(bytes, &d);
    ASSERT_FALSE(s);
    EXPECT_EQ(s.error().message, "bytes after the last region");
    EXPECT_EQ(s.error().offset, bytes.size() - 1);

    bytes = encodeGcRegions(eightRegions());
    bytes.pop_back();  // cut inside the last run
    EXPECT_FALSE(decodeGcRegions(bytes, &d));
}

TEST(G1Regions, ImpossibleHeadersAreErrors) {
    auto header = [](std::initializer_list<uint64_t> v) {
        ByteWriter w;
        for (uint64_t x : v)
            w.varint(x);
        return std::move(w.bytes());
    };
    GcRegionsEvent d;
    Status s = decodeGcRegions(header({1, 2, 20, 0, 0}), &d);
    ASSERT_FALSE(s);
    EXPECT_EQ(s.error().message, "a phase that is neither the GC's start nor its end");
    s = decodeGcRegions(header({1, 1, 40, 0, 0}), &d);
    ASSERT_FALSE(s);
    EXPECT_EQ(s.error().message, "impossible region size");
    s = decodeGcRegions(header({1, 1, 20, 0, kMaxRegions + 1}), &d);
    ASSERT_FALSE(s);
    EXPECT_EQ(s.error().message, "impossible region count");
    s = decodeGcRegions(header({1, 1, 20, 0, 4, 3, 5}), &d);  // a run of 5 in a table of 4
    ASSERT_FALSE(s);
    EXPECT_EQ(s.error().message, "a run of 5 regions past the table's 4");
    EXPECT_EQ(s.error().offset, 5u);
}

// A trace's tables reach the history by GC, with their counts; `memcity spaces` lists them as
// G1's log does; a table that contradicts itself is an integrity error naming its GC, and the
// trace still opens.
TEST(G1Regions, AHistoryKeepsEachGcsTablesAndSpacesListsThem) {
    memcity::testing::TraceBuilder b("g1-regions");
    b.alloc(0, 1, 1).gc(0, 1);
    GcRegionsEvent before = eightRegions(), after = eightRegions();
    before.gc = after.gc = 0;
    after.after = true;
    after.roles[0] = after.roles[1] = R::kFree;  // eden emptied: into a survivor region
    after.used[0] = after.used[1] = 0;
    after.roles[6] = R::kSurvivor;
    after.used[6] = 8192;
    b.writer().gcRegions(before);
    b.writer().gcRegions(after);
    b.alloc(1, 1, 1).gc(1, 2);
    GcRegionsEvent bad = eightRegions();
    bad.gc = 1;
    bad.roles[2] = R::kOld;  // continues a humongous object that starts nowhere
    b.writer().gcRegions(bad);
    const std::string trace = b.finish();

    auto f = TraceFile::open(trace);
    ASSERT_TRUE(f.ok());
    auto h = HeapHistory::build(*f);
    ASSERT_TRUE(h.ok()) << h.error().message;
    ASSERT_EQ(h->regions().size(), 2u);
    const RegionsRecord* r = h->regionsAt(0);
    ASSERT_NE(r, nullptr);
    EXPECT_TRUE(r->after);
    EXPECT_EQ(r->regions, 8u);
    EXPECT_EQ(r->counts[static_cast<size_t>(R::kSurvivor)], 1u);
    EXPECT_EQ(r->counts[static_cast<size_t>(R::kFree)], 3u);
    EXPECT_EQ(r->table().roles, after.roles);
    EXPECT_EQ(h->regionsAt(0, false)->counts[static_cast<size_t>(R::kEden)], 2u);
    EXPECT_EQ(h->regionsAt(1), nullptr);
    const AnomalyRecord& a = h->diagnostics()[Anomaly::kBadExtension];
    EXPECT_EQ(a.count, 1u);
    EXPECT_NE(a.first.find("GC 1's region table"), std::string::npos) << a.first;
    EXPECT_NE(a.first.find("region 3 continues a humongous object that starts nowhere"), std::string::npos)
        << a.first;

    auto listed = memcity::testing::runMemcity("spaces " + trace);
    EXPECT_EQ(listed.status, 0) << listed.err;
    EXPECT_NE(listed.out.find("G1's regions of 1.0 MiB, 8 in its table"), std::string::npos) << listed.out;
    EXPECT_NE(
        listed.out.find("    0 young     eden 2->0  survivor 0->1  old 1->1  humongous 3->3  free 2->3  "
                        "G1 heap 4.5 MiB->3.5 MiB/8.0 MiB\n"),
        std::string::npos)
        << listed.out;
    EXPECT_NE(listed.out.find("    1 young     -\n"), std::string::npos) << listed.out;
}

// The heap map of a G1 heap is its grid: one space, a tile per region here, each with its role,
// its objects placed by address; without addresses each region's used bytes.
TEST(G1Regions, TheHeapMapIsTheRegionGrid) {
    const std::string trace = memcity::testing::writeG1Heap();
    auto f = TraceFile::open(trace);
    ASSERT_TRUE(f.ok());
    auto h = HeapHistory::build(*f);
    ASSERT_TRUE(h.ok()) << h.error().message;
    EXPECT_EQ(h->diagnostics().errorCount(), 0u);
    const GcSpacesEvent* spaces = h->spacesAt(0);
    ASSERT_NE(spaces, nullptr);
    ASSERT_EQ(spaces->spaces.size(), 1u);
    EXPECT_EQ(spaceName(f->symbols(), spaces->spaces[0].space), "G1 heap");
    EXPECT_EQ(spaces->spaces[0].bottom, 0x20000000u);
    EXPECT_EQ(spaces->spaces[0].capacity(), 24u << 16);
    EXPECT_EQ(spaces->spaces[0].used(), 40000u + 20000 + 3 * 65536 + 30000);
    EXPECT_EQ(spaces->spaces[0].usedBefore(), 9u * 65536 + 40000);

    HeapMapRequest request;
    request.gc = 0;
    request.tile_bytes = 1 << 16;
    auto map = heapMapAt(*h, request);
    ASSERT_TRUE(map.ok()) << map.error().message;
    ASSERT_TRUE(map->addresses);
    ASSERT_EQ(map->spaces.size(), 1u);
    EXPECT_EQ(map->region_bytes, 1u << 16);
    ASSERT_EQ(map->region_roles.size(), 24u);
    EXPECT_EQ(map->roleOfTile(8), R::kHumongousStart);
    EXPECT_EQ(map->roleOfTile(11), R::kSurvivor);
    const std::vector<HeapTile>& tiles = map->spaces[0].tiles;
    ASSERT_EQ(tiles.size(), 24u);
    EXPECT_EQ(tiles[6].objects, 20u);
    EXPECT_EQ(tiles[6].bytes, 40000u);
    EXPECT_EQ(tiles[11].bytes, 30000u);
    EXPECT_EQ(tiles[8].bytes, 65536u);  // the humongous object over 8, 9 and part of 10
    EXPECT_EQ(tiles[10].bytes, 190000u - 2 * 65536);
    EXPECT_EQ(tiles[8].dying_bytes, 65536u);  // it dies at GC 1
    EXPECT_EQ(map->outside_objects + map->unplaced_objects, 0u);

    // Parts of regions when magnified: four tiles a region, the roles still by region.
    request.gc = 1;
    request.tile_bytes = 1 << 14;
    request.dying = false;
    auto fine = heapMapAt(*h, request);
    ASSERT_TRUE(fine.ok());
    EXPECT_EQ(fine->spaces[0].tiles.size(), 96u);
    EXPECT_EQ(fine->roleOfTile(4 * 7 + 3), R::kOld);
    EXPECT_EQ(fine->roleOfTile(4 * 8), R::kFree);
    uint64_t region7 = 0;
    for (size_t t = 28; t < 32; ++t)
        region7 += fine->spaces[0].tiles[t].bytes;
    EXPECT_EQ(region7, 50000u);  // the survivors moved in after the ten

    // Without addresses: each region's used bytes from its bottom.
    const GcRegionsEvent after = h->regionsAt(0)->table();
    const HeapMap used = spacesOnlyMap(0, *spaces, f->symbols(), 1 << 15, &after);
    ASSERT_EQ(used.spaces[0].tiles.size(), 48u);
    EXPECT_EQ(used.spaces[0].tiles[12].bytes, 32768u);  // region 6: 40,000 B
    EXPECT_EQ(used.spaces[0].tiles[13].bytes, 40000u - 32768);
    EXPECT_EQ(used.spaces[0].tiles[16].bytes, 32768u);  // humongous: full
    EXPECT_EQ(used.roleOfTile(22), R::kSurvivor);

    // `memcity spaces --gc 0 --json` lists the grid's roles.
    auto json = memcity::testing::runMemcity("spaces " + trace + " --gc 0 --json");
    EXPECT_EQ(json.status, 0) << json.err;
    EXPECT_NE(json.out.find("\"region_bytes\": 65536,\n  \"region_roles\": [\n    \"free\","),
              std::string::npos)
        << json.out;
    EXPECT_NE(json.out.find("\"old\",\n    \"old\",\n    \"humongous start\",\n    \"humongous "
                            "continues\",\n    \"humongous continues\",\n    \"survivor\""),
              std::string::npos)
        << json.out;

    // The history rows of the grid carry every region's role before and after each GC.
    const uint32_t gcs[] = {0, 1};
    const std::vector<SpaceHistoryRow> rows = spaceExtents(*h, "G1 heap", gcs);
    ASSERT_EQ(rows.size(), 2u);
    EXPECT_EQ(rows[0].roles_before[0], R::kEden);
    EXPECT_EQ(rows[0].roles_after[0], R::kFree);
    EXPECT_EQ(rows[1].roles_before[8], R::kHumongousStart);
    EXPECT_EQ(rows[1].roles_after[8], R::kFree);
    EXPECT_EQ(rows[1].region_bytes, 1u << 16);
}

// Where a collector's heap cannot be laid out, the heap map says which and why, in one line.
TEST(G1Regions, ZgcAndShenandoahSayWhyThereIsNoMap) {
    for (const auto& [collector, why] :
         {std::pair<std::string, std::string>{"Z", "ZGC's pages are not drawn"},
          {"Shenandoah", "Shenandoah's regions are not recorded yet"},
          {"G1", "recorded before memcity recorded G1's regions"}}) {
        memcity::testing::TraceBuilder b("no-layout");
        b.writer().meta("collector", collector);
        b.alloc(0).gc(0, 1);
        const std::string trace = b.finish();
        auto r = memcity::testing::runMemcity("render " + trace + " --view heapmap -o " + trace + ".png");
        EXPECT_EQ(r.status, 1);
        EXPECT_NE(r.err.find(why), std::string::npos) << r.err;
        EXPECT_EQ(std::count(r.err.begin(), r.err.end(), '\n'), 1) << r.err;
    }
}

// A dump's grid from jcmd GC.heap_info, as JDK 17 and Temurin 25 answer; other collectors and
// answers that are not such give none.
TEST(G1DumpRegions, TheGridIsTheJvmsHeapInfo) {
    const char* jdk17 =
        " garbage-first heap   total 65536K, used 17947K [0x00000000fc000000, 0x0000000100000000)\n"
        "  region size 1024K, 1 young (1024K), 0 survivors (0K)\n"
        " Metaspace       used 297K, committed 512K, reserved 1114112K\n";
    const char* jdk25 =
        "garbage-first heap   total reserved 4194304K, committed 262144K, used 18861K [0x0000000700000000, "
        "0x0000000800000000)\n region size 2048K, 2 young (4096K), 0 survivors (0K)\n";
    auto g17 = hprof::parseG1HeapInfo(jdk17);
    ASSERT_TRUE(g17);
    EXPECT_EQ(g17->bottom, 0xfc000000u);
    EXPECT_EQ(g17->end, 0x100000000u);
    EXPECT_EQ(g17->shift, 20u);
    auto g25 = hprof::parseG1HeapInfo(jdk25);
    ASSERT_TRUE(g25);
    EXPECT_EQ(g25->bottom, 0x700000000u);
    EXPECT_EQ(g25->end, 0x800000000u);
    EXPECT_EQ(g25->shift, 21u);
    EXPECT_FALSE(
        hprof::parseG1HeapInfo(" PSYoungGen      total 76288K, used 3932K [0x000000076b000000, "
                               "0x0000000770500000, 0x00000007c0000000)\n"));
    EXPECT_FALSE(hprof::parseG1HeapInfo(""));
    // A region size that is no power of two, a range not in whole regions, or cut short.
    EXPECT_FALSE(hprof::parseG1HeapInfo(
        " garbage-first heap total 1K [0xfc000000, 0x100000000)\n region size 1000K,"));
    EXPECT_FALSE(hprof::parseG1HeapInfo(
        " garbage-first heap total 1K [0xfc000800, 0x100000000)\n region size 1024K,"));
    EXPECT_FALSE(
        hprof::parseG1HeapInfo(" garbage-first heap total 1K [0xfc000000, 0x100000000)\n region size"));
    EXPECT_FALSE(hprof::parseG1HeapInfo(" garbage-first heap total 1K [0xfc000000, 0x1000"));
}

// A dump's objects into eight regions of 1 MiB: a humongous array over three, small objects in
// two, the rest free; without the full GC their regions' roles are unknown.
TEST(G1DumpRegions, RolesFromTheObjects) {
    const hprof::G1Grid grid{0xfc000000, 0xfc800000, 20};
    auto fill = [&](bool collected) {
        hprof::DumpRegions d(grid, collected);
        d.add(0xfc000000, 4096);
        d.add(0xfc001000, 24);              // used: 4,120 B
        d.add(0xfc200000, (2 << 20) + 16);  // humongous: 3 regions, the last 16 B
        d.add(0xfc600000, (1 << 19) + 8);   // more than half a region: humongous
        d.add(0xfc7ffff0, 16);              // to the last byte
        return d.finish(3);
    };
    auto t = fill(true);
    ASSERT_TRUE(t) << t.error().message;
    EXPECT_EQ(t->gc, 3u);
    EXPECT_EQ(t->first, 0xfc000000u);
    EXPECT_EQ(t->roles, (std::vector<R>{R::kOld, R::kFree, R::kHumongousStart, R::kHumongousContinues,
                                        R::kHumongousContinues, R::kFree, R::kHumongousStart, R::kOld}));
    EXPECT_EQ(t->used, (std::vector<uint64_t>{4120, 0, 1 << 20, 1 << 20, 16, 0, (1 << 19) + 8, 1 << 20}));
    auto young = fill(false);
    ASSERT_TRUE(young);
    EXPECT_EQ(young->roles[0], R::kUnknown);
    EXPECT_EQ(young->roles[2], R::kHumongousStart);
}

// Objects that cannot lie in the grid (another JVM's dump, another region size): no table, and
// the first contradiction named by its address.
TEST(G1DumpRegions, ObjectsThatContradictTheGridAreNamed) {
    const hprof::G1Grid grid{0xfc000000, 0xfc400000, 20};
    auto first = [&](std::initializer_list<std::pair<uint64_t, uint64_t>> objects) {
        hprof::DumpRegions d(grid, true);
        for (const auto& [address, size] : objects)
            d.add(address, size);
        auto t = d.finish(0);
        return t ? std::string() : t.error().message;
    };
    EXPECT_EQ(
        first({{0xfb000000, 16}}),
        "the object at 0xfb000000 (16 bytes) lies outside the heap [0xfc000000, 0xfc400000): the dump's "
        "objects do not lie in G1's 4 regions of 1.0 MiB");
    EXPECT_NE(first({{0xfc000010, 1 << 20}})
                  .find("0xfc000010 (1048576 bytes, humongous) does not begin at a "
                        "region's bottom"),
              std::string::npos);
    EXPECT_NE(first({{0xfc0ffff0, 32}}).find("0xfc0ffff0 (32 bytes) reaches over a region's end"),
              std::string::npos);
    EXPECT_NE(first({{0xfc100000, 16}, {0xfc100000, 3 << 19}}).find("0xfc100000 (humongous) reaches over"),
              std::string::npos);
    EXPECT_NE(first({{0xfc100000, 3 << 19}, {0xfc1ffff0, 16}}).find("lies in a humongous object's region"),
              std::string::npos);
    EXPECT_NE(first({{0xfc300000, 2 << 20}}).find("lies outside the heap"), std::string::npos);
    EXPECT_EQ(first({{0xfc000000, 16}, {0xfc3ffff8, 8}}), "");
}
