// Writer -> reader: every field of every record survives, with and without compression.
#include <gtest/gtest.h>

#include <vector>

#include "trace/event_decoder.h"
#include "trace/trace_reader.h"
#include "unit/trace_builder.h"

namespace memcity {
namespace {

using testing::TraceBuilder;

struct Recorder : EventVisitorBase {
    std::vector<AllocEvent> allocs;
    std::vector<std::pair<uint32_t, uint64_t>> deaths;
    std::vector<GcStartEvent> starts;
    std::vector<GcEndEvent> ends;
    std::vector<ThreadEvent> thread_starts;
    std::vector<MoveEvent> moves;
    void onAlloc(const AllocEvent& e, size_t) { allocs.push_back(e); }
    void onDeath(uint32_t gc, uint64_t id, size_t) { deaths.emplace_back(gc, id); }
    bool onGcStart(const GcStartEvent& e, size_t) {
        starts.push_back(e);
        return true;
    }
    bool onGcEnd(const GcEndEvent& e, size_t) {
        ends.push_back(e);
        return true;
    }
    void onThreadStart(const ThreadEvent& e, size_t) { thread_starts.push_back(e); }
    void onMove(const MoveEvent& e, size_t) { moves.push_back(e); }
};

Recorder decodeAll(const TraceFile& f) {
    Recorder rec;
    std::vector<uint8_t> scratch;
    for (size_t i = 0; i < f.chunks().size(); ++i) {
        if (f.chunks()[i].kind != static_cast<uint16_t>(format::ChunkKind::kEvents)) continue;
        auto p = f.payload(i, scratch);
        EXPECT_TRUE(p.ok()) << (p.ok() ? "" : p.error().message);
        DecodeStatus s = decodeEvents(*p, f.symbols(), f.header().object_alignment, rec);
        EXPECT_TRUE(s.ok) << s.message;
    }
    return rec;
}

class RoundTrip : public ::testing::TestWithParam<bool> {};

TEST_P(RoundTrip, EventsAndSymbolsSurvive) {
    WriterOptions o;
    o.compress = GetParam();
    o.chunk_bytes = 64;  // many small chunks
    o.start_wall_ns = 1'700'000'000'000'000'000ll;
    TraceBuilder b("roundtrip", o);
    b.writer().meta("producer", "test");
    b.writer().threadStart({2, 50});
    b.alloc(0).alloc(1, 2, 2, 2).allocArray(2, 3, 10).allocArray(3, 4, 70000).allocSized(4, 5, 1234);
    AllocEvent with_address;
    with_address.id = 5;
    with_address.type = 1;
    with_address.site = 0;
    with_address.thread = 1;
    with_address.address = 0x7f00'1234'5678ull;
    with_address.time_ns = 550;
    b.writer().alloc(with_address);
    b.writer().move({5, 0x7f00'0000'0010ull});
    b.gc(0, 6, {1, 3});
    for (uint64_t id = 6; id < 200; ++id)
        b.alloc(id * 3);  // gaps in ids
    b.gc(1, 600, {6 * 3, 7 * 3, 199 * 3});
    std::string path = b.finish();

    auto f = TraceFile::open(path);
    ASSERT_TRUE(f.ok()) << f.error().message;
    EXPECT_TRUE(f->hadFooterIndex());
    EXPECT_FALSE(f->truncated());
    EXPECT_EQ(f->header().version_major, format::kVersionMajor);
    EXPECT_EQ(f->header().start_wall_ns, 1'700'000'000'000'000'000ull);
    EXPECT_EQ(f->header().object_alignment, 8u);
    ASSERT_EQ(f->meta().size(), 1u);
    EXPECT_EQ(f->meta()[0].second, "test");
    EXPECT_GT(f->chunks().size(), 4u);
    ASSERT_EQ(f->indexedGcEnds().size(), 2u);

    const SymbolTable& s = f->symbols();
    EXPECT_EQ(s.type(1).name, "A");
    EXPECT_EQ(s.type(3).element_size, 4u);
    EXPECT_TRUE(s.type(4).isArray());
    ASSERT_EQ(s.type(1).fields.size(), 2u);
    EXPECT_EQ(s.field(s.type(1).fields[0]).name, "next");
    EXPECT_EQ(s.siteLabel(1), "Main.run(Main.java:10)");
    EXPECT_EQ(s.thread(2).name, "worker");
    EXPECT_EQ(s.rootKindName(8), "static field");

    Recorder rec = decodeAll(*f);
    ASSERT_EQ(rec.allocs.size(), 6u + 194u);
    EXPECT_EQ(rec.allocs[0].id, 0u);
    EXPECT_EQ(rec.allocs[0].size, 16u);
    EXPECT_EQ(rec.allocs[1].type, 2u);
    EXPECT_EQ(rec.allocs[1].site, 2u);
    EXPECT_EQ(rec.allocs[1].thread, 2u);
    EXPECT_EQ(rec.allocs[1].size, 24u);
    EXPECT_EQ(rec.allocs[2].length, 10u);
    EXPECT_EQ(rec.allocs[2].size, 56u);  // 16 + 40
    EXPECT_EQ(rec.allocs[3].length, 70000u);
    EXPECT_EQ(rec.allocs[3].size, 280016u);
    EXPECT_EQ(rec.allocs[4].size, 1234u);
    EXPECT_EQ(rec.allocs[5].address, 0x7f00'1234'5678ull);
    EXPECT_EQ(rec.allocs[5].time_ns, 550);
    EXPECT_EQ(rec.allocs.back().id, 199u * 3);
    ASSERT_EQ(rec.moves.size(), 1u);
    EXPECT_EQ(rec.moves[0].address, 0x7f00'0000'0010ull);
    ASSERT_EQ(rec.starts.size(), 2u);
    ASSERT_EQ(rec.ends.size(), 2u);
    EXPECT_EQ(rec.ends[1].next_object_id, 600u);
    EXPECT_EQ(rec.ends[0].pause_ns, 1000u);
    ASSERT_EQ(rec.deaths.size(), 5u);
    EXPECT_EQ(rec.deaths[0], std::make_pair(0u, uint64_t{1}));
    EXPECT_EQ(rec.deaths[4], std::make_pair(1u, uint64_t{597}));
    ASSERT_EQ(rec.thread_starts.size(), 1u);
    EXPECT_EQ(rec.thread_starts[0].time_ns, 50);
    // Times never go backwards here, and they were delta-coded across chunks.
    for (size_t i = 1; i < rec.allocs.size(); ++i)
        EXPECT_LE(rec.allocs[i - 1].time_ns, rec.allocs[i].time_ns);
}

INSTANTIATE_TEST_SUITE_P(Compression, RoundTrip, ::testing::Bool(),
                         [](const auto& p) { return p.param ? "zstd" : "plain"; });

TEST(RoundTrip, SnapshotsSurvive) {
    TraceBuilder b("snapshot");
    b.alloc(0).alloc(1).alloc(2).gc(0, 3);
    b.snapshot(0, {{0, {TraceBuilder::strong(1), TraceBuilder::weak(2)}}, {1, {TraceBuilder::strong(2, 0)}}},
               {TraceBuilder::staticRoot(0)});
    std::string path = b.finish();
    auto f = TraceFile::open(path);
    ASSERT_TRUE(f.ok()) << f.error().message;
    size_t refs = 0, roots = 0;
    std::vector<uint8_t> scratch;
    for (size_t i = 0; i < f->chunks().size(); ++i) {
        const ChunkRef& c = f->chunks()[i];
        if (c.kind == static_cast<uint16_t>(format::ChunkKind::kRefs)) {
            ++refs;
            EXPECT_EQ(c.meta, 0u);
            struct V {
                std::vector<std::pair<uint64_t, Edge>> edges;
                void onSource(uint64_t, uint64_t, size_t) {}
                void onEdge(uint64_t s, const Edge& e) { edges.emplace_back(s, e); }
            } v;
            uint32_t gc = 99;
            auto p = f->payload(i, scratch);
            ASSERT_TRUE(p.ok());
            ASSERT_TRUE(decodeRefs(*p, f->symbols(), &gc, v).ok);
            EXPECT_EQ(gc, 0u);
            ASSERT_EQ(v.edges.size(), 3u);
            EXPECT_EQ(v.edges[0].second.target, 1u);
            EXPECT_EQ(v.edges[0].second.field, 1u);
            EXPECT_EQ(v.edges[1].second.strength, 1u);
            EXPECT_EQ(v.edges[2].first, 1u);
            EXPECT_EQ(v.edges[2].second.field, 0u);
        }
        if (c.kind == static_cast<uint16_t>(format::ChunkKind::kRoots)) {
            ++roots;
            struct V {
                std::vector<Root> roots;
                void onRoot(const Root& r, size_t) { roots.push_back(r); }
            } v;
            RootsHeader h;
            auto p = f->payload(i, scratch);
            ASSERT_TRUE(p.ok());
            ASSERT_TRUE(decodeRoots(*p, f->symbols(), false, &h, v).ok);
            EXPECT_EQ(h.sources, 2u);
            EXPECT_EQ(h.edges, 3u);
            EXPECT_EQ(h.refs_chunks, 1u);
            ASSERT_EQ(v.roots.size(), 1u);
            EXPECT_EQ(v.roots[0].kind, 8u);
            EXPECT_EQ(v.roots[0].detail_count, 2u);
        }
    }
    EXPECT_EQ(refs, 1u);
    EXPECT_EQ(roots, 1u);
}

TEST(RoundTrip, ExternalEncoderChunks) {
    // A producer with per-thread buffers hands whole payloads to the writer.
    TraceBuilder b("encoder");
    EventEncoder enc;
    enc.reset(1000, 10, 2);
    AllocEvent e;
    e.type = 1;
    e.site = 1;
    for (uint64_t id = 10; id < 20; ++id) {
        e.id = id;
        e.time_ns = 1000 + static_cast<int64_t>(id);
        enc.alloc(e);
    }
    b.writer().writeEvents(enc);
    EXPECT_EQ(enc.eventCount(), 0u);
    auto f = TraceFile::open(b.finish());
    ASSERT_TRUE(f.ok());
    Recorder rec = decodeAll(*f);
    ASSERT_EQ(rec.allocs.size(), 10u);
    EXPECT_EQ(rec.allocs[0].id, 10u);
    EXPECT_EQ(rec.allocs[0].thread, 2u);
    EXPECT_EQ(rec.allocs[9].time_ns, 1019);
}

}  // namespace
}  // namespace memcity
