// The heap dump importer on hand-made dumps with exact answers: HotSpot's field layout, the
// objects' sizes, ids, references, roots and threads in the trace, several dumps as one series,
// gzip, and bad input.
#include <gtest/gtest.h>
#include <zlib.h>

#include <filesystem>
#include <fstream>
#include <map>
#include <thread>

#include "cli/run_memcity.h"
#include "heap/heap_history.h"
#include "heap/snapshot.h"
#include "hprof/hotspot_layout.h"
#include "hprof/hprof_import.h"
#include "hprof/import_cache.h"
#include "trace/trace_reader.h"
#include "unit/hprof_builder.h"
#include "unit/trace_builder.h"

namespace memcity {
namespace {

using hprof::FieldLayout;
using hprof::FieldSpec;
using hprof::testing::Builder;
using hprof::testing::kObject, hprof::testing::kClass, hprof::testing::kItem, hprof::testing::kSub,
    hprof::testing::kThread, hprof::testing::kString, hprof::testing::kItemArray;
using hprof::testing::littleHeap;

uint64_t sizeOf(const FieldLayout& base, std::vector<FieldSpec> fields) {
    return base.extend(fields).instanceSize(8);
}

TEST(HotspotLayout, FieldsPackAsHotSpotPacksThem) {
    const FieldLayout object(12);  // compressed class pointers
    EXPECT_EQ(object.instanceSize(8), 16u);
    EXPECT_EQ(sizeOf(object, {{4, false}}), 16u);              // an int in the header's last 4 bytes
    EXPECT_EQ(sizeOf(object, {{8, false}}), 24u);              // a long at 16, 12..16 empty
    EXPECT_EQ(sizeOf(object, {{8, false}, {4, false}}), 24u);  // the int fills the hole
    EXPECT_EQ(sizeOf(object, {{8, false}, {4, true}}), 24u);   // so does a reference
    EXPECT_EQ(sizeOf(object, {{1, false}, {1, false}, {4, true}, {4, true}}), 24u);
    // A subclass's fields go into its superclass's holes.
    const FieldLayout one_long = object.extend(std::vector<FieldSpec>{{8, false}});
    EXPECT_EQ(sizeOf(one_long, {{4, false}}), 24u);
    EXPECT_EQ(sizeOf(one_long, {{4, false}, {4, false}}), 32u);
    // Largest first: the long at 16, the int in the hole before it, short and byte after: 27.
    EXPECT_EQ(sizeOf(object, {{1, false}, {2, false}, {4, false}, {8, false}}), 32u);
    // A short first (as declared) would leave a hole no one fills: 12 + 2, long at 16, int at 24.
    EXPECT_EQ(sizeOf(object, {{2, false}, {8, false}, {4, false}}), 32u);
    EXPECT_EQ(sizeOf(object, {{2, false}, {8, false}, {2, false}}), 24u);
}

TEST(HotspotLayout, ContendedFieldsArePaddedAndSealTheClass) {
    const FieldLayout object(12);
    // A reference at 12; the group after 128 bytes of padding (long at 144, int at 152), then
    // 128 more: the end is 284, 288 aligned.
    const FieldLayout thread =
        object.extend(std::vector<FieldSpec>{{4, true}, {8, false, true}, {4, false, true}});
    EXPECT_EQ(thread.end(), 284u);
    EXPECT_EQ(thread.instanceSize(8), 288u);
    EXPECT_TRUE(thread.sealed());
    // A subclass's fields only go after it: its boolean at 284.
    EXPECT_EQ(sizeOf(thread, {{1, false}}), 288u);
    EXPECT_EQ(sizeOf(thread, {{8, false}}), 296u);
}

TEST(HotspotLayout, MirrorsHoldStaticsAfterTheirOwnFields) {
    // References side by side from the start, then primitives largest first, each after the last.
    EXPECT_EQ(FieldLayout::staticsEnd(96, std::vector<FieldSpec>{}), 96u);
    EXPECT_EQ(
        FieldLayout::staticsEnd(96, std::vector<FieldSpec>{{4, true}, {8, false}, {4, false}, {1, false}}),
        117u);
    EXPECT_EQ(FieldLayout::staticsEnd(96, std::vector<FieldSpec>{{4, true}, {4, false}}), 104u);
}

TEST(HotspotLayout, ArraysPerObjectModel) {
    const hprof::ObjectModel compressed = hprof::objectModels()[0], wide = hprof::objectModels()[1];
    EXPECT_EQ(compressed.arraySize(0, 4), 16u);
    EXPECT_EQ(compressed.arraySize(3, 4), 32u);
    EXPECT_EQ(compressed.arraySize(2, compressed.oop), 24u);
    EXPECT_EQ(compressed.arraySize(1, 8), 24u);
    EXPECT_EQ(compressed.arraySize(5, 1), 24u);
    EXPECT_EQ(wide.arraySize(2, wide.oop), 32u);
}

struct Imported {
    std::unique_ptr<TraceFile> file;
    std::unique_ptr<HeapHistory> history;
};

Imported openTrace(const std::string& path) {
    Imported out;
    auto f = TraceFile::open(path);
    EXPECT_TRUE(f.ok()) << (f.ok() ? "" : f.error().message);
    if (!f.ok()) return out;
    out.file = std::make_unique<TraceFile>(std::move(*f));
    auto h = HeapHistory::build(*out.file);
    EXPECT_TRUE(h.ok()) << (h.ok() ? "" : h.error().message);
    if (h.ok()) out.history = std::make_unique<HeapHistory>(std::move(*h));
    return out;
}

// Per object at a GC: its id, type name and size.
std::map<uint64_t, std::pair<std::string, uint64_t>> objectsAt(const HeapHistory& h, uint32_t gc) {
    std::map<uint64_t, std::pair<std::string, uint64_t>> out;
    auto heap = h.heapAt(gc);
    EXPECT_TRUE(heap.ok());
    if (!heap.ok()) return out;
    HeapView v = heap->view();
    v.forEachLive([&](size_t p) { out[v.id(p)] = {v.symbols().type(v.type(p)).name, v.size(p)}; });
    return out;
}

TEST(HprofImport, ALittleHeapBecomesATraceExactly) {
    const std::string path = testing::tempPath("import-little") + ".mct";
    auto importer = hprof::Importer::create(path, "test");
    ASSERT_TRUE(importer.ok()) << importer.error().message;
    const std::vector<uint8_t> dump = littleHeap();
    auto stats = (*importer)->add("little.hprof", dump);
    ASSERT_TRUE(stats.ok()) << stats.error().message;
    ASSERT_TRUE((*importer)->close().ok());
    EXPECT_EQ(stats->model, hprof::objectModels()[0]);
    EXPECT_EQ(stats->unlisted_mirrors, 1u);
    EXPECT_EQ(stats->instances, 6u);
    EXPECT_EQ(stats->arrays, 3u);
    EXPECT_EQ(stats->mirrors, 8u);  // 7 listed, 1 not
    EXPECT_EQ(stats->threads, 1u);
    EXPECT_EQ(stats->dropped_edges, 0u);
    EXPECT_TRUE(stats->corrections.empty());

    Imported t = openTrace(path);
    ASSERT_TRUE(t.history);
    ASSERT_EQ(t.history->gcCount(), 1u);
    EXPECT_EQ(t.history->diagnostics().errorCount(), 0u);
    // Ids: one per 8 bytes of address from the lowest object, from 1.
    auto idOf = [](uint64_t address) { return 1 + (address - 0x1000) / 8; };
    auto objects = objectsAt(*t.history, 0);
    const std::map<uint64_t, std::pair<std::string, uint64_t>> expected_heap = {
        {idOf(0x1000), {"Item", 32}},
        {idOf(0x1020), {"Sub", 32}},
        {idOf(0x1040), {"Item[]", 24}},
        {idOf(0x1058), {"int[]", 32}},
        {idOf(0x1078), {"java.lang.Thread", 24}},
        {idOf(0x1090), {"java.lang.String", 24}},
        {idOf(0x10a8), {"byte[]", 24}},
        {idOf(0x10c0), {"Item", 32}},
        {idOf(0x10e0), {"java.lang.Class", 112}},  // the unlisted mirror: its gap
        {idOf(0x1150), {"Item", 32}},
        {idOf(kObject), {"java.lang.Class", 16}},
        {idOf(kClass), {"java.lang.Class", 16}},
        {idOf(kItem), {"java.lang.Class", 24}},  // statics: INSTANCE at 16, count at 20
        {idOf(kSub), {"java.lang.Class", 16}},
        {idOf(kThread), {"java.lang.Class", 16}},
        {idOf(kString), {"java.lang.Class", 16}},
        {idOf(kItemArray), {"java.lang.Class", 16}},
    };
    EXPECT_EQ(objects, expected_heap);
    const std::string* addresses = t.file->metaValue("dump 0 addresses");
    ASSERT_NE(addresses, nullptr);
    EXPECT_EQ(*addresses, "first id 1 at 0x1000, 8 bytes per id");
    const SymbolTable& sym = t.file->symbols();
    EXPECT_TRUE(sym.hasThread(1));
    EXPECT_FALSE(sym.hasThread(2));
    EXPECT_EQ(sym.thread(1).name, "main");
    EXPECT_EQ(sym.string(t.history->gcs()[0].cause), "Heap Dump");
    EXPECT_EQ(t.history->gcs()[0].kind, static_cast<uint8_t>(format::GcKind::kMajor));

    // The references and roots.
    auto heap = t.history->heapAt(0);
    ASSERT_TRUE(heap.ok());
    HeapView v = heap->view();
    ASSERT_EQ(t.history->snapshots().size(), 1u);
    SnapshotLoadOptions lo;
    lo.watermark = t.history->watermarks()[0];
    auto snap = loadSnapshot(*t.file, t.history->snapshots()[0], v.store(), lo);
    ASSERT_TRUE(snap.ok()) << snap.error().message;
    auto pos = [&](uint64_t address) { return v.find(idOf(address)); };
    std::vector<std::pair<uint64_t, uint64_t>> edges;
    v.forEachLive([&](size_t p) {
        snap->graph.forEachTarget(p, [&](size_t q) { edges.emplace_back(v.id(p), v.id(q)); });
    });
    std::sort(edges.begin(), edges.end());
    const std::vector<std::pair<uint64_t, uint64_t>> expected_edges = {
        {idOf(0x1000), idOf(0x1020)}, {idOf(0x1040), idOf(0x1000)}, {idOf(0x1040), idOf(0x1020)},
        {idOf(0x1078), idOf(0x1090)}, {idOf(0x1090), idOf(0x10a8)}, {idOf(0x10c0), idOf(0x10e0)},
    };
    EXPECT_EQ(edges, expected_edges);
    std::map<uint32_t, std::vector<uint64_t>> roots;  // kind -> objects
    for (const RootRef& r : snap->roots)
        roots[r.kind].push_back(v.id(r.position));
    using K = format::RootKind;
    EXPECT_EQ(roots[static_cast<uint32_t>(K::kSystemClass)], std::vector<uint64_t>{idOf(kItem)});
    EXPECT_EQ(roots[static_cast<uint32_t>(K::kThread)], std::vector<uint64_t>{idOf(0x1078)});
    EXPECT_EQ(roots[static_cast<uint32_t>(K::kStackLocal)], std::vector<uint64_t>{idOf(0x1000)});
    EXPECT_EQ(roots[static_cast<uint32_t>(K::kJniGlobal)], std::vector<uint64_t>{idOf(0x1040)});
    EXPECT_EQ(roots[static_cast<uint32_t>(K::kStaticField)], std::vector<uint64_t>{idOf(0x1150)});
    for (const RootRef& r : snap->roots) {
        if (r.kind == static_cast<uint32_t>(K::kStackLocal)) {
            ASSERT_EQ(r.detail_count, 4u);
            EXPECT_EQ(r.details[0], 1u);  // thread "main"
            const auto& m = sym.method(static_cast<uint32_t>(r.details[1]));
            EXPECT_EQ(m.class_name, "Item");
            EXPECT_EQ(m.name, "run");
        }
        if (r.kind == static_cast<uint32_t>(K::kStaticField)) {
            ASSERT_EQ(r.detail_count, 2u);
            EXPECT_EQ(sym.type(static_cast<uint32_t>(r.details[0])).name, "Item");
            EXPECT_EQ(sym.field(static_cast<uint32_t>(r.details[1])).name, "INSTANCE");
        }
    }
    EXPECT_NE(pos(0x1000), v.positions());
}

TEST(HprofImport, SeveralDumpsAreOneGcEachAndTheLastDumpsObjectsDie) {
    const std::string path = testing::tempPath("import-series") + ".mct";
    auto importer = hprof::Importer::create(path, "test");
    ASSERT_TRUE(importer.ok());
    for (uint64_t k = 0; k < 3; ++k) {
        auto stats =
            (*importer)->add("dump" + std::to_string(k), littleHeap(1'700'000'000'000ull + 1500 * k));
        ASSERT_TRUE(stats.ok()) << stats.error().message;
        EXPECT_EQ(stats->gc, k);
    }
    ASSERT_TRUE((*importer)->close().ok());
    Imported t = openTrace(path);
    ASSERT_TRUE(t.history);
    ASSERT_EQ(t.history->gcCount(), 3u);
    EXPECT_EQ(t.history->diagnostics().errorCount(), 0u);
    for (uint32_t gc = 0; gc < 3; ++gc) {
        const GcRecord& g = t.history->gcs()[gc];
        EXPECT_EQ(g.end_ns, 1'500'000'000 * int64_t{gc});
        EXPECT_EQ(g.live_objects, 17u) << "GC " << gc;  // each dump's own, none of the one before
        EXPECT_EQ(g.live_bytes, 488u) << "GC " << gc;
    }
    // One type per class across the dumps: 7 classes, int[] and byte[] (and [0], unused).
    EXPECT_EQ(t.file->symbols().types().size(), 1u + 9u);
}

std::vector<uint8_t> gzipped(std::span<const uint8_t> in) {
    std::vector<uint8_t> out(compressBound(static_cast<uLong>(in.size())) + 64);
    z_stream z{};
    EXPECT_EQ(deflateInit2(&z, 6, Z_DEFLATED, 16 + MAX_WBITS, 8, Z_DEFAULT_STRATEGY), Z_OK);
    z.next_in = const_cast<uint8_t*>(in.data());
    z.avail_in = static_cast<uInt>(in.size());
    z.next_out = out.data();
    z.avail_out = static_cast<uInt>(out.size());
    EXPECT_EQ(deflate(&z, Z_FINISH), Z_STREAM_END);
    out.resize(z.total_out);
    deflateEnd(&z);
    return out;
}

TEST(HprofImport, GzipDumpsInManyMembersReadWhole) {
    const std::vector<uint8_t> dump = littleHeap();
    // jcmd -gz writes one gzip member per block: two members here.
    std::vector<uint8_t> gz = gzipped(std::span(dump).first(dump.size() / 2));
    const std::vector<uint8_t> second = gzipped(std::span(dump).subspan(dump.size() / 2));
    gz.insert(gz.end(), second.begin(), second.end());
    const std::string file = testing::tempPath("little") + ".hprof.gz";
    testing::writeFile(file, gz);
    EXPECT_TRUE(hprof::looksLikeDump(gz));
    EXPECT_TRUE(hprof::isHeapDump(file));
    // Gzip that holds something else (a pprof profile, say) is not a dump.
    const std::string other = testing::tempPath("not-a-dump") + ".pb.gz";
    const std::string text = "not a heap dump at all";
    testing::writeFile(other, gzipped(std::span(reinterpret_cast<const uint8_t*>(text.data()), text.size())));
    EXPECT_FALSE(hprof::isHeapDump(other));
    bool was_gzip = false;
    auto read = hprof::readDumpFile(file, &was_gzip);
    ASSERT_TRUE(read.ok()) << read.error().message;
    EXPECT_TRUE(was_gzip);
    EXPECT_EQ(*read, dump);
    // Cut off inside the second member: one line naming the file and the offset.
    testing::writeFile(file, std::vector<uint8_t>(gz.begin(), gz.end() - 10));
    auto cut = hprof::readDumpFile(file);
    ASSERT_FALSE(cut.ok());
    EXPECT_NE(cut.error().message.find(file), std::string::npos);
    EXPECT_NE(cut.error().message.find("cut off at offset"), std::string::npos) << cut.error().message;
    EXPECT_EQ(cut.error().message.find('\n'), std::string::npos);
}

TEST(HprofImport, BadDumpsAreOneLineNamingTheFileAndOffset) {
    const std::string out = testing::tempPath("import-bad") + ".mct";
    auto importer = hprof::Importer::create(out, "test");
    ASSERT_TRUE(importer.ok());
    auto missing = (*importer)->add("/nonexistent/dump.hprof");
    ASSERT_FALSE(missing.ok());
    EXPECT_NE(missing.error().message.find("/nonexistent/dump.hprof"), std::string::npos);
    const std::vector<uint8_t> text{'h', 'e', 'l', 'l', 'o'};
    auto not_dump = (*importer)->add("hello.txt", text);
    ASSERT_FALSE(not_dump.ok());
    EXPECT_EQ(not_dump.error().message.rfind("hello.txt: ", 0), 0u) << not_dump.error().message;
    // Cut inside a heap dump record: the reader's error, with its offset.
    std::vector<uint8_t> dump = littleHeap();
    dump.resize(dump.size() - 40);
    auto cut = (*importer)->add("cut.hprof", dump);
    ASSERT_FALSE(cut.ok());
    EXPECT_NE(cut.error().message.find("cut.hprof: offset "), std::string::npos) << cut.error().message;
    // Nothing imported: closing says so.
    EXPECT_FALSE((*importer)->close().ok());
    EXPECT_FALSE(hprof::Importer::create("/nonexistent/dir/out.mct", "test").ok());
}

// A window follows the trace an import writes: the trace is being written from the first
// progress call on, and a reader has the dump's whole heap (GC_COMPLETE) before its references
// are written. A progress call that says no cancels the import.
TEST(HprofImport, ItsHeapIsCompleteInTheTraceBeforeItsReferencesAndItCanBeCancelled) {
    const std::string path = testing::tempPath("import-steps") + ".mct";
    auto importer = hprof::Importer::create(path, "test");
    ASSERT_TRUE(importer.ok()) << importer.error().message;
    std::vector<hprof::ImportStep> steps;
    bool written_from_the_first_call = false;
    std::vector<uint64_t> live_before_references;  // GC 0's live objects, read then
    bool heap_before_the_end = false;              // ... before the end of what was written
    (*importer)->onProgress(Progress([&](const ProgressReport& report) {
        const auto step = static_cast<hprof::ImportStep>(report.stage);
        const double fraction = report.fraction;
        EXPECT_GE(fraction, 0.0);
        EXPECT_LE(fraction, 1.0);
        if (!steps.empty() && steps.back() == step) return true;
        steps.push_back(step);
        auto f = TraceFile::open(path);
        if (steps.size() == 1) written_from_the_first_call = f.ok() && f->beingWritten();
        if (step == hprof::ImportStep::kReferences && f.ok()) {
            HistoryOptions o;
            o.on_heap = [&](const HeapView& heap, const GcRecord& r) {
                EXPECT_EQ(heap.gc(), 0u);
                live_before_references.push_back(r.live_objects);
                return true;
            };
            // (Without the mark, the heap would be complete only at the end, after this.)
            o.more = [&] {
                heap_before_the_end = !live_before_references.empty();
                return false;
            };
            auto h = HeapHistory::build(*f, o);
            EXPECT_TRUE(h.ok()) << (h.ok() ? "" : h.error().message);
            if (h.ok()) {
                EXPECT_FALSE(h->gcs()[0].has_snapshot);
            }
        }
        return true;
    }));
    auto stats = (*importer)->add("little.hprof", littleHeap());
    ASSERT_TRUE(stats.ok()) << stats.error().message;
    ASSERT_TRUE((*importer)->close().ok());
    using S = hprof::ImportStep;
    EXPECT_EQ(steps, (std::vector<S>{S::kReading, S::kLayingOut, S::kObjects, S::kReferences}));
    EXPECT_TRUE(written_from_the_first_call);
    EXPECT_TRUE(heap_before_the_end);
    EXPECT_EQ(live_before_references, std::vector<uint64_t>{stats->objects});
    EXPECT_EQ(stats->objects, 17u);

    // Cancelled while it writes the objects: an error, and no dump in the trace.
    auto second = hprof::Importer::create(path, "test");
    ASSERT_TRUE(second.ok());
    (*second)->onProgress(Progress([](const ProgressReport& r) {
        return static_cast<hprof::ImportStep>(r.stage) != hprof::ImportStep::kObjects;
    }));
    auto cancelled = (*second)->add("little.hprof", littleHeap());
    ASSERT_FALSE(cancelled.ok());
    EXPECT_EQ(cancelled.error().message, "little.hprof: the import was cancelled");
    EXPECT_FALSE((*second)->close().ok());
}

// 2 x 70,000 int[1] in two heap dump segments, 24 bytes apart: read in two parts, each part
// has more objects than the reader counts between progress reports (65,536).
std::vector<uint8_t> twoSegmentsOfArrays() {
    Builder b(8);
    b.string(1, "java/lang/Object");
    b.loadClass(1, kObject, 1);
    b.classDump(kObject, 0, 0, {}, {}, {});
    b.heapDump();
    uint64_t at = 0x100000;
    for (int segment = 0; segment < 2; ++segment) {
        for (uint32_t i = 0; i < 70'000; ++i, at += 24)
            b.intArray(at, {i});
        b.heapDump();
    }
    b.heapDumpEnd();
    return b.bytes();
}

// A dump's heap records read on two threads (a big dump's way) make the same trace, byte for
// byte, as one pass; the progress goes on through both parts, and a cancel stops the read.
TEST(HprofImport, ADumpReadInTwoPartsIsTheSameTrace) {
    if (std::thread::hardware_concurrency() < 2) GTEST_SKIP() << "one core: a dump is read in one pass";
    const std::vector<uint8_t> dump = twoSegmentsOfArrays();
    auto importTo = [&](const std::string& path, uint64_t split_from,
                        std::function<bool(hprof::ImportStep, double)> progress) {
        auto importer = hprof::Importer::create(path, "test");
        EXPECT_TRUE(importer.ok());
        if (!importer.ok()) return Status{importer.error()};
        (*importer)->splitFrom(split_from);
        if (progress)
            (*importer)->onProgress(Progress([&](const ProgressReport& r) {
                return progress(static_cast<hprof::ImportStep>(r.stage), r.fraction);
            }));
        auto stats = (*importer)->add("arrays.hprof", dump);
        if (!stats) return Status{stats.error()};
        EXPECT_EQ(stats->arrays, 140'000u);
        return (*importer)->close();
    };
    const std::string whole = testing::tempPath("import-whole") + ".mct";
    const std::string split = testing::tempPath("import-split") + ".mct";
    ASSERT_TRUE(importTo(whole, uint64_t{1} << 40, {}).ok());
    std::vector<double> reading;
    auto status = importTo(split, 0, [&](hprof::ImportStep step, double fraction) {
        if (step == hprof::ImportStep::kReading) reading.push_back(fraction);
        return true;
    });
    ASSERT_TRUE(status.ok()) << status.error().message;
    const std::string a = testing::slurp(whole), b = testing::slurp(split);
    EXPECT_GT(a.size(), 500u);  // (alike objects compress well)
    EXPECT_TRUE(a == b) << a.size() << " vs " << b.size() << " bytes";
    // The header's 0, then the parts' reports: each part's first at its 65,536th object.
    ASSERT_GE(reading.size(), 2u);
    EXPECT_EQ(reading.front(), 0.0);
    EXPECT_GT(reading.back(), 0.4);
    for (double f : reading)
        EXPECT_LE(f, 1.0);
    // Cancelled while the objects are read: one line, as a cancel at any other step.
    auto cancelled = importTo(split, 0, [](hprof::ImportStep step, double fraction) {
        return step != hprof::ImportStep::kReading || fraction == 0;
    });
    ASSERT_FALSE(cancelled.ok());
    EXPECT_EQ(cancelled.error().message, "arrays.hprof: the import was cancelled");
}

TEST(HprofImport, APrimitiveArrayClassTheDumpListsIsOneType) {
    // "[I" listed (LOAD CLASS and CLASS DUMP, as some dumpers write it) and int[]s dumped: one type.
    Builder b(8);
    b.string(1, "java/lang/Object");
    b.string(2, "[I");
    b.loadClass(1, 0x9000, 1);
    b.loadClass(2, 0x9100, 2);
    b.classDump(0x9000, 0, 0, {}, {}, {});
    b.classDump(0x9100, 0x9000, 0, {}, {}, {});
    b.heapDump();
    b.intArray(0x1000, {1, 2, 3});
    b.intArray(0x1020, {4});
    b.heapDump();
    b.heapDumpEnd();
    const std::string path = testing::tempPath("import-int-class") + ".mct";
    auto importer = hprof::Importer::create(path, "test");
    ASSERT_TRUE(importer.ok());
    ASSERT_TRUE((*importer)->add("ints.hprof", b.bytes()).ok());
    ASSERT_TRUE((*importer)->close().ok());
    Imported t = openTrace(path);
    ASSERT_TRUE(t.history);
    size_t int_types = 0;
    for (const auto& type : t.file->symbols().types())
        int_types += type.name == "int[]";
    EXPECT_EQ(int_types, 1u);
    std::map<std::string, uint64_t> count;
    for (const auto& [id, object] : objectsAt(*t.history, 0))
        ++count[object.first];
    EXPECT_EQ(count["int[]"], 2u);
}

TEST(HprofImport, AnUncompressedOopsDumpIsSizedSo) {
    // Object arrays of 8-byte elements, dense: the model with 8-byte references wins.
    Builder b(8);
    b.string(1, "java/lang/Object");
    b.string(2, "[Ljava/lang/Object;");
    b.loadClass(1, 0x9000, 1);
    b.loadClass(2, 0x9100, 2);
    b.classDump(0x9000, 0, 0, {}, {}, {});
    b.classDump(0x9100, 0x9000, 0, {}, {}, {});
    b.heapDump();
    uint64_t at = 0x1000;
    for (uint64_t len : {3u, 1u, 4u, 1u, 5u}) {
        std::vector<uint64_t> elements(len, 0);
        b.objectArray(at, 0x9100, elements);
        at += 16 + 8 * len;
    }
    b.objectArray(at, 0x9100, {});
    b.heapDump();
    b.heapDumpEnd();
    const std::string path = testing::tempPath("import-wide") + ".mct";
    auto importer = hprof::Importer::create(path, "test");
    ASSERT_TRUE(importer.ok());
    auto stats = (*importer)->add("wide.hprof", b.bytes());
    ASSERT_TRUE(stats.ok()) << stats.error().message;
    ASSERT_TRUE((*importer)->close().ok());
    EXPECT_EQ(stats->model, hprof::objectModels()[1]);
    EXPECT_EQ(stats->bytes, (16u + 24) + (16 + 8) + (16 + 32) + (16 + 8) + (16 + 40) + 16 + 2 * 16);
}

// The cache of imported dumps stays bounded: imports not opened for the maximum age go, then the
// least recently opened until the rest fit; the one just made stays, and so does an import under
// way; a day-old ".part" goes.
TEST(HprofImportCache, OldAndLeastRecentlyOpenedImportsGo) {
    namespace fs = std::filesystem;
    const fs::path imports = testing::tempDir("imports");
    const auto now = fs::file_time_type::clock::now();
    auto entry = [&](const std::string& key, size_t bytes, std::chrono::hours age, const char* ext = ".mct") {
        fs::create_directories(imports / key);
        const fs::path file = imports / key / ("app.hprof" + std::string(ext));
        std::ofstream(file) << std::string(bytes, 'x');
        fs::last_write_time(file, now - age);
        return file;
    };
    entry("a", 1000, std::chrono::hours(1));               // newest
    entry("b", 1000, std::chrono::hours(2));               // older: over the limit with a and c
    entry("c", 1000, std::chrono::hours(0));               // the one just made (kept)
    entry("d", 10, std::chrono::hours(24 * 40));           // small but not opened for 40 days
    entry("e", 500, std::chrono::hours(1), ".mct.part");   // an import under way
    entry("f", 500, std::chrono::hours(30), ".mct.part");  // left over from a crash
    const hprof::PruneResult r =
        hprof::pruneImports(imports.string(), (imports / "c").string(), 2500, std::chrono::hours(24 * 30));
    EXPECT_EQ(r.removed, 2u);
    EXPECT_EQ(r.freed, 1000u + 10 + 500);
    EXPECT_TRUE(fs::exists(imports / "a" / "app.hprof.mct"));
    EXPECT_FALSE(fs::exists(imports / "b"));
    EXPECT_TRUE(fs::exists(imports / "c" / "app.hprof.mct"));
    EXPECT_FALSE(fs::exists(imports / "d"));
    EXPECT_TRUE(fs::exists(imports / "e" / "app.hprof.mct.part"));
    EXPECT_FALSE(fs::exists(imports / "f" / "app.hprof.mct.part"));
    // Within the limit nothing more goes; a missing directory is no error.
    EXPECT_EQ(
        hprof::pruneImports(imports.string(), (imports / "c").string(), 2500, std::chrono::hours(24 * 30))
            .removed,
        0u);
    EXPECT_EQ(hprof::pruneImports((imports / "none").string(), "", 0, std::chrono::hours(1)).removed, 0u);
    fs::remove_all(imports);
}

}  // namespace
}  // namespace memcity

namespace memcity {
namespace {

// memcity import writes its output whole or not at all, and never over the dump it reads.
TEST(HprofImportCli, TheOutputIsReplacedOnlyByAWholeImportAndNeverIsTheDump) {
    const std::string dir = testing::tempDir("import-out");
    const std::string dump = dir + "/little.hprof", out = dir + "/out.mct";
    const std::vector<uint8_t> heap = hprof::testing::littleHeap();
    testing::writeFile(dump, heap);

    // The dump as its own output (by the same path, or another name of it): refused, the dump intact.
    std::filesystem::create_symlink(dump, dir + "/alias.mct");
    for (const std::string& target : {dump, dir + "/alias.mct"}) {
        auto same = testing::runMemcity("import " + dump + " -o " + target);
        EXPECT_EQ(same.status, 1);
        EXPECT_EQ(same.err, "memcity import: the output " + target + " is the dump " + dump +
                                " itself: choose another -o\n");
        EXPECT_EQ(testing::readFile(dump), heap);
    }

    // A failed import (the second dump is not one) leaves an existing output as it was.
    const std::vector<uint8_t> before = {'k', 'e', 'e', 'p'};
    testing::writeFile(out, before);
    testing::writeFile(dir + "/bad.hprof", {'n', 'o', 't', ' ', 'a', ' ', 'd', 'u', 'm', 'p'});
    auto failed = testing::runMemcity("import " + dump + " " + dir + "/bad.hprof -o " + out);
    EXPECT_EQ(failed.status, 1);
    EXPECT_NE(failed.err.find(dir + "/bad.hprof"), std::string::npos) << failed.err;
    EXPECT_EQ(testing::readFile(out), before);

    // A whole one replaces it; no partial file stays in either case.
    auto ok = testing::runMemcity("import " + dump + " -o " + out);
    EXPECT_EQ(ok.status, 0) << ok.err;
    auto trace = TraceFile::open(out);
    ASSERT_TRUE(trace.ok()) << trace.error().message;
    EXPECT_TRUE(trace->hadFooterIndex());
    for (const auto& e : std::filesystem::directory_iterator(dir))
        EXPECT_NE(e.path().extension(), ".part") << e.path();
}

}  // namespace
}  // namespace memcity
