// The HPROF reader on hand-made dumps with exact answers (4- and 8-byte identifiers, a dump split
// in segments), cut off at every byte, and corrupted: one line naming the offset, never a crash.
#include "hprof/hprof_reader.h"

#include <gtest/gtest.h>

#include <string>
#include <vector>

#include "unit/hprof_builder.h"

namespace memcity::hprof {
namespace {

using testing::Builder;
using testing::tinyDump;

// Everything the reader handed out, as text lines.
class Recorder final : public Visitor {
public:
    std::vector<std::string> lines;
    uint32_t id_size = 0;

    void header(const Header& h) override {
        id_size = h.id_size;
        lines.push_back(h.version + " ids " + std::to_string(h.id_size) + " at " +
                        std::to_string(h.timestamp_ms));
    }
    void string(uint64_t id, std::string_view s) override { add("string", id, std::string(s)); }
    void loadClass(const LoadClass& l) override {
        add("class", l.serial, std::to_string(l.class_id) + " name " + std::to_string(l.name_id));
    }
    void stackTrace(const StackTrace& t) override {
        std::string frames;
        for (uint64_t f : t.frame_ids)
            frames += " " + std::to_string(f);
        add("trace", t.serial, "thread " + std::to_string(t.thread_serial) + frames);
    }
    void heapDumpBegin(bool segment, uint64_t) override { lines.push_back(segment ? "segment" : "dump"); }
    void heapDumpEnd() override { lines.push_back("end"); }
    void root(const Root& r) override {
        add("root", r.object_id,
            "kind " + std::to_string(static_cast<int>(r.kind)) + " thread " +
                std::to_string(r.thread_serial) + " frame " + std::to_string(r.frame) + " ref " +
                std::to_string(r.jni_ref_id));
    }
    void classDump(const ClassDump& d) override {
        std::string text = "super " + std::to_string(d.super_id) + " size " + std::to_string(d.instance_size);
        for (const StaticField& f : d.statics)
            text += " static " + std::to_string(f.name_id) + ":" + std::string(basicTypeName(f.type)) + "=" +
                    std::to_string(f.value);
        for (const ClassField& f : d.fields)
            text += " field " + std::to_string(f.name_id) + ":" + std::string(basicTypeName(f.type));
        add("classdump", d.class_id, text);
    }
    void instance(const InstanceDump& d) override {
        add("instance", d.id,
            "of " + std::to_string(d.class_id) + " value " + std::to_string(readId(d.values.data(), 4)) +
                " next " + std::to_string(readId(d.values.data() + 4, id_size)));
    }
    void objectArray(const ObjectArrayDump& d) override {
        std::string text = "of " + std::to_string(d.class_id);
        for (uint32_t k = 0; k < d.length; ++k)
            text += " " + std::to_string(readId(d.elements.data() + k * id_size, id_size));
        add("objects", d.id, text);
    }
    void primitiveArray(const PrimitiveArrayDump& d) override {
        add("primitives", d.id, std::string(basicTypeName(d.type)) + "[" + std::to_string(d.length) + "]");
    }

private:
    void add(const char* what, uint64_t id, const std::string& rest) {
        lines.push_back(std::string(what) + " " + std::to_string(id) + " " + rest);
    }
};

const std::vector<std::string> kTinyLines = {
    "JAVA PROFILE 1.0.2 ids {ID} at 1700000000000",
    "string 1 java/lang/Object",
    "string 2 Item",
    "string 3 value",
    "string 4 next",
    "string 5 count",
    "class 1 100 name 1",
    "class 2 101 name 2",
    "trace 9 thread 1",
    "segment",
    "classdump 100 super 0 size 0",
    "classdump 101 super 100 size {SIZE} static 5:int=7 field 3:int field 4:java.lang.Object",
    "root 100 kind 5 thread 0 frame 0 ref 0",
    "segment",
    "instance 1000 of 101 value 42 next 1001",
    "instance 1001 of 101 value 43 next 0",
    "objects 1002 of 102 1000 1001",
    "primitives 1003 int[3]",
    "root 1002 kind 1 thread 0 frame 0 ref 77",
    "root 1000 kind 3 thread 1 frame 2 ref 0",
    "root 1001 kind 8 thread 1 frame 9 ref 0",
    "end",
};

std::vector<std::string> expectedLines(uint32_t id_size) {
    std::vector<std::string> out;
    for (std::string line : kTinyLines) {
        if (auto at = line.find("{ID}"); at != std::string::npos)
            line.replace(at, 4, std::to_string(id_size));
        if (auto at = line.find("{SIZE}"); at != std::string::npos)
            line.replace(at, 6, std::to_string(4 + id_size));
        out.push_back(line);
    }
    return out;
}

class HprofIds : public ::testing::TestWithParam<uint32_t> {};

TEST_P(HprofIds, AHandMadeDumpReadsExactly) {
    const std::vector<uint8_t> dump = tinyDump(GetParam());
    Recorder r;
    const Status s = read(dump, r);
    ASSERT_TRUE(s.ok()) << s.error().message;
    EXPECT_EQ(r.lines, expectedLines(GetParam()));
}

// Cut off at every byte: an error naming an offset, the records before it read, no crash.
TEST_P(HprofIds, CutOffAnywhereIsOneErrorWithItsOffset) {
    const std::vector<uint8_t> dump = tinyDump(GetParam());
    const std::vector<std::string> all = expectedLines(GetParam());
    size_t previous = 0;
    for (size_t n = 0; n < dump.size(); ++n) {
        Recorder r;
        const Status s = read(std::span<const uint8_t>(dump.data(), n), r);
        // A cut exactly between two records is a whole (shorter) dump.
        if (s.ok()) {
            EXPECT_GE(r.lines.size(), 1u) << n;
        } else {
            EXPECT_EQ(s.error().message.rfind("offset ", 0), 0u) << n << ": " << s.error().message;
            EXPECT_EQ(s.error().message.find('\n'), std::string::npos) << n;
        }
        // What it handed out is a prefix of the whole dump's, and grows with the cut.
        ASSERT_LE(r.lines.size(), all.size()) << n;
        EXPECT_TRUE(std::equal(r.lines.begin(), r.lines.end(), all.begin())) << n;
        EXPECT_GE(r.lines.size(), previous) << n;
        previous = r.lines.size();
    }
}

INSTANTIATE_TEST_SUITE_P(Hprof, HprofIds, ::testing::Values(4u, 8u),
                         [](const auto& p) { return "Ids" + std::to_string(p.param); });

TEST(Hprof, CorruptDumpsAreOneLineNamingTheOffset) {
    Recorder r;
    const std::string not_hprof = "PK\x03\x04 a zip file";
    Status s = read(std::span(reinterpret_cast<const uint8_t*>(not_hprof.data()), not_hprof.size()), r);
    EXPECT_EQ(s.error().message, "offset 0: not an HPROF heap dump (no \"JAVA PROFILE\" header)");
    const std::string other = std::string("JAVA PROFILE 9.9") + '\0' + "xxxxxxxxxxxx";
    s = read(std::span(reinterpret_cast<const uint8_t*>(other.data()), other.size()), r);
    EXPECT_EQ(s.error().message, "offset 0: not an HPROF heap dump (header 'JAVA PROFILE 9.9')");
    // (found by the fuzzer: the header's own bytes are shown escaped, so the message stays one line)
    const std::string newline = std::string("JAVA\nPROFILE") + '\0' + "xxxxxxxxxxxx";
    s = read(std::span(reinterpret_cast<const uint8_t*>(newline.data()), newline.size()), r);
    EXPECT_EQ(s.error().message, "offset 0: not an HPROF heap dump (header 'JAVA\\nPROFILE')");
    // (found by the fuzzer: an empty dump has no bytes to search for the header in)
    s = read(std::span<const uint8_t>(), r);
    EXPECT_EQ(s.error().message, "offset 0: not an HPROF heap dump (the file is empty)");

    Builder five(4);
    five.bytes()[22] = 5;  // the identifier size's last byte
    s = read(five.bytes(), r);
    EXPECT_EQ(s.error().message, "offset 19: identifier size 5 (HPROF's are 4 or 8)");

    Builder unknown(8);
    unknown.sticky(1);
    unknown.rawSub({0x42, 1, 2, 3});
    unknown.heapDump();
    const size_t sub = 31 + 9 + 9;  // header, record header, the sticky class root
    s = read(unknown.bytes(), r);
    EXPECT_EQ(s.error().message, "offset " + std::to_string(sub) + ": unknown heap dump sub-record 0x42");

    Builder bad_type(4);
    bad_type.rawSub({0x23, 0, 0, 0, 1, 0, 0, 0, 0, 0, 0, 0, 1, 3});  // a primitive array of type 3
    bad_type.heapDump();
    s = read(bad_type.bytes(), r);
    EXPECT_EQ(s.error().message,
              "offset " + std::to_string(31 + 9 + 13) +
                  ": primitive array dump's element has type 0x03, which HPROF does not define");

    Builder long_record(4);
    long_record.string(1, "abc");
    long_record.bytes()[31 + 8] = 200;  // the record's length: 200 bytes, 7 there
    s = read(long_record.bytes(), r);
    EXPECT_EQ(s.error().message, "offset 31: record 0x01 of 200 bytes runs past the end (7 left)");
}

}  // namespace
}  // namespace memcity::hprof
