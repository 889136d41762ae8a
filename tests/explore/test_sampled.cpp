// The explorer on a sampled recording (tests/unit/sampled_trace.h), without a window: it says the
// session is sampled, serves every figure as an estimate with the sums behind it (the hover, the
// tree table and its CSV / JSON, the inspector), and what needs reference snapshots or addresses
// is refused or left out with the reason, never computed as if the samples were the heap.
#include <gtest/gtest.h>

#include <algorithm>
#include <memory>
#include <string>

#include "explore/session.h"
#include "explore/tree_table.h"
#include "graph/group_report.h"
#include "graph/heap_graph.h"
#include "scene/estimates.h"
#include "synth/synth.h"
#include "unit/loaded_heap.h"
#include "unit/sampled_trace.h"

namespace memcity::explore {
namespace {

using ::memcity::testing::kSampledShopGcs;
using ::memcity::testing::kSampledShopInterval;
using ::memcity::testing::kSampledShopLeak;

const std::string kApprox = "\u2248";

const std::string& shop() {
    static const std::string path =
        ::memcity::testing::writeSampledShop(::memcity::testing::tempPath("explore-sampled-shop"));
    return path;
}

std::unique_ptr<Session> opened(const std::string& spec) {
    SessionOptions o;
    auto chain = chainConfigOf(spec);
    EXPECT_TRUE(chain.ok());
    if (chain) o.chain = *chain;
    auto s = std::make_unique<Session>(o);
    s->open(shop());
    s->waitSettled();
    EXPECT_TRUE(s->loaded()) << s->load().error;
    EXPECT_NE(s->series(), nullptr);
    EXPECT_EQ(s->seriesError(), "");
    return s;
}

TEST(Sampled, TheSessionSaysItIsSampledAndItsSeriesHoldsEstimates) {
    auto s = opened("type");
    EXPECT_TRUE(s->sampled());
    EXPECT_EQ(s->samplingInterval(), kSampledShopInterval);
    ASSERT_TRUE(s->series()->sampled());
    EXPECT_EQ(s->series()->gcCount(), kSampledShopGcs);
    // The GCs' records are estimates too, with the samples behind them: 20 int[], 3 + 2 a GC that
    // stay, 11 a GC that die at the next.
    const GcRecord& last = s->gcs().back();
    EXPECT_EQ(last.live_sampled.samples, 20u + 5u * kSampledShopGcs + 11u);
    EXPECT_EQ(last.live_bytes, last.live_sampled.roundedBytes());
    EXPECT_GT(last.live_objects, last.live_sampled.samples);  // each stands for many
    // An exact trace is not sampled.
    Session exact;
    EXPECT_FALSE(exact.sampled());
    EXPECT_EQ(exact.sizesUnavailable(), "");
}

TEST(Sampled, AHoveredGroupCarriesItsSumsAndInterval) {
    auto s = opened("type");
    const uint32_t leak = s->series()->find({kSampledShopLeak});
    ASSERT_NE(leak, kNoNode);
    ASSERT_TRUE(s->goToGc(5).ok());
    const ItemInfo info = s->describe(leak);
    ASSERT_TRUE(info.sampled.has_value());
    EXPECT_EQ(info.sampled->samples, 18u);  // three a GC, GCs 0..5
    // The values shown are the estimates the sums make.
    EXPECT_NEAR(info.objects, info.sampled->objects, 1.0);
    EXPECT_NEAR(info.bytes, info.sampled->bytes, 1.0);
    const Estimate e = info.sampled->bytesEstimate();
    EXPECT_FALSE(e.exact);
    EXPECT_LT(e.low, e.value);
    EXPECT_GT(e.high, e.value);
    EXPECT_EQ(scene::estimateText(*info.sampled, Metric::kBytes).rfind(kApprox + " ", 0), 0u);
    // Between two GCs: tweened, as the value is.
    s->cursor().seek(5.5);
    const ItemInfo mid = s->describe(leak);
    ASSERT_TRUE(mid.sampled.has_value());
    EXPECT_EQ(mid.sampled->samples, 20u);  // 19.5, rounded
    EXPECT_NEAR(mid.bytes, mid.sampled->bytes, 1.0);
}

TEST(Sampled, TheTableShowsEstimatesWithIntervalsAndNoRetainedSizes) {
    auto s = opened("site,type");
    ASSERT_TRUE(s->goToGc(kSampledShopGcs - 1).ok());
    TreeTable table(*s->series());
    table.setExpanded(s->series()->find({"com.shop.Audit.record(Audit.java:17)"}), true);
    table.update(s->cursor().gcTime(), [&s](uint32_t id) -> std::optional<NodeSizes> {
        const auto sizes = s->sizesOf(id);
        if (!sizes) return std::nullopt;
        return NodeSizes{sizes->deep.bytes, sizes->retained.bytes, 0};
    });
    // Deep and retained sizes are never asked for: the reason is there to show instead.
    EXPECT_EQ(s->sizesUnavailable(), scene::kNoSnapshotsReason);
    s->requestSizes(table.missingSizes());
    s->waitSettled();
    const std::vector<TableRow>& rows = table.rows();
    ASSERT_GE(rows.size(), 3u);
    for (const TableRow& row : rows) {
        ASSERT_TRUE(row.sampled.has_value()) << row.label;
        EXPECT_FALSE(row.sizes.has_value()) << row.label;
        EXPECT_FALSE(s->sizesOf(row.id).has_value()) << row.label;
        EXPECT_NEAR(row.bytes, row.sampled->bytes, 1.0) << row.label;
    }
    EXPECT_EQ(rows[0].label, "Overall");
    EXPECT_EQ(rows[0].sampled->samples, s->gcs().back().live_sampled.samples);
    const auto leak =
        std::find_if(rows.begin(), rows.end(), [](const TableRow& r) { return r.label == kSampledShopLeak; });
    ASSERT_NE(leak, rows.end());
    EXPECT_EQ(leak->sampled->samples, 3u * kSampledShopGcs);
    // Sorted by samples, most first; the Samples column is titled.
    EXPECT_EQ(columnTitle(TableColumn::kSamples), "Samples");
    table.sortBy(TableColumn::kSamples, true);
    table.update(s->cursor().gcTime());
    for (size_t i = 2; i < table.rows().size(); ++i) {
        if (table.rows()[i].depth == table.rows()[i - 1].depth && !table.rows()[i].other) {
            EXPECT_GE(table.rows()[i - 1].sampled->samples, table.rows()[i].sampled->samples);
        }
    }

    // The copies carry the intervals and the samples beside the estimates.
    const std::string csv = tableCsv(rows);
    EXPECT_EQ(csv.substr(0, csv.find("\r\n")),
              "path,name,depth,objects,objects_pct,bytes,bytes_pct,deep_bytes,retained_bytes,objects_growth,"
              "bytes_growth,objects_low,objects_high,bytes_low,bytes_high,samples");
    const Estimate o = leak->sampled->objectsEstimate(), b = leak->sampled->bytesEstimate();
    auto whole = [](double v) { return std::to_string(static_cast<uint64_t>(std::llround(v))); };
    const std::string tail = "," + whole(o.low) + "," + whole(o.high) + "," + whole(b.low) + "," +
                             whole(b.high) + "," + std::to_string(3 * kSampledShopGcs) + "\r\n";
    EXPECT_NE(csv.find(tail), std::string::npos) << csv;
    const std::string json = tableJson(rows);
    EXPECT_NE(json.find("\"retained_bytes\": null"), std::string::npos);
    EXPECT_NE(json.find(", \"bytes_low\": " + whole(b.low) + ", \"bytes_high\": " + whole(b.high) +
                        ", \"samples\": " + std::to_string(3 * kSampledShopGcs) + "}"),
              std::string::npos)
        << json;
    // An exact row has no such columns.
    TableRow plain;
    plain.label = "Overall";
    EXPECT_EQ(tableCsv({&plain, 1}).find("samples"), std::string::npos);
}

TEST(Sampled, TheInspectorEstimatesTheGroupAndSaysWhyItHasNoRoots) {
    auto s = opened("type");
    ASSERT_TRUE(s->goToGc(kSampledShopGcs - 1).ok());
    ASSERT_TRUE(s->selectPath(kSampledShopLeak).ok());
    s->waitSettled();
    ASSERT_TRUE(s->inspection().has_value()) << s->inspectionError();
    const Inspection& in = *s->inspection();
    ASSERT_TRUE(in.objects_sampled.has_value());
    ASSERT_TRUE(in.heap_sampled.has_value());
    EXPECT_EQ(in.objects_sampled->samples, 3u * kSampledShopGcs);
    EXPECT_EQ(in.heap_sampled->samples, s->gcs().back().live_sampled.samples);
    // The figures are the estimates, not the samples counted.
    const uint32_t leak = s->series()->find({kSampledShopLeak});
    EXPECT_EQ(in.objects.objects, s->series()->value(leak, kSampledShopGcs - 1, Metric::kObjects));
    EXPECT_EQ(in.objects.bytes, in.objects_sampled->roundedBytes());
    EXPECT_GT(in.objects.objects, in.objects_sampled->samples);
    EXPECT_EQ(in.heap.bytes, s->gcs().back().live_bytes);
    EXPECT_FALSE(in.closure.has_value());
    EXPECT_FALSE(in.snapshot_gc.has_value());
    const std::string text = formatInspection(in);
    EXPECT_NE(text.find("GC 11: " + scene::estimateText(*in.objects_sampled, Metric::kObjects) + ", " +
                        scene::estimateText(*in.objects_sampled, Metric::kBytes) + " from 36 samples, of " +
                        kApprox),
              std::string::npos)
        << text;
    EXPECT_NE(
        text.find("note: deep and retained sizes, GC roots and the paths to them: this sampled recording "
                  "has no reference snapshot\n"),
        std::string::npos)
        << text;
    EXPECT_EQ(text.find("retained: "), std::string::npos) << text;
    // Born / died / permanent since the series' first GC: estimates, marked.
    EXPECT_NE(text.find("since GC 0: born " + kApprox + " "), std::string::npos) << text;
}

TEST(Sampled, ClassifiersThatReadReferencesAreRefusedWithTheReason) {
    auto s = opened("type");
    ChainConfig config = s->chain();
    config.classifiers = {"type", "rooted"};
    const ChainCheck check = checkChain(config, s->referencesUnavailable());
    EXPECT_FALSE(check.ok());
    EXPECT_EQ(check.classifier_errors[0], "");
    EXPECT_EQ(check.classifier_errors[1],
              "reads references: this sampled recording has no reference snapshot");
    Status st = s->applyChain(config);
    ASSERT_FALSE(st.ok());
    EXPECT_EQ(st.error().message,
              "classifier 2: reads references: this sampled recording has no reference snapshot");
    EXPECT_EQ(s->chain().spec(), "type");  // unchanged
    // Without a reason, the same chain checks out (an exact trace's snapshots may hold them).
    EXPECT_TRUE(checkChain(config).ok());
    // Opened with such a chain, the session says why it shows nothing.
    SessionOptions o;
    o.chain = config;
    Session opened_with(o);
    opened_with.open(shop());
    opened_with.waitSettled();
    EXPECT_TRUE(opened_with.loaded());
    EXPECT_EQ(opened_with.seriesError(),
              "'type,rooted' reads references: this sampled recording has no reference snapshot");
}

TEST(Sampled, TheHeapMapDrawsTheSpacesAndGreysOutItsObjectStreams) {
    using scene::HeapStream;
    EXPECT_EQ(HeapMapModel::streamUnavailable(HeapStream::kUsed, true), "");
    for (HeapStream stream :
         {HeapStream::kObjects, HeapStream::kAge, HeapStream::kSelected, HeapStream::kDying}) {
        EXPECT_EQ(HeapMapModel::streamUnavailable(stream, true), scene::kNoAddressesReason);
        EXPECT_EQ(HeapMapModel::streamUnavailable(stream, false), "");
    }
    auto s = opened("type");
    s->setView(scene::ViewKind::kHeapMap);
    s->heapMap().setStream(HeapStream::kObjects);  // as a settings file may have left it
    render::DrawList list;
    const scene::PixelRect rect{{0.0f, 0.0f}, {1000.0f, 700.0f}};
    s->compose(rect, {1000.0f, 700.0f}, list);
    s->waitSettled();
    s->compose(rect, {1000.0f, 700.0f}, list);
    EXPECT_EQ(s->heapMap().error(), "");
    const HeapMap* map = s->heapMap().shown();
    ASSERT_NE(map, nullptr);
    EXPECT_FALSE(map->addresses);
    ASSERT_EQ(map->spaces.size(), 2u);
    EXPECT_EQ(map->spaces[1].name, "Tenured Gen");
    // The title (a heap map drawn with one) says why there are only the spaces' tops.
    const bool said = std::any_of(list.labels.begin(), list.labels.end(), [](const render::Label& l) {
        return l.text.find("the spaces' tops only: a sampled recording has no object addresses") !=
               std::string::npos;
    });
    EXPECT_TRUE(said);
    // A tile's objects are not known: a click says so and selects nothing.
    const auto tile = s->heapTileAt({500.0f, 100.0f});
    ASSERT_TRUE(tile.has_value());
    s->selectTile(*tile);
    s->waitSettled();
    EXPECT_EQ(s->takeNotice(), "a sampled recording has no object addresses: a tile's objects are not known");
    EXPECT_TRUE(s->selection().empty());
}

// --- a sampled recording with reference snapshots ---------------------------------------------
// synth's growing-map sampled at 16 KiB, with a snapshot at every 10th GC (and the explicit one),
// and the same run recorded whole: at a snapshot GC the sampled heap is made whole, so what a
// group's sampled objects reference and retain is exact, and the exact twin says what it is.

struct SnapshotTwins {
    std::string sampled, exact;
};

const SnapshotTwins& snapshotTwins() {
    static const SnapshotTwins t = [] {
        SnapshotTwins out{::memcity::testing::tempPath("explore-sampled-refs"),
                          ::memcity::testing::tempPath("explore-exact-refs")};
        synth::SynthOptions o;
        o.scale = 2;
        o.refs_every = 10;
        EXPECT_TRUE(synth::synthesize("growing-map", out.exact, o).ok());
        o.writer.sampling_interval = 16 << 10;
        EXPECT_TRUE(synth::synthesize("growing-map", out.sampled, o).ok());
        return out;
    }();
    return t;
}

const std::string kLocation = "com.dynatrace.easytravel.jpa.business.Location";

std::unique_ptr<Session> openedWithSnapshots() {
    SessionOptions o;
    auto chain = chainConfigOf("type");
    EXPECT_TRUE(chain.ok());
    if (chain) o.chain = *chain;
    auto s = std::make_unique<Session>(o);
    s->open(snapshotTwins().sampled);
    s->waitSettled();
    EXPECT_TRUE(s->loaded()) << s->load().error;
    EXPECT_EQ(s->seriesError(), "");
    return s;
}

std::vector<uint32_t> snapshotGcsOf(const Session& s) {
    std::vector<uint32_t> out;
    for (const GcRecord& g : s.gcs())
        if (g.has_snapshot) out.push_back(g.index);
    return out;
}

// The closure of the objects of `ids` in the exact twin's heap of `gc`, and that heap's size.
GroupReport exactReportOf(const std::vector<uint64_t>& ids, uint32_t gc) {
    ::memcity::testing::LoadedHistory exact(snapshotTwins().exact);
    EXPECT_TRUE(exact.history);
    if (!exact.history) return {};
    auto heap = exact.history->heapAt(gc);
    EXPECT_TRUE(heap.ok());
    auto graph = loadGraph(*exact.history, *heap);
    EXPECT_TRUE(graph.ok());
    if (!heap || !graph) return {};
    Bitset group((*graph)->size());
    for (uint64_t id : ids) {
        const size_t pos = (*graph)->heap().find(id);
        EXPECT_LT(pos, (*graph)->size()) << "object " << id << " is not in the exact heap";
        if (pos < (*graph)->size()) group.set(pos);
    }
    auto report = buildGroupReport(**graph, group);
    EXPECT_TRUE(report.ok());
    return report ? std::move(*report) : GroupReport{};
}

// The ids of the samples of type `type` alive at `gc`.
std::vector<uint64_t> sampledIdsOf(const std::string& type, uint32_t gc) {
    ::memcity::testing::LoadedHistory sampled(snapshotTwins().sampled);
    std::vector<uint64_t> out;
    if (!sampled.history) return out;
    auto heap = sampled.history->heapAt(gc);
    EXPECT_TRUE(heap.ok());
    if (!heap) return out;
    const HeapView v = heap->view();
    v.forEachLive([&](size_t pos) {
        if (v.symbols().type(v.type(pos)).name == type) out.push_back(v.id(pos));
    });
    return out;
}

TEST(SampledSnapshots, TheInspectorReportsTheGroupsSampledObjectsExactlyAtASnapshot) {
    auto s = openedWithSnapshots();
    const std::vector<uint32_t> snaps = snapshotGcsOf(*s);
    ASSERT_GE(snaps.size(), 3u);
    const uint32_t gc = snaps[snaps.size() - 2];  // (the last is the explicit GC at the end)
    ASSERT_TRUE(s->goToGc(gc).ok());
    ASSERT_TRUE(s->selectPath(kLocation).ok());
    s->waitSettled();
    ASSERT_TRUE(s->inspection().has_value()) << s->inspectionError();
    const Inspection& in = *s->inspection();
    ASSERT_EQ(in.gc, gc);
    // The group's own figures stay estimates.
    ASSERT_TRUE(in.objects_sampled.has_value());
    EXPECT_GT(in.objects.objects, in.objects_sampled->samples);
    // The reference section: the group's sampled objects, exact for them.
    ASSERT_TRUE(in.closure.has_value());
    ASSERT_EQ(in.snapshot_gc, gc);
    ASSERT_TRUE(in.closure_samples.has_value());
    EXPECT_EQ(*in.closure_samples, in.objects_sampled->samples);
    EXPECT_EQ(in.closure->shallow.objects, *in.closure_samples);
    EXPECT_GT(in.closure->deep.objects, in.closure->shallow.objects);  // each a name String and a Date
    // ... and the exact twin's closure of the same objects is the same.
    const std::vector<uint64_t> ids = sampledIdsOf(kLocation, gc);
    ASSERT_EQ(ids.size(), *in.closure_samples);
    const GroupReport exact = exactReportOf(ids, gc);
    EXPECT_EQ(in.closure->shallow, exact.closure.shallow);
    EXPECT_EQ(in.closure->deep, exact.closure.deep);
    EXPECT_EQ(in.closure->retained, exact.closure.retained);
    EXPECT_EQ(in.closure_heap, exact.heap);  // the whole heap, not the samples'
    EXPECT_EQ(in.closure_heap.objects, s->gcs()[gc].live_objects == 0 ? 0 : exact.heap.objects);
    EXPECT_GT(in.closure_heap.objects, in.heap_sampled->samples);
    ASSERT_FALSE(in.paths.empty());
    EXPECT_NE(in.paths.front().text.find("JourneyService"), std::string::npos) << in.paths.front().text;
    EXPECT_FALSE(in.closest_roots.empty());
    // Labelled as such, and never as the group's retained size.
    const std::string note = scene::sampledClosureNote(*in.closure_samples, gc);
    EXPECT_NE(std::find(in.notes.begin(), in.notes.end(), note), in.notes.end());
    EXPECT_NE(note.find("the group's retained size is not estimated"), std::string::npos);
    const std::string text = formatInspection(in);
    EXPECT_NE(text.find("its " + std::to_string(*in.closure_samples) +
                        " sampled objects (exact for them): shallow " +
                        std::to_string(in.closure->shallow.objects) + " objects, "),
              std::string::npos)
        << text;
    EXPECT_EQ(text.find("\nretained: "), std::string::npos) << text;
}

TEST(SampledSnapshots, BetweenSnapshotsTheInspectorReadsTheNearestOne) {
    auto s = openedWithSnapshots();
    const std::vector<uint32_t> snaps = snapshotGcsOf(*s);
    ASSERT_GE(snaps.size(), 2u);
    const uint32_t gc = snaps[1] + 1;  // no snapshot there: the nearest before it is snaps[1]
    ASSERT_FALSE(s->gcs()[gc].has_snapshot);
    ASSERT_TRUE(s->goToGc(gc).ok());
    ASSERT_TRUE(s->selectPath(kLocation).ok());
    s->waitSettled();
    ASSERT_TRUE(s->inspection().has_value()) << s->inspectionError();
    const Inspection& in = *s->inspection();
    EXPECT_EQ(in.snapshot_gc, snaps[1]);
    ASSERT_TRUE(in.closure_samples.has_value());
    EXPECT_EQ(*in.closure_samples, sampledIdsOf(kLocation, snaps[1]).size());
    const std::string moved = "GC " + std::to_string(gc) +
                              " has no reference snapshot: roots and retained sizes are those of GC " +
                              std::to_string(snaps[1]);
    EXPECT_NE(std::find(in.notes.begin(), in.notes.end(), moved), in.notes.end());
}

TEST(SampledSnapshots, TimelineClassifiersAndTableSizesStayUnavailableWithThePreciseReason) {
    auto s = openedWithSnapshots();
    const std::vector<uint32_t> snaps = snapshotGcsOf(*s);
    ASSERT_FALSE(snaps.empty());
    const std::string at = scene::snapshotGcsText(s->gcs());
    EXPECT_EQ(at.rfind("GCs 0, 10, 20, ", 0), 0u) << at;
    const std::string refs = s->referencesUnavailable();
    EXPECT_EQ(refs.rfind("references exist at " + at + " only: ", 0), 0u) << refs;
    EXPECT_NE(refs.find("'memcity report --gc " + std::to_string(snaps.back()) + "'"), std::string::npos)
        << refs;
    ChainConfig config = s->chain();
    config.classifiers = {"type", "roots"};
    Status st = s->applyChain(config);
    ASSERT_FALSE(st.ok());
    EXPECT_EQ(st.error().message, "classifier 2: reads references: " + refs);
    const std::string sizes = s->sizesUnavailable();
    EXPECT_EQ(sizes, "a group's deep and retained sizes are not estimated from samples; at " + at +
                         " the inspector shows what its sampled objects retain");
    // Nothing computes them either.
    auto h = s->history();
    ASSERT_NE(h, nullptr);
    auto chain = buildChain(s->chain());
    ASSERT_TRUE(chain.ok());
    auto none = groupSizes(*h, *chain, snaps.front(), {{kLocation}}, 1, CancelToken{});
    ASSERT_FALSE(none.ok());
    EXPECT_EQ(none.error().message, sizes);
}

TEST(SampledSnapshots, TheGcListIsShortenedAndANoSnapshotTraceKeepsItsReason) {
    std::vector<GcRecord> gcs(40);
    for (uint32_t i = 0; i < gcs.size(); ++i)
        gcs[i].index = i;
    EXPECT_EQ(scene::snapshotGcsText(gcs), "");
    EXPECT_EQ(scene::sampledReferencesReason(gcs), scene::kNoSnapshotsReason);
    EXPECT_EQ(scene::sampledSizesReason(gcs), scene::kNoSnapshotsReason);
    gcs[12].has_snapshot = true;
    EXPECT_EQ(scene::snapshotGcsText(gcs), "GC 12");
    gcs[30].has_snapshot = true;
    EXPECT_EQ(scene::snapshotGcsText(gcs), "GCs 12 and 30");
    EXPECT_EQ(scene::sampledReferencesReason(gcs),
              "references exist at GCs 12 and 30 only: the timeline's other GCs cannot be classified by them "
              "('memcity report --gc 30' classifies one)");
    gcs[2].has_snapshot = true;
    EXPECT_EQ(scene::snapshotGcsText(gcs), "GCs 2, 12 and 30");
    for (uint32_t g : {20u, 22u, 24u, 26u})
        gcs[g].has_snapshot = true;
    EXPECT_EQ(scene::snapshotGcsText(gcs), "GCs 2, 12, 20, \u2026 30 (7 in all)");
}

}  // namespace
}  // namespace memcity::explore
