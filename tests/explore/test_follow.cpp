// Following a trace its recorder is still writing: the reader opens the complete chunks, grows
// as new ones land, and ends as a whole file's load, or as a cut-off one's when the writer goes.

#include <fcntl.h>
#include <sys/file.h>
#include <unistd.h>

#include <gtest/gtest.h>

#include <chrono>
#include <fstream>
#include <sstream>
#include <string>
#include <thread>

#include "classify/classifier.h"
#include "explore/loader.h"
#include "synth/synth.h"
#include "trace/trace_reader.h"
#include "unit/slow_copy.h"
#include "unit/trace_builder.h"

namespace memcity::explore {
namespace {

using namespace std::chrono_literals;

std::string scenario(const std::string& name) {
    const std::string path = testing::tempPath("follow-" + name);
    EXPECT_TRUE(synth::synthesize(name, path, {}).ok());
    return path;
}

TEST(Follow, ATraceStillBeingWrittenOpensWhatIsCompleteAndGrows) {
    testing::TraceBuilder b("follow-grow");
    b.alloc(1).alloc(2, 2).gc(0, 3, {1}).flush();
    auto t = TraceFile::open(b.path());
    ASSERT_TRUE(t.ok()) << t.error().message;
    EXPECT_TRUE(t->beingWritten());
    EXPECT_TRUE(t->truncated());
    EXPECT_NE(t->truncationNote().find("still being written"), std::string::npos) << t->truncationNote();
    const size_t first = t->chunks().size();
    EXPECT_EQ(*t->grow(), 0u);  // nothing new
    b.alloc(3).gc(1, 4, {2}).flush();
    auto grown = t->grow();
    ASSERT_TRUE(grown.ok()) << grown.error().message;
    EXPECT_GT(*grown, 0u);
    EXPECT_EQ(t->chunks().size(), first + *grown);
    EXPECT_TRUE(t->beingWritten());
    b.finish();
    ASSERT_TRUE(t->grow().ok());
    EXPECT_FALSE(t->beingWritten());
    EXPECT_FALSE(t->truncated());
    // What a reader that came after the end sees.
    auto whole = TraceFile::open(b.path());
    ASSERT_TRUE(whole.ok());
    EXPECT_FALSE(whole->beingWritten());
    ASSERT_EQ(t->chunks().size(), whole->chunks().size());
    for (size_t i = 0; i < whole->chunks().size(); ++i)
        EXPECT_EQ(t->chunks()[i].offset, whole->chunks()[i].offset) << i;
    EXPECT_EQ(t->symbols().types().size(), whole->symbols().types().size());
}

// The writer lets go with nothing more written: the trace is cut off, and says so as a reader
// that came after it would be told.
TEST(Follow, AWriterGoneAfterItsLastChunkLeavesTheNoteOfACutOffTrace) {
    testing::TraceBuilder b("follow-whole");
    b.alloc(1).gc(0, 2, {1}).alloc(2).gc(1, 3);
    const std::string whole = b.finish();
    auto source = TraceFile::open(whole);
    ASSERT_TRUE(source.ok());
    const std::string path = testing::tempPath("follow-gone-quiet");
    const int fd = ::open(path.c_str(), O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0644);
    ASSERT_GE(fd, 0);
    ASSERT_EQ(::flock(fd, LOCK_EX | LOCK_NB), 0);
    std::ifstream in(whole, std::ios::binary);
    std::ostringstream read;
    read << in.rdbuf();
    const std::string bytes = read.str();
    const uint64_t end = source->chunks().back().end();  // every chunk, no footer
    ASSERT_EQ(::write(fd, bytes.data(), end), static_cast<ssize_t>(end));
    auto t = TraceFile::open(path);
    ASSERT_TRUE(t.ok()) << t.error().message;
    EXPECT_TRUE(t->beingWritten());
    EXPECT_EQ(*t->grow(), 0u);
    EXPECT_TRUE(t->beingWritten());
    ::close(fd);
    EXPECT_EQ(*t->grow(), 0u);
    EXPECT_FALSE(t->beingWritten());
    EXPECT_TRUE(t->truncated());
    EXPECT_NE(t->truncationNote().find("no footer"), std::string::npos) << t->truncationNote();
    EXPECT_EQ(t->chunks().size(), source->chunks().size());
}

TEST(Follow, ATraceThatShrinksWhileFollowedIsAnError) {
    testing::TraceBuilder b("follow-shrink");
    b.alloc(1).gc(0, 2).flush();
    auto t = TraceFile::open(b.path());
    ASSERT_TRUE(t.ok()) << t.error().message;
    ASSERT_TRUE(t->beingWritten());
    ASSERT_EQ(::truncate(b.path().c_str(), 40), 0);  // another recording took the file over
    auto grown = t->grow();
    ASSERT_FALSE(grown.ok());
    EXPECT_EQ(grown.error().message.rfind(b.path() + ": offset 40: the trace shrank from ", 0), 0u)
        << grown.error().message;
    EXPECT_FALSE(t->beingWritten());
}

// What the writer adds that is no trace (a chunk's header overwritten) is an error; the chunks
// read before it stay as they were, each readable, and the trace is no longer followed.
TEST(Follow, ACorruptChunkAddedWhileFollowedIsAnErrorAndKeepsWhatWasRead) {
    WriterOptions options;
    options.chunk_bytes = 96;
    testing::TraceBuilder b("follow-corrupt", options);
    b.alloc(1).gc(0, 2).flush();
    auto t = TraceFile::open(b.path());
    ASSERT_TRUE(t.ok()) << t.error().message;
    ASSERT_TRUE(t->beingWritten());
    const size_t first = t->chunks().size();
    for (uint64_t id = 2; id < 40; ++id)
        b.alloc(id);
    b.gc(1, 40).flush();
    auto later = TraceFile::open(b.path());
    ASSERT_TRUE(later.ok()) << later.error().message;
    ASSERT_GE(later->chunks().size(), first + 2);
    const uint64_t bad = later->chunks()[first + 1].offset;
    const int fd = ::open(b.path().c_str(), O_WRONLY | O_CLOEXEC);
    ASSERT_GE(fd, 0);
    ASSERT_EQ(::pwrite(fd, "XXXX", 4, static_cast<off_t>(bad)), 4);
    ::close(fd);
    auto grown = t->grow();
    ASSERT_FALSE(grown.ok());
    EXPECT_EQ(grown.error().message.rfind(b.path() + ": offset " + std::to_string(bad) + ": ", 0), 0u)
        << grown.error().message;
    EXPECT_FALSE(t->beingWritten());
    EXPECT_TRUE(t->truncated());
    EXPECT_EQ(t->chunks().size(), first);
    std::vector<uint8_t> scratch;
    for (size_t i = 0; i < t->chunks().size(); ++i)
        EXPECT_TRUE(t->payload(i, scratch).ok()) << i;
    EXPECT_EQ(*t->grow(), 0u);  // not followed any more: nothing is added twice
    EXPECT_EQ(t->chunks().size(), first);
}

// The chunks read before are not read again: one changed in place after it was read is not
// taken for the cut (grow() keeps their checks, and would lose one it had handed out).
TEST(Follow, AChunkChangedAfterItWasReadIsNotDroppedByALaterGrow) {
    testing::TraceBuilder b("follow-changed");
    b.alloc(1).gc(0, 2).flush();
    auto t = TraceFile::open(b.path());
    ASSERT_TRUE(t.ok()) << t.error().message;
    ASSERT_TRUE(t->beingWritten());
    const size_t first = t->chunks().size();
    ASSERT_GT(first, 0u);
    const int fd = ::open(b.path().c_str(), O_WRONLY | O_CLOEXEC);
    ASSERT_GE(fd, 0);
    ASSERT_EQ(::pwrite(fd, "X", 1, static_cast<off_t>(t->chunks().back().payloadOffset())), 1);
    ASSERT_EQ(::pwrite(fd, "MCK1", 4, static_cast<off_t>(t->fileSize())), 4);  // a chunk to come
    ::close(fd);
    auto grown = t->grow();
    ASSERT_TRUE(grown.ok()) << grown.error().message;
    EXPECT_EQ(*grown, 0u);
    EXPECT_EQ(t->chunks().size(), first);
    EXPECT_TRUE(t->beingWritten());
}

TEST(Follow, TheLoaderRebuildsEachGcAsItLandsAndEndsAsAWholeLoad) {
    const std::string source = scenario("multi-cache");
    const std::string path = testing::tempPath("follow-live");
    testing::SlowCopy writer(source, path, 15ms, true);
    auto chain = parseChain("package,type");  // its tree series is streamed as the GCs land
    ASSERT_TRUE(chain.ok());
    LoaderOptions o;
    o.chain = &*chain;
    o.follow_poll_s = 0.005;
    TraceLoader loader(path, o);
    bool live_with_gcs = false;  // a GC was shown while the writer was still writing
    std::vector<GcRecord> records;
    uint64_t revision = 0;
    while (!loader.done()) {
        const LoadProgress p = loader.progress();
        if (p.live && p.gcs > 0 && writer.chunksWritten() < writer.chunks()) live_with_gcs = true;
        loader.syncGcs(&records, &revision);
        for (size_t i = 0; i < records.size(); ++i)
            ASSERT_EQ(records[i].index, i);
        std::this_thread::sleep_for(1ms);
    }
    EXPECT_TRUE(writer.done());
    EXPECT_TRUE(live_with_gcs);
    const LoadProgress p = loader.progress();
    ASSERT_EQ(p.phase, LoadPhase::kReady) << p.error;
    EXPECT_FALSE(p.live);
    EXPECT_TRUE(p.notes.empty()) << p.notes.front();
    EXPECT_TRUE(loader.streamedSeriesFinal());
    std::optional<TreeSeries> series = loader.takeSeries();
    ASSERT_TRUE(series.has_value());

    TraceLoader whole(source, {});
    while (!whole.done())
        std::this_thread::sleep_for(1ms);
    ASSERT_EQ(whole.progress().phase, LoadPhase::kReady);
    const std::vector<GcRecord>& want = whole.history().gcs();
    const std::vector<GcRecord>& got = loader.history().gcs();
    ASSERT_EQ(got.size(), want.size());
    for (size_t i = 0; i < want.size(); ++i) {
        EXPECT_EQ(got[i].live_objects, want[i].live_objects) << i;
        EXPECT_EQ(got[i].live_bytes, want[i].live_bytes) << i;
        EXPECT_EQ(got[i].has_snapshot, want[i].has_snapshot) << i;
        EXPECT_EQ(got[i].reachable_bytes, want[i].reachable_bytes) << i;
    }
    EXPECT_EQ(series->gcCount(), want.size());
}

TEST(Follow, AWriterGoneWithoutItsFooterLeavesACutOffTrace) {
    const std::string source = scenario("growing-map");
    const std::string path = testing::tempPath("follow-gone");
    testing::SlowCopy writer(source, path, 5ms, false);
    LoaderOptions o;
    o.follow_poll_s = 0.005;
    TraceLoader loader(path, o);
    while (!loader.done())
        std::this_thread::sleep_for(1ms);
    const LoadProgress p = loader.progress();
    ASSERT_EQ(p.phase, LoadPhase::kReady) << p.error;
    EXPECT_FALSE(p.live);
    bool cut = false;
    for (const std::string& n : p.notes)
        cut |= n.find("no footer") != std::string::npos && n.find(path) != std::string::npos;
    EXPECT_TRUE(cut) << (p.notes.empty() ? "no notes" : p.notes.front());
    EXPECT_EQ(loader.trace().chunks().size(), writer.chunks());
}

}  // namespace
}  // namespace memcity::explore
