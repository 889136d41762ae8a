// jvmti_floor_agent: what the JVM's own JVMTI machinery costs, with no recording at all.
//
// bench_recorder.sh runs each workload under this agent to split a recording's slowdown into
// what HotSpot charges for the events and calls every recorder of every allocation must make
// (an allocation event, a tag so the object's death is reported, a stack trace for its site)
// and what memcity's agent adds on top. Options (-agentpath:...=OPTIONS, comma-separated):
//   events   every allocation reported (SetHeapSamplingInterval(0) + SampledObjectAlloc)
//   tag      ... and each new object tagged, with ObjectFree enabled
//   stack=N  ... and an N-frame GetStackTrace per allocation
#include <jvmti.h>

#include <atomic>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <string_view>

namespace {

bool g_tag = false;
int g_stack = 0;
std::atomic<jlong> g_next_tag{1};
std::atomic<long> g_allocations{0};

void JNICALL onAlloc(jvmtiEnv* jvmti, JNIEnv*, jthread, jobject object, jclass, jlong) {
    g_allocations.fetch_add(1, std::memory_order_relaxed);
    if (g_tag) jvmti->SetTag(object, g_next_tag.fetch_add(1, std::memory_order_relaxed));
    if (g_stack > 0) {
        jvmtiFrameInfo frames[256];
        jint count = 0;
        jvmti->GetStackTrace(nullptr, 0, g_stack, frames, &count);
    }
}

void JNICALL onFree(jvmtiEnv*, jlong) {}

void JNICALL onDeath(jvmtiEnv*, JNIEnv*) {
    std::fprintf(stderr, "jvmti_floor_agent: %ld allocations\n", g_allocations.load());
}

}  // namespace

JNIEXPORT jint JNICALL Agent_OnLoad(JavaVM* vm, char* options, void*) {
    std::string_view rest = options ? options : "";
    while (!rest.empty()) {
        size_t comma = rest.find(',');
        std::string_view opt = rest.substr(0, comma);
        rest = comma == std::string_view::npos ? std::string_view{} : rest.substr(comma + 1);
        if (opt == "tag") {
            g_tag = true;
        } else if (opt.starts_with("stack=")) {
            g_stack = std::atoi(std::string(opt.substr(6)).c_str());
            if (g_stack < 1 || g_stack > 256) {
                std::fprintf(stderr, "jvmti_floor_agent: stack=N needs N from 1 to 256\n");
                return JNI_ERR;
            }
        } else if (opt != "events") {
            std::fprintf(stderr, "jvmti_floor_agent: unknown option '%.*s' (events, tag, stack=N)\n",
                         static_cast<int>(opt.size()), opt.data());
            return JNI_ERR;
        }
    }
    jvmtiEnv* jvmti = nullptr;
    if (vm->GetEnv(reinterpret_cast<void**>(&jvmti), JVMTI_VERSION_11) != JNI_OK) return JNI_ERR;
    jvmtiCapabilities caps{};
    caps.can_generate_sampled_object_alloc_events = 1;
    caps.can_tag_objects = 1;
    caps.can_generate_object_free_events = 1;
    jvmtiEventCallbacks callbacks{};
    callbacks.SampledObjectAlloc = onAlloc;
    callbacks.ObjectFree = onFree;
    callbacks.VMDeath = onDeath;
    if (jvmti->AddCapabilities(&caps) != JVMTI_ERROR_NONE ||
        jvmti->SetEventCallbacks(&callbacks, sizeof callbacks) != JVMTI_ERROR_NONE ||
        jvmti->SetHeapSamplingInterval(0) != JVMTI_ERROR_NONE ||
        jvmti->SetEventNotificationMode(JVMTI_ENABLE, JVMTI_EVENT_SAMPLED_OBJECT_ALLOC, nullptr) !=
            JVMTI_ERROR_NONE ||
        jvmti->SetEventNotificationMode(JVMTI_ENABLE, JVMTI_EVENT_VM_DEATH, nullptr) != JVMTI_ERROR_NONE ||
        (g_tag &&
         jvmti->SetEventNotificationMode(JVMTI_ENABLE, JVMTI_EVENT_OBJECT_FREE, nullptr) != JVMTI_ERROR_NONE))
        return JNI_ERR;
    return JNI_OK;
}
