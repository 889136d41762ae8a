// Recorder, its life cycle: the trace opened and the events enabled (at JVM start, or when
// attached to a running JVM), what VM init and attach do before recording begins, the agent's
// own threads, and the end: the JVM's exit, or a detach that leaves it running.
#include <fcntl.h>
#include <unistd.h>

#include <cstdio>
#include <cstdlib>

#include "heap_samplers.h"
#include "heap_walk.h"
#include "hotspot.h"
#include "jvmti_util.h"
#include "recorder.h"
#include "shutdown_hook.h"
#include "thread_flags.h"
#include "trace/extensions.h"

namespace memcity::agent {
namespace {

constexpr int64_t kPeriodicFlushNs = 1'000'000'000;
constexpr jlong kPollMs = 10;  // the agent thread's longest sleep

// Whether the JVM runs a collector under which a GC forced in VMDeath can hang (ZGC,
// Shenandoah). JVMTI does not say which collector runs; the command line and the option
// variables the launcher reads do.
bool concurrentCollectorRequested() {
    std::string all;
    if (FILE* f = std::fopen("/proc/self/cmdline", "rb")) {
        char buf[4096];
        size_t n;
        while ((n = std::fread(buf, 1, sizeof buf, f)) > 0)
            all.append(buf, n);
        std::fclose(f);
    }
    for (const char* var : {"JAVA_TOOL_OPTIONS", "JDK_JAVA_OPTIONS", "_JAVA_OPTIONS"})
        if (const char* v = std::getenv(var)) all += v;
    return all.find("UseZGC") != std::string::npos || all.find("UseShenandoahGC") != std::string::npos;
}

// The events the recorder enables (and turns off at detach).
constexpr jvmtiEvent kEvents[] = {JVMTI_EVENT_VM_INIT,
                                  JVMTI_EVENT_VM_DEATH,
                                  JVMTI_EVENT_THREAD_START,
                                  JVMTI_EVENT_THREAD_END,
                                  JVMTI_EVENT_CLASS_LOAD,
                                  JVMTI_EVENT_CLASS_PREPARE,
                                  JVMTI_EVENT_SAMPLED_OBJECT_ALLOC,
                                  JVMTI_EVENT_VM_OBJECT_ALLOC,
                                  JVMTI_EVENT_OBJECT_FREE,
                                  JVMTI_EVENT_GARBAGE_COLLECTION_START,
                                  JVMTI_EVENT_GARBAGE_COLLECTION_FINISH};
// HotSpot's heap sampling interval when nobody set one (bytes), restored at detach.
constexpr jint kDefaultSamplingInterval = 512 * 1024;

void JNICALL agentThreadMain(jvmtiEnv*, JNIEnv* jni, void* arg) {
    static_cast<Recorder*>(arg)->agentThread(jni);
}

// The recorder the shutdown hook finishes (the hook's function cannot capture it).
Recorder* g_shutdown_recorder = nullptr;

}  // namespace

Status Recorder::start(bool attaching) {
    if (options_.shared) {
        // Creating the file is the claim: the first JVM gets it, later ones (forked by the same
        // command, or run after it) write beside it.
        int fd = ::open(options_.file.c_str(), O_WRONLY | O_CREAT | O_EXCL | O_CLOEXEC, 0644);
        if (fd < 0 && errno == EEXIST) {
            const std::string taken = options_.file;
            options_.file = sharedTracePath(taken, static_cast<long>(getpid()));
            // Said even when quiet: nobody would look for this file otherwise.
            std::fprintf(stderr,
                         "memcity agent: %s is another JVM's trace; this JVM (pid %ld) records into %s\n",
                         taken.c_str(), static_cast<long>(getpid()), options_.file.c_str());
        } else if (fd >= 0) {
            ::close(fd);
        }
    }
    WriterOptions wo;
    wo.start_wall_ns = static_cast<uint64_t>(wallNs());
    wo.sampling_interval = options_.interval;
    start_ns_ = monotonicNs();
    auto w = TraceWriter::create(options_.file, wo);
    if (!w) return w.error();
    writer_ = std::move(*w);
    writer_->meta("producer", "memcity agent");
    writer_->meta("depth", std::to_string(options_.depth));
    writer_->meta("refs", options_.refs_every ? std::to_string(options_.refs_every) : "off");
    if (options_.sampled()) {
        writer_->meta("sampling interval", std::to_string(options_.interval));
        writer_->meta("census budget", std::to_string(options_.census_percent) + "%");
    }
    // Snapshots come from FollowReferences from the heap roots (heap_walk.cpp).
    writer_->meta(format::kMetaSnapshots, format::kSnapshotsFromRoots);
    writer_->meta("pid", std::to_string(getpid()));
    // Where the live control channel will listen, once the recording has begun (a viewer that
    // opens the trace before then waits for it); an empty value if it could not start.
    if (options_.control) writer_->meta("control", live::socketPath(geteuid(), getpid()));
    writer_->defineString(1, "unknown");
    if (jvmti_->CreateRawMonitor("memcity", &monitor_) != JVMTI_ERROR_NONE)
        return Error{"cannot create a JVMTI raw monitor"};
    unsafe_final_gc_ = concurrentCollectorRequested();
    recording_ = true;
    for (jvmtiEvent e : kEvents) {
        // Attaching, the GC events come once every thread reports its allocations (attach()).
        if (attaching &&
            (e == JVMTI_EVENT_GARBAGE_COLLECTION_START || e == JVMTI_EVENT_GARBAGE_COLLECTION_FINISH))
            continue;
        // Sampled: the heap sampler sees the VM's own allocations too, sampled like the rest;
        // ObjectFree only once deaths are known to need it (learnTheJvm).
        if (options_.sampled() && (e == JVMTI_EVENT_VM_OBJECT_ALLOC || e == JVMTI_EVENT_OBJECT_FREE))
            continue;
        if (jvmti_->SetEventNotificationMode(JVMTI_ENABLE, e, nullptr) != JVMTI_ERROR_NONE)
            return Error{"cannot enable JVMTI event " + std::to_string(e)};
    }
    // Every allocation, or one per interval on average.
    if (jvmti_->SetHeapSamplingInterval(static_cast<jint>(options_.interval)) != JVMTI_ERROR_NONE)
        return Error{"cannot set the heap sampling interval to " + std::to_string(options_.interval)};
    object_free_on_.store(!options_.sampled(), std::memory_order_release);
    return {};
}

// ---- VM life cycle ----

void Recorder::resetSamplingDistance(JNIEnv* jni) {
    // On JDK 17 a thread that existed before sampling was set to every allocation keeps its
    // first, random sampling distance (512 KiB on average) and misses its first allocations;
    // the first allocation reported draws the next distance, which is then 0. Small arrays,
    // garbage at once, until one is reported: they cost the program no heap past the first GC.
    t_agent_sampled = false;
    for (int i = 0; i < 1024 && !t_agent_sampled; ++i) {
        jbyteArray a = jni->NewByteArray(32 << 10);
        if (!a) break;
        jni->DeleteLocalRef(a);
    }
    if (jni->ExceptionCheck()) jni->ExceptionClear();
}

bool Recorder::weakDeathsWork(JNIEnv* jni) {
    // The collectors that clear weak references only in their pauses (ZGC and Shenandoah clear
    // them concurrently: a slot read at a GC's end may still hold a dead object).
    if (!facts_owner_->stopsTheWorld()) {
        const std::string& gc = facts_owner_->collectorName();
        deaths_how_ = "tags (" + (gc.empty() ? std::string("an unknown collector") : gc) + ")";
        return false;
    }
    // A weak reference's slot holds what a local reference's does (the object is the agent's).
    bool same = false;
    t_agent_allocating = true;
    if (jclass object = jni->FindClass("java/lang/Object")) {
        if (jobject o = jni->AllocObject(object)) {
            if (jweak w = jni->NewWeakGlobalRef(o)) {
                same = addressOf(o) != 0 && addressOf(o) == addressOfWeak(w);
                jni->DeleteWeakGlobalRef(w);
            }
            jni->DeleteLocalRef(o);
        }
        jni->DeleteLocalRef(object);
    }
    if (jni->ExceptionCheck()) jni->ExceptionClear();
    t_agent_allocating = false;
    deaths_how_ = same ? "weak references" : "tags (a weak reference's slot is not where it was looked for)";
    return same;
}

void Recorder::onVmInit(JNIEnv* jni, jthread vm_thread) {
    if (!recording()) return;
    const int64_t init_began = now();
    // What the agent allocates here is its own: tagged as such, never recorded. A sampled
    // recording lets every thread keep the distance it drew: it loses no allocation, only shifts
    // where its first sample falls.
    t_agent_allocating = true;
    if (!options_.sampled()) resetSamplingDistance(jni);
    t_agent_allocating = false;
    learnTheJvm(jni);
    noteCollectionsSoFar();
    beginRecording(jni, vm_thread);
    startup_ns_ = now() - init_began;
}

Status Recorder::attach(JNIEnv* jni, jthread current) {
    const int64_t began = now();
    attached_ = true;
    // Deaths by weak references where they suit, chosen before any allocation is reported.
    learnTheJvm(jni);
    if (Status s = start(true); !s) return s;
    withWriter([](TraceWriter& w) { w.meta("attached", "yes: objects alive at attach have no site"); });
    // Every thread reports its allocations from here on. This one once it had one sampled (see
    // resetSamplingDistance); the others, on JDK 17, once their sampling distance is 0 (JDK 17
    // keeps the distance each drew before: up to a few hundred KiB unreported); then each
    // once it leaves the allocation buffer it is in, which a GC retires. A sampled recording
    // needs none of it (each thread's next sample comes where the distance it drew ends) and
    // forces no GC: a service's pause for a full GC of a large heap is what it came to avoid.
    if (!options_.sampled()) {
        t_agent_allocating = true;
        resetSamplingDistance(jni);
        t_agent_allocating = false;
        std::string why;
        if (auto samplers =
                facts_owner_->vm() ? HeapSamplers::find(*facts_owner_->vm(), jni, current, &why) : nullptr) {
            const size_t reset = samplers->resetOthers(jvmti_, jni, current);
            withWriter([&](TraceWriter& w) { w.meta("sampling reset", std::to_string(reset) + " threads"); });
        } else if (!why.empty()) {
            withWriter([&](TraceWriter& w) {
                w.meta("warning", "other threads' heap sampling distance could not be reset (" + why +
                                      "): on JDK 17 their first allocations after attach may be missing");
            });
        }
        jvmti_->ForceGarbageCollection();
    }
    // GCs from here on (the GC above is not the trace's: the heap after it is where it begins).
    noteCollectionsSoFar();
    for (jvmtiEvent e : {JVMTI_EVENT_GARBAGE_COLLECTION_START, JVMTI_EVENT_GARBAGE_COLLECTION_FINISH})
        if (jvmti_->SetEventNotificationMode(JVMTI_ENABLE, e, nullptr) != JVMTI_ERROR_NONE)
            return Error{"cannot enable JVMTI event " + std::to_string(e)};
    beginRecording(jni, current);
    startup_ns_ = now() - began;
    return recording() ? Status{} : Status(Error{error_.empty() ? "the recording could not start" : error_});
}

void Recorder::learnTheJvm(JNIEnv* jni) {
    t_agent_allocating = true;
    // The size of a reference in an array: 4 with compressed pointers, 8 without.
    if (jclass object = jni->FindClass("java/lang/Object")) {
        clone_method_ = jni->GetMethodID(object, "clone", "()Ljava/lang/Object;");
        if (jni->ExceptionCheck()) jni->ExceptionClear();
        if (jobjectArray two = jni->NewObjectArray(2, object, nullptr)) {
            jlong size = 0;
            jvmti_->GetObjectSize(two, &size);
            classes_.setReferenceBytes(size > 24 ? 8 : 4);
            jni->DeleteLocalRef(two);
        }
        jni->DeleteLocalRef(object);
    }
    t_agent_allocating = false;
    // The JVM's own figures of each GC (and, sampled under G1, room for its regions' extents).
    facts_owner_ = GcFacts::create();
    if (options_.sampled()) gc_regions_.resize(facts_owner_->maxRegions());
    regions_.init(*facts_owner_);  // G1's region table at each GC (GC_REGIONS)
    facts_.store(facts_owner_.get(), std::memory_order_release);
    // Deaths by weak references where the collector suits them. Until the walk of the objects
    // that were there has marked them, new objects are tagged at once (prepareWalk), or the
    // walk would take them for older ones.
    weak_deaths_.store(options_.deaths == DeathMode::kWeak && weakDeathsWork(jni), std::memory_order_release);
    if (!object_free_on_.load(std::memory_order_acquire) && !weak_deaths_.load(std::memory_order_relaxed) &&
        jvmti_->SetEventNotificationMode(JVMTI_ENABLE, JVMTI_EVENT_OBJECT_FREE, nullptr) == JVMTI_ERROR_NONE)
        object_free_on_.store(true, std::memory_order_release);
    prepareWalk();
}

void Recorder::noteCollectionsSoFar() {
    // Collections from here on that JVMTI does not report are found (see noticeUnreportedGcs).
    if (!facts_owner_->available()) return;
    std::lock_guard lock(gc_ring_mutex_);
    if (gcs_started_.load(std::memory_order_acquire) == gcs_finished_.load(std::memory_order_acquire)) {
        facts_owner_->sampleCounters(&last_end_sample_);  // what an unreported GC starts from
        announced_collections_.store(facts_owner_->totalCollections(), std::memory_order_release);
    }
}

void Recorder::beginRecording(JNIEnv* jni, jthread vm_thread) {
    // Sites from the JVM's own frames where its layout is known (else GetStackTrace for each).
    if (options_.sites == SiteMode::kJvmti) {
        walker_off_ = "sites=jvmti";
    } else if (!facts_owner_->vm()) {
        walker_off_ = "the JVM exports no structure layout";
    } else {
        walker_ = StackWalker::create(*facts_owner_->vm(), jni, vm_thread, &walker_off_);
        if (walker_ && facts_owner_->perf())
            unloaded_classes_ = facts_owner_->perf()->number("sun.cls.unloadedClasses");
        if (unloaded_classes_) unloaded_seen_.store(*unloaded_classes_);
        walker_on_.store(walker_ != nullptr, std::memory_order_release);
    }
    if (!walker_ && options_.sites == SiteMode::kCheck)
        std::fprintf(stderr, "memcity agent: check: no sites are read from the JVM's frames (%s)\n",
                     walker_off_.c_str());
    if (!facts_owner_->collectorName().empty())
        withWriter([&](TraceWriter& w) { w.meta("collector", facts_owner_->collectorName()); });
    if (!facts_owner_->available())
        withWriter([&](TraceWriter& w) {
            w.meta("warning",
                   "this JVM exports no GC counters: GC kinds, causes and memory pools are unknown");
        });
    for (const char* key : {"java.vm.name", "java.vm.version", "java.version"}) {
        JvmtiPtr<char> value(jvmti_);
        if (jvmti_->GetSystemProperty(key, value.out()) == JVMTI_ERROR_NONE && value.get()) {
            std::string v = value.get();
            withWriter([&](TraceWriter& w) { w.meta(key, v); });
        }
    }

    // java.lang.Class first: from then on every class registered records its mirror.
    if (jclass cls = jni->FindClass("java/lang/Class")) {
        class_of_class_.store(classIndex(jni, cls), std::memory_order_release);
        jni->DeleteLocalRef(cls);
    }
    // Every class loaded so far, with its mirror (classes registered before VM init have none
    // yet); classes loaded but not prepared get provisional entries.
    {
        jint n = 0;
        JvmtiPtr<jclass> loaded(jvmti_);
        if (jvmti_->GetLoadedClasses(&n, loaded.out()) == JVMTI_ERROR_NONE) {
            for (jint i = 0; i < n; ++i) {
                jclass klass = loaded[static_cast<size_t>(i)];
                if (uint32_t ci = classIndex(jni, klass); ci != kNoClass) {
                    if (classes_[ci].mirror_id.load(std::memory_order_acquire) == kNoObject)
                        recordMirror(ci, klass, kNoObject);
                }
                jni->DeleteLocalRef(klass);
            }
        }
    }
    classes_.markFillers();
    const ExistingObjects existing = recordExistingObjects(*this, jni);
    endWalk();
    withWriter([&](TraceWriter& w) {
        w.meta("objects before recording", std::to_string(existing.objects));
        w.meta("objects before recording, reachable", std::to_string(existing.reachable));
        if (existing.error != JVMTI_ERROR_NONE)
            w.meta("warning", "the walk of the heap there before recording failed with JVMTI error " +
                                  std::to_string(existing.error));
    });
    mirrors_stay_put_ = facts_owner_->stopsTheWorld() && !facts_owner_->collectors().empty();
    // Threads that ran before recording began: their roots are named from the first walk on.
    registerRunningThreads(jni, vm_thread);
    // An object of the agent's own that a flush of ObjectFree events walks from (flushObjectFrees).
    t_agent_allocating = t_agent_classes = true;
    if (jclass object_class = jni->FindClass("java/lang/Object")) {
        if (jobject anchor = jni->AllocObject(object_class)) flush_anchor_ = jni->NewGlobalRef(anchor);
        jni->DeleteLocalRef(object_class);
    }
    if (jni->ExceptionCheck()) jni->ExceptionClear();
    t_agent_allocating = t_agent_classes = false;
    // The agent thread: writes GCs, deaths and snapshots, and flushes buffers every second.
    if (Status s = startAgentThread(jni, "memcity-agent", agentThreadMain, this); !s) {
        stopWithError(s.error().message);
        return;
    }
    agent_running_ = true;
    // Finish in a shutdown hook where there is one (see shutdown_hook.h); VMDeath remains for
    // Runtime.halt and a hook that could not be installed.
    g_shutdown_recorder = this;
    t_agent_allocating = t_agent_classes = true;
    auto hook = installShutdownHook(jni, [](JNIEnv* env) {
        if (g_shutdown_recorder) g_shutdown_recorder->onShutdown(env);
    });
    t_agent_allocating = t_agent_classes = false;
    if (hook)
        shutdown_hook_ = *hook;
    else
        std::fprintf(stderr, "memcity agent: %s; the trace is finished at VM death\n",
                     hook.error().message.c_str());
    // The live control channel (see live_control.h), unless asked not to.
    if (options_.control) {
        auto control = std::make_unique<LiveControl>(*this, jvmti_, can_suspend_);
        if (Status s = control->start(jni, options_.file, options_.owned); s) {
            control_.store(control.get(), std::memory_order_release);
            control_owner_ = std::move(control);
        } else if (attached_) {
            // Attached, nothing but a client could end the recording: it does not begin.
            no_control_ = true;
            error_ = "no live control: " + s.error().message;
            recording_ = false;
        } else {
            withWriter([&](TraceWriter& w) { w.meta("control", ""); });
            std::fprintf(stderr, "memcity agent: no live control: %s\n", s.error().message.c_str());
        }
    }
}

Status Recorder::startAgentThread(JNIEnv* jni, const char* name, jvmtiStartFunction body, void* arg) {
    t_agent_allocating = t_agent_classes = true;
    jclass thread_class = jni->FindClass("java/lang/Thread");
    jmethodID init =
        thread_class ? jni->GetMethodID(thread_class, "<init>", "(Ljava/lang/String;)V") : nullptr;
    jstring jname = jni->NewStringUTF(name);
    jobject thread = init && jname ? jni->NewObject(thread_class, init, jname) : nullptr;
    if (jni->ExceptionCheck()) jni->ExceptionClear();
    // The agent's own, whatever reported its allocation (a sampled recording seldom does):
    // live control's pause suspends every thread but these.
    if (thread) jvmti_->SetTag(thread, kAgentObjectTag);
    const bool started =
        thread && jvmti_->RunAgentThread(thread, body, arg, JVMTI_THREAD_NORM_PRIORITY) == JVMTI_ERROR_NONE;
    for (jobject local : {static_cast<jobject>(thread_class), static_cast<jobject>(jname), thread})
        if (local) jni->DeleteLocalRef(local);
    t_agent_allocating = t_agent_classes = false;
    if (!started) return Error{std::string("cannot start the agent's thread ") + name};
    return {};
}

void Recorder::agentThread(JNIEnv* jni) {
    t_agent_allocating = true;
    int64_t last_flush = now();
    for (;;) {
        jvmti_->RawMonitorEnter(monitor_);
        // Woken by every GC; the short wait notices GCs JVMTI does not report (a quiet program
        // allocates and frees nothing that would notice them first).
        if (!stop_agent_) jvmti_->RawMonitorWait(monitor_, kPollMs);
        const bool stop = stop_agent_;
        jvmti_->RawMonitorExit(monitor_);
        if (recording()) {
            noticeUnreportedGcs();
            noticeUnloads();  // a concurrent collector's unloading is not reported as a GC
            // Have the VM post an unreported GC's deaths now, before another GC can come and
            // take them (HotSpot may keep them until the next heap walk or GC).
            if (unreported_pending_.exchange(false)) onUnreportedGc();
            writeFullBuffers();
            processGcs(jni);
            if (LiveControl* control = control_.load(std::memory_order_acquire))
                control->afterGcsWritten(jni, gcs_written_);
            flushDeaths(false);
            releaseWeak(jni);
            if (now() - last_flush >= kPeriodicFlushNs) {
                // Bounds what a crash of the JVM can lose to about a second.
                flushAllThreads();
                withWriter([](TraceWriter& w) { w.flush(); });
                last_flush = now();
            }
        }
        if (stop) break;
    }
    jvmti_->RawMonitorEnter(monitor_);
    agent_stopped_ = true;
    jvmti_->RawMonitorNotifyAll(monitor_);
    jvmti_->RawMonitorExit(monitor_);
}

void Recorder::stopAgentThread() {
    if (!agent_running_) return;
    jvmti_->RawMonitorEnter(monitor_);
    stop_agent_ = true;
    jvmti_->RawMonitorNotifyAll(monitor_);
    while (!agent_stopped_)
        jvmti_->RawMonitorWait(monitor_, 100);
    jvmti_->RawMonitorExit(monitor_);
}

void Recorder::detach(JNIEnv* jni) {
    // Not against the JVM's exit, which finishes the trace itself (and stops the control
    // thread this runs on: it must not wait for this).
    std::unique_lock lock(shutdown_mutex_, std::try_to_lock);
    while (!lock.owns_lock()) {
        if (shutting_down_.load(std::memory_order_acquire)) return;
        usleep(1000);
        lock.try_lock();
    }
    if (finished_ || shutting_down_) return;
    exit_began_ns_ = now();
    t_agent_allocating = true;
    // 1. No more events, and HotSpot's own sampling again; the callbacks under way end.
    // ObjectFree is ignored, not turned off: turning it off waits for the ServiceThread to finish
    // posting the frees it has, without letting a safepoint begin, and that thread waits for
    // the safepoint a GC asked for (a HotSpot deadlock, seen on JDK 17 about one detach in
    // twenty while the program allocates). Disposing of the environment ends them.
    frees_ignored_.store(true, std::memory_order_release);
    for (jvmtiEvent e : kEvents)
        if (e != JVMTI_EVENT_OBJECT_FREE) jvmti_->SetEventNotificationMode(JVMTI_DISABLE, e, nullptr);
    jvmti_->SetHeapSamplingInterval(kDefaultSamplingInterval);
    if (control_owner_) control_owner_->stop(jni);  // the program resumed, the socket closed
    waitForCallbacks();
    // 2. The trace: the GCs so far (the last one marked complete), their deaths, every buffer.
    stopAgentThread();
    finish(jni);
    // 3. Everything of the agent's in the JVM: references, the shutdown hook. The tags go with
    // the JVMTI environment, which the agent disposes of last (agent.cpp).
    releaseAll(jni);
    detached_.store(true, std::memory_order_release);
    jvmti_->DisposeEnvironment();  // its tags, capabilities and callbacks with it
}

void Recorder::waitForCallbacks() {
    // A callback the JVM began before the events were turned off may still be on its way in.
    usleep(50'000);
    for (int waited = 0; callbacks_.load(std::memory_order_acquire) != 0 && waited < 5000; ++waited)
        usleep(1000);
}

void Recorder::releaseAll(JNIEnv* jni) {
    for (ThreadState* ts : trackingStates()) {
        std::lock_guard lock(ts->mutex);
        for (size_t i = 0; i < ts->tracked.size(); ++i)
            jni->DeleteWeakGlobalRef(ts->tracked[i].ref);
        ts->tracked.clear();
        if (ts->object) {
            jni->DeleteWeakGlobalRef(ts->object);
            ts->object = nullptr;
        }
        // What a detached recorder keeps of a thread is its state's shell (see agent.cpp).
        ts->key_cache.reset();
        ts->blob_cache.reset();
        ts->events = EventEncoder();
        ts->full.clear();
        ts->spare.clear();
    }
    {
        std::lock_guard lock(mirrors_mutex_);
        for (const auto& [ref, id] : mirror_refs_)
            jni->DeleteWeakGlobalRef(ref);
        mirror_refs_.clear();
        mirror_ids_.clear();
    }
    releaseWeak(jni);
    if (flush_anchor_) {
        jni->DeleteGlobalRef(flush_anchor_);
        flush_anchor_ = nullptr;
    }
    removeShutdownHook(jni, shutdown_hook_);
    shutdown_hook_ = nullptr;
    if (g_shutdown_recorder == this) g_shutdown_recorder = nullptr;
}

void Recorder::onShutdown(JNIEnv* jni) {
    std::lock_guard lock(shutdown_mutex_);
    if (finished_) return;
    t_agent_allocating = true;
    onVmDeath(jni);
}

void Recorder::onVmDeath(JNIEnv* jni) {
    if (finished_) return;
    exit_began_ns_ = now();
    // A paused program resumes: the JVM exits (its other shutdown hooks may allocate).
    shutting_down_ = true;
    if (control_owner_) control_owner_->stop(jni);
    stopAgentThread();
    exiting_ = true;
    if (recording() && options_.final_gc && !unsafe_final_gc_) {
        // A last GC, so the objects that are garbage by now are recorded as dead. It has a
        // reference snapshot whatever refs=N says: the heap the program ends with (not in a
        // sampled recording, which takes none).
        jvmti_->ForceGarbageCollection();
        snapshot_last_ = !options_.sampled();
    }
    // The deaths of the GCs so far that the tag map still holds are posted to this thread
    // before the walk returns. Those the service thread has taken (JDK 17 and later) may still
    // be arriving when the trace is closed: the last GC's heap count (GC_LIVE) accounts for
    // them. Turning ObjectFree off would wait for them, but HotSpot waits there without letting
    // a safepoint begin, while the service thread waits for the safepoint to end: a deadlock
    // whenever another thread asks for a GC meanwhile (System.exit from one of several threads).
    if (recording() && object_free_on_.load(std::memory_order_acquire)) flushObjectFrees(*this);
    finish(jni);
}

void Recorder::finish(JNIEnv* jni) {
    if (finished_) return;
    if (recording()) {
        processGcs(jni);
        if (countsExitHeap()) accountLastGc(jni);
        flushDeaths(true);
        flushAllThreads();
        // Last, so that no death follows it: of the objects born before the last GC, those the
        // heap held then. The others died in it, or before, with or without their event.
        if (gcs_written_ > 0 && exit_live_gc_ == gcs_written_ - 1) {
            GcLiveEvent live{static_cast<uint32_t>(exit_live_gc_), std::move(exit_live_)};
            std::vector<uint8_t> payload = encodeGcLive(live);
            // One event fits in one chunk: a heap of some 30 million objects and more is not
            // listed (its deaths still in flight at close are then missing), rather than lost.
            if (payload.size() <= format::kMaxChunkPayload / 2) {
                withWriter([&](TraceWriter& w) {
                    w.extension(static_cast<uint32_t>(format::ExtensionKind::kGcLive), payload);
                });
            } else {
                std::fprintf(stderr,
                             "memcity agent: the last GC's heap (%zu objects) is too large to list; deaths "
                             "posted after the trace was closed are missing\n",
                             live.ids.size());
            }
        }
    }
    recording_ = false;
    // With ObjectFree off HotSpot has no deaths to post, and the heap need not be walked.
    if (exiting_ && object_free_on_.load(std::memory_order_acquire)) untagAll(*this);
    if (addresses_written_ + addresses_missed_ > 0)
        withWriter([&](TraceWriter& w) {
            char text[160];
            std::snprintf(text, sizeof text,
                          "%llu snapshot GCs, read in %.1f ms; %llu missed (a GC came first)",
                          static_cast<unsigned long long>(addresses_written_), addresses_ns_ / 1e6,
                          static_cast<unsigned long long>(addresses_missed_));
            w.meta("addresses", text);
        });
    if (options_.sampled() && snapshots_taken_ + snapshots_missed_ > 0) {
        char ms[32];
        std::snprintf(ms, sizeof ms, "%.1f", static_cast<double>(snapshot_ns_) / 1e6);
        std::string line = std::to_string(snapshots_taken_) + " taken in " + ms + " ms, listing " +
                           std::to_string(unsampled_listed_) + " objects besides the samples (" +
                           std::to_string(unreached_listed_) + " of them reached by no root JVMTI reports)";
        if (snapshots_missed_ > 0)
            line +=
                "; " + std::to_string(snapshots_missed_) + " missed (the last: " + lastSnapshotMiss() + ")";
        withWriter([&](TraceWriter& w) { w.meta("snapshots.taken", line); });
    }
    uint64_t objects = next_id_.load(), gcs = gcs_written_, bytes = 0;
    Status closed;
    {
        std::lock_guard lock(writer_mutex_);
        if (writer_) {
            closed = writer_->close();
            bytes = writer_->bytesWritten();
        }
        finished_ = true;
    }
    if (!closed.ok()) {
        std::fprintf(stderr, "memcity agent: %s\n", closed.error().message.c_str());
    } else if (!options_.quiet) {
        std::fprintf(stderr, "memcity agent: recorded %llu objects and %llu GCs into %s (%.1f MiB)\n",
                     static_cast<unsigned long long>(objects), static_cast<unsigned long long>(gcs),
                     options_.file.c_str(), static_cast<double>(bytes) / (1 << 20));
    }
    if (!options_.quiet) {
        // Where the time went: VM init's walk of the heap that was there, and the exit (the last
        // GC, its deaths and heap count, and the trace's close); the rest ran with the program.
        std::fprintf(stderr, "memcity agent: deaths by %s; start-up %.3f s, exit %.3f s\n",
                     deaths_how_.c_str(), static_cast<double>(startup_ns_) / 1e9,
                     static_cast<double>(now() - exit_began_ns_) / 1e9);
    }
    if (!options_.quiet || options_.sites == SiteMode::kCheck)
        std::fprintf(stderr, "memcity agent: %s\n", siteSummary().c_str());
}

}  // namespace memcity::agent
