// The JVM's own figures of each GC, read at the GC's start and end inside the JVMTI GC
// callbacks (plain memory reads, no allocation, no lock):
//  - which collectors ran (young, full, concurrent-cycle pauses) and the cause, from HotSpot's
//    performance counters (sun.gc.collector.N.invocations, sun.gc.lastCause: what jstat reads);
//  - each memory pool's used and committed bytes, as java.lang.management reports them
//    (MemoryPoolMXBean, GarbageCollectionNotificationInfo's before/after), read where the
//    collector keeps them: the eden, survivor and old spaces of Serial and Parallel (bottom, top
//    and end, through HotSpot's exported structure layout), G1's monitoring figures; for other
//    collectors the generations' performance counters.
// Where the JVM exports none of this, everything reads "unknown" and the recorder falls back.
#pragma once

#include <array>
#include <cstdint>
#include <memory>
#include <string>
#include <vector>

namespace memcity::agent {

class VmStructs;
class PerfCounters;

inline constexpr size_t kMaxCollectors = 4;
inline constexpr size_t kMaxPools = 8;
inline constexpr size_t kCauseBytes = 64;
inline constexpr size_t kMaxSpaces = 4;

// Where one of the collector's contiguous spaces is: [bottom, top) holds objects, [top, end) is
// free, all of it committed. All zero where unknown.
struct SpaceBounds {
    uint64_t bottom = 0, top = 0, end = 0;
};

struct PoolUsage {
    uint64_t used = 0;       // bytes
    uint64_t committed = 0;  // bytes
};

// What one read sees. Plain data, copied into the recorder's GC ring.
struct GcSample {
    bool valid = false;
    std::array<int64_t, kMaxCollectors> invocations{};  // per collector, since the JVM started
    // When each collector's last collection began and ended, in ns on the JVM's own clock
    // (since it started); 0 where unknown.
    std::array<int64_t, kMaxCollectors> last_entry_ns{}, last_exit_ns{};
    std::array<PoolUsage, kMaxPools> pools{};
    std::array<SpaceBounds, kMaxSpaces> spaces{};  // GcFacts::spaces() in order
    char cause[kCauseBytes] = {};                  // the cause of the GC in progress ("No GC" between GCs)
    char last_cause[kCauseBytes] = {};             // the cause of the GC that ended last, NUL-terminated

    // Whether collector i's last collection has begun and not ended.
    bool inProgress(size_t i) const { return last_entry_ns[i] > last_exit_ns[i]; }
    // The counts as they were before the collections in progress began. HotSpot counts a
    // concurrent cycle's pause (G1's Remark and Cleanup) as it begins, before it tells JVMTI of
    // its start, where it counts a young or full pause after: a GC's start sample less those is
    // the one its collector's count moves from.
    void uncountCollectionsInProgress() {
        for (size_t i = 0; i < kMaxCollectors; ++i)
            if (inProgress(i) && invocations[i] > 0) --invocations[i];
    }
};

class GcFacts {
public:
    // Finds the JVM's counters and the heap's spaces; call in VM init (the heap exists then).
    // Never nullptr: without them every sample is invalid.
    static std::unique_ptr<GcFacts> create();
    ~GcFacts();

    // Reads the counters and pools now. Safe inside the GC start and finish callbacks.
    void sample(GcSample* out) const;
    // The same, with the pools as the JVM's performance counters have them (what jstat shows):
    // as the last GC left them, where a direct read would already see the allocations since
    // (after a GC that JVMTI did not report). Pools without counters are read directly.
    void sampleCounters(GcSample* out) const;

    bool available() const { return perf_ != nullptr; }
    // HotSpot's structure layout and counters; nullptr where the JVM exports none.
    const VmStructs* vm() const { return vm_.get(); }
    const PerfCounters* perf() const { return perf_.get(); }
    // The collectors' names as the JVM gives them ("Serial young collection pauses"...), by index.
    const std::vector<std::string>& collectors() const { return collectors_; }
    // The memory pools' names, as java.lang.management names them ("Eden Space", "G1 Old Gen"...).
    const std::vector<std::string>& pools() const { return pool_names_; }
    // The collector's contiguous spaces by role ("Eden Space", "Survivor Space" twice: from and
    // to, which swap at each young GC; the old generation's), for Serial and Parallel; empty for
    // other collectors. GcSample::spaces has their bounds in this order.
    const std::vector<std::string>& spaces() const { return space_names_; }
    // What each is to the collector (SpaceKind: eden, survivor, old), in the same order.
    const std::vector<uint8_t>& spaceKinds() const { return space_kinds_; }
    // G1's regions: how many the region table holds at most (0 where the JVM is not G1 or its
    // layout is unknown), and each one's bottom and top now, in table order, into `out` (at most
    // `capacity`; returns how many). Plain memory reads: safe inside the GC callbacks. A region
    // holds objects in [bottom, top); a free one has top == bottom.
    size_t maxRegions() const { return region_table_ ? max_regions_ : 0; }
    size_t readRegions(SpaceBounds* out, size_t capacity) const;
    // G1's region grid, where its roles can be read (the JVM exports the region's type, its tag
    // and the tag constants, whose values differ between JDK 17 and 25): region i starts at
    // first + (i << shift); the table has `count` regions (the heap's maximum over the region
    // size, committed or not). count == 0: no roles.
    struct RegionGrid {
        uint32_t shift = 0;
        uint64_t first = 0;
        size_t count = 0;
    };
    RegionGrid regionGrid() const { return region_roles_ ? grid_ : RegionGrid{}; }
    // Every region of the grid by its index, at most `capacity`; returns how many. Each entry is
    // its used bytes (top - bottom, a multiple of 8) | its RegionRole (trace/g1_regions.h) in the
    // low 3 bits. A region never committed is free; one whose bottom or end is not where the grid
    // puts it, or whose tag none of the constants explains, is unknown. Plain memory reads:
    // consistent inside the GC callbacks (a safepoint); allocates nothing.
    size_t readRegionRoles(uint32_t* out, size_t capacity) const;
    // The collector the JVM runs ("Serial", "Parallel", "G1", "Z", "Shenandoah", "Epsilon"), or "".
    const std::string& collectorName() const { return heap_; }
    // Whether it is a stop-the-world collector (Serial, Parallel, G1): one that moves objects,
    // frees them and clears weak references only in its pauses (not ZGC or Shenandoah).
    bool stopsTheWorld() const { return heap_ == "Serial" || heap_ == "Parallel" || heap_ == "G1"; }

    // format::GcKind of a GC from the samples at its start and end: full (major) if a full
    // collector ran, else minor if a young one did, else a concurrent cycle's pause.
    uint8_t kindOf(const GcSample& start, const GcSample& end) const;
    // Whether the heap after the GC holds its live objects and dead space only: a full GC of a
    // stop-the-world collector (Serial, Parallel, G1; not ZGC or Shenandoah, which free
    // concurrently, their pauses' "full" counters included).
    bool countsWholeHeap(const GcSample& start, const GcSample& end) const;
    // Collections the JVM has run so far, all collectors together (0 without counters). Safe
    // anywhere: GCs the JVM does not report to JVMTI (heap inspections such as jcmd
    // GC.class_histogram) show as a count that moved between the reported ones.
    int64_t totalCollections() const;
    // Those of them that have ended: less each collector's collection in progress (see
    // GcSample::uncountCollectionsInProgress).
    int64_t finishedCollections() const;
    // When the last collection of the collectors that ran between two samples began and
    // ended, on the JVM's clock (GcSample::last_entry_ns); false if none ran or it is unknown.
    // A collection still in progress at `after` is not one.
    static bool lastCollection(const GcSample& before, const GcSample& after, int64_t* start_ns,
                               int64_t* end_ns);

    // The cause of a GC from the sample at its end: HotSpot sets the cause around the collection,
    // and resets it (making it the "last cause") before or after the JVMTI finish event,
    // depending on the collector.
    static const char* causeOf(const GcSample& end);

private:
    GcFacts();

    // Where a pool's figures are. In memory: from a static pointer variable (`root`), follow
    // the pointers at `path` offsets to an object, which is either a space (its bottom, top and
    // end pointers at these offsets) or holds the used and committed sizes. Or two performance
    // counters.
    static constexpr int64_t kNoStep = INT64_MIN;  // a path shorter than two pointers
    struct PoolSource {
        const void* root = nullptr;
        std::array<int64_t, 2> path{kNoStep, kNoStep};
        int64_t bottom = -1, top = -1, end = -1;
        int64_t used = -1, committed = -1;
        const volatile int64_t* perf_used = nullptr;
        const volatile int64_t* perf_capacity = nullptr;
        PoolUsage read() const;
        SpaceBounds bounds() const;  // a space's (bottom >= 0)
        const void* object() const;  // what the path leads to; nullptr if a pointer on it is null
    };
    // A space of `space_type` (ContiguousSpace, MutableSpace) behind `root` and the path; false
    // where the JVM does not export one of its fields.
    bool spaceAt(const void* root, int64_t first, int64_t second, const char* space_type,
                 PoolSource* out) const;
    void findSpaces();
    void findPerfSpaces();
    void findRegions();

    std::unique_ptr<VmStructs> vm_;
    std::unique_ptr<PerfCounters> perf_;
    std::string heap_;
    std::vector<std::string> collectors_;
    std::array<const volatile int64_t*, kMaxCollectors> invocations_{};
    std::array<uint8_t, kMaxCollectors> collector_kind_{};  // format::GcKind per collector
    std::array<const volatile int64_t*, kMaxCollectors> last_entry_{}, last_exit_{};  // in timer ticks
    const volatile int64_t* frequency_ = nullptr;  // the JVM's timer's ticks per second
    const volatile char* cause_ = nullptr;
    size_t cause_capacity_ = 0;
    const volatile char* last_cause_ = nullptr;
    size_t last_cause_capacity_ = 0;
    std::vector<std::string> pool_names_;
    std::vector<PoolSource> pool_sources_;
    // The same pools from the generations' counters: per pool, the spaces whose used and
    // capacity counters add up to it (empty where there are none).
    std::vector<std::vector<PoolSource>> pool_counters_;
    std::vector<std::string> space_names_;
    std::vector<uint8_t> space_kinds_;
    std::vector<PoolSource> space_sources_;
    // G1's region table (see readRegions): where its array of region pointers and its length
    // are, and where a region keeps its bottom and top.
    const char* region_table_ = nullptr;  // G1HeapRegionTable inside the heap
    int64_t table_base_ = -1, table_length_ = -1, region_bottom_ = -1, region_top_ = -1;
    size_t max_regions_ = 0;
    // Roles: where a region keeps its tag (its _type's _tag) and its end, the tags' values, the grid.
    bool region_roles_ = false;
    int64_t region_tag_ = -1, region_end_ = -1;
    int32_t free_tag_ = -1, eden_tag_ = -1, surv_tag_ = -1, hum_start_tag_ = -1, hum_cont_tag_ = -1;
    int32_t old_mask_ = -1, archive_mask_ = -1;  // archive: -1 where the JVM has none (25)
    RegionGrid grid_;
    uint8_t roleOf(int32_t tag) const;
};

}  // namespace memcity::agent
