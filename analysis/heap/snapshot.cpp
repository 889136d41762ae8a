#include "heap/snapshot.h"

#include <sstream>

#include "heap/id_index.h"
#include "trace/event_decoder.h"

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
            auto payload = trace.payload(chunk, scratch);
            if (!payload) return payload.error();
            auto sink = [&](uint32_t source, std::vector<uint32_t>& targets, size_t offset) {
                if (pass == 1) {
                    builder.write(source, targets);
                } else if (!builder.measure(source, targets) && diag) {
                    diag->add(Anomaly::kDuplicateSource, [&] {
                        return trace.describe(chunk, offset,
                                              "snapshot of GC " + std::to_string(info.gc) +
                                                  " lists an object's references twice");
                    });
                }
            };
            RefsVisitor<decltype(sink)> v{
                index, store, options.watermark, diag, pass == 0, trace, chunk, sink, snap, 0, 0, 0, false,
                0,     {}};
            uint32_t gc = 0;
            DecodeStatus st = decodeRefs(*payload, trace.symbols(), &gc, v);
            if (!st.ok) return trace.errorAt(chunk, st.offset, st.message);
            v.flush();
            trace.releasePages(chunk, chunk + 1);  // read twice, never kept
            if (gc != info.gc)
                return trace.errorAt(chunk, 0,
                                     "refs chunk says GC " + std::to_string(gc) + ", its header says " +
                                         std::to_string(info.gc));
            if (pass == 0) {
                sources += v.sources;
                edges += v.edges;
            }
        }
        if (pass == 0) builder.layout();
    }
    snap.graph = builder.finish();

    auto payload = trace.payload(info.roots_chunk, scratch);
    if (!payload) return payload.error();
    RootsHeader header;
    RootsVisitor rv{index, store, options.watermark, options.diagnostics, trace, info.roots_chunk, snap};
    DecodeStatus st = decodeRoots(*payload, trace.symbols(), &header, rv);
    if (!st.ok) return trace.errorAt(info.roots_chunk, st.offset, st.message);
    if (header.sources != sources || header.edges != edges) {
        return trace.errorAt(info.roots_chunk, 0,
                             "snapshot of GC " + std::to_string(info.gc) + " lists " +
                                 std::to_string(sources) + " objects and " + std::to_string(edges) +
                                 " references, its roots chunk says " + std::to_string(header.sources) +
                                 " and " + std::to_string(header.edges));
    }
    return snap;
}

Reachability computeReachability(const HeapSnapshot& snapshot, const ObjectStore& store, size_t cut,
                                 const ShapeTable& shapes, const SymbolTable& symbols, uint32_t alignment,
                                 std::vector<uint64_t>* reached_out) {
    const size_t n = store.size();
    std::vector<uint64_t> reached((n + 63) / 64, 0);
    std::vector<uint32_t> stack;
    auto visit = [&](uint32_t pos) {
        uint64_t mask = uint64_t{1} << (pos & 63);
        if (reached[pos >> 6] & mask) return;
        reached[pos >> 6] |= mask;
        stack.push_back(pos);
    };
    for (const RootRef& r : snapshot.roots)
        visit(r.position);
    while (!stack.empty()) {
        uint32_t pos = stack.back();
        stack.pop_back();
        snapshot.graph.forEachTarget(pos, visit);
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

}  // namespace memcity
