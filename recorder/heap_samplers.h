// HeapSamplers: every thread's heap sampling distance, set to 0 so that it reports its next
// allocation. JDK 17 keeps, per thread, the bytes left to its next sample as drawn before the
// sampling interval was set to 0 (512 KiB on average): a thread reports none of its allocations
// until it has allocated that much. At VM init only the VM init thread has allocated, and it
// allocates through JNI until it is sampled (Recorder::resetSamplingDistance); an agent attached
// to a running JVM meets every thread so. HotSpot keeps the distance in each thread's
// ThreadHeapSampler (its first field, Thread::_heap_sampler._bytes_until_sample, right after
// Thread::_allocated_bytes, which HotSpot's exported structure layout names). The place is
// checked on the calling thread first; JDK 21 and later reset it themselves, and agree.
#pragma once

#include <jvmti.h>

#include <cstdint>
#include <memory>
#include <string>

namespace memcity::agent {

class VmStructs;

class HeapSamplers {
public:
    // Finds where a thread keeps its distance and checks it on `current`, the calling thread,
    // which must have had an allocation sampled since the interval was set to 0 (its distance
    // then reads 0). nullptr, with `why`, where the layout is unknown or the check fails.
    static std::unique_ptr<HeapSamplers> find(const VmStructs& vm, JNIEnv* jni, jthread current,
                                              std::string* why);

    // Suspends every other live thread, sets its distance to 0 and resumes it (a suspended
    // thread is not in the middle of sampling). Needs can_suspend. Returns how many were set.
    size_t resetOthers(jvmtiEnv* jvmti, JNIEnv* jni, jthread current) const;

private:
    HeapSamplers(jfieldID eetop, int64_t offset) : eetop_(eetop), offset_(offset) {}
    jfieldID eetop_;  // java.lang.Thread.eetop: the JavaThread of a running thread
    int64_t offset_;  // of _bytes_until_sample in a JavaThread
};

}  // namespace memcity::agent
