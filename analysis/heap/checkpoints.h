// CheckpointStore keeps copies of the rebuild state at chunk boundaries, so any GC can be
// rebuilt by replaying a bounded stretch of the trace. Copies go to an unlinked temporary file
// (they would otherwise cost as much memory as the heap per copy), or stay in memory when no
// temporary file can be made.
//
// Checkpoints are incremental: old objects rarely die and the store's prefix below its first
// change does not move, so a checkpoint writes only the positions that changed since the
// previous one and refers to earlier checkpoints for the rest.
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

    // Saves the state from which replay resumes at chunk `chunk`. Chunks must increase. Marks
    // the store clean: its next checkpoint writes only what changes from here on.
    Status save(uint32_t chunk, ObjectStore& store, const Replayer::Scalars& scalars);

    // save() in two steps, so another thread can do the writing: prepare() copies what must be
    // written and reserves its place; write() puts it there. write() may run on another thread
    // while prepare() is called again; load() only after every write() has returned.
    struct Pending {
        std::vector<uint8_t> bytes;
        uint64_t offset = 0;
    };
    Result<Pending> prepare(uint32_t chunk, ObjectStore& store, const Replayer::Scalars& scalars);
    Status write(const Pending& pending);
    // The chunk of the latest checkpoint at or before `chunk`; false when there is none.
    bool latestAtOrBefore(uint32_t chunk, uint32_t* checkpoint_chunk) const;
    Status load(uint32_t checkpoint_chunk, ObjectStore* store, Replayer::Scalars* scalars) const;

    size_t count() const { return entries_.size(); }
    uint64_t bytes() const { return end_; }
    bool inMemory() const { return fd_ < 0; }

private:
    // Positions [begin, end) of the three columns, stored at the given offsets.
    struct Segment {
        uint64_t begin, end;
        uint64_t lo, shape, length;
    };
    struct Entry {
        uint32_t chunk;
        uint64_t meta_offset;  // header, high-bit runs, side tables
        std::vector<Segment> segments;
    };
    Status get(uint64_t offset, void* data, size_t size) const;
    void openFile();

    std::string dir_;
    int fd_ = -1;
    bool tried_file_ = false;
    std::vector<uint8_t> memory_;  // used when no file could be made
    uint64_t end_ = 0;
    std::vector<Entry> entries_;
};

}  // namespace memcity
