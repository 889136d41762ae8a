#include "heap_walk.h"

#include <algorithm>
#include <cmath>
#include <vector>

#include "jvmti_util.h"
#include "recorder.h"
#include "trace/extensions.h"

namespace memcity::agent {
namespace {

struct Unseen {
    uint64_t id;
    uint32_t class_index;
    uint64_t size;
    uint64_t length;
};

// ---- Objects that exist when recording begins ----
//
// Reachable objects first: a reference walk marks every object a root reaches. Then the rest of
// the heap, unmarked objects that no reported root reaches: live objects HotSpot holds through
// roots it does not report (some interned strings, CDS archived objects), and garbage not yet
// collected, which dies at the first GC. Fillers are no objects at all: HotSpot writes a dummy
// array (or object) over the unused end of each thread's allocation buffer so that the heap can
// be walked, and the thread then goes on allocating over it. A tag on a filler would pass to the
// object allocated where it began, and its id would never die; fillers stay untagged.
//
// The walks only mark (two tags, with kWeakTagBit: their ObjectFree is nobody's); the marked
// objects are then fetched by tag, and each gets its id and a weak reference, as an object
// allocated later does, so that its death is told at exactly the GC that frees it.

constexpr jlong kExistingReachable = kWeakTagBit, kExistingOther = kWeakTagBit | kAliasTagBit;

jint JNICALL onExistingReference(jvmtiHeapReferenceKind, const jvmtiHeapReferenceInfo*, jlong class_tag,
                                 jlong, jlong, jlong* tag_ptr, jlong*, jint, void*) {
    if (*tag_ptr == kAgentObjectTag) return 0;
    if (*tag_ptr == 0 && ClassRegistry::indexFromTag(class_tag) != kNoClass) *tag_ptr = kExistingReachable;
    return JVMTI_VISIT_OBJECTS;
}

jint JNICALL onExistingObject(jlong class_tag, jlong, jlong* tag_ptr, jint, void* user_data) {
    auto* r = static_cast<Recorder*>(user_data);
    const uint32_t ci = ClassRegistry::indexFromTag(class_tag);
    if (ci != kNoClass && !r->classes()[ci].filler) *tag_ptr = kExistingOther;
    return JVMTI_VISIT_OBJECTS;
}

// A sampled recording picks the objects already there as the heap sampler picks allocations: one
// of s bytes with probability 1 - exp(-s / interval), so that each stands for as many as a
// sample of its size does (analysis/heap/sampling.h).
struct ExistingSampler {
    Recorder* recorder;
    double interval;
    uint64_t state;  // xorshift64*
    double uniform() {
        state ^= state >> 12;
        state ^= state << 25;
        state ^= state >> 27;
        return static_cast<double>((state * 0x2545F4914F6CDD1Dull) >> 11) * 0x1.0p-53;
    }
};

jint JNICALL onExistingSample(jlong class_tag, jlong size, jlong* tag_ptr, jint, void* user_data) {
    auto* s = static_cast<ExistingSampler*>(user_data);
    const uint32_t ci = ClassRegistry::indexFromTag(class_tag);
    if (ci == kNoClass || s->recorder->classes()[ci].filler || ci == s->recorder->classOfClass())
        return JVMTI_VISIT_OBJECTS;
    if (s->uniform() < -std::expm1(-static_cast<double>(size) / s->interval)) *tag_ptr = kExistingOther;
    return JVMTI_VISIT_OBJECTS;
}

// ---- Objects allocated since a GC, told by address ----

// The address of the object a heap callback is called for, or 0 where it cannot be read.
// HotSpot calls both kinds of callback with `tag_ptr` pointing into the CallbackWrapper that
// holds the object (jvmtiTagMap.cpp: `oop _o; jlong _obj_size; jlong _obj_tag;`, in that order,
// on JDK 17 to 25): the word before the tag is the size it passed, the one before that the
// object. A size that does not match, or an address that is not 8-byte aligned, says the layout
// is another, and nothing is read.
uint64_t objectAddress(const jlong* tag_ptr, jlong size) {
    const auto* words = reinterpret_cast<const uint64_t*>(tag_ptr);
    if (words[-1] != static_cast<uint64_t>(size)) return 0;
    const uint64_t address = words[-2];
    return (address & 7) == 0 ? address : 0;
}

// The referrer's address in a FollowReferences callback (JDK 17 to 25): HotSpot's wrapper keeps
// the referrer's oop right before the referrer tag whose address it passes. 0 where that word is
// no aligned address; one that is no object the walk listed is not used (Walk::isListed).
uint64_t referrerAddress(const jlong* referrer_tag_ptr) {
    const uint64_t address = reinterpret_cast<const uint64_t*>(referrer_tag_ptr)[-1];
    return (address & 7) == 0 ? address : 0;
}

// Where the collector's spaces (or G1's regions) were filled to at a GC's end: an object that
// lies past its space's top then was allocated since. A sampled recording's untagged objects are
// either, and heap iterations tell them apart so.
struct BoundsAtGc {
    std::span<const SpaceBounds> at_gc;  // as the GC callback left them
    std::vector<SpaceBounds> sorted;     // in address order (G1's regions: thousands)

    bool known() const { return !at_gc.empty(); }
    // Inside the iteration's safepoint, where no GC runs (the GC callback writes G1's between GCs).
    void copy() {
        sorted.assign(at_gc.begin(), at_gc.end());
        std::sort(sorted.begin(), sorted.end(),
                  [](const SpaceBounds& a, const SpaceBounds& b) { return a.bottom < b.bottom; });
    }
    // Whether an object at `address` was there at the GC: below the top its space had then.
    bool thereAtGc(uint64_t address) const {
        auto after = std::upper_bound(sorted.begin(), sorted.end(), address,
                                      [](uint64_t a, const SpaceBounds& s) { return a < s.bottom; });
        if (after == sorted.begin()) return false;
        const SpaceBounds& b = *(after - 1);
        return address < b.top;
    }
};

// ---- The reference snapshot ----

struct RawRoot {
    uint32_t kind;  // format::RootKind
    uint64_t target;
    jlong thread_tag = 0;
    jmethodID method = nullptr;
    jlocation location = 0;
    jint depth = 0, slot = 0;
    uint32_t class_index = kNoClass;
    int32_t field_index = -1;
};

struct Walk {
    Recorder* recorder = nullptr;
    uint32_t gc = 0;
    uint64_t watermark = 0;       // the GC's next object id: objects from it on were born after it
    uint64_t source = kNoObject;  // the object whose references are being collected
    std::vector<Edge> edges;      // ...its references so far
    std::vector<RawRoot> roots;
    std::vector<Unseen> unseen;
    // The thread whose roots are being reported: HotSpot reports a thread, then its stack's
    // references, which name a thread untagged before the walk with tag 0 on JDK 21+.
    jlong thread_tag = 0;

    // A sampled recording's walk names every object it reaches: the samples by their ids, the
    // rest (untagged, and there at the GC by their addresses) by their addresses, listed in the
    // snapshot's OBJECTS chunks; class mirrors too, by ids of this snapshot's. Not by tags: a
    // tag on every object fills JVMTI's tag map, and HotSpot looks up both ends of every
    // reference there (most of a walk's time, and a census's to take them off again).
    bool sampled = false;
    BoundsAtGc bounds;
    bool checked = false;               // the first callback's checks were made
    const char* failed = nullptr;       // why the walk was abandoned (a sampled one), or null
    bool failed_lasting = false;        // for a reason that holds at every GC
    std::vector<AllocEvent> unsampled;  // written in batches
    uint64_t unsampled_count = 0;
    uint64_t unreached = 0;            // of them, listed after the walk, which did not reach them
    std::vector<uint64_t> mirror_ids;  // per registry index: this snapshot's id of its mirror, or kNoObject
    // The listed objects: a bit per 8-byte word of the heap from heap_lo (its lowest space).
    uint64_t heap_lo = 0;
    std::vector<uint64_t> listed;
    // References from untagged objects: their referrer found listed, or not (HotSpot's layout
    // is not the one objectAddress reads: the walk is dropped).
    uint64_t referrers_listed = 0, referrers_unknown = 0;

    // Inside the walk's safepoint, at its first callback.
    void startListing() {
        bounds.copy();
        if (bounds.sorted.empty()) return;
        heap_lo = bounds.sorted.front().bottom;
        uint64_t hi = heap_lo;
        for (const SpaceBounds& b : bounds.sorted)
            hi = std::max(hi, b.top);
        listed.assign((((hi - heap_lo) >> 3) >> 6) + 1, 0);
    }
    // `address` is an object's there at the GC (BoundsAtGc::thereAtGc).
    uint64_t unsampledId(uint64_t address) const { return kUnsampledIdBase + ((address - heap_lo) >> 3); }
    bool isListed(uint64_t address) const {
        if (address < heap_lo) return false;
        const uint64_t k = (address - heap_lo) >> 3;
        return (k >> 6) < listed.size() && ((listed[k >> 6] >> (k & 63)) & 1);
    }
    void markListed(uint64_t address) {
        const uint64_t k = (address - heap_lo) >> 3;
        listed[k >> 6] |= uint64_t{1} << (k & 63);
    }

    // An object of class `ci` that is no sample, named `id`.
    void addUnsampled(uint64_t id, uint32_t ci, jlong size, jint length) {
        Recorder& r = *recorder;
        AllocEvent e;
        e.id = id;
        e.type = r.classes().typeId(ci, static_cast<uint64_t>(size), r.writerAccess());
        const uint64_t n = length < 0 ? 0 : static_cast<uint64_t>(length);
        if (r.classes()[ci].kind != format::TypeKind::kInstance) e.length = n;
        e.size = static_cast<uint64_t>(size) == r.expectedSize(ci, e.isArray() ? n : 0)
                     ? 0
                     : static_cast<uint64_t>(size);
        unsampled.push_back(e);
        ++unsampled_count;
        if (unsampled.size() >= 4096) flushUnsampled();
    }
    void flushUnsampled() {
        if (unsampled.empty()) return;
        recorder->withWriter([&](TraceWriter& w) {
            for (const AllocEvent& e : unsampled)
                w.snapshotUnsampled(e);
        });
        unsampled.clear();
    }

    void flush() {
        if (source == kNoObject) return;
        if (!edges.empty()) recorder->withWriter([&](TraceWriter& w) { w.snapshotObject(source, edges); });
        edges.clear();
        source = kNoObject;
    }
};

uint8_t strengthOf(RefKind k) {
    switch (k) {
        case RefKind::kWeak: return static_cast<uint8_t>(format::RefStrength::kWeak);
        case RefKind::kSoft: return static_cast<uint8_t>(format::RefStrength::kSoft);
        case RefKind::kPhantom:
        case RefKind::kFinal: return static_cast<uint8_t>(format::RefStrength::kPhantom);
        case RefKind::kNone: break;
    }
    return static_cast<uint8_t>(format::RefStrength::kStrong);
}

// Runs on the VM thread inside a safepoint: no JVMTI or JNI, only the registries and the writer.
jint JNICALL onReference(jvmtiHeapReferenceKind kind, const jvmtiHeapReferenceInfo* info, jlong class_tag,
                         jlong referrer_class_tag, jlong size, jlong* tag_ptr, jlong* referrer_tag_ptr,
                         jint length, void* user_data) {
    auto* w = static_cast<Walk*>(user_data);
    Recorder& r = *w->recorder;
    if (w->sampled && !w->checked) {
        w->checked = true;
        // Its untagged objects are told by the spaces' tops at its GC: another GC since moved
        // them all.
        if (r.gcsFinished() != uint64_t{w->gc} + 1) {
            w->failed = "another GC came first";
            return JVMTI_VISIT_ABORT;
        }
        w->startListing();
    }
    const uint32_t target_class = ClassRegistry::indexFromTag(class_tag);
    const jlong tag_before = *tag_ptr;
    uint64_t listed_id = kNoObject;  // a sampled walk's name for an object that is no sample
    if (tag_before == 0) {
        // An object nobody reported (a class mirror too, of a class not registered yet: its
        // registration adopts the id).
        if (target_class == kNoClass) return JVMTI_VISIT_OBJECTS;
        if (w->sampled) {
            // No sample: there at the GC, or allocated since (past its space's top then), which
            // is neither named nor followed, as below.
            const uint64_t address = objectAddress(tag_ptr, size);
            if (address == 0) {
                w->failed = "this JVM's heap callbacks do not give objects' addresses";
                w->failed_lasting = true;
                return JVMTI_VISIT_ABORT;
            }
            if (!w->bounds.thereAtGc(address)) return 0;
            listed_id = w->unsampledId(address);
            if (!w->isListed(address)) {  // (met once per reference to it, followed once)
                w->markListed(address);
                w->addUnsampled(listed_id, target_class, size, length);
            }
        } else {
            uint64_t id = r.walkObjectId();
            *tag_ptr = static_cast<jlong>(id + 1);
            w->unseen.push_back({id, target_class, static_cast<uint64_t>(size),
                                 length < 0 ? 0 : static_cast<uint64_t>(length)});
        }
    }
    const jlong tag = *tag_ptr;
    if (tag == kAgentObjectTag) return 0;  // the agent's: neither recorded nor followed
    uint64_t target = listed_id != kNoObject ? listed_id : objectIdOfTag(tag);
    if (tag & kClassTagBit) {
        // A class's mirror: the object recorded for it (its statics are walked either way). A
        // sampled recording records none: the snapshot names it, once.
        const uint32_t mirror_of = ClassRegistry::indexFromTag(tag);
        target = r.classes()[mirror_of].mirror_id.load(std::memory_order_acquire);
        if (target == kNoObject && w->sampled) {
            if (mirror_of >= w->mirror_ids.size()) w->mirror_ids.resize(size_t{mirror_of} + 1, kNoObject);
            uint64_t& id = w->mirror_ids[mirror_of];
            const uint64_t address = id == kNoObject ? objectAddress(tag_ptr, size) : 0;
            if (id == kNoObject && address != 0 && w->bounds.thereAtGc(address) && target_class != kNoClass) {
                id = r.snapshotObjectId();
                w->addUnsampled(id, target_class, size, length);
            }
            target = id;
        }
        if (target == kNoObject) return JVMTI_VISIT_OBJECTS;
    }
    const jlong referrer = referrer_tag_ptr ? *referrer_tag_ptr : 0;
    if (kind == JVMTI_HEAP_REFERENCE_THREAD) w->thread_tag = tag;  // its stack's references follow
    // The walk runs a while after its GC, and the program allocates meanwhile: an object born
    // after the GC is no part of its heap. Neither named nor followed, as if the walk had run at
    // the GC (what only it reaches was reached through older objects then, or was garbage). (A
    // sampled snapshot's names for the rest lie above every sample's, but they were there.)
    if (listed_id == kNoObject && target >= w->watermark && !(w->sampled && (tag & kClassTagBit))) return 0;

    switch (kind) {
        case JVMTI_HEAP_REFERENCE_FIELD:
        case JVMTI_HEAP_REFERENCE_ARRAY_ELEMENT: {
            uint64_t from = kNoObject;
            if (referrer > 0 && !(referrer & kClassTagBit)) {
                from = objectIdOfTag(referrer);
            } else if (referrer == 0 && w->sampled) {
                // An object the walk listed: by its address, which HotSpot keeps right before
                // the referrer's tag it passes (or the object itself, for a reference to self).
                const uint64_t address = referrer_tag_ptr == tag_ptr ? objectAddress(tag_ptr, size)
                                                                     : referrerAddress(referrer_tag_ptr);
                if (!w->isListed(address)) {
                    ++w->referrers_unknown;  // (an object of a class not registered: not listed)
                    break;
                }
                ++w->referrers_listed;
                from = w->unsampledId(address);
            }
            if (from == kNoObject) break;
            if (from != w->source) {
                w->flush();
                w->source = from;
            }
            Edge e;
            e.target = target;
            if (kind == JVMTI_HEAP_REFERENCE_FIELD) {
                const uint32_t ci = ClassRegistry::indexFromTag(referrer_class_tag);
                e.field = r.classes().fieldSymbol(ci, info->field.index, r.writerAccess());
                if (r.classes().isReferent(ci, info->field.index))
                    e.strength = strengthOf(r.classes()[ci].ref_kind);
            }
            w->edges.push_back(e);
            break;
        }
        case JVMTI_HEAP_REFERENCE_STATIC_FIELD: {
            RawRoot root{static_cast<uint32_t>(format::RootKind::kStaticField), target};
            root.class_index = ClassRegistry::indexFromTag(referrer);
            root.field_index = info->field.index;
            w->roots.push_back(root);
            break;
        }
        case JVMTI_HEAP_REFERENCE_CLASS_LOADER:
        case JVMTI_HEAP_REFERENCE_SIGNERS:
        case JVMTI_HEAP_REFERENCE_PROTECTION_DOMAIN:
        case JVMTI_HEAP_REFERENCE_CONSTANT_POOL: {
            // Held by a class's metadata (its loader, its resolved constants): a system class root.
            RawRoot root{static_cast<uint32_t>(format::RootKind::kSystemClass), target};
            root.class_index = ClassRegistry::indexFromTag(referrer);
            w->roots.push_back(root);
            break;
        }
        case JVMTI_HEAP_REFERENCE_STACK_LOCAL: {
            if (info->stack_local.thread_tag == kAgentObjectTag) break;  // the agent's own threads' holds
            RawRoot root{static_cast<uint32_t>(format::RootKind::kStackLocal), target};
            root.thread_tag = info->stack_local.thread_tag ? info->stack_local.thread_tag : w->thread_tag;
            root.depth = info->stack_local.depth;
            root.method = info->stack_local.method;
            root.location = info->stack_local.location;
            root.slot = info->stack_local.slot;
            w->roots.push_back(root);
            break;
        }
        case JVMTI_HEAP_REFERENCE_JNI_LOCAL: {
            if (info->jni_local.thread_tag == kAgentObjectTag) break;
            RawRoot root{static_cast<uint32_t>(format::RootKind::kJniLocal), target};
            root.thread_tag = info->jni_local.thread_tag ? info->jni_local.thread_tag : w->thread_tag;
            root.depth = info->jni_local.depth;
            root.method = info->jni_local.method;
            w->roots.push_back(root);
            break;
        }
        case JVMTI_HEAP_REFERENCE_JNI_GLOBAL:
            w->roots.push_back({static_cast<uint32_t>(format::RootKind::kJniGlobal), target});
            break;
        case JVMTI_HEAP_REFERENCE_SYSTEM_CLASS: {
            // A class the VM always holds: the root is its mirror.
            RawRoot root{static_cast<uint32_t>(format::RootKind::kSystemClass), target};
            root.class_index = ClassRegistry::indexFromTag(tag);
            w->roots.push_back(root);
            break;
        }
        case JVMTI_HEAP_REFERENCE_MONITOR:
            w->roots.push_back({static_cast<uint32_t>(format::RootKind::kMonitor), target});
            break;
        case JVMTI_HEAP_REFERENCE_THREAD: {
            RawRoot root{static_cast<uint32_t>(format::RootKind::kThread), target};
            root.thread_tag = tag;
            w->roots.push_back(root);
            break;
        }
        case JVMTI_HEAP_REFERENCE_OTHER:
            w->roots.push_back({static_cast<uint32_t>(format::RootKind::kOther), target});
            break;
        default: break;  // references to class metadata (class, superclass, interfaces)
    }
    return JVMTI_VISIT_OBJECTS;
}

}  // namespace

ExistingObjects recordExistingObjects(Recorder& r, JNIEnv* jni) {
    ExistingObjects out;
    jvmtiEnv* jvmti = r.jvmti();
    jvmtiError reached = JVMTI_ERROR_NONE, iterated = JVMTI_ERROR_NONE;
    if (r.options().sampled()) {
        // One pass, no reference walk: whether a root reaches a sample matters to no estimate.
        ExistingSampler sampler{&r, static_cast<double>(r.options().interval),
                                0x9E3779B97F4A7C15ull ^ static_cast<uint64_t>(r.now())};
        jvmtiHeapCallbacks pick{};
        pick.heap_iteration_callback = onExistingSample;
        iterated = r.iterateHeap(
            [&] { return jvmti->IterateThroughHeap(JVMTI_HEAP_FILTER_TAGGED, nullptr, &pick, &sampler); });
    } else {
        jvmtiHeapCallbacks reach{};
        reach.heap_reference_callback = onExistingReference;
        reached =
            r.iterateHeap([&] { return jvmti->FollowReferences(0, nullptr, nullptr, &reach, nullptr); });
        jvmtiHeapCallbacks rest{};
        rest.heap_iteration_callback = onExistingObject;
        iterated = r.iterateHeap(
            [&] { return jvmti->IterateThroughHeap(JVMTI_HEAP_FILTER_TAGGED, nullptr, &rest, &r); });
    }
    if (reached != JVMTI_ERROR_NONE || iterated != JVMTI_ERROR_NONE) {
        out.error = reached != JVMTI_ERROR_NONE ? reached : iterated;
        return out;
    }
    // Fetched with local references: each stays alive, whatever GC comes, until it has its weak
    // reference. Their ids are taken in one block, so that a GC meanwhile finds them all born
    // before it.
    const jlong marks[] = {kExistingReachable, kExistingOther};
    jint count = 0;
    JvmtiPtr<jobject> objects(jvmti);
    JvmtiPtr<jlong> tags(jvmti);
    if (jvmtiError err = jvmti->GetObjectsWithTags(2, marks, &count, objects.out(), tags.out());
        err != JVMTI_ERROR_NONE) {
        out.error = err;
        return out;
    }
    const uint64_t first_id = r.newObjectIds(static_cast<uint64_t>(count));
    for (jint i = 0; i < count; ++i) {
        jobject object = objects[static_cast<size_t>(i)];
        const uint64_t id = first_id + static_cast<uint64_t>(i);
        jclass klass = jni->GetObjectClass(object);
        const uint32_t ci = klass ? r.classIndex(jni, klass) : kNoClass;
        if (klass) jni->DeleteLocalRef(klass);
        jlong size = 0, tag = 0;
        // A mirror whose class was registered since the walk (its mirror recorded then) is not
        // one of these.
        const bool registered =
            ci == r.classOfClass() && jvmti->GetTag(object, &tag) == JVMTI_ERROR_NONE && (tag & kClassTagBit);
        if (ci == kNoClass || registered || jvmti->GetObjectSize(object, &size) != JVMTI_ERROR_NONE) {
            if (!registered) jvmti->SetTag(object, 0);  // not the trace's: its id stays unused
            jni->DeleteLocalRef(object);
            continue;
        }
        const bool array = r.classes()[ci].kind != format::TypeKind::kInstance;
        const uint64_t length =
            array ? static_cast<uint64_t>(jni->GetArrayLength(static_cast<jarray>(object))) : 0;
        r.recordUnseen(id, ci, static_cast<uint64_t>(size), length);
        r.trackExisting(jni, object, id, ci);
        ++out.objects;
        out.reachable += tags[static_cast<size_t>(i)] == kExistingReachable;
        jni->DeleteLocalRef(object);
    }
    return out;
}

namespace {

struct Census {
    struct Counts {
        uint64_t objects = 0, bytes = 0, untracked_objects = 0, untracked_bytes = 0, agent_objects = 0,
                 agent_bytes = 0, filler_objects = 0, filler_bytes = 0;
    };
    Recorder* recorder = nullptr;
    uint64_t watermark = 0;
    uint64_t gcs_finished = 0;  // the count must see the heap of this many GCs, no more
    bool stale = false;
    bool checked = false;
    std::vector<Counts> by_class;  // by registry index
    Counts unknown_class;
    GcCensusEvent totals;                   // objects allocated since the GC
    std::vector<Unseen> unseen;             // objects no event announced, alive at the GC: recorded after
    std::vector<uint64_t>* live = nullptr;  // the trace's objects alive at the GC, when asked
    bool adopt = true;                      // untagged objects become the trace's
    // A sampled recording's census: what the trace does not hold is untracked, and an object
    // allocated since the GC is told by its address (see objectAddress), past its space's top.
    bool sampled = false;
    BoundsAtGc bounds;
    bool by_address = false;  // every object so far was placed by its address
    uint64_t ns = 0;

    Counts& of(uint32_t ci) {
        if (ci == kNoClass) return unknown_class;
        if (ci >= by_class.size()) by_class.resize(size_t{ci} + 1);
        return by_class[ci];
    }
};

// Runs on the VM thread inside a safepoint: only the registry and the census's own memory.
jint JNICALL onCensusObject(jlong class_tag, jlong size, jlong* tag_ptr, jint length, void* user_data) {
    auto* c = static_cast<Census*>(user_data);
    if (!c->checked) {
        c->checked = true;
        if (c->recorder->gcsFinished() != c->gcs_finished) {
            c->stale = true;
            return JVMTI_VISIT_ABORT;
        }
        // Inside the iteration's safepoint no GC runs: the bounds the GC callback wrote hold.
        if (c->by_address) c->bounds.copy();
    }
    const auto bytes = static_cast<uint64_t>(size);
    const uint32_t ci = ClassRegistry::indexFromTag(class_tag);
    jlong tag = *tag_ptr;
    if (c->sampled && (tag == 0 || (tag & kClassTagBit))) {
        // Not the trace's (a mirror is never a sample): allocated since the GC, or untracked.
        if (c->by_address) {
            const uint64_t address = objectAddress(tag_ptr, size);
            if (address == 0) {  // no object's address: the layout is another
                c->by_address = false;
            } else if (!c->bounds.thereAtGc(address)) {
                c->totals.newer_objects++;
                c->totals.newer_bytes += bytes;
                return JVMTI_VISIT_OBJECTS;
            }
        }
        if (tag == kAgentObjectTag) {
            Census::Counts& n = c->of(ci);
            n.agent_objects++;
            n.agent_bytes += bytes;
            return JVMTI_VISIT_OBJECTS;
        }
        Census::Counts& n = c->of(ci);
        if (tag == 0 && ci != kNoClass && c->recorder->classes()[ci].filler) {
            n.filler_objects++;
            n.filler_bytes += bytes;
        } else {
            n.untracked_objects++;
            n.untracked_bytes += bytes;
        }
        return JVMTI_VISIT_OBJECTS;
    }
    if (tag == 0) {
        if (ci != kNoClass && c->recorder->classes()[ci].filler) {
            Census::Counts& n = c->of(ci);
            n.filler_objects++;
            n.filler_bytes += bytes;
            return JVMTI_VISIT_OBJECTS;
        }
        if (ci == kNoClass || !c->adopt) {
            Census::Counts& n = c->of(ci);
            n.untracked_objects++;
            n.untracked_bytes += bytes;
            return JVMTI_VISIT_OBJECTS;
        }
        // Alive after a full GC, and no event announced it: allocated where JVMTI posts nothing
        // (the JIT compiler's threads resolve string constants, a String and its byte[] each). It
        // is the trace's from this GC on, as an object a walk meets untagged is.
        const uint64_t id = c->recorder->walkObjectId();
        tag = static_cast<jlong>(id + 1);
        *tag_ptr = tag;
        c->unseen.push_back({id, ci, bytes, length < 0 ? 0 : static_cast<uint64_t>(length)});
    }
    uint64_t id = objectIdOfTag(tag);
    if (tag & kClassTagBit) {
        const uint32_t mirror_of = ClassRegistry::indexFromTag(tag);
        id = mirror_of == kNoClass
                 ? kNoObject
                 : c->recorder->classes()[mirror_of].mirror_id.load(std::memory_order_acquire);
        if (id == kNoObject) {  // the agent's own object, or its class's mirror
            Census::Counts& n = c->of(ci);
            n.agent_objects++;
            n.agent_bytes += bytes;
            return JVMTI_VISIT_OBJECTS;
        }
    }
    if (id >= c->watermark) {
        c->totals.newer_objects++;
        c->totals.newer_bytes += bytes;
    } else {
        Census::Counts& n = c->of(ci);
        n.objects++;
        n.bytes += bytes;
        if (c->live) c->live->push_back(id);
    }
    return JVMTI_VISIT_OBJECTS;
}

jint JNICALL onRootOnly(jvmtiHeapReferenceKind, const jvmtiHeapReferenceInfo*, jlong, jlong, jlong, jlong*,
                        jlong*, jint, void*) {
    return 0;  // visit nothing past the roots
}
}  // namespace

bool countHeap(Recorder& r, uint32_t gc, uint64_t watermark, std::vector<uint64_t>* live, bool census_event,
               std::span<const SpaceBounds> at_gc) {
    Census census;
    census.recorder = &r;
    census.watermark = watermark;
    census.gcs_finished = uint64_t{gc} + 1;
    census.live = live;
    census.sampled = r.options().sampled();
    census.adopt = census_event && !census.sampled;
    census.bounds.at_gc = at_gc;
    census.by_address = census.sampled && census.bounds.known();
    if (live) live->clear();
    jvmtiHeapCallbacks callbacks{};
    callbacks.heap_iteration_callback = onCensusObject;
    const int64_t began = r.now();
    if (r.iterateHeap([&] { return r.jvmti()->IterateThroughHeap(0, nullptr, &callbacks, &census); }) !=
            JVMTI_ERROR_NONE ||
        census.stale)
        return false;
    census.ns = static_cast<uint64_t>(r.now() - began);
    r.noteCensus(census.ns);
    if (live) {  // met in address order
        std::sort(live->begin(), live->end());
        live->erase(std::unique(live->begin(), live->end()), live->end());
    }
    if (!census_event) return true;
    for (const Unseen& u : census.unseen)
        r.recordUnseen(u.id, u.class_index, u.size, u.length);
    if (!census.unseen.empty()) r.noteTagDeaths();
    GcCensusEvent e = census.totals;
    e.gc = gc;
    // (The optional tail, in a sampled trace's census only: an exact trace's reads as before.)
    e.newer_by_address = census.sampled && census.by_address;
    e.duration_ns = census.sampled ? census.ns : 0;
    const auto& write = r.writerAccess();
    auto add = [&](uint32_t type, const Census::Counts& n) {
        if (n.objects == 0 && n.untracked_objects == 0 && n.agent_objects == 0 && n.filler_objects == 0)
            return;
        e.types.push_back({type, n.objects, n.bytes, n.untracked_objects, n.untracked_bytes, n.agent_objects,
                           n.agent_bytes, n.filler_objects, n.filler_bytes});
    };
    for (size_t ci = 0; ci < census.by_class.size(); ++ci)
        add(r.classes().typeId(static_cast<uint32_t>(ci), 0, write), census.by_class[ci]);
    add(0, census.unknown_class);
    std::sort(e.types.begin(), e.types.end(),
              [](const CensusType& a, const CensusType& b) { return a.type < b.type; });
    r.withWriter([&](TraceWriter& w) {
        w.extension(static_cast<uint32_t>(format::ExtensionKind::kGcCensus), encodeGcCensus(e));
    });
    return true;
}

void untagAll(Recorder& r) {
    jvmtiHeapCallbacks callbacks{};
    callbacks.heap_iteration_callback = [](jlong, jlong, jlong* tag_ptr, jint, void*) -> jint {
        *tag_ptr = 0;
        return JVMTI_VISIT_OBJECTS;
    };
    r.jvmti()->IterateThroughHeap(JVMTI_HEAP_FILTER_UNTAGGED, nullptr, &callbacks, nullptr);
}

void flushObjectFrees(Recorder& r) {
    jvmtiHeapCallbacks callbacks{};
    callbacks.heap_reference_callback = onRootOnly;
    r.jvmti()->FollowReferences(0, nullptr, r.flushAnchor(), &callbacks, nullptr);
}

// After a sampled walk: an object of the GC's heap that it did not reach (untagged still) is
// alive all the same, kept by a root JVMTI does not report (the JVM's own handles to class
// metadata, compiled code's constants: some 0.1% of a heap), or dead in a space the GC did not
// collect (the serial collector's full GCs leave some dead objects in place). It is listed too, as the exact
// recording's heap has it, so that the heap made whole is the one the census counts.
jint JNICALL onUnreached(jlong class_tag, jlong size, jlong* tag_ptr, jint length, void* user_data) {
    auto* w = static_cast<Walk*>(user_data);
    if (w->failed) return JVMTI_VISIT_ABORT;
    if (!w->checked) {
        w->checked = true;
        if (w->recorder->gcsFinished() != uint64_t{w->gc} + 1) {
            w->failed = "another GC came first";
            return JVMTI_VISIT_ABORT;
        }
    }
    // (A filler is dead space: before JDK 19 an int[] or a java.lang.Object that no root
    // reaches is taken for one, as the census takes it.)
    const uint32_t ci = ClassRegistry::indexFromTag(class_tag);
    if (ci == kNoClass || w->recorder->classes()[ci].filler) return JVMTI_VISIT_OBJECTS;
    const uint64_t address = objectAddress(tag_ptr, size);
    if (address == 0 || !w->bounds.thereAtGc(address) || w->isListed(address)) return JVMTI_VISIT_OBJECTS;
    w->markListed(address);
    w->addUnsampled(w->unsampledId(address), ci, size, length);
    ++w->unreached;
    return JVMTI_VISIT_OBJECTS;
}

SnapshotTaken walkHeap(Recorder& r, uint32_t gc, uint64_t watermark, std::span<const SpaceBounds> at_gc) {
    SnapshotTaken out;
    Walk walk;
    walk.recorder = &r;
    walk.gc = gc;
    walk.watermark = watermark;
    walk.sampled = r.options().sampled();
    walk.bounds.at_gc = at_gc;
    if (walk.sampled && !walk.bounds.known()) {
        out.missed = "the collector's spaces are not known (only Serial, Parallel and G1's are)";
        out.lasting = true;
        return out;
    }
    r.withWriter([&](TraceWriter& w) { w.beginSnapshot(gc); });
    jvmtiHeapCallbacks callbacks{};
    callbacks.heap_reference_callback = onReference;
    const int64_t began = r.now();
    const jvmtiError err =
        r.iterateHeap([&] { return r.jvmti()->FollowReferences(0, nullptr, nullptr, &callbacks, &walk); });
    walk.flush();
    if (walk.sampled && !walk.failed && walk.referrers_unknown > walk.referrers_listed) {
        // Most referrers are objects the walk listed: where their addresses do not say so, the
        // layout objectAddress and referrerAddress read is not this JVM's.
        walk.failed = "this JVM's heap callbacks do not give referrers' addresses";
        walk.failed_lasting = true;
    }
    if (walk.sampled && !walk.failed) {
        // (The walk's bounds, copied at its first callback, hold until the next GC.)
        walk.checked = false;
        jvmtiHeapCallbacks rest{};
        rest.heap_iteration_callback = onUnreached;
        r.iterateHeap(
            [&] { return r.jvmti()->IterateThroughHeap(JVMTI_HEAP_FILTER_TAGGED, nullptr, &rest, &walk); });
    }
    if (walk.failed) {
        // What it wrote so far stays without a roots chunk: a reader takes no such snapshot.
        r.withWriter([&](TraceWriter& w) { w.cancelSnapshot(); });
        out.missed = walk.failed;
        out.lasting = walk.failed_lasting;
        return out;
    }
    walk.flushUnsampled();
    out.taken = true;
    out.unsampled = walk.unsampled_count;
    out.unreached = walk.unreached;
    // Objects first met here get their allocation events before the snapshot closes; their
    // deaths are told by their tags.
    for (const Unseen& u : walk.unseen)
        r.recordUnseen(u.id, u.class_index, u.size, u.length);
    if (!walk.unseen.empty()) r.noteTagDeaths();
    // Roots: their methods and threads are resolved here, outside the VM operation.
    std::vector<Root> roots;
    roots.reserve(walk.roots.size());
    const auto& write = r.writerAccess();
    for (const RawRoot& raw : walk.roots) {
        Root root;
        root.kind = raw.kind;
        root.target = raw.target;
        switch (static_cast<format::RootKind>(raw.kind)) {
            case format::RootKind::kStaticField:
                root = Root::make(raw.kind, raw.target,
                                  {r.classes().typeId(raw.class_index, 0, write),
                                   r.classes().fieldSymbol(raw.class_index, raw.field_index, write)});
                break;
            case format::RootKind::kSystemClass:
                if (raw.class_index != kNoClass)
                    root = Root::make(raw.kind, raw.target, {r.classes().typeId(raw.class_index, 0, write)});
                break;
            case format::RootKind::kStackLocal:
                root = Root::make(raw.kind, raw.target,
                                  {r.threadOfTag(raw.thread_tag),
                                   raw.method ? r.sites().methodOf(r.jvmti(), raw.method, write) : 0,
                                   static_cast<uint64_t>(raw.slot), static_cast<uint64_t>(raw.depth)});
                break;
            case format::RootKind::kJniLocal:
                root = Root::make(raw.kind, raw.target,
                                  {r.threadOfTag(raw.thread_tag), static_cast<uint64_t>(raw.depth)});
                break;
            case format::RootKind::kThread:
                root = Root::make(raw.kind, raw.target, {r.threadOfTag(raw.thread_tag)});
                break;
            default: break;
        }
        roots.push_back(root);
    }
    r.withWriter([&](TraceWriter& w) {
        for (const Root& root : roots)
            w.snapshotRoot(root);
        w.endSnapshot();
        if (err != JVMTI_ERROR_NONE)
            w.meta("warning", "FollowReferences failed with JVMTI error " + std::to_string(err));
    });
    out.ns = static_cast<uint64_t>(r.now() - began);
    return out;
}

}  // namespace memcity::agent
