// Crafted files that declare more than they hold (deep class chains, wide classes, gzip bombs,
// address ranges that wrap, counts in the billions): each is read by the real reader in a
// child process under a 4 GiB address-space limit, and must end in a one-line error or a
// bounded result, not a signal (a stack overflow, an uncaught bad_alloc or length_error).
#include <fcntl.h>
#include <gtest/gtest.h>
#include <pthread.h>
#include <signal.h>
#include <sys/resource.h>
#include <sys/wait.h>
#include <unistd.h>
#include <zlib.h>

#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <functional>
#include <sstream>
#include <string>
#include <vector>

#include "cli/run_memcity.h"
#include "graph/heap_graph.h"
#include "heap/diagnostics.h"
#include "heap/heap_map.h"
#include "hprof/hprof_import.h"
#include "trace/trace_format.h"
#include "unit/child_end.h"
#include "unit/hprof_builder.h"
#include "unit/loaded_heap.h"
#include "unit/sanitizers.h"
#include "unit/trace_builder.h"
#include "util/crc32c.h"

namespace memcity {
namespace {

using testing::kAddressSanitizer;

using testing::ChildEnd;  // (said: the child's error, or "" where it succeeded)

// The stack the readers run on in a child: far less than a main thread's 8 MiB, so a reader
// that recurses once per class, object or chunk of a crafted file overflows it at once.
constexpr size_t kSmallStack = 256 << 10;

// The limits every hostile file is read under: 4 GiB of address space (not under ASan, whose
// shadow needs more), files of at most `file_limit` bytes (a write past it fails, not kills),
// and 60 s (a walk quadratic in a dump's classes is a failure too).
void limitThisProcess(uint64_t file_limit) {
    if (!kAddressSanitizer) {
        const rlimit as{uint64_t{4} << 30, uint64_t{4} << 30};
        ::setrlimit(RLIMIT_AS, &as);
    }
    const rlimit fsize{file_limit, file_limit};
    ::setrlimit(RLIMIT_FSIZE, &fsize);
    ::signal(SIGXFSZ, SIG_IGN);
    ::alarm(60);
}

// Runs fn in a child under limitThisProcess(file_limit), on a thread of kSmallStack bytes of
// stack; fn returns the error it met ("" for none).
ChildEnd inChild(const std::function<std::string()>& fn, uint64_t file_limit = uint64_t{1} << 30) {
    int fds[2];
    EXPECT_EQ(::pipe(fds), 0);
    std::fflush(nullptr);  // (nothing buffered is written twice)
    const pid_t pid = ::fork();
    if (pid == 0) {
        ::close(fds[0]);
        limitThisProcess(file_limit);
        struct Run {
            const std::function<std::string()>& fn;
            std::string said;
        } run{fn, {}};
        pthread_attr_t attr;
        pthread_attr_init(&attr);
        pthread_attr_setstacksize(&attr, kSmallStack);
        pthread_t thread;
        const int started = pthread_create(
            &thread, &attr,
            [](void* p) -> void* {
                auto* r = static_cast<Run*>(p);
                try {
                    r->said = r->fn();
                } catch (...) {
                    std::abort();  // as the CLI would end: no exception may leave a reader
                }
                return nullptr;
            },
            &run);
        if (started != 0) {
            run.said = std::string("cannot start the reading thread: ") + std::strerror(started);
            (void)!::write(fds[1], run.said.data(), run.said.size());
            ::_exit(4);
        }
        pthread_join(thread, nullptr);
        (void)!::write(fds[1], run.said.data(), run.said.size());
        ::_exit(run.said.empty() ? 0 : 3);
    }
    ::close(fds[1]);
    return testing::awaitChild(pid, fds[0]);
}

// The child ended with a one-line error that says `what`.
void expectOneLineError(const ChildEnd& end, const std::string& what) {
    ASSERT_TRUE(end.exited) << "killed by signal " << end.signal << " (" << strsignal(end.signal) << ")";
    EXPECT_EQ(end.code, 3) << end.said;
    EXPECT_EQ(end.said.find('\n'), std::string::npos) << end.said;
    EXPECT_NE(end.said.find(what), std::string::npos) << end.said;
}

// Imports the dump at `path` into a trace: the error met, or "".
std::string importDump(const std::string& path) {
    auto importer = hprof::Importer::create(testing::tempPath("hostile-import") + ".mct", "test");
    if (!importer) return importer.error().message;
    auto stats = (*importer)->add(path);
    if (!stats) return stats.error().message;
    if (Status s = (*importer)->close(); !s) return s.error().message;
    return "";
}

constexpr uint8_t kInt = 10, kObject = 2, kByte = 8;

// ---- The crafted files ----

// 64 spaces as large as the address space, after GC 0: at 64-byte tiles their tile count
// wraps 64 bits.
std::string wrappingSpacesTrace() {
    testing::TraceBuilder b("hostile-spaces");
    TraceWriter& w = b.writer();
    GcSpacesEvent spaces;
    for (uint32_t i = 0; i < 64; ++i) {
        w.defineSpace(i + 1, "Space " + std::to_string(i), 0, UINT64_MAX);
        SpaceState s;
        s.space = i + 1;
        s.bottom = 0;
        s.top = s.end = s.top_before = UINT64_MAX;
        spaces.spaces.push_back(s);
    }
    b.alloc(1);
    b.gc(0, 2);
    w.gcSpaces(spaces);
    return b.finish();
}

// A linear chain of 60,000 classes (a 3 MB dump), the lowest first, and an instance of it.
std::string deepChainDump() {
    hprof::testing::Builder b(4);
    constexpr uint64_t kClasses = 60'000;
    // (Each class before its superclass, in the file and by id: a walk that lays out or defines
    // a class's superclass first goes the whole chain deep at the first class.)
    for (uint64_t k = 1; k <= kClasses; ++k)
        b.classDump(0x1000 + k, k == kClasses ? 0 : 0x1000 + k + 1, 16, {}, {}, {});
    b.instanceValues(0x100000, 0x1001, {});
    b.heapDump();
    b.heapDumpEnd();
    const std::string path = testing::tempPath("hostile-deep") + ".hprof";
    testing::writeFile(path, b.bytes());
    return path;
}

// One class of 65,535 fields, references and ints (a 450 KB declaration).
std::vector<hprof::testing::Builder::Field> widestFields() {
    std::vector<hprof::testing::Builder::Field> fields(65'535);
    for (size_t f = 0; f < fields.size(); ++f)
        fields[f] = {0x10 + f % 7, f % 2 ? kObject : kInt};
    return fields;
}

// The widest class and 10,000 empty subclasses, an instance each (under 2 MB): a copy of the
// fields' layout or slots per subclass would ask for gigabytes.
std::string wideClassDump() {
    hprof::testing::Builder b(4);
    b.classDump(0x1000, 0, 16, {}, {}, widestFields());
    for (uint64_t k = 1; k <= 10'000; ++k) {
        b.classDump(0x1000 + k, 0x1000, 16, {}, {}, {});
        b.instanceValues(0x10000000 + 8 * k, 0x1000 + k, {});
    }
    b.heapDump();
    b.heapDumpEnd();
    const std::string path = testing::tempPath("hostile-wide") + ".hprof";
    testing::writeFile(path, b.bytes());
    return path;
}

// The widest class and an instance of it whose values are 12 bytes, not 196,604.
std::string shortWideInstanceDump() {
    hprof::testing::Builder b(4);
    b.classDump(0x1000, 0, 16, {}, {}, widestFields());
    b.instanceValues(0x10000000, 0x1000, std::vector<uint8_t>(12, 0));
    b.heapDump();
    b.heapDumpEnd();
    const std::string path = testing::tempPath("hostile-short") + ".hprof";
    testing::writeFile(path, b.bytes());
    return path;
}

// A byte[] and an Object[] that say they hold 2^32 - 1 and 2^31 - 1 elements, and hold none.
std::string hugeArrayDump(bool objects) {
    hprof::testing::Builder b(4);
    b.classDump(0x1000, 0, 16, {}, {}, {});
    if (objects)
        b.rawSub({0x22, 0, 0, 0x20, 0, 0, 0, 0, 0, 0x7f, 0xff, 0xff, 0xff, 0, 0, 0x10, 0});
    else
        b.rawSub({0x23, 0, 0, 0x20, 0, 0, 0, 0, 0, 0xff, 0xff, 0xff, 0xff, kByte});
    b.heapDump();
    b.heapDumpEnd();
    const std::string path = testing::tempPath(objects ? "hostile-objarray" : "hostile-bytearray") + ".hprof";
    testing::writeFile(path, b.bytes());
    return path;
}

// A dump of three byte[]s of a GiB each (legitimate: Java arrays hold up to 2^31 - 1 bytes),
// written sparse: 3 GiB that take no disk, whose zeros the reader never touches.
std::string bigSparseDump() {
    const std::string path = testing::tempPath("hostile-big") + ".hprof";
    hprof::testing::Builder b(4);
    std::vector<uint8_t> bytes = b.bytes();
    constexpr uint32_t kArray = (1u << 30) - 64;
    const int fd = ::open(path.c_str(), O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0600);
    EXPECT_GE(fd, 0);
    uint64_t at = 0;
    auto put = [&](const std::vector<uint8_t>& v) {
        EXPECT_EQ(::pwrite(fd, v.data(), v.size(), static_cast<off_t>(at)), static_cast<ssize_t>(v.size()));
        at += v.size();
    };
    put(bytes);
    for (uint32_t k = 0; k < 3; ++k) {
        std::vector<uint8_t> head{0x1c};  // a HEAP DUMP SEGMENT of one byte[] sub-record
        hprof::testing::Builder::be(head, 0, 4);
        hprof::testing::Builder::be(head, 1 + 4 + 4 + 4 + 1 + uint64_t{kArray}, 4);
        head.push_back(0x23);
        hprof::testing::Builder::be(head, 0x100 + k, 4);
        hprof::testing::Builder::be(head, 0, 4);
        hprof::testing::Builder::be(head, kArray, 4);
        head.push_back(kByte);
        put(head);
        at += kArray;  // (a hole)
    }
    put({0x2c, 0, 0, 0, 0, 0, 0, 0, 0});
    ::close(fd);
    return path;
}

// A gzip member of 64 MiB of zeros, 80 times over: 5 MB of file, 5 GiB inflated.
std::string gzipBomb() {
    std::vector<uint8_t> zeros(64u << 20, 0), member(1u << 20);
    z_stream z{};
    EXPECT_EQ(deflateInit2(&z, 9, Z_DEFLATED, 16 + MAX_WBITS, 9, Z_DEFAULT_STRATEGY), Z_OK);
    z.next_in = zeros.data();
    z.avail_in = static_cast<uInt>(zeros.size());
    z.next_out = member.data();
    z.avail_out = static_cast<uInt>(member.size());
    EXPECT_EQ(deflate(&z, Z_FINISH), Z_STREAM_END);
    member.erase(member.end() - static_cast<std::ptrdiff_t>(z.avail_out), member.end());
    deflateEnd(&z);
    std::vector<uint8_t> bomb;
    for (int k = 0; k < 80; ++k)
        bomb.insert(bomb.end(), member.begin(), member.end());
    const std::string path = testing::tempPath("hostile-bomb") + ".hprof.gz";
    testing::writeFile(path, bomb);
    return path;
}

// Rewrites the trace at `path` chunk by chunk, up to its index (the trailer dropped: a reader
// scans the chunks): edit(kind, header, payload) may change a chunk's header (its sizes and
// checksum are set after) and payload; returns how many chunks it changed.
int rewriteChunks(const std::string& path,
                  const std::function<bool(uint16_t, uint8_t*, std::vector<uint8_t>&)>& edit) {
    const std::vector<uint8_t> in = testing::readFile(path);
    auto u32 = [&](size_t at) {
        uint32_t v;
        std::memcpy(&v, in.data() + at, 4);
        return v;
    };
    auto put32 = [](uint8_t* p, uint32_t v) { std::memcpy(p, &v, 4); };
    const size_t header = u32(16);
    std::vector<uint8_t> out(in.begin(), in.begin() + static_cast<ptrdiff_t>(header));
    int changed = 0;
    for (size_t at = header; at + format::kChunkHeaderSize <= in.size();) {
        if (u32(at) != format::kChunkSync) break;
        uint16_t kind;
        std::memcpy(&kind, in.data() + at + 4, 2);
        if (kind == static_cast<uint16_t>(format::ChunkKind::kIndex)) break;
        const uint32_t stored = u32(at + 8);
        std::vector<uint8_t> head(in.begin() + static_cast<ptrdiff_t>(at),
                                  in.begin() + static_cast<ptrdiff_t>(at + format::kChunkHeaderSize));
        std::vector<uint8_t> payload(
            in.begin() + static_cast<ptrdiff_t>(at + format::kChunkHeaderSize),
            in.begin() + static_cast<ptrdiff_t>(at + format::kChunkHeaderSize + stored));
        at += format::kChunkHeaderSize + stored;
        if (edit(kind, head.data(), payload)) {
            EXPECT_EQ(head[6] & 1, 0) << "a compressed chunk cannot be edited";
            put32(head.data() + 8, static_cast<uint32_t>(payload.size()));
            put32(head.data() + 12, static_cast<uint32_t>(payload.size()));
            const uint32_t crc = crc32c(0, head.data(), 20);
            put32(head.data() + 20, crc32c(crc, payload.data(), payload.size()));
            ++changed;
        }
        out.insert(out.end(), head.begin(), head.end());
        out.insert(out.end(), payload.begin(), payload.end());
    }
    testing::writeFile(path, out);
    return changed;
}

// Replaces the varint at position `index` of a payload (0 the first) by `value`.
void replaceVarint(std::vector<uint8_t>& payload, size_t index, uint64_t value) {
    size_t at = 0;
    for (size_t k = 0; k < index; ++k)
        while (payload.at(at++) & 0x80) {
        }
    size_t after = at;
    while (payload.at(after++) & 0x80) {
    }
    std::vector<uint8_t> v;
    for (; value >= 0x80; value >>= 7)
        v.push_back(static_cast<uint8_t>(value | 0x80));
    v.push_back(static_cast<uint8_t>(value));
    payload.erase(payload.begin() + static_cast<ptrdiff_t>(at),
                  payload.begin() + static_cast<ptrdiff_t>(after));
    payload.insert(payload.begin() + static_cast<ptrdiff_t>(at), v.begin(), v.end());
}

// The varint at `index` of every `kind` chunk of the trace at `path` set to `value`.
void declareInChunks(const std::string& path, format::ChunkKind kind, size_t index, uint64_t value) {
    const int changed = rewriteChunks(path, [&](uint16_t k, uint8_t*, std::vector<uint8_t>& payload) {
        if (k != static_cast<uint16_t>(kind)) return false;
        replaceVarint(payload, index, value);
        return true;
    });
    EXPECT_GT(changed, 0);
}

// A snapshot of GC 0 with a sampled object and an unsampled one it reaches, and one more
// unsampled object: its roots chunk's varints are GC, refs chunks, sources, edges, roots, then
// (sampled) objects chunks and unsampled objects.
std::string snapshotTrace(const std::string& stem, bool sampled) {
    WriterOptions o;
    o.sampling_interval = sampled ? 1000 : 0;
    o.compress = false;
    testing::TraceBuilder b(stem, o);
    TraceWriter& w = b.writer();
    b.alloc(1);
    if (!sampled) b.alloc(10).alloc(12);
    b.gc(0, sampled ? 2 : 13);
    w.beginSnapshot(0);
    AllocEvent a;
    a.type = 1;
    if (sampled) {
        a.id = 10;
        w.snapshotUnsampled(a);
        a.id = 12;
        w.snapshotUnsampled(a);
    }
    const Edge from_sample[] = {testing::TraceBuilder::strong(10)};
    w.snapshotObject(1, from_sample);
    w.snapshotRoot(Root::make(static_cast<uint32_t>(format::RootKind::kJniGlobal), 1, {}));
    w.endSnapshot();
    return b.finish();
}

// A sampled snapshot whose roots chunk says it lists five billion unsampled objects (its
// objects chunk holds two).
std::string billionsUnsampledTrace() {
    const std::string path = snapshotTrace("hostile-billions", true);
    declareInChunks(path, format::ChunkKind::kRoots, 6, 5'000'000'000);
    return path;
}

// A full snapshot whose roots chunk says its refs chunks hold five billion references.
std::string billionsEdgesTrace() {
    const std::string path = snapshotTrace("hostile-edges", false);
    declareInChunks(path, format::ChunkKind::kRoots, 3, 5'000'000'000);
    return path;
}

// Addresses after GC 0 whose chunk says it holds five billion objects.
std::string billionsAddressesTrace() {
    WriterOptions o;
    o.compress = false;
    testing::TraceBuilder b("hostile-addrs", o);
    b.alloc(1).alloc(2);
    b.gc(0, 3);
    const ObjectAddress at[] = {{1, 0x1000}, {2, 0x1010}};
    b.writer().addresses(0, at);
    const std::string path = b.finish();
    declareInChunks(path, format::ChunkKind::kAddrs, 2, 5'000'000'000);
    return path;
}

// Events chunks whose headers say they hold 2^32 - 1 events.
std::string billionsEventsTrace() {
    WriterOptions o;
    o.compress = false;
    testing::TraceBuilder b("hostile-events", o);
    b.alloc(1).alloc(2);
    b.gc(0, 3, {2});
    const std::string path = b.finish();
    const int changed = rewriteChunks(path, [](uint16_t kind, uint8_t* head, std::vector<uint8_t>&) {
        if (kind != static_cast<uint16_t>(format::ChunkKind::kEvents)) return false;
        const uint32_t meta = UINT32_MAX;
        std::memcpy(head + 16, &meta, 4);
        return true;
    });
    EXPECT_GT(changed, 0);
    return path;
}

// ---- The readers in a child ----

TEST(HostileFiles, SpacesWhoseTilesWrapGetAClampedMap) {
    const ChildEnd end = inChild([] {
        GcSpacesEvent spaces;
        for (uint32_t i = 0; i < 64; ++i) {
            SpaceState s;
            s.space = i + 1;
            s.bottom = 0;
            s.top = s.end = UINT64_MAX;
            spaces.spaces.push_back(s);
        }
        const SymbolTable symbols;
        const HeapMap map = spacesOnlyMap(0, spaces, symbols, 64);
        uint64_t tiles = 0;
        for (const SpaceMap& s : map.spaces)
            tiles += s.tiles.size();
        return tiles <= (uint64_t{1} << 22) ? std::string() : "too many tiles: " + std::to_string(tiles);
    });
    ASSERT_TRUE(end.exited) << "killed by signal " << end.signal;
    EXPECT_EQ(end.code, 0) << end.said;
}

// On a 256 KiB stack: no recursion per superclass, and no walk of the chain per class (before,
// the walks took minutes).
TEST(HostileFiles, ADeepClassChainImports) {
    const std::string path = deepChainDump();
    const ChildEnd end = inChild([&] { return importDump(path); });
    ASSERT_TRUE(end.exited) << "killed by signal " << end.signal << " (" << strsignal(end.signal) << ")";
    EXPECT_EQ(end.code, 0) << end.said;
}

TEST(HostileFiles, AWideClassWithManySubclassesImports) {
    const std::string path = wideClassDump();
    const ChildEnd end = inChild([&] { return importDump(path); });
    ASSERT_TRUE(end.exited) << "killed by signal " << end.signal << " (" << strsignal(end.signal) << ")";
    EXPECT_EQ(end.code, 0) << end.said;
}

TEST(HostileFiles, AGzipBombEndsAtItsLimit) {
    const std::string path = gzipBomb();
    const ChildEnd end = inChild([&] { return importDump(path); }, uint64_t{256} << 20);
    expectOneLineError(end, path + ": inflates to more than 268435456 bytes");
}

// A dump's objects are reserved for ahead from its size: not so much that a dump mapped in
// 3 GiB of a 4 GiB address space is out of memory before it has read an object.
TEST(HostileFiles, ABigDumpImportsUnderTheLimit) {
    const std::string path = bigSparseDump();
    const ChildEnd end = inChild([&] { return importDump(path); });
    std::remove(path.c_str());
    ASSERT_TRUE(end.exited) << "killed by signal " << end.signal << " (" << strsignal(end.signal) << ")";
    EXPECT_EQ(end.code, 0) << end.said;
}

TEST(HostileFiles, ASnapshotDeclaringBillionsOfObjectsIsAnError) {
    const std::string path = billionsUnsampledTrace();
    const ChildEnd end = inChild([&]() -> std::string {
        auto f = TraceFile::open(path);
        if (!f) return f.error().message;
        auto h = HeapHistory::build(*f, {});
        if (!h) return h.error().message;
        // (A snapshot that cannot be read is a diagnostic of the history's, or the graph's error.)
        if (const std::string said = h->diagnostics()[Anomaly::kIncompleteSnapshot].first; !said.empty())
            return said;
        auto heap = h->heapAt(0);
        if (!heap) return heap.error().message;
        auto graph = loadGraph(*h, *heap);
        if (!graph) return graph.error().message;
        return "";
    });
    expectOneLineError(end, "5000000000 unsampled objects");
}

// ---- The command line on the corpus ----

struct CliEnd {
    bool exited = false;
    int code = 0;
    int signal = 0;
    std::string out, err;
};

// Runs the memcity binary with `args` under limitThisProcess(256 MiB), as a user would.
CliEnd runLimited(const std::vector<std::string>& args) {
    const std::string out = testing::tempPath("hostile-stdout"), err = testing::tempPath("hostile-stderr");
    std::fflush(nullptr);
    const pid_t pid = ::fork();
    if (pid == 0) {
        const int o = ::open(out.c_str(), O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0600);
        const int e = ::open(err.c_str(), O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0600);
        if (o < 0 || e < 0 || ::dup2(o, 1) < 0 || ::dup2(e, 2) < 0) ::_exit(126);
        limitThisProcess(uint64_t{256} << 20);
        std::vector<char*> argv{const_cast<char*>(MEMCITY_BINARY)};
        for (const std::string& a : args)
            argv.push_back(const_cast<char*>(a.c_str()));
        argv.push_back(nullptr);
        ::execv(MEMCITY_BINARY, argv.data());
        ::_exit(127);
    }
    int status = 0;
    ::waitpid(pid, &status, 0);
    CliEnd end;
    end.exited = WIFEXITED(status);
    end.code = end.exited ? WEXITSTATUS(status) : 0;
    end.signal = WIFSIGNALED(status) ? WTERMSIG(status) : 0;
    end.out = testing::slurp(out);
    end.err = testing::slurp(err);
    return end;
}

struct Crafted {
    const char* name;
    std::function<std::string()> make;  // the file's path
    std::vector<std::string> commands;  // "COMMAND OPTIONS..." run as `memcity COMMAND FILE OPTIONS...`
                                        // (import with `-o X` added)
    bool fails;  // an error (exit status 1), or a result (0; a part that cannot be read is a warning)
};

// Every crafted file, every command that reads it: an exit, never a signal; every line on stderr
// (warnings, then an error, one a line) names the file; a failure ends in its error.
TEST(HostileFiles, TheCommandLineEndsInAResultOrAOneLineError) {
    const std::vector<Crafted> corpus = {
        {"wrapping spaces", wrappingSpacesTrace, {"spaces --tile 64", "report", "gcs"}, false},
        {"billions of unsampled objects", billionsUnsampledTrace, {"report", "gcs", "spaces"}, false},
        {"billions of edges", billionsEdgesTrace, {"report", "gcs"}, false},
        {"billions of addresses", billionsAddressesTrace, {"spaces --gc 0"}, true},
        {"billions of events", billionsEventsTrace, {"report", "gcs"}, false},
        {"a deep class chain", deepChainDump, {"import"}, false},
        {"a wide class, many subclasses", wideClassDump, {"import"}, false},
        {"a short wide instance", shortWideInstanceDump, {"import"}, false},
        {"a huge byte[]", [] { return hugeArrayDump(false); }, {"import"}, true},
        {"a huge Object[]", [] { return hugeArrayDump(true); }, {"import"}, true},
        {"a gzip bomb", gzipBomb, {"import"}, true},
        {"a big dump", bigSparseDump, {"import"}, false},
    };
    for (const Crafted& c : corpus) {
        const std::string path = c.make();
        for (const std::string& command : c.commands) {
            std::vector<std::string> args;
            std::istringstream words(command);
            for (std::string w; words >> w;)
                args.push_back(w);
            args.insert(args.begin() + 1, path);
            if (command == "import") {
                args.push_back("-o");
                args.push_back(testing::tempPath("hostile-imported"));
            }
            SCOPED_TRACE(std::string(c.name) + ": memcity " + command);
            const CliEnd end = runLimited(args);
            ASSERT_TRUE(end.exited) << "killed by signal " << end.signal << " (" << strsignal(end.signal)
                                    << ")\n"
                                    << end.err;
            // (Warnings, one a line, may come first: a crafted trace has no footer.)
            std::istringstream lines(end.err);
            std::string line, last;
            for (; std::getline(lines, line); last = line)
                EXPECT_NE(line.find(path), std::string::npos) << line;
            if (!c.fails) {
                EXPECT_EQ(end.code, 0) << end.err;
                continue;
            }
            EXPECT_NE(end.code, 0) << end.out;
            EXPECT_EQ(last.rfind("warning: ", 0), std::string::npos) << "no error, only warnings:\n"
                                                                     << end.err;
        }
        std::remove(path.c_str());
    }
}

}  // namespace
}  // namespace memcity
