// The objects' addresses at a GC, read from the trace's ADDRS chunks (trace/heap_layout.h) and
// placed by the positions of a heap's store.
#pragma once

#include <cstdint>
#include <span>
#include <vector>

#include "heap/object_store.h"
#include "trace/trace_reader.h"
#include "util/result.h"

namespace memcity {

// Each object's address by its position in `store` (0 where no chunk lists it). Objects a chunk
// lists that the store lacks are skipped. Error: a chunk is corrupt, or is not of one GC (the
// first such chunk's). The chunks are read on up to `threads` threads.
Result<std::vector<uint64_t>> loadAddresses(const TraceFile& trace, std::span<const uint32_t> chunks,
                                            const ObjectStore& store, unsigned threads = 1);

}  // namespace memcity
