// The self-check of a recording against the JVM's own accounting, at every full GC:
//  - the JVM's heap in use after the GC (the sum of its memory pools, GC_JVM), what -Xlog:gc
//    and java.lang.management report;
//  - the JVM's own count of the objects alive at the GC, by class (GC_CENSUS, taken by the
//    JVM's heap iteration right after the GC): memcity's live heap must equal it. The JVM's used
//    bytes are those objects, the recorder's own few, and dead space the collector keeps
//    (filler objects where it did not compact: no object of the program).
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include "heap/heap_state.h"
#include "trace/extensions.h"

namespace memcity {

// Agreement within this fraction of the JVM's used bytes; beyond it, an integrity error.
inline constexpr double kJvmAgreementLimit = 0.01;

struct TypeGap {
    std::string type;                // type name ("" for classes the trace does not name)
    int64_t objects = 0, bytes = 0;  // memcity's live heap less the JVM's count (+: memcity has more)
};

struct JvmCheck {
    uint32_t gc = 0;
    uint64_t jvm_used_after = 0;  // bytes, the JVM's pools after the GC
    uint64_t live_bytes = 0;      // memcity's live heap
    bool has_census = false;
    uint64_t jvm_objects = 0, jvm_bytes = 0;  // census: the program's objects alive at the GC
    uint64_t untracked_bytes = 0;             // census: ... of them, bytes the recorder never saw
    uint64_t agent_bytes = 0;                 // census: the recorder's own objects
    std::vector<TypeGap> biggest;  // census: types where memcity and the JVM differ most, biggest first
    // Without a census: the dead space the JVM counted at every full GC that had one (the
    // least of them), taken to be in its used bytes here too (see settleJvmChecks).
    uint64_t assumed_dead_space = 0;

    // What memcity's live heap is held against: the JVM's count of live objects where there is
    // one, else its used bytes less the dead space it always keeps.
    uint64_t expected() const {
        if (has_census) return jvm_bytes;
        return jvm_used_after > assumed_dead_space ? jvm_used_after - assumed_dead_space : 0;
    }
    // (memcity - expected) / expected; 0 when nothing is expected.
    double gap() const;
    // (memcity - used after) / used after: what -Xlog:gc shows.
    double usedGap() const;
    // The JVM's used bytes that hold no object (negative: objects allocated since the GC).
    // Saturates: a corrupt trace's figures may be anything.
    int64_t deadSpace() const;
    bool agrees() const { return gap() <= kJvmAgreementLimit && gap() >= -kJvmAgreementLimit; }
};

// The check of GC `record` (a full GC with the JVM's figures), with its census when the
// recording has one. Walks the heap's live objects when there is a census.
JvmCheck checkAgainstJvm(const GcRecord& record, const HeapView& heap, const GcCensusEvent* census);

// Once every full GC is checked: gives the checks without a census the dead space the JVM kept
// at all of those with one (G1 on JDK 17 counts 3 MiB of CDS archive regions as used at every
// GC; a GC the recorder could not count, such as a heap inspection followed at once by another
// GC, would otherwise read as a gap).
void settleJvmChecks(std::vector<JvmCheck>& checks);

// What the checks of a trace's full GCs say together.
struct JvmAgreement {
    size_t full_gcs = 0;                        // full GCs with the JVM's figures
    size_t disagreeing = 0;                     // ... beyond kJvmAgreementLimit
    size_t with_census = 0;                     // ... with the JVM's count of live objects
    double used_gap_min = 0, used_gap_max = 0;  // JvmCheck::usedGap over them
    double gap_min = 0, gap_max = 0;            // JvmCheck::gap over them
    int64_t dead_space = 0;                     // the largest JvmCheck::deadSpace, at GC
    uint32_t dead_space_gc = 0;
};
JvmAgreement summarizeJvmChecks(const std::vector<JvmCheck>& checks);
// "live bytes at 4 full GCs within -0.81%..-0.07% of the JVM's used bytes after them, and equal
// to its count of live objects within -0.00%..+0.00%", or why there is nothing to compare.
// `jvm_figures`: the trace has the JVM's figures of some GC.
std::string describeJvmAgreement(const JvmAgreement& agreement, bool jvm_figures);

// "GC 12: memcity's live heap 2.1 MiB, the JVM's count of live objects 2.3 MiB (-8.70%); by
// type, memcity less the JVM: java.lang.Class -120 KiB (-697 objects), ..."
std::string describeJvmCheck(const JvmCheck& check);

}  // namespace memcity
