#include "heap/snapshot.h"

#include <bit>
#include <optional>
#include <sstream>
#include <thread>

#include "heap/id_index.h"
#include "trace/event_decoder.h"
#include "util/parallel.h"

namespace memcity {
namespace {

// Why an object below the snapshot's watermark is not in the heap. In a cut trace, an object the
// heap does not hold at all (not even as a tombstone) was most likely allocated in the part that
// was lost: a thread's buffer of allocations is written after the snapshot that names them. (One
// that died and was compacted away looks the same; in a cut trace the cut is the likelier cause.)
// Otherwise the trace contradicts itself.
Anomaly missing(const TraceFile& trace, const IdIndex& index, uint64_t id, Anomaly otherwise) {
    return trace.truncated() && index.find(id) == index.end() ? Anomaly::kCutOffAlloc : otherwise;
}

// Collects the lists of one REFS chunk, mapping ids to positions, and hands each to `sink`.
template <class Sink>
struct RefsVisitor {
    RefsVisitor(const IdIndex& index_, const ObjectStore& store_, uint64_t watermark_, Diagnostics* diag_,
                bool first_pass_, const TraceFile& trace_, size_t chunk_, Sink& sink_, HeapSnapshot& snap_)
        : index(index_),
          store(store_),
          watermark(watermark_),
          diag(diag_),
          first_pass(first_pass_),
          trace(trace_),
          chunk(chunk_),
          sink(sink_),
          snap(snap_) {}

    const IdIndex& index;
    const ObjectStore& store;
    uint64_t watermark;
    Diagnostics* diag;  // null in the second pass or when not counting
    bool first_pass;
    const TraceFile& trace;
    size_t chunk;
    Sink& sink;
    HeapSnapshot& snap;
    uint64_t sources = 0, edges = 0;

    uint32_t source = 0;
    bool source_ok = false;
    size_t source_offset = 0;
    std::vector<uint32_t> targets;

    template <class... Parts>
    void note(Anomaly a, size_t offset, const Parts&... parts) {
        if (!diag) return;
        diag->add(a, [&] {
            std::ostringstream os;
            (os << ... << parts);
            return trace.describe(chunk, offset, os.str());
        });
    }
    // Position of a live object, or ~0.
    uint32_t map(uint64_t id) const {
        size_t pos = index.find(id);
        if (pos == index.end() || !store.alive(pos)) return ~uint32_t{0};
        return static_cast<uint32_t>(pos);
    }
    void flush() {
        if (source_ok) sink(source, targets, source_offset);
        targets.clear();
        source_ok = false;
    }
    void onSource(uint64_t id, uint64_t n, size_t offset) {
        flush();
        ++sources;
        edges += n;
        source_offset = offset;
        uint32_t pos = map(id);
        source_ok = pos != ~uint32_t{0};
        source = pos;
        if (!source_ok) {
            if (first_pass) snap.dropped_edges += n;
            if (id >= watermark)
                note(Anomaly::kNewerEdge, offset, "snapshot lists object ", id, ", born after its GC");
            else
                note(missing(trace, index, id, Anomaly::kDanglingSource), offset,
                     "snapshot lists references of object ", id, ", which is not in the heap");
        }
    }
    void onEdge(uint64_t src, const Edge& e) {
        if (!source_ok) return;
        if (e.strength != static_cast<uint8_t>(format::RefStrength::kStrong)) {
            if (first_pass) ++snap.weak_edges;
            return;
        }
        uint32_t pos = map(e.target);
        if (pos == ~uint32_t{0}) {
            if (first_pass) ++snap.dropped_edges;
            if (e.target >= watermark)
                note(Anomaly::kNewerEdge, source_offset, "object ", src, " references object ", e.target,
                     ", born after the snapshot's GC");
            else
                note(missing(trace, index, e.target, Anomaly::kDanglingEdge), source_offset, "object ", src,
                     " references object ", e.target, ", which is not in the heap");
            return;
        }
        targets.push_back(pos);
    }
};

struct RootsVisitor {
    const IdIndex& index;
    const ObjectStore& store;
    uint64_t watermark;
    Diagnostics* diag;
    const TraceFile& trace;
    size_t chunk;
    HeapSnapshot& snap;

    void onRoot(const Root& r, size_t offset) {
        size_t pos = index.find(r.target);
        if (pos == index.end() || !store.alive(pos)) {
            ++snap.dropped_roots;
            if (!diag) return;
            const Anomaly a = r.target >= watermark ? Anomaly::kNewerEdge
                                                    : missing(trace, index, r.target, Anomaly::kDanglingRoot);
            diag->add(a, [&] {
                return trace.describe(chunk, offset,
                                      "root of kind " + std::to_string(r.kind) + " names object " +
                                          std::to_string(r.target) + ", which is not in the heap");
            });
            return;
        }
        RootRef ref;
        ref.kind = r.kind;
        ref.position = static_cast<uint32_t>(pos);
        ref.detail_count = r.detail_count;
        for (uint32_t i = 0; i < r.detail_count; ++i)
            ref.details[i] = r.details[i];
        snap.roots.push_back(ref);
    }
};

// Decodes REFS chunk `chunk` of the snapshot of `info` into `visitor` (then its last list, for
// a visitor that holds one back) and releases the chunk's pages. A chunk that names another GC
// is an error, unless `other_gc` is given: it is then set and the caller decides.
template <class Visitor>
Status decodeRefsChunk(const TraceFile& trace, const SnapshotInfo& info, uint32_t chunk,
                       std::vector<uint8_t>& bytes, Visitor& visitor, bool* other_gc = nullptr) {
    auto payload = trace.payload(chunk, bytes);
    if (!payload) return payload.error();
    uint32_t gc = 0;
    DecodeStatus st = decodeRefs(*payload, trace.symbols(), &gc, visitor);
    if (!st.ok) return trace.errorAt(chunk, st.offset, st.message);
    if constexpr (requires { visitor.flush(); }) visitor.flush();
    trace.releasePages(chunk, chunk + 1);
    if (gc == info.gc) return {};
    if (other_gc) {
        *other_gc = true;
        return {};
    }
    return trace.errorAt(
        chunk, 0,
        "refs chunk says GC " + std::to_string(gc) + ", its header says " + std::to_string(info.gc));
}

// A snapshot that lists an object's references twice (the first list stands).
void noteDuplicateSource(Diagnostics* diag, const TraceFile& trace, const SnapshotInfo& info, uint32_t chunk,
                         size_t offset) {
    if (!diag) return;
    diag->add(Anomaly::kDuplicateSource, [&] {
        return trace.describe(
            chunk, offset,
            "snapshot of GC " + std::to_string(info.gc) + " lists an object's references twice");
    });
}

// Reads the snapshot's ROOTS chunk into snap.roots and checks its counts against the REFS
// chunks' (`sources` objects with `edges` references).
Status readRoots(const TraceFile& trace, const SnapshotInfo& info, const IdIndex& index,
                 const ObjectStore& store, const SnapshotLoadOptions& options, uint64_t sources,
                 uint64_t edges, std::vector<uint8_t>& scratch, HeapSnapshot& snap) {
    auto payload = trace.payload(info.roots_chunk, scratch);
    if (!payload) return payload.error();
    RootsHeader header;
    RootsVisitor rv{index, store, options.watermark, options.diagnostics, trace, info.roots_chunk, snap};
    DecodeStatus st = decodeRoots(*payload, trace.symbols(), trace.header().sampled(), &header, rv);
    if (!st.ok) return trace.errorAt(info.roots_chunk, st.offset, st.message);
    if (header.sources != sources || header.edges != edges) {
        return trace.errorAt(info.roots_chunk, 0,
                             "snapshot of GC " + std::to_string(info.gc) + " lists " +
                                 std::to_string(sources) + " objects and " + std::to_string(edges) +
                                 " references, its roots chunk says " + std::to_string(header.sources) +
                                 " and " + std::to_string(header.edges));
    }
    return {};
}

// The listing of a from-roots snapshot, marked by id (snapshotReachability's walk-free path).
struct ListedVisitor {
    uint64_t base, end;  // ids in [base, end) can be in the heap below the cut
    std::vector<uint64_t>& listed;
    std::vector<uint64_t>& sourced;
    uint64_t sources = 0, edges = 0, strong = 0, roots = 0;
    bool fallback = false;  // a weak reference, an id out of range, a repeated source

    bool mark(std::vector<uint64_t>& bits, uint64_t id) {  // false: out of range
        if (id < base || id >= end) return false;
        const uint64_t i = id - base;
        bits[i >> 6] |= uint64_t{1} << (i & 63);
        return true;
    }
    void onSource(uint64_t id, uint64_t n, size_t) {
        ++sources;
        edges += n;
        if (!mark(listed, id)) {
            fallback = true;
            return;
        }
        const uint64_t i = id - base, bit = uint64_t{1} << (i & 63);
        if (sourced[i >> 6] & bit) fallback = true;
        sourced[i >> 6] |= bit;
    }
    void onEdge(uint64_t, const Edge& e) {
        if (e.strength != static_cast<uint8_t>(format::RefStrength::kStrong)) {
            fallback = true;  // what it alone reaches is listed but not strongly reachable
            return;
        }
        ++strong;
        if (!mark(listed, e.target)) fallback = true;
    }
    void onRoot(const Root& r, size_t) {
        ++roots;
        if (!mark(listed, r.target)) fallback = true;
    }
};

// Reachability of a from-roots snapshot without a walk, or nothing where it takes one (see
// snapshotReachability). Errors are the trace's (a bad chunk).
Result<std::optional<SnapshotReach>> listedReachability(const TraceFile& trace, const SnapshotInfo& info,
                                                        const HeapView& heap, unsigned threads,
                                                        ReachScratch& scratch) {
    using None = std::optional<SnapshotReach>;
    const ObjectStore& store = heap.store();
    const size_t cut = heap.positions();
    if (cut == 0) return None{};
    const uint64_t base = store.id(0), end = store.id(cut - 1) + 1;
    if (end - base > 64 * uint64_t{cut} + 4096) return None{};  // ids too sparse for bits by id
    const size_t words = static_cast<size_t>((end - base + 63) / 64);
    // With two threads, each decodes every other REFS chunk into bits of its own.
    const bool two = threads >= 2 && info.refs_chunks.size() >= 2;
    scratch.listed.assign(words, 0);
    scratch.sourced.assign(words, 0);
    if (two) {
        scratch.listed2.assign(words, 0);
        scratch.sourced2.assign(words, 0);
    }
    ListedVisitor v{base, end, scratch.listed, scratch.sourced};
    ListedVisitor v2{base, end, scratch.listed2, scratch.sourced2};
    // Decodes chunks first, first + step, ...: an error, or false where the walk must decide.
    auto share = [&](size_t first, size_t step, ListedVisitor& visitor,
                     std::vector<uint8_t>& bytes) -> Result<bool> {
        for (size_t k = first; k < info.refs_chunks.size(); k += step) {
            bool other_gc = false;
            if (Status st = decodeRefsChunk(trace, info, info.refs_chunks[k], bytes, visitor, &other_gc); !st)
                return st.error();
            if (other_gc || visitor.fallback) return false;  // the walk reports it
        }
        return true;
    };
    Result<bool> first = true, second = true;
    runParts(two ? 2 : 1, [&](size_t p) {
        if (p == 0)
            first = share(0, two ? 2 : 1, v, scratch.bytes);
        else
            second = share(1, 2, v2, scratch.bytes2);
    });
    for (const Result<bool>* r : {&first, &second}) {
        if (!*r) return r->error();
        if (!**r) return None{};
    }
    if (two) {
        for (size_t w = 0; w < words; ++w) {
            if (scratch.sourced[w] & scratch.sourced2[w]) return None{};  // a source listed twice
            scratch.listed[w] |= scratch.listed2[w];
        }
        v.sources += v2.sources;
        v.edges += v2.edges;
        v.strong += v2.strong;
    }
    auto payload = trace.payload(info.roots_chunk, scratch.bytes);
    if (!payload) return payload.error();
    RootsHeader header;
    DecodeStatus st = decodeRoots(*payload, trace.symbols(), trace.header().sampled(), &header, v);
    if (!st.ok) return trace.errorAt(info.roots_chunk, st.offset, st.message);
    if (v.fallback || header.sources != v.sources || header.edges != v.edges) return None{};
    // Sizes only of what was not reached (few): the reached are the heap's live bytes but those.
    SnapshotReach out;
    HiCursor cursor(store.ids.runs);
    for (size_t pos = 0; pos < cut; ++pos) {
        if (!heap.alive(pos)) continue;
        const uint64_t i = (uint64_t{cursor.hiAt(pos)} << 32 | store.ids.lo[pos]) - base;
        if (scratch.listed[i >> 6] >> (i & 63) & 1) {
            out.reach.reachable_objects++;
        } else {
            out.reach.unreached_objects++;
            out.reach.unreached_bytes += heap.size(pos);
        }
    }
    if (out.reach.reachable_objects + out.reach.unreached_objects != heap.liveObjects() ||
        out.reach.unreached_bytes > heap.liveBytes())
        return None{};
    out.reach.reachable_bytes = heap.liveBytes() - out.reach.unreached_bytes;
    // Every listed object must be one of those: else one is dead or missing, which the walk names.
    uint64_t listed = 0;
    for (uint64_t w : scratch.listed)
        listed += static_cast<uint64_t>(std::popcount(w));
    if (listed != out.reach.reachable_objects) return None{};
    out.edges = v.strong;
    out.roots = v.roots;
    out.walked = false;
    return std::optional<SnapshotReach>(out);
}

// Marks what is strongly reachable from `roots` (forEachTarget(pos, visit) calls visit with each
// target of pos) and sums the live positions below `cut`, reached or not.
template <class ForEachTarget>
Reachability reachFrom(const std::vector<RootRef>& roots, const ObjectStore& store, size_t cut,
                       const ShapeTable& shapes, const SymbolTable& symbols, uint32_t alignment,
                       ForEachTarget&& forEachTarget, std::vector<uint64_t>* reached_out) {
    const size_t n = store.size();
    std::vector<uint64_t> reached((n + 63) / 64, 0);
    std::vector<uint32_t> stack;
    auto visit = [&](uint32_t pos) {
        uint64_t mask = uint64_t{1} << (pos & 63);
        if (reached[pos >> 6] & mask) return;
        reached[pos >> 6] |= mask;
        stack.push_back(pos);
    };
    for (const RootRef& r : roots)
        visit(r.position);
    while (!stack.empty()) {
        uint32_t pos = stack.back();
        stack.pop_back();
        forEachTarget(pos, visit);
    }
    Reachability out;
    for (size_t pos = 0; pos < cut; ++pos) {
        if (!store.alive(pos)) continue;
        uint64_t size = store.sizeOf(pos, shapes, symbols, alignment);
        if (reached[pos >> 6] >> (pos & 63) & 1) {
            out.reachable_objects++;
            out.reachable_bytes += size;
        } else {
            out.unreached_objects++;
            out.unreached_bytes += size;
        }
    }
    if (reached_out) *reached_out = std::move(reached);
    return out;
}

}  // namespace

Result<HeapSnapshot> loadSnapshot(const TraceFile& trace, const SnapshotInfo& info, const ObjectStore& store,
                                  const SnapshotLoadOptions& options) {
    HeapSnapshot snap;
    snap.gc = info.gc;
    IdIndex index(store.ids, store.size());
    RefGraphBuilder builder(store.size());
    std::vector<uint8_t> scratch;
    uint64_t sources = 0, edges = 0;

    for (int pass = 0; pass < 2; ++pass) {
        Diagnostics* diag = pass == 0 ? options.diagnostics : nullptr;
        for (uint32_t chunk : info.refs_chunks) {
            auto sink = [&](uint32_t source, std::vector<uint32_t>& targets, size_t offset) {
                if (pass == 1) {
                    builder.write(source, targets);
                } else if (!builder.measure(source, targets)) {
                    noteDuplicateSource(diag, trace, info, chunk, offset);
                }
            };
            RefsVisitor<decltype(sink)> v(index, store, options.watermark, diag, pass == 0, trace, chunk,
                                          sink, snap);
            // (read twice, never kept)
            if (Status st = decodeRefsChunk(trace, info, chunk, scratch, v); !st) return st.error();
            if (pass == 0) {
                sources += v.sources;
                edges += v.edges;
            }
        }
        if (pass == 0) builder.layout();
    }
    snap.graph = builder.finish();
    if (Status st = readRoots(trace, info, index, store, options, sources, edges, scratch, snap); !st)
        return st.error();
    return snap;
}

Reachability computeReachability(const HeapSnapshot& snapshot, const ObjectStore& store, size_t cut,
                                 const ShapeTable& shapes, const SymbolTable& symbols, uint32_t alignment,
                                 std::vector<uint64_t>* reached_out) {
    return reachFrom(
        snapshot.roots, store, cut, shapes, symbols, alignment,
        [&](uint32_t pos, auto&& visit) { snapshot.graph.forEachTarget(pos, visit); }, reached_out);
}

Result<SnapshotReach> snapshotReachability(const TraceFile& trace, const SnapshotInfo& info,
                                           const HeapView& heap, const SnapshotLoadOptions& options,
                                           ReachScratch& scratch) {
    const ObjectStore& store = heap.store();
    if (options.from_roots) {
        auto fast = listedReachability(trace, info, heap, options.threads, scratch);
        if (!fast) return fast.error();
        if (*fast) return **fast;
    }
    HeapSnapshot snap;  // its roots and counters; no graph
    snap.gc = info.gc;
    const IdIndex index(store.ids, store.size());
    constexpr uint32_t kNone = ~uint32_t{0};
    if (scratch.head.size() < store.size()) {
        scratch.head.resize(store.size(), kNone);
        scratch.count.resize(store.size(), 0);
    }
    scratch.targets.clear();
    // Leaves the heads as it found them (all kNone), whatever happens.
    struct Reset {
        ReachScratch& s;
        ~Reset() {
            for (uint32_t pos : s.touched)
                s.head[pos] = kNone;
            s.touched.clear();
        }
    } reset{scratch};
    uint64_t sources = 0, edges = 0;
    for (uint32_t chunk : info.refs_chunks) {
        auto sink = [&](uint32_t source, std::vector<uint32_t>& targets, size_t offset) {
            if (scratch.head[source] != kNone) {  // its first list stands
                noteDuplicateSource(options.diagnostics, trace, info, chunk, offset);
                return;
            }
            scratch.head[source] = static_cast<uint32_t>(scratch.targets.size());
            scratch.count[source] = static_cast<uint32_t>(targets.size());
            scratch.touched.push_back(source);
            scratch.targets.insert(scratch.targets.end(), targets.begin(), targets.end());
        };
        RefsVisitor<decltype(sink)> v(index, store, options.watermark, options.diagnostics, true, trace,
                                      chunk, sink, snap);
        if (Status st = decodeRefsChunk(trace, info, chunk, scratch.bytes, v); !st) return st.error();
        sources += v.sources;
        edges += v.edges;
    }
    if (Status st = readRoots(trace, info, index, store, options, sources, edges, scratch.bytes, snap); !st)
        return st.error();
    SnapshotReach out;
    out.edges = scratch.targets.size();
    out.roots = snap.roots.size();
    out.reach = reachFrom(
        snap.roots, store, heap.positions(), heap.shapes(), heap.symbols(), heap.alignment(),
        [&](uint32_t pos, auto&& visit) {
            const uint32_t h = scratch.head[pos];
            if (h == kNone) return;
            for (uint32_t k = h, e = h + scratch.count[pos]; k < e; ++k)
                visit(scratch.targets[k]);
        },
        nullptr);
    return out;
}

}  // namespace memcity
