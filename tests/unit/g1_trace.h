// A little G1 heap with exact answers, for the heap map's tests and reference pictures: 24 regions
// of 64 KiB from 0x20000000, two GCs, every object's address at both.
//  GC 0 (young): before, eden 0-5 full, old 6 (40,000 B), a humongous object over 8-10; after,
//    old 6 and 7 (20 objects of 2,000 B each, 10 more in 7), a survivor 11 (10 of 3,000 B), the
//    humongous object (190,000 B) in 8-10, the rest free. Eden's 30 objects died.
//  GC 1 (full): the humongous object dies; the survivors move into old region 7 after its ten;
//    after, old 6 and 7, the rest free.
#pragma once

#include <string>
#include <vector>

#include "trace/g1_regions.h"
#include "unit/trace_builder.h"

namespace memcity::testing {

inline GcRegionsEvent g1Table(uint32_t gc, bool after, std::vector<std::pair<size_t, RegionRole>> roles,
                              std::vector<std::pair<size_t, uint64_t>> used) {
    GcRegionsEvent e;
    e.gc = gc;
    e.after = after;
    e.shift = 16;
    e.first = 0x20000000;
    e.roles.assign(24, RegionRole::kFree);
    e.used.assign(24, 0);
    for (auto [i, role] : roles)
        e.roles[i] = role;
    for (auto [i, bytes] : used)
        e.used[i] = bytes;
    return e;
}

inline std::string writeG1Heap(const std::string& stem = "g1-heap") {
    using R = RegionRole;
    TraceBuilder b(stem);
    constexpr uint64_t kRegion = 0x10000, kFirst = 0x20000000;
    std::vector<ObjectAddress> at0, at1;
    uint64_t id = 0;
    for (uint64_t k = 0; k < 20; ++k, ++id) {  // old, region 6
        b.allocArray(id, 3, 496);              // 2,000 B
        at0.push_back({id, kFirst + 6 * kRegion + k * 2000});
    }
    for (uint64_t k = 0; k < 10; ++k, ++id) {  // old, region 7
        b.allocArray(id, 3, 496);              // 2,000 B
        at0.push_back({id, kFirst + 7 * kRegion + k * 2000});
    }
    for (uint64_t k = 0; k < 10; ++k, ++id) {  // survivors, region 11; at GC 1 in region 7
        b.allocArray(id, 4, 746, 2);           // 3,000 B
        at0.push_back({id, kFirst + 11 * kRegion + k * 3000});
    }
    const uint64_t humongous = id++;
    b.allocArray(humongous, 3, 47496, 2);  // 190,000 B
    at0.push_back({humongous, kFirst + 8 * kRegion});
    std::vector<uint64_t> eden;
    for (uint64_t k = 0; k < 30; ++k, ++id) {
        b.allocArray(id, 3, 1996);  // 8,000 B
        eden.push_back(id);
    }
    b.gc(0, id, eden);
    b.writer().gcRegions(g1Table(0, false,
                                 {{0, R::kEden},
                                  {1, R::kEden},
                                  {2, R::kEden},
                                  {3, R::kEden},
                                  {4, R::kEden},
                                  {5, R::kEden},
                                  {6, R::kOld},
                                  {8, R::kHumongousStart},
                                  {9, R::kHumongousContinues},
                                  {10, R::kHumongousContinues}},
                                 {{0, kRegion},
                                  {1, kRegion},
                                  {2, kRegion},
                                  {3, kRegion},
                                  {4, kRegion},
                                  {5, kRegion},
                                  {6, 40000},
                                  {8, kRegion},
                                  {9, kRegion},
                                  {10, kRegion}}));
    // What GC 0 left, GC 1 finds.
    GcRegionsEvent between =
        g1Table(0, true,
                {{6, R::kOld},
                 {7, R::kOld},
                 {8, R::kHumongousStart},
                 {9, R::kHumongousContinues},
                 {10, R::kHumongousContinues},
                 {11, R::kSurvivor}},
                {{6, 40000}, {7, 20000}, {8, kRegion}, {9, kRegion}, {10, kRegion}, {11, 30000}});
    b.writer().gcRegions(between);
    b.writer().addresses(0, at0);
    for (size_t k = 0; k < at0.size(); ++k)
        if (at0[k].id != humongous) at1.push_back(at0[k]);
    for (size_t k = 30; k < 40; ++k)
        at1[k].address = kFirst + 7 * kRegion + 20000 + (k - 30) * 3000;
    b.gc(1, id, {humongous});
    between.gc = 1;
    between.after = false;
    b.writer().gcRegions(between);
    b.writer().gcRegions(g1Table(1, true, {{6, R::kOld}, {7, R::kOld}}, {{6, 40000}, {7, 50000}}));
    b.writer().addresses(1, at1);
    return b.finish();
}

}  // namespace memcity::testing
