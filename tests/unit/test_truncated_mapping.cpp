// A file cut short by someone else while memcity has it mapped: the pages past the cut would
// raise SIGBUS on their next read. Each case runs in a child process (the test binary survives
// either way) and must end in the one-line "truncated while being read" error, not a signal.
#include <fcntl.h>
#include <gtest/gtest.h>
#include <signal.h>
#include <sys/mman.h>
#include <sys/wait.h>
#include <unistd.h>

#include <cstdio>
#include <cstring>
#include <functional>
#include <optional>
#include <string>
#include <vector>

#include "heap/heap_history.h"
#include "hprof/hprof_import.h"
#include "trace/trace_reader.h"
#include "unit/child_end.h"
#include "unit/hprof_builder.h"
#include "unit/sanitizers.h"
#include "unit/trace_builder.h"
#include "util/mapped_guard.h"

namespace memcity {
namespace {

using testing::kAddressSanitizer;

using testing::ChildEnd;

// Runs fn in a child; what it returns comes back through a pipe.
ChildEnd inChild(const std::function<std::string()>& fn) {
    int fds[2];
    EXPECT_EQ(::pipe(fds), 0);
    std::fflush(nullptr);
    const pid_t pid = ::fork();
    if (pid == 0) {
        ::close(fds[0]);
        ::alarm(30);
        const std::string said = fn();
        (void)!::write(fds[1], said.data(), said.size());
        ::_exit(0);
    }
    ::close(fds[1]);
    return testing::awaitChild(pid, fds[0]);
}

void expectTruncatedError(const ChildEnd& end, const std::string& path) {
    ASSERT_EQ(end.signal, 0) << "killed by signal " << end.signal << " (" << strsignal(end.signal) << ")";
    EXPECT_EQ(end.code, 0);
    EXPECT_EQ(end.said.find('\n'), std::string::npos) << end.said;
    EXPECT_EQ(end.said.rfind(path + ": truncated while being read at offset ", 0), 0u) << end.said;
}

// A file of `pages` pages of 0xab, mapped read-only (the mapping is the caller's to unmap).
const uint8_t* mapPages(const std::string& path, size_t pages, size_t page) {
    std::vector<uint8_t> bytes(pages * page, 0xab);
    FILE* f = std::fopen(path.c_str(), "wb");
    if (!f) return nullptr;
    std::fwrite(bytes.data(), 1, bytes.size(), f);
    std::fclose(f);
    const int fd = ::open(path.c_str(), O_RDONLY | O_CLOEXEC);
    void* m = ::mmap(nullptr, bytes.size(), PROT_READ, MAP_SHARED, fd, 0);
    ::close(fd);
    return m == MAP_FAILED ? nullptr : static_cast<const uint8_t*>(m);
}

TEST(MappedGuard, PagesPastACutReadAsZerosAndTheLowestIsRecorded) {
    const ChildEnd end = inChild([] {
        const auto page = static_cast<size_t>(::sysconf(_SC_PAGESIZE));
        const std::string path = testing::tempPath("guarded");
        const uint8_t* m = mapPages(path, 4, page);
        if (!m) return std::string("cannot map");
        MappedGuard guard(m, 4 * page);
        if (!guard.valid() || guard.shrankAt()) return std::string("not guarded, or cut at once");
        if (::truncate(path.c_str(), static_cast<off_t>(page)) != 0) return std::string("cannot truncate");
        const volatile uint8_t* v = m;
        const int before = v[0], past = v[3 * page + 5], first_past = v[2 * page];  // (in this order)
        const std::optional<uint64_t> at = guard.shrankAt();
        if (!at) return std::string("no fault recorded");
        std::string out = std::to_string(before) + " " + std::to_string(past) + " " +
                          std::to_string(first_past) + " at " + std::to_string(*at / page);
        guard.release();
        ::munmap(const_cast<uint8_t*>(m), 4 * page);
        return out;
    });
    ASSERT_EQ(end.signal, 0) << strsignal(end.signal);
    EXPECT_EQ(end.said, "171 0 0 at 2");  // (0xab before the cut; the lowest page faulted: 2)
}

// A SIGBUS outside every guarded mapping still ends the process, as it would without the guard.
TEST(MappedGuard, ACutOutsideAGuardStillEndsTheProcess) {
    const ChildEnd end = inChild([] {
        const auto page = static_cast<size_t>(::sysconf(_SC_PAGESIZE));
        const std::string guarded_path = testing::tempPath("guarded"), plain = testing::tempPath("plain");
        const uint8_t* g = mapPages(guarded_path, 2, page);
        const uint8_t* m = mapPages(plain, 2, page);
        if (!g || !m) return std::string("cannot map");
        MappedGuard guard(g, 2 * page);  // (the handler is installed)
        if (::truncate(plain.c_str(), 0) != 0) return std::string("cannot truncate");
        const volatile uint8_t* v = m;
        return std::to_string(v[page]);
    });
    // (Under ASan its own SIGBUS handler, the one before ours, reports the fault and exits, or
    // aborts with ASAN_OPTIONS=abort_on_error=1, as CI runs it.)
    EXPECT_TRUE(end.signal == SIGBUS || (kAddressSanitizer && (end.code > 0 || end.signal == SIGABRT)))
        << "signal " << end.signal << ", exited " << end.code << " saying " << end.said;
}

// A trace of many small chunks over many pages.
std::string manyPagesTrace(bool compress) {
    WriterOptions o;
    o.compress = compress;
    o.chunk_bytes = 2048;
    testing::TraceBuilder b("cut-under-reader", o);
    uint64_t id = 0;
    for (uint32_t gc = 0; gc < 40; ++gc) {
        std::vector<uint64_t> dead;
        for (int i = 0; i < 800; ++i, ++id) {
            b.alloc(id, 1 + static_cast<uint32_t>(id % 2), 1 + static_cast<uint32_t>(id % 2));
            if (id % 3 == 0) dead.push_back(id);
        }
        b.gc(gc, id, dead);
    }
    return b.finish();
}

// Opens the trace, cuts it to about half (at a page boundary: the next read past it faults; or
// inside a page: that page's end reads as zeros without a fault), then builds its history.
std::string buildAfterCut(const std::string& path, bool at_page) {
    auto trace = TraceFile::open(path);
    if (!trace) return "open: " + trace.error().message;
    const auto page = static_cast<uint64_t>(::sysconf(_SC_PAGESIZE));
    const uint64_t cut =
        at_page ? trace->fileSize() / 2 / page * page : trace->fileSize() / 2 / page * page + 100;
    if (::truncate(path.c_str(), static_cast<off_t>(cut)) != 0) return "cannot truncate";
    auto history = HeapHistory::build(*trace);
    return history ? "built " + std::to_string(history->gcCount()) + " GCs" : history.error().message;
}

TEST(TruncatedWhileRead, ATraceCutInHalfAfterItWasOpenedIsReportedAsCut) {
    for (bool compress : {false, true})
        for (bool at_page : {true, false}) {
            SCOPED_TRACE(std::string(compress ? "compressed" : "uncompressed") +
                         (at_page ? ", cut at a page" : ", cut inside a page"));
            const std::string path = manyPagesTrace(compress);
            expectTruncatedError(inChild([&] { return buildAfterCut(path, at_page); }), path);
        }
}

// Built whole, then cut: a heap rebuilt afterwards reads the pages the build let go of.
TEST(TruncatedWhileRead, AHeapRebuiltAfterTheCutIsReportedAsCut) {
    const std::string path = manyPagesTrace(false);
    expectTruncatedError(inChild([&] {
                             auto trace = TraceFile::open(path);
                             if (!trace) return trace.error().message;
                             auto history = HeapHistory::build(*trace);
                             if (!history) return history.error().message;
                             if (::truncate(path.c_str(), 4096) != 0) return std::string("cannot truncate");
                             auto heap = history->heapAt(static_cast<uint32_t>(history->gcCount() - 1));
                             return heap ? std::string("rebuilt") : heap.error().message;
                         }),
                         path);
}

// A dump cut short while it is imported (at its first progress report, after its header).
TEST(TruncatedWhileRead, ADumpCutWhileItIsImportedIsReportedAsCut) {
    hprof::testing::Builder b(8);
    b.string(1, "java/lang/Object");
    b.loadClass(1, 0x10000, 1);
    b.classDump(0x10000, 0, 0, {}, {}, {});
    b.heapDump();
    for (uint32_t i = 0; i < 20'000; ++i)
        b.intArray(0x100000 + uint64_t{i} * 24, {i});
    b.heapDump();
    b.heapDumpEnd();
    const std::string dump = testing::tempPath("cut-dump") + ".hprof";
    {
        FILE* f = std::fopen(dump.c_str(), "wb");
        ASSERT_NE(f, nullptr);
        std::fwrite(b.bytes().data(), 1, b.bytes().size(), f);
        std::fclose(f);
    }
    ASSERT_GT(b.bytes().size(), 100'000u);
    expectTruncatedError(inChild([&] {
                             auto importer = hprof::Importer::create(testing::tempPath("cut-import"), "test");
                             if (!importer) return importer.error().message;
                             bool cut = false;
                             (*importer)->onProgress(Progress([&](const ProgressReport&) {
                                 if (!cut) cut = ::truncate(dump.c_str(), 4096) == 0;
                                 return true;
                             }));
                             auto stats = (*importer)->add(dump);
                             if (!cut) return std::string("not cut");
                             return stats ? std::string("imported") : stats.error().message;
                         }),
                         dump);
}

}  // namespace
}  // namespace memcity
