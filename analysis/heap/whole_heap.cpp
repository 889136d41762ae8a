#include "heap/whole_heap.h"

#include <algorithm>
#include <string>

#include "trace/event_decoder.h"

namespace memcity {
namespace {

// The fewest bytes an unsampled object takes in an OBJECTS chunk: its id's delta, type, length
// and size, a varint each (decodeUnsampled).
constexpr uint64_t kMinListedObjectBytes = 4;

}  // namespace

Result<std::unique_ptr<WholeHeap>> WholeHeap::load(const TraceFile& trace, const SnapshotInfo& info,
                                                   const HeapView& samples) {
    std::unique_ptr<WholeHeap> w(new WholeHeap());
    w->symbols_ = &samples.symbols();
    w->alignment_ = samples.alignment();
    w->gc_ = samples.gc();
    // Watermarks up to the GC's own: an unsampled object's birth is not known, only that it was
    // alive at the GC (its age reads 0).
    const auto marks = samples.watermarks();
    const auto kept = marks.first(std::min<size_t>(marks.size(), size_t{samples.gc()} + 1));
    w->watermarks_.assign(kept.begin(), kept.end());

    // The samples' shapes keep their ids (a table interns in order of first use).
    const ShapeTable& from = samples.shapes();
    for (size_t id = 0; id < from.size(); ++id)
        if (w->shapes_.intern(from[static_cast<uint32_t>(id)]) != id)
            return Error{trace.path() + ": the shapes of GC " + std::to_string(samples.gc()) +
                         "'s heap could not be copied"};

    // The count the roots chunk declares is reserved for below: no more than its objects chunks
    // can hold (an object takes at least 4 bytes there), so a hostile count is an error, not
    // a reservation of gigabytes.
    uint64_t listed_bytes = 0;
    for (uint32_t chunk : info.unsampled_chunks)
        if (chunk < trace.chunks().size()) listed_bytes += trace.chunks()[chunk].raw_size;
    if (info.unsampled > listed_bytes / kMinListedObjectBytes)
        return Error{trace.path() + ": the snapshot of GC " + std::to_string(info.gc) + " says it lists " +
                     std::to_string(info.unsampled) + " unsampled objects, more than its " +
                     std::to_string(info.unsampled_chunks.size()) + " objects chunks of " +
                     std::to_string(listed_bytes) + " bytes can hold"};

    // The samples, position by position (a tombstone stays one).
    const ObjectStore& src = samples.store();
    const size_t n = samples.positions();
    ObjectStore& store = w->store_;
    store.ids.lo.reserve(n + info.unsampled);
    store.shape.reserve(n + info.unsampled);
    store.length16.reserve(n + info.unsampled);
    uint64_t last_id = 0;
    bool any = false;
    HiCursor cursor(src.ids.runs);
    for (size_t pos = 0; pos < n; ++pos) {
        const uint64_t id = uint64_t{cursor.hiAt(pos)} << 32 | src.ids.lo[pos];
        store.ids.push(id);
        store.shape.push_back(src.shape[pos]);
        const uint16_t l = src.length16[pos];
        store.length16.push_back(l);
        if (l == ObjectStore::kLongLength) {
            auto it = src.long_lengths.find(id);
            if (it != src.long_lengths.end()) store.long_lengths[id] = it->second;
        }
        if (!src.explicit_sizes.empty()) {
            auto it = src.explicit_sizes.find(id);
            if (it != src.explicit_sizes.end()) store.explicit_sizes[id] = it->second;
        }
        last_id = id;
        any = true;
    }
    w->sample_positions_ = n;

    // Then the snapshot's unsampled objects, in id order (a walk lists them as it meets them).
    struct Listed {
        uint64_t id, length, explicit_size;
        uint32_t shape;
        size_t chunk, offset;  // where it was listed: for an error
    };
    std::vector<Listed> listed;
    listed.reserve(info.unsampled);
    struct Visitor {
        WholeHeap& w;
        const HeapView& samples;
        std::vector<Listed>& listed;
        size_t chunk = 0;
        void onObject(const AllocEvent& e, size_t offset) {
            const bool array = e.isArray();
            const uint32_t shape =
                w.shapes_.intern({e.type, 0, 0, array ? 0u : static_cast<uint32_t>(e.size)});
            uint64_t explicit_size = 0;
            if (array && e.size != arrayBytes(samples.symbols().layouts()[e.type], e.length, w.alignment_))
                explicit_size = e.size;
            listed.push_back({e.id, e.length, explicit_size, shape, chunk, offset});
            w.unsampled_bytes_ += e.size;
        }
    } v{*w, samples, listed};
    std::vector<uint8_t> bytes;
    for (uint32_t chunk : info.unsampled_chunks) {
        auto payload = trace.payload(chunk, bytes);
        if (!payload) return payload.error();
        uint32_t gc = 0;
        v.chunk = chunk;
        DecodeStatus st = decodeUnsampled(*payload, trace.symbols(), w->alignment_, &gc, v);
        if (!st.ok) return trace.errorAt(chunk, st.offset, st.message);
        if (gc != info.gc)
            return trace.errorAt(chunk, 0,
                                 "objects chunk says GC " + std::to_string(gc) + ", its header says " +
                                     std::to_string(info.gc));
        trace.releasePages(chunk, chunk + 1);
    }
    std::sort(listed.begin(), listed.end(), [](const Listed& a, const Listed& b) { return a.id < b.id; });
    for (size_t k = 0; k < listed.size(); ++k) {
        const Listed& o = listed[k];
        if (any && o.id <= last_id)
            return trace.errorAt(
                static_cast<uint32_t>(o.chunk), o.offset,
                "object " + std::to_string(o.id) + " of the snapshot of GC " + std::to_string(info.gc) +
                    (k > 0 && listed[k - 1].id == o.id
                         ? " is listed twice"
                         : " is not above the heap's objects (" + std::to_string(last_id) + ")"));
        last_id = o.id;
        any = true;
        store.append(o.id, o.shape, o.length, o.explicit_size);
    }
    w->unsampled_objects_ = listed.size();
    if (w->unsampled_objects_ != info.unsampled)
        return trace.errorAt(
            info.roots_chunk, 0,
            "snapshot of GC " + std::to_string(info.gc) + " lists " + std::to_string(w->unsampled_objects_) +
                " unsampled objects, its roots chunk says " + std::to_string(info.unsampled));
    store.normalize([](size_t) {});  // already sorted: marks the whole store as sorted
    w->live_objects_ = samples.liveObjects() + w->unsampled_objects_;
    w->live_bytes_ = samples.liveBytes() + w->unsampled_bytes_;
    return w;
}

HeapView WholeHeap::view() const {
    return HeapView(store_, store_.size(), gc_, shapes_, *symbols_, alignment_, watermarks_, live_objects_,
                    live_bytes_);
}

}  // namespace memcity
