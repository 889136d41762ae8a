// Heap reconstruction on tiny hand-made traces with exact expected answers.
#include <gtest/gtest.h>

#include <map>
#include <random>
#include <set>

#include "heap/heap_history.h"
#include "unit/trace_builder.h"

namespace memcity {
namespace {

using testing::TraceBuilder;

struct Built {
    std::unique_ptr<TraceFile> file;
    std::unique_ptr<HeapHistory> history;
};

Built build(const std::string& path, HistoryOptions options = {}) {
    Built b;
    auto f = TraceFile::open(path);
    EXPECT_TRUE(f.ok()) << (f.ok() ? "" : f.error().message);
    b.file = std::make_unique<TraceFile>(std::move(*f));
    auto h = HeapHistory::build(*b.file, options);
    EXPECT_TRUE(h.ok()) << (h.ok() ? "" : h.error().message);
    b.history = std::make_unique<HeapHistory>(std::move(*h));
    return b;
}

std::vector<uint64_t> idsOf(const HeapView& v) {
    std::vector<uint64_t> ids;
    v.forEachLive([&](size_t pos) { ids.push_back(v.id(pos)); });
    return ids;
}

std::vector<uint64_t> range(uint64_t a, uint64_t b) {
    std::vector<uint64_t> r;
    for (uint64_t i = a; i < b; ++i)
        r.push_back(i);
    return r;
}

TEST(Reconstruction, SeriesAndHeapsOfASmallProgram) {
    TraceBuilder t("series");
    for (uint64_t id = 0; id < 10; ++id)
        t.alloc(id);  // 10 x A (16 B)
    t.gc(0, 10, {0, 1, 2});
    for (uint64_t id = 10; id < 15; ++id)
        t.alloc(id, 2, 2, 2);  // 5 x B (24 B), site 2, worker
    t.allocArray(15, 3, 10);   // int[10]: 56 B
    t.gc(1, 16, {3, 10, 15});
    Built b = build(t.finish());
    const HeapHistory& h = *b.history;
    ASSERT_EQ(h.gcCount(), 2u);
    const GcRecord& g0 = h.gcs()[0];
    EXPECT_EQ(g0.live_objects, 7u);
    EXPECT_EQ(g0.live_bytes, 112u);
    EXPECT_EQ(g0.allocated_objects, 10u);
    EXPECT_EQ(g0.allocated_bytes, 160u);
    EXPECT_EQ(g0.freed_objects, 3u);
    EXPECT_EQ(g0.freed_bytes, 48u);
    EXPECT_EQ(g0.next_object_id, 10u);
    EXPECT_EQ(g0.pause_ns, 1000u);
    const GcRecord& g1 = h.gcs()[1];
    EXPECT_EQ(g1.live_objects, 10u);
    EXPECT_EQ(g1.live_bytes, 192u);
    EXPECT_EQ(g1.allocated_objects, 6u);
    EXPECT_EQ(g1.allocated_bytes, 176u);
    EXPECT_EQ(g1.freed_objects, 3u);
    EXPECT_EQ(g1.freed_bytes, 96u);
    EXPECT_EQ(h.counts().objects_allocated, 16u);
    EXPECT_EQ(h.counts().peak_live_objects, 10u);
    EXPECT_EQ(h.counts().peak_objects_gc, 1u);
    EXPECT_EQ(h.counts().by_kind[static_cast<size_t>(format::EventKind::kDeaths)], 6u);
    EXPECT_EQ(h.diagnostics().errorCount(), 0u);

    auto s0 = h.heapAt(0);
    ASSERT_TRUE(s0.ok());
    EXPECT_EQ(idsOf(s0->view()), range(3, 10));
    auto s1 = h.heapAt(1);
    ASSERT_TRUE(s1.ok());
    HeapView v = s1->view();
    EXPECT_EQ(idsOf(v), (std::vector<uint64_t>{4, 5, 6, 7, 8, 9, 11, 12, 13, 14}));
    EXPECT_EQ(v.liveObjects(), 10u);
    EXPECT_EQ(v.liveBytes(), 192u);
    size_t p4 = v.find(4), p11 = v.find(11);
    ASSERT_LT(p4, v.positions());
    EXPECT_EQ(v.type(p4), 1u);
    EXPECT_EQ(v.size(p4), 16u);
    EXPECT_EQ(v.site(p4), 1u);
    EXPECT_EQ(v.thread(p4), 1u);
    EXPECT_EQ(v.birthGc(p4), 0u);
    EXPECT_EQ(v.age(p4), 2u);
    EXPECT_EQ(v.type(p11), 2u);
    EXPECT_EQ(v.site(p11), 2u);
    EXPECT_EQ(v.thread(p11), 2u);
    EXPECT_EQ(v.birthGc(p11), 1u);
    EXPECT_EQ(v.age(p11), 1u);
    EXPECT_EQ(v.arrayLength(p11), kNoLength);
    EXPECT_EQ(v.find(10), v.positions());  // dead
    EXPECT_EQ(v.find(99), v.positions());  // never existed
}

TEST(Reconstruction, ObjectsBornAfterAGcAreNotInItsHeap) {
    TraceBuilder t("tail");
    for (uint64_t id = 0; id < 5; ++id)
        t.alloc(id);
    t.gcStart(0).gcEnd(0, 5);
    t.alloc(5).alloc(6);  // epoch 1, written before GC 0's deaths
    t.deaths(0, {1});
    t.gc(1, 7, {5});
    Built b = build(t.finish());
    const HeapHistory& h = *b.history;
    EXPECT_EQ(h.gcs()[0].live_objects, 4u);
    EXPECT_EQ(h.gcs()[0].allocated_objects, 5u);
    EXPECT_EQ(h.gcs()[1].allocated_objects, 2u);
    EXPECT_EQ(idsOf(h.heapAt(0)->view()), (std::vector<uint64_t>{0, 2, 3, 4}));
    EXPECT_EQ(idsOf(h.heapAt(1)->view()), (std::vector<uint64_t>{0, 2, 3, 4, 6}));
    EXPECT_EQ(h.diagnostics().errorCount() + h.diagnostics().noteCount(), 0u);
}

TEST(Reconstruction, BuffersFlushedAfterTheGcEndBelongToIt) {
    // Threads' buffers arrive out of order, some only after the GC end event.
    TraceBuilder t("flush");
    t.alloc(5).alloc(6).alloc(7);
    t.alloc(0, 1, 1, 2).alloc(1, 1, 1, 2);
    t.gcStart(0).gcEnd(0, 10);
    t.alloc(2).alloc(3).alloc(4).alloc(8).alloc(9);  // born before the GC ended, written after
    t.deaths(0, {0, 7});
    t.alloc(10);
    t.gc(1, 11);
    Built b = build(t.finish());
    const HeapHistory& h = *b.history;
    EXPECT_EQ(idsOf(h.heapAt(0)->view()), (std::vector<uint64_t>{1, 2, 3, 4, 5, 6, 8, 9}));
    EXPECT_EQ(h.gcs()[0].allocated_objects, 10u);
    EXPECT_EQ(h.gcs()[0].live_objects, 8u);
    EXPECT_EQ(h.gcs()[1].live_objects, 9u);
    EXPECT_EQ(h.diagnostics().errorCount() + h.diagnostics().noteCount(), 0u);
}

TEST(Reconstruction, LateAllocationsAndDeathsFollowThePolicy) {
    TraceBuilder t("late");
    t.alloc(0).alloc(1).alloc(2);
    t.gc(0, 4);  // id 3 was allocated before GC 0 ended...
    t.gcStart(1);
    t.alloc(3);        // ...but written after GC 0's heap was complete: late
    t.deaths(0, {1});  // a death of GC 0 written after GC 1 started: late
    t.gcEnd(1, 4);
    t.gc(2, 4);
    Built b = build(t.finish());
    const HeapHistory& h = *b.history;
    const Diagnostics& d = h.diagnostics();
    EXPECT_EQ(d[Anomaly::kLateAlloc].count, 1u);
    EXPECT_EQ(d[Anomaly::kLateDeath].count, 1u);
    EXPECT_EQ(d.errorCount(), 0u);  // notes, not errors
    EXPECT_EQ(idsOf(h.heapAt(0)->view()), (std::vector<uint64_t>{0, 1, 2}));
    EXPECT_EQ(idsOf(h.heapAt(1)->view()), (std::vector<uint64_t>{0, 2, 3}));
    EXPECT_EQ(idsOf(h.heapAt(2)->view()), (std::vector<uint64_t>{0, 2, 3}));
    EXPECT_EQ(h.heapAt(2)->view().birthGc(h.heapAt(2)->view().find(3)), 0u);  // by its id
}

TEST(Reconstruction, DuplicateAllocationIsDroppedAndCounted) {
    TraceBuilder t("dup");
    t.alloc(0).alloc(1).alloc(1, 2).alloc(2);
    t.gc(0, 3);
    Built b = build(t.finish());
    const HeapHistory& h = *b.history;
    EXPECT_EQ(h.diagnostics()[Anomaly::kDuplicateAlloc].count, 1u);
    EXPECT_EQ(h.gcs()[0].live_objects, 3u);
    EXPECT_EQ(h.gcs()[0].live_bytes, 48u);
    auto state = h.heapAt(0);
    ASSERT_TRUE(state.ok());
    HeapView v = state->view();
    EXPECT_EQ(v.type(v.find(1)), 1u);  // the first copy stays
}

TEST(Reconstruction, SizesOfArraysVariableInstancesAndLongArrays) {
    TraceBuilder t("sizes");
    t.allocArray(0, 3, 0);       // int[0]: 16 B
    t.allocArray(1, 3, 1);       // int[1]: 20 -> 24 B
    t.allocArray(2, 4, 100000);  // Object[100000]: 400016 B (length past 16 bits)
    t.allocSized(3, 5, 536);     // Class of 536 B
    t.allocSized(4, 5, 1040);    // another of 1040 B
    AllocEvent odd;
    odd.id = 5;
    odd.type = 3;
    odd.site = 1;
    odd.thread = 1;
    odd.length = 4;
    odd.size = 40;  // not what the layout says (32): kept as given
    t.writer().alloc(odd);
    t.gc(0, 6);
    Built b = build(t.finish());
    auto state = b.history->heapAt(0);
    ASSERT_TRUE(state.ok());
    HeapView v = state->view();
    EXPECT_EQ(v.size(v.find(0)), 16u);
    EXPECT_EQ(v.size(v.find(1)), 24u);
    EXPECT_EQ(v.arrayLength(v.find(2)), 100000u);
    EXPECT_EQ(v.size(v.find(2)), 400016u);
    EXPECT_EQ(v.size(v.find(3)), 536u);
    EXPECT_EQ(v.size(v.find(4)), 1040u);
    EXPECT_EQ(v.size(v.find(5)), 40u);
    EXPECT_EQ(v.arrayLength(v.find(5)), 4u);
    EXPECT_EQ(v.liveBytes(), 16u + 24 + 400016 + 536 + 1040 + 40);
    EXPECT_EQ(b.history->gcs()[0].live_bytes, v.liveBytes());
}

TEST(Reconstruction, IdsBeyond32Bits) {
    TraceBuilder t("bigids");
    const uint64_t base = (uint64_t{1} << 32) - 3;
    for (uint64_t i = 0; i < 6; ++i)
        t.alloc(base + i);
    t.gc(0, base + 6, {base + 1, base + 4});
    Built b = build(t.finish());
    auto state = b.history->heapAt(0);
    ASSERT_TRUE(state.ok());
    HeapView v = state->view();
    EXPECT_EQ(idsOf(v), (std::vector<uint64_t>{base, base + 2, base + 3, base + 5}));
    EXPECT_LT(v.find(base + 3), v.positions());
}

TEST(Reconstruction, AGcWithNoAllocationsAndATraceWithNoGcs) {
    TraceBuilder t("empty");
    t.alloc(0);
    Built b = build(t.finish());
    EXPECT_EQ(b.history->gcCount(), 0u);
    EXPECT_FALSE(b.history->heapAt(0).ok());
    EXPECT_EQ(b.history->heapAt(0).error().message,
              b.file->path() + ": GC 0 is out of range: the trace has no GCs");

    TraceBuilder t2("idle");
    t2.gc(0, 0).gc(1, 0);
    Built b2 = build(t2.finish());
    EXPECT_EQ(b2.history->gcCount(), 2u);
    EXPECT_EQ(b2.history->gcs()[1].live_objects, 0u);
    EXPECT_EQ(b2.history->heapAt(1)->view().positions(), 0u);
    auto bad = b2.history->heapAt(7);
    ASSERT_FALSE(bad.ok());
    EXPECT_EQ(bad.error().message, b2.file->path() + ": GC 7 is out of range: the trace has 2 GCs (0..1)");
}

// A random program checked against a plain model, with checkpoints every few chunks.
TEST(Reconstruction, CheckpointsRebuildEveryGcExactly) {
    std::mt19937_64 rng(11);
    WriterOptions o;
    o.chunk_bytes = 256;
    TraceBuilder t("random", o);
    std::set<uint64_t> live;
    std::vector<std::vector<uint64_t>> expected;
    std::vector<uint64_t> expected_bytes;
    std::map<uint64_t, uint64_t> size_of;
    uint64_t id = (uint64_t{1} << 32) - 500;  // cross the 32-bit boundary on the way
    const int gcs = 40;
    for (int g = 0; g < gcs; ++g) {
        int n = 20 + static_cast<int>(rng() % 60);
        std::vector<uint64_t> born;
        for (int i = 0; i < n; ++i) {
            if (rng() % 4 == 0) {
                uint64_t len = rng() % 3 == 0 ? 70000 + rng() % 10 : rng() % 50;
                t.allocArray(id, 3, len, static_cast<uint32_t>(1 + rng() % 2),
                             static_cast<uint32_t>(1 + rng() % 2));
                size_of[id] = (16 + 4 * len + 7) & ~uint64_t{7};
            } else {
                uint32_t type = 1 + static_cast<uint32_t>(rng() % 2);
                t.alloc(id, type, 1, 1);
                size_of[id] = type == 1 ? 16 : 24;
            }
            born.push_back(id++);
        }
        std::vector<uint64_t> dead;
        for (uint64_t x : born)
            live.insert(x);
        for (uint64_t x : live)
            if (rng() % 3 == 0) dead.push_back(x);
        t.gc(static_cast<uint32_t>(g), id, dead);
        for (uint64_t x : dead)
            live.erase(x);
        expected.emplace_back(live.begin(), live.end());
        uint64_t bytes = 0;
        for (uint64_t x : live)
            bytes += size_of[x];
        expected_bytes.push_back(bytes);
    }
    std::string path = t.finish();
    // Read whole, and as a trace followed while it is written (its checkpoints are written once
    // the heap after them is handed over).
    for (const bool followed : {false, true})
        for (uint64_t every : {uint64_t{1'000'000}, uint64_t{40}, uint64_t{1}}) {
            HistoryOptions ho;
            ho.checkpoint_events = every;
            if (followed) ho.more = [] { return false; };
            Built b = build(path, ho);
            const HeapHistory& h = *b.history;
            if (every == 1) {
                EXPECT_GT(h.checkpoints().count(), 20u);
            }
            ASSERT_EQ(h.gcCount(), static_cast<size_t>(gcs));
            for (uint32_t g = 0; g < gcs; ++g) {
                EXPECT_EQ(h.gcs()[g].live_objects, expected[g].size()) << "GC " << g;
                EXPECT_EQ(h.gcs()[g].live_bytes, expected_bytes[g]) << "GC " << g;
                if (g > 0) {
                    EXPECT_EQ(h.gcs()[g].live_bytes, h.gcs()[g - 1].live_bytes + h.gcs()[g].allocated_bytes -
                                                         h.gcs()[g].freed_bytes);
                }
            }
            for (uint32_t g : {0u, 7u, 21u, 39u, 13u, 1u}) {
                auto s = h.heapAt(g);
                ASSERT_TRUE(s.ok()) << s.error().message;
                EXPECT_EQ(idsOf(s->view()), expected[g]) << "GC " << g << ", checkpoints every " << every;
                EXPECT_EQ(s->view().liveBytes(), expected_bytes[g]);
            }
            std::vector<uint32_t> seen;
            Status st = h.forEachHeap(10, 19, [&](const HeapView& v) {
                seen.push_back(v.gc());
                EXPECT_EQ(idsOf(v), expected[v.gc()]);
                uint64_t bytes = 0;
                v.forEachLive([&](size_t p) { bytes += v.size(p); });
                EXPECT_EQ(bytes, expected_bytes[v.gc()]);
                return true;
            });
            ASSERT_TRUE(st.ok());
            EXPECT_EQ(seen, (std::vector<uint32_t>{10, 11, 12, 13, 14, 15, 16, 17, 18, 19}));
            EXPECT_EQ(h.diagnostics().errorCount(), 0u);
        }
}

TEST(Reconstruction, TwoThreadsGiveTheSameHistory) {
    std::mt19937_64 rng(5);
    WriterOptions o;
    o.chunk_bytes = 200;
    TraceBuilder t("threads", o);
    uint64_t id = 0;
    std::vector<uint64_t> live;
    for (uint32_t g = 0; g < 30; ++g) {
        for (int i = 0; i < 50; ++i) {
            if (rng() % 5 == 0)
                t.allocArray(id, 3, rng() % 100, 1, static_cast<uint32_t>(1 + rng() % 2));
            else
                t.alloc(id, static_cast<uint32_t>(1 + rng() % 2), static_cast<uint32_t>(1 + rng() % 2), 1);
            live.push_back(id++);
        }
        std::vector<uint64_t> dead, keep;
        for (uint64_t x : live)
            (rng() % 3 == 0 ? dead : keep).push_back(x);
        live = keep;
        t.gc(g, id, dead);
        if (g % 7 == 3) {
            t.snapshot(g, {{live[0], {TraceBuilder::strong(live[1]), TraceBuilder::strong(live.back())}}},
                       {TraceBuilder::staticRoot(live[0])});
        }
    }
    std::string path = t.finish();
    HistoryOptions one, two;
    one.checkpoint_events = two.checkpoint_events = 64;  // two: the other thread writes them
    two.threads = 2;
    Built a = build(path, one), b = build(path, two);
    ASSERT_EQ(a.history->gcCount(), b.history->gcCount());
    for (size_t g = 0; g < a.history->gcCount(); ++g) {
        const GcRecord& x = a.history->gcs()[g];
        const GcRecord& y = b.history->gcs()[g];
        EXPECT_EQ(x.live_objects, y.live_objects);
        EXPECT_EQ(x.live_bytes, y.live_bytes);
        EXPECT_EQ(x.allocated_bytes, y.allocated_bytes);
        EXPECT_EQ(x.freed_bytes, y.freed_bytes);
        EXPECT_EQ(x.reachable_bytes, y.reachable_bytes);
    }
    EXPECT_EQ(a.history->counts().total(), b.history->counts().total());
    EXPECT_EQ(a.history->checkpoints().count(), b.history->checkpoints().count());
    EXPECT_GT(b.history->checkpoints().count(), 5u);
    for (uint32_t g : {0u, 9u, 17u, 29u}) {
        auto x = a.history->heapAt(g);
        auto y = b.history->heapAt(g);
        ASSERT_TRUE(x.ok() && y.ok());
        EXPECT_EQ(idsOf(x->view()), idsOf(y->view())) << "GC " << g;
    }
}

TEST(Reconstruction, ForEachHeapStopsWhenAsked) {
    TraceBuilder t("stop");
    for (uint32_t g = 0; g < 5; ++g)
        t.alloc(g).gc(g, g + 1);
    Built b = build(t.finish());
    int calls = 0;
    ASSERT_TRUE(b.history->forEachHeap(0, 4, [&](const HeapView&) { return ++calls < 2; }).ok());
    EXPECT_EQ(calls, 2);
    EXPECT_FALSE(b.history->forEachHeap(3, 9, [](const HeapView&) { return true; }).ok());
    EXPECT_FALSE(b.history->forEachHeap(3, 2, [](const HeapView&) { return true; }).ok());
}

TEST(Reconstruction, BuildCanStopEarly) {
    TraceBuilder t("early");
    for (uint32_t g = 0; g < 5; ++g)
        t.alloc(g).gc(g, g + 1);
    std::string path = t.finish();
    HistoryOptions o;
    std::vector<uint32_t> seen;
    std::vector<uint64_t> live;
    o.on_heap = [&](const HeapView& v, const GcRecord& r) {
        seen.push_back(v.gc());
        live.push_back(r.live_objects);
        EXPECT_EQ(r.index, v.gc());
        return v.gc() < 2;
    };
    Built b = build(path, o);
    EXPECT_TRUE(b.history->stoppedEarly());
    EXPECT_EQ(seen, (std::vector<uint32_t>{0, 1, 2}));
    EXPECT_EQ(live, (std::vector<uint64_t>{1, 2, 3}));  // one allocation before each GC
}

}  // namespace
}  // namespace memcity
