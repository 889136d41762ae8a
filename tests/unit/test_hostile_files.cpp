// Crafted files that declare more than they hold (deep class chains, wide classes, gzip bombs,
// address ranges that wrap, counts in the billions): each is read by the real reader in a
// child process under a 4 GiB address-space limit, and must end in a one-line error or a
// bounded result, not a signal (a stack overflow, an uncaught bad_alloc or length_error).
#include <gtest/gtest.h>
#include <signal.h>
#include <sys/resource.h>
#include <sys/wait.h>
#include <unistd.h>
#include <zlib.h>

#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <functional>
#include <string>
#include <vector>

#include "graph/heap_graph.h"
#include "heap/diagnostics.h"
#include "heap/heap_map.h"
#include "hprof/hprof_import.h"
#include "trace/trace_format.h"
#include "unit/hprof_builder.h"
#include "unit/loaded_heap.h"
#include "unit/trace_builder.h"
#include "util/crc32c.h"

namespace memcity {
namespace {

#if defined(__SANITIZE_ADDRESS__)
constexpr bool kAddressSanitizer = true;
#elif defined(__has_feature)
#if __has_feature(address_sanitizer)
constexpr bool kAddressSanitizer = true;
#else
constexpr bool kAddressSanitizer = false;
#endif
#else
constexpr bool kAddressSanitizer = false;
#endif

struct ChildEnd {
    bool exited = false;  // normally, not by a signal
    int code = 0;
    int signal = 0;
    std::string said;  // what the child reported: its error, or "" where it succeeded
};

// Runs fn in a child under a 4 GiB address-space limit (not under ASan, whose shadow needs more)
// and a file-size limit of `file_limit` bytes; fn returns the error it met ("" for none).
ChildEnd inChild(const std::function<std::string()>& fn, uint64_t file_limit = uint64_t{1} << 30) {
    int fds[2];
    EXPECT_EQ(::pipe(fds), 0);
    std::fflush(nullptr);  // (nothing buffered is written twice)
    const pid_t pid = ::fork();
    if (pid == 0) {
        ::close(fds[0]);
        if (!kAddressSanitizer) {
            const rlimit as{uint64_t{4} << 30, uint64_t{4} << 30};
            ::setrlimit(RLIMIT_AS, &as);
        }
        const rlimit fsize{file_limit, file_limit};
        ::setrlimit(RLIMIT_FSIZE, &fsize);
        ::signal(SIGXFSZ, SIG_IGN);
        ::alarm(30);  // (a walk quadratic in a dump's classes is a failure too)
        std::string said;
        try {
            said = fn();
        } catch (...) {
            std::abort();  // as the CLI would end: no exception may leave a reader
        }
        (void)!::write(fds[1], said.data(), said.size());
        ::_exit(said.empty() ? 0 : 3);
    }
    ::close(fds[1]);
    ChildEnd end;
    char buffer[4096];
    for (ssize_t n; (n = ::read(fds[0], buffer, sizeof buffer)) > 0;)
        end.said.append(buffer, static_cast<size_t>(n));
    ::close(fds[0]);
    int status = 0;
    ::waitpid(pid, &status, 0);
    end.exited = WIFEXITED(status);
    end.code = end.exited ? WEXITSTATUS(status) : 0;
    end.signal = WIFSIGNALED(status) ? WTERMSIG(status) : 0;
    return end;
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

constexpr uint8_t kInt = 10, kObject = 2;

// 64 spaces as large as the address space: at 64-byte tiles their tile count wraps 64 bits.
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

// A linear chain of 60,000 classes (a 3 MB dump): no recursion and no walk of the chain per
// class (before, the walks took minutes).
TEST(HostileFiles, ADeepClassChainImports) {
    hprof::testing::Builder b(4);
    constexpr uint64_t kClasses = 60'000;
    for (uint64_t k = 1; k <= kClasses; ++k)
        b.classDump(0x1000 + k, k == 1 ? 0 : 0x1000 + k - 1, 16, {}, {}, {});
    b.instanceValues(0x100000, 0x1000 + kClasses, {});
    b.heapDump();
    b.heapDumpEnd();
    const std::string path = testing::tempPath("hostile-deep") + ".hprof";
    testing::writeFile(path, b.bytes());
    const ChildEnd end = inChild([&] { return importDump(path); });
    ASSERT_TRUE(end.exited) << "killed by signal " << end.signal << " (" << strsignal(end.signal) << ")";
    EXPECT_EQ(end.code, 0) << end.said;
}

// One class of 65,535 reference fields and 10,000 empty subclasses, an instance each (under
// 2 MB): a copy of the fields' layout or slots per subclass would ask for gigabytes.
TEST(HostileFiles, AWideClassWithManySubclassesImports) {
    hprof::testing::Builder b(4);
    std::vector<hprof::testing::Builder::Field> fields(65'535);
    for (size_t f = 0; f < fields.size(); ++f)
        fields[f] = {0x10 + f % 7, f % 2 ? kObject : kInt};
    b.classDump(0x1000, 0, 16, {}, {}, fields);
    for (uint64_t k = 1; k <= 10'000; ++k) {
        b.classDump(0x1000 + k, 0x1000, 16, {}, {}, {});
        b.instanceValues(0x10000000 + 8 * k, 0x1000 + k, {});
    }
    b.heapDump();
    b.heapDumpEnd();
    const std::string path = testing::tempPath("hostile-wide") + ".hprof";
    testing::writeFile(path, b.bytes());
    const ChildEnd end = inChild([&] { return importDump(path); });
    ASSERT_TRUE(end.exited) << "killed by signal " << end.signal << " (" << strsignal(end.signal) << ")";
    EXPECT_EQ(end.code, 0) << end.said;
}

// A gzip member of 64 MiB of zeros, 80 times over: 5 MB of file, 5 GiB inflated.
TEST(HostileFiles, AGzipBombEndsAtItsLimit) {
    std::vector<uint8_t> zeros(64u << 20, 0), member(1u << 20);
    z_stream z{};
    ASSERT_EQ(deflateInit2(&z, 9, Z_DEFLATED, 16 + MAX_WBITS, 9, Z_DEFAULT_STRATEGY), Z_OK);
    z.next_in = zeros.data();
    z.avail_in = static_cast<uInt>(zeros.size());
    z.next_out = member.data();
    z.avail_out = static_cast<uInt>(member.size());
    ASSERT_EQ(deflate(&z, Z_FINISH), Z_STREAM_END);
    member.resize(member.size() - z.avail_out);
    deflateEnd(&z);
    std::vector<uint8_t> bomb;
    for (int k = 0; k < 80; ++k)
        bomb.insert(bomb.end(), member.begin(), member.end());
    const std::string path = testing::tempPath("hostile-bomb") + ".hprof.gz";
    testing::writeFile(path, bomb);
    const ChildEnd end = inChild([&] { return importDump(path); }, uint64_t{256} << 20);
    expectOneLineError(end, path + ": inflates to more than 268435456 bytes");
}

// A sampled trace whose snapshot's roots chunk says it lists five billion unsampled objects
// (its objects chunk holds two): the chunk rewritten, the trailer dropped (the chunks are scanned).
TEST(HostileFiles, ASnapshotDeclaringBillionsOfObjectsIsAnError) {
    WriterOptions o;
    o.sampling_interval = 1000;
    o.compress = false;
    testing::TraceBuilder b("hostile-billions", o);
    TraceWriter& w = b.writer();
    b.alloc(1);
    b.gc(0, 2);
    w.beginSnapshot(0);
    AllocEvent a;
    a.id = 10;
    a.type = 1;
    w.snapshotUnsampled(a);
    a.id = 12;
    w.snapshotUnsampled(a);
    const Edge from_sample[] = {testing::TraceBuilder::strong(10)};
    w.snapshotObject(1, from_sample);
    w.snapshotRoot(Root::make(static_cast<uint32_t>(format::RootKind::kJniGlobal), 1, {}));
    w.endSnapshot();
    const std::string path = b.finish();
    std::vector<uint8_t> in = testing::readFile(path), out;
    auto u32 = [&](size_t at) {
        uint32_t v;
        std::memcpy(&v, in.data() + at, 4);
        return v;
    };
    auto put32 = [](uint8_t* p, uint32_t v) { std::memcpy(p, &v, 4); };
    const size_t header = u32(16);
    out.assign(in.begin(), in.begin() + static_cast<ptrdiff_t>(header));
    bool rewritten = false;
    for (size_t at = header; at + format::kChunkHeaderSize <= in.size();) {
        if (u32(at) != format::kChunkSync) break;
        uint16_t kind;
        std::memcpy(&kind, in.data() + at + 4, 2);
        const uint32_t stored = u32(at + 8);
        std::vector<uint8_t> payload(
            in.begin() + static_cast<ptrdiff_t>(at + format::kChunkHeaderSize),
            in.begin() + static_cast<ptrdiff_t>(at + format::kChunkHeaderSize + stored));
        std::vector<uint8_t> head(in.begin() + static_cast<ptrdiff_t>(at),
                                  in.begin() + static_cast<ptrdiff_t>(at + format::kChunkHeaderSize));
        at += format::kChunkHeaderSize + stored;
        if (kind == static_cast<uint16_t>(format::ChunkKind::kIndex)) break;
        if (kind == static_cast<uint16_t>(format::ChunkKind::kRoots)) {
            // gc, refs chunks, sources, edges, roots, objects chunks: one byte each here; then
            // the unsampled count (2), replaced by five billion.
            ASSERT_EQ(payload[6], 2);
            const uint8_t billions[] = {0x80, 0xe4, 0x97, 0xd0, 0x12};  // 5,000,000,000
            payload.erase(payload.begin() + 6);
            payload.insert(payload.begin() + 6, std::begin(billions), std::end(billions));
            put32(head.data() + 8, static_cast<uint32_t>(payload.size()));
            put32(head.data() + 12, static_cast<uint32_t>(payload.size()));
            uint32_t crc = crc32c(0, head.data(), 20);
            put32(head.data() + 20, crc32c(crc, payload.data(), payload.size()));
            rewritten = true;
        }
        out.insert(out.end(), head.begin(), head.end());
        out.insert(out.end(), payload.begin(), payload.end());
    }
    ASSERT_TRUE(rewritten);
    testing::writeFile(path, out);
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

}  // namespace
}  // namespace memcity
