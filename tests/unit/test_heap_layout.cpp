// The heap's layout in a trace (trace/heap_layout.h): GC_SPACES and ADDRS encoded and read
// back, kept by the reconstruction, and drawn into a map of tiles (heap/heap_map.h), on a
// hand-made trace whose every tile is known.
#include <gtest/gtest.h>

#include <algorithm>
#include <random>

#include "classify/heap_map_at.h"
#include "heap/heap_history.h"
#include "heap/heap_map.h"
#include "trace/heap_layout.h"
#include "unit/trace_builder.h"

namespace memcity {
namespace {

using testing::TraceBuilder;

TEST(HeapLayoutFormat, SpacesReadBackAsWritten) {
    TraceBuilder b("layout-spaces");
    b.writer().defineSpace(1, "Eden Space", 0x1000, 0x100);
    b.writer().defineSpace(2, "Tenured Gen", 0x2000, 0x200);
    b.alloc(1).gc(0, 2);
    const std::string path = b.finish();
    auto trace = TraceFile::open(path);
    ASSERT_TRUE(trace) << trace.error().message;
    const GcSpacesEvent e{7,
                          {{1, SpaceKind::kEden, 0x1000, 0x1010, 0x1100, 0x10f0},
                           {2, SpaceKind::kOld, 0x2000, 0x2000, 0x2200, 0x2000}}};
    GcSpacesEvent got;
    const std::vector<uint8_t> bytes = encodeGcSpaces(e);
    const Status read = decodeGcSpaces(bytes, trace->symbols(), &got);
    ASSERT_TRUE(read) << read.error().message;
    EXPECT_EQ(got.gc, 7u);
    ASSERT_EQ(got.spaces.size(), 2u);
    EXPECT_EQ(got.spaces[0].kind, SpaceKind::kEden);
    EXPECT_EQ(got.spaces[0].used(), 0x10u);
    EXPECT_EQ(got.spaces[0].usedBefore(), 0xf0u);
    EXPECT_EQ(got.spaces[1].capacity(), 0x200u);
    EXPECT_EQ(trace->symbols().space(2).name, "Tenured Gen");

    // A space the trace does not define, a cut event, bytes after it.
    std::vector<uint8_t> bad = encodeGcSpaces({0, {{3, SpaceKind::kOld, 0, 0, 0, 0}}});
    Status s = decodeGcSpaces(bad, trace->symbols(), &got);
    ASSERT_FALSE(s);
    EXPECT_EQ(s.error().message, "space 3 is not defined");
    EXPECT_EQ(s.error().offset, 2u);  // the space's record, after the GC and the count
    EXPECT_TRUE(s.error().file.empty());
    bad = bytes;
    bad.pop_back();
    s = decodeGcSpaces(bad, trace->symbols(), &got);
    ASSERT_FALSE(s);
    EXPECT_LE(s.error().offset, bad.size());
    bad = bytes;
    bad.push_back(0);
    s = decodeGcSpaces(bad, trace->symbols(), &got);
    ASSERT_FALSE(s);
    EXPECT_EQ(s.error().message, "bytes after the last space");
    EXPECT_EQ(s.error().offset, bytes.size());
}

TEST(HeapLayoutFormat, AddressesReadBackAsWrittenEvenDescending) {
    const std::vector<ObjectAddress> objects = {
        {3, 0x7f0000001000}, {4, 0x7f0000000ff8}, {90, 0x10}, {91, 0x7f0000002000}};
    ByteWriter w;
    encodeAddresses(5, 3, objects, w);
    AddressChunk got;
    const Status read = decodeAddresses(w.bytes(), &got);
    ASSERT_TRUE(read) << read.error().message;
    EXPECT_EQ(got.gc, 5u);
    ASSERT_EQ(got.objects.size(), objects.size());
    for (size_t i = 0; i < objects.size(); ++i) {
        EXPECT_EQ(got.objects[i].id, objects[i].id);
        EXPECT_EQ(got.objects[i].address, objects[i].address);
    }
    // Ids that repeat; a cut payload.
    ByteWriter repeat;
    encodeAddresses(5, 3, std::vector<ObjectAddress>{{3, 8}, {3, 16}}, repeat);
    Status s = decodeAddresses(repeat.bytes(), &got);
    ASSERT_FALSE(s);
    EXPECT_EQ(s.error().message, "object ids are not ascending");
    EXPECT_EQ(s.error().offset, 5u);  // the second object: after GC, shift, count and the first
    std::vector<uint8_t> cut = w.bytes();
    cut.resize(cut.size() - 2);
    EXPECT_FALSE(decodeAddresses(cut, &got));
}

// Eden [0x1000, 0x1100) and an old space [0x2000, 0x2200); objects 1 A (16 B), 2 B (24), 3 A
// (dies at GC 0), 4 int[10] (56), 5 A, 6 B; 7 A after GC 0.
std::string layoutTrace() {
    WriterOptions o;
    o.chunk_bytes = 6;  // two objects an ADDRS chunk: GC 0's five take three
    TraceBuilder b("layout", o);
    b.writer().defineSpace(1, "Eden Space", 0x1000, 0x100);
    b.writer().defineSpace(2, "Tenured Gen", 0x2000, 0x200);
    b.alloc(1, 1).alloc(2, 2).alloc(3, 1).allocArray(4, 3, 10).alloc(5, 1).alloc(6, 2);
    b.gc(0, 7, {3});
    b.writer().gcSpaces({0,
                         {{1, SpaceKind::kEden, 0x1000, 0x1000, 0x1100, 0x1100},
                          {2, SpaceKind::kOld, 0x2000, 0x20a0, 0x2200, 0x2000}}});
    b.writer().addresses(
        0, std::vector<ObjectAddress>{{1, 0x2000}, {2, 0x2010}, {4, 0x2028}, {5, 0x2060}, {6, 0x2080}});
    b.alloc(7, 1);
    b.gc(1, 8, {1});
    b.writer().gcSpaces({1,
                         {{1, SpaceKind::kEden, 0x1000, 0x1010, 0x1100, 0x1100},
                          {2, SpaceKind::kOld, 0x2000, 0x20a0, 0x2200, 0x20a0}}});
    // 4 overlaps 2, 5 lies in no space's used part, 6 has no address.
    b.writer().addresses(1, std::vector<ObjectAddress>{{2, 0x2010}, {4, 0x2020}, {5, 0x3000}, {7, 0x1000}});
    b.alloc(8, 1);
    b.gc(2, 9);
    return b.finish();
}

TEST(HeapLayoutHistory, KeepsEachGcsSpacesAndAddresses) {
    const std::string path = layoutTrace();
    auto trace = TraceFile::open(path);
    ASSERT_TRUE(trace) << trace.error().message;
    auto h = HeapHistory::build(*trace);
    ASSERT_TRUE(h) << h.error().message;
    EXPECT_EQ(h->diagnostics().errorCount(), 0u);
    ASSERT_EQ(h->gcCount(), 3u);
    EXPECT_TRUE(h->gcs()[0].has_addresses);
    EXPECT_TRUE(h->gcs()[1].has_addresses);
    EXPECT_FALSE(h->gcs()[2].has_addresses);
    ASSERT_NE(h->spacesAt(0), nullptr);
    EXPECT_EQ(h->spacesAt(1)->spaces[0].top, 0x1010u);
    EXPECT_EQ(h->spacesAt(2), nullptr);
    ASSERT_EQ(h->addresses().size(), 2u);
    EXPECT_EQ(h->addresses()[0].chunks.size(), 3u);

    auto heap = h->heapAt(0);
    ASSERT_TRUE(heap);
    auto addresses = h->addressesFor(*heap);
    ASSERT_TRUE(addresses) << addresses.error().message;
    const HeapView v = heap->view();
    ASSERT_EQ(addresses->size(), v.positions());
    for (size_t pos = 0; pos < v.positions(); ++pos) {
        const uint64_t want[] = {0, 0x2000, 0x2010, 0, 0x2028, 0x2060, 0x2080};
        EXPECT_EQ((*addresses)[pos], want[v.id(pos)]) << "object " << v.id(pos);
    }
    auto later = h->heapAt(2);
    ASSERT_TRUE(later);
    auto none = h->addressesFor(*later);
    ASSERT_TRUE(none);
    EXPECT_TRUE(none->empty());
}

TEST(HeapLayoutMap, TilesHoldWhatLiesInThem) {
    const std::string path = layoutTrace();
    auto trace = TraceFile::open(path);
    auto h = HeapHistory::build(*trace);
    ASSERT_TRUE(h);
    auto heap = h->heapAt(0);
    auto addresses = h->addressesFor(*heap);
    const HeapMap m = buildHeapMap(heap->view(), *addresses, h->spacesAt(0), trace->symbols(), 64);
    ASSERT_EQ(m.spaces.size(), 2u);
    const SpaceMap &eden = m.spaces[0], &old = m.spaces[1];
    EXPECT_EQ(eden.name, "Eden Space");
    EXPECT_EQ(eden.tiles.size(), 4u);
    EXPECT_EQ(eden.objects, 0u);
    EXPECT_EQ(old.tiles.size(), 8u);
    EXPECT_EQ(old.objects, 5u);
    EXPECT_EQ(old.bytes, 16u + 24 + 56 + 16 + 24);
    // 1, 2 and the first 24 B of 4; the rest of 4 and 5; 6.
    EXPECT_EQ(old.tiles[0].objects, 3u);
    EXPECT_EQ(old.tiles[0].bytes, 64u);
    EXPECT_EQ(old.tiles[1].objects, 1u);
    EXPECT_EQ(old.tiles[1].bytes, 48u);
    EXPECT_EQ(old.tiles[2].objects, 1u);
    EXPECT_EQ(old.tiles[2].bytes, 24u);
    for (size_t t = 3; t < 8; ++t)
        EXPECT_EQ(old.tiles[t].bytes, 0u);
    EXPECT_EQ(old.gap_bytes, 16u + 8);  // [0x2070, 0x2080) and [0x2098, 0x20a0)
    EXPECT_EQ(old.overlaps, 0u);
    EXPECT_EQ(m.unplaced_objects + m.outside_objects, 0u);

    // GC 1: 4 overlaps 2, 5 is outside, 6 has no address, 7 is in eden.
    auto heap1 = h->heapAt(1);
    auto addresses1 = h->addressesFor(*heap1);
    const HeapMap m1 = buildHeapMap(heap1->view(), *addresses1, h->spacesAt(1), trace->symbols(), 64);
    EXPECT_EQ(m1.spaces[0].objects, 1u);
    EXPECT_EQ(m1.spaces[1].objects, 2u);
    EXPECT_EQ(m1.spaces[1].overlaps, 1u);
    EXPECT_EQ(m1.outside_objects, 1u);
    EXPECT_EQ(m1.outside_bytes, 16u);
    EXPECT_EQ(m1.unplaced_objects, 1u);
    EXPECT_EQ(m1.unplaced_bytes, 24u);

    // Without spaces: the objects' range as one space.
    const HeapMap bare = buildHeapMap(heap->view(), *addresses, nullptr, trace->symbols(), 64);
    ASSERT_EQ(bare.spaces.size(), 1u);
    EXPECT_EQ(bare.spaces[0].name, "heap");
    EXPECT_EQ(bare.spaces[0].state.bottom, 0x2000u);
    EXPECT_EQ(bare.spaces[0].state.top, 0x2098u);
    EXPECT_EQ(bare.spaces[0].objects, 5u);
}

// What the explorer asks of a GC's heap map: a stretch's types, its groups, the map again.
TEST(HeapLayoutMap, AStretchOfAddressesTellsWhatItHolds) {
    const std::string path = layoutTrace();
    auto trace = TraceFile::open(path);
    auto h = HeapHistory::build(*trace);
    ASSERT_TRUE(h);
    auto placed = placedHeapAt(*h, 0);
    ASSERT_TRUE(placed) << placed.error().message;
    ASSERT_EQ((*placed)->by_address.size(), 5u);
    const PlacedHeap& p = **placed;

    // [0x2000, 0x2040): 1 A (16 B) and 2 B (24) start there, and 4 (int[10], 56 B) at 0x2028
    // reaches 0x2060: 24 B of it lie there.
    const RangeContents first = rangeContents(p, 0x2000, 0x2040);
    EXPECT_EQ(first.objects, 3u);
    EXPECT_EQ(first.bytes, 64u);
    ASSERT_EQ(first.types.size(), 3u);
    EXPECT_EQ(trace->symbols().type(first.types[0].type).name, "B");  // 24 B, before int[]'s 24 by id
    EXPECT_EQ(first.types[0].bytes, 24u);
    EXPECT_EQ(trace->symbols().type(first.types[1].type).name, "int[]");
    EXPECT_EQ(first.types[1].bytes, 24u);
    EXPECT_EQ(trace->symbols().type(first.types[2].type).name, "A");
    EXPECT_EQ(first.types[2].objects, 1u);
    // [0x2040, 0x2080): the rest of 4 (32 B, starting before) and 5 A (16 B).
    const RangeContents second = rangeContents(p, 0x2040, 0x2080);
    EXPECT_EQ(second.objects, 1u);
    EXPECT_EQ(second.bytes, 48u);
    ASSERT_EQ(second.types.size(), 2u);
    EXPECT_EQ(second.types[0].objects, 0u);  // int[]: its part only
    EXPECT_EQ(second.types[0].bytes, 32u);
    EXPECT_TRUE(rangeContents(p, 0x2100, 0x2200).types.empty());
    EXPECT_TRUE(rangeContents(p, 0x2040, 0x2040).types.empty());

    // The groups by type of the objects that start in [0x2000, 0x2040): A, B and int[].
    auto chain = parseChain("type");
    ASSERT_TRUE(chain);
    auto groups = groupsInRange(*h, p, *chain, 0x2000, 0x2040);
    ASSERT_TRUE(groups) << groups.error().message;
    ASSERT_EQ(groups->size(), 3u);
    EXPECT_EQ((*groups)[0].labels, std::vector<std::string>{"int[]"});
    EXPECT_EQ((*groups)[0].bytes, 56u);  // whole objects
    EXPECT_EQ((*groups)[1].labels, std::vector<std::string>{"B"});
    EXPECT_EQ((*groups)[2].labels, std::vector<std::string>{"A"});
    // Two levels: the leaves' paths; [0x2060, 0x2080) holds 5 A alone.
    auto two = parseChain("type,size");
    ASSERT_TRUE(two);
    auto leaves = groupsInRange(*h, p, *two, 0x2060, 0x2080);
    ASSERT_TRUE(leaves);
    ASSERT_EQ(leaves->size(), 1u);
    EXPECT_EQ(leaves->front().labels.size(), 2u);
    EXPECT_EQ(leaves->front().labels[0], "A");
    EXPECT_EQ(leaves->front().objects, 1u);
    auto empty = groupsInRange(*h, p, *chain, 0x2100, 0x2200);
    ASSERT_TRUE(empty);
    EXPECT_TRUE(empty->empty());

    // The map from the placed heap equals heapMapAt's, selection included (B: 2 and 6).
    HeapMapRequest r;
    r.gc = 0;
    r.tile_bytes = 64;
    r.chain = &*chain;
    r.selected = {{"B"}};
    auto direct = heapMapAt(*h, r);
    auto again = heapMapOf(*h, p, r);
    ASSERT_TRUE(direct && again);
    ASSERT_EQ(again->spaces.size(), 2u);
    for (size_t t = 0; t < again->spaces[1].tiles.size(); ++t) {
        EXPECT_EQ(again->spaces[1].tiles[t].bytes, direct->spaces[1].tiles[t].bytes) << t;
        EXPECT_EQ(again->spaces[1].tiles[t].selected_bytes, direct->spaces[1].tiles[t].selected_bytes) << t;
    }
    EXPECT_EQ(again->spaces[1].tiles[0].selected_bytes, 24u);
    EXPECT_EQ(again->spaces[1].tiles[2].selected_bytes, 24u);
    // GC 2 has no addresses: no placed heap.
    auto none = placedHeapAt(*h, 2);
    ASSERT_FALSE(none);
    EXPECT_NE(none.error().message.find("GC 2 has no addresses"), std::string::npos);
}

// A history of `space` over GCs [from, to] in tiles of 64 bytes, nothing more.
SpaceHistoryRequest tiles64(std::string space, uint32_t from, uint32_t to) {
    SpaceHistoryRequest r;
    r.space = std::move(space);
    r.from = from;
    r.to = to;
    r.tile_bytes = 64;
    return r;
}

// GCspy's history graph of one space: in one replay, a row of tiles per GC that has the space,
// each the tiles that GC's own map has.
TEST(HeapLayoutMap, ASpacesHistoryHasEachGcsTiles) {
    const std::string path = layoutTrace();
    auto trace = TraceFile::open(path);
    auto h = HeapHistory::build(*trace);
    ASSERT_TRUE(h);
    auto rows = spaceHistory(*h, tiles64("Tenured Gen", 0, 2));
    ASSERT_TRUE(rows) << rows.error().message;
    ASSERT_EQ(rows->size(), 2u);  // GC 2 has neither spaces nor addresses
    for (const SpaceHistoryRow& row : *rows) {
        auto heap = h->heapAt(row.gc);
        auto addresses = h->addressesFor(*heap);
        const HeapMap m = buildHeapMap(heap->view(), *addresses, h->spacesAt(row.gc), trace->symbols(), 64);
        EXPECT_TRUE(row.addresses);
        EXPECT_EQ(row.state.top, m.spaces[1].state.top);
        ASSERT_EQ(row.tiles.size(), m.spaces[1].tiles.size()) << "GC " << row.gc;
        for (size_t t = 0; t < row.tiles.size(); ++t) {
            EXPECT_EQ(row.tiles[t].bytes, m.spaces[1].tiles[t].bytes) << "GC " << row.gc << " tile " << t;
            EXPECT_EQ(row.tiles[t].objects, m.spaces[1].tiles[t].objects) << "GC " << row.gc << " tile " << t;
            EXPECT_EQ(row.tiles[t].age_bytes, m.spaces[1].tiles[t].age_bytes)
                << "GC " << row.gc << " tile " << t;
        }
    }
    EXPECT_EQ((*rows)[0].tiles[0].bytes, 64u);
    EXPECT_EQ((*rows)[1].gc, 1u);
    // A space no GC has: no rows; a stop asked for: none either; bad range: an error.
    auto none = spaceHistory(*h, tiles64("Old Gen", 0, 2));
    ASSERT_TRUE(none);
    EXPECT_TRUE(none->empty());
    const Progress stop = Progress::cancellable();
    stop.cancel();
    auto stopped = spaceHistory(*h, tiles64("Tenured Gen", 0, 2), stop);
    ASSERT_TRUE(stopped);
    EXPECT_TRUE(stopped->empty());
    EXPECT_FALSE(spaceHistory(*h, tiles64("Tenured Gen", 0, 3)));
}

// The history's selected and dying streams: each row's tiles are those of its GC's own map
// (heapMapAt finds the deaths by replaying one GC further, the history as its replay goes on).
TEST(HeapLayoutMap, ASpacesHistoryHasEachGcsSelectionAndDeaths) {
    const std::string path = layoutTrace();
    auto trace = TraceFile::open(path);
    auto h = HeapHistory::build(*trace);
    ASSERT_TRUE(h);
    auto chain = parseChain("type");
    ASSERT_TRUE(chain);
    for (uint32_t from : {0u, 1u}) {
        SpaceHistoryRequest hr{"Tenured Gen", from, 2, 64, &*chain, {{"B"}}, true, 1};
        auto rows = spaceHistory(*h, hr);
        ASSERT_TRUE(rows) << rows.error().message;
        ASSERT_EQ(rows->size(), 2u - from);
        for (const SpaceHistoryRow& row : *rows) {
            HeapMapRequest r;
            r.gc = row.gc;
            r.tile_bytes = 64;
            r.chain = &*chain;
            r.selected = {{"B"}};
            auto m = heapMapAt(*h, r);
            ASSERT_TRUE(m) << m.error().message;
            ASSERT_EQ(row.tiles.size(), m->spaces[1].tiles.size()) << "GC " << row.gc;
            for (size_t t = 0; t < row.tiles.size(); ++t) {
                EXPECT_EQ(row.tiles[t].selected_bytes, m->spaces[1].tiles[t].selected_bytes)
                    << "GC " << row.gc << " tile " << t;
                EXPECT_EQ(row.tiles[t].dying_bytes, m->spaces[1].tiles[t].dying_bytes)
                    << "GC " << row.gc << " tile " << t;
            }
        }
    }
    auto rows = spaceHistory(*h, {"Tenured Gen", 0, 1, 64, &*chain, {{"B"}}, true, 1});
    ASSERT_TRUE(rows);
    ASSERT_EQ(rows->size(), 2u);
    // GC 0: B is 2 (tile 0) and 6 (tile 2); 1 (16 bytes at 0x2000) dies at GC 1. GC 1: B is 2
    // (6 has no address); nothing dies at GC 2, the GC after the range.
    const std::vector<HeapTile>& t0 = (*rows)[0].tiles;
    EXPECT_EQ(t0[0].selected_bytes, 24u);
    EXPECT_EQ(t0[2].selected_bytes, 24u);
    EXPECT_EQ(t0[0].dying_bytes, 16u);
    for (size_t t = 1; t < t0.size(); ++t)
        EXPECT_EQ(t0[t].dying_bytes, 0u) << t;
    EXPECT_EQ((*rows)[1].tiles[0].selected_bytes, 24u);
    for (const HeapTile& t : (*rows)[1].tiles)
        EXPECT_EQ(t.dying_bytes, 0u);
    // A window of GC 0 alone still replays GC 1 for its deaths.
    SpaceHistoryRequest first = tiles64("Tenured Gen", 0, 0);
    first.dying = true;
    auto alone = spaceHistory(*h, first);
    ASSERT_TRUE(alone);
    ASSERT_EQ(alone->size(), 1u);
    EXPECT_EQ((*alone)[0].tiles[0].dying_bytes, 16u);
    // A chain that reads references selects at the GCs with a snapshot; this trace has none: no
    // selection, and no error.
    auto rooted = parseChain("rooted");
    ASSERT_TRUE(rooted);
    SpaceHistoryRequest by_roots = tiles64("Tenured Gen", 0, 1);
    by_roots.chain = &*rooted;
    by_roots.selected = {{"static field"}};
    auto unselected = spaceHistory(*h, by_roots);
    ASSERT_TRUE(unselected) << unselected.error().message;
    ASSERT_EQ(unselected->size(), 2u);
    for (const HeapTile& t : (*unselected)[0].tiles)
        EXPECT_EQ(t.selected_bytes, 0u);
    // Without them asked for: none.
    auto plain = spaceHistory(*h, tiles64("Tenured Gen", 0, 1));
    ASSERT_TRUE(plain);
    for (const HeapTile& t : (*plain)[0].tiles)
        EXPECT_EQ(t.selected_bytes + t.dying_bytes, 0u);
}

// The map's order: objectsByAddress against a stable sort by comparison, on a heap large enough
// for the radix sort, at key widths that take one, two and four passes within its buckets, on
// one to three threads; objects at one address keep their id order.
TEST(HeapLayoutMap, ObjectsByAddressIsAStableSortOnAnyThreads) {
    constexpr uint64_t kObjects = 80'000;  // over 65,536 positions: the threads take a part each
    // Half of them a GC old (ages for the tiles to add up), every seventh dead.
    TraceBuilder b("by-address");
    for (uint64_t id = 1; id <= kObjects; ++id) {
        b.alloc(id, 1);
        if (id == kObjects / 2) b.gc(0, id + 1);
    }
    std::vector<uint64_t> dead;
    for (uint64_t id = 7; id <= kObjects; id += 7)
        dead.push_back(id);
    b.gc(1, kObjects + 1, dead);
    const std::string path = b.finish();
    auto trace = TraceFile::open(path);
    ASSERT_TRUE(trace) << trace.error().message;
    auto h = HeapHistory::build(*trace);
    ASSERT_TRUE(h) << h.error().message;
    auto heap = h->heapAt(1);
    ASSERT_TRUE(heap);
    const HeapView v = heap->view();
    std::mt19937_64 random(34);
    for (const int bits : {17, 22, 44}) {  // the key's width: 1, 2 and 4 passes below the top digit
        std::vector<uint64_t> addresses(v.positions());
        for (size_t pos = 0; pos < addresses.size(); ++pos) {
            const uint64_t r = random();
            // Some without an address, some sharing one with the position before.
            addresses[pos] = r % 19 == 0 ? 0
                             : r % 23 == 0 && pos
                                 ? addresses[pos - 1]
                                 : 0x700000000 + 8 * (r >> 8 & ((uint64_t{1} << (bits - 3)) - 1));
        }
        std::vector<AddressedObject> want;
        for (size_t pos = 0; pos < v.positions(); ++pos)
            if (v.alive(pos) && addresses[pos])
                want.push_back(
                    {addresses[pos], static_cast<uint32_t>(pos), static_cast<uint32_t>(v.size(pos))});
        std::stable_sort(want.begin(), want.end(), [](const AddressedObject& x, const AddressedObject& y) {
            return x.address < y.address;
        });
        ASSERT_GT(want.size(), 60'000u);
        for (const unsigned threads : {1u, 2u, 3u}) {
            const std::vector<AddressedObject> got = objectsByAddress(v, addresses, threads);
            ASSERT_EQ(got.size(), want.size()) << bits << " bits, " << threads << " threads";
            for (size_t k = 0; k < want.size(); ++k)
                ASSERT_TRUE(got[k].address == want[k].address && got[k].pos == want[k].pos &&
                            got[k].size == want[k].size)
                    << bits << " bits, " << threads << " threads: at " << k;
        }
        // The map from an order the caller had, its tiles added up on three threads, is the map
        // that sorts for itself on one.
        HeapMapOptions given;
        given.tile_bytes = 1 << 16;
        const HeapMap own = buildHeapMap(v, addresses, nullptr, trace->symbols(), given);
        given.by_address = want;
        given.threads = 3;
        const HeapMap from_order = buildHeapMap(v, addresses, nullptr, trace->symbols(), given);
        ASSERT_EQ(own.spaces.size(), 1u);
        ASSERT_EQ(from_order.spaces.size(), 1u);
        EXPECT_EQ(own.spaces[0].objects, want.size());
        EXPECT_EQ(from_order.spaces[0].objects, want.size());
        EXPECT_EQ(own.spaces[0].bytes, from_order.spaces[0].bytes);
        EXPECT_EQ(own.spaces[0].overlaps, from_order.spaces[0].overlaps);
        EXPECT_GT(own.spaces[0].overlaps, 0u);  // (the shared addresses)
        EXPECT_EQ(own.spaces[0].gap_bytes, from_order.spaces[0].gap_bytes);
        EXPECT_GT(own.unplaced_objects, 0u);
        uint64_t aged = 0;
        for (const HeapTile& t : own.spaces[0].tiles)
            aged += t.age_bytes;
        EXPECT_GT(aged, 0u);
        EXPECT_EQ(own.unplaced_objects, from_order.unplaced_objects);
        EXPECT_EQ(own.unplaced_bytes, from_order.unplaced_bytes);
        ASSERT_EQ(own.spaces[0].tiles.size(), from_order.spaces[0].tiles.size());
        for (size_t t = 0; t < own.spaces[0].tiles.size(); ++t) {
            const HeapTile &x = own.spaces[0].tiles[t], &y = from_order.spaces[0].tiles[t];
            ASSERT_TRUE(x.objects == y.objects && x.bytes == y.bytes && x.age_bytes == y.age_bytes)
                << "tile " << t;
        }
    }
}

}  // namespace
}  // namespace memcity
