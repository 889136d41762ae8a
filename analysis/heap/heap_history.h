// HeapHistory rebuilds the heap at every GC of a trace. build() makes one pass over the file:
// it fills the per-GC series (live, allocated, freed, reachable), counts events, records
// anomalies and saves checkpoints. heapAt(g) then rebuilds any GC from the nearest checkpoint;
// forEachHeap() walks a range of GCs in one forward pass.
//
// Contract: the TraceFile outlives the HeapHistory, and the HeapHistory outlives the
// HeapStates and views it hands out. Memory grows with the live objects of the trace, not with
// the objects it allocates.
#pragma once

#include <cstdint>
#include <functional>
#include <memory>
#include <optional>
#include <string>
#include <vector>

#include "heap/checkpoints.h"
#include "heap/diagnostics.h"
#include "heap/heap_state.h"
#include "heap/replayer.h"
#include "heap/snapshot.h"
#include "heap/whole_heap.h"
#include "trace/trace_reader.h"
#include "util/progress.h"
#include "util/result.h"

namespace memcity {

struct HistoryOptions {
    uint64_t checkpoint_events = 8'000'000;  // events between checkpoints: bounds a rebuild's replay
    bool reachability = true;                // walk each complete snapshot for reachable bytes
    unsigned threads = 1;                    // 2: a second thread reads and decompresses ahead
    std::string temp_dir;                    // for checkpoints; empty: $TMPDIR or /tmp
    // Told every few MB of trace: ProgressReport::position the trace bytes read, total the file's
    // size, count the GCs whose heap is complete. The build reports only: on_heap stops it.
    Progress progress;
    // Every heap as it completes, with its GC's record (reachable bytes filled in when the GC has
    // a snapshot); false stops. Called on the building thread; both are valid during the call only.
    std::function<bool(const HeapView&, const GcRecord&)> on_heap;
    // Following a trace still being written (TraceFile::beingWritten): called on the building
    // thread once every chunk so far is applied; true once the trace's chunks() have grown, false
    // when no more will come (it ended, was cut off, or the caller stops following). The history
    // is then what a build of the whole file would be. Empty: the chunks there are are all.
    // Chunks are read on the building thread only, whatever `threads` says.
    std::function<bool()> more;
};

// "PATH: GC 12 is out of range: the trace has 10 GCs (0..9)", for a trace of `gcs` GCs.
std::string gcRangeError(const std::string& path, uint64_t gc, size_t gcs);

class HeapHistory {
public:
    static Result<HeapHistory> build(const TraceFile& trace, const HistoryOptions& options = {});

    const TraceFile& trace() const { return *trace_; }
    const std::vector<GcRecord>& gcs() const { return data_->gcs; }
    size_t gcCount() const { return data_->gcs.size(); }
    const EventCounts& counts() const { return data_->counts; }
    const Diagnostics& diagnostics() const { return data_->diagnostics; }
    const ShapeTable& shapes() const { return data_->shapes; }
    const std::vector<SnapshotInfo>& snapshots() const { return data_->snapshots; }
    const std::vector<uint64_t>& watermarks() const { return data_->watermarks; }
    // The JVM's own figures of GCs (GcRecord::jvm), its class counts after them
    // (GcRecord::census), and the check of every full GC against them (heap/jvm_check.h).
    const std::vector<GcJvmEvent>& jvmFacts() const { return data_->jvm_facts; }
    const std::vector<GcCensusEvent>& censuses() const { return data_->censuses; }
    const std::vector<JvmCheck>& jvmChecks() const { return data_->jvm_checks; }
    // The collector's spaces after GCs (GcRecord::spaces), and the GCs whose objects' addresses
    // the trace has (GcRecord::has_addresses), ascending.
    const std::vector<GcSpacesEvent>& spaces() const { return data_->spaces; }
    const std::vector<AddressInfo>& addresses() const { return data_->addresses; }
    // The spaces after GC `gc`: nullptr when the trace has none for it.
    const GcSpacesEvent* spacesAt(uint32_t gc) const {
        const int32_t i = gc < data_->gcs.size() ? data_->gcs[gc].spaces : -1;
        return i < 0 ? nullptr : &data_->spaces[static_cast<size_t>(i)];
    }
    // G1's region tables (GcRecord::regions_before/after), and GC `gc`'s at its end (`after`) or
    // its start: nullptr when the trace has none for it (not G1, an older recorder).
    const std::vector<RegionsRecord>& regions() const { return data_->regions; }
    const RegionsRecord* regionsAt(uint32_t gc, bool after = true) const {
        if (gc >= data_->gcs.size()) return nullptr;
        const int32_t i = after ? data_->gcs[gc].regions_after : data_->gcs[gc].regions_before;
        return i < 0 ? nullptr : &data_->regions[static_cast<size_t>(i)];
    }
    const CheckpointStore& checkpoints() const { return *checkpoints_; }
    // A sampled trace's law (its heaps' objects are samples: heap/sampling.h); nullptr when the
    // trace records every allocation.
    const SampleModel* sampling() const { return data_->sampling.sampled() ? &data_->sampling : nullptr; }
    bool sampled() const { return data_->sampling.sampled(); }
    // A sampled trace's census GCs whose weights are scaled to the JVM's count (GcRecord::calibration).
    const std::deque<SampleCalibration>& calibrations() const { return data_->calibrations; }
    bool stoppedEarly() const { return stopped_early_; }

    // The heap at the end of GC `gc`. Error when `gc` is out of range.
    Result<HeapState> heapAt(uint32_t gc) const;

    // Calls fn with the heap of every GC in [from, to], in order, in one forward pass; fn returns
    // false to stop. Error when the range is out of bounds.
    Status forEachHeap(uint32_t from, uint32_t to, const std::function<bool(const HeapView&)>& fn) const;
    // The same, telling `on_death` of every object the replay removes, just before it does: those
    // that die at GCs in (from, to], and maybe some of earlier GCs (the replay starts at a
    // checkpoint before `from`).
    Status forEachHeap(uint32_t from, uint32_t to, const std::function<bool(const HeapView&)>& fn,
                       const Replayer::DeathFn& on_death) const;

    // The latest complete snapshot taken at or before the heap's GC, loaded against the heap's
    // positions (references of objects that died since are dropped). Empty when there is none.
    // A sampled trace's snapshots are read only at their own GC, against the heap made whole
    // (wholeHeapFor): empty here.
    Result<std::optional<HeapSnapshot>> snapshotFor(const HeapState& heap) const;
    // A sampled trace's heap at a GC with a complete snapshot, made whole by the objects the
    // snapshot lists (heap/whole_heap.h), and the snapshot loaded against it. Empty when the
    // trace is not sampled or that GC has no complete snapshot.
    struct WholeSnapshot {
        std::unique_ptr<WholeHeap> heap;
        HeapSnapshot snapshot;
    };
    Result<std::optional<WholeSnapshot>> wholeSnapshotFor(const HeapState& heap) const;

    // Each object's address after the heap's GC, by position in heap.store() (0: not listed);
    // empty when the trace has no addresses for that GC. Error when an ADDRS chunk is corrupt.
    // Read on up to `threads` threads.
    Result<std::vector<uint64_t>> addressesFor(const HeapState& heap, unsigned threads = 1) const;

    // "PATH: GC 12 is out of range: the trace has 10 GCs (0..9)"
    std::string gcRangeError(uint64_t gc) const;

private:
    HeapHistory() = default;
    static Result<HeapHistory> buildFrom(const TraceFile& trace, const HistoryOptions& options);
    Status replay(uint32_t from, uint32_t to, const std::function<bool(const HeapView&)>& fn,
                  const Replayer::DeathFn& on_death = {}) const;

    const TraceFile* trace_ = nullptr;
    std::unique_ptr<HistoryData> data_;
    std::unique_ptr<CheckpointStore> checkpoints_;
    bool stopped_early_ = false;
};

}  // namespace memcity
