// Hand-made HPROF dumps for the reader's tests and the fuzzer's seed corpus.
#pragma once

#include <cstdint>
#include <initializer_list>
#include <iterator>
#include <string>
#include <vector>

#include "hprof/hprof_reader.h"

namespace memcity::hprof::testing {

// Writes an HPROF file: big-endian numbers, identifiers of `id_size` bytes.
class Builder {
public:
    explicit Builder(uint32_t id_size) : ids_(id_size) {
        const std::string version = "JAVA PROFILE 1.0.2";
        out_.insert(out_.end(), version.begin(), version.end());
        out_.push_back(0);
        be(out_, id_size, 4);
        be(out_, 1'700'000'000'000ull, 8);
    }

    std::vector<uint8_t>& bytes() { return out_; }

    void string(uint64_t id, const std::string& s) {
        std::vector<uint8_t> b;
        be(b, id, ids_);
        b.insert(b.end(), s.begin(), s.end());
        record(0x01, b);
    }
    void loadClass(uint32_t serial, uint64_t class_id, uint64_t name_id) {
        std::vector<uint8_t> b;
        be(b, serial, 4), be(b, class_id, ids_), be(b, 0, 4), be(b, name_id, ids_);
        record(0x02, b);
    }
    void stackTrace(uint32_t serial, uint32_t thread, const std::vector<uint64_t>& frames) {
        std::vector<uint8_t> b;
        be(b, serial, 4), be(b, thread, 4), be(b, frames.size(), 4);
        for (uint64_t f : frames)
            be(b, f, ids_);
        record(0x05, b);
    }
    void stackFrame(uint64_t id, uint64_t method, uint64_t signature, uint64_t source, uint32_t class_serial,
                    int32_t line) {
        std::vector<uint8_t> b;
        be(b, id, ids_), be(b, method, ids_), be(b, signature, ids_), be(b, source, ids_);
        be(b, class_serial, 4), be(b, static_cast<uint32_t>(line), 4);
        record(0x04, b);
    }
    void cpuSamples() { record(0x0d, {0, 0, 0, 5, 0, 0, 0, 0}); }  // skipped by its length

    // Sub-records of the next heap dump record.
    void sticky(uint64_t id) { sub_.push_back(0x05), be(sub_, id, ids_); }
    void jniGlobal(uint64_t id, uint64_t ref) {
        sub_.push_back(0x01), be(sub_, id, ids_), be(sub_, ref, ids_);
    }
    void javaFrame(uint64_t id, uint32_t thread, uint32_t frame) {
        sub_.push_back(0x03), be(sub_, id, ids_), be(sub_, thread, 4), be(sub_, frame, 4);
    }
    void threadObject(uint64_t id, uint32_t thread, uint32_t trace) {
        sub_.push_back(0x08), be(sub_, id, ids_), be(sub_, thread, 4), be(sub_, trace, 4);
    }
    struct Field {
        uint64_t name;
        uint8_t type;
    };
    void classDump(uint64_t id, uint64_t super, uint32_t instance_size, const std::vector<Field>& statics,
                   const std::vector<uint64_t>& static_values, const std::vector<Field>& fields) {
        sub_.push_back(0x20);
        be(sub_, id, ids_), be(sub_, 0, 4), be(sub_, super, ids_);
        for (int k = 0; k < 5; ++k)
            be(sub_, 0, ids_);  // loader, signers, protection domain, two reserved
        be(sub_, instance_size, 4);
        be(sub_, 1, 2), be(sub_, 3, 2), sub_.push_back(10), be(sub_, 99, 4);  // one int constant
        be(sub_, statics.size(), 2);
        for (size_t k = 0; k < statics.size(); ++k) {
            be(sub_, statics[k].name, ids_), sub_.push_back(statics[k].type);
            be(sub_, static_values[k], valueSize(statics[k].type, ids_));
        }
        be(sub_, fields.size(), 2);
        for (const Field& f : fields)
            be(sub_, f.name, ids_), sub_.push_back(f.type);
    }
    // An instance of a class with fields (int, object): the values given.
    void instance(uint64_t id, uint64_t class_id, uint32_t value, uint64_t next) {
        sub_.push_back(0x21), be(sub_, id, ids_), be(sub_, 7, 4), be(sub_, class_id, ids_);
        be(sub_, 4 + ids_, 4), be(sub_, value, 4), be(sub_, next, ids_);
    }
    // An instance with its values as given (big-endian, the class's fields then its supers').
    void instanceValues(uint64_t id, uint64_t class_id, const std::vector<uint8_t>& values) {
        sub_.push_back(0x21), be(sub_, id, ids_), be(sub_, 0, 4), be(sub_, class_id, ids_);
        be(sub_, values.size(), 4);
        sub_.insert(sub_.end(), values.begin(), values.end());
    }
    void byteArray(uint64_t id, const std::string& bytes) {
        sub_.push_back(0x23), be(sub_, id, ids_), be(sub_, 0, 4), be(sub_, bytes.size(), 4),
            sub_.push_back(8);
        sub_.insert(sub_.end(), bytes.begin(), bytes.end());
    }
    void objectArray(uint64_t id, uint64_t class_id, const std::vector<uint64_t>& elements) {
        sub_.push_back(0x22), be(sub_, id, ids_), be(sub_, 0, 4), be(sub_, elements.size(), 4),
            be(sub_, class_id, ids_);
        for (uint64_t e : elements)
            be(sub_, e, ids_);
    }
    void intArray(uint64_t id, const std::vector<uint32_t>& values) {
        sub_.push_back(0x23), be(sub_, id, ids_), be(sub_, 0, 4), be(sub_, values.size(), 4),
            sub_.push_back(10);
        for (uint32_t v : values)
            be(sub_, v, 4);
    }
    void rawSub(std::initializer_list<uint8_t> b) { sub_.insert(sub_.end(), b); }
    // Writes the sub-records so far as one HEAP DUMP SEGMENT (or HEAP DUMP) record.
    void heapDump(bool segment = true) {
        record(segment ? 0x1c : 0x0c, sub_);
        sub_.clear();
    }
    void heapDumpEnd() { record(0x2c, {}); }

    static void be(std::vector<uint8_t>& b, uint64_t v, size_t n) {
        for (size_t i = n; i-- > 0;)
            b.push_back(static_cast<uint8_t>(v >> (8 * i)));
    }

private:
    void record(uint8_t tag, const std::vector<uint8_t>& body) {
        out_.push_back(tag);
        be(out_, 0, 4);
        be(out_, body.size(), 4);
        out_.insert(out_.end(), body.begin(), body.end());
    }

    uint32_t ids_;
    std::vector<uint8_t> out_, sub_;
};

// java/lang/Object (class 100), Item (class 101: int value, Item next; static int count = 7)
// with two instances in a chain, an Item[] of both, an int[3], four roots, in two segments.
inline std::vector<uint8_t> tinyDump(uint32_t id_size) {
    Builder b(id_size);
    b.string(1, "java/lang/Object");
    b.string(2, "Item");
    b.string(3, "value");
    b.string(4, "next");
    b.string(5, "count");
    b.loadClass(1, 100, 1);
    b.loadClass(2, 101, 2);
    b.stackTrace(9, 1, {});
    b.cpuSamples();
    b.classDump(100, 0, 0, {}, {}, {});
    b.classDump(101, 100, 4 + id_size, {{5, 10}}, {7}, {{3, 10}, {4, 2}});
    b.sticky(100);
    b.heapDump();
    b.instance(1000, 101, 42, 1001);
    b.instance(1001, 101, 43, 0);
    b.objectArray(1002, 102, {1000, 1001});
    b.intArray(1003, {1, 2, 3});
    b.jniGlobal(1002, 77);
    b.javaFrame(1000, 1, 2);
    b.threadObject(1001, 1, 9);
    b.heapDump();
    b.heapDumpEnd();
    return b.bytes();
}

// A dense little heap with exact answers (8-byte ids, compressed oops):
//   0x1000 Item a (32 B: int value, Item next, long stamp, byte flag) -> b
//   0x1020 Sub b (32 B: Item's fields and byte extra, in Item's hole)
//   0x1040 Item[] {a, b} (24 B)
//   0x1058 int[3] (32 B)
//   0x1078 java.lang.Thread t (24 B: String name, long tid) -> s
//   0x1090 String s (24 B: byte[] value, byte coder, int hash) -> 0x10a8
//   0x10a8 byte[] "main" (24 B)
//   0x10c0 Item c (32 B) -> 0x10e0, which the dump does not list: a java.lang.Class of 112 B
//   0x1150 Item d (32 B), held by Item's static INSTANCE
// Mirrors 256 bytes apart from 0x10000 (no gap evidence: their size is the model's).
inline constexpr uint64_t kObject = 0x10000, kClass = 0x10100, kItem = 0x10200, kSub = 0x10300,
                          kThread = 0x10400, kString = 0x10500, kItemArray = 0x10600;

inline std::vector<uint8_t> itemValues(uint32_t value, uint64_t next, uint64_t stamp, uint8_t flag) {
    std::vector<uint8_t> v;
    Builder::be(v, value, 4), Builder::be(v, next, 8), Builder::be(v, stamp, 8), v.push_back(flag);
    return v;
}

inline std::vector<uint8_t> littleHeap(uint64_t timestamp_ms = 1'700'000'000'000ull) {
    Builder b(8);
    // The header's time.
    for (int i = 0; i < 8; ++i)
        b.bytes()[19 + 4 + static_cast<size_t>(i)] = static_cast<uint8_t>(timestamp_ms >> (8 * (7 - i)));
    const char* names[] = {"",
                           "java/lang/Object",
                           "java/lang/Class",
                           "Item",
                           "Sub",
                           "java/lang/Thread",
                           "java/lang/String",
                           "[LItem;",
                           "value",
                           "next",
                           "stamp",
                           "flag",
                           "extra",
                           "name",
                           "tid",
                           "coder",
                           "hash",
                           "count",
                           "INSTANCE",
                           "run",
                           "()V",
                           "Item.java"};
    for (uint64_t i = 1; i < std::size(names); ++i)
        b.string(i, names[i]);
    const uint64_t classes[] = {kObject, kClass, kItem, kSub, kThread, kString, kItemArray};
    for (uint32_t k = 0; k < std::size(classes); ++k)
        b.loadClass(k + 1, classes[k], k + 1);
    b.stackFrame(0x77, 19, 20, 21, 3, 12);
    b.stackTrace(9, 1, {0x77});
    b.classDump(kObject, 0, 0, {}, {}, {});
    b.classDump(kClass, kObject, 0, {}, {}, {});
    b.classDump(kItem, kObject, 21, {{17, 10}, {18, 2}}, {7, 0x1150}, {{8, 10}, {9, 2}, {10, 11}, {11, 4}});
    b.classDump(kSub, kItem, 1, {}, {}, {{12, 8}});
    b.classDump(kThread, kObject, 16, {}, {}, {{13, 2}, {14, 11}});
    b.classDump(kString, kObject, 13, {}, {}, {{8, 2}, {15, 8}, {16, 10}});
    b.classDump(kItemArray, kObject, 0, {}, {}, {});
    b.heapDump();
    b.instanceValues(0x1000, kItem, itemValues(42, 0x1020, 7, 1));
    std::vector<uint8_t> sub{5};
    for (uint8_t x : itemValues(43, 0, 8, 0))
        sub.push_back(x);
    b.instanceValues(0x1020, kSub, sub);
    b.objectArray(0x1040, kItemArray, {0x1000, 0x1020});
    b.intArray(0x1058, {1, 2, 3});
    std::vector<uint8_t> thread;
    Builder::be(thread, 0x1090, 8), Builder::be(thread, 1, 8);
    b.instanceValues(0x1078, kThread, thread);
    std::vector<uint8_t> string;
    Builder::be(string, 0x10a8, 8), string.push_back(0), Builder::be(string, 0, 4);
    b.instanceValues(0x1090, kString, string);
    b.byteArray(0x10a8, "main");
    b.instanceValues(0x10c0, kItem, itemValues(44, 0x10e0, 9, 0));
    b.instanceValues(0x1150, kItem, itemValues(45, 0, 10, 0));
    b.sticky(kItem);
    b.threadObject(0x1078, 1, 9);
    b.javaFrame(0x1000, 1, 0);
    b.jniGlobal(0x1040, 5);
    b.heapDump();
    b.heapDumpEnd();
    return b.bytes();
}

}  // namespace memcity::hprof::testing
