// libFuzzer target: any bytes through the reader, the rebuild, a heap, its map and its snapshot. Every
// outcome must be a value or a one-line error; crashes, leaks and undefined behaviour are bugs.
#include <cstddef>
#include <cstdint>
#include <cstdlib>
#include <span>
#include <vector>

#include "fuzz/repair_checksums.h"
#include "heap/heap_history.h"
#include "heap/heap_map.h"
#include "trace/trace_reader.h"

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
    using namespace memcity;
    const std::vector<uint8_t> input = fuzz::withRepairedChecksums(data, size);
    auto file = TraceFile::fromMemory(input, "fuzz.mct");
    if (!file.ok()) {
        if (file.error().message.find('\n') != std::string::npos) std::abort();
        return 0;
    }
    HistoryOptions options;
    options.checkpoint_events = 64;  // exercise checkpoints on small inputs
    auto history = HeapHistory::build(*file, options);
    if (!history.ok()) {
        if (history.error().message.find('\n') != std::string::npos) std::abort();
        return 0;
    }
    for (uint32_t gc :
         {0u, static_cast<uint32_t>(history->gcCount() / 2), static_cast<uint32_t>(history->gcCount() - 1)}) {
        if (gc >= history->gcCount()) continue;
        auto heap = history->heapAt(gc);
        if (!heap.ok()) continue;
        HeapView v = heap->view();
        uint64_t bytes = 0;
        v.forEachLive([&](size_t p) { bytes += v.size(p) + v.age(p); });
        // The heap map: its spaces and the objects' addresses (ADDRS chunks, read only here).
        if (auto addresses = history->addressesFor(*heap); addresses.ok() && !addresses->empty()) {
            const HeapMap map = buildHeapMap(v, *addresses, history->spacesAt(gc), file->symbols(), 64);
            for (const SpaceMap& s : map.spaces)
                bytes += s.bytes + s.tiles.size();
        } else if (!addresses.ok() && addresses.error().message.find('\n') != std::string::npos) {
            std::abort();
        }
        auto snap = history->snapshotFor(*heap);
        if (snap.ok() && snap->has_value()) {
            for (size_t p = 0; p < v.positions(); ++p)
                (*snap)->graph.forEachTarget(p, [&](uint32_t t) { bytes += t; });
        }
        if (bytes == 1) std::abort();  // keep the work observable
    }
    return 0;
}
