#include "heap/addresses.h"

#include <algorithm>
#include <atomic>
#include <string>

#include "trace/heap_layout.h"
#include "util/parallel.h"

namespace memcity {

Result<std::vector<uint64_t>> loadAddresses(const TraceFile& trace, std::span<const uint32_t> chunks,
                                            const ObjectStore& store, unsigned threads) {
    std::vector<uint64_t> out(store.size(), 0);
    // Each part a run of the chunks (their ids ascend, so the positions each part writes are its
    // own; a corrupt trace's repeated ids are stored atomically, any one of them winning).
    const size_t parts = std::clamp<size_t>(threads, 1, std::max<size_t>(chunks.size(), 1));
    std::vector<Status> failed(parts);
    runParts(parts, [&](size_t p) {
        std::vector<uint8_t> scratch;
        AddressChunk part;
        for (size_t k = chunks.size() * p / parts; k < chunks.size() * (p + 1) / parts; ++k) {
            const uint32_t c = chunks[k];
            auto payload = trace.payload(c, scratch);
            if (!payload) {
                failed[p] = payload.error();
                return;
            }
            if (Status s = decodeAddresses(*payload, &part); !s) {
                failed[p] = trace.errorAt(c, s.error().offset, "addresses: " + s.error().message);
                return;
            }
            if (part.gc != trace.chunks()[c].meta) {
                failed[p] = trace.errorAt(c, 0,
                                          "addresses of GC " + std::to_string(part.gc) +
                                              " in a chunk of GC " + std::to_string(trace.chunks()[c].meta));
                return;
            }
            size_t hint = 0;
            for (const ObjectAddress& o : part.objects) {
                const size_t pos = store.find(o.id, hint);
                if (pos == store.size()) continue;
                std::atomic_ref<uint64_t>(out[pos]).store(o.address, std::memory_order_relaxed);
                hint = pos;
            }
        }
    });
    for (const Status& s : failed)  // the first chunk's error
        if (!s) return s.error();
    return out;
}

}  // namespace memcity
