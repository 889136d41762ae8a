#include "heap_samplers.h"

#include <vector>

#include "hotspot.h"
#include "jvmti_util.h"

namespace memcity::agent {

std::unique_ptr<HeapSamplers> HeapSamplers::find(const VmStructs& vm, JNIEnv* jni, jthread current,
                                                 std::string* why) {
    const int64_t allocated = vm.offset("Thread", "_allocated_bytes");
    const uint64_t thread_size = vm.size("JavaThread");
    if (allocated < 0 || thread_size == 0) {
        *why = "the JVM does not export Thread::_allocated_bytes";
        return nullptr;
    }
    const int64_t offset = allocated + static_cast<int64_t>(sizeof(int64_t));
    if (static_cast<uint64_t>(offset) + sizeof(size_t) > thread_size) {
        *why = "a JavaThread is smaller than expected";
        return nullptr;
    }
    jclass thread_class = jni->FindClass("java/lang/Thread");
    jfieldID eetop = thread_class ? jni->GetFieldID(thread_class, "eetop", "J") : nullptr;
    if (jni->ExceptionCheck()) jni->ExceptionClear();
    if (thread_class) jni->DeleteLocalRef(thread_class);
    const jlong self = eetop ? jni->GetLongField(current, eetop) : 0;
    if (!self) {
        *why = "java.lang.Thread has no eetop";
        return nullptr;
    }
    // The calling thread was sampled with the interval at 0: its distance is 0.
    const size_t distance = *reinterpret_cast<const volatile size_t*>(static_cast<uintptr_t>(self) +
                                                                      static_cast<uintptr_t>(offset));
    if (distance != 0) {
        *why = "the sampling distance is not where it was looked for";
        return nullptr;
    }
    return std::unique_ptr<HeapSamplers>(new HeapSamplers(eetop, offset));
}

size_t HeapSamplers::resetOthers(jvmtiEnv* jvmti, JNIEnv* jni, jthread current) const {
    jint n = 0;
    JvmtiPtr<jthread> threads(jvmti);
    if (jvmti->GetAllThreads(&n, threads.out()) != JVMTI_ERROR_NONE) return 0;
    std::vector<jthread> others;
    for (jint i = 0; i < n; ++i) {
        jthread t = threads[static_cast<size_t>(i)];
        if (jni->IsSameObject(t, current))
            jni->DeleteLocalRef(t);
        else
            others.push_back(t);
    }
    std::vector<jvmtiError> suspended(others.size(), JVMTI_ERROR_NONE);
    if (!others.empty())
        jvmti->SuspendThreadList(static_cast<jint>(others.size()), others.data(), suspended.data());
    size_t reset = 0;
    std::vector<jthread> resume;
    for (size_t i = 0; i < others.size(); ++i) {
        if (suspended[i] != JVMTI_ERROR_NONE) continue;  // not alive, or suspended by someone else
        resume.push_back(others[i]);
        // A thread that has not started, or has ended, has no JavaThread.
        if (const jlong java_thread = jni->GetLongField(others[i], eetop_)) {
            *reinterpret_cast<volatile size_t*>(static_cast<uintptr_t>(java_thread) +
                                                static_cast<uintptr_t>(offset_)) = 0;
            ++reset;
        }
    }
    std::vector<jvmtiError> resumed(resume.size());
    if (!resume.empty())
        jvmti->ResumeThreadList(static_cast<jint>(resume.size()), resume.data(), resumed.data());
    for (jthread t : others)
        jni->DeleteLocalRef(t);
    return reset;
}

}  // namespace memcity::agent
