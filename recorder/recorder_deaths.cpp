// Recorder, its deaths and GCs: weak references read at each GC's end, or tags and ObjectFree;
// the exclusion of heap walks and allocation callbacks; the GC ring that files each death under
// the GC that freed it, reported or not.
#include <unistd.h>

#include <algorithm>

#include "heap_walk.h"
#include "jvmti_util.h"
#include "recorder.h"

namespace memcity::agent {
namespace {
constexpr size_t kMaxPendingDeaths = 1u << 20;  // deaths held before the agent thread is woken
}  // namespace

void Recorder::onUnreportedGc() {
    if (object_free_on_.load(std::memory_order_acquire)) flushObjectFrees(*this);
    if (weak_deaths_.load(std::memory_order_relaxed))
        scanWeak(static_cast<uint32_t>(gcs_finished_.load(std::memory_order_acquire) - 1));
}

bool Recorder::trackedRecently(ThreadState& ts, jobject object) {
    const uintptr_t address = addressOf(object);
    if (!address) return false;
    // The objects are its newest: the call into the VM may have run Java code that allocated
    // many more before the repeat came (a class loaded, a constructor run by reflection). Their
    // addresses are read from their weak references' slots: where the object is now.
    bool found = false, tagged = false;
    uint64_t id = 0;
    {
        std::lock_guard lock(ts.mutex);
        const size_t n = ts.tracked.size(), scan = std::min(n, kRepeatScan);
        for (size_t i = 1; i <= scan && !found; ++i) {
            const TrackedObjects::Entry& t = ts.tracked[n - i];
            if (addressOfWeak(t.ref) == address) found = true, tagged = t.tagged(), id = t.id();
        }
    }
    if (!found) return false;
    // Object.clone copied its original's header over it: a walk's tag set at once is lost
    // where tags are found by the header's identity hash (JDK 21 and later).
    if (tagged) jvmti_->SetTag(object, kWeakTagBit | static_cast<jlong>(id + 1));
    return true;
}

std::vector<ThreadState*> Recorder::trackingStates() {
    std::vector<ThreadState*> all = allThreads();
    all.push_back(&existing_);
    return all;
}

void Recorder::trackExisting(JNIEnv* jni, jobject object, uint64_t id, uint32_t class_index) {
    const jlong tag = static_cast<jlong>(id + 1);
    if (!weak_deaths_.load(std::memory_order_relaxed)) {
        jvmti_->SetTag(object, tag);
        return;
    }
    if (class_index == classOfClass()) {
        // The mirror of a class not registered yet: named by its id until it is (the registry
        // adopts the id), and tracked as a mirror, once.
        jvmti_->SetTag(object, kWeakTagBit | tag);
        trackMirror(static_cast<jclass>(object), id);
        return;
    }
    // A thread's object is named by its tag in walks (its roots): tagged at once.
    const bool tagged = classes_[class_index].thread;
    if (tagged) jvmti_->SetTag(object, kWeakTagBit | tag);
    jweak ref = jni->NewWeakGlobalRef(object);
    if (!ref) {
        jvmti_->SetTag(object, tag);
        noteTagDeaths();
        return;
    }
    std::lock_guard lock(existing_.mutex);
    existing_.tracked.push(ref, id, tagged);
}

void Recorder::trackMirror(jclass klass, uint64_t id) {
    if (!weak_deaths_.load(std::memory_order_relaxed)) return;
    {
        std::lock_guard lock(mirrors_mutex_);
        if (mirror_ids_.count(id)) return;
    }
    JNIEnv* jni = nullptr;
    if (vm_->GetEnv(reinterpret_cast<void**>(&jni), JNI_VERSION_1_8) != JNI_OK || !jni) return;
    jweak ref = jni->NewWeakGlobalRef(klass);
    if (!ref) return;
    {
        std::lock_guard lock(mirrors_mutex_);
        if (mirror_ids_.insert(id).second) {
            mirror_refs_.emplace_back(ref, id);
            return;
        }
    }
    jni->DeleteWeakGlobalRef(ref);  // another thread tracked it meanwhile
}

void Recorder::scanWeak(uint32_t gc) {
    const std::vector<ThreadState*> all = trackingStates();
    std::vector<uint64_t> dead;
    std::vector<jweak> refs;
    for (ThreadState* ts : all) {
        std::lock_guard lock(ts->mutex);
        TrackedObjects& tracked = ts->tracked;
        size_t kept = 0;
        for (size_t i = 0; i < tracked.size(); ++i) {
            const TrackedObjects::Entry& t = tracked[i];
            if (addressOfWeak(t.ref)) {
                if (kept != i) tracked[kept] = t;
                ++kept;
            } else {
                dead.push_back(t.id());
                refs.push_back(t.ref);
            }
        }
        tracked.truncate(kept);
    }
    {
        // A mirror dies with its class: the class's methods may be freed, and with them the
        // code stack keys name.
        std::lock_guard lock(mirrors_mutex_);
        size_t kept = 0;
        for (size_t i = 0; i < mirror_refs_.size(); ++i) {
            const auto [ref, id] = mirror_refs_[i];
            if (addressOfWeak(ref)) {
                mirror_refs_[kept++] = mirror_refs_[i];
            } else {
                dead.push_back(id);
                refs.push_back(ref);
                mirror_ids_.erase(id);
            }
        }
        if (kept != mirror_refs_.size()) stack_generation_.fetch_add(1, std::memory_order_acq_rel);
        mirror_refs_.resize(kept);
    }
    if (dead.empty()) return;
    {
        std::lock_guard lock(deaths_mutex_);
        for (uint64_t id : dead)
            deaths_.emplace_back(gc, id);
    }
    std::lock_guard lock(released_mutex_);
    released_.insert(released_.end(), refs.begin(), refs.end());
}

bool Recorder::readAddresses(uint64_t gcs, uint64_t watermark, std::vector<ObjectAddress>* out) {
    // Objects move only in collections: the addresses read between two are the last one's, if
    // none began since (one JVMTI reports, or one it does not, such as a heap inspection).
    const GcFacts* facts = facts_.load(std::memory_order_acquire);
    auto collections = [&] {
        return std::pair(
            gcs_started_.load(std::memory_order_acquire) + gcs_finished_.load(std::memory_order_acquire),
            facts ? facts->totalCollections() : 0);
    };
    const auto before = collections();
    if (gcs_started_.load(std::memory_order_acquire) != gcs ||
        gcs_finished_.load(std::memory_order_acquire) != gcs)
        return false;
    out->clear();
    for (ThreadState* ts : trackingStates()) {
        std::lock_guard lock(ts->mutex);
        const TrackedObjects& tracked = ts->tracked;
        for (size_t i = 0; i < tracked.size(); ++i) {
            const TrackedObjects::Entry& t = tracked[i];
            if (t.id() >= watermark) continue;  // born after the GC
            if (const uintptr_t a = addressOfWeak(t.ref)) out->push_back({t.id(), a});
        }
    }
    {
        std::lock_guard lock(mirrors_mutex_);
        for (const auto& [ref, id] : mirror_refs_)
            if (const uintptr_t a = id < watermark ? addressOfWeak(ref) : 0) out->push_back({id, a});
    }
    if (collections() != before) return false;
    std::sort(out->begin(), out->end(),
              [](const ObjectAddress& a, const ObjectAddress& b) { return a.id < b.id; });
    // A mirror tracked twice (never: trackMirror checks) would repeat an id.
    out->erase(std::unique(out->begin(), out->end(),
                           [](const ObjectAddress& a, const ObjectAddress& b) { return a.id == b.id; }),
               out->end());
    return true;
}

void Recorder::releaseWeak(JNIEnv* jni) {
    std::vector<jweak> refs;
    {
        std::lock_guard lock(released_mutex_);
        refs.swap(released_);
    }
    for (jweak ref : refs)
        jni->DeleteWeakGlobalRef(ref);
}

bool Recorder::enterAllocation(ThreadState& ts) {
    for (;;) {
        ts.allocating.fetch_add(1, std::memory_order_seq_cst);
        const uint64_t iterations = heap_iterations_.load(std::memory_order_seq_cst);
        if (!(iterations & 1)) {
            const bool since = iterations != ts.heap_iterations_seen;
            ts.heap_iterations_seen = iterations;
            return since;
        }
        ts.allocating.fetch_add(1, std::memory_order_seq_cst);
        while (heap_iterations_.load(std::memory_order_acquire) == iterations)
            usleep(100);
    }
}

void Recorder::waitForAllocations() {
    // Each callback is quick, unless the JVM stopped its thread: not forever.
    for (ThreadState* ts : allThreads()) {
        const uint64_t n = ts->allocating.load(std::memory_order_seq_cst);
        for (int waited = 0; (n & 1) && ts->allocating.load(std::memory_order_seq_cst) == n && waited < 20000;
             ++waited)
            usleep(100);
    }
}

void Recorder::prepareWalk() {
    // From now on each new object gets its tag at once, or is left to a walk that met it first;
    // wait for the callbacks that began before that could be seen.
    eager_tags_.store(true, std::memory_order_seq_cst);
    waitForAllocations();
    if (!weak_deaths_.load(std::memory_order_relaxed)) return;
    // Then every object tracked and alive gets the tag the walk names it by (a cleared
    // reference fails: the object is gone).
    const std::vector<ThreadState*> all = trackingStates();
    std::vector<std::pair<jweak, uint64_t>> untagged;
    for (ThreadState* ts : all) {
        std::lock_guard lock(ts->mutex);
        for (size_t i = 0; i < ts->tracked.size(); ++i)
            if (TrackedObjects::Entry& t = ts->tracked[i]; !t.tagged()) {
                untagged.emplace_back(t.ref, t.id());
                t.setTagged();
            }
    }
    for (const auto& [ref, id] : untagged)
        jvmti_->SetTag(ref, kWeakTagBit | static_cast<jlong>(id + 1));
}

void Recorder::onFree(jlong tag) {
    if (frees_ignored_.load(std::memory_order_acquire)) return;  // detaching (detach())
    // An alias's death is posted under its object's tag; a weak reference tells a walk's tag's.
    if (tag <= 0 || (tag & (kAliasTagBit | kWeakTagBit))) return;
    if (!recording()) return;  // after the trace was closed
    uint64_t id = static_cast<uint64_t>(tag - 1);
    noticeUnreportedGcs();
    if (tag & kClassTagBit) {
        // A class was unloaded: its mirror died (the agent's objects are nobody's). With weak
        // references, the mirror's told that at its GC already.
        stack_generation_.fetch_add(1, std::memory_order_acq_rel);  // its methods may be freed
        if (weak_deaths_.load(std::memory_order_relaxed)) return;
        const uint32_t ci = ClassRegistry::indexFromTag(tag);
        if (ci == kNoClass || ci >= classes_.size()) return;
        id = classes_[ci].mirror_id.load(std::memory_order_acquire);
        if (id == kNoObject) return;
    }
    const uint64_t finished = gcs_finished_.load(std::memory_order_acquire);
    const uint32_t gc = finished ? static_cast<uint32_t>(finished - 1) : 0;
    bool many;
    {
        std::lock_guard lock(deaths_mutex_);
        deaths_.emplace_back(gc, id);
        many = deaths_.size() >= kMaxPendingDeaths;
    }
    if (many) wakeAgent();
}

void Recorder::onGcStart() {
    // Inside the VM at a safepoint: only atomics, plain memory reads, our own memory and the
    // GC ring's lock (whose holders never wait on the VM).
    noticeUnreportedGcs();
    // An unreported GC's cleared weak references are its deaths, not this GC's.
    if (weak_deaths_.load(std::memory_order_relaxed) && unreported_pending_.load(std::memory_order_acquire))
        scanWeak(static_cast<uint32_t>(gcs_finished_.load(std::memory_order_acquire) - 1));
    gcs_started_.fetch_add(1, std::memory_order_acq_rel);
    announced_collections_.store(INT64_MAX, std::memory_order_release);  // this one is reported
    gc_start_ns_ = now();
    if (const GcFacts* facts = facts_.load(std::memory_order_acquire)) {
        facts->sample(&gc_start_sample_);
        gc_start_sample_.uncountCollectionsInProgress();  // G1's Remark and Cleanup
        regions_.readStart(*facts);
    } else
        gc_start_sample_ = GcSample{};
}

void Recorder::onGcFinish() {
    struct {
        uint32_t index = 0;
        bool full = false;
        uint64_t used_after = 0;  // the JVM's, in all its pools
    } finished;
    // Its deaths first: the agent thread writes a GC, with its deaths, once the GC is counted as
    // finished below (only GC callbacks finish GCs, and no unreported GC is added during one).
    const uint64_t n = gcs_finished_.load(std::memory_order_relaxed);
    if (weak_deaths_.load(std::memory_order_relaxed)) scanWeak(static_cast<uint32_t>(n));
    {
        std::lock_guard lock(gc_ring_mutex_);
        GcSlot& slot = gc_ring_[n % kGcRing];
        slot = GcSlot{};
        slot.index = static_cast<uint32_t>(n);
        slot.start_ns = gc_start_ns_;
        slot.end_ns = now();
        // Keep a block of ids below the watermark (see walkObjectId): threads that take ids now
        // (in native code, during the GC) take them after it.
        slot.reserved = reserve_.load(std::memory_order_relaxed);
        slot.next_object_id = next_id_.fetch_add(slot.reserved, std::memory_order_relaxed) + slot.reserved;
        slot.start = gc_start_sample_;
        const GcFacts* facts = facts_.load(std::memory_order_acquire);
        if (facts) facts->sample(&slot.end);
        if (facts && !gc_regions_.empty())
            gc_region_count_.store(facts->readRegions(gc_regions_.data(), gc_regions_.size()),
                                   std::memory_order_release);
        last_end_sample_ = slot.end;
        if (facts) regions_.readEnd(*facts, n);
        // The JVM's clock against the trace's, for GCs it does not report.
        int64_t began = 0, ended = 0;
        if (GcFacts::lastCollection(slot.start, slot.end, &began, &ended))
            jvm_clock_offset_ns_ = slot.end_ns - ended;
        announced_collections_.store(facts ? facts->totalCollections() : INT64_MAX,
                                     std::memory_order_release);
        finished.index = slot.index;
        if (facts && slot.start.valid && slot.end.valid) {
            finished.full =
                facts->kindOf(slot.start, slot.end) == static_cast<uint8_t>(format::GcKind::kMajor);
            for (size_t i = 0; i < facts->pools().size() && i < kMaxPools; ++i)
                finished.used_after += slot.end.pools[i].used;
        }
        gcs_finished_.store(n + 1, std::memory_order_release);
    }
    noticeUnloads();
    // Live control: the program may stop at this GC's end.
    if (LiveControl* control = control_.load(std::memory_order_acquire))
        control->onGcEnd(finished.index, finished.full, finished.used_after);
    wakeAgent();
}

void Recorder::noticeUnloads() {
    if (!unloaded_classes_) return;
    const int64_t unloaded = *unloaded_classes_;
    if (unloaded_seen_.exchange(unloaded, std::memory_order_acq_rel) != unloaded)
        stack_generation_.fetch_add(1, std::memory_order_acq_rel);
}

bool Recorder::noticeUnreportedGcs() {
    const GcFacts* facts = facts_.load(std::memory_order_acquire);
    if (!facts) return false;
    // (The cheap count first: this runs for every id taken.) A collection in progress is not
    // counted: it may be a reported GC's whose start JVMTI is about to post (see
    // GcSample::uncountCollectionsInProgress).
    if (facts->totalCollections() <= announced_collections_.load(std::memory_order_acquire)) return false;
    int64_t total = facts->finishedCollections();
    if (total <= announced_collections_.load(std::memory_order_acquire)) return false;
    {
        std::lock_guard lock(gc_ring_mutex_);
        total = facts->finishedCollections();
        if (total <= announced_collections_.load(std::memory_order_acquire)) return false;
        // A reported GC in progress: its collection is counted before JVMTI hears of its end.
        if (gcs_started_.load(std::memory_order_acquire) != gcs_finished_.load(std::memory_order_acquire))
            return false;
        // The JVM collected without telling JVMTI (a heap inspection: jcmd GC.class_histogram,
        // -XX:+PrintClassHistogram). Its deaths are posted all the same: the trace gets the GC,
        // from the collectors' counts, placed where the first thread to see them stood (every
        // id, free and GC start looks): no object was allocated since it.
        const uint64_t n = gcs_finished_.load(std::memory_order_relaxed);
        GcSlot& slot = gc_ring_[n % kGcRing];
        slot = GcSlot{};
        slot.index = static_cast<uint32_t>(n);
        slot.unreported = true;
        slot.start = last_end_sample_;
        facts->sampleCounters(&slot.end);
        slot.end_ns = now();
        slot.start_ns = slot.end_ns;
        int64_t began = 0, ended = 0;
        if (GcFacts::lastCollection(slot.start, slot.end, &began, &ended) && began <= ended) {
            // On the JVM's clock moved to the trace's (the offset, from the last reported GC, is
            // off by as much as that GC's finish event came after its collector's end); before
            // any reported GC, where it was noticed, with the collector's own duration.
            if (jvm_clock_offset_ns_ != INT64_MIN)
                slot.end_ns = std::min(slot.end_ns, ended + jvm_clock_offset_ns_);
            slot.start_ns = slot.end_ns - (ended - began);
        }
        slot.reserved = reserve_.load(std::memory_order_relaxed);
        slot.next_object_id = next_id_.fetch_add(slot.reserved, std::memory_order_relaxed) + slot.reserved;
        last_end_sample_ = slot.end;
        unreported_pending_.store(true, std::memory_order_relaxed);
        announced_collections_.store(total, std::memory_order_release);
        gcs_finished_.store(n + 1, std::memory_order_release);
    }
    wakeAgent();
    return true;
}

namespace {

// Sorts `v`, which mostly holds long ascending runs: a scan of weak references files each
// thread's deaths in allocation order, ObjectFree's come one by one. Merging the runs pairwise
// costs n log(runs), where a sort of millions of deaths at exit would cost n log n.
template <typename T>
void sortRuns(std::vector<T>& v) {
    std::vector<size_t> bounds{0};
    for (size_t i = 1; i < v.size(); ++i)
        if (v[i] < v[i - 1]) bounds.push_back(i);
    bounds.push_back(v.size());
    if (bounds.size() > v.size() / 16 + 2) {
        std::sort(v.begin(), v.end());
        return;
    }
    while (bounds.size() > 2) {
        std::vector<size_t> merged{0};
        for (size_t r = 0; r + 2 < bounds.size(); r += 2) {
            std::inplace_merge(v.begin() + static_cast<ptrdiff_t>(bounds[r]),
                               v.begin() + static_cast<ptrdiff_t>(bounds[r + 1]),
                               v.begin() + static_cast<ptrdiff_t>(bounds[r + 2]));
            merged.push_back(bounds[r + 2]);
        }
        if (merged.back() != bounds.back()) merged.push_back(bounds.back());  // an odd run out
        bounds.swap(merged);
    }
}

}  // namespace

void Recorder::flushDeaths(bool last) {
    std::vector<std::pair<uint32_t, uint64_t>> pending;
    {
        std::lock_guard lock(deaths_mutex_);
        pending.swap(deaths_);
    }
    if (pending.empty()) return;
    // Deaths of a GC go after its end event: keep those whose GC is not written yet. The last
    // time, there are none unless threads went on running while the VM was exiting (System.exit)
    // and ran a GC that the trace does not have: its deaths are left out with it.
    std::vector<std::pair<uint32_t, uint64_t>> later;
    auto split = std::stable_partition(pending.begin(), pending.end(),
                                       [&](const auto& d) { return d.first < gcs_written_; });
    if (!last) later.assign(split, pending.end());
    pending.erase(split, pending.end());
    sortRuns(pending);
    withWriter([&](TraceWriter& w) {
        std::vector<uint64_t> ids;
        for (size_t i = 0; i < pending.size();) {
            const uint32_t gc = pending[i].first;
            ids.clear();
            for (; i < pending.size() && pending[i].first == gc; ++i)
                if (ids.empty() || ids.back() != pending[i].second) ids.push_back(pending[i].second);
            w.deaths(gc, ids);
        }
    });
    if (!later.empty()) {
        std::lock_guard lock(deaths_mutex_);
        deaths_.insert(deaths_.end(), later.begin(), later.end());
    }
}

}  // namespace memcity::agent
