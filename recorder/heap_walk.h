// Heap walks: tagging the objects that exist when recording begins, and the reference snapshot
// (references between objects, and GC roots) after a GC.
#pragma once

#include <jvmti.h>

#include <cstdint>
#include <span>
#include <vector>

#include "gc_facts.h"

namespace memcity::agent {

class Recorder;

// Gives every object allocated before recording began an id, an allocation event (site
// unknown, thread unknown) and a weak reference that tells its death (Recorder::trackExisting).
// Classes must be registered already, and weak-reference deaths chosen, with new objects tagged
// at once (Recorder::prepareWalk) so that the walk does not take them for older ones.
struct ExistingObjects {
    uint64_t objects = 0;                 // recorded
    uint64_t reachable = 0;               // ...of which a reported root reaches
    jvmtiError error = JVMTI_ERROR_NONE;  // a walk or the fetch failed (nothing recorded then)
};
ExistingObjects recordExistingObjects(Recorder& recorder, JNIEnv* jni);

// Counts the JVM's heap by class right after GC `gc` (whose watermark is `watermark`) and writes
// it as a GC_CENSUS event: the objects the trace has that were alive at the GC, objects it never
// saw, fillers, the agent's own objects, and what was allocated since. Skipped (returns false)
// when another GC ended before the count began. `live`: also the ids of the trace's objects the
// heap held (ascending), for a GC_LIVE event. Without `census_event` it only collects those ids
// (a GC counted before), and gives no untagged object an id.
//
// A sampled recording holds only the heap sampler's picks: the census counts the rest as
// untracked, and tells the objects allocated since the GC by their addresses, which must lie past
// the tops its spaces had at the GC (`at_gc`, from the GC's end; none known: they cannot be told
// apart, and the census says so).
bool countHeap(Recorder& recorder, uint32_t gc, uint64_t watermark, std::vector<uint64_t>* live = nullptr,
               bool census_event = true, std::span<const SpaceBounds> at_gc = {});

// Has the VM post the ObjectFree events of every object the GCs so far have collected, before
// it returns: a heap walk starts by doing so (HotSpot posts them otherwise late, from its
// service thread). It walks from one object of the agent's, which refers to none (from the
// roots before VM init).
void flushObjectFrees(Recorder& recorder);

// Takes every tag off (at exit, once nothing more is recorded): HotSpot then has no deaths left
// to post, and its flushes of them at VM death have nothing to wait for (see docs/recorder.md).
void untagAll(Recorder& recorder);

// Follows every reference from the GC roots and writes them as the snapshot of GC `gc` (whose
// watermark is `watermark`): references grouped by object as the VM reports them, weak/soft/
// phantom referents marked, roots with their details. Objects met untagged are given ids and
// allocation events; objects born after the GC are neither named nor followed.
//
// A sampled recording's walk names every object it reaches instead: the samples by their ids,
// the rest by their addresses (kUnsampledIdBase + the heap word they start at; no tag) listed in
// the snapshot's OBJECTS chunks, and then the objects of the GC's heap it did not reach (kept by
// roots JVMTI does not report), so that a reader has the GC's heap whole. It
// tells what was allocated since the GC by address (`at_gc`, as countHeap), and is not taken
// where it cannot: no bounds known, or another GC before it began.
struct SnapshotTaken {
    bool taken = false;
    const char* missed = nullptr;  // why not, where not taken
    bool lasting = false;          // that reason holds at every GC (no use asking again)
    uint64_t unsampled = 0;        // a sampled one's objects that are no samples
    uint64_t unreached = 0;        // of them, those no reported root reaches
    uint64_t ns = 0;               // the walk's time
};
SnapshotTaken walkHeap(Recorder& recorder, uint32_t gc, uint64_t watermark,
                       std::span<const SpaceBounds> at_gc = {});

}  // namespace memcity::agent
