#include "heap_walk.h"

#include <vector>

#include "recorder.h"

namespace memcity::agent {
namespace {

struct Unseen {
    uint64_t id;
    uint32_t class_index;
    uint64_t size;
    uint64_t length;
};

// ---- Objects that exist when recording begins ----

struct ExistingObjects {
    Recorder* recorder;
    std::vector<Unseen> objects;
};

jint JNICALL onExisting(jlong class_tag, jlong size, jlong* tag_ptr, jint length, void* user_data) {
    auto* ctx = static_cast<ExistingObjects*>(user_data);
    uint32_t ci = ClassRegistry::indexFromTag(class_tag);
    if (*tag_ptr != 0 || ci == kNoClass || ci == ctx->recorder->classOfClass()) return JVMTI_VISIT_OBJECTS;
    uint64_t id = ctx->recorder->newObjectId();
    *tag_ptr = static_cast<jlong>(id + 1);
    ctx->objects.push_back(
        {id, ci, static_cast<uint64_t>(size), length < 0 ? 0 : static_cast<uint64_t>(length)});
    return JVMTI_VISIT_OBJECTS;
}

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
    Recorder* recorder;
    uint32_t gc;
    jlong source = 0;         // the object whose references are being collected
    std::vector<Edge> edges;  // ...its references so far
    std::vector<RawRoot> roots;
    std::vector<Unseen> unseen;

    void flush() {
        if (source == 0) return;
        const uint64_t id = static_cast<uint64_t>(source - 1);
        if (!edges.empty()) recorder->withWriter([&](TraceWriter& w) { w.snapshotObject(id, edges); });
        edges.clear();
        source = 0;
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
    const uint32_t target_class = ClassRegistry::indexFromTag(class_tag);
    if (*tag_ptr == 0) {
        // An object nobody reported: give it an id (its class mirror stays untagged: not ours).
        if (target_class == kNoClass || target_class == r.classOfClass()) return JVMTI_VISIT_OBJECTS;
        uint64_t id = r.newObjectId();
        *tag_ptr = static_cast<jlong>(id + 1);
        w->unseen.push_back(
            {id, target_class, static_cast<uint64_t>(size), length < 0 ? 0 : static_cast<uint64_t>(length)});
    }
    const jlong tag = *tag_ptr;
    if (tag & kClassTagBit) return JVMTI_VISIT_OBJECTS;  // a class mirror: walk its statics, record nothing
    const uint64_t target = static_cast<uint64_t>(tag - 1);
    const jlong referrer = referrer_tag_ptr ? *referrer_tag_ptr : 0;

    switch (kind) {
        case JVMTI_HEAP_REFERENCE_FIELD:
        case JVMTI_HEAP_REFERENCE_ARRAY_ELEMENT: {
            if (referrer <= 0 || (referrer & kClassTagBit)) break;
            if (referrer != w->source) {
                w->flush();
                w->source = referrer;
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
            RawRoot root{static_cast<uint32_t>(format::RootKind::kStackLocal), target};
            root.thread_tag = info->stack_local.thread_tag;
            root.depth = info->stack_local.depth;
            root.method = info->stack_local.method;
            root.location = info->stack_local.location;
            root.slot = info->stack_local.slot;
            w->roots.push_back(root);
            break;
        }
        case JVMTI_HEAP_REFERENCE_JNI_LOCAL: {
            RawRoot root{static_cast<uint32_t>(format::RootKind::kJniLocal), target};
            root.thread_tag = info->jni_local.thread_tag;
            root.depth = info->jni_local.depth;
            root.method = info->jni_local.method;
            w->roots.push_back(root);
            break;
        }
        case JVMTI_HEAP_REFERENCE_JNI_GLOBAL:
            w->roots.push_back({static_cast<uint32_t>(format::RootKind::kJniGlobal), target});
            break;
        case JVMTI_HEAP_REFERENCE_SYSTEM_CLASS:
            w->roots.push_back({static_cast<uint32_t>(format::RootKind::kSystemClass), target});
            break;
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

void tagExistingObjects(Recorder& r) {
    ExistingObjects ctx{&r, {}};
    jvmtiHeapCallbacks callbacks{};
    callbacks.heap_iteration_callback = onExisting;
    if (r.jvmti()->IterateThroughHeap(JVMTI_HEAP_FILTER_TAGGED, nullptr, &callbacks, &ctx) !=
        JVMTI_ERROR_NONE)
        return;
    for (const Unseen& u : ctx.objects)
        r.recordUnseen(u.id, u.class_index, u.size, u.length);
    r.withWriter(
        [&](TraceWriter& w) { w.meta("objects before recording", std::to_string(ctx.objects.size())); });
}

void walkHeap(Recorder& r, uint32_t gc) {
    r.withWriter([&](TraceWriter& w) { w.beginSnapshot(gc); });
    Walk walk{&r, gc, 0, {}, {}, {}};
    jvmtiHeapCallbacks callbacks{};
    callbacks.heap_reference_callback = onReference;
    jvmtiError err = r.jvmti()->FollowReferences(0, nullptr, nullptr, &callbacks, &walk);
    walk.flush();
    // Objects first met here get their allocation events before the snapshot closes.
    for (const Unseen& u : walk.unseen)
        r.recordUnseen(u.id, u.class_index, u.size, u.length);
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
}

}  // namespace memcity::agent
