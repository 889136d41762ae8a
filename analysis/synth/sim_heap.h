// SimHeap: a small simulated Java heap that writes a real .mct trace. Scenarios are written like
// Java programs against it: classes with fields, objects, static fields and stack locals as GC
// roots, weak references. Collections happen at safepoints: when the allocations since the last
// GC exceed the young generation, or on an explicit gc() call ("System.gc()"). A collection marks
// everything reachable from the roots, so which objects die, and when, follows from the program,
// exactly as in a JVM. The layout model is a 64-bit HotSpot with compressed pointers: 12-byte
// object headers, 16-byte array headers, 4-byte references, 8-byte alignment.
//
// Its layout is Serial's (docs/heapmap.md): eden, two survivor spaces of an eighth of it each,
// and an old space above them. New objects are bumped into eden (one over half of eden straight
// into the old space); a young GC copies eden's and the from-space's survivors, in address
// order, into the to-space, or promotes them to the old space's top once they have survived
// kTenureAge GCs or the to-space is full; the old space's dead stay in place as holes until a
// full GC ("System.gc()") slides every live object to its bottom. Every GC writes the spaces
// (GC_SPACES), every fourth snapshot GC and every explicit one the objects' addresses (ADDRS).
//
// Time is simulated: allocations, explicit work() and GC pauses advance a clock, so a scenario
// gives the same trace, byte for byte, on every run.
#pragma once

#include <cstdint>
#include <initializer_list>
#include <map>
#include <span>
#include <string>
#include <string_view>
#include <vector>

#include "trace/trace_writer.h"

namespace memcity::synth {

// A reference to a simulated object: its slot in the heap's object table. Contract: a Ref is
// only used while the object is reachable (a scenario keeps what it needs reachable from roots).
using Ref = uint32_t;
inline constexpr Ref kNull = ~uint32_t{0};

enum class FieldKind : uint8_t {
    kRef,      // a strong reference
    kWeakRef,  // the referent of a java.lang.ref.WeakReference: not traced, cleared when it dies
    kBool,
    kByte,
    kChar,
    kShort,
    kInt,
    kFloat,
    kLong,
    kDouble,
};

struct FieldSpec {
    std::string_view name;
    std::string_view type_name;  // declared type, e.g. "java.util.HashMap$Node[]"
    FieldKind kind = FieldKind::kRef;
};

struct FrameSpec {
    uint32_t method = 0;
    int32_t line = -1;
};

struct SimOptions {
    uint64_t young_bytes = 1u << 20;       // allocation volume that triggers a minor GC at a safepoint
    uint32_t refs_every = 1;               // reference snapshot after every Nth GC; 0 = none
    int64_t alloc_ns = 30;                 // time cost of one allocation...
    int64_t alloc_ns_per_kb = 40;          // ... plus this per KiB allocated
    int64_t pause_base_ns = 150'000;       // GC pause: fixed part
    int64_t pause_ns_per_kb_copied = 900;  // ... plus this per KiB of young objects that survive
    int64_t pause_ns_per_kb_live = 8;      // ... plus this per KiB of the whole live heap
    uint64_t heap_base = 0xe0000000;       // the address of eden's bottom
    // A sampled trace (heap/sampling.h): only objects the JVM's heap sampler would pick at this
    // mean interval (bytes) are written, each with probability 1 - exp(-size / interval) drawn
    // from `sampling_seed` (the program itself runs the same), and every explicit GC writes the
    // exact count of each type's objects (GC_CENSUS). 0: every object.
    uint64_t sampling_interval = 0;
    uint64_t sampling_seed = 1;
};

// What one GC did (for scenario bookkeeping and docs).
struct SimGcInfo {
    uint32_t index = 0;
    bool explicit_gc = false;
    uint64_t live_objects = 0, live_bytes = 0;
    uint64_t freed_objects = 0, freed_bytes = 0;
    int64_t start_ns = 0, end_ns = 0;
};

class SimHeap {
public:
    SimHeap(TraceWriter& out, const SimOptions& options);

    // ---- Classes and symbols ----
    // A class with the given declared fields after those of `super_type` (0: java.lang.Object).
    uint32_t defineClass(std::string_view name, std::initializer_list<FieldSpec> fields,
                         uint32_t super_type = 0);
    // An array type; `element` is a primitive kind or kRef (then `element_type` names the element class).
    uint32_t defineArray(std::string_view name, FieldKind element, uint32_t element_type = 0);
    uint32_t defineMethod(std::string_view class_name, std::string_view name, std::string_view signature,
                          std::string_view source_file);
    // An allocation site: frames innermost first. The same frames give the same site.
    uint32_t site(std::span<const FrameSpec> frames);
    uint32_t site(std::initializer_list<FrameSpec> frames) {
        return site(std::span<const FrameSpec>(frames.begin(), frames.size()));
    }
    uint32_t defineString(std::string_view s);
    // Creates a thread (with its java.lang.Thread object, a THREAD root while it runs).
    uint32_t startThread(std::string_view name, bool daemon = false);
    void endThread(uint32_t thread);
    uint32_t instanceSize(uint32_t type) const { return types_[type].instance_size; }
    uint64_t arraySize(uint32_t type, uint64_t length) const;
    // Index of a reference field of a class (counting inherited fields), for get/set.
    uint32_t refSlot(uint32_t type, std::string_view field) const;

    // ---- Objects ----
    void setThread(uint32_t thread) { thread_ = thread; }
    uint32_t currentThread() const { return thread_; }
    Ref alloc(uint32_t type, uint32_t site);
    Ref allocArray(uint32_t type, uint32_t site, uint32_t length);
    // Reference slot `slot` of an object: the n-th reference field of an instance, or element n
    // of a reference array.
    void set(Ref obj, uint32_t slot, Ref value);
    Ref get(Ref obj, uint32_t slot) const;
    uint32_t refCount(Ref obj) const { return objects_[obj].nrefs; }
    uint64_t idOf(Ref obj) const { return objects_[obj].id; }
    uint32_t typeOf(Ref obj) const { return objects_[obj].type; }
    uint64_t sizeOf(Ref obj) const { return objects_[obj].size; }
    uint32_t lengthOf(Ref obj) const { return objects_[obj].length; }

    // ---- Roots ----
    // A static field of `owner`, holding `value`; returns a handle for setStatic.
    uint32_t defineStatic(uint32_t owner, std::string_view name, std::string_view type_name,
                          Ref value = kNull);
    void setStatic(uint32_t handle, Ref value);
    Ref getStatic(uint32_t handle) const { return statics_[handle].value; }
    // A local variable slot of a stack frame of `thread` (a root while set).
    void setLocal(uint32_t thread, uint32_t method, uint32_t slot, uint32_t depth, Ref value);
    void clearLocals(uint32_t thread);

    // ---- Time and collection ----
    void work(int64_t ns) { clock_ += ns; }
    int64_t now() const { return clock_; }
    // Collects if the young generation is full.
    void safepoint();
    // An explicit collection ("System.gc()"); returns its index.
    uint32_t gc();
    // Finishes the run: ends the threads. The caller closes the writer.
    void finish();

    const std::vector<SimGcInfo>& gcs() const { return gcs_; }
    uint64_t liveObjects() const { return live_objects_; }
    TraceWriter& writer() { return out_; }

private:
    struct TypeData {
        uint32_t instance_size = 0;
        bool is_array = false;
        bool ref_elements = false;
        uint32_t element_size = 0;
        std::vector<uint32_t> ref_fields;  // field symbol id of each reference slot
        std::vector<uint8_t> weak;         // per reference slot: weak referent
        std::vector<std::string> ref_names;
    };
    struct Object {
        uint64_t id = 0;
        uint32_t type = 0;
        uint32_t nrefs = 0;
        uint32_t refs = 0;    // first slot in refs_
        uint32_t length = 0;  // arrays
        uint64_t size = 0;
        uint32_t birth_gc = 0;  // number of GCs before its birth
        bool used = false;
        bool recorded = true;  // in the trace: always, but where a sampled trace left it out
        uint8_t age = 0;       // young GCs survived
        uint64_t address = 0;
    };
    // The simulated layout: where each space is (see the top of this file).
    enum Space : uint8_t { kEden, kSurvivor0, kSurvivor1, kOld, kSpaces };
    static constexpr uint8_t kTenureAge = 2;
    struct SpaceData {
        uint64_t bottom = 0, top = 0, end = 0;
        uint64_t top_before = 0;  // at the last GC's start
    };
    uint64_t place(Space space, uint64_t size);  // bumps `size` bytes at the space's top
    void moveObjects(bool full);
    void writeLayout(uint32_t gc, bool addresses);
    struct Static {
        uint32_t owner = 0, field = 0;
        Ref value = kNull;
    };
    struct Local {
        uint32_t thread = 0, method = 0, slot = 0, depth = 0;
        Ref value = kNull;
    };
    struct ThreadData {
        uint32_t id = 0;
        Ref object = kNull;
        bool running = false;
    };

    Ref newObject(uint32_t type, uint32_t site, uint32_t nrefs, uint32_t length, uint64_t size, bool array);
    void collect(bool explicit_gc);
    void mark();
    void writeSnapshot(uint32_t gc);
    uint32_t nextSymbol(uint32_t& counter) { return ++counter; }

    std::map<std::vector<std::pair<uint32_t, int32_t>>, uint32_t> sites_;
    TraceWriter& out_;
    SimOptions options_;
    std::vector<TypeData> types_;
    std::vector<Object> objects_;
    std::vector<Ref> free_slots_;
    std::vector<Ref> refs_;  // reference slots of all objects
    std::vector<uint8_t> marks_;
    std::vector<Static> statics_;
    std::vector<Local> locals_;
    std::vector<ThreadData> threads_;
    std::vector<SimGcInfo> gcs_;

    uint32_t next_type_ = 0, next_field_ = 0, next_method_ = 0, next_site_ = 0, next_string_ = 0,
             next_thread_ = 0;
    uint32_t thread_type_ = 0, thread_site_ = 0;
    uint64_t next_id_ = 0;
    // A sampled snapshot's unsampled objects' ids: above any object's of the run.
    uint64_t next_snapshot_id_ = uint64_t{1} << 40;
    uint64_t sampler_ = 0;  // the sampling draws' splitmix64 state
    // A sampled trace's draw for an object of `size` bytes.
    bool sampleNext(uint64_t size);
    // The census of an explicit GC of a sampled trace: every type's live objects, recorded or not.
    void writeCensus(uint32_t gc);
    uint32_t thread_ = 0;
    int64_t clock_ = 0;
    uint64_t young_allocated_ = 0;
    uint64_t live_objects_ = 0, live_bytes_ = 0;  // as of the last GC, plus allocations since
    uint64_t bytes_since_gc_ = 0;
    uint64_t vm_live_after_ = 0;
    SpaceData spaces_[kSpaces];
    Space from_ = kSurvivor0;  // the survivor space that holds objects; the other is empty
};

}  // namespace memcity::synth
