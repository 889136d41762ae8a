// ClassRegistry: what the agent knows about the JVM's classes. Every class is tagged with
// kClassTagBit | its registry index when it is prepared (or first met), so the allocation path
// finds it with one GetTag. Its TYPE symbol (and its fields' FIELD symbols) are written the
// first time the trace needs them, which keeps symbol ids dense.
//
// Every class is one entry, also two array classes of one signature from different loaders:
// each has a java.lang.Class object of its own in the heap (its mirror), which the trace holds
// as an object (ClassEntry::mirror_id).
//
// Locking: registering a class is serialised by a recursive mutex that no VM-thread code ever
// takes, held across the JVMTI calls that read the class (so two threads meeting one class
// agree on one entry); lookups take no lock. Entries never move once added, so they are read
// without a lock by whoever was handed their index.
#pragma once

#include <jvmti.h>

#include <atomic>
#include <cstdint>
#include <functional>
#include <memory>
#include <mutex>
#include <string>
#include <vector>

#include "tags.h"
#include "trace/trace_format.h"

namespace memcity {
class TraceWriter;
}

namespace memcity::agent {

enum class RefKind : uint8_t {
    kNone,     // not a java.lang.ref.Reference
    kWeak,     // WeakReference
    kSoft,     // SoftReference
    kPhantom,  // PhantomReference
    kFinal,    // FinalReference (finalizers)
};

struct FieldEntry {
    std::string name;
    std::string type_name;
    bool is_static = false;
    bool is_reference = false;
    uint32_t symbol = 0;  // field symbol id, set when the owner type is defined
};

struct ClassEntry {
    std::string signature;  // "Ljava/util/HashMap;"
    std::string name;       // "java.util.HashMap"
    format::TypeKind kind = format::TypeKind::kInstance;
    bool is_interface = false;
    uint32_t element_bytes = 0;  // arrays
    uint32_t super = kNoClass;   // registry index
    RefKind ref_kind = RefKind::kNone;
    std::vector<FieldEntry> fields;  // declared by this class, in GetClassFields order
    // The JVMTI field index of a reference from an object of this class (or a static one from
    // the class itself) minus `index_base` indexes `flat`: (declaring class, field) pairs.
    uint32_t index_base = 0;
    std::vector<std::pair<uint32_t, uint32_t>> flat;
    std::vector<uint32_t> interfaces;  // every interface implemented, transitively (registry indices)
    int32_t referent_index = -1;       // JVMTI field index of Reference.referent, -1 if none

    bool variable_size = false;  // java.lang.Class: each mirror has its class's statics inside
    bool provisional = false;    // loaded, not yet prepared: no fields; replaced when prepared
    // A provisional entry and the one that replaced it are one type in the trace: whichever is
    // defined first names it for both (registry indices, kNoClass where there is none).
    uint32_t replaces = kNoClass;
    std::atomic<uint32_t> replaced_by{kNoClass};
    // Untagged objects of this class in the heap are fillers: dead space HotSpot formats as
    // objects (jdk.internal.vm.FillerObject and FillerElement[], or before JDK 19 int[] and
    // java.lang.Object, which are then ambiguous). See ClassRegistry::markFillers.
    bool filler = false;
    // java.lang.Thread or a subclass: its objects are named by their tag in heap walks (roots
    // of threads), so they are always tagged (see Recorder::onAlloc).
    bool thread = false;

    std::atomic<uint32_t> type_id{0};  // the TYPE symbol, 0 until defined
    uint32_t instance_size = 0;        // bytes (instances), fixed by the first allocation
    // The object id of this class's java.lang.Class object in the trace; kNoObject until the
    // recorder has recorded it.
    std::atomic<uint64_t> mirror_id{kNoObject};
};

class ClassRegistry {
public:
    // `reference_bytes`: size of a reference in an array (4 with compressed pointers).
    explicit ClassRegistry(uint32_t reference_bytes = 4) : reference_bytes_(reference_bytes) {}

    void setReferenceBytes(uint32_t bytes) { reference_bytes_ = bytes; }

    // Called once for each entry added, with the registration lock held (so a class's mirror is
    // recorded before another thread can use its entry), and with the object id its mirror
    // already has (a heap walk met it first, or it had a provisional entry), else kNoObject.
    using OnAdded = std::function<void(uint32_t index, jclass klass, uint64_t known_mirror)>;
    void setOnAdded(OnAdded fn) { on_added_ = std::move(fn); }

    // Decides which classes' untagged objects are fillers (ClassEntry::filler), for the classes
    // registered so far and every class registered later: the dedicated filler classes where
    // the JVM has them (from Java 19; call once its start-up classes are registered), int[] and
    // java.lang.Object before.
    void markFillers();

    // The registry index of a class: one GetTag, or on first sight reads the class's
    // signature, fields, superclass and interfaces, registers it and tags it. A class that is
    // loaded but not prepared gets a provisional entry (its name only).
    uint32_t indexOf(jvmtiEnv* jvmti, JNIEnv* jni, jclass klass);
    // The same for a class known to be prepared (at its ClassPrepare event): a provisional entry
    // is replaced by a complete one, which keeps its mirror.
    uint32_t prepared(jvmtiEnv* jvmti, JNIEnv* jni, jclass klass);

    // Registry index from a class tag (kNoClass if it is not one of ours).
    static uint32_t indexFromTag(jlong tag) {
        return (tag & kClassTagBit) ? static_cast<uint32_t>(tag & 0xffffffff) : kNoClass;
    }

    const ClassEntry& operator[](uint32_t index) const {
        return *entries_[index >> kBlockShift][index & kBlockMask];
    }
    ClassEntry& operator[](uint32_t index) { return *entries_[index >> kBlockShift][index & kBlockMask]; }
    size_t size() const { return count_.load(std::memory_order_acquire); }

    // The TYPE symbol of a class, writing it (with its superclasses and fields) on first use.
    // `instance_size` fixes an instance type's size when it is the first to define it (0 if
    // unknown). `write` runs its argument with the trace writer locked.
    using WithWriter = std::function<void(const std::function<void(TraceWriter&)>&)>;
    uint32_t typeId(uint32_t index, uint64_t instance_size, const WithWriter& write);

    // The FIELD symbol of a JVMTI field index of a reference from an object (or, for statics,
    // the class itself) of class `index`; 0 when it cannot be mapped.
    uint32_t fieldSymbol(uint32_t index, int32_t jvmti_index, const WithWriter& write);
    // Whether that field is java.lang.ref.Reference.referent.
    bool isReferent(uint32_t index, int32_t jvmti_index) const;

private:
    static constexpr unsigned kBlockShift = 10;
    static constexpr uint32_t kBlockMask = (1u << kBlockShift) - 1;
    static constexpr size_t kMaxBlocks = 4096;  // 4 million classes

    // With prepare_mutex_ held; `complete`: replace a provisional entry.
    uint32_t registerLocked(jvmtiEnv* jvmti, JNIEnv* jni, jclass klass, bool complete);
    uint32_t add(std::unique_ptr<ClassEntry> entry);
    uint32_t defineLocked(uint32_t index, uint64_t instance_size, TraceWriter& w);
    // FIELD symbols of the entry's own fields, for its type `type`.
    void defineFields(ClassEntry& e, uint32_t type, TraceWriter& w);

    uint32_t reference_bytes_;
    std::recursive_mutex prepare_mutex_;  // registering classes (superclasses recursively)
    std::mutex define_mutex_;             // TYPE/FIELD definitions
    OnAdded on_added_;
    std::unique_ptr<std::unique_ptr<std::unique_ptr<ClassEntry>[]>[]> entries_ {
        new std::unique_ptr<std::unique_ptr<ClassEntry>[]>[ kMaxBlocks ]
    };
    std::atomic<size_t> count_{0};
    uint32_t next_type_ = 0, next_field_ = 0;
    std::atomic<int> filler_mode_{1};  // 1 dedicated filler classes, 2 int[] and Object
    bool isFiller(const std::string& name) const;
};

}  // namespace memcity::agent
