// HPROF heap dumps, as a stream of records: what `jcmd PID GC.heap_dump`,
// -XX:+HeapDumpOnOutOfMemoryError, HotSpotDiagnosticMXBean.dumpHeap and VisualVM write (format
// "JAVA PROFILE 1.0.2", or 1.0.1, with 4- or 8-byte identifiers; one HEAP DUMP record or many
// HEAP DUMP SEGMENTs). The importer turns what it reads into a trace.
//
// The reader walks the bytes once and hands each record to a visitor; the spans it hands out point
// into the input and are valid while the input is. Numbers are big-endian. Identifiers are widened
// to 64 bits. Records the reader does not use (CPU samples, allocation sites, thread starts, ...)
// are skipped by their length; an unknown heap dump sub-record cannot be skipped (it has no
// length) and is an error.
//
// Errors name the byte offset and the record: a bad header, an identifier size other than 4 or 8,
// a record or sub-record running past its end or the file's, an unknown sub-record, a basic type
// HPROF does not define. What was read before an error has been handed to the visitor.
#pragma once

#include <cstdint>
#include <functional>
#include <span>
#include <string>
#include <string_view>
#include <vector>

#include "util/result.h"

namespace memcity::hprof {

// HPROF's basic types (the CLASS DUMP's field types, PRIMITIVE ARRAY DUMP's element type).
enum class BasicType : uint8_t {
    kObject = 2,
    kBoolean = 4,
    kChar = 5,
    kFloat = 6,
    kDouble = 7,
    kByte = 8,
    kShort = 9,
    kInt = 10,
    kLong = 11,
};
// Bytes of a value of `type` in the dump (an object: the identifier size); 0 for a value HPROF
// does not define.
uint32_t valueSize(uint8_t type, uint32_t id_size);
// "int", "java.lang.Object" for kObject, ...; "?" for an undefined type.
std::string_view basicTypeName(uint8_t type);

struct Header {
    std::string version;        // "JAVA PROFILE 1.0.2"
    uint32_t id_size = 0;       // 4 or 8
    uint64_t timestamp_ms = 0;  // when the dump began, ms since the Unix epoch
};

// Top-level records.
struct LoadClass {
    uint32_t serial = 0;
    uint64_t class_id = 0;  // the java.lang.Class object's identifier
    uint32_t stack_serial = 0;
    uint64_t name_id = 0;  // a UTF8 record: the class's name in internal form ("java/lang/String", "[I")
};
struct StackFrame {
    uint64_t id = 0;
    uint64_t method_name_id = 0, signature_id = 0, source_file_id = 0;  // UTF8 records (0: none)
    uint32_t class_serial = 0;
    int32_t line = 0;  // > 0 a line; 0 none; -1 unknown; -2 compiled; -3 native
};
struct StackTrace {
    uint32_t serial = 0;
    uint32_t thread_serial = 0;
    std::vector<uint64_t> frame_ids;  // innermost first
};

// Heap dump sub-records.
enum class RootKind : uint8_t {
    kUnknown = 0xff,
    kJniGlobal = 0x01,
    kJniLocal = 0x02,
    kJavaFrame = 0x03,
    kNativeStack = 0x04,
    kStickyClass = 0x05,
    kThreadBlock = 0x06,
    kMonitorUsed = 0x07,
    kThreadObject = 0x08,
};
struct Root {
    RootKind kind = RootKind::kUnknown;
    uint64_t object_id = 0;
    uint32_t thread_serial = 0;  // JNI local, Java frame, native stack, thread block, thread object
    uint32_t frame = 0;  // JNI local and Java frame: the frame's depth; thread object: its stack trace serial
    uint64_t jni_ref_id = 0;  // JNI global: the reference's identifier
};
struct ClassField {
    uint64_t name_id = 0;
    uint8_t type = 0;  // a BasicType
};
struct StaticField {
    uint64_t name_id = 0;
    uint8_t type = 0;
    uint64_t value = 0;  // an object's identifier, or the value's bits
};
struct ClassDump {
    uint64_t class_id = 0, super_id = 0, loader_id = 0, signers_id = 0, protection_domain_id = 0;
    uint32_t stack_serial = 0;
    uint32_t instance_size = 0;  // as the dump says it: HotSpot writes the instance fields' bytes in the dump
    std::vector<StaticField> statics;
    std::vector<ClassField> fields;  // this class's own instance fields, in dump order
};
// `offset`: where the sub-record's tag is in the dump.
struct InstanceDump {
    uint64_t offset = 0;
    uint64_t id = 0, class_id = 0;
    uint32_t stack_serial = 0;
    std::span<const uint8_t> values;  // the fields' values: the class's, then its super's, ...
};
struct ObjectArrayDump {
    uint64_t offset = 0;
    uint64_t id = 0, class_id = 0;
    uint32_t stack_serial = 0;
    uint32_t length = 0;
    std::span<const uint8_t> elements;  // length identifiers
};
struct PrimitiveArrayDump {
    uint64_t offset = 0;
    uint64_t id = 0;
    uint32_t stack_serial = 0;
    uint32_t length = 0;
    uint8_t type = 0;                   // a BasicType other than kObject
    std::span<const uint8_t> elements;  // length values, big-endian
};

// What the reader hands out; each call has a no-op default. `offset`: where the record begins.
class Visitor {
public:
    virtual ~Visitor() = default;
    virtual void header(const Header&) {}
    virtual void string(uint64_t /*id*/, std::string_view /*utf8*/) {}
    virtual void loadClass(const LoadClass&) {}
    virtual void stackFrame(const StackFrame&) {}
    virtual void stackTrace(const StackTrace&) {}
    // A HEAP DUMP or HEAP DUMP SEGMENT record begins (`segment`: the latter), and HEAP DUMP END.
    virtual void heapDumpBegin(bool /*segment*/, uint64_t /*offset*/) {}
    virtual void heapDumpEnd() {}
    virtual void root(const Root&) {}
    virtual void classDump(const ClassDump&) {}
    virtual void instance(const InstanceDump&) {}
    virtual void objectArray(const ObjectArrayDump&) {}
    virtual void primitiveArray(const PrimitiveArrayDump&) {}
    // Asked every so many sub-records: true stops the read ("the read was cancelled").
    virtual bool cancelled() { return false; }
};

// Reads a whole dump from memory. Errors: "offset N: what" (see the top of this file).
Status read(std::span<const uint8_t> dump, Visitor& visitor);
// The same, with the heap dump records (a big dump's many segments) parsed on one thread per
// part: shared out in file order into contiguous runs of about equal bytes, the first run to
// parts[0] on this thread, the next to parts[1], and so on. parts[0] also gets the header and
// every other record, before any heap record. The first error in file order is returned. Once
// its own run is read, this thread calls `waiting` (may be empty) every 20 ms until the other
// parts are read too (a caller's progress, and its cancel, go on).
Status readSplit(std::span<const uint8_t> dump, std::span<Visitor* const> parts,
                 const std::function<void()>& waiting = {});

// Reads the identifier at `p` (4 or 8 bytes, big-endian).
uint64_t readId(const uint8_t* p, uint32_t id_size);

}  // namespace memcity::hprof
