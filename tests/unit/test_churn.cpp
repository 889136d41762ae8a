// Churn by cause: the objects born and dead within a window of GCs, on a tiny hand-made trace
// with exact answers, on the churn scenario (its documented cause) and on the demo recording
// (agreeing with the per-GC allocated and freed counts).
#include <gtest/gtest.h>

#include "classify/churn.h"
#include "cli/load.h"
#include "heap/heap_history.h"
#include "synth/synth.h"
#include "unit/loaded_heap.h"
#include "unit/trace_builder.h"

namespace memcity {
namespace {

using testing::TraceBuilder;

// The trace's history, built as the CLI builds it (reachability off where a test does not need it).
testing::LoadedHistory loaded(const std::string& path, bool reachability = true,
                              uint64_t checkpoint_events = 8'000'000) {
    HistoryOptions options;
    options.reachability = reachability;
    options.checkpoint_events = checkpoint_events;
    return testing::LoadedHistory(path, options);
}

ClassifierChain chainOf(std::string_view spec) {
    auto c = parseChain(spec);
    EXPECT_TRUE(c.ok()) << (c.ok() ? "" : c.error().message);
    return c.ok() ? std::move(*c) : ClassifierChain{};
}

// GC 0 ends with ids 0..2 born; A 3, B 4, int[10] 5 follow; GC 1 frees 3; A 6, A 7; GC 2 frees
// 4, 6 and 0 (born before any window starting at GC 0); B 8; GC 3 frees 7 and 8.
std::string tinyTrace() {
    TraceBuilder b("churn-tiny");
    b.alloc(0).alloc(1).alloc(2, 2);
    b.gc(0, 3);
    b.alloc(3).alloc(4, 2).allocArray(5, 3, 10);
    b.gc(1, 6, {3});
    b.alloc(6).alloc(7);
    b.gc(2, 8, {0, 4, 6});
    b.alloc(8, 2);
    b.gc(3, 9, {7, 8});
    return b.finish();
}

TEST(Churn, TinyWindowsHaveExactCohorts) {
    testing::LoadedHistory t = loaded(tinyTrace());
    const ClassifierChain type = chainOf("type");
    auto w = HeapChurn::build(*t.history, 0, 2, type);
    ASSERT_TRUE(w.ok()) << w.error().message;
    // Born after GC 0 ended, by GC 2: 3..7. Died within: 3 (GC 1), 4 and 6 (GC 2); 0 was older.
    const ChurnNode& root = w->node(HeapChurn::kRoot);
    EXPECT_EQ(root.died.objects, 3u);
    EXPECT_EQ(root.died.bytes, 16u + 24 + 16);
    EXPECT_EQ(root.survived.objects, 2u);      // int[10] 5 and A 7
    EXPECT_EQ(root.survived.bytes, 56u + 16);  // int[10]: 16 + 10 x 4, aligned
    const uint32_t a = w->find({"A"}), b = w->find({"B"}), ints = w->find({"int[]"});
    ASSERT_NE(a, kNoNode);
    ASSERT_NE(b, kNoNode);
    ASSERT_NE(ints, kNoNode);
    EXPECT_EQ(w->node(a).died.objects, 2u);
    EXPECT_EQ(w->node(a).survived.objects, 1u);
    EXPECT_EQ(w->node(b).died.objects, 1u);
    EXPECT_EQ(w->node(ints).died.objects, 0u);
    EXPECT_EQ(w->node(ints).survived.objects, 1u);
    // Most churn first; equal churn, larger survivors first.
    EXPECT_EQ(w->sortedChildren(HeapChurn::kRoot, Metric::kObjects), (std::vector<uint32_t>{a, b, ints}));

    // GC 1..3: born 6, 7, 8; all died within (7 and 8 at GC 3); 4 was born before the window.
    auto late = HeapChurn::build(*t.history, 1, 3, type);
    ASSERT_TRUE(late.ok());
    EXPECT_EQ(late->node(HeapChurn::kRoot).died.objects, 3u);
    EXPECT_EQ(late->node(HeapChurn::kRoot).survived.objects, 0u);
    EXPECT_EQ(late->node(late->find({"B"})).died.objects, 1u);

    // The rate is over the window's time, end of GC `from` to end of GC `to`.
    const auto& gcs = t.history->gcs();
    EXPECT_DOUBLE_EQ(w->seconds(), static_cast<double>(gcs[2].end_ns - gcs[0].end_ns) / 1e9);
}

TEST(Churn, RefusesEmptyWindowsOutOfRangeAndReferenceChains) {
    testing::LoadedHistory t = loaded(tinyTrace());
    const ClassifierChain type = chainOf("type");
    auto same = HeapChurn::build(*t.history, 2, 2, type);
    ASSERT_FALSE(same.ok());
    EXPECT_NE(same.error().message.find("needs two GCs"), std::string::npos) << same.error().message;
    auto beyond = HeapChurn::build(*t.history, 0, 4, type);
    ASSERT_FALSE(beyond.ok());
    EXPECT_NE(beyond.error().message.find("GC 4 is out of range"), std::string::npos);
    auto refs = HeapChurn::build(*t.history, 0, 2, chainOf("pointed-from(type)"));
    ASSERT_FALSE(refs.ok());
    EXPECT_NE(refs.error().message.find("reads references"), std::string::npos);
}

// The churn scenario's documented cause (docs/scenarios.md): the burst's 300,000 boxed Integers
// from FinagleHttp.runIteration:31 and 300,000 lambdas from :32, none of which survives.
TEST(Churn, TheChurnScenarioNamesItsBurst) {
    const std::string path = testing::tempPath("churn-scenario");
    ASSERT_TRUE(synth::synthesize("churn", path, {}).ok());
    testing::LoadedHistory t = loaded(path, false);
    const uint32_t last = static_cast<uint32_t>(t.history->gcCount() - 1);
    auto w = HeapChurn::build(*t.history, 0, last, chainOf("type,site(callers=1)"), {2});
    ASSERT_TRUE(w.ok()) << w.error().message;
    const std::vector<uint32_t> top = w->sortedChildren(HeapChurn::kRoot, Metric::kObjects);
    ASSERT_GE(top.size(), 2u);
    const std::string integer = "java.lang.Integer",
                      lambda = "org.renaissance.twitter.finagle.FinagleHttp$$Lambda$17";
    EXPECT_EQ(w->node(top[0]).label, integer);
    EXPECT_EQ(w->node(top[1]).label, lambda);
    for (uint32_t n : {top[0], top[1]}) {
        EXPECT_EQ(w->node(n).died.objects, 300'000u) << w->node(n).label;
        EXPECT_EQ(w->node(n).died.bytes, 300'000u * 16) << w->node(n).label;
        EXPECT_EQ(w->node(n).survived.objects, 0u) << w->node(n).label;
    }
    const uint32_t boxed =
        w->find({integer, "java.lang.Integer.valueOf(Integer.java:1081)",
                 "org.renaissance.twitter.finagle.FinagleHttp.runIteration(FinagleHttp.scala:31)"});
    ASSERT_NE(boxed, kNoNode);
    EXPECT_EQ(w->node(boxed).died.objects, 300'000u);
}

// The closest domain call site (STAG20 §7.2) files the burst's boxed Integers, allocated in
// java.lang.Integer.valueOf, under the application frame that asked for them.
TEST(Churn, ByClosestDomainCallSite) {
    const std::string path = testing::tempPath("churn-domain");
    ASSERT_TRUE(synth::synthesize("churn", path, {}).ok());
    testing::LoadedHistory t = loaded(path, false);
    const uint32_t last = static_cast<uint32_t>(t.history->gcCount() - 1);
    auto w = HeapChurn::build(*t.history, 0, last, chainOf("domain-site,type"));
    ASSERT_TRUE(w.ok()) << w.error().message;
    const std::string run = "org.renaissance.twitter.finagle.FinagleHttp.runIteration(FinagleHttp.scala:";
    const uint32_t boxed = w->find({run + "31)", "java.lang.Integer"});
    ASSERT_NE(boxed, kNoNode);
    EXPECT_EQ(w->node(boxed).died.objects, 300'000u);
    EXPECT_EQ(w->node(w->find({run + "31)"})).died.objects, 300'000u);  // nothing else there
    EXPECT_EQ(w->node(w->find({run + "32)"})).died.objects, 300'000u);  // the lambdas
    // With the application's own package as a library too, no frame of theirs is a domain frame.
    auto all =
        HeapChurn::build(*t.history, 0, last, chainOf("domain-site(libraries=java.|org.renaissance.)"));
    ASSERT_TRUE(all.ok());
    const uint32_t none = all->find({"<no domain frame recorded>"});
    ASSERT_NE(none, kNoNode);
    EXPECT_GE(all->node(none).died.objects, 600'000u);
    EXPECT_EQ(chainOf("domain-site").spec(), "domain-site");
    EXPECT_EQ(chainOf("domain-site(libraries=java.|org.)").spec(), "domain-site(libraries=java.|org.)");
    auto bad = parseChain("domain-site(depth=2)");
    ASSERT_FALSE(bad.ok());
    EXPECT_EQ(bad.error().message,
              "classifier 'domain-site(depth=2)': unknown parameter 'depth' (parameters: libraries)");
}

// On a real recording: what was born in a window is what the per-GC records say was allocated
// in it, and what died within it is part of what they say was freed.
TEST(Churn, AddsUpToTheDemosPerGcRecords) {
    const std::string demo = cli::demoTracePath();
    ASSERT_FALSE(demo.empty());
    // Checkpoints every 100,000 events: windows start and end far from them.
    testing::LoadedHistory t = loaded(demo, false, 100'000);
    ASSERT_GE(t.history->checkpoints().count(), 5u);
    const auto& gcs = t.history->gcs();
    for (auto [from, to] : {std::pair{0u, 5u}, std::pair{10u, 30u}, std::pair{30u, 41u}}) {
        ASSERT_LT(to, gcs.size());
        auto w = HeapChurn::build(*t.history, from, to, chainOf("type"), {2});
        ASSERT_TRUE(w.ok()) << w.error().message;
        uint64_t allocated = 0, allocated_bytes = 0, freed = 0;
        for (uint32_t g = from + 1; g <= to; ++g) {
            allocated += gcs[g].allocated_objects;
            allocated_bytes += gcs[g].allocated_bytes;
            freed += gcs[g].freed_objects;
        }
        const ChurnNode& root = w->node(HeapChurn::kRoot);
        EXPECT_EQ(root.died.objects + root.survived.objects, allocated) << from << ".." << to;
        EXPECT_EQ(root.died.bytes + root.survived.bytes, allocated_bytes) << from << ".." << to;
        EXPECT_LE(root.died.objects, freed);
        EXPECT_GT(root.died.objects, 0u);
        // The survivors are those of the window's births the heap at `to` holds.
        auto heap = t.history->heapAt(to);
        ASSERT_TRUE(heap.ok());
        uint64_t held = 0;
        heap->view().forEachLive(
            [&](size_t pos) { held += heap->view().id(pos) >= t.history->watermarks()[from]; });
        EXPECT_EQ(root.survived.objects, held);
    }
}

// The churn as a series (the explorer's churn mode): GC by GC, cumulative. Window 0..3 of the tiny
// trace: GC 1 frees A 3; GC 2 B 4 and A 6 (not 0, born before); GC 3 A 7 and B 8.
TEST(Churn, TheSeriesCountsWhatDiedYoungByEachGc) {
    testing::LoadedHistory t = loaded(tinyTrace());
    const ClassifierChain type = chainOf("type");
    auto s = churnSeries(*t.history, 0, 3, type);
    ASSERT_TRUE(s.ok()) << s.error().message;
    EXPECT_EQ(s->gcs(), (std::vector<uint32_t>{1, 2, 3}));
    const uint32_t a = s->find({"A"}), b = s->find({"B"});
    ASSERT_NE(a, kNoNode);
    ASSERT_NE(b, kNoNode);
    EXPECT_EQ(s->values(a, Metric::kObjects), (std::vector<uint64_t>{1, 2, 3}));
    EXPECT_EQ(s->values(b, Metric::kObjects), (std::vector<uint64_t>{0, 1, 2}));
    EXPECT_EQ(s->counts(TreeSeries::kRoot, 3), (SeriesCounts{5, 3 * 16 + 2 * 24}));
    EXPECT_EQ(s->find({"int[]"}), kNoNode);  // id 5 never died
    // The same refusals as the churn command's.
    EXPECT_FALSE(churnSeries(*t.history, 2, 2, type).ok());
    EXPECT_FALSE(churnSeries(*t.history, 0, 4, type).ok());
    EXPECT_FALSE(churnSeries(*t.history, 0, 2, chainOf("pointed-from(type)")).ok());
}

// Every column equals the churn of the window that ends at its GC, group for group.
TEST(Churn, EachColumnOfTheSeriesIsTheChurnUpToItsGc) {
    const std::string path = testing::tempPath("churn-series");
    ASSERT_TRUE(synth::synthesize("churn", path, {}).ok());
    testing::LoadedHistory t = loaded(path, false);
    const ClassifierChain chain = chainOf("type,site(callers=1)");
    const uint32_t from = 6, to = 12;  // the churn window (GCs 8..12) and the GCs before it
    auto s = churnSeries(*t.history, from, to, chain);
    ASSERT_TRUE(s.ok()) << s.error().message;
    for (uint32_t g = from + 1; g <= to; ++g) {
        auto w = HeapChurn::build(*t.history, from, g, chain);
        ASSERT_TRUE(w.ok()) << w.error().message;
        size_t checked = 0;
        std::vector<std::pair<uint32_t, std::vector<std::string>>> stack{{HeapChurn::kRoot, {}}};
        while (!stack.empty()) {
            auto [n, labels] = stack.back();
            stack.pop_back();
            const uint32_t id = labels.empty() ? TreeSeries::kRoot : s->find(labels);
            if (w->node(n).died.objects > 0) {
                ASSERT_NE(id, kNoNode) << "GC " << g << ": " << w->node(n).label;
                EXPECT_EQ(s->counts(id, g), w->node(n).died) << "GC " << g << ": " << w->node(n).label;
                ++checked;
            }
            for (uint32_t c : w->node(n).children) {
                std::vector<std::string> child = labels;
                child.push_back(w->node(c).label);
                stack.emplace_back(c, std::move(child));
            }
        }
        EXPECT_GT(checked, 1u) << "GC " << g;
    }
    // The burst's boxed Integers come first, as in the churn command's answer.
    const std::vector<uint32_t> top =
        s->sortedChildren(TreeSeries::kRoot, SortStrategy::kEndSize, Metric::kObjects);
    ASSERT_FALSE(top.empty());
    EXPECT_EQ(s->label(top[0]), "java.lang.Integer");
}

}  // namespace
}  // namespace memcity
