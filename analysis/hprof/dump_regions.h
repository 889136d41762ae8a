// G1's region grid for heap dumps (docs/heapmap.md, "A dump from a G1 JVM"). HPROF records no
// regions, nor their size. Where the dump's JVM tells them (memcity dump asks it: jcmd
// GC.heap_info), the dump's objects are placed into that grid, and each region's role is told
// from the objects in it: G1 makes an object of more than half a region humongous, from a
// region's bottom over as many regions as it needs; after the full GC a dump begins with (jcmd
// GC.heap_dump without -all) every other region that holds objects is old.
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <string_view>

#include "trace/g1_regions.h"
#include "util/result.h"

namespace memcity::hprof {

// G1's heap as the JVM gives it: its reserved range and its region size.
struct G1Grid {
    uint64_t bottom = 0, end = 0;  // [bottom, end), whole regions
    uint32_t shift = 20;           // log2 of the region size
};

// The grid from jcmd GC.heap_info's answer ("garbage-first heap   total 65536K, used 17947K
// [0x00000000fc000000, 0x0000000100000000)" and "region size 1024K, ..."; JDK 17 to 25), or none
// where the JVM does not run G1 or the answer is not such.
std::optional<G1Grid> parseG1HeapInfo(std::string_view text);

// What a dump's table is, as its trace's META "dump N regions" says: after a full GC, or not.
inline constexpr std::string_view kRegionsAfterFullGc =
    "G1's grid as the JVM gave it (jcmd GC.heap_info); each region's role told from the dump's objects: "
    "humongous by G1's rule, old where others lie (the dump began with a full GC)";
inline constexpr std::string_view kRegionsWithoutGc =
    "G1's grid as the JVM gave it (jcmd GC.heap_info); each region's role told from the dump's objects: "
    "humongous by G1's rule, unknown where others lie (the dump did not begin with a GC: eden, survivor and "
    "old hold alike)";

// A dump's table, built from its objects in address order.
class DumpRegions {
public:
    // `collected`: the JVM collected the heap fully before the dump, so a region that holds
    // objects and is not humongous is old (JDK 17's CDS archive regions read as old too);
    // otherwise its role is unknown (eden, survivor and old hold alike).
    DumpRegions(const G1Grid& grid, bool collected);
    // The next object, at an address at least the last one's.
    void add(uint64_t address, uint64_t size);
    // The table after GC `gc` (the dump's), or why the objects cannot lie in this grid: an
    // object outside it, a humongous one not at a region's bottom or over a region that holds
    // another, or a small one across a region's end (a dump of another JVM, or a grid not the
    // dump's). The first contradiction found is told, with its address.
    Result<GcRegionsEvent> finish(uint32_t gc) const;

private:
    void contradict(uint64_t address, const std::string& what);
    G1Grid grid_;
    bool collected_;
    GcRegionsEvent table_;
    std::string error_;
};

}  // namespace memcity::hprof
