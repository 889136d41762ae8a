// jvmti_floor_agent: what the JVM's own JVMTI machinery costs, with no recording at all.
//
// bench_recorder.sh runs each workload under this agent to split a recording's slowdown into
// what HotSpot charges for the events and calls every recorder of every allocation must make
// (an allocation event, a tag so the object's death is reported, a stack trace for its site)
// and what memcity's agent adds on top. Options (-agentpath:...=OPTIONS, comma-separated; every
// allocation is reported whatever they are, and each other option adds one mechanism to that):
//   events    every allocation reported (SetHeapSamplingInterval(0) + SampledObjectAlloc)
//   tag       ... and each new object tagged, with ObjectFree enabled
//   stack=N   ... and an N-frame GetStackTrace per allocation
//   weak      ... and a JNI weak global reference per new object (the other way to learn of deaths):
//             at each GarbageCollectionFinish every outstanding reference's slot is read, a cleared
//             one is a death, and an agent thread deletes the dead references
//   asgct=N   ... and an N-frame AsyncGetCallTrace per allocation (with ClassLoad and ClassPrepare
//             enabled and every class's jmethodIDs made, which AsyncGetCallTrace needs)
//   classtag  ... and a GetTag on the allocated object's class (a recorder's per-allocation class lookup)
//   interval=BYTES  allocations sampled at a mean interval of BYTES instead of every one (the
//             JVM's heap sampler, as a sampled recording runs it); the other options then apply to
//             each sample
// At VM death each prints its counts on stderr.
#include <dlfcn.h>
#include <jvmti.h>

#include <algorithm>
#include <array>
#include <atomic>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <memory>
#include <mutex>
#include <string>
#include <string_view>
#include <vector>

namespace {

bool g_tag = false;
int g_stack = 0;
bool g_weak = false;
int g_asgct = 0;
bool g_classtag = false;
jint g_interval = 0;  // SetHeapSamplingInterval's argument: 0 reports every allocation
std::atomic<jlong> g_next_tag{1};
std::atomic<long> g_allocations{0};

// ---- weak: a JNI weak global reference per object, read back at the end of each GC ----
//
// A jweak in HotSpot is the address of a slot in the JNI weak OopStorage, tagged in its low bits
// (JDK 17: bit 0 set; JDK 21 and later: the tag value 1 in the low 2 bits). The GC clears the slot of
// an object it found dead, and with the serial collector it has done so by GarbageCollectionFinish (a
// concurrent collector may clear later): a null slot read there is a death. No JNI call is allowed in
// that callback, so the slots are read directly.
constexpr std::uintptr_t kWeakTagMask = 3;
constexpr std::size_t kWeakBufferSize = 4096;

void* weakSlot(jweak ref) {
    return *reinterpret_cast<void* const*>(reinterpret_cast<std::uintptr_t>(ref) & ~kWeakTagMask);
}

// The weak references one thread made since its buffer was last merged into the outstanding list.
// The owning thread appends (the entry, then count with release); the GC callback reads the entries
// below count and nulls those it found dead. It cannot count on the owner being stopped: a thread in
// the allocation callback is in native state, which a safepoint does not wait for. Merging and
// emptying are done under WeakState::mutex, which the GC callback holds while it scans.
struct WeakBuffer {
    std::atomic<std::size_t> count{0};
    std::array<std::atomic<jweak>, kWeakBufferSize> refs{};
    bool in_use = true;  // under WeakState::mutex; the buffer of an exited thread goes to a new one
};

struct WeakState {
    std::mutex mutex;
    std::vector<std::unique_ptr<WeakBuffer>> buffers;  // every buffer made (under mutex)
    std::vector<jweak> outstanding;   // merged references, alive at the last GC (under mutex)
    jrawMonitorID monitor = nullptr;  // guards to_delete; wakes the deleting thread
    std::vector<jweak> to_delete;     // references whose objects died (under monitor)
    std::atomic<long> created{0}, deaths{0}, deleted{0}, gcs{0};
};
// Never destroyed: the VM's threads still run (and allocate) while exit() runs static destructors.
WeakState& g_weak_state = *new WeakState;

// Moves a buffer's references to the outstanding list and empties it; the caller holds the mutex.
void mergeLocked(WeakBuffer& buffer) {
    std::size_t count = buffer.count.load(std::memory_order_relaxed);
    for (std::size_t i = 0; i < count; ++i)
        if (jweak ref = buffer.refs[i].load(std::memory_order_relaxed))
            g_weak_state.outstanding.push_back(ref);
    buffer.count.store(0, std::memory_order_relaxed);
}

// The calling thread's buffer: taken at its first allocation, merged and given back when it exits.
struct ThreadBuffer {
    WeakBuffer* buffer = nullptr;
    ThreadBuffer() = default;
    ThreadBuffer(const ThreadBuffer&) = delete;
    ThreadBuffer& operator=(const ThreadBuffer&) = delete;
    ~ThreadBuffer() {
        if (!buffer) return;
        std::lock_guard lock(g_weak_state.mutex);
        mergeLocked(*buffer);
        buffer->in_use = false;
    }
};
thread_local ThreadBuffer t_buffer;

WeakBuffer& threadBuffer() {
    if (t_buffer.buffer) return *t_buffer.buffer;
    std::lock_guard lock(g_weak_state.mutex);
    for (auto& buffer : g_weak_state.buffers) {
        if (buffer->in_use) continue;
        buffer->in_use = true;
        return *(t_buffer.buffer = buffer.get());
    }
    g_weak_state.buffers.push_back(std::make_unique<WeakBuffer>());
    return *(t_buffer.buffer = g_weak_state.buffers.back().get());
}

void makeWeakRef(JNIEnv* jni, jobject object) {
    jweak ref = jni->NewWeakGlobalRef(object);
    if (!ref) return;
    g_weak_state.created.fetch_add(1, std::memory_order_relaxed);
    WeakBuffer& buffer = threadBuffer();
    std::size_t count = buffer.count.load(std::memory_order_relaxed);
    buffer.refs[count].store(ref, std::memory_order_relaxed);
    buffer.count.store(count + 1, std::memory_order_release);
    if (count + 1 == kWeakBufferSize) {
        std::lock_guard lock(g_weak_state.mutex);
        mergeLocked(buffer);
    }
}

// At a safepoint, in the VM thread: only plain memory reads and raw monitors. Every outstanding
// reference and every reference still in a thread's buffer is read; the dead go to the deleting thread.
void JNICALL onGcFinish(jvmtiEnv* jvmti) {
    std::vector<jweak> dead;
    {
        std::lock_guard lock(g_weak_state.mutex);
        auto& outstanding = g_weak_state.outstanding;
        std::size_t kept = 0;
        for (jweak ref : outstanding) {
            if (weakSlot(ref))
                outstanding[kept++] = ref;
            else
                dead.push_back(ref);
        }
        outstanding.resize(kept);
        for (auto& buffer : g_weak_state.buffers) {
            std::size_t count = buffer->count.load(std::memory_order_acquire);
            for (std::size_t i = 0; i < count; ++i) {
                jweak ref = buffer->refs[i].load(std::memory_order_relaxed);
                if (!ref || weakSlot(ref)) continue;
                dead.push_back(ref);
                buffer->refs[i].store(nullptr, std::memory_order_relaxed);
            }
        }
    }
    g_weak_state.gcs.fetch_add(1, std::memory_order_relaxed);
    if (dead.empty()) return;
    g_weak_state.deaths.fetch_add(static_cast<long>(dead.size()), std::memory_order_relaxed);
    jvmti->RawMonitorEnter(g_weak_state.monitor);
    g_weak_state.to_delete.insert(g_weak_state.to_delete.end(), dead.begin(), dead.end());
    jvmti->RawMonitorNotify(g_weak_state.monitor);
    jvmti->RawMonitorExit(g_weak_state.monitor);
}

// The agent thread that deletes the references of dead objects (which the GC callback cannot).
void JNICALL deleteDeadRefs(jvmtiEnv* jvmti, JNIEnv* jni, void*) {
    std::vector<jweak> batch;
    for (;;) {
        if (jvmti->RawMonitorEnter(g_weak_state.monitor) != JVMTI_ERROR_NONE) return;
        while (g_weak_state.to_delete.empty()) {
            if (jvmti->RawMonitorWait(g_weak_state.monitor, 0) != JVMTI_ERROR_NONE) {
                jvmti->RawMonitorExit(g_weak_state.monitor);
                return;
            }
        }
        batch.swap(g_weak_state.to_delete);
        jvmti->RawMonitorExit(g_weak_state.monitor);
        for (jweak ref : batch)
            jni->DeleteWeakGlobalRef(ref);
        g_weak_state.deleted.fetch_add(static_cast<long>(batch.size()), std::memory_order_relaxed);
        batch.clear();
    }
}

// At VM init: checks that a jweak is laid out as weakSlot reads it (its slot holds the same object
// as a global reference's), then starts the deleting thread.
void startWeak(jvmtiEnv* jvmti, JNIEnv* jni) {
    jclass thread_class = jni->FindClass("java/lang/Thread");
    jmethodID init =
        thread_class ? jni->GetMethodID(thread_class, "<init>", "(Ljava/lang/String;)V") : nullptr;
    jstring name = init ? jni->NewStringUTF("jvmti_floor_agent weak references") : nullptr;
    jthread thread = name ? jni->NewObject(thread_class, init, name) : nullptr;
    if (!thread) {
        std::fprintf(stderr, "jvmti_floor_agent: cannot make the thread that deletes weak references\n");
        return;
    }
    jweak weak = jni->NewWeakGlobalRef(thread);
    jobject global = jni->NewGlobalRef(thread);
    if ((reinterpret_cast<std::uintptr_t>(weak) & kWeakTagMask) != 1 || !weakSlot(weak) ||
        weakSlot(weak) != weakSlot(global))
        std::fprintf(stderr,
                     "jvmti_floor_agent: a jweak is not a tagged slot address; deaths will be wrong\n");
    jni->DeleteGlobalRef(global);
    jni->DeleteWeakGlobalRef(weak);
    if (jvmti->RunAgentThread(thread, deleteDeadRefs, nullptr, JVMTI_THREAD_NORM_PRIORITY) !=
        JVMTI_ERROR_NONE)
        std::fprintf(stderr, "jvmti_floor_agent: cannot start the thread that deletes weak references\n");
}

// ---- asgct=N: AsyncGetCallTrace, HotSpot's unofficial stack walker (the profilers' one) ----
//
// Called with no ucontext: in the allocation callback the thread is in native state with a walkable
// last Java frame, which is where AsyncGetCallTrace starts then. It reports each frame's method by a
// jmethodID that must already exist, so every class's are made (at VM init for the classes loaded
// before, then at each ClassPrepare), and it refuses to walk unless ClassLoad events are enabled.
// Measured on JDK 17 and 25: it walks from an interpreted allocation, but from compiled code (C1 or
// C2), where that last frame is the allocation's runtime stub, nearly every call fails with -4
// (not_walkable_not_Java), so its time here is mostly that of a failed walk.
struct ASGCT_CallFrame {
    jint lineno;
    jmethodID method_id;
};
struct ASGCT_CallTrace {
    JNIEnv* env;
    jint num_frames;
    ASGCT_CallFrame* frames;
};
using AsyncGetCallTraceFn = void (*)(ASGCT_CallTrace*, jint, void*);
AsyncGetCallTraceFn g_async_get_call_trace = nullptr;

// Its failure codes (num_frames <= 0), named as in HotSpot's prims/forte.cpp; the last counts any other.
constexpr std::array<const char*, 12> kAsgctFailures = {
    "no_Java_frame",         "no_class_load", "GC_active",         "unknown_not_Java",
    "not_walkable_not_Java", "unknown_Java",  "not_walkable_Java", "unknown_state",
    "thread_exit",           "deopt",         "safepoint",         "other"};
std::array<std::atomic<long>, kAsgctFailures.size()> g_asgct_failures{};
std::atomic<long> g_asgct_frames_without_id{0};

void asyncGetCallTrace(JNIEnv* jni) {
    ASGCT_CallFrame frames[256];
    ASGCT_CallTrace trace{jni, 0, frames};
    g_async_get_call_trace(&trace, g_asgct, nullptr);
    if (trace.num_frames <= 0) {
        std::size_t code = std::min(static_cast<std::size_t>(-static_cast<long>(trace.num_frames)),
                                    kAsgctFailures.size() - 1);
        g_asgct_failures[code].fetch_add(1, std::memory_order_relaxed);
        return;
    }
    for (jint i = 0; i < trace.num_frames; ++i)
        if (!frames[i].method_id) g_asgct_frames_without_id.fetch_add(1, std::memory_order_relaxed);
}

void makeMethodIds(jvmtiEnv* jvmti, jclass klass) {
    jint count = 0;
    jmethodID* methods = nullptr;
    if (jvmti->GetClassMethods(klass, &count, &methods) == JVMTI_ERROR_NONE)
        jvmti->Deallocate(reinterpret_cast<unsigned char*>(methods));
}

void JNICALL onClassLoad(jvmtiEnv*, JNIEnv*, jthread, jclass) {}

void JNICALL onClassPrepare(jvmtiEnv* jvmti, JNIEnv*, jthread, jclass klass) {
    makeMethodIds(jvmti, klass);
}

// ---- the events ----

void JNICALL onAlloc(jvmtiEnv* jvmti, JNIEnv* jni, jthread, jobject object, jclass klass, jlong) {
    g_allocations.fetch_add(1, std::memory_order_relaxed);
    if (g_tag) jvmti->SetTag(object, g_next_tag.fetch_add(1, std::memory_order_relaxed));
    if (g_weak) makeWeakRef(jni, object);
    if (g_stack > 0) {
        jvmtiFrameInfo frames[256];
        jint count = 0;
        jvmti->GetStackTrace(nullptr, 0, g_stack, frames, &count);
    }
    if (g_asgct > 0) asyncGetCallTrace(jni);
    if (g_classtag) {
        jlong class_tag = 0;
        jvmti->GetTag(klass, &class_tag);
    }
}

void JNICALL onFree(jvmtiEnv*, jlong) {}

void JNICALL onVmInit(jvmtiEnv* jvmti, JNIEnv* jni, jthread) {
    if (g_asgct > 0) {
        jint count = 0;
        jclass* classes = nullptr;
        if (jvmti->GetLoadedClasses(&count, &classes) == JVMTI_ERROR_NONE) {
            for (jint i = 0; i < count; ++i) {
                makeMethodIds(jvmti, classes[i]);
                jni->DeleteLocalRef(classes[i]);
            }
            jvmti->Deallocate(reinterpret_cast<unsigned char*>(classes));
        }
    }
    if (g_weak) startWeak(jvmti, jni);
}

void JNICALL onDeath(jvmtiEnv*, JNIEnv*) {
    long allocations = g_allocations.load();
    std::fprintf(stderr, "jvmti_floor_agent: %ld %s\n", allocations, g_interval ? "samples" : "allocations");
    if (g_weak)
        std::fprintf(stderr,
                     "jvmti_floor_agent: %ld weak references made, %ld deaths seen at %ld GC ends, %ld "
                     "references deleted\n",
                     g_weak_state.created.load(), g_weak_state.deaths.load(), g_weak_state.gcs.load(),
                     g_weak_state.deleted.load());
    if (g_asgct > 0) {
        long failures = 0;
        for (auto& count : g_asgct_failures)
            failures += count.load();
        std::fprintf(stderr, "jvmti_floor_agent: AsyncGetCallTrace failed %ld times in %ld", failures,
                     allocations);
        for (std::size_t code = 0; code < kAsgctFailures.size(); ++code)
            if (long count = g_asgct_failures[code].load())
                std::fprintf(stderr, ", %s (%ld): %ld", kAsgctFailures[code], -static_cast<long>(code),
                             count);
        std::fprintf(stderr, "; %ld frames without a jmethodID\n", g_asgct_frames_without_id.load());
    }
}

}  // namespace

JNIEXPORT jint JNICALL Agent_OnLoad(JavaVM* vm, char* options, void*) {
    // N from 1 to 256 in "name=N", or 0.
    auto depth = [](std::string_view opt, std::string_view name) {
        int n = std::atoi(std::string(opt.substr(name.size() + 1)).c_str());
        if (n >= 1 && n <= 256) return n;
        std::fprintf(stderr, "jvmti_floor_agent: %.*s=N needs N from 1 to 256\n",
                     static_cast<int>(name.size()), name.data());
        return 0;
    };
    std::string_view rest = options ? options : "";
    while (!rest.empty()) {
        size_t comma = rest.find(',');
        std::string_view opt = rest.substr(0, comma);
        rest = comma == std::string_view::npos ? std::string_view{} : rest.substr(comma + 1);
        if (opt == "tag") {
            g_tag = true;
        } else if (opt.starts_with("stack=")) {
            if ((g_stack = depth(opt, "stack")) == 0) return JNI_ERR;
        } else if (opt == "weak") {
            g_weak = true;
        } else if (opt.starts_with("asgct=")) {
            if ((g_asgct = depth(opt, "asgct")) == 0) return JNI_ERR;
        } else if (opt == "classtag") {
            g_classtag = true;
        } else if (opt.starts_with("interval=")) {
            const long bytes = std::atol(std::string(opt.substr(9)).c_str());
            if (bytes < 1 || bytes > INT32_MAX) {
                std::fprintf(stderr, "jvmti_floor_agent: interval=BYTES needs BYTES from 1 to 2^31-1\n");
                return JNI_ERR;
            }
            g_interval = static_cast<jint>(bytes);
        } else if (opt != "events") {
            std::fprintf(stderr,
                         "jvmti_floor_agent: unknown option '%.*s' (events, tag, stack=N, weak, asgct=N, "
                         "classtag, interval=BYTES)\n",
                         static_cast<int>(opt.size()), opt.data());
            return JNI_ERR;
        }
    }
    if (g_asgct > 0) {
        // The launcher loads libjvm with RTLD_GLOBAL, so its symbols are visible from here.
        g_async_get_call_trace =
            reinterpret_cast<AsyncGetCallTraceFn>(dlsym(RTLD_DEFAULT, "AsyncGetCallTrace"));
        if (!g_async_get_call_trace) {
            std::fprintf(stderr, "jvmti_floor_agent: this JVM has no AsyncGetCallTrace\n");
            return JNI_ERR;
        }
    }
    jvmtiEnv* jvmti = nullptr;
    if (vm->GetEnv(reinterpret_cast<void**>(&jvmti), JVMTI_VERSION_11) != JNI_OK) return JNI_ERR;
    jvmtiCapabilities caps{};
    caps.can_generate_sampled_object_alloc_events = 1;
    caps.can_tag_objects = 1;
    caps.can_generate_object_free_events = 1;
    caps.can_generate_garbage_collection_events = g_weak;
    jvmtiEventCallbacks callbacks{};
    callbacks.SampledObjectAlloc = onAlloc;
    callbacks.ObjectFree = onFree;
    callbacks.VMInit = onVmInit;
    callbacks.VMDeath = onDeath;
    callbacks.GarbageCollectionFinish = onGcFinish;
    callbacks.ClassLoad = onClassLoad;
    callbacks.ClassPrepare = onClassPrepare;
    auto enable = [jvmti](bool on, jvmtiEvent event) {
        return !on || jvmti->SetEventNotificationMode(JVMTI_ENABLE, event, nullptr) == JVMTI_ERROR_NONE;
    };
    if (jvmti->AddCapabilities(&caps) != JVMTI_ERROR_NONE ||
        jvmti->SetEventCallbacks(&callbacks, sizeof callbacks) != JVMTI_ERROR_NONE ||
        jvmti->SetHeapSamplingInterval(g_interval) != JVMTI_ERROR_NONE ||
        (g_weak && jvmti->CreateRawMonitor("jvmti_floor_agent weak references", &g_weak_state.monitor) !=
                       JVMTI_ERROR_NONE) ||
        !enable(true, JVMTI_EVENT_SAMPLED_OBJECT_ALLOC) || !enable(true, JVMTI_EVENT_VM_DEATH) ||
        !enable(g_tag, JVMTI_EVENT_OBJECT_FREE) || !enable(g_weak || g_asgct > 0, JVMTI_EVENT_VM_INIT) ||
        !enable(g_weak, JVMTI_EVENT_GARBAGE_COLLECTION_FINISH) ||
        !enable(g_asgct > 0, JVMTI_EVENT_CLASS_LOAD) || !enable(g_asgct > 0, JVMTI_EVENT_CLASS_PREPARE))
        return JNI_ERR;
    return JNI_OK;
}
