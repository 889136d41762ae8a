/* A JVMTI agent for the attach tests (tests/recorder/test_jvm_attach.cpp), loaded into a running
 * JVM by memcity::cli::loadAgent: Agent_OnAttach says on the JVM's stdout that it ran, with its
 * options, and returns ATTACH_RC (built as 0 and as 7). Without ATTACH_RC it has no Agent_OnAttach,
 * only Agent_OnLoad: a library the JVM cannot attach. Nothing else is exported. */
#include <jni.h>
#include <stdio.h>

#ifndef ATTACH_RC
JNIEXPORT jint JNICALL Agent_OnLoad(JavaVM* vm, char* options, void* reserved) {
    (void)vm;
    (void)options;
    (void)reserved;
    return JNI_OK;
}
#else
JNIEXPORT jint JNICALL Agent_OnAttach(JavaVM* vm, char* options, void* reserved) {
    (void)vm;
    (void)reserved;
    printf("attach agent: options '%s', returning %d\n", options ? options : "", ATTACH_RC);
    fflush(stdout);
    return ATTACH_RC;
}
#endif
