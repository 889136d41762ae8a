// libFuzzer target: any bytes through the reader, the rebuild, a heap and its snapshot. Every
// outcome must be a value or a one-line error; crashes, leaks and undefined behaviour are bugs.
#include <cstddef>
#include <cstdint>
#include <cstdlib>
#include <span>

#include "heap/heap_history.h"
#include "trace/trace_reader.h"

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
    using namespace memcity;
    auto file = TraceFile::fromMemory(std::span<const uint8_t>(data, size), "fuzz.mct");
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
    for (uint32_t gc : {0u, static_cast<uint32_t>(history->gcCount() / 2), static_cast<uint32_t>(history->gcCount() - 1)}) {
        if (gc >= history->gcCount()) continue;
        auto heap = history->heapAt(gc);
        if (!heap.ok()) continue;
        HeapView v = heap->view();
        uint64_t bytes = 0;
        v.forEachLive([&](size_t p) { bytes += v.size(p) + v.age(p); });
        auto snap = history->snapshotFor(*heap);
        if (snap.ok() && snap->has_value()) {
            for (size_t p = 0; p < v.positions(); ++p) (*snap)->graph.forEachTarget(p, [&](uint32_t t) { bytes += t; });
        }
        if (bytes == 1) std::abort();  // keep the work observable
    }
    return 0;
}
