// libmemcity_agent.so: the JVMTI entry points. Each event trampolines into the Recorder; no
// C++ exception may unwind into the JVM, so each handler is guarded.
#include <jvmti.h>

#include <csignal>
#include <cstdio>
#include <exception>
#include <memory>

#include "options.h"
#include "recorder.h"

namespace {

using memcity::agent::Recorder;
Recorder* g_recorder = nullptr;

template <class F>
void guarded(const char* where, F&& f) {
    if (!g_recorder) return;
    try {
        f(*g_recorder);
    } catch (const std::exception& e) {
        std::fprintf(stderr, "memcity agent: %s failed: %s\n", where, e.what());
    } catch (...) {
        std::fprintf(stderr, "memcity agent: %s failed\n", where);
    }
}

void JNICALL onVmInit(jvmtiEnv*, JNIEnv* jni, jthread thread) {
    guarded("VM init", [&](Recorder& r) { r.onVmInit(jni, thread); });
}
void JNICALL onVmDeath(jvmtiEnv*, JNIEnv* jni) {
    guarded("VM death", [&](Recorder& r) { r.onVmDeath(jni); });
}
void JNICALL onThreadStart(jvmtiEnv*, JNIEnv* jni, jthread thread) {
    guarded("thread start", [&](Recorder& r) { r.onThreadStart(jni, thread); });
}
void JNICALL onThreadEnd(jvmtiEnv*, JNIEnv* jni, jthread thread) {
    guarded("thread end", [&](Recorder& r) { r.onThreadEnd(jni, thread); });
}
void JNICALL onClassLoad(jvmtiEnv*, JNIEnv* jni, jthread, jclass klass) {
    guarded("class load", [&](Recorder& r) { r.onClassLoad(jni, klass); });
}
void JNICALL onClassPrepare(jvmtiEnv*, JNIEnv* jni, jthread, jclass klass) {
    guarded("class prepare", [&](Recorder& r) { r.onClassPrepare(jni, klass); });
}
void JNICALL onSampledAlloc(jvmtiEnv*, JNIEnv* jni, jthread thread, jobject object, jclass klass,
                            jlong size) {
    guarded("allocation", [&](Recorder& r) { r.onAlloc(jni, thread, object, klass, size, false); });
}
void JNICALL onVmObjectAlloc(jvmtiEnv*, JNIEnv* jni, jthread thread, jobject object, jclass klass,
                             jlong size) {
    guarded("allocation", [&](Recorder& r) { r.onAlloc(jni, thread, object, klass, size, true); });
}
void JNICALL onObjectFree(jvmtiEnv*, jlong tag) {
    guarded("object free", [&](Recorder& r) { r.onFree(tag); });
}
void JNICALL onGcStart(jvmtiEnv*) {
    guarded("GC start", [&](Recorder& r) { r.onGcStart(); });
}
void JNICALL onCompiledMethodUnload(jvmtiEnv*, jmethodID, const void*) {
    guarded("code unload", [&](Recorder& r) { r.onCodeUnload(); });
}
void JNICALL onGcFinish(jvmtiEnv*) {
    guarded("GC finish", [&](Recorder& r) { r.onGcFinish(); });
}

jint fail(const std::string& message) {
    std::fprintf(stderr, "memcity agent: %s\n", message.c_str());
    return JNI_ERR;
}

}  // namespace

extern "C" JNIEXPORT jint JNICALL Agent_OnLoad(JavaVM* vm, char* options, void*) {
    auto parsed = memcity::agent::parseAgentOptions(options);
    if (!parsed) return fail(parsed.error().message);
    jvmtiEnv* jvmti = nullptr;
    if (vm->GetEnv(reinterpret_cast<void**>(&jvmti), JVMTI_VERSION_11) != JNI_OK || !jvmti)
        return fail("this JVM has no JVMTI 11 (Java 11 or newer is needed)");
    jvmtiCapabilities caps{};
    caps.can_tag_objects = 1;
    caps.can_generate_sampled_object_alloc_events = 1;
    caps.can_generate_vm_object_alloc_events = 1;
    caps.can_generate_object_free_events = 1;
    caps.can_generate_garbage_collection_events = 1;
    caps.can_get_line_numbers = 1;
    caps.can_get_source_file_name = 1;
    caps.can_generate_compiled_method_load_events = 1;  // code unloads end stack keys' generation
    if (jvmti->AddCapabilities(&caps) != JVMTI_ERROR_NONE)
        return fail(
            "the JVM refused the capabilities the recorder needs (tagging, allocation, GC and free events)");
    jvmtiEventCallbacks callbacks{};
    callbacks.VMInit = onVmInit;
    callbacks.VMDeath = onVmDeath;
    callbacks.ThreadStart = onThreadStart;
    callbacks.ThreadEnd = onThreadEnd;
    callbacks.ClassLoad = onClassLoad;
    callbacks.ClassPrepare = onClassPrepare;
    callbacks.SampledObjectAlloc = onSampledAlloc;
    callbacks.VMObjectAlloc = onVmObjectAlloc;
    callbacks.ObjectFree = onObjectFree;
    callbacks.GarbageCollectionStart = onGcStart;
    callbacks.GarbageCollectionFinish = onGcFinish;
    callbacks.CompiledMethodUnload = onCompiledMethodUnload;
    if (jvmti->SetEventCallbacks(&callbacks, sizeof callbacks) != JVMTI_ERROR_NONE)
        return fail("cannot set event callbacks");
    // Writing past a file size limit must fail with EFBIG, not kill the JVM.
    std::signal(SIGXFSZ, SIG_IGN);
    g_recorder = new Recorder(jvmti, vm, *parsed);
    if (memcity::Status s = g_recorder->start(); !s) {
        delete g_recorder;
        g_recorder = nullptr;
        return fail(s.error().message);
    }
    return JNI_OK;
}

extern "C" JNIEXPORT void JNICALL Agent_OnUnload(JavaVM*) {
    // VMDeath normally closed the trace; the recorder stays allocated because late callbacks of
    // daemon threads may still look at it (they find it finished and return).
}
