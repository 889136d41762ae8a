// Small helpers around the JVMTI C API: memory it hands out, and type signatures.
#pragma once

#include <jvmti.h>

#include <cstdint>
#include <string>
#include <string_view>

#include "trace/java_names.h"

namespace memcity::agent {

// Frees memory JVMTI allocated (strings, arrays) when it goes out of scope.
template <class T>
class JvmtiPtr {
public:
    explicit JvmtiPtr(jvmtiEnv* env) : env_(env) {}
    ~JvmtiPtr() {
        if (p_) env_->Deallocate(reinterpret_cast<unsigned char*>(p_));
    }
    JvmtiPtr(const JvmtiPtr&) = delete;
    JvmtiPtr& operator=(const JvmtiPtr&) = delete;
    T** out() { return &p_; }
    T* get() const { return p_; }
    T& operator[](size_t i) const { return p_[i]; }

private:
    jvmtiEnv* env_;
    T* p_ = nullptr;
};

// The object a local JNI reference names: HotSpot's handle slot holds the object's address
// (checked at VM init, see Recorder::weakDeathsWork).
inline uintptr_t addressOf(jobject local) {
    return *reinterpret_cast<const uintptr_t*>(local);
}
// The same through a JNI weak global reference (0 once a GC cleared it): the address of its slot
// with the low bits tagged (JDK 17: 1; JDK 21 and later: 1 of 3).
inline uintptr_t addressOfWeak(jweak ref) {
    return *reinterpret_cast<const uintptr_t*>(reinterpret_cast<uintptr_t>(ref) & ~uintptr_t{3});
}

}  // namespace memcity::agent
