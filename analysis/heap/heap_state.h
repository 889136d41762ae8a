// The heap at the end of one GC: every live object with its type, site, thread, size, array
// length and birth GC. HeapView reads it without owning it (the forward pass hands out views of
// its working store); HeapState owns a compacted copy.
#pragma once

#include <algorithm>
#include <cstdint>
#include <span>
#include <vector>

#include "heap/object_store.h"
#include "heap/sampling.h"
#include "heap/shape_table.h"
#include "trace/events.h"
#include "trace/symbols.h"

namespace memcity {

class HeapGraph;

// What the series knows about one GC. Bytes are object sizes as the trace gives them.
struct GcRecord {
    uint32_t index = 0;
    uint8_t kind = 0;    // format::GcKind
    uint32_t cause = 0;  // string id, 0 = unknown
    int64_t start_ns = 0, end_ns = 0;
    uint64_t pause_ns = 0;
    uint64_t vm_heap_before = 0, vm_heap_after = 0, vm_heap_committed = 0;  // as the VM reported
    int32_t jvm = -1;     // index in HeapHistory::jvmFacts() of the JVM's own figures (GC_JVM), -1: none
    int32_t census = -1;  // index in HeapHistory::censuses() of the class count after it, -1: none
    int32_t spaces = -1;  // index in HeapHistory::spaces() of the collector's spaces after it, -1: none
    // Indexes in HeapHistory::regions() of G1's region table at its start and its end, -1: none.
    int32_t regions_before = -1, regions_after = -1;
    bool has_addresses = false;  // the trace has the address of every object alive after it
    bool jvm_live = false;  // the JVM's heap after it listed by object (GC_LIVE): its deaths are complete
    uint64_t next_object_id = 0;  // objects with smaller ids were born before this GC ended

    uint64_t live_objects = 0, live_bytes = 0;            // the rebuilt heap after this GC
    uint64_t allocated_objects = 0, allocated_bytes = 0;  // born since the previous GC ended
    uint64_t freed_objects = 0, freed_bytes = 0;          // died in this GC

    bool has_snapshot = false;  // a complete reference snapshot was taken at this GC
    uint64_t reachable_objects = 0, reachable_bytes = 0;  // strongly reachable from the roots
    uint64_t unreached_objects = 0, unreached_bytes = 0;  // live, but no reported root reaches them
    uint64_t snapshot_edges = 0, snapshot_roots = 0;

    uint32_t final_chunk = 0;  // chunk in which this heap was complete (internal: replay target)

    // A sampled trace's GCs (TraceHeader::sampled): live_*, allocated_* and freed_* above are
    // estimates, rounded (heap/sampling.h); these are the sums behind them: how many samples
    // each rests on and its variance.
    SampleSums live_sampled, allocated_sampled, freed_sampled;
    // A sampled trace's census GC: index in HeapHistory::calibrations() of the census its live
    // figures (exact then) and its heap's weights are scaled to; -1: none.
    int32_t calibration = -1;
};

class HeapView {
public:
    HeapView(const ObjectStore& store, size_t end, uint32_t gc, const ShapeTable& shapes,
             const SymbolTable& symbols, uint32_t alignment, std::span<const uint64_t> watermarks,
             uint64_t live_objects, uint64_t live_bytes, const SampleModel* sampling = nullptr)
        : sampling_(sampling),
          store_(&store),
          end_(end),
          gc_(gc),
          shapes_(&shapes),
          symbols_(&symbols),
          alignment_(alignment),
          watermarks_(watermarks),
          live_objects_(live_objects),
          live_bytes_(live_bytes) {}

    uint32_t gc() const { return gc_; }
    // Positions run over [0, positions()); some may be dead (tombstones) unless
    // positions() == liveObjects(). Positions are in id order.
    size_t positions() const { return end_; }
    bool alive(size_t pos) const { return store_->shape[pos] != ObjectStore::kDead; }
    uint64_t liveObjects() const { return live_objects_; }
    uint64_t liveBytes() const { return live_bytes_; }

    uint64_t id(size_t pos) const { return store_->id(pos); }
    uint32_t shapeId(size_t pos) const { return store_->shape[pos]; }
    const Shape& shape(size_t pos) const { return (*shapes_)[store_->shape[pos]]; }
    uint32_t type(size_t pos) const { return shape(pos).type; }
    uint32_t site(size_t pos) const { return shape(pos).site; }
    uint32_t thread(size_t pos) const { return shape(pos).thread; }
    bool isArray(size_t pos) const { return shape(pos).size == 0; }
    // Array length, or kNoLength for an instance.
    uint64_t arrayLength(size_t pos) const { return isArray(pos) ? store_->arrayLength(pos) : kNoLength; }
    uint64_t size(size_t pos) const { return store_->sizeOf(pos, *shapes_, *symbols_, alignment_); }
    // Index of the first GC the object lived through (it was born before that GC ended).
    uint32_t birthGc(size_t pos) const {
        return static_cast<uint32_t>(std::upper_bound(watermarks_.begin(), watermarks_.end(), id(pos)) -
                                     watermarks_.begin());
    }
    // Number of GCs survived up to and including this one (1 for an object born since the last GC).
    uint32_t age(size_t pos) const { return gc_ - birthGc(pos) + 1; }

    // Position of a live object, or positions() when it is not in this heap.
    size_t find(uint64_t id) const {
        size_t pos = store_->ids.lowerBound(id, 0, end_);
        return pos < end_ && store_->id(pos) == id && alive(pos) ? pos : end_;
    }

    template <class F>
    void forEachLive(F&& f) const {
        const uint32_t* shape = store_->shape.data();
        for (size_t pos = 0; pos < end_; ++pos)
            if (shape[pos] != ObjectStore::kDead) f(pos);
    }

    const ShapeTable& shapes() const { return *shapes_; }
    const SymbolTable& symbols() const { return *symbols_; }
    const ObjectStore& store() const { return *store_; }
    std::span<const uint64_t> watermarks() const { return watermarks_; }
    uint32_t alignment() const { return alignment_; }

    // A sampled trace's heap: its objects are samples, each standing for others (heap/sampling.h).
    // liveObjects() and liveBytes() count the samples themselves; estimates weigh them.
    bool sampled() const { return sampling_ && sampling_->sampled(); }
    // The law it was sampled by (nullptr for an exact heap).
    const SampleModel* sampling() const { return sampled() ? sampling_ : nullptr; }
    // What the object at `pos` stands for: itself alone in an exact heap; at a census GC of a
    // sampled one, scaled to the census (calibration()).
    SampleWeight weight(size_t pos) const {
        if (!sampled()) return SampleWeight{1, static_cast<double>(size(pos)), 0, 0};
        const SampleWeight w = sampling_->weigh(size(pos));
        return calibration_ ? calibration_->apply(w, type(pos)) : w;
    }
    // A sampled heap at a census GC: the JVM's count its weights are scaled to (nullptr elsewhere).
    const SampleCalibration* calibration() const { return sampled() ? calibration_ : nullptr; }
    HeapView withCalibration(const SampleCalibration* calibration) const {
        HeapView v = *this;
        v.calibration_ = calibration;
        return v;
    }

    // The heap's references (graph/heap_graph.h), for classifiers that read them; null when the
    // view has none attached.
    const HeapGraph* graph() const { return graph_; }
    HeapView withGraph(const HeapGraph* graph) const {
        HeapView v = *this;
        v.graph_ = graph;
        return v;
    }

private:
    const HeapGraph* graph_ = nullptr;
    const SampleModel* sampling_ = nullptr;
    const SampleCalibration* calibration_ = nullptr;
    const ObjectStore* store_;
    size_t end_;
    uint32_t gc_;
    const ShapeTable* shapes_;
    const SymbolTable* symbols_;
    uint32_t alignment_;
    std::span<const uint64_t> watermarks_;
    uint64_t live_objects_;
    uint64_t live_bytes_;
};

// An owned, compacted heap state (no tombstones: positions() == liveObjects()).
// Contract: the ShapeTable and SymbolTable it was made from outlive it.
class HeapState {
public:
    HeapState() = default;
    // Copies the live objects of `view` into a compact store.
    explicit HeapState(const HeapView& view);

    HeapView view() const {
        return HeapView(store_, store_.size(), gc_, *shapes_, *symbols_, alignment_, watermarks_,
                        live_objects_, live_bytes_, sampling_)
            .withCalibration(calibration_);
    }
    uint32_t gc() const { return gc_; }
    size_t objectCount() const { return store_.size(); }
    uint64_t liveBytes() const { return live_bytes_; }
    const ObjectStore& store() const { return store_; }
    size_t memoryBytes() const { return store_.memoryBytes(); }

private:
    ObjectStore store_;
    std::vector<uint64_t> watermarks_;
    uint32_t gc_ = 0;
    const ShapeTable* shapes_ = nullptr;
    const SymbolTable* symbols_ = nullptr;
    uint32_t alignment_ = 8;
    uint64_t live_objects_ = 0, live_bytes_ = 0;
    const SampleModel* sampling_ = nullptr;
    const SampleCalibration* calibration_ = nullptr;
};

}  // namespace memcity
