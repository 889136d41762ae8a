#include "hprof/hprof_reader.h"

#include <algorithm>
#include <chrono>
#include <condition_variable>
#include <cstring>
#include <mutex>
#include <thread>
#include <vector>

#include "util/parallel.h"

namespace memcity::hprof {
namespace {

// Top-level record tags.
constexpr uint8_t kUtf8 = 0x01, kLoadClass = 0x02, kStackFrame = 0x04, kStackTrace = 0x05, kHeapDump = 0x0c,
                  kHeapDumpSegment = 0x1c, kHeapDumpEnd = 0x2c;
// Heap dump sub-record tags besides the roots.
constexpr uint8_t kClassDump = 0x20, kInstanceDump = 0x21, kObjectArrayDump = 0x22,
                  kPrimitiveArrayDump = 0x23;

std::string hex(uint8_t v) {
    static const char* digits = "0123456789abcdef";
    return std::string("0x") + digits[v >> 4] + digits[v & 15];
}

// Big-endian reads within [begin, end) of the dump; `ok` turns false at the first read past the
// end, and every later read returns 0.
class Cursor {
public:
    Cursor(const uint8_t* base, size_t begin, size_t end) : base_(base), at_(begin), end_(end) {}

    bool ok() const { return ok_; }
    size_t offset() const { return at_; }
    size_t left() const { return ok_ ? end_ - at_ : 0; }
    bool atEnd() const { return at_ >= end_; }

    bool need(size_t n) {
        if (ok_ && end_ - at_ >= n) return true;
        ok_ = false;
        return false;
    }
    uint64_t be(size_t n) {
        if (!need(n)) return 0;
        uint64_t v = 0;
        for (size_t i = 0; i < n; ++i)
            v = v << 8 | base_[at_ + i];
        at_ += n;
        return v;
    }
    uint8_t u1() { return static_cast<uint8_t>(be(1)); }
    uint16_t u2() { return static_cast<uint16_t>(be(2)); }
    uint32_t u4() { return static_cast<uint32_t>(be(4)); }
    uint64_t id(uint32_t size) { return be(size); }
    std::span<const uint8_t> bytes(size_t n) {
        if (!need(n)) return {};
        std::span<const uint8_t> s(base_ + at_, n);
        at_ += n;
        return s;
    }

private:
    const uint8_t* base_;
    size_t at_, end_;
    bool ok_ = true;
};

Error errorAt(size_t offset, const std::string& what) {
    return Error{"offset " + std::to_string(offset) + ": " + what};
}

// Reads a basic type into `type`: its values' size in the dump, or an error naming `what` for a
// type HPROF does not define. (Past the end: 0, and the cursor says so.)
Result<uint32_t> readType(Cursor& c, uint32_t id_size, std::string_view what, uint8_t* type) {
    const size_t at = c.offset();
    *type = c.u1();
    const uint32_t size = valueSize(*type, id_size);
    if (c.ok() && size == 0)
        return errorAt(at, std::string(what) + " has type " + hex(*type) + ", which HPROF does not define");
    return size;
}

// One HEAP DUMP (SEGMENT)'s sub-records, [c.offset(), its end).
Status readHeapDump(Cursor& c, uint32_t id_size, Visitor& v) {
    for (uint32_t records = 1; !c.atEnd(); ++records) {
        const size_t at = c.offset();
        if ((records & 0xffff) == 0 && v.cancelled()) return errorAt(at, "the read was cancelled");
        const uint8_t tag = c.u1();
        auto cut = [&](std::string_view what) {
            return errorAt(at, std::string(what) + " sub-record runs past the end of its heap dump record");
        };
        switch (tag) {
            case static_cast<uint8_t>(RootKind::kUnknown):
            case static_cast<uint8_t>(RootKind::kJniGlobal):
            case static_cast<uint8_t>(RootKind::kJniLocal):
            case static_cast<uint8_t>(RootKind::kJavaFrame):
            case static_cast<uint8_t>(RootKind::kNativeStack):
            case static_cast<uint8_t>(RootKind::kStickyClass):
            case static_cast<uint8_t>(RootKind::kThreadBlock):
            case static_cast<uint8_t>(RootKind::kMonitorUsed):
            case static_cast<uint8_t>(RootKind::kThreadObject): {
                Root r;
                r.kind = static_cast<RootKind>(tag);
                r.object_id = c.id(id_size);
                switch (r.kind) {
                    case RootKind::kJniGlobal: r.jni_ref_id = c.id(id_size); break;
                    case RootKind::kJniLocal:
                    case RootKind::kJavaFrame:
                    case RootKind::kThreadObject:
                        r.thread_serial = c.u4();
                        r.frame = c.u4();
                        break;
                    case RootKind::kNativeStack:
                    case RootKind::kThreadBlock: r.thread_serial = c.u4(); break;
                    default: break;
                }
                if (!c.ok()) return cut("root");
                v.root(r);
                break;
            }
            case kClassDump: {
                ClassDump d;
                d.class_id = c.id(id_size);
                d.stack_serial = c.u4();
                d.super_id = c.id(id_size);
                d.loader_id = c.id(id_size);
                d.signers_id = c.id(id_size);
                d.protection_domain_id = c.id(id_size);
                c.id(id_size);  // two reserved
                c.id(id_size);
                d.instance_size = c.u4();
                const uint16_t constants = c.u2();
                for (uint16_t k = 0; k < constants && c.ok(); ++k) {
                    c.u2();  // the pool index
                    uint8_t type = 0;
                    auto size = readType(c, id_size, "class dump's constant", &type);
                    if (!size) return size.error();
                    c.be(*size);
                }
                const uint16_t statics = c.u2();
                for (uint16_t k = 0; k < statics && c.ok(); ++k) {
                    StaticField f;
                    f.name_id = c.id(id_size);
                    auto size = readType(c, id_size, "class dump's static field", &f.type);
                    if (!size) return size.error();
                    f.value = c.be(*size);
                    d.statics.push_back(f);
                }
                const uint16_t fields = c.u2();
                for (uint16_t k = 0; k < fields && c.ok(); ++k) {
                    ClassField f;
                    f.name_id = c.id(id_size);
                    if (auto size = readType(c, id_size, "class dump's field", &f.type); !size)
                        return size.error();
                    d.fields.push_back(f);
                }
                if (!c.ok()) return cut("class dump");
                v.classDump(d);
                break;
            }
            case kInstanceDump: {
                InstanceDump d;
                d.offset = at;
                d.id = c.id(id_size);
                d.stack_serial = c.u4();
                d.class_id = c.id(id_size);
                const uint32_t n = c.u4();
                d.values = c.bytes(n);
                if (!c.ok()) return cut("instance dump");
                v.instance(d);
                break;
            }
            case kObjectArrayDump: {
                ObjectArrayDump d;
                d.offset = at;
                d.id = c.id(id_size);
                d.stack_serial = c.u4();
                d.length = c.u4();
                d.class_id = c.id(id_size);
                if (c.ok()) d.elements = c.bytes(uint64_t{d.length} * id_size);
                if (!c.ok()) return cut("object array dump");
                v.objectArray(d);
                break;
            }
            case kPrimitiveArrayDump: {
                PrimitiveArrayDump d;
                d.offset = at;
                d.id = c.id(id_size);
                d.stack_serial = c.u4();
                d.length = c.u4();
                const size_t type_at = c.offset();
                auto size = readType(c, id_size, "primitive array dump's element", &d.type);
                if (!size) return size.error();
                if (d.type == static_cast<uint8_t>(BasicType::kObject))
                    return errorAt(type_at, "primitive array dump's element has type 0x02, an object");
                d.elements = c.bytes(uint64_t{d.length} * *size);
                if (!c.ok()) return cut("primitive array dump");
                v.primitiveArray(d);
                break;
            }
            default:
                if (!c.ok()) return cut("a");
                return errorAt(at, "unknown heap dump sub-record " + hex(tag));
        }
    }
    return {};
}

}  // namespace

uint32_t valueSize(uint8_t type, uint32_t id_size) {
    switch (static_cast<BasicType>(type)) {
        case BasicType::kObject: return id_size;
        case BasicType::kBoolean:
        case BasicType::kByte: return 1;
        case BasicType::kChar:
        case BasicType::kShort: return 2;
        case BasicType::kFloat:
        case BasicType::kInt: return 4;
        case BasicType::kDouble:
        case BasicType::kLong: return 8;
    }
    return 0;
}

std::string_view basicTypeName(uint8_t type) {
    switch (static_cast<BasicType>(type)) {
        case BasicType::kObject: return "java.lang.Object";
        case BasicType::kBoolean: return "boolean";
        case BasicType::kChar: return "char";
        case BasicType::kFloat: return "float";
        case BasicType::kDouble: return "double";
        case BasicType::kByte: return "byte";
        case BasicType::kShort: return "short";
        case BasicType::kInt: return "int";
        case BasicType::kLong: return "long";
    }
    return "?";
}

uint64_t readId(const uint8_t* p, uint32_t id_size) {
    uint64_t v = 0;
    for (uint32_t i = 0; i < id_size; ++i)
        v = v << 8 | p[i];
    return v;
}

namespace {

// A HEAP DUMP (SEGMENT) record: its tag's offset, its body.
struct HeapRecord {
    size_t at, body, end;
    bool segment;
};

// Reads the header and every top-level record, in file order: `v` gets the header and every
// record but the heap dump ones, which `heap` gets (`v` gets their end). Stops at the first
// error.
template <typename HeapFn>
Status readRecords(std::span<const uint8_t> dump, Visitor& v, HeapFn&& heap) {
    // "JAVA PROFILE 1.0.x\0", the identifier size, the time.
    if (dump.empty()) return errorAt(0, "not an HPROF heap dump (the file is empty)");
    const void* nul = std::memchr(dump.data(), 0, std::min<size_t>(dump.size(), 64));
    if (!nul) return errorAt(0, "not an HPROF heap dump (no \"JAVA PROFILE\" header)");
    Header h;
    h.version.assign(reinterpret_cast<const char*>(dump.data()),
                     static_cast<size_t>(static_cast<const uint8_t*>(nul) - dump.data()));
    if (h.version != "JAVA PROFILE 1.0.2" && h.version != "JAVA PROFILE 1.0.1")
        return errorAt(0, "not an HPROF heap dump (header '" + printable(h.version, 40) + "')");
    Cursor c(dump.data(), h.version.size() + 1, dump.size());
    const size_t id_at = c.offset();
    h.id_size = c.u4();
    h.timestamp_ms = c.be(8);
    if (!c.ok()) return errorAt(id_at, "the header is cut off");
    if (h.id_size != 4 && h.id_size != 8)
        return errorAt(id_at, "identifier size " + std::to_string(h.id_size) + " (HPROF's are 4 or 8)");
    v.header(h);
    const uint32_t ids = h.id_size;

    while (!c.atEnd()) {
        const size_t at = c.offset();
        const uint8_t tag = c.u1();
        c.u4();  // microseconds since the header's time
        const uint32_t length = c.u4();
        if (!c.ok()) return errorAt(at, "record header is cut off");
        if (c.left() < length)
            return errorAt(at, "record " + hex(tag) + " of " + std::to_string(length) +
                                   " bytes runs past the end (" + std::to_string(c.left()) + " left)");
        const size_t body = c.offset(), end = body + length;
        Cursor r(dump.data(), body, end);
        auto cut = [&] { return errorAt(at, "record " + hex(tag) + " is shorter than its contents"); };
        switch (tag) {
            case kUtf8: {
                const uint64_t id = r.id(ids);
                if (!r.ok()) return cut();
                const std::span<const uint8_t> text = r.bytes(r.left());
                v.string(id, std::string_view(reinterpret_cast<const char*>(text.data()), text.size()));
                break;
            }
            case kLoadClass: {
                LoadClass l;
                l.serial = r.u4();
                l.class_id = r.id(ids);
                l.stack_serial = r.u4();
                l.name_id = r.id(ids);
                if (!r.ok()) return cut();
                v.loadClass(l);
                break;
            }
            case kStackFrame: {
                StackFrame f;
                f.id = r.id(ids);
                f.method_name_id = r.id(ids);
                f.signature_id = r.id(ids);
                f.source_file_id = r.id(ids);
                f.class_serial = r.u4();
                f.line = static_cast<int32_t>(r.u4());
                if (!r.ok()) return cut();
                v.stackFrame(f);
                break;
            }
            case kStackTrace: {
                StackTrace t;
                t.serial = r.u4();
                t.thread_serial = r.u4();
                const uint32_t frames = r.u4();
                if (!r.ok() || r.left() / ids < frames) return cut();
                t.frame_ids.reserve(frames);
                for (uint32_t k = 0; k < frames; ++k)
                    t.frame_ids.push_back(r.id(ids));
                v.stackTrace(t);
                break;
            }
            case kHeapDump:
            case kHeapDumpSegment:
                if (Status s = heap(HeapRecord{at, body, end, tag == kHeapDumpSegment}, ids); !s) return s;
                break;
            case kHeapDumpEnd: v.heapDumpEnd(); break;
            default: break;  // records the importer does not read
        }
        c.bytes(length);
    }
    return {};
}

Status readHeapRecord(std::span<const uint8_t> dump, const HeapRecord& h, uint32_t ids, Visitor& v) {
    v.heapDumpBegin(h.segment, h.at);
    Cursor r(dump.data(), h.body, h.end);
    return readHeapDump(r, ids, v);
}

}  // namespace

Status read(std::span<const uint8_t> dump, Visitor& v) {
    return readRecords(dump, v,
                       [&](const HeapRecord& h, uint32_t ids) { return readHeapRecord(dump, h, ids, v); });
}

Status readSplit(std::span<const uint8_t> dump, std::span<Visitor* const> parts,
                 const std::function<void()>& waiting) {
    if (parts.empty()) return errorAt(0, "no visitor");
    std::vector<HeapRecord> heap;
    uint32_t ids = 0;
    const Status scanned = readRecords(dump, *parts[0], [&](const HeapRecord& h, uint32_t id_size) {
        heap.push_back(h);
        ids = id_size;
        return Status{};
    });
    // The heap records in contiguous parts of about equal bytes, one thread each.
    uint64_t total = 0;
    for (const HeapRecord& h : heap)
        total += h.end - h.body;
    std::vector<size_t> first{0};  // part p's records: [first[p], first[p + 1])
    uint64_t done = 0;
    for (size_t i = 0; i < heap.size(); ++i) {
        while (first.size() < parts.size() && done >= total * first.size() / parts.size())
            first.push_back(i);
        done += heap[i].end - heap[i].body;
    }
    while (first.size() <= parts.size())
        first.push_back(heap.size());
    std::vector<Status> status(parts.size());
    auto readPart = [&](size_t p) {
        for (size_t i = first[p]; i < first[p + 1]; ++i)
            if (Status s = readHeapRecord(dump, heap[i], ids, *parts[p]); !s) {
                status[p] = s;
                return;
            }
    };
    runParts(parts.size(), readPart, waiting);
    // The first error in file order: the parts' (each before the next), then the scan's (after
    // every heap record it found).
    for (const Status& s : status)
        if (!s) return s;
    return scanned;
}

}  // namespace memcity::hprof
