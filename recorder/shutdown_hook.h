// A JVM shutdown hook whose body is native code of the agent.
//
// The agent finishes its trace in the hook rather than in VMDeath: by VMDeath, HotSpot has
// already flushed the pending ObjectFree events from the exiting thread, and that flush can
// deadlock against the service thread's when a safepoint is requested meanwhile (seen on JDK 17
// and 25 with System.exit while other threads allocate). The hook runs before that flush; once
// the trace is finished it turns ObjectFree off, so the flush has nothing to post.
#pragma once

#include <jni.h>

#include "util/result.h"

namespace memcity::agent {

using ShutdownHookFn = void (*)(JNIEnv* jni);

// Registers a shutdown hook (a Thread subclass defined from class bytes built in memory, once
// per JVM) that calls `fn` on the hook's thread when the JVM shuts down normally or through
// System.exit (not on Runtime.halt or a signal that kills it). Returns the hook (a global
// reference) for removeShutdownHook. Contract: from a live phase thread; one hook at a time.
Result<jobject> installShutdownHook(JNIEnv* jni, ShutdownHookFn fn);
// Unregisters the hook and deletes its reference (when recording stops before the JVM exits).
void removeShutdownHook(JNIEnv* jni, jobject hook);

}  // namespace memcity::agent
