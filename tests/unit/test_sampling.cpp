// Sampled traces (heap/sampling.h): what a sample stands for, the intervals shown with estimates,
// a hand-made sampled trace's exact estimates, a census's exact figures, and the estimates of a
// scenario against the same run recorded whole.
#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <map>

#include "classify/classifier.h"
#include "classify/series.h"
#include "classify/tree.h"
#include "heap/sampling.h"
#include "synth/synth.h"
#include "trace/extensions.h"
#include "unit/loaded_heap.h"
#include "unit/trace_builder.h"
#include "windows/windows.h"

namespace memcity {
namespace {

double pick(double size, double interval) {
    return 1 - std::exp(-size / interval);
}

ClassifierChain chainOf(const std::string& spec) {
    auto c = parseChain(spec);
    EXPECT_TRUE(c.ok()) << (c.ok() ? "" : c.error().message);
    return std::move(*c);
}

WriterOptions sampledAt(uint64_t interval) {
    WriterOptions o;
    o.sampling_interval = interval;
    return o;
}

TEST(Sampling, ASampleStandsForTheInverseOfItsPickProbability) {
    const SampleModel model(1000);
    for (uint64_t size : {16u, 24u, 1017u, 4000u, 1u << 20}) {
        const double p = pick(static_cast<double>(size), 1000);
        const SampleWeight w = model.weigh(size);
        EXPECT_NEAR(model.probability(size), p, 1e-12) << size;
        EXPECT_NEAR(w.objects, 1 / p, 1e-9 / p) << size;
        EXPECT_NEAR(w.bytes, static_cast<double>(size) / p, 1e-9 * static_cast<double>(size) / p) << size;
        EXPECT_NEAR(w.var_objects, (1 - p) / (p * p), 1e-9 / (p * p)) << size;
    }
    // An object far larger than the interval is always picked: it stands for itself, but keeps a
    // variance above 0 (only a census makes a group exact).
    const SampleWeight big = model.weigh(100'000'000);
    EXPECT_DOUBLE_EQ(big.objects, 1);
    EXPECT_GT(big.var_bytes, 0);
    EXPECT_LT(big.var_bytes, 1e5);  // a standard error of a few hundred bytes in 100 MB
    // An exact model weighs nothing up.
    const SampleWeight exact = SampleModel(0).weigh(24);
    EXPECT_EQ(exact.objects, 1);
    EXPECT_EQ(exact.bytes, 24);
    EXPECT_EQ(exact.var_bytes, 0);
}

TEST(Sampling, IntervalsAreGarwoods) {
    // Garwood's 95% interval for a Poisson count (the published table's values).
    const std::array<double, 2> none = poissonInterval(0), one = poissonInterval(1),
                                ten = poissonInterval(10);
    EXPECT_EQ(none[0], 0);
    EXPECT_NEAR(none[1], 3.6889, 1e-3);
    EXPECT_NEAR(one[0], 0.0253, 1e-3);
    EXPECT_NEAR(one[1], 5.5716, 1e-3);
    EXPECT_NEAR(ten[0], 4.7954, 1e-3);
    EXPECT_NEAR(ten[1], 18.3904, 1e-3);
    // n samples of small objects, each worth the interval: about +-1.96 / sqrt(n) for many.
    const Estimate e = estimate(10'000 * 1000.0, 10'000 * 1000.0 * 1000.0);
    EXPECT_FALSE(e.exact);
    EXPECT_NEAR(e.low, 10'000 * 1000.0 * (1 - 0.0196), 10'000 * 1000.0 * 0.001);
    EXPECT_NEAR(e.high, 10'000 * 1000.0 * (1 + 0.0196), 10'000 * 1000.0 * 0.001);
    // Many samples: Wilson and Hilferty's approximation, within 0.1% of Garwood's there.
    const std::array<double, 2> many = poissonInterval(100), many_below = poissonInterval(99.999);
    EXPECT_NEAR(many[0], 81.37, 0.05);
    EXPECT_NEAR(many[1], 121.63, 0.05);
    EXPECT_NEAR(many[0], many_below[0], 0.05);
    EXPECT_NEAR(many[1], many_below[1], 0.05);
    // No variance: exact, and said so.
    const Estimate counted = estimate(42, 0);
    EXPECT_TRUE(counted.exact);
    EXPECT_EQ(counted.low, 42);
    EXPECT_EQ(formatEstimate(counted, false), "= 42");
    // 100 samples worth 100 each: Garwood's 81.37..121.63, in three digits as estimates are shown.
    EXPECT_EQ(formatEstimate(estimate(10'000, 10'000.0 * 100), false), "\u2248 10,000 (8,140\u201312,200)");
    EXPECT_EQ(formatEstimate(estimate(10'000 * 1024.0, 10'000 * 1024.0 * 1024 * 100), true),
              "\u2248 9.8 MiB (7.9\u201311.9 MiB)");
}

// A hand-made sampled trace, interval 1,000 bytes: three A (16 B) from site 1 and two B (24 B)
// from site 2 sampled before GC 0, one A dead in it; one more B after it, and GC 1.
std::string smallSampledTrace() {
    testing::TraceBuilder t("sampled", sampledAt(1000));
    t.alloc(0, 1, 1).alloc(1, 1, 1).alloc(2, 1, 1).alloc(3, 2, 2).alloc(4, 2, 2);
    t.gc(0, 5, {1});
    t.alloc(5, 2, 2);
    t.gc(1, 6);
    return t.finish();
}

TEST(Sampling, ASampledTracesHeapsAreEstimatedFromTheirSamples) {
    testing::LoadedHistory t(smallSampledTrace());
    ASSERT_TRUE(t.history);
    ASSERT_TRUE(t.file->header().sampled());
    EXPECT_EQ(t.file->header().sampling_interval, 1000u);
    ASSERT_TRUE(t.history->sampled());
    const double a = 1 / pick(16, 1000), b = 1 / pick(24, 1000);
    const GcRecord& g0 = t.history->gcs()[0];
    EXPECT_EQ(g0.live_sampled.samples, 4u);
    EXPECT_NEAR(g0.live_sampled.objects, 2 * a + 2 * b, 1e-6);
    EXPECT_NEAR(g0.live_sampled.bytes, 2 * 16 * a + 2 * 24 * b, 1e-6);
    EXPECT_EQ(g0.live_objects, static_cast<uint64_t>(std::llround(2 * a + 2 * b)));
    EXPECT_NEAR(g0.allocated_sampled.objects, 3 * a + 2 * b, 1e-6);
    EXPECT_NEAR(g0.freed_sampled.objects, a, 1e-6);
    const GcRecord& g1 = t.history->gcs()[1];
    EXPECT_NEAR(g1.live_sampled.objects, 2 * a + 3 * b, 1e-6);
    EXPECT_NEAR(g1.allocated_sampled.objects, b, 1e-6);
    EXPECT_EQ(g1.freed_sampled.samples, 0u);

    // The tree of GC 1 by type then site: each node the sum of its samples' weights.
    auto heap = t.history->heapAt(1);
    ASSERT_TRUE(heap.ok());
    const HeapView view = heap->view();
    EXPECT_TRUE(view.sampled());
    EXPECT_EQ(view.liveObjects(), 5u);  // the view counts samples
    const ClassifierChain chain = chainOf("type,site");
    const ClassificationTree tree = ClassificationTree::build(view, chain);
    ASSERT_TRUE(tree.sampled());
    const uint32_t na = tree.find({"A"}), nb = tree.find({"B"});
    ASSERT_NE(na, kNoNode);
    ASSERT_NE(nb, kNoNode);
    EXPECT_NEAR(tree.node(na).sampled.objects, 2 * a, 1e-6);
    EXPECT_EQ(tree.node(na).sampled.samples, 2u);
    EXPECT_EQ(tree.node(na).objects, static_cast<uint64_t>(std::llround(2 * a)));
    EXPECT_NEAR(tree.node(nb).sampled.bytes, 3 * 24 * b, 1e-6);
    EXPECT_EQ(tree.root().sampled.samples, 5u);
    // The interval of the root's bytes holds its estimate, and is not exact.
    const Estimate e = tree.root().sampled.bytesEstimate();
    EXPECT_FALSE(e.exact);
    EXPECT_LT(e.low, e.value);
    EXPECT_GT(e.high, e.value);

    // The series keeps the sums per node and GC.
    auto series = TreeSeries::build(*t.history, chain);
    ASSERT_TRUE(series.ok()) << series.error().message;
    ASSERT_TRUE(series->sampled());
    const uint32_t sb = series->find({"B"});
    ASSERT_NE(sb, kNoNode);
    EXPECT_EQ(series->sampledCounts(sb, 0).samples, 2u);
    EXPECT_EQ(series->sampledCounts(sb, 1).samples, 3u);
    EXPECT_EQ(series->value(sb, 1, Metric::kObjects), static_cast<uint64_t>(std::llround(3 * b)));
}

// The same trace with the JVM's count after GC 0: 100 A (2 of them the samples), 50 B and 10
// int[] of 64 bytes that no sample stands for.
std::string censusTrace(bool by_address) {
    testing::TraceBuilder t("sampled-census", sampledAt(1000));
    t.alloc(0, 1, 1).alloc(1, 1, 1).alloc(2, 1, 1).alloc(3, 2, 2).alloc(4, 2, 2);
    t.gc(0, 5, {1});
    GcCensusEvent c;
    c.gc = 0;
    c.types = {{1, 2, 32, 98, 98 * 16, 0, 0, 0, 0},
               {2, 2, 48, 48, 48 * 24, 0, 0, 0, 0},
               {3, 0, 0, 10, 640, 0, 0, 0, 0}};
    c.newer_by_address = by_address;
    t.writer().extension(static_cast<uint32_t>(format::ExtensionKind::kGcCensus), encodeGcCensus(c));
    t.alloc(5, 2, 2);
    t.gc(1, 6);
    return t.finish();
}

TEST(Sampling, ACensusMakesWholeTypesExact) {
    testing::LoadedHistory t(censusTrace(true));
    ASSERT_TRUE(t.history);
    const GcRecord& g0 = t.history->gcs()[0];
    ASSERT_GE(g0.calibration, 0);
    EXPECT_EQ(g0.live_objects, 160u);
    EXPECT_EQ(g0.live_bytes, 100u * 16 + 50 * 24 + 640);
    EXPECT_TRUE(g0.live_sampled.bytesEstimate().exact);
    const SampleCalibration& c = t.history->calibrations()[static_cast<size_t>(g0.calibration)];
    EXPECT_EQ(c.unsampled_types, 1u);
    EXPECT_EQ(c.unsampled_bytes, 640u);

    auto heap = t.history->heapAt(0);
    ASSERT_TRUE(heap.ok());
    ASSERT_NE(heap->view().calibration(), nullptr);
    // By type: each type counted; the whole heap too (with the type no sample stands for).
    const ClassifierChain by_type = chainOf("type,site");
    const ClassificationTree tree = ClassificationTree::build(heap->view(), by_type);
    const uint32_t na = tree.find({"A"}), site = tree.find({"A", "Main.run(Main.java:10)"});
    ASSERT_NE(na, kNoNode);
    ASSERT_NE(site, kNoNode);
    EXPECT_EQ(tree.node(na).objects, 100u);
    EXPECT_EQ(tree.node(na).bytes, 1600u);
    EXPECT_TRUE(tree.node(na).sampled.objectsEstimate().exact);
    EXPECT_EQ(tree.root().objects, 160u);
    EXPECT_TRUE(tree.root().sampled.bytesEstimate().exact);
    // A site is no whole type: scaled to the count, but still an estimate.
    EXPECT_EQ(tree.node(site).objects, 100u);
    EXPECT_FALSE(tree.node(site).sampled.objectsEstimate().exact);
    // Filtered, the root is no longer the whole heap.
    ClassifierChain filtered = chainOf("type");
    auto filter = parseFilter("type == \"A\"");
    ASSERT_TRUE(filter.ok());
    filtered.filters.push_back(std::move(*filter));
    const ClassificationTree only_a = ClassificationTree::build(heap->view(), filtered);
    EXPECT_EQ(only_a.root().objects, 100u);
    EXPECT_FALSE(only_a.root().sampled.objectsEstimate().exact);

    // GC 1 has no census: estimates again.
    EXPECT_LT(t.history->gcs()[1].calibration, 0);
    EXPECT_FALSE(t.history->gcs()[1].live_sampled.bytesEstimate().exact);
}

TEST(Sampling, ATypeTheCensusCannotCountKeepsItsEstimate) {
    // B's unsampled objects counted with dead space (as int[]'s are before JDK 19), and int[]
    // sampled but not in the census: neither is counted; A is; the whole heap is not.
    testing::TraceBuilder t("sampled-partial-census", sampledAt(1000));
    t.alloc(0, 1, 1).alloc(1, 1, 1).alloc(2, 2, 2).allocArray(3, 3, 4);
    t.gc(0, 4);
    GcCensusEvent c;
    c.gc = 0;
    c.types = {{1, 2, 32, 98, 98 * 16, 0, 0, 0, 0}, {2, 1, 24, 0, 0, 0, 0, 40, 960}};
    c.newer_by_address = true;
    t.writer().extension(static_cast<uint32_t>(format::ExtensionKind::kGcCensus), encodeGcCensus(c));
    t.gc(1, 4);
    testing::LoadedHistory h(t.finish());
    ASSERT_TRUE(h.history);
    const GcRecord& g0 = h.history->gcs()[0];
    ASSERT_GE(g0.calibration, 0);
    const SampleCalibration& cal = h.history->calibrations()[static_cast<size_t>(g0.calibration)];
    EXPECT_FALSE(cal.complete);
    EXPECT_TRUE(cal.counted(1));
    EXPECT_FALSE(cal.counted(2));
    EXPECT_FALSE(cal.counted(3));
    EXPECT_FALSE(g0.live_sampled.bytesEstimate().exact);
    auto heap = h.history->heapAt(0);
    ASSERT_TRUE(heap.ok());
    const ClassifierChain chain = chainOf("type");
    const ClassificationTree tree = ClassificationTree::build(heap->view(), chain);
    const uint32_t a = tree.find({"A"}), b = tree.find({"B"});
    ASSERT_NE(a, kNoNode);
    ASSERT_NE(b, kNoNode);
    EXPECT_TRUE(tree.node(a).sampled.objectsEstimate().exact);
    EXPECT_EQ(tree.node(a).objects, 100u);
    EXPECT_FALSE(tree.node(b).sampled.objectsEstimate().exact);
    EXPECT_NEAR(tree.node(b).sampled.objects, 1 / pick(24, 1000), 1e-6);
    EXPECT_FALSE(tree.root().sampled.objectsEstimate().exact);
}

TEST(Sampling, ACensusThatCannotTellNewObjectsIsNoCount) {
    // Objects allocated after the GC, untold, would be counted with its heap: not used.
    testing::LoadedHistory t(censusTrace(false));
    ASSERT_TRUE(t.history);
    EXPECT_LT(t.history->gcs()[0].calibration, 0);
    EXPECT_FALSE(t.history->gcs()[0].live_sampled.bytesEstimate().exact);
}

// growing-map (docs/scenarios.md) run twice: recorded whole, and as the heap sampler would at
// 16 KiB, with the sampler's draws seeded by `seed`. Its explicit GCs have a census in the
// sampled trace.
struct Twins {
    std::unique_ptr<testing::LoadedHistory> exact, sampled;
};

Twins growingMap(uint64_t seed, uint32_t scale) {
    Twins out;
    synth::SynthOptions o;
    o.scale = scale;
    o.seed = seed;
    o.refs_every = 0;
    const std::string exact = testing::tempPath("growing-map-exact");
    EXPECT_TRUE(synth::synthesize("growing-map", exact, o).ok());
    o.writer.sampling_interval = 16 << 10;
    const std::string sampled = testing::tempPath("growing-map-sampled");
    EXPECT_TRUE(synth::synthesize("growing-map", sampled, o).ok());
    out.exact = std::make_unique<testing::LoadedHistory>(exact);
    out.sampled = std::make_unique<testing::LoadedHistory>(sampled);
    return out;
}

const Twins& growingMapTwins() {
    static Twins t = growingMap(1, 4);
    return t;
}

// Every group of type,site holding 5% of the live bytes at a GC, estimated against its exact
// figure: within 20% and inside the interval shown at the full GCs (which have a census); and at
// the other GCs the intervals hold the exact figure about as often as 95% intervals should, over
// three draws of the sampler.
TEST(Sampling, EstimatesAgreeWithTheExactRunOfTheSameProgram) {
    size_t census_groups = 0, groups = 0, inside = 0;
    for (uint64_t seed : {uint64_t{1}, uint64_t{2}, uint64_t{3}}) {
        const Twins twins = seed == 1 ? Twins{} : growingMap(seed, 2);
        const Twins& t = seed == 1 ? growingMapTwins() : twins;
        ASSERT_TRUE(t.exact->history && t.sampled->history);
        const HeapHistory& exact = *t.exact->history;
        const HeapHistory& sampled = *t.sampled->history;
        ASSERT_EQ(exact.gcCount(), sampled.gcCount());
        const ClassifierChain chain = chainOf("type,site");
        auto es = TreeSeries::build(exact, chain);
        auto ss = TreeSeries::build(sampled, chain);
        ASSERT_TRUE(es.ok() && ss.ok());
        for (uint32_t g = 0; g < exact.gcCount(); ++g) {
            const bool census = sampled.gcs()[g].calibration >= 0;
            const uint64_t live = exact.gcs()[g].live_bytes;
            for (uint32_t id = 1; id < es->size(); ++id) {
                const uint64_t truth = es->value(id, g, Metric::kBytes);
                if (truth * 20 < live) continue;
                std::vector<std::string> labels;
                for (uint32_t at = id; at != TreeSeries::kRoot; at = es->node(at).parent)
                    labels.push_back(es->label(at));
                std::reverse(labels.begin(), labels.end());
                const uint32_t twin = ss->find(labels);
                const SampleSums s = twin == kNoNode ? SampleSums{} : ss->sampledCounts(twin, g);
                const Estimate e = s.bytesEstimate();
                const bool in = e.low <= static_cast<double>(truth) && static_cast<double>(truth) <= e.high;
                ++groups;
                inside += in;
                if (!census) continue;
                ++census_groups;
                EXPECT_NEAR(e.value, static_cast<double>(truth), 0.2 * static_cast<double>(truth))
                    << es->path(id) << " at GC " << g;
                EXPECT_TRUE(in) << es->path(id) << " at GC " << g << ": " << truth << " outside " << e.low
                                << ".." << e.high;
            }
        }
    }
    EXPECT_GT(census_groups, 5u);
    ASSERT_GT(groups, 200u);
    EXPECT_GE(static_cast<double>(inside), 0.85 * static_cast<double>(groups)) << inside << " of " << groups;
}

// The leak is found as in the exact run: the same growing type and site lead the series sorted
// by growth, and the heuristic leak window is the exact run's.
TEST(Sampling, TheLeakIsFoundAsInTheExactRun) {
    const Twins& t = growingMapTwins();
    ASSERT_TRUE(t.exact->history && t.sampled->history);
    const ClassifierChain chain = chainOf("type,site");
    auto es = TreeSeries::build(*t.exact->history, chain);
    auto ss = TreeSeries::build(*t.sampled->history, chain);
    ASSERT_TRUE(es.ok() && ss.ok());
    for (uint32_t depth : {1u, 2u}) {
        uint32_t e = TreeSeries::kRoot, s = TreeSeries::kRoot;
        for (uint32_t d = 0; d < depth; ++d) {
            e = es->sortedChildren(e, SortStrategy::kGrowth, Metric::kBytes).front();
            s = ss->sortedChildren(s, SortStrategy::kGrowth, Metric::kBytes).front();
        }
        EXPECT_EQ(es->path(e), ss->path(s));
    }
    auto ew = findWindows(t.exact->history->gcs());
    auto sw = findWindows(t.sampled->history->gcs());
    ASSERT_TRUE(ew.ok() && sw.ok());
    auto heuristic = [](const WindowReport& r) -> const Window* {
        for (const Window& w : r.windows)
            if (w.kind == WindowKind::kLeakHeuristic && !w.narrowed) return &w;
        return nullptr;
    };
    ASSERT_NE(heuristic(*ew), nullptr);
    ASSERT_NE(heuristic(*sw), nullptr);
    EXPECT_EQ(heuristic(*ew)->first_gc, heuristic(*sw)->first_gc);
    EXPECT_EQ(heuristic(*ew)->last_gc, heuristic(*sw)->last_gc);
}

TEST(Sampling, AReaderTellsABrokenSampledHeader) {
    // Version 2 without the sampled flag, the flag in version 1, and an interval of 0.
    const std::string path = smallSampledTrace();
    std::vector<uint8_t> bytes = testing::readFile(path);
    auto reject = [&](std::vector<uint8_t> b, const std::string& what) {
        const std::string p = testing::tempPath("bad-sampled");
        testing::writeFile(p, b);
        auto f = TraceFile::open(p);
        ASSERT_FALSE(f.ok()) << what;
        EXPECT_NE(f.error().message.find(what), std::string::npos) << f.error().message;
    };
    std::vector<uint8_t> no_flag = bytes;
    no_flag[12] &= static_cast<uint8_t>(~format::kHeaderFlagSampled);
    reject(no_flag, "offset 12");
    std::vector<uint8_t> v1 = bytes;
    v1[8] = 1;
    reject(v1, "offset 12");
    std::vector<uint8_t> zero = bytes;
    std::fill(zero.begin() + 32, zero.begin() + 40, 0);
    reject(zero, "offset 32: sampling interval 0 bytes");
}

}  // namespace
}  // namespace memcity
