#include "recorder.h"

#include <time.h>
#include <unistd.h>

#include <algorithm>
#include <chrono>
#include <cstdio>
#include <optional>

#include "heap_walk.h"
#include "hotspot.h"
#include "jvmti_util.h"
#include "thread_flags.h"
#include "trace/extensions.h"

namespace memcity::agent {
namespace {

constexpr size_t kThreadFlushBytes = 64u << 10;
// A thread's full buffers waiting for the agent thread, at most (4 MiB), and empty ones kept.
constexpr size_t kMaxHandedBuffers = 64, kSpareBuffers = 2;

}  // namespace

int64_t monotonicNs() {
    timespec ts{};
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return int64_t{ts.tv_sec} * 1'000'000'000 + ts.tv_nsec;
}

int64_t wallNs() {
    timespec ts{};
    clock_gettime(CLOCK_REALTIME, &ts);
    return int64_t{ts.tv_sec} * 1'000'000'000 + ts.tv_nsec;
}

Recorder::Recorder(jvmtiEnv* jvmti, JavaVM* vm, AgentOptions options, bool can_suspend)
    : jvmti_(jvmti), vm_(vm), options_(std::move(options)), can_suspend_(can_suspend) {
    with_writer_ = [this](const std::function<void(TraceWriter&)>& f) { withWriter(f); };
    classes_.setOnAdded([this](uint32_t index, jclass klass, uint64_t known_mirror) {
        recordMirror(index, klass, known_mirror);
    });
}

Recorder::~Recorder() = default;

int64_t Recorder::now() const {
    return monotonicNs() - start_ns_;
}

void Recorder::withWriter(const std::function<void(TraceWriter&)>& f) {
    std::string failed;
    {
        std::lock_guard lock(writer_mutex_);
        if (!writer_ || finished_) return;
        f(*writer_);
        if (!writer_->ok() && error_.empty()) {
            error_ = writer_->status().error().message;
            failed = error_;
        }
    }
    if (!failed.empty()) stopWithError(failed);
}

void Recorder::stopWithError(const std::string& message) {
    if (!recording_.exchange(false)) return;
    std::fprintf(stderr, "memcity agent: %s; recording stopped (the trace is readable up to there)\n",
                 message.c_str());
}

// ---- Threads ----

thread_local bool t_agent_allocating = false;
thread_local bool t_agent_classes = false;
thread_local bool t_agent_sampled = false;

namespace {
// The recorder's state of the calling thread (events arrive on the thread they are about).
thread_local ThreadState* t_state = nullptr;
// The recorder t_state belongs to: an agent attached again after a detach has a new one.
thread_local const Recorder* t_state_owner = nullptr;
// Set on the agent thread while the objects it records were alive at the GC it walks (their
// ids come from the GC's block, see walkObjectId).
thread_local bool t_ids_at_gc = false;
// The thread's last sampled allocation, when Object.clone made it (see onAlloc).
struct CloneSeen {
    uint64_t id = kNoObject;
    uint32_t class_index = kNoClass;
};
thread_local CloneSeen t_clone;
}  // namespace

namespace {
jlong objectTag(jvmtiEnv* jvmti, jobject object) {
    jlong tag = 0;
    if (jvmti->GetTag(object, &tag) != JVMTI_ERROR_NONE || tag < 0 || (tag & kClassTagBit)) return 0;
    return tag;
}
}  // namespace

ThreadState* Recorder::threadState(JNIEnv* jni, jthread thread) {
    if (t_state && t_state_owner == this) return t_state;
    if (t_state_owner != this) {  // this thread's first event of this recording
        t_state_owner = this;
        t_clone = CloneSeen{};
    }
    const jlong object_tag = objectTag(jvmti_, thread);
    // A thread that ran before recording began was registered at VM init: this is it.
    if (object_tag > 0) {
        std::lock_guard lock(threads_mutex_);
        for (const auto& ts : threads_)
            if (ts->object_tag.load(std::memory_order_relaxed) == object_tag && !ts->bound) {
                ts->bound = true;
                t_state = ts.get();
                return t_state;
            }
    }
    t_state = registerThread(jni, thread, object_tag, true);
    return t_state;
}

ThreadState* Recorder::registerThread(JNIEnv* jni, jthread thread, jlong object_tag, bool bound) {
    auto owned = std::make_unique<ThreadState>();
    ThreadState* ts = owned.get();
    ts->object_tag.store(object_tag, std::memory_order_relaxed);
    ts->bound = bound;
    ts->started_ns = now();
    // Before VM init the JVM cannot name a thread, and one it attaches (DestroyJavaVM) has no name
    // and no tagged object yet when it starts: such a thread is defined once it has them.
    const bool named = readThreadInfo(jni, thread, *ts);
    if (!named || object_tag == 0) ts->object = jni->NewWeakGlobalRef(thread);
    {
        std::lock_guard lock(threads_mutex_);
        ts->id = ++next_thread_;
        threads_.push_back(std::move(owned));
    }
    if (named) ensureDefined(*ts);
    return ts;
}

bool Recorder::readThreadInfo(JNIEnv* jni, jthread thread, ThreadState& ts) {
    jvmtiThreadInfo info{};
    if (jvmti_->GetThreadInfo(thread, &info) != JVMTI_ERROR_NONE) return false;
    if (info.name) {
        ts.name = info.name;
        jvmti_->Deallocate(reinterpret_cast<unsigned char*>(info.name));
    }
    ts.daemon = info.is_daemon == JNI_TRUE;
    if (info.thread_group) jni->DeleteLocalRef(info.thread_group);
    if (info.context_class_loader) jni->DeleteLocalRef(info.context_class_loader);
    return !ts.name.empty();
}

void Recorder::ensureDefined(ThreadState& ts) {
    if (ts.defined.load(std::memory_order_acquire)) return;
    std::lock_guard lock(ts.define_mutex);
    if (ts.defined.load(std::memory_order_relaxed)) return;
    jlong tag = ts.object_tag.load(std::memory_order_relaxed);
    JNIEnv* jni = nullptr;
    if (ts.object && vm_->GetEnv(reinterpret_cast<void**>(&jni), JNI_VERSION_1_8) == JNI_OK && jni) {
        readThreadInfo(jni, ts.object, ts);
        if (tag == 0) tag = objectTag(jvmti_, ts.object);
    }
    withWriter([&](TraceWriter& w) {
        w.defineThread(ts.id, ts.name.empty() ? "?" : ts.name, ts.daemon ? format::kThreadDaemon : 0,
                       tag > 0 ? objectIdOfTag(tag) : 0);
        w.threadStart({ts.id, ts.started_ns});
    });
    ts.defined.store(true, std::memory_order_release);
}

void Recorder::registerRunningThreads(JNIEnv* jni, jthread current) {
    jint n = 0;
    JvmtiPtr<jthread> threads(jvmti_);
    if (jvmti_->GetAllThreads(&n, threads.out()) != JVMTI_ERROR_NONE) return;
    for (jint i = 0; i < n; ++i) {
        jthread thread = threads[static_cast<size_t>(i)];
        const jlong tag = objectTag(jvmti_, thread);
        if (jni->IsSameObject(thread, current)) {
            // VM init's own thread may have been registered before the JVM could name it or the
            // walk tagged its object.
            ThreadState* ts = threadState(jni, thread);
            jlong none = 0;
            if (tag > 0) ts->object_tag.compare_exchange_strong(none, tag, std::memory_order_relaxed);
            ensureDefined(*ts);
        } else if (tag > 0 && threadOfTag(tag) == 0) {
            registerThread(jni, thread, tag, false);
        }
        jni->DeleteLocalRef(thread);
    }
}

uint32_t Recorder::threadOfTag(jlong tag) {
    if (tag <= 0) return 0;
    ThreadState* found = nullptr;
    {
        std::lock_guard lock(threads_mutex_);
        for (const auto& ts : threads_)
            if (ts->object_tag.load(std::memory_order_relaxed) == tag) found = ts.get();
        // A thread whose object had no tag when it started (the VM attaches DestroyJavaVM before
        // its Thread object is recorded): its tag now.
        for (size_t i = 0; !found && i < threads_.size(); ++i) {
            ThreadState& ts = *threads_[i];
            if (!ts.object || ts.object_tag.load(std::memory_order_relaxed) != 0) continue;
            if (jlong t = objectTag(jvmti_, ts.object); t > 0) {
                ts.object_tag.store(t, std::memory_order_relaxed);
                if (t == tag) found = &ts;
            }
        }
    }
    if (!found) return 0;
    ensureDefined(*found);  // a root names it: the trace defines it by then
    return found->id;
}

void Recorder::flushThread(ThreadState* ts, bool current) {
    std::lock_guard write(ts->write_mutex);
    std::vector<EventEncoder> buffers;
    {
        std::lock_guard lock(ts->mutex);
        buffers.swap(ts->full);
        if (current && ts->events.eventCount() != 0) {
            buffers.push_back(std::move(ts->events));
            ts->events = EventEncoder();
        }
    }
    if (buffers.empty()) return;
    ensureDefined(*ts);
    withWriter([&](TraceWriter& w) {
        for (EventEncoder& b : buffers)
            w.writeEvents(b);
    });
    // Also when recording has stopped. A couple are kept, with their capacity (no 64 KiB malloc
    // and free per chunk).
    std::lock_guard lock(ts->mutex);
    for (EventEncoder& b : buffers) {
        if (ts->spare.size() >= kSpareBuffers) break;
        b.clear();
        ts->spare.push_back(std::move(b));
    }
}

void Recorder::writeFullBuffers() {
    for (ThreadState* ts : allThreads())
        flushThread(ts, false);
}

std::vector<ThreadState*> Recorder::allThreads() {
    std::lock_guard lock(threads_mutex_);
    std::vector<ThreadState*> all;
    all.reserve(threads_.size());
    for (const auto& ts : threads_)
        all.push_back(ts.get());
    return all;
}

void Recorder::flushAllThreads() {
    for (ThreadState* ts : allThreads())
        flushThread(ts);
}

void Recorder::onThreadStart(JNIEnv* jni, jthread thread) {
    if (!recording()) return;
    // A thread that starts while the program is paused waits with it (not the agent's own).
    if (LiveControl* control = control_.load(std::memory_order_acquire); control && !t_agent_allocating)
        control->waitWhileHeld(jni);
    threadState(jni, thread);
}

void Recorder::onThreadEnd(JNIEnv* jni, jthread thread) {
    if (!recording()) return;
    ThreadState* ts = threadState(jni, thread);
    flushThread(ts);
    ts->ended = true;
    ensureDefined(*ts);
    const int64_t t = now();
    withWriter([&](TraceWriter& w) { w.threadEnd({ts->id, t}); });
    // The OS thread may attach again as another Java thread (the launcher's main thread comes
    // back as DestroyJavaVM): that one is registered anew.
    t_state = nullptr;
}

// ---- Classes and allocations ----

void Recorder::onClassLoad(JNIEnv* jni, jclass klass) {
    if (recording()) classIndex(jni, klass);
}

void Recorder::onClassPrepare(JNIEnv* jni, jclass klass) {
    if (recording()) classes_.prepared(jvmti_, jni, klass);
}

void Recorder::recordMirror(uint32_t index, jclass klass, uint64_t known_mirror) {
    const uint32_t class_class = classOfClass();
    ClassEntry& e = classes_[index];
    if (known_mirror != kNoObject) {  // recorded before: at the class's load, or by a heap walk
        e.mirror_id.store(known_mirror, std::memory_order_release);
        trackMirror(klass, known_mirror);
        return;
    }
    // Before VM init (which records them all), or a class of the agent's own. A sampled
    // recording holds the heap sampler's picks only, and it never picks a mirror: the census
    // counts them with the objects not sampled.
    if (class_class == kNoClass || t_agent_classes || options_.sampled()) return;
    jlong size = 0;
    if (jvmti_->GetObjectSize(klass, &size) != JVMTI_ERROR_NONE || size <= 0) return;
    const uint64_t id = t_ids_at_gc ? walkObjectId() : newObjectId();
    e.mirror_id.store(id, std::memory_order_release);
    recordUnseen(id, class_class, static_cast<uint64_t>(size), 0);
    trackMirror(klass, id);
}

void Recorder::registerLoadedClasses(JNIEnv* jni) {
    jint n = 0;
    JvmtiPtr<jclass> loaded(jvmti_);
    if (jvmti_->GetLoadedClasses(&n, loaded.out()) != JVMTI_ERROR_NONE) return;
    for (jint i = 0; i < n; ++i) {
        jclass klass = loaded[static_cast<size_t>(i)];
        jlong tag = 0;
        // A class's mirror has a class tag once registered (kAgentObjectTag is not one).
        if (jvmti_->GetTag(klass, &tag) == JVMTI_ERROR_NONE &&
            (!(tag & kClassTagBit) || tag == kAgentObjectTag))
            classIndex(jni, klass);
        jni->DeleteLocalRef(klass);
    }
}

uint32_t Recorder::classOfAllocation(JNIEnv* jni, ThreadState& ts, jclass klass) {
    // Collectors that move objects outside their pauses (ZGC, Shenandoah) have no such moment.
    const GcFacts* facts = mirrors_stay_put_ ? facts_.load(std::memory_order_acquire) : nullptr;
    if (!facts) return classIndex(jni, klass);
    // Collectors count a collection as it begins, before they move anything.
    auto mirrorAt = [&](int64_t* collections) {
        *collections = facts->totalCollections();
        std::atomic_thread_fence(std::memory_order_acquire);
        const uintptr_t at = addressOf(klass);
        std::atomic_thread_fence(std::memory_order_acquire);
        return facts->totalCollections() == *collections ? at : 0;
    };
    int64_t collections = 0;
    const uintptr_t mirror = mirrorAt(&collections);
    ThreadState::ClassSlot& slot = ts.class_cache[(mirror >> 3) % ThreadState::kClassCache];
    if (mirror && slot.mirror == mirror && slot.collections == collections) return slot.index;
    const uint32_t index = classIndex(jni, klass);
    if (index == kNoClass) return index;
    if (const uintptr_t at = mirrorAt(&collections))
        ts.class_cache[(at >> 3) % ThreadState::kClassCache] = {at, collections, index};
    return index;
}

uint64_t Recorder::expectedSize(uint32_t class_index, uint64_t length) const {
    const ClassEntry& e = classes_[class_index];
    if (e.kind == format::TypeKind::kInstance) return e.instance_size;
    return (16 + length * e.element_bytes + 7) & ~uint64_t{7};
}

void Recorder::onAlloc(JNIEnv* jni, jthread thread, jobject object, jclass klass, jlong size,
                       bool maybe_seen) {
    if (!recording()) return;
    if (t_agent_allocating) {
        t_agent_sampled |= !maybe_seen;
        jlong tag = 0;
        if (jvmti_->GetTag(object, &tag) == JVMTI_ERROR_NONE && tag == 0)
            jvmti_->SetTag(object, kAgentObjectTag);
        return;
    }
    // While the program is paused at a GC (live control), its threads wait here before their
    // objects are recorded: they are the next GC's.
    if (LiveControl* control = control_.load(std::memory_order_acquire)) control->waitWhileHeld(jni);
    // The first allocation after a GC the JVM did not report: its deaths are posted now, on this
    // thread, before another GC can come and take them (see noticeUnreportedGcs).
    if (noticeUnreportedGcs() && unreported_pending_.exchange(false)) onUnreportedGc();
    ThreadState* ts = threadState(jni, thread);
    const uint32_t ci = classOfAllocation(jni, *ts, klass);
    // A class's mirror is recorded with its class (at its load, or when first met).
    if (ci == kNoClass || ci == classOfClass()) return;
    const bool weak_deaths = weak_deaths_.load(std::memory_order_relaxed);
    // HotSpot reports some objects twice, once by SampledObjectAlloc and then by VMObjectAlloc
    // (clone, Unsafe.allocateInstance, reflection, JNI): VMObjectAlloc checks for a tag, or the
    // same object among the thread's newest tracked ones (its last allocation, or one of many
    // where Java code ran in the call: a class loaded, a constructor run by reflection).
    if (maybe_seen) {
        jlong tag = 0;
        if (jvmti_->GetTag(object, &tag) != JVMTI_ERROR_NONE || tag != 0) return;
        if (weak_deaths && trackedRecently(*ts, object)) return;
        // Object.clone copies the original's header over the new object after the sampled
        // event; where tags are found by the identity hash in the header (JDK 21 and later),
        // that loses the tag set then. The entry stays (the object's death is posted under it),
        // so the copy gets a tag that aliases its id, whose own death is nobody's.
        if (!weak_deaths && t_clone.id != kNoObject && t_clone.class_index == ci) {
            jvmti_->SetTag(object, kAliasTagBit | static_cast<jlong>(t_clone.id + 1));
            t_clone.id = kNoObject;
            return;
        }
    }
    // From here to the object's entry in ts->tracked, heap walks wait for this thread. One that
    // ran since its last allocation callback may have met this object untagged (between its
    // allocation and now), and named it as alive at its GC, as no event had announced it: that
    // record stands.
    if (enterAllocation(*ts)) {
        jlong tag = 0;
        if (jvmti_->GetTag(object, &tag) != JVMTI_ERROR_NONE || tag != 0) {
            // With weak-reference deaths the walk's record gets a weak reference here, as any
            // object does: its death is then told at its GC, not by an ObjectFree HotSpot posts
            // late (after the GC was marked complete).
            if (weak_deaths && tag > 0 && !(tag & (kClassTagBit | kAliasTagBit | kWeakTagBit))) {
                if (jweak ref = jni->NewWeakGlobalRef(object)) {
                    jvmti_->SetTag(object, kWeakTagBit | tag);
                    std::lock_guard lock(ts->mutex);
                    ts->tracked.push(ref, objectIdOfTag(tag), true);
                }
            }
            leaveAllocation(*ts);
            return;
        }
    }
    const uint64_t id = newObjectId();
    // Its death: told by a weak reference (no tag unless a heap walk is near, see prepareWalk;
    // a thread's object always, as walks name threads by their objects' tags), or by ObjectFree
    // under its tag where weak references do not suit the collector.
    const bool tag_only = !weak_deaths;
    const bool eager = !tag_only && (classes_[ci].thread || eager_tags_.load(std::memory_order_seq_cst));
    if (tag_only || eager) jvmti_->SetTag(object, (eager ? kWeakTagBit : 0) | static_cast<jlong>(id + 1));
    uint8_t top = 0;
    const uint32_t site = siteOfStack(jni, *ts, &top);
    t_clone = {!maybe_seen && (top & SiteRegistry::kTopClone) ? id : kNoObject, ci};
    jweak ref = nullptr;
    if (!tag_only) {
        ref = jni->NewWeakGlobalRef(object);
        if (!ref) {
            jvmti_->SetTag(object, static_cast<jlong>(id + 1));
            noteTagDeaths();
        }
    }
    const bool tagged = eager;
    const ClassEntry& ce = classes_[ci];
    AllocEvent e;
    e.id = id;
    if (ce.kind != format::TypeKind::kInstance)
        e.length = static_cast<uint64_t>(jni->GetArrayLength(static_cast<jarray>(object)));
    e.type = classes_.typeId(ci, static_cast<uint64_t>(size), with_writer_);
    e.site = site;
    const uint64_t bytes = static_cast<uint64_t>(size);
    e.size = bytes == expectedSize(ci, e.isArray() ? e.length : 0) ? 0 : bytes;
    e.time_ns = now();
    bytes_allocated_.fetch_add(bytes, std::memory_order_relaxed);
    bool handed = false, behind = false;
    {
        std::lock_guard lock(ts->mutex);
        if (!ts->events.started()) ts->events.reset(e.time_ns, id, ts->id);
        ts->events.alloc(e);
        if (ref) ts->tracked.push(ref, id, tagged);
        if (ts->events.bytes() >= kThreadFlushBytes) {
            // Full: handed to the agent thread, and a written one (or a new one) takes its place.
            ts->full.push_back(std::move(ts->events));
            ts->events = EventEncoder();
            if (!ts->spare.empty()) {
                ts->events = std::move(ts->spare.back());
                ts->spare.pop_back();
            }
            handed = true;
            behind = ts->full.size() >= kMaxHandedBuffers;
        }
    }
    leaveAllocation(*ts);
    if (behind) {
        flushThread(ts, false);  // the agent thread is behind: written here, as they come
    } else if (handed) {
        wakeAgent();
    }
}

uint64_t Recorder::walkObjectId() {
    const uint64_t id = walk_next_.fetch_add(1, std::memory_order_relaxed);
    if (id < walk_end_.load(std::memory_order_relaxed)) return id;
    return newObjectId();
}

void Recorder::recordUnseen(uint64_t id, uint32_t class_index, uint64_t size, uint64_t length) {
    AllocEvent e;
    e.id = id;
    e.type = classes_.typeId(class_index, size, with_writer_);
    if (classes_[class_index].kind != format::TypeKind::kInstance) e.length = length;
    e.size = size == expectedSize(class_index, e.isArray() ? e.length : 0) ? 0 : size;
    e.time_ns = now();
    withWriter([&](TraceWriter& w) { w.alloc(e); });
}

// ---- GCs, written (the ring and the deaths they freed: recorder_deaths.cpp) ----

void Recorder::wakeAgent() {
    if (!monitor_) return;
    jvmti_->RawMonitorEnter(monitor_);
    jvmti_->RawMonitorNotify(monitor_);
    jvmti_->RawMonitorExit(monitor_);
}

void Recorder::processGcs(JNIEnv* jni) {
    const uint64_t finished = gcs_finished_.load(std::memory_order_acquire);
    if (gcs_written_ == finished) return;
    // With weak references every death of the newest GC is known once it is written: its heap
    // is marked complete (GC_COMPLETE), so that a reader following the trace shows it without
    // waiting for the next GC. Not at exit: the last GC's heap count completes it (GC_LIVE).
    const bool mark_complete = weak_deaths_.load(std::memory_order_relaxed) && !countsExitHeap();
    // Callbacks under way may hold ids below its watermark: their events first (and, for a
    // walk, their objects tracked before the addresses are read).
    // A snapshot when refs_every GCs have passed since the last one (GC 0 first). When GCs come
    // faster than the agent thread wakes, the heap of a skipped GC is gone: the next GC has it.
    const uint64_t last = finished - 1;
    const GcSlot& newest = gc_ring_[last % kGcRing];
    // (A client's request stands until a snapshot is taken.)
    const bool walk_due =
        snapshot_asked_.load(std::memory_order_acquire) ||
        (options_.refs_every != 0 && (!walked_any_ || last >= last_walked_gc_ + options_.refs_every ||
                                      (snapshot_last_ && last != last_walked_gc_)));
    // refs=P%: a snapshot wherever the walks stay within their share of the run (the heap's size
    // taken as it was before this GC: at most what it is after).
    const bool walk = walk_due || snapshotInBudget(estimated_before_);
    if (mark_complete || walk) waitForAllocations();
    // The objects' addresses hold only until the next collection begins: read first, written
    // once the GC is. (A sampled recording's heap map has none: its heap is the samples.)
    const std::optional<std::vector<ObjectAddress>> addresses =
        walk && !options_.sampled() ? takeAddresses(last, newest.next_object_id) : std::nullopt;
    // What the threads allocated so far goes first; ids place objects around the GCs anyway.
    flushAllThreads();
    // The VM's heap figures, read once for the batch.
    uint64_t used = 0, committed = 0;
    if (jni) {
        static jclass runtime_class = nullptr;
        static jmethodID get_runtime = nullptr, total = nullptr, free_memory = nullptr;
        if (!runtime_class) {
            jclass local = jni->FindClass("java/lang/Runtime");
            if (local) {
                runtime_class = static_cast<jclass>(jni->NewGlobalRef(local));
                jni->DeleteLocalRef(local);
                get_runtime = jni->GetStaticMethodID(runtime_class, "getRuntime", "()Ljava/lang/Runtime;");
                total = jni->GetMethodID(runtime_class, "totalMemory", "()J");
                free_memory = jni->GetMethodID(runtime_class, "freeMemory", "()J");
            }
            if (jni->ExceptionCheck()) jni->ExceptionClear();
        }
        if (runtime_class && get_runtime && total && free_memory) {
            jobject rt = jni->CallStaticObjectMethod(runtime_class, get_runtime);
            if (rt) {
                committed = static_cast<uint64_t>(jni->CallLongMethod(rt, total));
                used = committed - static_cast<uint64_t>(jni->CallLongMethod(rt, free_memory));
                jni->DeleteLocalRef(rt);
            }
            if (jni->ExceptionCheck()) jni->ExceptionClear();
        }
    }
    const uint64_t allocated = bytes_allocated_.exchange(0);
    std::optional<GcJvmEvent> newest_jvm;
    for (uint64_t g = std::max(gcs_written_, finished > kGcRing ? finished - kGcRing : 0); g < finished;
         ++g) {
        // Deaths that arrived before this GC started (late frees of earlier GCs) go before it.
        gcs_written_ = g;
        flushDeaths(false);
        const GcSlot& slot = gc_ring_[g % kGcRing];
        // The newest GC's figures go after its census: a full GC is held against the JVM only
        // where the census came right after it. A GC that another one followed before the agent
        // counted it may have its frees posted after that one, and filed under it.
        withWriter([&](TraceWriter& w) {
            writeGc(w, slot, used, committed, g + 1 == finished ? &newest_jvm : nullptr);
        });
        // This GC's deaths that have arrived go right after its end, before the next GC's start.
        gcs_written_ = g + 1;
        written_watermark_ = slot.next_object_id;
        flushDeaths(false);
    }
    // Without the JVM's figures, the heap before a GC is estimated as the last one after plus
    // what was allocated since (GCs of one batch share the Runtime's figures read after them).
    estimated_before_ = used + allocated;
    gcs_written_ = finished;
    // Right after the newest GC: objects met untagged (by a walk, or classes no event announced)
    // were alive at it, and take ids from its block.
    const bool exit_census = countsExitHeap();
    // A sampled snapshot's GC is counted too: its per-type figures exact where its references are.
    const bool census = exit_census || censusDue(newest, used) || (walk && options_.sampled());
    bool counted = false;
    if (walk || census) {
        const uint64_t block = newest.next_object_id - newest.reserved;
        walk_next_.store(block, std::memory_order_relaxed);
        walk_end_.store(newest.next_object_id, std::memory_order_relaxed);
        t_ids_at_gc = true;
        if (jni) registerLoadedClasses(jni);
        prepareWalk();
        if (walk) {
            flushDeaths(false);
            if (addresses) writeAddresses(last, *addresses);
            const SnapshotTaken taken =
                walkHeap(*this, static_cast<uint32_t>(last), newest.next_object_id,
                         options_.sampled() ? boundsAtGc(newest) : std::span<const SpaceBounds>());
            if (taken.taken) {
                walked_any_ = true;
                last_walked_gc_ = last;
                snapshot_asked_.store(false, std::memory_order_release);
                last_snapshot_gc_.store(static_cast<int64_t>(last), std::memory_order_release);
                ++snapshots_taken_;
                snapshot_ns_ += taken.ns;
                last_snapshot_ns_ = taken.ns;
                last_snapshot_bytes_ = std::max<uint64_t>(used, 1);
                unsampled_listed_ += taken.unsampled;
                unreached_listed_ += taken.unreached;
            } else {
                snapshot_missed_.store(taken.missed ? taken.missed : "", std::memory_order_release);
                if (taken.lasting) snapshot_asked_.store(false, std::memory_order_release);
                ++snapshots_missed_;
            }
        }
        // After a full GC, the JVM's own count of its heap, for the trace's self-check (after the
        // walk, so that the objects it met are counted as the trace's; objects it meets untagged
        // take ids from the GC's block too).
        // A sampled census tells what was allocated since the GC by address: past the tops the
        // spaces (or G1's regions) had at its end.
        const std::span<const SpaceBounds> at_gc = boundsAtGc(newest);
        counted = census && countHeap(*this, static_cast<uint32_t>(last), newest.next_object_id,
                                      exit_census ? &exit_live_ : nullptr, true, at_gc);
        if (counted) last_census_bytes_ = std::max<uint64_t>(used, 1);
        if (counted && exit_census) exit_live_gc_ = last;
        endWalk();
        t_ids_at_gc = false;
        const uint64_t met = walk_next_.load(std::memory_order_relaxed) - block;
        walk_end_.store(0, std::memory_order_relaxed);
        if (met > newest.reserved) {
            walk_overflow_ += met - newest.reserved;
            if (newest.reserved < (uint64_t{1} << 20))
                reserve_.store(newest.reserved * 2, std::memory_order_relaxed);
        }
    }
    if (newest_jvm) {
        // Where deaths are told by tags, HotSpot takes a GC's dead tags out of its map and then
        // posts their ObjectFree events outside its lock: some may still be on their way while
        // the census counts, and reach the trace after the next GC began, filed under that one.
        // Only the exit's census, which lists the live objects themselves, is held against the
        // JVM then.
        const bool deaths_known = weak_deaths_.load(std::memory_order_relaxed) || exit_census;
        newest_jvm->whole_heap = newest_jvm->whole_heap && counted && deaths_known;
        withWriter([&](TraceWriter& w) {
            w.extension(static_cast<uint32_t>(format::ExtensionKind::kGcJvm), encodeGcJvm(*newest_jvm));
        });
    }
    if (mark_complete) {
        // Objects whose deaths their tags tell (ones a walk met untagged): HotSpot posts those
        // late, unless a heap walk or count since the GC had it post them first.
        if (!walk && !census && tag_deaths_.load(std::memory_order_relaxed)) flushObjectFrees(*this);
        flushDeaths(false);
        withWriter([&](TraceWriter& w) {
            w.extension(static_cast<uint32_t>(format::ExtensionKind::kGcComplete),
                        encodeGcComplete({static_cast<uint32_t>(last)}));
            w.flush();  // on disk now, for a reader following the trace
        });
    }
}

std::span<const SpaceBounds> Recorder::boundsAtGc(const GcSlot& slot) const {
    const GcFacts* facts = facts_.load(std::memory_order_acquire);
    if (!facts || !slot.end.valid) return {};
    if (!facts->spaces().empty())
        return std::span<const SpaceBounds>(slot.end.spaces.data(),
                                            std::min(facts->spaces().size(), kMaxSpaces));
    return std::span<const SpaceBounds>(gc_regions_.data(), gc_region_count_.load(std::memory_order_acquire));
}

bool Recorder::snapshotInBudget(uint64_t used) const {
    if (options_.refs_percent <= 0) return false;
    // A walk costs about as much per byte of heap in use as the last one did (before any, some
    // ns a byte: HotSpot follows every reference, and the agent names every object).
    constexpr double kFirstNsPerByte = 10.0;
    const double ns_per_byte = last_snapshot_bytes_ ? static_cast<double>(last_snapshot_ns_) /
                                                          static_cast<double>(last_snapshot_bytes_)
                                                    : kFirstNsPerByte;
    const double next_ns = ns_per_byte * static_cast<double>(used);
    const double budget_ns = options_.refs_percent / 100.0 * static_cast<double>(now());
    return static_cast<double>(snapshot_ns_) + next_ns <= budget_ns;
}

bool Recorder::censusDue(const GcSlot& slot, uint64_t used) const {
    const GcFacts* facts = facts_.load(std::memory_order_acquire);
    if (!facts) return false;
    if (facts->countsWholeHeap(slot.start, slot.end)) return true;
    // Young GCs only where the census can tell the objects allocated since by address.
    if (!options_.sampled() || options_.census_percent <= 0 || boundsAtGc(slot).empty()) return false;
    // A census costs about as much per byte of heap in use as the last one did (before any, a
    // few ns a byte: HotSpot looks each object up in its tag map).
    constexpr double kFirstNsPerByte = 3.0;
    const double ns_per_byte =
        last_census_bytes_ ? static_cast<double>(last_census_ns_) / static_cast<double>(last_census_bytes_)
                           : kFirstNsPerByte;
    const double next_ns = ns_per_byte * static_cast<double>(used);
    const double budget_ns = options_.census_percent / 100.0 * static_cast<double>(now());
    return static_cast<double>(census_ns_) + next_ns <= budget_ns;
}

void Recorder::accountLastGc(JNIEnv* jni) {
    // Threads may go on running, and collecting, while the VM exits: a few tries.
    for (int attempt = 0; attempt < 8 && gcs_written_ > 0 && exit_live_gc_ + 1 != gcs_written_; ++attempt) {
        if (gcs_finished_.load(std::memory_order_acquire) != gcs_written_) {
            processGcs(jni);  // counts the newest of them
            continue;
        }
        // No GC since the last one written (the agent thread wrote it): count its heap now.
        const uint64_t last = gcs_written_ - 1;
        prepareWalk();
        if (countHeap(*this, static_cast<uint32_t>(last), written_watermark_, &exit_live_, false))
            exit_live_gc_ = last;
        endWalk();
    }
}

uint32_t Recorder::stringId(TraceWriter& w, const std::string& text) {
    if (text.empty()) return 0;
    auto [it, added] = strings_.emplace(text, 0);
    if (added) {
        it->second = ++next_string_;
        w.defineString(it->second, text);
    }
    return it->second;
}

void Recorder::writeGc(TraceWriter& w, const GcSlot& s, uint64_t used, uint64_t committed,
                       std::optional<GcJvmEvent>* newest) {
    const GcFacts* facts = facts_.load(std::memory_order_acquire);
    const bool known = facts && s.start.valid && s.end.valid;
    GcStartEvent start;
    start.gc = s.index;
    start.time_ns = s.start_ns;
    GcEndEvent end;
    end.gc = s.index;
    end.time_ns = s.end_ns;
    end.next_object_id = s.next_object_id;
    end.pause_ns = static_cast<uint64_t>(std::max<int64_t>(0, s.end_ns - s.start_ns));
    end.heap_used_before = estimated_before_;
    end.heap_used_after = used;
    end.heap_committed = committed;
    GcJvmEvent jvm;
    jvm.gc = s.index;
    jvm.unreported = s.unreported;
    jvm.whole_heap = newest && facts && facts->countsWholeHeap(s.start, s.end);
    if (known) {
        start.kind = facts->kindOf(s.start, s.end);
        start.cause = stringId(w, GcFacts::causeOf(s.end));
        for (size_t i = 0; i < facts->collectors().size(); ++i) {
            if (facts->collectors()[i].empty()) continue;
            jvm.collectors.push_back({stringId(w, facts->collectors()[i]),
                                      static_cast<uint64_t>(s.start.invocations[i]),
                                      static_cast<uint64_t>(s.end.invocations[i])});
        }
        if (!facts->pools().empty()) {
            end.heap_used_before = end.heap_used_after = end.heap_committed = 0;
            for (size_t i = 0; i < facts->pools().size(); ++i) {
                const PoolUsage &b = s.start.pools[i], &a = s.end.pools[i];
                jvm.pools.push_back(
                    {stringId(w, facts->pools()[i]), b.used, b.committed, a.used, a.committed});
                end.heap_used_before += b.used;
                end.heap_used_after += a.used;
                end.heap_committed += a.committed;
            }
        }
    }
    w.gcStart(start);
    w.gcEnd(end);
    if (!known) return;
    if (auto spaces = spacesOf(w, s)) w.gcSpaces(*spaces);
    GcRegionsEvent before, after;
    if (regions_.take(s.index, &before, &after)) {
        w.gcRegions(before);
        w.gcRegions(after);
    }
    if (newest)
        *newest = std::move(jvm);
    else
        w.extension(static_cast<uint32_t>(format::ExtensionKind::kGcJvm), encodeGcJvm(jvm));
}

std::optional<std::vector<ObjectAddress>> Recorder::takeAddresses(uint64_t gc, uint64_t watermark) {
    if (!weak_deaths_.load(std::memory_order_relaxed)) return std::nullopt;
    std::vector<ObjectAddress> objects;
    const auto start = std::chrono::steady_clock::now();
    const bool read = readAddresses(gc + 1, watermark, &objects);
    addresses_ns_ +=
        std::chrono::duration<double, std::nano>(std::chrono::steady_clock::now() - start).count();
    if (!read) {
        ++addresses_missed_;
        return std::nullopt;
    }
    return objects;
}

void Recorder::writeAddresses(uint64_t gc, const std::vector<ObjectAddress>& objects) {
    ++addresses_written_;
    withWriter([&](TraceWriter& w) { w.addresses(static_cast<uint32_t>(gc), objects); });
}

std::optional<GcSpacesEvent> Recorder::spacesOf(TraceWriter& w, const GcSlot& s) {
    const GcFacts* facts = facts_.load(std::memory_order_acquire);
    if (!facts || facts->spaces().empty() || !s.end.valid) return std::nullopt;
    struct Named {
        std::string name;
        SpaceKind kind;
        SpaceBounds bounds;
    };
    std::vector<Named> spaces;
    for (size_t i = 0; i < facts->spaces().size() && i < kMaxSpaces; ++i) {
        const SpaceBounds& b = s.end.spaces[i];
        if (b.end == 0) return std::nullopt;  // unreadable: the layout is not what was expected
        spaces.push_back({facts->spaces()[i], static_cast<SpaceKind>(facts->spaceKinds()[i]), b});
    }
    // In address order; a role held twice (the survivors, from and to, which swap at every young
    // GC) is told apart by address: "Survivor Space 0" is the lower.
    std::sort(spaces.begin(), spaces.end(),
              [](const Named& a, const Named& b) { return a.bounds.bottom < b.bounds.bottom; });
    std::unordered_map<std::string, size_t> held, seen;
    for (const Named& n : spaces)
        ++held[n.name];
    for (Named& n : spaces) {
        const size_t k = seen[n.name]++;
        if (held[n.name] > 1) n.name += " " + std::to_string(k);
    }
    GcSpacesEvent e;
    e.gc = s.index;
    for (const Named& n : spaces) {
        auto [it, added] = space_ids_.emplace(n.name, static_cast<uint32_t>(space_ids_.size() + 1));
        if (added) w.defineSpace(it->second, n.name, n.bounds.bottom, n.bounds.end - n.bounds.bottom);
        // Its top before the GC: the space that began where it begins (the survivors swap roles).
        uint64_t before = n.bounds.bottom;
        for (size_t i = 0; i < facts->spaces().size() && i < kMaxSpaces && s.start.valid; ++i)
            if (s.start.spaces[i].bottom == n.bounds.bottom)
                before = std::clamp(s.start.spaces[i].top, n.bounds.bottom, n.bounds.end);
        e.spaces.push_back({it->second, n.kind, n.bounds.bottom, n.bounds.top, n.bounds.end, before});
    }
    return e;
}

}  // namespace memcity::agent
