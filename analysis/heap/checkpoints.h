// CheckpointStore keeps copies of the rebuild state at chunk boundaries, so any GC can be
// rebuilt by replaying a bounded stretch of the trace. Copies go to an unlinked temporary file
// (they would otherwise cost as much memory as the heap per copy), or stay in memory when no
// temporary file can be made.
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include "heap/object_store.h"
#include "heap/replayer.h"
#include "util/result.h"

namespace memcity {

class CheckpointStore {
public:
    // `dir` empty: $TMPDIR, else /tmp.
    explicit CheckpointStore(std::string dir = {});
    ~CheckpointStore();
    CheckpointStore(const CheckpointStore&) = delete;
    CheckpointStore& operator=(const CheckpointStore&) = delete;

    // Saves the state from which replay resumes at chunk `chunk`. Chunks must increase.
    Status save(uint32_t chunk, const ObjectStore& store, const Replayer::Scalars& scalars);
    // The chunk of the latest checkpoint at or before `chunk`; false when there is none.
    bool latestAtOrBefore(uint32_t chunk, uint32_t* checkpoint_chunk) const;
    Status load(uint32_t checkpoint_chunk, ObjectStore* store, Replayer::Scalars* scalars) const;

    size_t count() const { return entries_.size(); }
    uint64_t bytes() const { return end_; }
    bool inMemory() const { return fd_ < 0; }

private:
    struct Entry {
        uint32_t chunk;
        uint64_t offset, size;
    };
    Status put(const void* data, size_t size);
    Status get(uint64_t offset, void* data, size_t size) const;

    std::string dir_;
    int fd_ = -1;
    bool tried_file_ = false;
    std::vector<uint8_t> memory_;  // used when no file could be made
    uint64_t end_ = 0;
    std::vector<Entry> entries_;
};

}  // namespace memcity
