// The collector's spaces and the objects' addresses the recorder writes (GC_SPACES, ADDRS),
// held against what the JVM prints of its heap after every GC (-Xlog:gc+heap=debug): each
// space's bounds, and every object inside one, none overlapping, the old space after a full GC
// tiled by the live objects. Under G1, its regions per role before and after every GC
// (GC_REGIONS) against the log's "Old regions: 3->5", on JDK 17 and Temurin 25.
#include <gtest/gtest.h>
#include <unistd.h>

#include <algorithm>
#include <filesystem>
#include <fstream>
#include <map>
#include <regex>
#include <sstream>

#include "classify/heap_map_at.h"
#include "heap/heap_map.h"
#include "recorder/java_programs.h"
#include "recorder/process.h"

namespace memcity {
namespace {

using testing::Process;
using testing::run;

struct LoggedSpace {
    std::string name;  // "eden", "from", "to", "the" (Serial's old), "object" (Parallel's old)
    uint64_t bottom = 0, top = 0, end = 0;
};
struct LoggedHeap {
    uint64_t invocations = 0;  // the JVM's collections so far, this one included
    std::vector<LoggedSpace> spaces;
};

// Every "Heap after GC" block of the log, in order.
std::vector<LoggedHeap> heapsAfterGcs(const std::string& log) {
    std::ifstream in(log);
    std::vector<LoggedHeap> heaps;
    const std::regex after(R"(Heap after GC invocations=(\d+))");
    const std::regex space(R"(GC\(\d+\)\s+(eden|from|to|the|object)\s+space [^\[]*\[([^\)]*)\))");
    bool in_after = false;
    for (std::string line; std::getline(in, line);) {
        std::smatch m;
        if (std::regex_search(line, m, after)) {
            heaps.push_back({std::stoull(m[1]), {}});
            in_after = true;
        } else if (line.find("Heap before GC") != std::string::npos) {
            in_after = false;
        } else if (in_after && std::regex_search(line, m, space)) {
            std::vector<uint64_t> v;
            std::stringstream list(m[2]);
            for (std::string word; std::getline(list, word, ',');)
                v.push_back(std::stoull(word, nullptr, 16));
            // [bottom, top, end), or Serial's old space [bottom, top, threshold, end)
            if (v.size() >= 3) heaps.back().spaces.push_back({m[1], v[0], v[1], v.back()});
        }
    }
    return heaps;
}

class HeapLayout : public testing::JavaPrograms, public ::testing::WithParamInterface<const char*> {};

TEST_P(HeapLayout, SpacesAndAddressesAreTheJvmsOwn) {
    const std::string trace = tracePath(std::string("layout-") + GetParam());
    const std::string log = trace + ".log";
    Process p = run(record(trace, {std::string("-XX:+Use") + GetParam(), "-Xlog:gc+heap=debug:file=" + log},
                           {"Exact", "200000", "50000"}, {"--gc-every", "1m"}),
                    180);
    ASSERT_EQ(p.status, 0) << p.stderr_text;
    Loaded l = load(trace);
    ASSERT_TRUE(l.history);
    const HeapHistory& h = *l.history;
    EXPECT_EQ(h.diagnostics().errorCount(), 0u) << describeAnomalies(h.diagnostics());
    const std::vector<LoggedHeap> logged = heapsAfterGcs(log);
    ASSERT_FALSE(logged.empty());

    size_t compared = 0, mapped = 0, full_gcs = 0;
    for (const GcRecord& g : h.gcs()) {
        SCOPED_TRACE("GC " + std::to_string(g.index));
        const GcSpacesEvent* spaces = h.spacesAt(g.index);
        ASSERT_NE(spaces, nullptr);
        ASSERT_EQ(spaces->spaces.size(), 4u);
        // The log's heap after the same collection: the JVM's count of collections, this one's.
        ASSERT_GE(g.jvm, 0);
        uint64_t invocations = 0;
        for (const CollectorRun& c : h.jvmFacts()[static_cast<size_t>(g.jvm)].collectors)
            invocations += c.after;
        auto it = std::find_if(logged.begin(), logged.end(),
                               [&](const LoggedHeap& x) { return x.invocations == invocations; });
        ASSERT_NE(it, logged.end()) << "no heap after " << invocations << " collections in " << log;
        std::vector<LoggedSpace> want = it->spaces;
        ASSERT_EQ(want.size(), 4u);
        std::sort(want.begin(), want.end(), [](const auto& a, const auto& b) { return a.bottom < b.bottom; });
        for (size_t i = 0; i < 4; ++i) {
            const SpaceState& got = spaces->spaces[i];
            const std::string name(l.file->symbols().space(got.space).name);
            EXPECT_EQ(got.bottom, want[i].bottom) << name << " against " << want[i].name;
            EXPECT_EQ(got.end, want[i].end) << name;
            // The pause that collected also hands out the allocation that asked for it (a TLAB,
            // in eden), after the JVM printed its heap.
            if (want[i].name == "eden") {
                EXPECT_GE(got.top, want[i].top) << name;
            } else {
                EXPECT_EQ(got.top, want[i].top) << name;
            }
        }
        ++compared;

        if (!g.has_addresses) continue;
        auto heap = h.heapAt(g.index);
        ASSERT_TRUE(heap) << heap.error().message;
        auto addresses = h.addressesFor(*heap);
        ASSERT_TRUE(addresses) << addresses.error().message;
        const HeapMap m = buildHeapMap(heap->view(), *addresses, spaces, l.file->symbols(), 64 << 10);
        ++mapped;
        // Every object in a space's used part, none overlapping; eden holds none after a GC.
        // But for a few class mirrors: the recorder names the classes loaded between the GC and
        // its walk then, as alive at the GC (their addresses show them newer, in eden).
        EXPECT_LE(m.outside_objects, 8u);
        EXPECT_LE(m.unplaced_objects, g.live_objects / 100 + 16) << m.unplaced_bytes << " B";
        uint64_t placed = 0;
        for (const SpaceMap& s : m.spaces) {
            EXPECT_EQ(s.overlaps, 0u) << s.name;
            if (s.name == "Eden Space") {
                EXPECT_EQ(s.objects, 0u);
            }
            placed += s.objects;
        }
        EXPECT_EQ(placed + m.unplaced_objects + m.outside_objects, g.live_objects);
        // After a full GC (one that compacts all: MarkSweepDeadRatio=0 under Serial) the old
        // space is its live objects end to end: what lies between those with addresses is
        // exactly those without, and the objects the JVM has and the trace does not (its used
        // bytes less memcity's live ones, the newer mirrors aside).
        if (g.kind == static_cast<uint8_t>(format::GcKind::kMajor) && std::string(GetParam()) == "SerialGC") {
            ++full_gcs;
            const SpaceMap& old = m.spaces.back();
            const int64_t untracked =
                static_cast<int64_t>(g.vm_heap_after) - static_cast<int64_t>(g.live_bytes - m.outside_bytes);
            EXPECT_EQ(static_cast<int64_t>(old.gap_bytes), static_cast<int64_t>(m.unplaced_bytes) + untracked)
                << old.name << ": " << m.unplaced_bytes << " B without an address";
        }
    }
    EXPECT_EQ(compared, h.gcCount());
    EXPECT_GE(mapped, h.gcCount() / 2) << "snapshot GCs with addresses";
    std::cerr << GetParam() << ": " << compared << " GCs' spaces equal the JVM's, " << mapped
              << " GCs' objects placed, " << full_gcs << " full GCs compacted\n";
}

// G1's log: per young or full pause, "GC(7) Humongous regions: 24->32": the regions per role
// ("Eden", "Survivor", "Old", "Archive", "Humongous") before and after, in the log's order. (Not
// keyed by "invocations=N": on JDK 17 a concurrent cycle's pause counts in it too.)
using RoleCounts = std::map<std::string, std::pair<uint32_t, uint32_t>>;
std::vector<RoleCounts> loggedRegions(const std::string& log) {
    std::ifstream in(log);
    std::vector<RoleCounts> out;
    std::string last_id;
    for (std::string line; std::getline(in, line);) {
        const size_t gc = line.find("GC(");
        const size_t r = line.find(" regions: ");
        if (gc == std::string::npos || r == std::string::npos) continue;
        const std::string id = line.substr(gc, line.find(')', gc) - gc);
        if (out.empty() || id != last_id) out.emplace_back();
        last_id = id;
        const size_t name = line.rfind(' ', r - 1) + 1;
        const size_t arrow = line.find("->", r);
        out.back()[line.substr(name, r - name)] = {
            static_cast<uint32_t>(std::stoul(line.substr(r + 10, arrow - r - 10))),
            static_cast<uint32_t>(std::stoul(line.substr(arrow + 2)))};
    }
    return out;
}

// G1's log: each pause's kind as the trace names it, in order: "Pause Young (...)" young, "Pause
// Full" full, the concurrent cycle's "Pause Remark" and "Pause Cleanup" concurrent.
std::vector<std::string> loggedPauses(const std::string& log) {
    std::ifstream in(log);
    std::vector<std::string> out;
    for (std::string line; std::getline(in, line);) {
        const size_t at = line.find(") Pause ");
        // "[0.089s][info ][gc     ] GC(3) Pause Remark ...": the gc tag alone (padded).
        const size_t tag = line.find("][gc ");
        if (tag == std::string::npos || at == std::string::npos || line.find("] GC(", tag) > at) continue;
        const std::string what = line.substr(at + 8, line.find(' ', at + 8) - at - 8);
        out.push_back(what == "Young"                         ? "young"
                      : what == "Full"                        ? "full"
                      : what == "Remark" || what == "Cleanup" ? "concurrent"
                                                              : "? " + what);
    }
    return out;
}

// Regions per role of a table as G1's log counts them.
uint32_t logged(const RegionsRecord& r, const std::string& role) {
    auto n = [&](RegionRole x) { return r.counts[static_cast<size_t>(x)]; };
    if (role == "Eden") return n(RegionRole::kEden);
    if (role == "Survivor") return n(RegionRole::kSurvivor);
    if (role == "Old") return n(RegionRole::kOld);
    if (role == "Archive") return n(RegionRole::kArchive);
    return n(RegionRole::kHumongousStart) + n(RegionRole::kHumongousContinues);
}

class G1Layout : public testing::JavaPrograms, public ::testing::WithParamInterface<const char*> {};

TEST_P(G1Layout, RegionsPerRoleAreTheJvmsAtEveryGc) {
    const std::string java = std::string(GetParam()) + "/bin/java";
    if (!std::filesystem::exists(java)) GTEST_SKIP() << java << " is not installed";
    const std::string trace = tracePath("g1-regions");
    const std::string log = trace + ".log";
    // 8 arrays of 3 MiB, 1 MiB regions: 4 regions each.
    Process p = run({testing::kMemcity, "record", "-o", trace, "--", java, "-XX:+UseG1GC", "-Xmx64m",
                     "-XX:G1HeapRegionSize=1m", "-Xlog:gc,gc+heap=debug:file=" + log, "-cp",
                     classes_.string(), "Humongous", "8", "3"},
                    180);
    ASSERT_EQ(p.status, 0) << p.stderr_text;
    Loaded l = load(trace);
    ASSERT_TRUE(l.history);
    const HeapHistory& h = *l.history;
    EXPECT_EQ(h.diagnostics().errorCount(), 0u) << describeAnomalies(h.diagnostics());
    const std::vector<RoleCounts> logged_gcs = loggedRegions(log);
    ASSERT_FALSE(logged_gcs.empty()) << log;

    // Every pause the log prints is a GC of the trace's, in order, and of its kind; none is taken
    // for a GC that JVMTI did not report (HotSpot counts Remark and Cleanup before it tells
    // JVMTI of them), and none is of unknown kind.
    std::vector<std::string> kinds;
    for (const GcRecord& g : h.gcs())
        kinds.emplace_back(format::gcKindName(g.kind));
    EXPECT_EQ(kinds, loggedPauses(log)) << log;

    size_t compared = 0, pauses = 0;
    std::vector<std::pair<uint32_t, uint32_t>> full;  // humongous starts and regions after each full GC
    for (const GcRecord& g : h.gcs()) {
        SCOPED_TRACE("GC " + std::to_string(g.index));
        const RegionsRecord* after = h.regionsAt(g.index);
        const RegionsRecord* before = h.regionsAt(g.index, false);
        ASSERT_GE(g.jvm, 0);
        const GcJvmEvent& jvm = h.jvmFacts()[static_cast<size_t>(g.jvm)];
        if (jvm.unreported) continue;  // no callbacks: no table
        ASSERT_NE(after, nullptr);
        ASSERT_NE(before, nullptr);
        EXPECT_EQ(after->region_bytes, 1u << 20);
        EXPECT_EQ(after->regions, 64u);  // the reserved heap: 64 MiB
        EXPECT_EQ(after->counts[static_cast<size_t>(RegionRole::kUnknown)], 0u);
        // The log's next young or full pause: G1's concurrent-cycle pauses (Remark, Cleanup)
        // print no regions.
        uint64_t moved = 0;
        for (const CollectorRun& c : jvm.collectors)
            if (std::string(l.file->symbols().string(c.name)).find("concurrent") == std::string::npos)
                moved += c.after - c.before;
        if (moved == 0) {
            ++pauses;
            continue;
        }
        ASSERT_LT(compared, logged_gcs.size()) << "more young and full GCs than " << log << " has";
        ASSERT_GE(logged_gcs[compared].size(), 4u) << log;
        for (const auto& [role, counts] : logged_gcs[compared]) {
            EXPECT_EQ(logged(*before, role), counts.first) << role << " regions before";
            EXPECT_EQ(logged(*after, role), counts.second) << role << " regions after";
        }
        ++compared;
        if (g.kind == static_cast<uint8_t>(format::GcKind::kMajor))
            full.emplace_back(after->counts[static_cast<size_t>(RegionRole::kHumongousStart)],
                              logged(*after, "Humongous"));
    }
    // The program's two full GCs, then the recorder's at exit: 8 arrays, 4, none.
    ASSERT_EQ(full.size(), 3u);
    EXPECT_EQ(full[0], std::make_pair(8u, 32u));
    EXPECT_EQ(full[1], std::make_pair(4u, 16u));
    EXPECT_EQ(full[2], std::make_pair(0u, 0u));
    EXPECT_EQ(compared, logged_gcs.size()) << "young and full GCs in " << log;
    std::cerr << GetParam() << ": " << compared << " GCs' regions per role equal the log's, " << pauses
              << " concurrent-cycle pauses with tables of their own\n";
}

// A heap dump of a G1 JVM (memcity dump): its objects placed into the grid the JVM gives
// (jcmd GC.heap_info), its regions per role those of the log at the dump's full GC ("Pause Full
// (Heap Dump Initiated GC)"): 4 arrays of 3 MiB humongous over 16 regions, the old regions
// where the other objects lie (JDK 17's archive regions among them), no young ones.
TEST_P(G1Layout, ADumpsObjectsLieInTheJvmsRegions) {
    const std::string java = std::string(GetParam()) + "/bin/java";
    if (!std::filesystem::exists(java)) GTEST_SKIP() << java << " is not installed";
    const std::string trace = tracePath("g1-dump");
    const std::string log = trace + ".log";
    testing::Process p = testing::start({java, "-XX:+UseG1GC", "-Xmx64m", "-XX:G1HeapRegionSize=1m",
                                         "-Xlog:gc,gc+heap=debug:file=" + log, "-cp", classes_.string(),
                                         "Humongous", "8", "3", "wait"});
    const std::string pid = testing::waitForOutput(p, "READY ([0-9]+)", 60);
    ASSERT_FALSE(pid.empty()) << p.stderr_text;
    testing::Process d = testing::run({testing::kMemcity, "dump", pid, "--count", "1", "-o", trace}, 120);
    ASSERT_EQ(write(p.in, "go\n", 3), 3);
    testing::finish(p, 60);
    ASSERT_EQ(d.status, 0) << d.stderr_text << d.stdout_text;
    EXPECT_NE(d.stdout_text.find("G1 heap: 64 regions of 1.0 MiB"), std::string::npos) << d.stdout_text;
    Loaded l = load(trace);
    ASSERT_TRUE(l.history);
    const HeapHistory& h = *l.history;
    EXPECT_EQ(h.diagnostics().errorCount(), 0u) << describeAnomalies(h.diagnostics());
    ASSERT_EQ(h.gcCount(), 1u);
    const RegionsRecord* r = h.regionsAt(0);
    ASSERT_NE(r, nullptr) << d.stdout_text;
    EXPECT_EQ(r->region_bytes, 1u << 20);
    EXPECT_EQ(r->regions, 64u);
    const std::vector<RoleCounts> logged_gcs = loggedRegions(log);
    ASSERT_FALSE(logged_gcs.empty()) << log;
    const RoleCounts& at_dump = logged_gcs.back();  // the dump's own full GC, the log's last
    auto after = [&](const std::string& role) {
        auto it = at_dump.find(role);
        return it == at_dump.end() ? 0u : it->second.second;
    };
    auto n = [&](RegionRole x) { return r->counts[static_cast<size_t>(x)]; };
    EXPECT_EQ(n(RegionRole::kHumongousStart), 4u);
    EXPECT_EQ(n(RegionRole::kHumongousStart) + n(RegionRole::kHumongousContinues), after("Humongous"));
    EXPECT_EQ(after("Humongous"), 16u);
    EXPECT_EQ(n(RegionRole::kOld), after("Old") + after("Archive"));
    EXPECT_EQ(after("Eden") + after("Survivor"), 0u);
    EXPECT_EQ(n(RegionRole::kEden) + n(RegionRole::kSurvivor) + n(RegionRole::kUnknown), 0u);
    // Every object placed by its address, none between regions' ends.
    HeapMapRequest request;
    request.gc = 0;
    request.tile_bytes = 1 << 20;
    auto map = heapMapAt(h, request);
    ASSERT_TRUE(map) << map.error().message;
    ASSERT_EQ(map->spaces.size(), 1u);
    EXPECT_EQ(map->spaces[0].name, "G1 heap");
    EXPECT_EQ(map->spaces[0].objects, h.gcs()[0].live_objects);
    EXPECT_EQ(map->spaces[0].overlaps, 0u);
    EXPECT_EQ(map->region_roles.size(), 64u);
    std::cerr << GetParam() << ": the dump's regions: " << n(RegionRole::kOld)
              << " old, 16 humongous, as the log's " << after("Old") << " old and " << after("Archive")
              << " archive\n";
}

INSTANTIATE_TEST_SUITE_P(Jdk, G1Layout,
                         ::testing::Values(MEMCITY_JAVA_HOME, "/usr/lib/jvm/temurin-25-jdk-amd64"),
                         [](const auto& p) {
                             return std::string(p.param) == MEMCITY_JAVA_HOME ? std::string("Jdk17")
                                                                              : std::string("Temurin25");
                         });

INSTANTIATE_TEST_SUITE_P(Gc, HeapLayout, ::testing::Values("SerialGC", "ParallelGC"),
                         [](const auto& p) { return std::string(p.param); });

}  // namespace
}  // namespace memcity
