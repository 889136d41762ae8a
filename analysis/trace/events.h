// Decoded trace events, as the writer takes them and the decoder hands them out.
// Units: times in nanoseconds since the start of the trace; sizes in bytes.
#pragma once

#include <cstdint>
#include <initializer_list>

namespace memcity {

inline constexpr uint64_t kNoLength = ~uint64_t{0};

struct AllocEvent {
    uint64_t id = 0;              // object id; ids increase with allocation time
    uint32_t type = 0;            // type id (must be defined)
    uint32_t site = 0;            // site id, 0 = unknown
    uint32_t thread = 0;          // allocating thread id, 0 = unknown (from the last THREAD event)
    uint64_t length = kNoLength;  // array length; kNoLength for instances
    uint64_t size = 0;            // bytes; 0 = "as the type's layout says" (writer), decoded value otherwise
    uint64_t address = 0;         // 0 = not recorded
    int64_t time_ns = 0;

    bool isArray() const { return length != kNoLength; }
};

struct GcStartEvent {
    uint32_t gc = 0;     // GC index: 0, 1, 2... in order
    uint8_t kind = 0;    // format::GcKind
    uint32_t cause = 0;  // string id, 0 = unknown
    int64_t time_ns = 0;
};

struct GcEndEvent {
    uint32_t gc = 0;
    int64_t time_ns = 0;
    uint64_t next_object_id = 0;    // every object with a smaller id was allocated before this GC ended
    uint64_t heap_used_before = 0;  // bytes, as the VM reports them (0 = unknown)
    uint64_t heap_used_after = 0;
    uint64_t heap_committed = 0;
    uint64_t pause_ns = 0;  // stop-the-world time of this GC
};

struct ThreadEvent {
    uint32_t thread = 0;
    int64_t time_ns = 0;
};

struct MoveEvent {
    uint64_t id = 0;
    uint64_t address = 0;
};

// One outgoing reference of a snapshot.
struct Edge {
    uint64_t target = 0;   // object id
    uint32_t field = 0;    // field id, 0 = array element or unnamed
    uint8_t strength = 0;  // format::RefStrength
};

// One GC root of a snapshot. Details depend on the kind (docs/trace-format.md).
struct Root {
    uint32_t kind = 0;    // root kind id (format::RootKind or a ROOT_KIND symbol)
    uint64_t target = 0;  // object id
    uint32_t detail_count = 0;
    uint64_t details[8] = {};

    // A root with up to eight details.
    static Root make(uint32_t kind, uint64_t target, std::initializer_list<uint64_t> details) {
        Root r;
        r.kind = kind;
        r.target = target;
        for (uint64_t d : details)
            if (r.detail_count < 8) r.details[r.detail_count++] = d;
        return r;
    }
};

}  // namespace memcity
