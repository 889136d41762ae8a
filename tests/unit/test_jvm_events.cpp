// The JVM's own figures in a trace (format 1.1 extension events GC_JVM, GC_CENSUS and GC_LIVE;
// 1.2's GC_COMPLETE, which completes a GC's heap before the next GC starts),
// written with TraceBuilder and read back through HeapHistory: exact round trips, the self-check
// at full GCs (agreement, and jvm-disagrees naming the GC and the types), the last GC's heap
// accounting for deaths that have no event, malformed extensions skipped as integrity errors
// that say where, and extensions of a later format skipped quietly.
#include <gtest/gtest.h>

#include "heap/heap_history.h"
#include "trace/extensions.h"
#include "unit/trace_builder.h"

namespace memcity {
namespace {

using testing::TraceBuilder;

constexpr uint32_t kYoung = 2, kOld = 3, kSerial = 4;  // STRING ids the traces define

void defineNames(TraceBuilder& b) {
    b.writer().defineString(kYoung, "Eden Space");
    b.writer().defineString(kOld, "Tenured Gen");
    b.writer().defineString(kSerial, "Serial full collection pauses");
}

GcJvmEvent fullGc(uint32_t gc, uint64_t old_after) {
    GcJvmEvent e;
    e.gc = gc;
    e.whole_heap = true;
    e.collectors = {{kSerial, 3, 4}};
    e.pools = {{kYoung, 4096, 8192, 0, 8192}, {kOld, 1000, 65536, old_after, 65536}};
    return e;
}

void write(TraceBuilder& b, const GcJvmEvent& e) {
    b.writer().extension(static_cast<uint32_t>(format::ExtensionKind::kGcJvm), encodeGcJvm(e));
}
void write(TraceBuilder& b, const GcCensusEvent& e) {
    b.writer().extension(static_cast<uint32_t>(format::ExtensionKind::kGcCensus), encodeGcCensus(e));
}
void write(TraceBuilder& b, const GcLiveEvent& e) {
    b.writer().extension(static_cast<uint32_t>(format::ExtensionKind::kGcLive), encodeGcLive(e));
}
void write(TraceBuilder& b, const GcCompleteEvent& e) {
    b.writer().extension(static_cast<uint32_t>(format::ExtensionKind::kGcComplete), encodeGcComplete(e));
}

struct Read {
    std::unique_ptr<TraceFile> file;
    std::unique_ptr<HeapHistory> history;
};
std::vector<uint64_t> idsAt(const HeapHistory& h, uint32_t gc) {
    auto state = h.heapAt(gc);
    EXPECT_TRUE(state.ok());
    std::vector<uint64_t> ids;
    if (!state.ok()) return ids;
    for (size_t pos = 0; pos < state->objectCount(); ++pos)
        ids.push_back(state->store().id(pos));
    return ids;
}

Read read(const std::string& path) {
    Read r;
    auto f = TraceFile::open(path);
    EXPECT_TRUE(f.ok()) << (f.ok() ? "" : f.error().message);
    if (!f.ok()) return r;
    r.file = std::make_unique<TraceFile>(std::move(*f));
    auto h = HeapHistory::build(*r.file);
    EXPECT_TRUE(h.ok()) << (h.ok() ? "" : h.error().message);
    if (h.ok()) r.history = std::make_unique<HeapHistory>(std::move(*h));
    return r;
}

// Four A (16 B each) and one int[4] (32 B) alive after GC 1: six A and the array, less the two A
// that died at GC 0.
void liveHeapOf96Bytes(TraceBuilder& b) {
    defineNames(b);
    for (uint64_t id = 0; id < 6; ++id)
        b.alloc(id);
    b.gc(0, 6, {0, 1});
    GcJvmEvent young;
    young.gc = 0;
    young.collectors = {{kSerial, 3, 3}};
    young.pools = {{kYoung, 4096, 8192, 0, 8192}};
    write(b, young);
    b.allocArray(6, 3, 4);
    b.gc(1, 7);
}

TEST(JvmEvents, FiguresAndCensusSurviveTheRoundTrip) {
    TraceBuilder b("jvm-roundtrip");
    liveHeapOf96Bytes(b);
    write(b, fullGc(1, 96 + 24 + 16));  // the live objects, 24 B of dead space, 16 B allocated since
    GcCensusEvent census;
    census.gc = 1;
    census.types = {{1, 4, 64, 0, 0, 2, 48, 0, 0}, {3, 1, 32, 0, 0, 0, 0, 1, 24}};
    census.newer_objects = 1;
    census.newer_bytes = 16;
    write(b, census);
    const Read r = read(b.finish());
    ASSERT_TRUE(r.history);
    const HeapHistory& h = *r.history;
    EXPECT_EQ(h.diagnostics().errorCount(), 0u);
    ASSERT_EQ(h.gcCount(), 2u);

    ASSERT_EQ(h.jvmFacts().size(), 2u);
    ASSERT_EQ(h.gcs()[0].jvm, 0);
    ASSERT_EQ(h.gcs()[1].jvm, 1);
    EXPECT_EQ(h.gcs()[0].census, -1);
    const GcJvmEvent& full = h.jvmFacts()[1];
    EXPECT_EQ(full.gc, 1u);
    EXPECT_TRUE(full.whole_heap);
    EXPECT_FALSE(full.unreported);
    ASSERT_EQ(full.collectors.size(), 1u);
    EXPECT_EQ(r.file->symbols().string(full.collectors[0].name), "Serial full collection pauses");
    EXPECT_EQ(full.collectors[0].before, 3u);
    EXPECT_EQ(full.collectors[0].after, 4u);
    ASSERT_EQ(full.pools.size(), 2u);
    EXPECT_EQ(r.file->symbols().string(full.pools[1].name), "Tenured Gen");
    EXPECT_EQ(full.pools[1].used_before, 1000u);
    EXPECT_EQ(full.pools[1].used_after, 136u);
    EXPECT_EQ(full.pools[1].committed_after, 65536u);
    EXPECT_FALSE(h.jvmFacts()[0].whole_heap);

    ASSERT_EQ(h.gcs()[1].census, 0);
    const GcCensusEvent& c = h.censuses()[0];
    ASSERT_EQ(c.types.size(), 2u);
    EXPECT_EQ(c.types[0].objects, 4u);
    EXPECT_EQ(c.types[0].agent_bytes, 48u);
    EXPECT_EQ(c.types[1].filler_bytes, 24u);
    EXPECT_EQ(c.newer_bytes, 16u);

    // Only the full GC is held against the JVM: 96 B live, and the JVM's count of them 96 B.
    ASSERT_EQ(h.jvmChecks().size(), 1u);
    const JvmCheck& check = h.jvmChecks()[0];
    EXPECT_EQ(check.gc, 1u);
    EXPECT_EQ(check.live_bytes, 96u);
    EXPECT_TRUE(check.has_census);
    EXPECT_EQ(check.jvm_bytes, 96u);
    EXPECT_EQ(check.gap(), 0.0);
    EXPECT_TRUE(check.agrees());
    EXPECT_TRUE(check.biggest.empty());
}

TEST(JvmEvents, AGapOverOnePercentIsAnIntegrityErrorNamingTheTypes) {
    TraceBuilder b("jvm-disagrees");
    liveHeapOf96Bytes(b);
    write(b, fullGc(1, 64));
    GcCensusEvent census;  // the JVM counts two A and the array: memcity has two A too many
    census.gc = 1;
    census.types = {{1, 2, 32, 0, 0, 0, 0, 0, 0}, {3, 1, 32, 0, 0, 0, 0, 0, 0}};
    write(b, census);
    const std::string path = b.finish();
    const Read r = read(path);
    ASSERT_TRUE(r.history);
    const Diagnostics& d = r.history->diagnostics();
    EXPECT_EQ(d.errorCount(), 1u);
    EXPECT_EQ(d[Anomaly::kJvmDisagrees].count, 1u);
    const std::string& said = d[Anomaly::kJvmDisagrees].first;
    EXPECT_NE(said.find("GC 1"), std::string::npos) << said;
    EXPECT_NE(said.find("A +32 B (+2 objects)"), std::string::npos) << said;
    ASSERT_EQ(r.history->jvmChecks().size(), 1u);
    const JvmCheck& check = r.history->jvmChecks()[0];
    EXPECT_EQ(check.live_bytes, 96u);
    EXPECT_EQ(check.jvm_bytes, 64u);
    EXPECT_DOUBLE_EQ(check.gap(), 0.5);
    ASSERT_EQ(check.biggest.size(), 1u);
    EXPECT_EQ(check.biggest[0].type, "A");
    EXPECT_EQ(check.biggest[0].objects, 2);
    EXPECT_EQ(check.biggest[0].bytes, 32);
}

// Objects 0..7 (A, 16 B each); 0 dies at GC 0 and 1 at GC 1 with events. The JVM's heap after
// GC 1 holds 2, 5 and 7: 3, 4 and 6 died in GC 1 too, their events lost (posted after the
// trace was closed). Object 8, born after GC 1, is not the event's to judge.
TEST(JvmEvents, TheLastGcsHeapAccountsForDeathsWithoutEvents) {
    TraceBuilder b("jvm-live");
    for (uint64_t id = 0; id < 6; ++id)
        b.alloc(id);
    b.gc(0, 6, {0});
    b.alloc(6).alloc(7);
    b.gc(1, 8, {1});
    b.alloc(8);
    write(b, GcLiveEvent{1, {2, 5, 7}});
    const Read r = read(b.finish());
    ASSERT_TRUE(r.history);
    const HeapHistory& h = *r.history;
    EXPECT_EQ(h.diagnostics().errorCount(), 0u);
    EXPECT_EQ(h.diagnostics().noteCount(), 0u);
    EXPECT_EQ(h.counts().deaths, 2u);
    EXPECT_EQ(h.counts().deaths_from_heap, 3u);
    ASSERT_EQ(h.gcCount(), 2u);
    EXPECT_EQ(h.gcs()[1].freed_objects, 4u);
    EXPECT_EQ(h.gcs()[1].freed_bytes, 64u);
    EXPECT_EQ(h.gcs()[1].live_objects, 3u);
    EXPECT_EQ(h.gcs()[1].live_bytes, 48u);
    EXPECT_TRUE(h.gcs()[1].jvm_live);
    EXPECT_FALSE(h.gcs()[0].jvm_live);
    // A rebuild from the start (not the build pass) reads it the same way.
    EXPECT_EQ(idsAt(h, 0), (std::vector<uint64_t>{1, 2, 3, 4, 5}));
    EXPECT_EQ(idsAt(h, 1), (std::vector<uint64_t>{2, 5, 7}));
}

TEST(JvmEvents, AGcLiveThatContradictsTheTraceIsAnError) {
    {
        TraceBuilder b("jvm-live-dead");
        for (uint64_t id = 0; id < 4; ++id)
            b.alloc(id);
        b.gc(0, 4, {0});
        write(b, GcLiveEvent{0, {0, 1, 2, 3}});  // object 0 died at GC 0, by its event
        const Read r = read(b.finish());
        ASSERT_TRUE(r.history);
        const Diagnostics& d = r.history->diagnostics();
        EXPECT_EQ(d.errorCount(), 1u);
        ASSERT_EQ(d[Anomaly::kJvmHoldsDead].count, 1u);
        EXPECT_NE(d[Anomaly::kJvmHoldsDead].first.find("holds object 0, which the trace has as dead"),
                  std::string::npos)
            << d[Anomaly::kJvmHoldsDead].first;
        EXPECT_EQ(r.history->gcs()[0].live_objects, 3u);
    }
    {
        TraceBuilder b("jvm-live-old");
        for (uint64_t id = 0; id < 4; ++id)
            b.alloc(id);
        b.gc(0, 4);
        b.gc(1, 4);
        write(b, GcLiveEvent{0, {1}});  // GC 0's heap is no longer the open one: skipped
        std::vector<uint8_t> backwards = encodeGcLive(GcLiveEvent{1, {1, 2}});
        backwards.back() = 0;  // a gap of 0: ids that do not ascend
        b.writer().extension(static_cast<uint32_t>(format::ExtensionKind::kGcLive), backwards);
        const Read r = read(b.finish());
        ASSERT_TRUE(r.history);
        const Diagnostics& d = r.history->diagnostics();
        EXPECT_EQ(d[Anomaly::kBadExtension].count, 2u);
        EXPECT_NE(d[Anomaly::kBadExtension].first.find("GC_LIVE event of GC 0 where GC 1's heap"),
                  std::string::npos)
            << d[Anomaly::kBadExtension].first;
        EXPECT_EQ(r.history->counts().deaths_from_heap, 0u);
        EXPECT_EQ(r.history->gcs()[1].live_objects, 4u);
    }
}

TEST(JvmEvents, MalformedExtensionsAreSkippedWithANote) {
    TraceBuilder b("jvm-bad");
    liveHeapOf96Bytes(b);
    std::vector<uint8_t> cut = encodeGcJvm(fullGc(1, 96));
    cut.resize(cut.size() - 3);
    b.writer().extension(static_cast<uint32_t>(format::ExtensionKind::kGcJvm), cut);
    GcJvmEvent unnamed = fullGc(1, 96);
    unnamed.pools[0].name = 99;  // a STRING the trace never defines
    write(b, unnamed);
    b.writer().extension(77, std::vector<uint8_t>{1, 2, 3});  // a later format's kind: skipped quietly
    const Read r = read(b.finish());
    ASSERT_TRUE(r.history);
    const Diagnostics& d = r.history->diagnostics();
    EXPECT_EQ(d[Anomaly::kBadExtension].count, 2u);
    EXPECT_NE(d[Anomaly::kBadExtension].first.find("GC_JVM event, at byte "), std::string::npos)
        << d[Anomaly::kBadExtension].first;
    EXPECT_EQ(d.errorCount(), 2u) << "a malformed extension of a known kind is an integrity error";
    ASSERT_EQ(r.history->jvmFacts().size(), 1u);  // GC 0's only
    EXPECT_EQ(r.history->gcs()[1].jvm, -1);
    EXPECT_TRUE(r.history->jvmChecks().empty());
}

// A recorder marks a GC's heap complete once it has written all of it: a reader following the
// trace completes that heap there, with no next GC started yet. The build, a rebuild and the
// whole file agree.
TEST(JvmEvents, GcCompleteCompletesTheHeapBeforeTheNextGcStarts) {
    TraceBuilder b("gc-complete");
    for (uint64_t id = 0; id < 4; ++id)
        b.alloc(id);
    b.gc(0, 4, {1});
    write(b, GcCompleteEvent{0});
    b.alloc(4);
    b.flush();
    {
        // The trace so far: its writer still holds it.
        auto f = TraceFile::open(b.path());
        ASSERT_TRUE(f.ok()) << f.error().message;
        std::vector<uint32_t> heaps;
        bool heap_before_more = false;
        HistoryOptions o;
        o.on_heap = [&](const HeapView&, const GcRecord& r) {
            heaps.push_back(r.index);
            return true;
        };
        o.more = [&] {
            heap_before_more = !heaps.empty();
            return false;
        };
        auto h = HeapHistory::build(*f, o);
        ASSERT_TRUE(h.ok()) << h.error().message;
        EXPECT_TRUE(heap_before_more) << "GC 0's heap waited for the end of the stream";
        EXPECT_EQ(heaps, std::vector<uint32_t>{0});
        EXPECT_EQ(h->gcs()[0].live_objects, 3u);
    }
    // A death of GC 0 written after the mark is late; a second mark of GC 0 changes nothing.
    b.deaths(0, {2});
    write(b, GcCompleteEvent{0});
    b.gc(1, 5);
    write(b, GcCompleteEvent{1});
    const Read r = read(b.finish());
    ASSERT_TRUE(r.history);
    const HeapHistory& h = *r.history;
    EXPECT_EQ(h.diagnostics()[Anomaly::kLateDeath].count, 1u);
    EXPECT_NE(
        h.diagnostics()[Anomaly::kLateDeath].first.find("dies at GC 0, written after its heap was complete"),
        std::string::npos)
        << h.diagnostics()[Anomaly::kLateDeath].first;
    EXPECT_EQ(h.diagnostics()[Anomaly::kBadExtension].count, 0u);
    EXPECT_EQ(h.gcs()[0].live_objects, 3u);
    EXPECT_EQ(h.gcs()[1].live_objects, 3u);
    EXPECT_EQ(idsAt(h, 0), (std::vector<uint64_t>{0, 2, 3}));
    EXPECT_EQ(idsAt(h, 1), (std::vector<uint64_t>{0, 3, 4}));
}

// A mark inside a GC, or of a GC that has not ended, is malformed: skipped, as an integrity error.
TEST(JvmEvents, AMisplacedGcCompleteIsSkipped) {
    TraceBuilder b("gc-complete-bad");
    b.alloc(0);
    write(b, GcCompleteEvent{0});  // no GC has ended
    b.gcStart(0);
    write(b, GcCompleteEvent{0});  // inside GC 0
    b.gcEnd(0, 1);
    std::vector<uint8_t> long_event = encodeGcComplete(GcCompleteEvent{0});
    long_event.push_back(0);
    b.writer().extension(static_cast<uint32_t>(format::ExtensionKind::kGcComplete), long_event);
    const Read r = read(b.finish());
    ASSERT_TRUE(r.history);
    const Diagnostics& d = r.history->diagnostics();
    EXPECT_EQ(d[Anomaly::kBadExtension].count, 3u);
    EXPECT_NE(d[Anomaly::kBadExtension].first.find("a GC_COMPLETE event of GC 0 before the end of GC 0"),
              std::string::npos)
        << d[Anomaly::kBadExtension].first;
    EXPECT_EQ(r.history->gcs()[0].live_objects, 1u);
}

}  // namespace
}  // namespace memcity
