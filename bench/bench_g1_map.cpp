// bench_g1_map: G1's heap map at the size of a production heap (docs/heapmap.md, "G1"). A trace of
// a 4 GiB G1 heap is written first (2,048 regions of 2 MiB, G1's choice for a 4 GiB heap): N
// objects (default 8 M, 384 B on average: 3 GiB) packed region by region into old regions, with
// humongous arrays and survivor regions above them, in an order unlike their ids'; GC 0 has every object's
// address, GC 1 the region tables only. Then, medians of five runs, in milliseconds:
//   - the map of a GC without addresses (each region's role and used bytes: what every GC of a
//     recording without a snapshot there draws, and every GC of a sampled one);
//   - the map of GC 0 with its objects placed by address: the heap rebuilt and its addresses read
//     and sorted (placedHeapAt), then the map built from them (heapMapOf: what another tile size
//     or stream costs in the window);
//   - the frame of that map (HeapMapScene::compose into a draw list, 1280x720, tiles fitted).
// Target: a map per GC in at most 1 s for a 4 GiB heap.
//
// usage: bench_g1_map [--objects N]
#include <algorithm>
#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <filesystem>
#include <functional>
#include <random>
#include <string>
#include <vector>

#include "bench_timing.h"
#include "classify/heap_map_at.h"
#include "heap/heap_history.h"
#include "scene/heap_map_scene.h"
#include "trace/trace_reader.h"
#include "trace/trace_writer.h"
#include "util/parallel.h"

using namespace memcity;
using Clock = std::chrono::steady_clock;

namespace {

using bench::medianMs;

constexpr uint32_t kShift = 21;  // 2 MiB regions
constexpr size_t kRegions = 2048;
constexpr uint64_t kFirst = 0x700000000;

void writeTrace(const std::string& path, uint64_t objects) {
    auto w = TraceWriter::create(path, {});
    if (!w) {
        std::fprintf(stderr, "%s\n", w.error().message.c_str());
        std::exit(1);
    }
    TraceWriter& t = **w;
    t.defineType(1, {"byte[]", format::TypeKind::kPrimitiveArray, 0, 0, 16, 1, 0});
    t.defineMethod(1, "Main", "run", "()V", "Main.java");
    const Frame f{1, 10};
    t.defineSite(1, {&f, 1});
    t.defineThread(1, "main");
    t.defineString(1, "G1 Evacuation Pause");
    GcRegionsEvent table;
    table.shift = kShift;
    table.first = kFirst;
    table.roles.assign(kRegions, RegionRole::kFree);
    table.used.assign(kRegions, 0);
    // Sizes by id, then places in a shuffled order: a real heap's addresses do not follow its ids
    // (threads allocate side by side; a full GC slides survivors together), so they are sorted.
    auto sizeOf = [](uint64_t id) {
        const uint64_t length = 64 + (id * 7919) % 641;  // 80 to 720 B, 384 on average
        return std::make_pair(length, (16 + length + 7) & ~uint64_t{7});
    };
    int64_t time = 0;
    for (uint64_t id = 0; id < objects; ++id) {
        AllocEvent e;
        e.id = id;
        e.type = 1;
        e.site = 1;
        e.thread = 1;
        e.length = sizeOf(id).first;
        e.time_ns = time += 10;
        t.alloc(e);
    }
    std::vector<uint64_t> order(objects);
    for (uint64_t i = 0; i < objects; ++i)
        order[i] = i;
    std::shuffle(order.begin(), order.end(), std::mt19937_64(1));
    std::vector<ObjectAddress> addresses(objects);
    size_t region = 0;
    uint64_t at = 0;  // in the region
    for (uint64_t id : order) {
        const uint64_t size = sizeOf(id).second;
        if (at + size > (uint64_t{1} << kShift)) {
            table.roles[region] = RegionRole::kOld;
            table.used[region] = at;
            region += region % 97 == 0 ? 4 : region % 13 == 0 ? 2 : 1;  // free ones between
            at = 0;
        }
        addresses[id] = {id, table.bottomOf(region) + at};
        at += size;
    }
    table.roles[region] = RegionRole::kOld;
    table.used[region] = at;
    // Humongous arrays (3 regions each) and young regions in the free ones above.
    for (size_t r = region + 1; r + 3 < kRegions; r += 9) {
        table.roles[r] = RegionRole::kHumongousStart;
        table.roles[r + 1] = table.roles[r + 2] = RegionRole::kHumongousContinues;
        table.used[r] = table.used[r + 1] = table.used[r + 2] = uint64_t{1} << kShift;
        table.roles[r + 4] = RegionRole::kSurvivor;
        table.used[r + 4] = uint64_t{1} << 20;
    }
    for (uint32_t gc = 0; gc < 2; ++gc) {
        t.gcStart({gc, 1, 1, time += 100});
        GcEndEvent end;
        end.gc = gc;
        end.time_ns = time += 100;
        end.next_object_id = objects;
        t.gcEnd(end);
        table.gc = gc;
        table.after = false;
        t.gcRegions(table);
        table.after = true;
        t.gcRegions(table);
        if (gc == 0) t.addresses(0, addresses);
    }
    if (Status s = t.close(); !s) {
        std::fprintf(stderr, "%s\n", s.error().message.c_str());
        std::exit(1);
    }
}

}  // namespace

int main(int argc, char** argv) {
    uint64_t objects = 8'000'000;
    for (int i = 1; i + 1 < argc; i += 2)
        if (std::strcmp(argv[i], "--objects") == 0) objects = std::strtoull(argv[i + 1], nullptr, 10);
    const std::string path = (std::filesystem::temp_directory_path() / "memcity-bench-g1.mct").string();
    const auto t0 = Clock::now();
    writeTrace(path, objects);
    auto file = TraceFile::open(path);
    if (!file) {
        std::fprintf(stderr, "%s\n", file.error().message.c_str());
        return 1;
    }
    auto history = HeapHistory::build(*file);
    if (!history) {
        std::fprintf(stderr, "%s\n", history.error().message.c_str());
        return 1;
    }
    const HeapHistory& h = *history;
    const unsigned threads = defaultThreads();
    std::printf(
        "a 4 GiB G1 heap: %zu regions of %s, %llu objects (%s in the trace); written and read in %.1f s\n",
        kRegions, "2 MiB", static_cast<unsigned long long>(objects),
        std::to_string(std::filesystem::file_size(path) >> 10).append(" KiB").c_str(),
        std::chrono::duration<double>(Clock::now() - t0).count());

    HeapMapRequest request;
    request.gc = 1;
    request.tile_bytes = uint64_t{1} << kShift;
    request.dying = false;
    HeapMap map;
    const double regions_ms = medianMs(5, [&] { map = *heapMapAt(h, request); });
    std::printf("map without addresses (roles, used bytes), 2 MiB tiles: %8.1f ms\n", regions_ms);
    request.tile_bytes = 256 << 10;
    const double fine_ms = medianMs(5, [&] { map = *heapMapAt(h, request); });
    std::printf("map without addresses, 256 KiB tiles (16,384):         %8.1f ms\n", fine_ms);

    request.gc = 0;
    request.threads = threads;
    // What every view of GC 0 costs first: its heap rebuilt (a replay from the nearest checkpoint).
    const double heap_ms = medianMs(3, [&] { (void)*h.heapAt(0); });
    std::shared_ptr<const PlacedHeap> placed;
    const double place_ms = medianMs(3, [&] { placed = *placedHeapAt(h, 0, threads); });
    // Of which: the addresses read from the trace, and sorted.
    const double read_ms = medianMs(3, [&] { (void)*h.addressesFor(placed->heap, threads); });
    const double sort_ms =
        medianMs(3, [&] { (void)objectsByAddress(placed->heap.view(), placed->addresses, threads); });
    const double build_ms = medianMs(5, [&] { map = *heapMapOf(h, *placed, request); });
    uint64_t placed_objects = 0;
    for (const SpaceMap& s : map.spaces)
        placed_objects += s.objects;
    std::printf("map with addresses: the heap rebuilt (every view's cost):  %6.1f ms\n", heap_ms);
    std::printf(
        "                    its addresses read and sorted:         %6.1f ms  (read %.1f, sorted %.1f)\n",
        place_ms - heap_ms, read_ms, sort_ms);
    std::printf(
        "                    the map from them (256 KiB tiles):     %6.1f ms  (%llu objects placed)\n",
        build_ms, static_cast<unsigned long long>(placed_objects));
    std::printf("                    the map, the heap given:               %6.1f ms  (target <= 1000 ms)\n",
                place_ms - heap_ms + build_ms);
    std::printf("                    in all:                                %6.1f ms\n", place_ms + build_ms);

    scene::HeapMapInputs in;
    in.title = "bench";
    in.gcs = h.gcs();
    in.history_space = "G1 heap";
    const uint32_t gcs[] = {0, 1};
    in.history = spaceExtents(h, "G1 heap", gcs);
    scene::HeapMapScene scene(std::move(in), {}, {1280, 720});
    const scene::PixelRect bands = scene.bandsRect();
    request.tile_bytes = fittingTileBytes(*h.spacesAt(0), bands.width(), bands.height(), 10.0, 18.0);
    map = *heapMapOf(h, *placed, request);
    render::DrawList list;
    const double frame_ms = medianMs(5, [&] { scene.compose(map, nullptr, 0, list); });
    std::printf("the frame (1280x720, %s tiles fitted, %zu rectangles): %6.1f ms\n",
                std::to_string(request.tile_bytes >> 10).append(" KiB").c_str(), list.rects.size(), frame_ms);
    std::filesystem::remove(path);
    return 0;
}
