// EventEncoder builds the payload of one self-contained EVENTS chunk. A producer with several
// threads can keep one encoder per thread and hand finished payloads to the TraceWriter.
#pragma once

#include <cstdint>
#include <span>
#include <vector>

#include "trace/events.h"
#include "util/bytes.h"

namespace memcity {

class EventEncoder {
public:
    // Starts a new payload; the prologue fixes the bases that the deltas start from.
    void reset(int64_t time_base_ns, uint64_t id_base, uint32_t thread);

    // An allocation. `e.thread` is ignored: the encoder's current thread applies (see thread()).
    // e.size == 0 means "as the type's layout says"; a non-zero size is written explicitly.
    void alloc(const AllocEvent& e);
    // Deaths at GC `gc`. Contract: ids strictly ascending and non-empty.
    void deaths(uint32_t gc, std::span<const uint64_t> ids);
    void gcStart(const GcStartEvent& e);
    void gcEnd(const GcEndEvent& e);
    void thread(uint32_t thread);  // sets the allocating thread of the following allocations
    void threadStart(const ThreadEvent& e);
    void threadEnd(const ThreadEvent& e);
    void move(const MoveEvent& e);
    void extension(uint32_t ext_kind, std::span<const uint8_t> data);

    bool started() const { return started_; }
    size_t bytes() const { return out_.size(); }
    uint32_t eventCount() const { return events_; }
    uint32_t currentThread() const { return thread_; }
    // GC indices whose GC_END is in this payload (for the footer index).
    const std::vector<uint32_t>& gcEnds() const { return gc_ends_; }
    const std::vector<uint8_t>& payload() const { return out_.bytes(); }
    void clear();

private:
    void time(int64_t t);

    ByteWriter out_;
    int64_t last_time_ = 0;
    uint64_t last_alloc_id_ = 0;  // next expected id is last + 1
    uint32_t thread_ = 0;
    uint32_t events_ = 0;
    bool started_ = false;
    std::vector<uint32_t> gc_ends_;
};

}  // namespace memcity
