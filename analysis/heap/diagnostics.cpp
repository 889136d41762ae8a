#include "heap/diagnostics.h"

namespace memcity {

bool Diagnostics::isError(Anomaly a) {
    switch (a) {
        case Anomaly::kLateAlloc:
        case Anomaly::kLateDeath:
        case Anomaly::kGcCutOff:
        case Anomaly::kSnapshotCutOff:
        case Anomaly::kCutOffAlloc:
        case Anomaly::kNewerEdge: return false;
        default: return true;
    }
}

std::string_view Diagnostics::name(Anomaly a) {
    switch (a) {
        case Anomaly::kUnknownDeath: return "unknown-death";
        case Anomaly::kDoubleDeath: return "double-death";
        case Anomaly::kDuplicateAlloc: return "duplicate-alloc";
        case Anomaly::kLateAlloc: return "late-alloc";
        case Anomaly::kLateDeath: return "late-death";
        case Anomaly::kEarlyDeath: return "early-death";
        case Anomaly::kGcOutOfOrder: return "gc-out-of-order";
        case Anomaly::kGcUnfinished: return "gc-unfinished";
        case Anomaly::kGcCutOff: return "gc-cut-off";
        case Anomaly::kWatermarkBackwards: return "watermark-backwards";
        case Anomaly::kDanglingRoot: return "dangling-root";
        case Anomaly::kDanglingSource: return "dangling-source";
        case Anomaly::kDanglingEdge: return "dangling-edge";
        case Anomaly::kNewerEdge: return "newer-edge";
        case Anomaly::kDuplicateSource: return "duplicate-source";
        case Anomaly::kIncompleteSnapshot: return "incomplete-snapshot";
        case Anomaly::kSnapshotCutOff: return "snapshot-cut-off";
        case Anomaly::kCutOffAlloc: return "cut-off-alloc";
        case Anomaly::kBadExtension: return "bad-extension";
        case Anomaly::kJvmDisagrees: return "jvm-disagrees";
        case Anomaly::kJvmHoldsDead: return "jvm-holds-dead";
        case Anomaly::kCount: break;
    }
    return "unknown";
}

std::string_view Diagnostics::description(Anomaly a) {
    switch (a) {
        case Anomaly::kUnknownDeath: return "deaths of objects that were never allocated";
        case Anomaly::kDoubleDeath: return "deaths of objects that were already dead";
        case Anomaly::kDuplicateAlloc: return "allocations that reuse the id of an earlier object";
        case Anomaly::kLateAlloc: return "allocations written after their GC's heap was complete";
        case Anomaly::kLateDeath: return "deaths written after their GC's heap was complete";
        case Anomaly::kEarlyDeath: return "deaths naming a GC that had not ended";
        case Anomaly::kGcOutOfOrder: return "GC events with an unexpected GC index";
        case Anomaly::kGcUnfinished: return "GCs that started and never ended";
        case Anomaly::kGcCutOff: return "GCs in progress where the trace was cut off";
        case Anomaly::kWatermarkBackwards: return "GC ends whose next object id went backwards";
        case Anomaly::kDanglingRoot: return "GC roots naming objects not in the heap";
        case Anomaly::kDanglingSource: return "snapshot entries for objects not in the heap";
        case Anomaly::kDanglingEdge: return "references to objects not in the heap";
        case Anomaly::kNewerEdge: return "references to objects born after the snapshot's GC";
        case Anomaly::kDuplicateSource: return "objects listed twice in one snapshot";
        case Anomaly::kIncompleteSnapshot: return "inconsistent reference snapshots";
        case Anomaly::kSnapshotCutOff: return "reference snapshots where the trace was cut off";
        case Anomaly::kCutOffAlloc:
            return "roots and references naming objects whose allocation was in the cut-off part";
        case Anomaly::kBadExtension: return "malformed GC figures of the JVM (skipped)";
        case Anomaly::kJvmDisagrees: return "full GCs where the live heap differs from the JVM's by over 1%";
        case Anomaly::kJvmHoldsDead:
            return "objects the JVM's heap held at the last GC that the trace has as dead";
        case Anomaly::kCount: break;
    }
    return "unknown";
}

uint64_t Diagnostics::errorCount() const {
    uint64_t n = 0;
    for (size_t i = 0; i < kKinds; ++i)
        if (isError(static_cast<Anomaly>(i))) n += records_[i].count;
    return n;
}

uint64_t Diagnostics::noteCount() const {
    uint64_t n = 0;
    for (size_t i = 0; i < kKinds; ++i)
        if (!isError(static_cast<Anomaly>(i))) n += records_[i].count;
    return n;
}

}  // namespace memcity
