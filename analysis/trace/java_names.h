// Java's names for classes and types, from the JVM's signatures: what the recorder and the
// heap dump importer name types with.
#pragma once

#include <cstdint>
#include <string>
#include <string_view>

namespace memcity {

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

}  // namespace memcity
