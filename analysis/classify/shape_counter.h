// ShapeCounter: live objects and bytes per shape id, kept up to date along a forward pass over
// the heaps (HeapHistory::forEachHeap), for tree series whose classifiers and filters read only
// the shape.
//
// Incremental counting. The heap's positions are sorted by object id, and the objects born
// between two GCs (an *epoch*: ids in [watermark(e-1), watermark(e))) sit side by side. Once the
// heap of GC e is complete, an epoch can only lose objects: an allocation with an older id would
// be a late allocation, an anomaly the rebuild reports (Anomaly::kLateAlloc). So when an epoch
// holds as many live objects as at the previous GC, nothing in it changed and its counts are
// kept; only epochs that lost objects, and the new one, are counted again. Old objects rarely
// die, so most of a big heap is only checked for tombstones, not counted. The caller turns
// `incremental` off for a trace with late (or duplicate) allocations. Past `max_epochs`, old
// neighbouring epochs are merged (the same holds for a range of epochs).
#pragma once

#include <cstdint>
#include <vector>

#include "heap/heap_state.h"

namespace memcity {

struct ShapeCount {
    uint64_t objects = 0;
    uint64_t bytes = 0;  // shallow bytes
};

struct ShapeCounterOptions {
    unsigned threads = 1;     // threads that count (epochs are shared out among them)
    bool incremental = true;  // false: every epoch is counted at every GC
    // Past this many epochs, the two neighbours with the fewest live objects are merged into one
    // (so a trace with thousands of GCs is not checked epoch by epoch); at least 2.
    size_t max_epochs = 256;
};

class ShapeCounter {
public:
    explicit ShapeCounter(const ShapeCounterOptions& options = {}) : options_(options) {}

    // Brings the counts to `heap`. Contract: successive heaps come from one forward pass, in GC
    // order, over one history (a heap of an earlier GC than the last one starts afresh).
    void update(const HeapView& heap);

    // Live objects and bytes per shape id at the last heap (indices up to the heap's shape count).
    const std::vector<ShapeCount>& counts() const { return totals_; }
    // A live position of shape `s` in the last heap, or SIZE_MAX when the last update did not
    // count an epoch holding one (every shape whose count was 0 at the previous heap has one).
    size_t representative(uint32_t s) const {
        return s < rep_gc_.size() && rep_gc_[s] == gc_ ? rep_pos_[s] : SIZE_MAX;
    }

    // The ids of the live objects of `heap` whose shape is marked (marked[s] != 0), ascending.
    // Contract: `heap` is the one last passed to update(), and a shape's mark never changes once
    // the shape has been counted (shapes are marked when first seen). Epochs are cached: only
    // those counted again at the last update are read.
    std::vector<uint64_t> collectIds(const HeapView& heap, const std::vector<uint8_t>& marked);

    // Epochs counted at the last update.
    size_t countedEpochs() const { return counted_epochs_; }
    size_t memoryBytes() const;

private:
    struct Epoch {
        uint64_t id_end = 0;             // ids below (and at or above the previous epoch's)
        size_t begin = 0, end = 0;       // positions in the last heap
        uint64_t live = 0;               // live objects when last counted
        bool counted = false;            // `counts` is valid
        bool changed = false;            // counted again at the last update
        bool ids_valid = false;          // `ids` matches the last collectIds
        std::vector<uint32_t> shapes;    // sparse counts: shape ids ...
        std::vector<ShapeCount> counts;  // ... and their counts
        std::vector<uint64_t> ids;       // collectIds: the marked objects of this epoch
    };
    // An object's bytes: (base + array length * element + round) & mask.
    struct SizeRule {
        uint64_t base, element, round, mask;
        bool array;
    };
    struct Scratch {
        std::vector<ShapeCount> dense;
        std::vector<size_t> first;  // a position of each touched shape
        std::vector<uint32_t> touched;
    };
    // Counts the live objects at positions [begin, end) into s.dense (s.touched: shapes first
    // seen, s.first: a position of each).
    static void countRange(const HeapView& heap, size_t begin, size_t end, const SizeRule* rules, Scratch& s);
    ShapeCounterOptions options_;
    uint32_t gc_ = UINT32_MAX;
    void mergeSmallestPair();

    std::vector<Epoch> epochs_;  // in id order, from one GC (or a few merged) each
    std::vector<ShapeCount> totals_;
    std::vector<size_t> rep_pos_;
    std::vector<uint32_t> rep_gc_;
    std::vector<Scratch> scratch_;  // one per thread
    std::vector<SizeRule> rules_;   // by shape
    size_t counted_epochs_ = 0;
};

}  // namespace memcity
