// Decoders for EVENTS, REFS and ROOTS payloads. Templates, so the visitor's handlers inline into
// the decoding loop. Every read is bound-checked and every symbol reference is checked against
// the symbol table; a problem stops decoding with the payload offset of the bad event.
//
// An events visitor provides:
//   void onAlloc(const AllocEvent&, size_t offset);
//   void onDeath(uint32_t gc, uint64_t id, size_t offset);     // once per id of a DEATHS event
//   bool onGcStart(const GcStartEvent&, size_t offset);      // false stops decoding after it
//   bool onGcEnd(const GcEndEvent&, size_t offset);          // false stops decoding after it
//   void onThreadStart(const ThreadEvent&, size_t offset);
//   void onThreadEnd(const ThreadEvent&, size_t offset);
//   void onMove(const MoveEvent&, size_t offset);
//   void onExtension(uint32_t ext_kind, std::span<const uint8_t> data, size_t offset);
// EventVisitorBase gives empty defaults.
#pragma once

#include <cstdint>
#include <span>
#include <string>

#include "trace/events.h"
#include "trace/symbols.h"
#include "trace/trace_format.h"
#include "util/bytes.h"

namespace memcity {

struct DecodeStatus {
    bool ok = true;
    bool stopped = false;  // a visitor asked to stop
    size_t offset = 0;     // on error: payload offset of the bad event; when stopped: offset after the event
    std::string message;   // on error
};

struct EventVisitorBase {
    void onAlloc(const AllocEvent&, size_t) {}
    void onDeath(uint32_t, uint64_t, size_t) {}
    bool onGcStart(const GcStartEvent&, size_t) { return true; }
    bool onGcEnd(const GcEndEvent&, size_t) { return true; }
    void onThreadStart(const ThreadEvent&, size_t) {}
    void onThreadEnd(const ThreadEvent&, size_t) {}
    void onMove(const MoveEvent&, size_t) {}
    void onExtension(uint32_t, std::span<const uint8_t>, size_t) {}
};

// Largest array length or object size accepted; anything above is corrupt data.
inline constexpr uint64_t kMaxObjectBytes = uint64_t{1} << 40;

// Size of an array object from its type's layout, rounded up to `alignment` (a power of two).
inline uint64_t arrayBytes(const TypeLayout& t, uint64_t length, uint32_t alignment) {
    uint64_t raw = t.array_header + length * t.element_size;
    return (raw + alignment - 1) & ~uint64_t{alignment - 1};
}
inline uint64_t arrayBytes(const TypeInfo& t, uint64_t length, uint32_t alignment) {
    return arrayBytes(TypeLayout{t.instance_size, t.array_header, t.element_size}, length, alignment);
}

// Times come from untrusted deltas: add them with wraparound, never with signed overflow.
inline int64_t wrappingAdd(int64_t a, int64_t b) {
    return static_cast<int64_t>(static_cast<uint64_t>(a) + static_cast<uint64_t>(b));
}
// b - a in nanoseconds, 0 if negative, saturated if it does not fit.
inline uint64_t durationNs(int64_t a, int64_t b) {
    if (b <= a) return 0;
    return static_cast<uint64_t>(b) - static_cast<uint64_t>(a);
}

namespace detail {
inline DecodeStatus decodeError(size_t offset, std::string message) {
    DecodeStatus s;
    s.ok = false;
    s.offset = offset;
    s.message = std::move(message);
    return s;
}
}  // namespace detail

template <class Visitor>
DecodeStatus decodeEvents(std::span<const uint8_t> payload, const SymbolTable& symbols, uint32_t alignment,
                          Visitor& v) {
    using format::EventKind;
    ByteReader r(payload.data(), payload.size());
    int64_t time = r.svarint();
    uint64_t last_id = r.varint() - 1;  // wraps for id base 0, like the encoder
    uint32_t thread = r.varint32();
    if (r.failed())
        return detail::decodeError(r.failOffset(), std::string("events prologue: ") + r.failReason());
    if (thread != 0 && !symbols.hasThread(thread))
        return detail::decodeError(
            0, "events prologue names thread " + std::to_string(thread) + ", which is not defined");

    const auto& types = symbols.types();
    while (!r.atEnd()) {
        const size_t at = r.offset();
        const uint8_t tag = r.u8();
        switch (static_cast<EventKind>(tag & format::kEventKindMask)) {
            case EventKind::kAlloc:
            case EventKind::kAllocArray: {
                AllocEvent e;
                e.id = last_id + 1 + static_cast<uint64_t>(r.svarint());
                last_id = e.id;
                uint64_t type = r.varint();
                uint64_t site = r.varint();
                const bool is_array =
                    (tag & format::kEventKindMask) == static_cast<uint8_t>(EventKind::kAllocArray);
                if (is_array) e.length = r.varint();
                uint64_t size = (tag & format::kAllocFlagSize) ? r.varint() : 0;
                if (tag & format::kAllocFlagAddress) e.address = r.varint();
                time = wrappingAdd(time, r.svarint());
                if (r.failed()) break;
                if (type >= types.size() || !types[type].defined)
                    return detail::decodeError(at, "allocation of object " + std::to_string(e.id) +
                                                       " names type " + std::to_string(type) +
                                                       ", which is not defined");
                const TypeInfo& t = types[type];
                if (site != 0 && !symbols.hasSite(static_cast<uint32_t>(site)))
                    return detail::decodeError(at, "allocation of object " + std::to_string(e.id) +
                                                       " names site " + std::to_string(site) +
                                                       ", which is not defined");
                if (is_array != t.isArray())
                    return detail::decodeError(at, std::string(is_array ? "array " : "instance ") +
                                                       "allocation of object " + std::to_string(e.id) +
                                                       " has " + (t.isArray() ? "array" : "non-array") +
                                                       " type " + printable(t.name));
                if (is_array && e.length > kMaxObjectBytes)
                    return detail::decodeError(at, "array length " + std::to_string(e.length) +
                                                       " of object " + std::to_string(e.id) + " is absurd");
                if (size == 0) size = is_array ? arrayBytes(t, e.length, alignment) : t.instance_size;
                if (size == 0 || size > kMaxObjectBytes)
                    return detail::decodeError(at, "object " + std::to_string(e.id) + " of type " +
                                                       printable(t.name) + " has no valid size (" +
                                                       std::to_string(size) + ")");
                e.type = static_cast<uint32_t>(type);
                e.site = static_cast<uint32_t>(site);
                e.thread = thread;
                e.size = size;
                e.time_ns = time;
                v.onAlloc(e, at);
                break;
            }
            case EventKind::kDeaths: {
                uint64_t gc = r.varint();
                uint64_t count = r.varint();
                if (r.failed()) break;
                if (gc > 0x7fffffff)
                    return detail::decodeError(at,
                                               "deaths at GC " + std::to_string(gc) + ": GC index is absurd");
                if (count == 0 || count > r.remaining())
                    return detail::decodeError(at, "death count " + std::to_string(count) + " is absurd (" +
                                                       std::to_string(r.remaining()) +
                                                       " bytes left in the chunk)");
                uint64_t id = r.varint();
                for (uint64_t i = 0; i < count && !r.failed(); ++i) {
                    if (i > 0) {
                        uint64_t d = r.varint();
                        if (d >= ~id) return detail::decodeError(at, "death ids overflow 64 bits");
                        id += d + 1;
                    }
                    if (!r.failed()) v.onDeath(static_cast<uint32_t>(gc), id, at);
                }
                break;
            }
            case EventKind::kGcStart: {
                GcStartEvent e;
                uint64_t gc = r.varint();
                e.kind = r.u8();
                e.cause = r.varint32();
                time = wrappingAdd(time, r.svarint());
                if (r.failed()) break;
                if (gc > 0x7fffffff)
                    return detail::decodeError(at, "GC index " + std::to_string(gc) + " is absurd");
                if (e.cause != 0 && !symbols.hasString(e.cause))
                    return detail::decodeError(at, "GC start names cause string " + std::to_string(e.cause) +
                                                       ", which is not defined");
                e.gc = static_cast<uint32_t>(gc);
                e.time_ns = time;
                if (!v.onGcStart(e, at)) {
                    DecodeStatus s;
                    s.stopped = true;
                    s.offset = r.offset();
                    return s;
                }
                break;
            }
            case EventKind::kGcEnd: {
                GcEndEvent e;
                uint64_t gc = r.varint();
                time = wrappingAdd(time, r.svarint());
                e.next_object_id = r.varint();
                e.heap_used_before = r.varint();
                e.heap_used_after = r.varint();
                e.heap_committed = r.varint();
                e.pause_ns = r.varint();
                if (r.failed()) break;
                if (gc > 0x7fffffff)
                    return detail::decodeError(at, "GC index " + std::to_string(gc) + " is absurd");
                e.gc = static_cast<uint32_t>(gc);
                e.time_ns = time;
                if (!v.onGcEnd(e, at)) {
                    DecodeStatus s;
                    s.stopped = true;
                    s.offset = r.offset();
                    return s;
                }
                break;
            }
            case EventKind::kThread: {
                uint32_t t = r.varint32();
                if (r.failed()) break;
                if (t != 0 && !symbols.hasThread(t))
                    return detail::decodeError(at, "thread " + std::to_string(t) + " is not defined");
                thread = t;
                break;
            }
            case EventKind::kThreadStart:
            case EventKind::kThreadEnd: {
                ThreadEvent e;
                e.thread = r.varint32();
                time = wrappingAdd(time, r.svarint());
                if (r.failed()) break;
                if (!symbols.hasThread(e.thread))
                    return detail::decodeError(at, "thread " + std::to_string(e.thread) + " is not defined");
                e.time_ns = time;
                if ((tag & format::kEventKindMask) == static_cast<uint8_t>(EventKind::kThreadStart))
                    v.onThreadStart(e, at);
                else
                    v.onThreadEnd(e, at);
                break;
            }
            case EventKind::kMove: {
                MoveEvent e;
                e.id = r.varint();
                e.address = r.varint();
                if (r.failed()) break;
                v.onMove(e, at);
                break;
            }
            case EventKind::kExtension: {
                uint32_t ext = r.varint32();
                uint64_t n = r.varint();
                if (r.failed()) break;
                if (n > r.remaining())
                    return detail::decodeError(
                        at, "extension event of " + std::to_string(n) + " bytes runs past the chunk");
                v.onExtension(ext, payload.subspan(r.offset(), n), at);
                r.skip(n);
                break;
            }
            default: {
                char hex[8];
                static const char* digits = "0123456789abcdef";
                hex[0] = '0';
                hex[1] = 'x';
                hex[2] = digits[tag >> 4];
                hex[3] = digits[tag & 15];
                hex[4] = 0;
                return detail::decodeError(at, std::string("unknown event kind ") + hex);
            }
        }
        if (r.failed()) {
            return detail::decodeError(at, std::string(format::eventKindName(tag & format::kEventKindMask)) +
                                               " event: " + r.failReason());
        }
    }
    return {};
}

// A REFS visitor provides: void onSource(uint64_t source, uint64_t edge_count, size_t offset);
//                          void onEdge(uint64_t source, const Edge& edge);
template <class Visitor>
DecodeStatus decodeRefs(std::span<const uint8_t> payload, const SymbolTable& symbols, uint32_t* gc_out,
                        Visitor& v) {
    ByteReader r(payload.data(), payload.size());
    uint64_t gc = r.varint();
    if (r.failed()) return detail::decodeError(r.failOffset(), std::string("refs chunk: ") + r.failReason());
    if (gc > 0x7fffffff)
        return detail::decodeError(0, "refs chunk: GC index " + std::to_string(gc) + " is absurd");
    *gc_out = static_cast<uint32_t>(gc);
    uint64_t source = 0;
    while (!r.atEnd()) {
        const size_t at = r.offset();
        source += static_cast<uint64_t>(r.svarint());
        uint64_t n = r.varint();
        if (r.failed()) break;
        if (n > r.remaining() / 2)
            return detail::decodeError(at, "edge count " + std::to_string(n) + " of object " +
                                               std::to_string(source) + " is absurd");
        v.onSource(source, n, at);
        for (uint64_t i = 0; i < n; ++i) {
            Edge e;
            e.target = source + static_cast<uint64_t>(r.svarint());
            uint64_t slot = r.varint();
            if (r.failed()) break;
            uint64_t field = slot >> 2;
            if (field != 0 &&
                (field >= format::kMaxSymbolId || !symbols.hasField(static_cast<uint32_t>(field))))
                return detail::decodeError(at, "edge of object " + std::to_string(source) + " names field " +
                                                   std::to_string(field) + ", which is not defined");
            e.field = static_cast<uint32_t>(field);
            e.strength = static_cast<uint8_t>(slot & 3);
            v.onEdge(source, e);
        }
        if (r.failed()) break;
    }
    if (r.failed()) return detail::decodeError(r.failOffset(), std::string("refs record: ") + r.failReason());
    return {};
}

// An OBJECTS visitor (a sampled trace's snapshot: objects of its GC's heap that were not
// sampled, in any order) provides: void onObject(const AllocEvent& e, size_t offset); with id,
// type, length and size (decoded: never 0) set.
template <class Visitor>
DecodeStatus decodeUnsampled(std::span<const uint8_t> payload, const SymbolTable& symbols, uint32_t alignment,
                             uint32_t* gc_out, Visitor& v) {
    ByteReader r(payload.data(), payload.size());
    const uint64_t gc = r.varint();
    uint64_t id = r.varint();
    if (r.failed())
        return detail::decodeError(r.failOffset(), std::string("objects chunk: ") + r.failReason());
    if (gc > 0x7fffffff)
        return detail::decodeError(0, "objects chunk: GC index " + std::to_string(gc) + " is absurd");
    *gc_out = static_cast<uint32_t>(gc);
    const auto& types = symbols.types();
    while (!r.atEnd()) {
        const size_t at = r.offset();
        const int64_t delta = r.svarint();
        const uint64_t type = r.varint();
        const uint64_t length = r.varint();
        uint64_t size = r.varint();
        if (r.failed()) break;
        const uint64_t next = id + static_cast<uint64_t>(delta);
        if (delta == 0 || (delta > 0) != (next > id))
            return detail::decodeError(
                at, "objects chunk: object " + std::to_string(id) + " is followed by itself " +
                        "or by an id past the 64-bit range (delta " + std::to_string(delta) + ")");
        id = next;
        if (type >= types.size() || !types[type].defined)
            return detail::decodeError(at, "object " + std::to_string(id) + " names type " +
                                               std::to_string(type) + ", which is not defined");
        const TypeInfo& t = types[type];
        if ((length != 0) != t.isArray())
            return detail::decodeError(
                at, std::string(length != 0 ? "array " : "instance ") + "object " + std::to_string(id) +
                        " has " + (t.isArray() ? "array" : "non-array") + " type " + printable(t.name));
        AllocEvent e;
        e.id = id;
        e.type = static_cast<uint32_t>(type);
        if (length != 0) e.length = length - 1;
        if (t.isArray() && e.length > kMaxObjectBytes)
            return detail::decodeError(at, "array length " + std::to_string(e.length) + " of object " +
                                               std::to_string(id) + " is absurd");
        if (size == 0) size = t.isArray() ? arrayBytes(t, e.length, alignment) : t.instance_size;
        if (size == 0 || size > kMaxObjectBytes)
            return detail::decodeError(at, "object " + std::to_string(id) + " of type " + printable(t.name) +
                                               " has no valid size (" + std::to_string(size) + ")");
        e.size = size;
        v.onObject(e, at);
    }
    if (r.failed())
        return detail::decodeError(r.failOffset(), std::string("objects record: ") + r.failReason());
    return {};
}

struct RootsHeader {
    uint32_t gc = 0;
    uint64_t refs_chunks = 0;  // REFS chunks of this snapshot
    uint64_t sources = 0;      // objects with outgoing edges listed
    uint64_t edges = 0;
    uint64_t roots = 0;
    // A sampled trace's snapshot (format 2): its OBJECTS chunks and the objects they list.
    uint64_t unsampled_chunks = 0, unsampled = 0;
};

// A ROOTS visitor provides: void onRoot(const Root& root, size_t offset);
// `sampled`: the trace is sampled (TraceHeader::sampled), whose ROOTS header has two more counts.
template <class Visitor>
DecodeStatus decodeRoots(std::span<const uint8_t> payload, const SymbolTable& symbols, bool sampled,
                         RootsHeader* header, Visitor& v) {
    ByteReader r(payload.data(), payload.size());
    uint64_t gc = r.varint();
    header->refs_chunks = r.varint();
    header->sources = r.varint();
    header->edges = r.varint();
    header->roots = r.varint();
    if (sampled) {
        header->unsampled_chunks = r.varint();
        header->unsampled = r.varint();
    }
    if (r.failed())
        return detail::decodeError(r.failOffset(), std::string("roots chunk header: ") + r.failReason());
    if (gc > 0x7fffffff)
        return detail::decodeError(0, "roots chunk: GC index " + std::to_string(gc) + " is absurd");
    if (header->roots > r.remaining())
        return detail::decodeError(0,
                                   "roots chunk: root count " + std::to_string(header->roots) + " is absurd");
    header->gc = static_cast<uint32_t>(gc);
    uint64_t target = 0;
    uint64_t seen = 0;
    while (!r.atEnd()) {
        const size_t at = r.offset();
        Root root;
        root.kind = r.varint32();
        target += static_cast<uint64_t>(r.svarint());
        root.target = target;
        root.detail_count = r.varint32();
        if (r.failed()) break;
        if (root.detail_count > format::kMaxRootDetails)
            return detail::decodeError(
                at, "root with " + std::to_string(root.detail_count) + " details (at most 8)");
        for (uint32_t i = 0; i < root.detail_count; ++i)
            root.details[i] = r.varint();
        if (r.failed()) break;
        if (!symbols.hasRootKind(root.kind))
            return detail::decodeError(at, "root kind " + std::to_string(root.kind) + " is not defined");
        ++seen;
        v.onRoot(root, at);
    }
    if (r.failed()) return detail::decodeError(r.failOffset(), std::string("root record: ") + r.failReason());
    if (seen != header->roots)
        return detail::decodeError(0, "roots chunk lists " + std::to_string(seen) +
                                          " roots, its header says " + std::to_string(header->roots));
    return {};
}

}  // namespace memcity
