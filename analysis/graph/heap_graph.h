// HeapGraph: the references of one heap (its reference snapshot loaded against the heap's
// positions) and what memcity derives from them, once per heap:
//
//   - which objects the GC roots reach (the live mark of ManLang18 §3.2.2, "improved approach");
//   - the roots that reference each object directly, as root identities ("static field
//     IdCache.idCache", "stack local main / BuggyMain.main");
//   - the reverse references (who points to an object), built on first use;
//   - the closest roots of every object: a breadth-first search from all root objects at once
//     gives each object its distance and the identities of the roots at that distance, and the
//     search tree gives a shortest path from every reached object back to a root;
//   - the data structure each object is contained in (STAG20 §7.2).
//
// The derived parts are computed on first use, once, and are safe to read from several threads.
// Contract: the heap the view reads outlives the HeapGraph; the HeapGraph outlives views that
// point to it (HeapView::withGraph).
#pragma once

#include <cstdint>
#include <memory>
#include <mutex>
#include <optional>
#include <span>
#include <string>
#include <vector>

#include "graph/dominators.h"
#include "heap/heap_history.h"
#include "heap/heap_state.h"
#include "heap/snapshot.h"
#include "heap/whole_heap.h"
#include "util/bitset.h"

namespace memcity {

// Keys naming roots, used by the root classifiers and root paths: a tag in the top byte, an id
// below it. A root identity is a short path of them: [kind, class, field] for a static field,
// [kind, thread, method] for a stack local, [kind, thread] for a thread or JNI local,
// [kind, class] for a system class, [kind] otherwise.
namespace rootkey {
inline constexpr uint64_t kKind = 1, kClass = 2, kField = 3, kThread = 4, kMethod = 5, kSpecial = 6;
inline constexpr uint64_t make(uint64_t tag, uint64_t id) {
    return (tag << 56) | (id & ((1ull << 56) - 1));
}
inline constexpr uint64_t tag(uint64_t key) {
    return key >> 56;
}
inline constexpr uint64_t id(uint64_t key) {
    return key & ((1ull << 56) - 1);
}
inline constexpr uint64_t kNotDirectlyRooted = make(kSpecial, 1);
inline constexpr uint64_t kRootNotReported = make(kSpecial, 2);
// "static field", "IdCache", "idCache", "main", "BuggyMain.main", "alive, root not reported".
std::string label(const SymbolTable& symbols, uint64_t key);
}  // namespace rootkey

// Predecessor lists in compressed-row form: the sources of position p are
// sources[offsets[p] .. offsets[p + 1]), ascending, with repeats for repeated references.
struct ReverseGraph {
    std::vector<uint64_t> offsets;
    std::vector<uint32_t> sources;
    std::span<const uint32_t> of(size_t pos) const {
        return {sources.data() + offsets[pos], sources.data() + offsets[pos + 1]};
    }
    size_t memoryBytes() const { return offsets.capacity() * 8 + sources.capacity() * 4; }
};

inline constexpr uint32_t kNoPosition = ~uint32_t{0};

class HeapGraph {
public:
    // `snapshot` must have been loaded against the positions of `heap` (HeapHistory::snapshotFor).
    HeapGraph(const HeapView& heap, HeapSnapshot snapshot);
    // A sampled trace's: the references of the heap made whole at the snapshot's GC, which it
    // keeps (`snapshot` loaded against whole->view()'s positions). Its heap() is that whole heap:
    // the samples' positions first (a group of the samples' heap is a group of it, padded with
    // fit()), then the objects the snapshot alone lists.
    HeapGraph(std::unique_ptr<const WholeHeap> whole, HeapSnapshot snapshot);
    HeapGraph(const HeapGraph&) = delete;
    HeapGraph& operator=(const HeapGraph&) = delete;

    const HeapView& heap() const { return heap_; }
    // The whole heap behind a sampled trace's graph; null for an exact one.
    const WholeHeap* whole() const { return whole_.get(); }
    // A group of positions of the heap the graph was loaded for, as a group of its own (a sampled
    // trace's whole heap has more positions: those are not in it).
    Bitset fit(const Bitset& group) const;
    const HeapSnapshot& snapshot() const { return snapshot_; }
    const RefGraph& refs() const { return snapshot_.graph; }
    size_t size() const { return heap_.positions(); }
    // The GC the references were recorded at (the heap's own GC or an earlier one).
    uint32_t snapshotGc() const { return snapshot_.gc; }

    // Positions strongly reachable from the roots; computed on first use (a walk of the graph that
    // `memcity dominators`, which walks it for the tree anyway, does not need).
    const Bitset& reachable() const;
    uint64_t reachableObjects() const;
    uint64_t reachableBytes() const;

    // Root identities (distinct paths of rootkey keys), and the ones referencing `pos` directly.
    size_t rootIdentityCount() const { return identity_offsets_.size() - 1; }
    std::span<const uint64_t> rootIdentity(uint32_t id) const {
        return {identity_keys_.data() + identity_offsets_[id],
                identity_keys_.data() + identity_offsets_[id + 1]};
    }
    // "static field IdCache.idCache", "stack local main BuggyMain.main", "JNI global".
    std::string rootIdentityLabel(uint32_t id) const;
    std::span<const uint32_t> directRoots(size_t pos) const;
    bool rooted(size_t pos) const { return !directRoots(pos).empty(); }

    // Built on first use.
    const ReverseGraph& reverse() const;
    // The identities of the roots closest to `pos` (at most kMaxClosestRoots, smallest ids first
    // when more are as close); empty when no root reaches it.
    static constexpr size_t kMaxClosestRoots = 8;
    std::span<const uint32_t> closestRoots(size_t pos) const;
    // Distance in references from the closest root object (0 for a root object), and the object
    // before `pos` on one shortest path from it; kNoPosition for root objects and unreached ones.
    // When roots tie, paths start from the most lasting kind (a static field before a thread's
    // local that happened to hold the object at the snapshot), so a path names what keeps an
    // object alive for good.
    uint32_t rootDistance(size_t pos) const;
    uint32_t pathParent(size_t pos) const;
    // The identity a path from root object `pos` starts with: the most lasting of its direct
    // roots (see rootRank); kNoPosition when `pos` is not a root object.
    uint32_t pathRoot(size_t pos) const;
    // How lasting a root identity's kind is, most lasting (static field) 0; orders ties.
    int rootRank(uint32_t identity) const;
    // The data structure `pos` is contained in: the position of its head, kNoPosition when in
    // none, kMultipleContainers when in more than one.
    static constexpr uint32_t kMultipleContainers = kNoPosition - 1;
    uint32_t container(size_t pos) const;
    // The dominator tree of the heap below the snapshot's roots (computeDominators with two
    // threads), built on first use; an error when it cannot be computed (2^32 - 1 positions or
    // references or more). For a sampled trace's graph: the tree of the whole heap.
    const Result<DominatorTree>& dominators() const;
    // Per position: the ancestor just below the super-root of the dominator tree (itself for an
    // object the super-root dominates directly), kNoPosition for one no root reaches; built once,
    // on first use (topDominators in graph/dominator_view.h). Empty when dominators() failed.
    std::span<const uint32_t> topDominators() const;

    size_t memoryBytes() const;

private:
    // The most lasting of the root identities `ids`; kNoPosition when there are none.
    uint32_t mostLasting(std::span<const uint32_t> ids) const;
    void computeReachable() const;
    void computeClosest() const;
    void computeContainers() const;

    std::unique_ptr<const WholeHeap> whole_;  // a sampled trace's (heap_ reads it)
    HeapView heap_;
    HeapSnapshot snapshot_;

    // Root identities and the direct roots of each rooted position.
    std::vector<uint64_t> identity_keys_;
    std::vector<uint32_t> identity_offsets_{0};
    std::vector<uint32_t> rooted_positions_;   // sorted
    std::vector<uint32_t> direct_offsets_{0};  // per rooted position
    std::vector<uint32_t> direct_ids_;

    mutable std::once_flag reachable_once_, reverse_once_, closest_once_, containers_once_, dominators_once_,
        top_dominators_once_;
    mutable Bitset reachable_;
    mutable uint64_t reachable_objects_ = 0, reachable_bytes_ = 0;
    mutable ReverseGraph reverse_;
    mutable std::vector<uint32_t> closest_set_;  // per position: set id, kNoPosition = unreached
    mutable std::vector<uint32_t> set_offsets_, set_ids_;
    mutable std::vector<uint32_t> distance_, parent_;
    mutable std::vector<uint32_t> container_;
    mutable std::optional<Result<DominatorTree>> dominators_;
    mutable std::vector<uint32_t> top_dominators_;
};

// The last GC with a complete reference snapshot, or none.
std::optional<uint32_t> lastSnapshotGc(const HeapHistory& h);

// The references of `heap` from the snapshot taken at its own GC. Error, one line, when that GC
// has none: "GC 5 has no reference snapshot; the nearest are GCs 4 and 8 (memcity gcs marks them)".
Result<std::unique_ptr<HeapGraph>> loadGraph(const HeapHistory& h, const HeapState& heap);

// Whether any GC of from..to (inclusive, clamped to the trace) has a reference snapshot.
bool hasSnapshotIn(const HeapHistory& h, uint32_t from, uint32_t to);

}  // namespace memcity
