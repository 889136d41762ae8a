// Replayer applies decoded events to an ObjectStore, in stream order, and completes the heap of
// GC g when the stream reaches the start of GC g+1 (or its end): deaths of GC g are written
// after GC g ends, so only then is that heap known. The heap of GC g holds the live objects
// whose ids are below GC g's watermark (the next object id at its end).
//
// In build mode it also fills the per-GC series, counts events and records anomalies; in replay
// mode (from a checkpoint) it only rebuilds the store, reusing what the build learned.
#pragma once

#include <array>
#include <cstdint>
#include <deque>
#include <functional>
#include <vector>

#include "heap/diagnostics.h"
#include "heap/heap_state.h"
#include "heap/jvm_check.h"
#include "heap/object_store.h"
#include "heap/shape_table.h"
#include "trace/event_decoder.h"
#include "trace/extensions.h"
#include "trace/g1_regions.h"
#include "trace/heap_layout.h"
#include "trace/trace_reader.h"
#include "util/pod_array.h"

namespace memcity {

struct EventCounts {
    std::array<uint64_t, format::kEventKindCount> by_kind{};  // events per format::EventKind
    uint64_t deaths = 0;                                      // object ids in DEATHS events
    uint64_t deaths_from_heap = 0;  // objects a GC_LIVE event does not list: died in its GC, no event
    uint64_t objects_allocated = 0;
    uint64_t bytes_allocated = 0;
    uint64_t arrays_allocated = 0;
    uint64_t max_object_id = 0;
    int64_t first_time_ns = 0, last_time_ns = 0;
    bool any_time = false;
    uint64_t peak_live_objects = 0, peak_live_bytes = 0;
    uint32_t peak_objects_gc = 0, peak_bytes_gc = 0;
    uint64_t total() const {
        uint64_t n = 0;
        for (uint64_t c : by_kind)
            n += c;
        return n;
    }
};

// The ADDRS chunks of one GC (trace/heap_layout.h).
struct AddressInfo {
    uint32_t gc = 0;
    std::vector<uint32_t> chunks;
};

struct SnapshotInfo {
    uint32_t gc = 0;
    std::vector<uint32_t> refs_chunks;
    uint32_t roots_chunk = 0;
    bool complete = false;
    // A sampled trace's snapshot: its OBJECTS chunks (the objects it reached that were not
    // sampled, heap/whole_heap.h) and how many objects they list, as its roots chunk says.
    std::vector<uint32_t> unsampled_chunks;
    uint64_t unsampled = 0;
};

// One decoded event of an EVENTS chunk, ready to apply (see EventBatch).
struct EventRecord {
    uint64_t id = 0;   // alloc, death, move
    uint64_t a = 0;    // alloc: array length (kNoLength for instances); move: address; GC: index in the batch
    uint64_t b = 0;    // alloc: size in bytes
    int64_t time = 0;  // alloc, thread start/end
    uint32_t c = 0;    // alloc: shape; death: GC index; thread start/end: thread
    uint32_t type = 0;    // alloc: type
    uint32_t offset = 0;  // of the event in the chunk's payload
    uint8_t kind = 0;     // format::EventKind
};

// The events of one chunk, decoded (and their shapes interned) by one thread and applied by
// another (HistoryOptions::threads = 2).
struct EventBatch {
    size_t chunk = 0;
    std::vector<EventRecord> records;
    std::vector<GcStartEvent> starts;
    std::vector<GcEndEvent> ends;
    std::vector<std::vector<uint8_t>> extensions;  // payloads of extension events (rare)
    std::string error;  // non-empty: decoding failed; the build stops with this message
    void clear() {
        records.clear();
        starts.clear();
        ends.clear();
        extensions.clear();
        error.clear();
    }
};

// Decodes an EVENTS payload into a batch, interning shapes (the decoding half of a build).
Status decodeBatch(const TraceFile& trace, size_t chunk, ShapeTable& shapes, std::vector<uint8_t>& scratch,
                   EventBatch* batch);

// What the build pass learns; replays read it.
struct HistoryData {
    ShapeTable shapes;
    std::vector<uint64_t> watermarks;  // per GC: its next object id
    std::vector<GcRecord> gcs;
    Diagnostics diagnostics;
    EventCounts counts;
    std::vector<SnapshotInfo> snapshots;  // complete snapshots, by GC
    std::vector<GcJvmEvent> jvm_facts;    // the JVM's own figures of GCs (GcRecord::jvm)
    std::vector<GcCensusEvent> censuses;  // the JVM's class counts after GCs (GcRecord::census)
    std::vector<GcSpacesEvent> spaces;    // the collector's spaces after GCs (GcRecord::spaces)
    std::vector<RegionsRecord> regions;   // G1's region tables (GcRecord::regions_before/after)
    std::vector<AddressInfo> addresses;   // GCs with their objects' addresses, by GC
    std::vector<JvmCheck> jvm_checks;     // full GCs with the JVM's figures, in order
    SampleModel sampling;                 // a sampled trace's law (TraceHeader::sampling_interval)
    // A sampled trace's census GCs whose census tells the objects alive at the GC (in GC order):
    // its heap's weights are scaled to it (GcRecord::calibration indexes it).
    // (A deque: views hand out pointers into it while the build adds more.)
    std::deque<SampleCalibration> calibrations;
};

// A sampled trace's GC: its live, allocated and freed figures set from the sums behind them
// (GcRecord::live_sampled...), as estimates.
void applySampledEstimates(GcRecord& r);

class Replayer : public EventVisitorBase {
public:
    enum class Mode { kBuild, kReplay };

    // Scalar state, saved and restored with checkpoints.
    struct Scalars {
        uint64_t all_objects = 0, all_bytes = 0;      // everything alive in the store
        uint64_t tail_objects = 0, tail_bytes = 0;    // ... of which born after the last GC end
        uint64_t epoch_objects = 0, epoch_bytes = 0;  // allocated in the open epoch (build mode)
        uint64_t last_watermark = 0;
        uint32_t gcs_ended = 0;
        uint32_t open_gc = 0;  // index of the GC in progress (valid when in_gc)
        uint8_t in_gc = 0;
        uint8_t heap_done = 1;  // the heap of GC gcs_ended-1 is complete
        GcStartEvent start{};
    };

    Replayer(const TraceFile& trace, HistoryData& data, Mode mode);

    // Called with each completed heap; return false to stop the replay there.
    void setOnHeap(std::function<bool(const HeapView&)> fn) { on_heap_ = std::move(fn); }
    // Called with each object about to die (its position in store()) and the GC it dies at.
    using DeathFn = std::function<void(const ObjectStore& store, size_t pos, uint32_t gc)>;
    void setOnDeath(DeathFn fn) { on_death_ = std::move(fn); }
    bool stopped() const { return stopped_; }

    // Decodes and applies one EVENTS chunk.
    Status applyChunk(size_t index, std::vector<uint8_t>& scratch);
    // Applies a chunk decoded by decodeBatch (on another thread).
    Status applyBatch(const EventBatch& batch);
    // The stream ended: completes the last heap.
    void finish();

    // The working store, normalized, and a view of it cut at GC `gc`'s watermark.
    HeapView viewAt(uint32_t gc);
    ObjectStore& store() { return store_; }
    const Scalars& scalars() const { return s_; }
    void restore(const Scalars& s) { s_ = s; }

    // Event visitor.
    void onAlloc(const AllocEvent& e, size_t offset) {
        const Shape sh{e.type, e.site, e.thread, e.isArray() ? 0u : static_cast<uint32_t>(e.size)};
        applyAlloc(e.id, build() ? data_.shapes.intern(sh) : findShape(sh), e.type, e.length, e.size,
                   e.time_ns, offset);
    }
    // An allocation whose shape is known: `length` is kNoLength for instances.
    void applyAlloc(uint64_t id, uint32_t shape, uint32_t type, uint64_t length, uint64_t size, int64_t time,
                    size_t offset);
    void onDeath(uint32_t gc, uint64_t id, size_t offset);
    bool onGcStart(const GcStartEvent& e, size_t offset);
    bool onGcEnd(const GcEndEvent& e, size_t offset);
    void onThreadStart(const ThreadEvent& e, size_t) {
        flushDeaths();
        count(format::EventKind::kThreadStart, e.time_ns);
    }
    void onThreadEnd(const ThreadEvent& e, size_t) {
        flushDeaths();
        count(format::EventKind::kThreadEnd, e.time_ns);
    }
    void onMove(const MoveEvent&, size_t) { countOnly(format::EventKind::kMove); }
    void onExtension(uint32_t ext, std::span<const uint8_t> data, size_t offset);

private:
    bool build() const { return mode_ == Mode::kBuild; }
    void count(format::EventKind k, int64_t t);
    void countOnly(format::EventKind k) {
        if (build()) ++data_.counts.by_kind[static_cast<size_t>(k)];
    }
    void completeHeap();
    void normalize();
    // Deaths are collected and applied in groups: all positions first, then each death with the
    // memory of the ones a few places ahead already on its way (they are cache misses at random
    // positions, the bulk of a rebuild's time otherwise).
    void flushDeaths();
    void applyDeath(uint32_t gc, uint64_t id, size_t pos, size_t offset);
    void applyGcLive(std::span<const uint8_t> data, size_t offset);
    // A malformed extension event (`name`, at `offset` in the trace): *bad-extension*, naming
    // the byte of the event where `e` (its decoder's Error::inData) found it wrong.
    void badExtension(std::string_view name, size_t offset, const Error& e);
    void applyGcComplete(std::span<const uint8_t> data, size_t offset);
    // A sampled trace's heap of GC `g`, complete: the estimates of its live objects and of those
    // born since the GC before (build mode).
    void estimateHeap(uint32_t g, GcRecord& r);
    bool sampled() const { return data_.sampling.sampled(); }
    void retail();
    template <class... Parts>
    void anomaly(Anomaly a, size_t offset, const Parts&... parts);
    uint32_t epochOf(uint64_t id) const;
    void noteIdOutOfOrder(uint64_t id);
    uint32_t findShape(const Shape& sh);
    bool idWasAllocated(uint64_t id) const;

    struct IdInterval {
        uint64_t begin, end;  // [begin, end) all allocated
    };

    const TraceFile& trace_;
    const SymbolTable& symbols_;
    HistoryData& data_;
    Mode mode_;
    uint32_t alignment_;
    ObjectStore store_;
    Scalars s_;
    size_t chunk_ = 0;
    size_t death_hint_ = 0;
    struct PendingDeath {
        uint64_t id;
        uint32_t gc;
        uint32_t offset;
    };
    std::vector<PendingDeath> deaths_;
    std::vector<size_t> death_positions_;
    Shape last_shape_{};
    uint32_t last_shape_id_ = ShapeTable::kNone;
    // Build mode: every id allocated so far, as disjoint intervals (one per object where ids are
    // sparse, as a dump's are: a PodArray grows without copying).
    PodArray<IdInterval> ids_;
    bool stopped_ = false;
    bool finishing_ = false;  // finish() completes the last heap
    std::string fatal_;       // set by a handler that cannot go on (reported by applyChunk/applyBatch)
    std::function<bool(const HeapView&)> on_heap_;
    DeathFn on_death_;
};

}  // namespace memcity
