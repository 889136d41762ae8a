// The one error type: Error's message is the line a person reads, its file and offset say where
// for a program; Status keeps the whole Error; decoders give the offset in the Error.
#include <gtest/gtest.h>

#include "trace/extensions.h"
#include "trace/symbols.h"
#include "trace/trace_format.h"
#include "trace/trace_reader.h"
#include "unit/trace_builder.h"
#include "util/bytes.h"
#include "util/result.h"

namespace memcity {
namespace {

using testing::readFile;
using testing::tempPath;
using testing::TraceBuilder;
using testing::writeFile;

TEST(ErrorApi, AtBuildsTheLineAndKeepsWhere) {
    const Error e = Error::at("app.mct", 4096, "chunk checksum mismatch");
    EXPECT_EQ(e.message, "app.mct: offset 4096: chunk checksum mismatch");
    EXPECT_EQ(e.file, "app.mct");
    EXPECT_EQ(e.offset, 4096u);
    EXPECT_TRUE(e.hasOffset());

    const Error no_offset = Error::at("app.mct", kNoOffset, "cannot open: No such file or directory");
    EXPECT_EQ(no_offset.message, "app.mct: cannot open: No such file or directory");
    EXPECT_EQ(no_offset.file, "app.mct");
    EXPECT_FALSE(no_offset.hasOffset());
}

TEST(ErrorApi, InDataIsTheReasonAloneAtItsOffset) {
    const Error e = Error::inData(7, "impossible GC index");
    EXPECT_EQ(e.message, "impossible GC index");
    EXPECT_TRUE(e.file.empty());
    EXPECT_EQ(e.offset, 7u);
}

TEST(ErrorApi, AMessageAloneSaysNoWhere) {
    const Error e{"memcity gcs: --from is not a number"};
    EXPECT_EQ(e.message, "memcity gcs: --from is not a number");
    EXPECT_TRUE(e.file.empty());
    EXPECT_EQ(e.offset, kNoOffset);
}

TEST(StatusApi, KeepsTheWholeError) {
    const Status fine;
    EXPECT_TRUE(fine.ok());
    const Status s = Error::at("t.mct", 12, "bad flags");
    ASSERT_FALSE(s.ok());
    EXPECT_EQ(s.error().message, "t.mct: offset 12: bad flags");
    EXPECT_EQ(s.error().file, "t.mct");
    EXPECT_EQ(s.error().offset, 12u);
}

TEST(DecodeFailed, TheReadersFailureOrWhatAtTheReadersOffset) {
    const uint8_t cut[] = {0x05, 0x80};  // a varint, then one that runs out
    ByteReader r(cut, sizeof cut);
    EXPECT_EQ(r.varint(), 5u);
    Error e = decodeFailed(r, "not this");
    EXPECT_EQ(e.message, "not this");
    EXPECT_EQ(e.offset, 1u);
    r.varint();
    ASSERT_TRUE(r.failed());
    e = decodeFailed(r, "not this");
    EXPECT_EQ(e.message, "varint runs past the end of data");
    EXPECT_EQ(e.offset, 1u);
    EXPECT_TRUE(e.file.empty());
}

TEST(SymbolDecode, TheErrorOffsetIsTheBadRecordOrTheFailedRead) {
    const auto string_record = static_cast<uint8_t>(format::SymbolRecord::kString);
    {
        // STRING 1 "a", then a record of a kind nobody defined.
        const std::vector<uint8_t> payload = {string_record, 1, 1, 'a', 200};
        SymbolTable t;
        const Status s = t.decode(payload);
        ASSERT_FALSE(s);
        EXPECT_EQ(s.error().message, "unknown symbol record kind 200");
        EXPECT_EQ(s.error().offset, 4u);
    }
    {
        // STRING 1 whose 5 bytes are not there: the read fails where the string starts.
        const std::vector<uint8_t> payload = {string_record, 1, 5, 'a'};
        SymbolTable t;
        const Status s = t.decode(payload);
        ASSERT_FALSE(s);
        EXPECT_EQ(s.error().message, "symbol record: string runs past the end of data");
        EXPECT_EQ(s.error().offset, 2u);
    }
}

TEST(ExtensionDecode, TheErrorOffsetIsInThePayload) {
    GcLiveEvent got;
    std::vector<uint8_t> bytes = encodeGcLive({3, {5, 6}});
    ASSERT_TRUE(decodeGcLive(bytes, &got));
    bytes.push_back(0);
    Status s = decodeGcLive(bytes, &got);
    ASSERT_FALSE(s);
    EXPECT_EQ(s.error().message, "bytes after the last object id");
    EXPECT_EQ(s.error().offset, bytes.size() - 1);

    s = decodeGcLive(encodeGcLive({3, {5, 5}}), &got);  // gc, count, 5, then a gap of 0
    ASSERT_FALSE(s);
    EXPECT_EQ(s.error().message, "object ids are not ascending");
    EXPECT_EQ(s.error().offset, 3u);

    GcCompleteEvent complete;
    s = decodeGcComplete(std::vector<uint8_t>{0x80}, &complete);
    ASSERT_FALSE(s);
    EXPECT_EQ(s.error().message, "varint runs past the end of data");
    EXPECT_EQ(s.error().offset, 0u);
}

std::string smallTrace() {
    WriterOptions o;
    o.compress = false;
    o.chunk_bytes = 48;
    TraceBuilder b("error_api", o);
    uint64_t id = 0;
    for (uint32_t g = 0; g < 2; ++g) {
        for (int i = 0; i < 10; ++i)
            b.alloc(id++);
        b.gc(g, id, {id - 10});
    }
    return b.finish();
}

TEST(TraceFileErrors, CarryTheFileAndTheOffset) {
    const std::string path = smallTrace();
    std::vector<uint8_t> bytes = readFile(path);

    std::vector<uint8_t> magic = bytes;
    magic[0] ^= 1;
    const std::string bad_magic = tempPath("error_magic");
    writeFile(bad_magic, magic);
    auto f = TraceFile::open(bad_magic);
    ASSERT_FALSE(f);
    EXPECT_EQ(f.error().message, bad_magic + ": offset 0: not a memcity trace (bad magic)");
    EXPECT_EQ(f.error().file, bad_magic);
    EXPECT_EQ(f.error().offset, 0u);

    auto missing = TraceFile::open(tempPath("error_none") + ".absent");
    ASSERT_FALSE(missing);
    EXPECT_FALSE(missing.error().file.empty());
    EXPECT_EQ(missing.error().offset, kNoOffset);

    auto good = TraceFile::open(path);
    ASSERT_TRUE(good) << good.error().message;
    const ChunkRef c = good->chunks().back();
    const Error at = good->errorAt(good->chunks().size() - 1, 3, "what");
    EXPECT_EQ(at.message, path + ": offset " + std::to_string(c.payloadOffset() + 3) + ": what");
    EXPECT_EQ(at.file, path);
    EXPECT_EQ(at.offset, c.payloadOffset() + 3);

    std::vector<uint8_t> corrupt = bytes;
    corrupt[c.payloadOffset() + 1] ^= 0x40;
    const std::string bad_crc = tempPath("error_crc");
    writeFile(bad_crc, corrupt);
    auto g = TraceFile::open(bad_crc);
    ASSERT_TRUE(g) << g.error().message;
    std::vector<uint8_t> scratch;
    auto payload = g->payload(g->chunks().size() - 1, scratch);
    ASSERT_FALSE(payload);
    EXPECT_EQ(payload.error().file, bad_crc);
    EXPECT_EQ(payload.error().offset, c.offset);
    EXPECT_NE(payload.error().message.find("chunk checksum mismatch"), std::string::npos);
}

}  // namespace
}  // namespace memcity
