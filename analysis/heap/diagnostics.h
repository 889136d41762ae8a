// Trace anomalies found while rebuilding heaps. Each is counted, handled by the policy written
// next to it, and reported with the place of its first occurrence; none stops the rebuild.
#pragma once

#include <array>
#include <cstdint>
#include <string>
#include <string_view>

namespace memcity {

enum class Anomaly : uint8_t {
    kUnknownDeath,        // a death names an id never allocated: ignored
    kDoubleDeath,         // a death names an object already dead: ignored
    kDuplicateAlloc,      // an allocation reuses the id of an earlier object: the later one is dropped
    kLateAlloc,           // an allocation arrives after the heap of its GC was complete: added from then on
    kLateDeath,           // a death for GC g arrives after its heap was complete (GC g+1 started, or
                          // GC_COMPLETE): applied from then on
    kEarlyDeath,          // a death names a GC that has not ended yet: applied now
    kGcOutOfOrder,        // a GC start or end carries an unexpected index: memcity numbers GCs itself
    kGcUnfinished,        // a GC started and never ended: it is left out of the series
    kGcCutOff,            // the trace was cut off inside a GC: that GC is left out of the series
    kWatermarkBackwards,  // a GC end's next object id is below the previous GC's: the previous one is kept
    kDanglingRoot,        // a root names an object not in the heap: the root is dropped
    kDanglingSource,      // a snapshot lists references of an object not in the heap: dropped
    kDanglingEdge,        // a reference points to an object not in the heap: dropped
    kNewerEdge,        // a reference or root names an object born after the GC (the walk ran later): dropped
    kDuplicateSource,  // a snapshot lists the references of one object twice: the second list is dropped
    kIncompleteSnapshot,  // a snapshot whose parts do not add up: it is not used
    kSnapshotCutOff,      // the trace was cut off inside a snapshot: it is not used
    kCutOffAlloc,   // a cut trace: a root or reference names an object whose allocation was in the lost part
    kBadExtension,  // an extension event of a known kind that is malformed: skipped
    kJvmDisagrees,  // at a full GC, the live heap differs from the JVM's own count by over 1%: reported
    kJvmHoldsDead,  // the JVM's heap at the last GC (GC_LIVE) holds an object the trace has as dead: reported
    kCount,
};

struct AnomalyRecord {
    uint64_t count = 0;
    std::string first;  // "path: offset N: ..." of the first occurrence
};

class Diagnostics {
public:
    static constexpr size_t kKinds = static_cast<size_t>(Anomaly::kCount);

    // Counts one occurrence; `where` is called only for the first one.
    template <class Where>
    void add(Anomaly a, Where&& where) {
        AnomalyRecord& r = records_[static_cast<size_t>(a)];
        if (r.count++ == 0) r.first = where();
    }
    const AnomalyRecord& operator[](Anomaly a) const { return records_[static_cast<size_t>(a)]; }

    // Integrity errors say the trace contradicts itself; notes are expected in some recordings.
    static bool isError(Anomaly a);
    static std::string_view name(Anomaly a);         // "unknown-death"
    static std::string_view description(Anomaly a);  // "deaths of objects never allocated"

    uint64_t errorCount() const;
    uint64_t noteCount() const;

private:
    std::array<AnomalyRecord, kKinds> records_{};
};

}  // namespace memcity
