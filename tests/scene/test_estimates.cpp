// A sampled recording's figures in the views (scene/estimates.h): estimates marked "≈" with their
// 95% interval and samples, the badge that says the whole picture is estimated, the live bytes'
// interval on the timeline; exact traces keep their plain figures.
#include <gtest/gtest.h>

#include <algorithm>
#include <string>

#include "scene/estimates.h"
#include "scene/scene_fixture.h"
#include "scene/views.h"
#include "unit/sampled_trace.h"

namespace memcity::scene {
namespace {

const std::string kApprox = "\u2248";

testing::Fixture sampledShop(std::string_view chain = "type") {
    static const std::string path =
        ::memcity::testing::writeSampledShop(::memcity::testing::tempPath("scene-sampled-shop"));
    return testing::fixtureOf(path, chain);
}

bool anyLabel(const render::DrawList& list, const std::string& part) {
    return std::any_of(list.labels.begin(), list.labels.end(),
                       [&](const render::Label& l) { return l.text.find(part) != std::string::npos; });
}

TEST(Estimates, TheBadgeNamesTheIntervalAsTheRecorderTakesIt) {
    EXPECT_EQ(samplingBadge(512 << 10), "sampled: 1 per 512 KiB");
    EXPECT_EQ(samplingBadge(64 << 10), "sampled: 1 per 64 KiB");
    EXPECT_EQ(samplingBadge(1 << 20), "sampled: 1 per 1 MiB");
    EXPECT_EQ(samplingBadge(1000), "sampled: 1 per 1,000 B");
    EXPECT_EQ(samplingBadge(100000), "sampled: 1 per 97.7 KiB");
    EXPECT_EQ(samplingNote(512 << 10),
              "one allocation per 512 KiB on average was recorded; objects and bytes are estimates (\u2248) "
              "with 95% intervals");
}

TEST(Estimates, TextsAreAlwaysMarkedAndCarryTheirInterval) {
    const SampleModel model(64 << 10);
    SampleSums sums;
    for (int i = 0; i < 30; ++i)
        sums.add(model.weigh(40), 40);
    const Estimate bytes = sums.bytesEstimate();
    ASSERT_FALSE(bytes.exact);
    EXPECT_EQ(estimateText(sums, Metric::kBytes), formatEstimate(bytes, true));
    // Objects say what they count, before the interval.
    const std::string objects = estimateText(sums, Metric::kObjects);
    EXPECT_EQ(objects.rfind(kApprox + " 49,200 objects (", 0), 0u) << objects;
    EXPECT_NE(objects.find("\u2013"), std::string::npos) << objects;
    // No samples: still an estimate, never a count.
    EXPECT_EQ(estimateText(SampleSums{}, Metric::kBytes), kApprox + " 0 B");
    EXPECT_EQ(estimateText(SampleSums{}, Metric::kObjects), kApprox + " 0 objects");
    // A group a census counted (no variance left): "=", never "≈ =".
    SampleSums counted = sums;
    counted.objects = 1200;
    counted.bytes = 48000;
    counted.var_objects = counted.var_bytes = 0;
    EXPECT_EQ(estimateText(counted, Metric::kBytes), "= 46.9 KiB");
    EXPECT_EQ(estimateText(counted, Metric::kObjects), "= 1,200 objects");
    // A sample far larger than the interval is certain, but its group is no count.
    SampleSums big;
    big.add(model.weigh(64 << 20), 64 << 20);
    EXPECT_FALSE(big.bytesEstimate().exact);
    EXPECT_EQ(estimateText(big, Metric::kBytes).rfind(kApprox, 0), 0u) << estimateText(big, Metric::kBytes);
    EXPECT_EQ(estimateValue(12437, Metric::kObjects), kApprox + " 12,400 objects");
    EXPECT_EQ(estimateValue(1536, Metric::kBytes), kApprox + " 1.5 KiB");
    EXPECT_EQ(samplesText(1), "1 sample");
    EXPECT_EQ(samplesText(1234), "1,234 samples");
}

TEST(Estimates, SumsBetweenTwoGcsAreTweenedAsTheValuesAre) {
    testing::Fixture f = sampledShop();
    const TreeSeries& s = *f.series;
    ASSERT_TRUE(s.sampled());
    const uint32_t leak = s.find({::memcity::testing::kSampledShopLeak});
    ASSERT_NE(leak, kNoNode);
    const uint32_t ids[] = {leak};
    // At a GC: its sums. Three samples a GC, none dies.
    const SampleSums at3 = sampledSumAt(s, ids, 3.0), at4 = sampledSumAt(s, ids, 4.0);
    EXPECT_EQ(at3.samples, 12u);
    EXPECT_EQ(at4.samples, 15u);
    EXPECT_DOUBLE_EQ(at3.bytes, s.sampledSum(ids, 3).bytes);
    // Halfway: halfway, as sumAt; the estimate is the tweened value.
    const SampleSums mid = sampledSumAt(s, ids, 3.5);
    EXPECT_DOUBLE_EQ(mid.bytes, (at3.bytes + at4.bytes) / 2);
    EXPECT_DOUBLE_EQ(mid.var_bytes, (at3.var_bytes + at4.var_bytes) / 2);
    EXPECT_EQ(mid.samples, 14u);  // 13.5, rounded
    EXPECT_NEAR(mid.bytes, s.sumAt(ids, 3.5, Metric::kBytes), 1.0);
    // Clamped to the series.
    EXPECT_EQ(sampledSumAt(s, ids, 99.0).samples, 3u * ::memcity::testing::kSampledShopGcs);
    // An exact series has none.
    testing::Fixture exact = testing::fixtureOf(testing::scenarioTrace("growing-map"), "type");
    const uint32_t root[] = {TreeSeries::kRoot};
    EXPECT_EQ(sampledSumAt(*exact.series, root, 3.0).samples, 0u);
}

TEST(Estimates, TheTitleSaysSampledAndShowsTheHeapAsAnEstimate) {
    testing::Fixture f = sampledShop("site,type");
    ViewInputs in;
    in.series = f.series.get();
    in.gcs = f.history->gcs();
    in.title = "shop.mct";
    in.chain = "site,type";
    in.sampling_interval = ::memcity::testing::kSampledShopInterval;
    for (ViewKind kind :
         {ViewKind::kCity, ViewKind::kSunburst, ViewKind::kTimeline, ViewKind::kTimelineTrees}) {
        ViewOptions vo;
        vo.kind = kind;
        vo.pins = {2, 6};
        auto c = ViewComposer::prepare(in, vo, {1280.0f, 720.0f});
        ASSERT_TRUE(c.ok()) << c.error().message;
        render::DrawList out;
        c->compose(c->maxT(), out);
        const uint32_t root[] = {TreeSeries::kRoot};
        const std::string heap = estimateText(f.series->sampledSum(root, f.series->lastGc()), Metric::kBytes);
        EXPECT_TRUE(anyLabel(out, "GC 11  at ")) << viewKindName(kind);
        EXPECT_TRUE(anyLabel(out, heap + "   \xc2\xb7   sampled: 1 per 64 KiB")) << viewKindName(kind);
        if (kind == ViewKind::kTimelineTrees) {
            EXPECT_TRUE(anyLabel(out, "GC 2  " + kApprox + " "));
            EXPECT_TRUE(anyLabel(out, "GC 11  " + kApprox + " "));
        }
        // The timeline (whole, or the strip under a tree view) marks its live bytes.
        EXPECT_TRUE(kind == ViewKind::kCity || kind == ViewKind::kSunburst ||
                    kind == ViewKind::kTimelineTrees || anyLabel(out, "live " + kApprox + " (95% interval)"))
            << viewKindName(kind);
    }
    // The same series without the interval (a caller that does not say it is sampled) still
    // shows estimates; an exact trace shows none.
    testing::Fixture exact = testing::fixtureOf(testing::scenarioTrace("growing-map"), "type");
    ViewInputs plain;
    plain.series = exact.series.get();
    plain.gcs = exact.history->gcs();
    plain.title = "growing-map.mct";
    for (ViewKind kind : {ViewKind::kCity, ViewKind::kTimeline, ViewKind::kTimelineTrees}) {
        ViewOptions vo;
        vo.kind = kind;
        vo.pins = {2};
        auto c = ViewComposer::prepare(plain, vo, {1280.0f, 720.0f});
        ASSERT_TRUE(c.ok()) << c.error().message;
        render::DrawList out;
        c->compose(c->maxT(), out);
        EXPECT_FALSE(anyLabel(out, kApprox)) << viewKindName(kind);
        EXPECT_FALSE(anyLabel(out, "sampled")) << viewKindName(kind);
    }
}

TEST(Estimates, TheTimelineDrawsTheLiveBytesInterval) {
    testing::Fixture f = sampledShop();
    const std::span<const GcRecord> gcs = f.history->gcs();
    const PixelRect viewport{{0.0f, 0.0f}, {800.0f, 300.0f}};
    TimelineLayoutOptions lo;
    const TimelineLayout plain = layoutTimeline(gcs, viewport, lo);
    lo.estimates = true;
    const TimelineLayout with = layoutTimeline(gcs, viewport, lo);
    double highest = 0;
    for (const GcRecord& r : gcs) {
        const Estimate e = r.live_sampled.bytesEstimate();
        EXPECT_FALSE(e.exact);
        EXPECT_LT(e.low, static_cast<double>(r.live_bytes));
        EXPECT_GT(e.high, static_cast<double>(r.live_bytes));
        highest = std::max(highest, e.high);
    }
    // The y range holds the intervals.
    EXPECT_GE(static_cast<double>(with.max_bytes), highest);
    EXPECT_GE(with.max_bytes, plain.max_bytes);
    render::DrawList a, b;
    buildTimelineScene(plain, gcs, {}, {}, a);
    buildTimelineScene(with, gcs, {}, {}, b);
    // A band of two triangles per pair of GCs, behind the live area, and the legend says so.
    EXPECT_EQ(b.triangles.size(), a.triangles.size() + 6 * (gcs.size() - 1));
    EXPECT_TRUE(anyLabel(b, "live " + kApprox + " (95% interval)"));
    EXPECT_FALSE(anyLabel(a, kApprox));
}

}  // namespace
}  // namespace memcity::scene
