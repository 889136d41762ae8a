#include "trace/event_encoder.h"

#include "trace/trace_format.h"

namespace memcity {

using format::EventKind;

void EventEncoder::reset(int64_t time_base_ns, uint64_t id_base, uint32_t thread) {
    out_.clear();
    gc_ends_.clear();
    events_ = 0;
    last_time_ = time_base_ns;
    // The first allocation is expected to be id_base: encode it as id_base - 1 + 1.
    last_alloc_id_ = id_base - 1;
    thread_ = thread;
    out_.svarint(time_base_ns);
    out_.varint(id_base);
    out_.varint(thread);
    started_ = true;
}

void EventEncoder::clear() {
    out_.clear();
    gc_ends_.clear();
    events_ = 0;
    started_ = false;
}

void EventEncoder::time(int64_t t) {
    out_.svarint(t - last_time_);
    last_time_ = t;
}

void EventEncoder::alloc(const AllocEvent& e) {
    uint8_t tag = static_cast<uint8_t>(e.isArray() ? EventKind::kAllocArray : EventKind::kAlloc);
    if (e.size != 0) tag |= format::kAllocFlagSize;
    if (e.address != 0) tag |= format::kAllocFlagAddress;
    out_.u8(tag);
    out_.svarint(static_cast<int64_t>(e.id - (last_alloc_id_ + 1)));
    last_alloc_id_ = e.id;
    out_.varint(e.type);
    out_.varint(e.site);
    if (e.isArray()) out_.varint(e.length);
    if (e.size != 0) out_.varint(e.size);
    if (e.address != 0) out_.varint(e.address);
    time(e.time_ns);
    ++events_;
}

void EventEncoder::deaths(uint32_t gc, std::span<const uint64_t> ids) {
    if (ids.empty()) return;
    out_.u8(static_cast<uint8_t>(EventKind::kDeaths));
    out_.varint(gc);
    out_.varint(ids.size());
    out_.varint(ids[0]);
    for (size_t i = 1; i < ids.size(); ++i)
        out_.varint(ids[i] - ids[i - 1] - 1);
    ++events_;
}

void EventEncoder::gcStart(const GcStartEvent& e) {
    out_.u8(static_cast<uint8_t>(EventKind::kGcStart));
    out_.varint(e.gc);
    out_.u8(e.kind);
    out_.varint(e.cause);
    time(e.time_ns);
    ++events_;
}

void EventEncoder::gcEnd(const GcEndEvent& e) {
    out_.u8(static_cast<uint8_t>(EventKind::kGcEnd));
    out_.varint(e.gc);
    time(e.time_ns);
    out_.varint(e.next_object_id);
    out_.varint(e.heap_used_before);
    out_.varint(e.heap_used_after);
    out_.varint(e.heap_committed);
    out_.varint(e.pause_ns);
    gc_ends_.push_back(e.gc);
    ++events_;
}

void EventEncoder::thread(uint32_t t) {
    if (t == thread_) return;
    out_.u8(static_cast<uint8_t>(EventKind::kThread));
    out_.varint(t);
    thread_ = t;
    ++events_;
}

void EventEncoder::threadStart(const ThreadEvent& e) {
    out_.u8(static_cast<uint8_t>(EventKind::kThreadStart));
    out_.varint(e.thread);
    time(e.time_ns);
    ++events_;
}

void EventEncoder::threadEnd(const ThreadEvent& e) {
    out_.u8(static_cast<uint8_t>(EventKind::kThreadEnd));
    out_.varint(e.thread);
    time(e.time_ns);
    ++events_;
}

void EventEncoder::move(const MoveEvent& e) {
    out_.u8(static_cast<uint8_t>(EventKind::kMove));
    out_.varint(e.id);
    out_.varint(e.address);
    ++events_;
}

void EventEncoder::extension(uint32_t ext_kind, std::span<const uint8_t> data) {
    out_.u8(static_cast<uint8_t>(EventKind::kExtension));
    out_.varint(ext_kind);
    out_.varint(data.size());
    out_.append(data.data(), data.size());
    ++events_;
}

}  // namespace memcity
