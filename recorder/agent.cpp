// libmemcity_agent.so: the JVMTI entry points. Each event trampolines into the Recorder; no
// C++ exception may unwind into the JVM, so each handler is guarded.
#include <jvmti.h>

#include <unistd.h>

#include <csignal>
#include <cstdio>
#include <exception>
#include <memory>

#include "live/control_protocol.h"
#include "options.h"
#include "recorder.h"

namespace {

using memcity::agent::Recorder;
Recorder* g_recorder = nullptr;

template <class F>
void guarded(const char* where, F&& f) {
    Recorder* recorder = g_recorder;
    if (!recorder) return;
    Recorder::CallbackScope scope(*recorder);
    try {
        f(*recorder);
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
void JNICALL onGcFinish(jvmtiEnv*) {
    guarded("GC finish", [&](Recorder& r) { r.onGcFinish(); });
}

jint fail(const std::string& message,
          memcity::live::AttachCode code = memcity::live::AttachCode::kCannotStart) {
    std::fprintf(stderr, "memcity agent: %s\n", message.c_str());
    return static_cast<jint>(code);
}

// Sets up a recorder on a new JVMTI environment: its capabilities and callbacks. The events
// are enabled by Recorder::start (at JVM start) or Recorder::attach (in a running JVM).
jint setUp(JavaVM* vm, char* options, Recorder** out) {
    using memcity::live::AttachCode;
    auto parsed = memcity::agent::parseAgentOptions(options);
    if (!parsed) return fail(parsed.error().message, AttachCode::kBadOptions);
    jvmtiEnv* jvmti = nullptr;
    if (vm->GetEnv(reinterpret_cast<void**>(&jvmti), JVMTI_VERSION_11) != JNI_OK || !jvmti)
        return fail("this JVM has no JVMTI 11 (Java 11 or newer is needed)", AttachCode::kNoJvmti);
    jvmtiCapabilities caps{};
    caps.can_tag_objects = 1;
    caps.can_generate_sampled_object_alloc_events = 1;
    caps.can_generate_vm_object_alloc_events = 1;
    caps.can_generate_object_free_events = 1;
    caps.can_generate_garbage_collection_events = 1;
    caps.can_get_line_numbers = 1;
    caps.can_get_source_file_name = 1;
    if (jvmti->AddCapabilities(&caps) != JVMTI_ERROR_NONE) {
        jvmti->DisposeEnvironment();
        return fail(
            "the JVM refused the capabilities the recorder needs (tagging, allocation, GC and free "
            "events; another agent may hold them)",
            AttachCode::kRefused);
    }
    // Suspending threads, for live control's pause: one agent at a time may have it (a debugger
    // may), so the recording goes on without it.
    jvmtiCapabilities suspend{};
    suspend.can_suspend = 1;
    const bool can_suspend = jvmti->AddCapabilities(&suspend) == JVMTI_ERROR_NONE;
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
    if (jvmti->SetEventCallbacks(&callbacks, sizeof callbacks) != JVMTI_ERROR_NONE) {
        jvmti->DisposeEnvironment();
        return fail("cannot set event callbacks");
    }
    // Writing past a file size limit must fail with EFBIG, not kill the JVM.
    std::signal(SIGXFSZ, SIG_IGN);
    *out = new Recorder(jvmti, vm, *parsed, can_suspend);
    return JNI_OK;
}

}  // namespace

extern "C" JNIEXPORT jint JNICALL Agent_OnLoad(JavaVM* vm, char* options, void*) {
    Recorder* recorder = nullptr;
    if (jint err = setUp(vm, options, &recorder); err != JNI_OK) return JNI_ERR;
    if (memcity::Status s = recorder->start(); !s) {
        recorder->jvmti()->DisposeEnvironment();
        delete recorder;
        fail(s.error().message);
        return JNI_ERR;
    }
    g_recorder = recorder;
    return JNI_OK;
}

// Loaded into a running JVM (memcity attach, or jcmd PID JVMTI.agent_load): records from now on,
// on the attach listener's thread until it has begun. Returns a memcity::live::AttachCode.
extern "C" JNIEXPORT jint JNICALL Agent_OnAttach(JavaVM* vm, char* options, void*) {
    using memcity::live::AttachCode;
    if (g_recorder && !g_recorder->detached())
        return fail("this JVM is being recorded already", AttachCode::kAlreadyRecording);
    JNIEnv* jni = nullptr;
    if (vm->GetEnv(reinterpret_cast<void**>(&jni), JNI_VERSION_1_8) != JNI_OK || !jni)
        return fail("no JNI environment on the attaching thread");
    Recorder* recorder = nullptr;
    if (jint err = setUp(vm, options, &recorder); err != JNI_OK) return err;
    // Only a client can end an attached recording: without the control channel's private
    // directory, nothing is recorded (nothing created, the JVMTI environment given back).
    if (recorder->options().control) {
        const uid_t uid = ::geteuid();
        if (memcity::Status s =
                memcity::live::ensurePrivateDirectory(memcity::live::socketDirectory(uid), uid);
            !s) {
            recorder->jvmti()->DisposeEnvironment();
            delete recorder;
            return fail("no live control: " + s.error().message + "; nothing is recorded",
                        AttachCode::kNoControl);
        }
    }
    jthread current = nullptr;
    recorder->jvmti()->GetCurrentThread(&current);
    // A recorder that ended by detach stays allocated: late callbacks of its threads may still
    // look at their thread-locals (each thread's state names its recorder).
    g_recorder = recorder;
    memcity::Status s = recorder->attach(jni, current);
    if (current) jni->DeleteLocalRef(current);
    if (!s) {
        recorder->detach(jni);  // whatever had begun is undone; the trace, if any, is closed
        return fail(s.error().message,
                    recorder->noControl() ? AttachCode::kNoControl : AttachCode::kCannotStart);
    }
    return JNI_OK;
}
extern "C" JNIEXPORT void JNICALL Agent_OnUnload(JavaVM*) {
    // VMDeath normally closed the trace; the recorder stays allocated because late callbacks of
    // daemon threads may still look at it (they find it finished and return).
}
