#include "heap/addresses.h"

#include <string>

#include "trace/heap_layout.h"

namespace memcity {

Result<std::vector<uint64_t>> loadAddresses(const TraceFile& trace, std::span<const uint32_t> chunks,
                                            const ObjectStore& store) {
    std::vector<uint64_t> out(store.size(), 0);
    std::vector<uint8_t> scratch;
    AddressChunk part;
    for (const uint32_t c : chunks) {
        auto payload = trace.payload(c, scratch);
        if (!payload) return payload.error();
        if (Status s = decodeAddresses(*payload, &part); !s)
            return trace.errorAt(c, s.error().offset, "addresses: " + s.error().message);
        if (part.gc != trace.chunks()[c].meta)
            return trace.errorAt(c, 0,
                                 "addresses of GC " + std::to_string(part.gc) + " in a chunk of GC " +
                                     std::to_string(trace.chunks()[c].meta));
        size_t hint = 0;
        for (const ObjectAddress& o : part.objects) {
            const size_t pos = store.find(o.id, hint);
            if (pos == store.size()) continue;
            out[pos] = o.address;
            hint = pos;
        }
    }
    return out;
}

}  // namespace memcity
