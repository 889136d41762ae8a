// Small helpers around the JVMTI C API: memory it hands out, and type signatures.
#pragma once

#include <jvmti.h>

#include <cstdint>
#include <string>
#include <string_view>

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

// "Ljava/util/HashMap$Node;" -> "java.util.HashMap$Node", "[I" -> "int[]",
// "[[Ljava/lang/String;" -> "java.lang.String[][]".
inline std::string javaName(std::string_view sig) {
    size_t dims = 0;
    while (dims < sig.size() && sig[dims] == '[')
        ++dims;
    std::string_view elem = sig.substr(dims);
    std::string name;
    if (elem.size() >= 2 && elem.front() == 'L' && elem.back() == ';') {
        name = std::string(elem.substr(1, elem.size() - 2));
        for (char& c : name)
            if (c == '/') c = '.';
    } else if (elem.size() == 1) {
        switch (elem[0]) {
            case 'Z': name = "boolean"; break;
            case 'B': name = "byte"; break;
            case 'C': name = "char"; break;
            case 'S': name = "short"; break;
            case 'I': name = "int"; break;
            case 'J': name = "long"; break;
            case 'F': name = "float"; break;
            case 'D': name = "double"; break;
            case 'V': name = "void"; break;
            default: name = std::string(elem);
        }
    } else {
        name = std::string(elem);
    }
    for (size_t i = 0; i < dims; ++i)
        name += "[]";
    return name;
}

// Bytes per element of an array of this signature ("[I" -> 4), given the size of a reference.
inline uint32_t elementBytes(std::string_view sig, uint32_t reference_bytes) {
    if (sig.size() < 2 || sig[0] != '[') return 0;
    switch (sig[1]) {
        case 'Z':
        case 'B': return 1;
        case 'C':
        case 'S': return 2;
        case 'I':
        case 'F': return 4;
        case 'J':
        case 'D': return 8;
        default: return reference_bytes;
    }
}

}  // namespace memcity::agent
