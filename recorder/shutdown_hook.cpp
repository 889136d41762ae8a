#include "shutdown_hook.h"

#include <cstdint>
#include <vector>

namespace memcity::agent {
namespace {

// The class file of
//
//     package memcity.agent;
//     public class ShutdownHook extends Thread {
//         public ShutdownHook() { super(); }
//         public native void run();
//     }
//
// written out by hand (class file version 52: straight-line code needs no stack map table), so
// the agent needs no Java compiler and ships no .class file.
std::vector<uint8_t> hookClassFile() {
    std::vector<uint8_t> b;
    auto u1 = [&](unsigned v) { b.push_back(static_cast<uint8_t>(v)); };
    auto u2 = [&](unsigned v) {
        u1(v >> 8);
        u1(v & 0xff);
    };
    auto u4 = [&](uint32_t v) {
        u2(v >> 16);
        u2(v & 0xffff);
    };
    auto utf8 = [&](std::string_view s) {
        u1(1);  // CONSTANT_Utf8
        u2(static_cast<unsigned>(s.size()));
        for (char c : s)
            u1(static_cast<unsigned char>(c));
    };
    u4(0xCAFEBABE);
    u2(0);                               // minor version
    u2(52);                              // major version: Java 8
    u2(11);                              // constant pool count: entries 1..10
    utf8("memcity/agent/ShutdownHook");  // 1
    u1(7), u2(1);                        // 2: Class #1
    utf8("java/lang/Thread");            // 3
    u1(7), u2(3);                        // 4: Class #3
    utf8("<init>");                      // 5
    utf8("()V");                         // 6
    u1(12), u2(5), u2(6);                // 7: NameAndType <init> ()V
    u1(10), u2(4), u2(7);                // 8: Methodref Thread.<init>()V
    utf8("run");                         // 9
    utf8("Code");                        // 10
    u2(0x0021);                          // ACC_PUBLIC | ACC_SUPER
    u2(2);                               // this class
    u2(4);                               // super class
    u2(0);                               // interfaces
    u2(0);                               // fields
    u2(2);                               // methods
    // public <init>()V { aload_0; invokespecial #8; return; }
    u2(0x0001), u2(5), u2(6), u2(1);
    u2(10), u4(17);  // Code attribute, 17 bytes
    u2(1), u2(1);    // max stack, max locals
    u4(5);
    u1(0x2A), u1(0xB7), u2(8), u1(0xB1);
    u2(0), u2(0);  // no exception table, no attributes
    // public native run()V
    u2(0x0101), u2(9), u2(6), u2(0);
    u2(0);  // class attributes
    return b;
}

ShutdownHookFn g_hook = nullptr;
jclass g_hook_class = nullptr;  // a global reference, once defined

void JNICALL runHook(JNIEnv* jni, jobject) {
    if (g_hook) g_hook(jni);
}

// java.lang.Runtime's hook list: add (true) or remove (false) `hook`. False if it threw.
bool changeHooks(JNIEnv* jni, jobject hook, bool add) {
    jclass runtime = jni->FindClass("java/lang/Runtime");
    jmethodID get_runtime =
        runtime ? jni->GetStaticMethodID(runtime, "getRuntime", "()Ljava/lang/Runtime;") : nullptr;
    jmethodID change = runtime ? jni->GetMethodID(runtime, add ? "addShutdownHook" : "removeShutdownHook",
                                                  add ? "(Ljava/lang/Thread;)V" : "(Ljava/lang/Thread;)Z")
                               : nullptr;
    jobject rt = get_runtime ? jni->CallStaticObjectMethod(runtime, get_runtime) : nullptr;
    bool ok = rt && change;
    if (ok) {
        if (add)
            jni->CallVoidMethod(rt, change, hook);
        else
            jni->CallBooleanMethod(rt, change, hook);
    }
    if (jni->ExceptionCheck()) {
        jni->ExceptionClear();
        ok = false;
    }
    if (rt) jni->DeleteLocalRef(rt);
    if (runtime) jni->DeleteLocalRef(runtime);
    return ok;
}

}  // namespace

Result<jobject> installShutdownHook(JNIEnv* jni, ShutdownHookFn fn) {
    g_hook = fn;
    auto fail = [&](const char* what) -> Error {
        if (jni->ExceptionCheck()) jni->ExceptionClear();
        return Error{std::string("cannot install the shutdown hook: ") + what};
    };
    // Defined once per JVM: an agent attached again after a detach finds it here (this library
    // stays loaded). Not looked up by name: FindClass would search the program's class path
    // (its jar files, on the agent's account) before it failed.
    if (!g_hook_class) {
        const std::vector<uint8_t> bytes = hookClassFile();
        jclass defined =
            jni->DefineClass("memcity/agent/ShutdownHook", nullptr,
                             reinterpret_cast<const jbyte*>(bytes.data()), static_cast<jsize>(bytes.size()));
        if (!defined) return fail("defining its class failed");
        g_hook_class = static_cast<jclass>(jni->NewGlobalRef(defined));
        jni->DeleteLocalRef(defined);
    }
    jclass hook_class = g_hook_class;
    JNINativeMethod run{const_cast<char*>("run"), const_cast<char*>("()V"),
                        reinterpret_cast<void*>(&runHook)};
    if (jni->RegisterNatives(hook_class, &run, 1) != JNI_OK) return fail("RegisterNatives failed");
    jmethodID init = jni->GetMethodID(hook_class, "<init>", "()V");
    jobject hook = init ? jni->NewObject(hook_class, init) : nullptr;
    if (!hook) return fail("creating it failed");
    const bool added = changeHooks(jni, hook, true);
    jobject global = added ? jni->NewGlobalRef(hook) : nullptr;
    jni->DeleteLocalRef(hook);
    if (!added) return fail("Runtime.addShutdownHook failed");
    return global;
}

void removeShutdownHook(JNIEnv* jni, jobject hook) {
    if (!hook) return;
    changeHooks(jni, hook, false);
    jni->DeleteGlobalRef(hook);
}

}  // namespace memcity::agent
