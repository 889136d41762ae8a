// Recorder: the state of the agent while a JVM runs, and the handlers of its JVMTI events.
// recorder.cpp has threads, classes, allocations and the GCs written; recorder_lifecycle.cpp the
// recording's start (at JVM start or attach) and end (exit or detach); recorder_sites.cpp the
// allocation sites; recorder_deaths.cpp the deaths and the GC ring; live_control.h the control
// channel.
//
// Locking rules (the agent must never deadlock the JVM):
//  1. No agent lock is held across a JVMTI or JNI call that can block or enter the VM: a lock
//     holder may be in native code while the VM waits for a safepoint, and must be able to go on.
//  2. GC callbacks (GarbageCollectionStart/Finish) and heap-walk callbacks run inside the VM: they
//     touch only atomics and their own buffers, and wake the agent thread with a raw monitor.
//  3. Lock order: a thread's write mutex, then the writer mutex, then (inside it) a registry's
//     define mutex, then that registry's lookup mutexes. Nothing is taken inside a lookup mutex.
//     A thread buffer's mutex is held only to append or to take buffers, with nothing inside.
//     Heap-walk callbacks run on the VM thread during a safepoint and take the writer mutex: its
//     holders never enter the VM (rule 1), so they finish and let go.
//  4. Buffers are bounded: a thread's events go out at 64 KiB (to the agent thread, at most 64
//     waiting), deaths at a million pending, GCs through a ring of 1024 that the agent thread
//     drains.
#pragma once

#include <jvmti.h>

#include <array>
#include <atomic>
#include <cstdint>
#include <functional>
#include <memory>
#include <mutex>
#include <optional>
#include <string>
#include <unordered_map>
#include <unordered_set>
#include <vector>

#include "class_registry.h"
#include "gc_facts.h"
#include "live_control.h"
#include "options.h"
#include "region_ring.h"
#include "site_registry.h"
#include "stack_walker.h"
#include "tags.h"
#include "trace/event_encoder.h"
#include "trace/extensions.h"
#include "trace/trace_writer.h"
#include "tracked_objects.h"

namespace memcity::agent {

// Per Java thread, reached through JVMTI thread-local storage.
struct ThreadState {
    std::mutex mutex;     // the owner appends, the agent thread takes what is there
    EventEncoder events;  // this thread's allocations
    // Full buffers for the agent thread to write (compressing them is not the allocating
    // thread's time), oldest first, and written ones to fill again; with `mutex`.
    std::vector<EventEncoder> full, spare;
    // Held while this thread's buffers are written, so that they reach the file in order.
    std::mutex write_mutex;
    uint32_t id = 0;                   // thread symbol id
    std::atomic<jlong> object_tag{0};  // tag of its java.lang.Thread object (0: not known yet)
    jweak object = nullptr;            // that object, where its tag or name was not known at registration
    // Its THREAD symbol and start event are written once it has a name (see ensureDefined).
    std::mutex define_mutex;
    std::atomic<bool> defined{false};
    std::string name;  // as the JVM gives it
    bool daemon = false;
    int64_t started_ns = 0;
    bool ended = false;
    bool bound = false;  // a Java thread has taken it as its own (see Recorder::threadState)
    // Sites of the stack keys this thread met last (see Recorder::siteOfStack), direct-mapped.
    struct KeyedSite {
        StackKey key;
        uint32_t generation = 0;  // 0: empty
        SiteRegistry::KeyedSite site;
    };
    static constexpr size_t kKeyCache = 4096;
    std::unique_ptr<KeyedSite[]> key_cache;
    std::unique_ptr<StackWalker::BlobCache> blob_cache;  // the code its stacks ran (see StackWalker::key)
    // The classes of its last allocations (see Recorder::classOfAllocation), direct-mapped by
    // the address of the class's mirror, which holds until the next collection.
    struct ClassSlot {
        uintptr_t mirror = 0;
        int64_t collections = -1;  // GcFacts::totalCollections when filled
        uint32_t index = kNoClass;
    };
    static constexpr size_t kClassCache = 256;
    std::array<ClassSlot, kClassCache> class_cache{};
    // The objects it allocated whose deaths weak references tell, with the mutex held.
    TrackedObjects tracked;
    // Odd while the thread is in an allocation callback (see Recorder::enterAllocation).
    std::atomic<uint64_t> allocating{0};
    uint64_t heap_iterations_seen = 0;  // Recorder::heap_iterations_ at its last callback
    // How this thread's sites were read: owner writes, the summary reads at exit.
    struct SiteCounts {
        std::atomic<uint64_t> cached{0};   // by stack key, with no JVMTI call
        std::atomic<uint64_t> decoded{0};  // keyed, new: GetStackTrace once
        std::atomic<uint64_t> checked{0}, mismatched{0};
        std::array<std::atomic<uint64_t>, static_cast<size_t>(StackWalker::Miss::kCount)> unkeyed{};
    } site_counts;
};

class Recorder {
public:
    // `can_suspend`: the JVM granted JVMTI's can_suspend (live control can pause the program).
    Recorder(jvmtiEnv* jvmti, JavaVM* vm, AgentOptions options, bool can_suspend);
    ~Recorder();

    // Opens the trace and enables the events. Called from Agent_OnLoad; from attach() with
    // `attaching`, which enables the GC events later itself.
    Status start(bool attaching = false);
    // Records a JVM that is running already (Agent_OnAttach, on the attach listener's thread):
    // what VM init does at a JVM's start, after one GC so that every thread reports its
    // allocations from there on. Objects alive then are "before recording" (no site).
    Status attach(JNIEnv* jni, jthread current);
    // Ends the recording of a JVM that goes on running (a live client's detach): the trace is
    // finished, the events turned off, and every reference, tag and thread of the agent's
    // released. Called on the control thread.
    void detach(JNIEnv* jni);
    // Whether the recording ended by detach (the JVM runs on without it).
    bool detached() const { return detached_.load(std::memory_order_acquire); }
    // Whether attach failed because the live control channel could not start (an attached
    // recording that nothing could end is not begun).
    bool noControl() const { return no_control_; }
    // Starts an agent thread `name` (a Java thread of the agent's own) running body(arg).
    Status startAgentThread(JNIEnv* jni, const char* name, jvmtiStartFunction body, void* arg);

    // JVMTI event handlers.
    void onVmInit(JNIEnv* jni, jthread thread);
    void onVmDeath(JNIEnv* jni);
    // The JVM's shutdown hook (before VMDeath): finishes the trace, then turns ObjectFree off.
    void onShutdown(JNIEnv* jni);
    // `maybe_seen`: the event may repeat an object already reported (VMObjectAlloc).
    void onAlloc(JNIEnv* jni, jthread thread, jobject object, jclass klass, jlong size, bool maybe_seen);
    void onFree(jlong tag);
    void onGcStart();
    void onGcFinish();
    void onThreadStart(JNIEnv* jni, jthread thread);
    void onThreadEnd(JNIEnv* jni, jthread thread);
    void onClassLoad(JNIEnv* jni, jclass klass);
    void onClassPrepare(JNIEnv* jni, jclass klass);

    // The agent thread's body (started in VM init).
    void agentThread(JNIEnv* jni);

    // Counts a JVMTI callback under way, for the length of a scope (agent.cpp wraps every one).
    class CallbackScope {
    public:
        explicit CallbackScope(Recorder& r) : r_(r) { r_.callbacks_.fetch_add(1, std::memory_order_acq_rel); }
        ~CallbackScope() { r_.callbacks_.fetch_sub(1, std::memory_order_acq_rel); }
        CallbackScope(const CallbackScope&) = delete;
        CallbackScope& operator=(const CallbackScope&) = delete;

    private:
        Recorder& r_;
    };

    // Runs f with the trace writer locked; stops recording if the writer failed.
    void withWriter(const std::function<void(TraceWriter&)>& f);
    const ClassRegistry::WithWriter& writerAccess() const { return with_writer_; }

    jvmtiEnv* jvmti() const { return jvmti_; }
    const AgentOptions& options() const { return options_; }
    // An object of the agent's (a global reference; null before VM init).
    jobject flushAnchor() const { return flush_anchor_; }
    ClassRegistry& classes() { return classes_; }
    SiteRegistry& sites() { return sites_; }
    int64_t now() const;
    uint64_t newObjectId() { return newObjectIds(1); }
    // The first of `n` consecutive new ids.
    uint64_t newObjectIds(uint64_t n) {
        noticeUnreportedGcs();
        return next_id_.fetch_add(n, std::memory_order_relaxed);
    }
    // An object that was there before recording began, recorded as `id` of class `class_index`
    // (see recordExistingObjects): its death is told by a weak reference where deaths are, else
    // by its tag. `object` is a local reference the caller deletes.
    void trackExisting(JNIEnv* jni, jobject object, uint64_t id, uint32_t class_index);
    // Some object's death is told by its tag and ObjectFree although deaths are told by weak
    // references (one a heap walk met untagged): HotSpot posts such deaths late, so they are
    // flushed before a GC's heap is marked complete.
    void noteTagDeaths() { tag_deaths_.store(true, std::memory_order_relaxed); }
    // Adds the GCs the JVM ran without JVMTI events since the last GC of the trace (see
    // GcFacts::totalCollections) to the GC ring. Cheap when there are none; safe on any thread.
    // Returns whether it added one.
    bool noticeUnreportedGcs();
    // An id for an object a heap walk right after a GC meets untagged: it was alive at that GC
    // although its allocation was never reported, so it takes an id from the block every GC
    // keeps below its watermark (a fresh id, born after the GC, once the block is used up).
    uint64_t walkObjectId();
    // An id for a class mirror a sampled snapshot names (no sample, and no trace object): above
    // every id taken so far (safe inside a heap walk's callback).
    uint64_t snapshotObjectId() { return next_id_.fetch_add(1, std::memory_order_relaxed); }
    // A client asks for a reference snapshot at the next GC the agent writes (one that cannot be
    // taken there is taken at the one after).
    void askSnapshot() { snapshot_asked_.store(true, std::memory_order_release); }
    bool snapshotAsked() const { return snapshot_asked_.load(std::memory_order_acquire); }
    // Snapshots taken so far, those missed (a walk another GC overtook, a collector whose spaces
    // are unknown), the GC of the last one taken (-1: none), and why the last miss was one.
    uint64_t snapshotsTaken() const { return snapshots_taken_.load(std::memory_order_acquire); }
    uint64_t snapshotsMissed() const { return snapshots_missed_.load(std::memory_order_acquire); }
    int64_t lastSnapshotGc() const { return last_snapshot_gc_.load(std::memory_order_acquire); }
    const char* lastSnapshotMiss() const { return snapshot_missed_.load(std::memory_order_acquire); }
    // Runs `iterate` (a JVMTI heap iteration that names untagged objects) with no allocation
    // callback under way, and returns what it returns.
    template <typename Iterate>
    jvmtiError iterateHeap(Iterate&& iterate) {
        heap_iterations_.fetch_add(1, std::memory_order_seq_cst);  // odd: under way
        waitForAllocations();
        const jvmtiError err = iterate();
        heap_iterations_.fetch_add(1, std::memory_order_seq_cst);
        return err;
    }
    // A class census took `ns` (see censusDue).
    void noteCensus(uint64_t ns) {
        census_ns_ += ns;
        last_census_ns_ = ns;
    }
    // Thread symbol id of a java.lang.Thread object's tag (0 if unknown).
    uint32_t threadOfTag(jlong tag);
    bool recording() const { return recording_.load(std::memory_order_relaxed); }
    // GCs finished so far (as the GC callbacks counted them).
    uint64_t gcsFinished() const { return gcs_finished_.load(std::memory_order_acquire); }
    // Registry index of java.lang.Class (kNoClass until VM init). A class's java.lang.Class
    // object (its mirror) carries the class's tag; the trace holds it as an object whose id is
    // in the class's registry entry.
    uint32_t classOfClass() const { return class_of_class_.load(std::memory_order_acquire); }
    // The registry index of a class, registering it (and recording its mirror) on first sight.
    uint32_t classIndex(JNIEnv* jni, jclass klass) { return classes_.indexOf(jvmti_, jni, klass); }
    // The same for an allocation's class, from the thread's cache where no collection can have
    // moved the mirror since it was filled (the JVM's collection count, read around the
    // address, is the one it was filled at): no tag map lookup for a class met before.
    uint32_t classOfAllocation(JNIEnv* jni, ThreadState& ts, jclass klass);
    // The size an object of a class is expected to have (0 if unknown), and an allocation
    // event for objects the agent did not see allocated (before recording, or VM-internal).
    uint64_t expectedSize(uint32_t class_index, uint64_t length) const;
    void recordUnseen(uint64_t id, uint32_t class_index, uint64_t size, uint64_t length);

private:
    struct GcSlot {
        uint32_t index = 0;
        int64_t start_ns = 0, end_ns = 0;
        uint64_t next_object_id = 0;  // the watermark
        uint64_t reserved = 0;    // ids [next_object_id - reserved, next_object_id) are kept for walkObjectId
        bool unreported = false;  // a GC JVMTI did not report, found by the collectors' counts
        GcSample start, end;      // the JVM's own figures at the GC's start and end
    };

    // The calling thread's state, registered on first use (or taken over from VM init's list).
    ThreadState* threadState(JNIEnv* jni, jthread thread);
    // Defines a thread in the trace: its name, whether a daemon, its object. `bound`: the calling
    // thread's own.
    ThreadState* registerThread(JNIEnv* jni, jthread thread, jlong object_tag, bool bound);
    // Reads a thread's name and daemon flag into `ts`: false where the JVM cannot name it yet.
    bool readThreadInfo(JNIEnv* jni, jthread thread, ThreadState& ts);
    // Writes a thread's definition and start once: with the name it has by then.
    void ensureDefined(ThreadState& ts);
    // Threads alive at VM init that no ThreadStart will announce (Reference Handler, Finalizer...).
    void registerRunningThreads(JNIEnv* jni, jthread current);
    // Every thread state so far (they live as long as the recorder), copied under threads_mutex_.
    std::vector<ThreadState*> allThreads();
    // Writes a thread's full buffers, and its current one with `current`.
    void flushThread(ThreadState* ts, bool current = true);
    void flushAllThreads();
    // The agent thread writes what threads handed it (see ThreadState::full).
    void writeFullBuffers();
    void processGcs(JNIEnv* jni);
    // At exit: the heap of the last GC written counted with its objects' ids (exit_live_),
    // recording the GCs that other threads still run meanwhile.
    void accountLastGc(JNIEnv* jni);
    // Writes GC `slot`'s start and end events, with the JVM's figures where there are some
    // (else the Runtime's `used` and `committed`, read after the GC).
    // `newest`: the newest GC of the batch, whose JVM figures (GC_JVM) are kept there to be
    // written after its census; any other GC is not held against the JVM (whole_heap false).
    void writeGc(TraceWriter& w, const GcSlot& slot, uint64_t used, uint64_t committed,
                 std::optional<GcJvmEvent>* newest);
    // The STRING symbol of a text, defined on first use (with the writer locked).
    uint32_t stringId(TraceWriter& w, const std::string& text);
    // Records a class's mirror as an object, or keeps the id it has already (`known_mirror`),
    // with the class's registration lock held.
    void recordMirror(uint32_t index, jclass klass, uint64_t known_mirror);
    // Registers every loaded class no event announced (array classes, some hidden classes),
    // recording their mirrors.
    void registerLoadedClasses(JNIEnv* jni);
    // Makes the allocating thread draw a new heap sampling distance (see onVmInit).
    void resetSamplingDistance(JNIEnv* jni);
    // What the recording needs to know of the JVM before it reports anything: reference size,
    // the JVM's GC figures (GcFacts), whether deaths are told by weak references.
    void learnTheJvm(JNIEnv* jni);
    // The collections the JVM has run so far are none of the trace's (see noticeUnreportedGcs).
    void noteCollectionsSoFar();
    // VM init's work, and attach's: classes and their mirrors, the objects there, the threads,
    // the agent thread, the shutdown hook, the live control channel.
    void beginRecording(JNIEnv* jni, jthread current);
    // The site of the calling thread's stack (see stack_walker.h): by its key where it has one
    // seen before, else from GetStackTrace. *top: what its innermost frame is
    // (SiteRegistry::kTopClone).
    uint32_t siteOfStack(JNIEnv* jni, ThreadState& ts, uint8_t* top);
    uint32_t siteFromJvmti(uint8_t* top);
    // Ends the stack keys' generation if HotSpot unloaded classes since the last look (their
    // methods may be freed). Safe in GC callbacks.
    void noticeUnloads();
    // A site read by key that GetStackTrace contradicts: reported, and in walk mode the walker
    // is no longer used.
    void siteMismatch(uint32_t keyed, uint32_t exact);
    // The summary of how sites were read (for the exit line and the check mode).
    std::string siteSummary();
    // Deaths by weak reference (Serial, Parallel, G1): every object allocated gets a JNI weak
    // global reference instead of a tag; a reference that a GC cleared is a death at that GC.
    // Reads the slots of every tracked object of every thread, of the objects there before
    // recording and of the class mirrors (plain memory: safe inside the GC finish callback, which
    // has `gc` just finished) and files the cleared ones' deaths under `gc`; their references
    // are released later, by the agent thread (releaseWeak).
    void scanWeak(uint32_t gc);
    // The thread states that track objects: every thread's, and existing_'s.
    std::vector<ThreadState*> trackingStates();
    // Tracks a class mirror recorded as `id` by a weak reference (with weak-reference deaths):
    // its death, when its class is unloaded, is then told at exactly that GC.
    void trackMirror(jclass klass, uint64_t id);
    // A GC the JVM did not report was noticed: its deaths are had now.
    void onUnreportedGc();
    void releaseWeak(JNIEnv* jni);
    // The address of every tracked object born before `watermark`, ids ascending, read from
    // their weak references (with weak-reference deaths) while the JVM has run `gcs` reported
    // GCs: false if it has run another since, or does meanwhile.
    bool readAddresses(uint64_t gcs, uint64_t watermark, std::vector<ObjectAddress>* out);
    // The addresses of GC `gc`'s objects, if no GC has run since it (timed and counted for the
    // META line); writeAddresses writes them (ADDRS) once the GC itself is in the trace.
    std::optional<std::vector<ObjectAddress>> takeAddresses(uint64_t gc, uint64_t watermark);
    void writeAddresses(uint64_t gc, const std::vector<ObjectAddress>& objects);
    // The collector's spaces after a GC, as GC_SPACES (their SPACE symbols defined on first use,
    // with the writer held): none where the JVM's layout is unknown.
    std::optional<GcSpacesEvent> spacesOf(TraceWriter& w, const GcSlot& s);
    // Before a heap walk: tags every tracked object still alive (kWeakTagBit | id + 1), after
    // waiting out allocation callbacks that began before new objects were tagged at once
    // (eager_tags_, on until endWalk).
    void prepareWalk();
    void endWalk() { eager_tags_.store(false, std::memory_order_seq_cst); }
    // A heap walk or count names an object it meets untagged as one no event announced, alive
    // at its GC: it may meet one between its allocation and the end of its allocation callback
    // (while the thread is in native code). Allocation callbacks and such heap iterations
    // therefore exclude each other (each callback is short): an iteration waits for the
    // callbacks under way (ThreadState::allocating odd), and a callback that would begin during
    // one waits for its end. Returns whether an iteration ran since the thread's last callback
    // ended (heap_iterations_ moved): the object it reports may have been met by it.
    bool enterAllocation(ThreadState& ts);
    // Only its own thread writes `allocating`: the end of a callback is a store (what the
    // callback did is seen by a walk that sees it even).
    void leaveAllocation(ThreadState& ts) {
        ts.allocating.store(ts.allocating.load(std::memory_order_relaxed) + 1, std::memory_order_release);
    }
    // Waits (up to 2 s each) for the allocation callbacks under way on every thread.
    void waitForAllocations();

    // Whether `object` is one of the newest objects this thread tracked (VMObjectAlloc repeats
    // the objects SampledObjectAlloc reported during the same call into the VM, and finds no tag
    // on them): compared by address with the last kRepeatScan, read from their references.
    bool trackedRecently(ThreadState& ts, jobject object);
    static constexpr size_t kRepeatScan = size_t{1} << 18;
    // Whether GC `slot` gets a class census: every full GC of a stop-the-world collector; in a
    // sampled recording also a young one, while censuses so far and one more (as long as the
    // last) stay within the run's share options_.census_percent. Agent thread only.
    // `used`: the heap's bytes in use after it (what the next census will walk).
    bool censusDue(const GcSlot& slot, uint64_t used) const;
    // Writes the deaths of the GCs written so far; `last`: drops the others (at the end).
    void flushDeaths(bool last);
    void stopWithError(const std::string& message);
    // Stops the agent thread and waits for it (at exit and detach).
    void stopAgentThread();
    // Waits (up to 5 s) for the JVMTI callbacks under way to return.
    void waitForCallbacks();
    // Deletes every JNI reference the agent holds and its shutdown hook (detach).
    void releaseAll(JNIEnv* jni);
    void wakeAgent();
    void finish(JNIEnv* jni);

    jvmtiEnv* jvmti_;
    JavaVM* vm_;
    AgentOptions options_;
    ClassRegistry::WithWriter with_writer_;

    std::mutex writer_mutex_;
    std::unique_ptr<TraceWriter> writer_;
    std::atomic<bool> recording_{false};
    std::atomic<bool> finished_{false};
    std::string error_;

    ClassRegistry classes_;
    SiteRegistry sites_;

    std::atomic<uint64_t> next_id_{0};
    // Ids each GC keeps below its watermark for objects its heap walk meets untagged (doubled,
    // up to 2^20, whenever a walk needs more), and the block of the GC being walked.
    std::atomic<uint64_t> reserve_{4096};
    std::atomic<uint64_t> walk_next_{0}, walk_end_{0};
    uint64_t walk_overflow_ = 0;  // agent thread: objects met by walks past their GC's block
    int64_t start_ns_ = 0;

    std::mutex threads_mutex_;
    std::vector<std::unique_ptr<ThreadState>> threads_;
    uint32_t next_thread_ = 0;

    // GCs: the GC callbacks fill the ring; the agent thread writes them out.
    static constexpr size_t kGcRing = 1024;
    GcSlot gc_ring_[kGcRing];
    std::atomic<uint64_t> gcs_started_{0}, gcs_finished_{0};
    uint64_t gcs_written_ = 0;  // agent thread only
    bool walked_any_ = false;   // agent thread only: a snapshot was taken, at last_walked_gc_
    uint64_t last_walked_gc_ = 0;
    int64_t gc_start_ns_ = 0;   // GC callbacks only
    GcSample gc_start_sample_;  // GC callbacks only
    RegionRing regions_;        // G1's region table at GCs: filled by the GC callbacks
    // The GC ring's writers: GC finish callbacks and noticeUnreportedGcs (gc_ring_mutex_).
    std::mutex gc_ring_mutex_;
    GcSample last_end_sample_;                 // with gc_ring_mutex_ held
    int64_t jvm_clock_offset_ns_ = INT64_MIN;  // trace time less the JVM's clock; with gc_ring_mutex_ held
    // Collections the JVM had run at the last GC of the trace (or at VM init); INT64_MAX while a
    // reported GC is in progress (and before VM init).
    std::atomic<int64_t> announced_collections_{INT64_MAX};
    std::atomic<bool> unreported_pending_{false};  // an unreported GC's deaths are to be flushed
    std::atomic<GcFacts*> facts_{nullptr};         // set in VM init, owned by facts_owner_
    std::unique_ptr<GcFacts> facts_owner_;
    std::unordered_map<std::string, uint32_t> strings_;      // with the writer locked
    std::unordered_map<std::string, uint32_t> space_ids_;    // SPACE ids by name, with the writer locked
    uint64_t addresses_written_ = 0, addresses_missed_ = 0;  // snapshot GCs with and without them
    double addresses_ns_ = 0;                                // reading them, all GCs together
    uint32_t next_string_ = 1;                               // 1 is "unknown"
    std::atomic<uint64_t> bytes_allocated_{0};
    uint64_t estimated_before_ = 0;                // agent thread only
    uint64_t census_ns_ = 0, last_census_ns_ = 0;  // censuses' time so far and the last one's (agent thread)
    uint64_t last_census_bytes_ = 0;               // the heap in use the last census walked
    // A sampled recording under G1: each region's bottom and top at the end of the last GC
    // (GC callbacks write them, the census reads them: no GC runs meanwhile, or the census is
    // stale), in a buffer sized once at VM init.
    std::vector<SpaceBounds> gc_regions_;
    std::atomic<size_t> gc_region_count_{0};
    // Where a census can tell what was allocated since GC `slot` by address: the spaces' or
    // regions' extents at its end (empty: it cannot).
    std::span<const SpaceBounds> boundsAtGc(const GcSlot& slot) const;
    // refs=P%: whether a snapshot of a heap of `used` bytes keeps the walks within the budget.
    bool snapshotInBudget(uint64_t used) const;
    // Reference snapshots (agent thread): asked for by a client (askSnapshot), taken, missed
    // (and why, the last time), the walks' time, the last one's and the heap it walked, and the
    // objects sampled ones listed that were no samples.
    // (Counts, the last GC and the reason are read by the control thread.)
    std::atomic<bool> snapshot_asked_{false};
    std::atomic<uint64_t> snapshots_taken_{0}, snapshots_missed_{0};
    std::atomic<int64_t> last_snapshot_gc_{-1};
    std::atomic<const char*> snapshot_missed_{""};  // a literal
    uint64_t snapshot_ns_ = 0, last_snapshot_ns_ = 0, last_snapshot_bytes_ = 0;
    uint64_t unsampled_listed_ = 0, unreached_listed_ = 0;

    // Deaths, by the number of GCs finished when their ObjectFree arrived.
    std::mutex deaths_mutex_;
    std::vector<std::pair<uint32_t, uint64_t>> deaths_;  // (gc, id)

    std::mutex shutdown_mutex_;        // the shutdown hook against a second call
    jrawMonitorID monitor_ = nullptr;  // wakes the agent thread
    bool stop_agent_ = false;          // guarded by monitor_
    bool agent_stopped_ = false;       // guarded by monitor_
    bool agent_running_ = false;
    bool unsafe_final_gc_ = false;  // ZGC/Shenandoah: a GC forced in VMDeath can hang
    // The VM is exiting: the newest GC's heap is counted with its objects' ids (GC_LIVE), so
    // that the deaths HotSpot posts after the trace is closed are accounted for (not with
    // ZGC/Shenandoah, whose heap iteration visits the reachable objects only).
    bool exiting_ = false;
    // Not in a sampled recording with weak references: its last GC's deaths are all known at
    // its end, and a count of a service's heap at exit would cost it a pause.
    bool countsExitHeap() const {
        return exiting_ && !unsafe_final_gc_ &&
               !(options_.sampled() && weak_deaths_.load(std::memory_order_relaxed));
    }
    std::vector<uint64_t> exit_live_;
    uint64_t exit_live_gc_ = UINT64_MAX;  // the GC exit_live_ was counted at
    uint64_t written_watermark_ = 0;      // the next object id of the last GC written
    bool snapshot_last_ = false;  // the final GC was forced: it gets a snapshot (agent stopped by then)
    std::atomic<uint32_t> class_of_class_{kNoClass};
    jmethodID clone_method_ = nullptr;  // java.lang.Object.clone

    // Sites from HotSpot's frames (see stack_walker.h): made in VM init, used while walker_on_.
    std::unique_ptr<StackWalker> walker_;
    std::atomic<bool> walker_on_{false};
    std::string walker_off_;  // why there is no walker (the summary says)
    // Stack keys name interpreted frames' methods by address: a generation ends when some may
    // have been freed (classes unloaded), and keys of an older one are not used. Compiled frames
    // are named by compile id too, so freed code needs no new generation (HotSpot posts
    // CompiledMethodUnload only to agents that asked for CompiledMethodLoad as well).
    std::atomic<uint32_t> stack_generation_{1};
    const volatile int64_t* unloaded_classes_ = nullptr;  // HotSpot's count of classes unloaded
    std::atomic<int64_t> unloaded_seen_{0};               // its value when last looked at
    std::atomic<uint32_t> mismatches_reported_{0};
    // Deaths by weak reference (see scanWeak): chosen at VM init for the collectors that clear
    // weak references only in their pauses.
    std::atomic<bool> weak_deaths_{false};
    std::string deaths_how_ = "tags";  // for the summary
    bool weakDeathsWork(JNIEnv* jni);
    jobject flush_anchor_ = nullptr;
    bool mirrors_stay_put_ = false;        // objects move only in collections' pauses (see classOfAllocation)
    std::atomic<bool> eager_tags_{false};  // new objects get a walk's tag at once
    // The objects there before recording began whose deaths weak references tell (their
    // `tracked`, with their `mutex`; no thread of its own).
    ThreadState existing_;
    // Class mirrors whose deaths weak references tell, and their ids (with mirrors_mutex_).
    std::mutex mirrors_mutex_;
    std::vector<std::pair<jweak, uint64_t>> mirror_refs_;
    std::unordered_set<uint64_t> mirror_ids_;
    std::atomic<bool> tag_deaths_{false};  // see noteTagDeaths
    // ObjectFree events are on: always, but in a sampled recording with deaths by weak
    // references, which has no death to learn from them (and so nothing to flush at exit).
    std::atomic<bool> object_free_on_{false};
    // Detaching: ObjectFree events are ignored from here on rather than turned off (see detach()).
    std::atomic<bool> frees_ignored_{false};
    std::atomic<uint64_t> heap_iterations_{0};  // twice per iteration (see enterAllocation)
    std::mutex released_mutex_;                 // scanWeak (GC callback) adds, the agent thread releases
    std::vector<jweak> released_;
    int64_t startup_ns_ = 0;   // VM init's (or attach's) work (the heap walk above all)
    bool attached_ = false;    // recording began in a running JVM
    bool no_control_ = false;  // attached, and the control channel could not start
    const bool can_suspend_;
    std::atomic<bool> detached_{false};
    std::atomic<bool> shutting_down_{false};  // the JVM exits (onVmDeath began)
    std::atomic<int> callbacks_{0};           // JVMTI callbacks under way (see CallbackScope)
    jobject shutdown_hook_ = nullptr;         // a global reference (see shutdown_hook.h)
    // The live control channel (null without one), set once before the program can reach it.
    std::atomic<LiveControl*> control_{nullptr};
    std::unique_ptr<LiveControl> control_owner_;
    int64_t exit_began_ns_ = 0;  // when the exit began
};

}  // namespace memcity::agent
