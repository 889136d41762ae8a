// What HotSpot says about itself, read in process: the structure layout it exports for its
// Serviceability Agent (gHotSpotVMStructs in libjvm.so: each field's type, name and offset, or
// address for statics) and its performance counters (the jstat counters, in the memory
// PerfMemory points at). Both are read-only plain memory: safe to read inside a GC callback.
//
// Nothing here is a supported interface of the JVM: every lookup may find nothing on a JVM that
// is not HotSpot or lays itself out differently, and callers fall back (see gc_facts.h).
#pragma once

#include <cstdint>
#include <memory>
#include <string>
#include <string_view>
#include <unordered_map>
#include <vector>

namespace memcity::agent {

class VmStructs {
public:
    // nullptr when the running JVM exports no structure table.
    static std::unique_ptr<VmStructs> load();

    // Byte offset of a non-static field in its type; -1 if the JVM does not export it.
    int64_t offset(std::string_view type, std::string_view field) const;
    // Address of a static field; nullptr if the JVM does not export it.
    const void* address(std::string_view type, std::string_view field) const;

    // The value of an integer constant (gHotSpotVMIntConstants); `fallback` if not exported.
    int32_t constant(std::string_view name, int32_t fallback) const;
    // The size of a type (gHotSpotVMTypes); 0 if not exported.
    uint64_t size(std::string_view type) const;

    // The value of a boolean VM flag (-XX:+UseSerialGC...); false if there is no such flag.
    bool flag(std::string_view name) const;

private:
    struct Field {
        int64_t offset = -1;
        const void* address = nullptr;
    };
    std::unordered_map<std::string, Field> fields_;       // "Type::field"
    std::unordered_map<std::string, uint64_t> sizes_;     // type -> bytes
    std::unordered_map<std::string, int32_t> constants_;  // name -> value
};

// HotSpot's performance counters (what jstat and jcmd PerfCounter.print read).
class PerfCounters {
public:
    // Finds the counters through PerfMemory::_start; nullptr where there are none
    // (-XX:-UsePerfData) or they cannot be read.
    static std::unique_ptr<PerfCounters> open(const VmStructs& vm);

    // A counter's value; nullptr if there is no such counter (or it is not a number).
    const volatile int64_t* number(std::string_view name) const;
    // A string counter's text (NUL-terminated, at most `capacity` bytes); nullptr if absent.
    const volatile char* text(std::string_view name, size_t* capacity = nullptr) const;

private:
    struct Entry {
        const char* data = nullptr;
        char type = 0;       // 'J' a 64-bit number, 'B' bytes (a string when a vector)
        int32_t length = 0;  // vector length, 0 for a scalar
    };
    std::unordered_map<std::string, Entry> entries_;
};

}  // namespace memcity::agent
