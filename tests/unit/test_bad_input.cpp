// Bad input: every problem is a one-line message naming the file and, where there is one, the
// byte offset; a trace cut off mid-write opens up to its last complete chunk and says so.
#include <gtest/gtest.h>

#include <cstring>

#include "heap/heap_history.h"
#include "trace/trace_reader.h"
#include "unit/trace_builder.h"
#include "util/bytes.h"
#include "util/crc32c.h"

namespace memcity {
namespace {

using testing::readFile;
using testing::tempPath;
using testing::TraceBuilder;
using testing::writeFile;

// A small complete trace: 3 GCs, 30 objects, uncompressed so bytes are easy to find.
std::string smallTrace(bool compress = false) {
    WriterOptions o;
    o.compress = compress;
    o.chunk_bytes = 48;
    TraceBuilder b("small", o);
    uint64_t id = 0;
    for (uint32_t g = 0; g < 3; ++g) {
        for (int i = 0; i < 10; ++i)
            b.alloc(id++);
        b.gc(g, id, {id - 10, id - 9});
    }
    return b.finish();
}

void expectOneLine(const std::string& message) {
    EXPECT_EQ(message.find('\n'), std::string::npos) << message;
    EXPECT_FALSE(message.empty());
}

std::string openError(const std::vector<uint8_t>& bytes) {
    std::string path = tempPath("bad");
    writeFile(path, bytes);
    auto f = TraceFile::open(path);
    EXPECT_FALSE(f.ok());
    if (f.ok()) return {};
    expectOneLine(f.error().message);
    EXPECT_NE(f.error().message.find(path), std::string::npos) << f.error().message;
    return f.error().message;
}

// Builds and returns the full history error (open or rebuild) of a file.
std::string historyError(const std::string& path) {
    auto f = TraceFile::open(path);
    if (!f.ok()) return f.error().message;
    auto h = HeapHistory::build(*f);
    if (!h.ok()) return h.error().message;
    return {};
}

TEST(BadInput, MissingFile) {
    auto f = TraceFile::open("/nonexistent/dir/x.mct");
    ASSERT_FALSE(f.ok());
    EXPECT_EQ(f.error().message, "/nonexistent/dir/x.mct: cannot open: No such file or directory");
}

TEST(BadInput, DirectoryIsNotATrace) {
    auto f = TraceFile::open("/tmp");
    ASSERT_FALSE(f.ok());
    EXPECT_EQ(f.error().message, "/tmp: not a regular file");
}

TEST(BadInput, EmptyAndTinyFiles) {
    EXPECT_NE(openError({}).find("the file has 0 bytes"), std::string::npos);
    EXPECT_NE(openError({0x89, 'M', 'C'}).find("the file has 3 bytes"), std::string::npos);
}

TEST(BadInput, BadMagic) {
    auto bytes = readFile(smallTrace());
    bytes[1] = 'X';
    std::string e = openError(bytes);
    EXPECT_NE(e.find("offset 0: not a memcity trace (bad magic)"), std::string::npos) << e;
}

TEST(BadInput, FutureVersion) {
    auto bytes = readFile(smallTrace());
    storeU16(bytes.data() + 8, 3);
    storeU16(bytes.data() + 10, 0);
    std::string e = openError(bytes);
    EXPECT_NE(
        e.find("offset 8: trace format version 3.0 is not supported (this memcity reads versions 1.x and "
               "2.x)"),
        std::string::npos)
        << e;
}

TEST(BadInput, NewerMinorVersionIsRead) {
    auto bytes = readFile(smallTrace());
    storeU16(bytes.data() + 10, 7);
    std::string path = tempPath("minor");
    writeFile(path, bytes);
    auto f = TraceFile::open(path);
    ASSERT_TRUE(f.ok()) << f.error().message;
    EXPECT_EQ(f->header().version_minor, 7);
}

TEST(BadInput, ChunkLengthPastTheEndOfACompleteFile) {
    std::string path = smallTrace();
    auto bytes = readFile(path);
    auto f = TraceFile::open(path);
    ASSERT_TRUE(f.ok());
    const ChunkRef c = f->chunks()[3];
    storeU32(bytes.data() + c.offset + 8, 1u << 20);  // stored size far past the end
    storeU32(bytes.data() + c.offset + 12, 1u << 20);
    std::string e = openError(bytes);
    EXPECT_NE(
        e.find("offset " + std::to_string(c.offset) + ": the chunk's 1048576-byte payload runs past the end"),
        std::string::npos)
        << e;
}

TEST(BadInput, AbsurdChunkSize) {
    std::string path = smallTrace();
    auto bytes = readFile(path);
    auto f = TraceFile::open(path);
    ASSERT_TRUE(f.ok());
    const ChunkRef c = f->chunks()[2];
    storeU32(bytes.data() + c.offset + 12, 0xfffffff0u);
    std::string e = openError(bytes);
    EXPECT_NE(e.find("chunk size 4294967280 is absurd"), std::string::npos) << e;
}

TEST(BadInput, ChecksumMismatchNamesTheChunk) {
    std::string path = smallTrace();
    auto f = TraceFile::open(path);
    ASSERT_TRUE(f.ok());
    const ChunkRef c = f->chunks().back();
    auto bytes = readFile(path);
    bytes[c.payloadOffset() + 1] ^= 0x40;
    std::string bad = tempPath("crc");
    writeFile(bad, bytes);
    std::string e = historyError(bad);
    EXPECT_EQ(
        e, bad + ": offset " + std::to_string(c.offset) + ": events chunk checksum mismatch (corrupt data)");
}

TEST(BadInput, TruncatedEverywhereOpensUpToLastCompleteChunk) {
    std::string path = smallTrace();
    auto full = readFile(path);
    auto f = TraceFile::open(path);
    ASSERT_TRUE(f.ok());
    const auto chunks = f->chunks();
    // Cut at every byte from the end of the header to the end of the file.
    for (size_t cut = format::kHeaderSize; cut < full.size(); ++cut) {
        std::vector<uint8_t> bytes(full.begin(), full.begin() + static_cast<ptrdiff_t>(cut));
        std::string p = tempPath("cut");
        writeFile(p, bytes);
        auto t = TraceFile::open(p);
        ASSERT_TRUE(t.ok()) << "cut at " << cut << ": " << t.error().message;
        EXPECT_TRUE(t->truncated()) << cut;
        expectOneLine(t->truncationNote());
        size_t complete = 0;
        for (const ChunkRef& c : chunks)
            complete += c.end() <= cut;
        EXPECT_EQ(t->chunks().size(), complete) << "cut at " << cut;
        auto h = HeapHistory::build(*t);
        ASSERT_TRUE(h.ok()) << "cut at " << cut << ": " << h.error().message;
        EXPECT_LE(h->gcCount(), 3u);
        EXPECT_EQ(h->diagnostics().errorCount(), 0u) << "cut at " << cut;
    }
}

TEST(BadInput, TruncatedTraceKeepsEarlierGcsExact) {
    WriterOptions o;
    o.compress = true;
    TraceBuilder b("cutgc", o);
    uint64_t id = 0;
    for (uint32_t g = 0; g < 4; ++g) {
        for (int i = 0; i < 100; ++i)
            b.alloc(id++);
        b.gc(g, id, {id - 100, id - 99, id - 98});
        b.flush();  // one chunk per GC
    }
    std::string path = b.finish();
    auto full = readFile(path);
    auto f = TraceFile::open(path);
    ASSERT_TRUE(f.ok());
    // Cut in the middle of the last events chunk: GCs 0..2 stay.
    const ChunkRef* last_events = nullptr;
    for (const ChunkRef& c : f->chunks())
        if (c.kind == static_cast<uint16_t>(format::ChunkKind::kEvents)) last_events = &c;
    ASSERT_NE(last_events, nullptr);
    size_t cut = last_events->payloadOffset() + last_events->stored_size / 2;
    std::string p = tempPath("cutgc2");
    writeFile(p, std::vector<uint8_t>(full.begin(), full.begin() + static_cast<ptrdiff_t>(cut)));
    auto t = TraceFile::open(p);
    ASSERT_TRUE(t.ok());
    EXPECT_TRUE(t->truncated());
    EXPECT_NE(t->truncationNote().find("offset " + std::to_string(last_events->offset) +
                                       ": the trace is cut off here"),
              std::string::npos)
        << t->truncationNote();
    auto h = HeapHistory::build(*t);
    ASSERT_TRUE(h.ok());
    ASSERT_EQ(h->gcCount(), 3u);
    EXPECT_EQ(h->gcs()[2].live_objects, 300u - 9u);
}

TEST(BadInput, ZeroFilledTailIsATruncation) {
    auto bytes = readFile(smallTrace());
    bytes.resize(bytes.size() - format::kTrailerSize);  // writer died before the footer...
    bytes.insert(bytes.end(), 4096, 0);                 // ...and the file system zero-filled a block
    std::string p = tempPath("zeros");
    writeFile(p, bytes);
    auto t = TraceFile::open(p);
    ASSERT_TRUE(t.ok()) << t.error().message;
    EXPECT_TRUE(t->truncated());
}

TEST(BadInput, GarbageAfterChunksIsAnError) {
    auto bytes = readFile(smallTrace());
    bytes.resize(bytes.size() - format::kTrailerSize);
    for (int i = 0; i < 40; ++i)
        bytes.push_back(static_cast<uint8_t>(0x11 + i));
    std::string e = openError(bytes);
    EXPECT_NE(e.find("no chunk starts here (bad sync marker)"), std::string::npos) << e;
}

TEST(BadInput, UnknownChunkKindsAreSkipped) {
    TraceBuilder b("unknown-chunk");
    b.alloc(0).alloc(1).gc(0, 2, {0});
    const uint8_t payload[] = {1, 2, 3, 4};
    b.writer().writeChunkPayload(42, payload, 7);
    b.alloc(2).gc(1, 3);
    auto f = TraceFile::open(b.finish());
    ASSERT_TRUE(f.ok()) << f.error().message;
    EXPECT_EQ(f->unknownChunkCount(), 1u);
    auto h = HeapHistory::build(*f);
    ASSERT_TRUE(h.ok());
    EXPECT_EQ(h->gcCount(), 2u);
    EXPECT_EQ(h->gcs()[1].live_objects, 2u);
}

// Writes an events chunk from raw bytes (prologue included) and returns the history error.
std::string eventsError(const std::vector<uint8_t>& payload, size_t* payload_offset = nullptr) {
    WriterOptions o;
    o.compress = false;
    TraceBuilder b("raw-events", o);
    b.alloc(0).gc(0, 1);
    b.writer().writeChunkPayload(static_cast<uint16_t>(format::ChunkKind::kEvents), payload, 1);
    std::string path = b.finish();
    if (payload_offset) {
        auto f = TraceFile::open(path);
        *payload_offset = f->chunks().back().payloadOffset();
    }
    return historyError(path);
}

std::vector<uint8_t> prologue() {
    return {0, 0, 0};
}  // time base 0, id base 0, no thread

TEST(BadInput, UnknownEventKind) {
    auto p = prologue();
    p.push_back(0x1c);
    size_t at = 0;
    std::string e = eventsError(p, &at);
    EXPECT_NE(e.find("offset " + std::to_string(at + 3) + ": unknown event kind 0x1c"), std::string::npos)
        << e;
    expectOneLine(e);
}

TEST(BadInput, ExtensionEventsAreSkipped) {
    auto p = prologue();
    p.insert(p.end(), {0x1f, 5, 3, 9, 9, 9});  // extension kind 5, 3 bytes
    p.insert(p.end(), {0x01, 2, 1, 1, 0});     // then an allocation of id 1, type 1, site 1
    EXPECT_EQ(eventsError(p), "");
}

TEST(BadInput, UndefinedTypeId) {
    auto p = prologue();
    p.insert(p.end(), {0x01, 0, 77, 1, 0});  // alloc id 0 of type 77
    size_t at = 0;
    std::string e = eventsError(p, &at);
    EXPECT_NE(e.find("offset " + std::to_string(at + 3) +
                     ": allocation of object 0 names type 77, which is not defined"),
              std::string::npos)
        << e;
}

TEST(BadInput, UndefinedSiteAndThread) {
    auto p = prologue();
    p.insert(p.end(), {0x01, 0, 1, 99, 0});
    EXPECT_NE(eventsError(p).find("names site 99, which is not defined"), std::string::npos);
    auto q = prologue();
    q.insert(q.end(), {0x06, 42});
    EXPECT_NE(eventsError(q).find("thread 42 is not defined"), std::string::npos);
}

TEST(BadInput, ArrayAllocationOfInstanceType) {
    auto p = prologue();
    p.insert(p.end(), {0x02, 0, 1, 1, 5, 0});  // alloc-array of type 1 (an instance type)
    EXPECT_NE(eventsError(p).find("array allocation of object 0 has non-array type A"), std::string::npos);
}

TEST(BadInput, NamesFromTheFileStayOnOneLine) {
    // Found by the fuzzer: a type name with a newline and NULs, echoed into an error.
    WriterOptions o;
    o.compress = false;
    TraceBuilder b("names", o);
    b.writer().defineType(
        6, TypeDef{std::string_view("in\n\0\x1b[31m", 9), format::TypeKind::kInstance, 0, 16, 0, 0, 0});
    const uint8_t payload[] = {0, 0, 0, 0x02, 0, 6, 1, 5, 0};  // alloc-array of the instance type 6
    b.writer().writeChunkPayload(static_cast<uint16_t>(format::ChunkKind::kEvents), payload, 1);
    std::string e = historyError(b.finish());
    EXPECT_NE(e.find("has non-array type in\\n\\x00\\x1b[31m"), std::string::npos) << e;
    expectOneLine(e);
    EXPECT_EQ(printable(std::string(300, 'x')).size(), 203u);
}

// Bytes past ASCII: UTF-8 (a Java name may be any Unicode) stays as it is; a byte that is not
// UTF-8, and the C1 controls in either form (0x9b, like ESC [, starts a terminal's escape
// sequence), are written as \xNN.
TEST(BadInput, PrintableKeepsUtf8AndEscapesWhatATerminalCouldAct) {
    const std::string unicode =
        "Gr\xc3\xb6\xc3\x9f"
        "e \xe2\x82\xac \xf0\x9f\x8c\x86";  // Größe € 🌆
    EXPECT_EQ(printable(unicode), unicode);
    EXPECT_EQ(printable("\x89MCT\x9b"
                        "31m"),
              "\\x89MCT\\x9b31m");
    EXPECT_EQ(printable("a\xc2\x9b"
                        "31m"),
              "a\\xc2\\x9b31m");                                                // U+009B, CSI
    EXPECT_EQ(printable("\xc0\xaf\xed\xa0\x80"), "\\xc0\\xaf\\xed\\xa0\\x80");  // overlong, surrogate
    EXPECT_EQ(printable("cut \xe2\x82"), "cut \\xe2\\x82");                     // a sequence cut short
}

TEST(BadInput, AbsurdDeathCount) {
    auto p = prologue();
    p.insert(p.end(), {0x03, 0, 0xff, 0xff, 0xff, 0xff, 0x0f, 1});  // 4 billion deaths in 1 byte
    std::string e = eventsError(p);
    EXPECT_NE(e.find("death count 4294967295 is absurd (1 bytes left in the chunk)"), std::string::npos) << e;
}

TEST(BadInput, HugeTimeDeltasWrapInsteadOfOverflowing) {
    // Time base near INT64_MAX, then a positive delta: found by the fuzzer (signed overflow).
    ByteWriter w;
    w.svarint(INT64_MAX - 10);
    w.varint(1);
    w.varint(0);
    w.u8(0x07);  // thread start of thread 1...
    w.varint(1);
    w.svarint(1000);  // ...1000 ns later
    EXPECT_EQ(eventsError(w.bytes()), "");
}

TEST(BadInput, TruncatedEventInsideAChunk) {
    auto p = prologue();
    p.insert(p.end(), {0x05, 1, 0x80});  // a GC end cut inside a varint
    std::string e = eventsError(p);
    EXPECT_NE(e.find("gc-end event: varint runs past the end of data"), std::string::npos) << e;
}

TEST(BadInput, SymbolIdOutOfRange) {
    WriterOptions o;
    o.compress = false;
    TraceBuilder b("symbols", o);
    b.writer().defineType(1u << 25, TypeDef{"Huge", format::TypeKind::kInstance, 0, 16, 0, 0, 0});
    std::string path = b.finish();
    std::string e = historyError(path);
    EXPECT_NE(e.find("type id 33554432 is out of range (1..16777215)"), std::string::npos) << e;
    EXPECT_NE(e.find(path + ": offset "), std::string::npos) << e;
}

TEST(BadInput, SymbolIdsMustBeDense) {
    // A single record may not make the (dense) symbol tables huge.
    TraceBuilder b("sparse");
    b.writer().defineMethod(16'000'000, "C", "m", "()V", "C.java");
    std::string e = historyError(b.finish());
    EXPECT_NE(e.find("method id 16000000 is too far beyond the 2 defined so far (ids must be dense)"),
              std::string::npos)
        << e;
}

TEST(BadInput, SymbolDefinedTwice) {
    TraceBuilder b("twice");
    b.writer().defineThread(1, "again");
    EXPECT_NE(historyError(b.finish()).find("thread 1 is defined twice"), std::string::npos);
}

TEST(BadInput, DeathsOfUnknownAndDeadObjectsAreCountedNotFatal) {
    WriterOptions o;
    o.compress = false;
    TraceBuilder b("deaths", o);
    b.alloc(0).alloc(1).alloc(2).gc(0, 3, {1});
    b.gc(1, 3, {1, 7});  // 1 is already dead, 7 never existed
    std::string path = b.finish();
    auto f = TraceFile::open(path);
    ASSERT_TRUE(f.ok());
    auto h = HeapHistory::build(*f);
    ASSERT_TRUE(h.ok()) << h.error().message;
    const Diagnostics& d = h->diagnostics();
    EXPECT_EQ(d[Anomaly::kDoubleDeath].count, 1u);
    EXPECT_EQ(d[Anomaly::kUnknownDeath].count, 1u);
    EXPECT_EQ(d.errorCount(), 2u);
    expectOneLine(d[Anomaly::kUnknownDeath].first);
    EXPECT_NE(d[Anomaly::kUnknownDeath].first.find(path + ": offset "), std::string::npos);
    EXPECT_NE(d[Anomaly::kUnknownDeath].first.find("object 7 dies at GC 1 but was never allocated"),
              std::string::npos)
        << d[Anomaly::kUnknownDeath].first;
    EXPECT_NE(d[Anomaly::kDoubleDeath].first.find("object 1 dies at GC 1 but was already dead"),
              std::string::npos);
    EXPECT_EQ(h->gcs()[1].live_objects, 2u);  // the bad deaths change nothing
}

TEST(BadInput, DoubleDeathAfterCompactionIsStillADoubleDeath) {
    TraceBuilder b("double");
    for (uint64_t id = 0; id < 100; ++id)
        b.alloc(id);
    std::vector<uint64_t> half;
    for (uint64_t id = 0; id < 100; id += 2)
        half.push_back(id);
    b.gc(0, 100, half);
    b.gc(1, 100, {4});  // tombstones were compacted away at GC 1's end
    auto f = TraceFile::open(b.finish());
    auto h = HeapHistory::build(*f);
    ASSERT_TRUE(h.ok());
    EXPECT_EQ(h->diagnostics()[Anomaly::kDoubleDeath].count, 1u);
    EXPECT_EQ(h->diagnostics()[Anomaly::kUnknownDeath].count, 0u);
}

TEST(BadInput, GcEventsOutOfOrderAreCounted) {
    TraceBuilder b("gcorder");
    b.alloc(0).gc(0, 1).gc(5, 1);
    b.gcEnd(9, 1);  // an end without a start
    auto f = TraceFile::open(b.finish());
    auto h = HeapHistory::build(*f);
    ASSERT_TRUE(h.ok());
    EXPECT_EQ(h->diagnostics()[Anomaly::kGcOutOfOrder].count, 3u);
    EXPECT_EQ(h->gcCount(), 3u);
}

TEST(BadInput, FuzzLikeMutationsNeverCrash) {
    // Deterministic single-byte mutations of a compressed and an uncompressed trace: each either
    // opens and rebuilds, or fails with a one-line message.
    for (bool compress : {false, true}) {
        auto base = readFile(smallTrace(compress));
        for (size_t i = 0; i < base.size(); i += 3) {
            auto bytes = base;
            bytes[i] = static_cast<uint8_t>(bytes[i] ^ (0x5a + i));
            auto f = TraceFile::fromMemory(bytes, "mutant");
            if (!f.ok()) {
                expectOneLine(f.error().message);
                continue;
            }
            auto h = HeapHistory::build(*f);
            if (!h.ok()) {
                expectOneLine(h.error().message);
                continue;
            }
            for (uint32_t g = 0; g < h->gcCount(); ++g) {
                auto s = h->heapAt(g);
                if (!s.ok()) expectOneLine(s.error().message);
            }
        }
    }
}

}  // namespace
}  // namespace memcity

namespace memcity {
namespace {

TEST(BadInput, DuplicateIdOfALongArrayStillRebuilds) {
    // Found by the fuzzer (checksums repaired): object 10 is allocated twice as a long array.
    // Both copies share the id-keyed side table of long lengths; compacting away the dropped
    // copy erased the entry the kept copy still pointed at, and rebuilding a heap threw. The
    // kept copy now reads length 0, as ObjectStore::arrayLength does elsewhere.
    auto f = TraceFile::open(std::string(MEMCITY_TEST_DATA) + "/fuzz-lost-long-length.mct");
    ASSERT_TRUE(f.ok()) << f.error().message;
    HistoryOptions o;
    o.checkpoint_events = 64;
    auto h = HeapHistory::build(*f, o);
    ASSERT_TRUE(h.ok()) << h.error().message;
    EXPECT_GT(h->diagnostics()[Anomaly::kDuplicateAlloc].count, 0u);
    for (uint32_t gc = 0; gc < h->gcCount(); ++gc) {
        auto heap = h->heapAt(gc);
        EXPECT_TRUE(heap.ok()) << gc;
    }
}

}  // namespace
}  // namespace memcity
