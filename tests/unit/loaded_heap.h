// A trace and its history (LoadedHistory), or its heap at one GC with its references
// (LoadedHeap), loaded the way the CLI loads them, for the tests of series, churn, closures,
// retained sizes, root paths and group reports.
#pragma once

#include <gtest/gtest.h>

#include <initializer_list>
#include <memory>
#include <optional>
#include <string>
#include <vector>

#include "graph/heap_graph.h"
#include "heap/heap_history.h"

namespace memcity::testing {

// The trace at `path` and its history (null, with a test failure, where either cannot be made).
struct LoadedHistory {
    std::unique_ptr<TraceFile> file;
    std::unique_ptr<HeapHistory> history;

    explicit LoadedHistory(const std::string& path, const HistoryOptions& options = {}) {
        auto f = TraceFile::open(path);
        EXPECT_TRUE(f.ok()) << (f.ok() ? "" : f.error().message);
        if (!f) return;
        file = std::make_unique<TraceFile>(std::move(*f));
        auto h = HeapHistory::build(*file, options);
        EXPECT_TRUE(h.ok()) << (h.ok() ? "" : h.error().message);
        if (h) history = std::make_unique<HeapHistory>(std::move(*h));
    }
};

struct LoadedHeap : LoadedHistory {
    HeapState heap;
    std::unique_ptr<HeapGraph> graph;

    // The heap after `gc` (default: the last GC), which must have a reference snapshot.
    explicit LoadedHeap(const std::string& path, std::optional<uint32_t> gc = std::nullopt)
        : LoadedHistory(path) {
        if (!history) return;
        auto s = history->heapAt(gc ? *gc : static_cast<uint32_t>(history->gcCount() - 1));
        EXPECT_TRUE(s.ok());
        heap = std::move(*s);
        auto snap = history->snapshotFor(heap);
        EXPECT_TRUE(snap.ok() && snap->has_value());
        graph = std::make_unique<HeapGraph>(heap.view(), std::move(**snap));
    }

    HeapView view() const { return heap.view().withGraph(graph.get()); }
    // The position of object `id` in the heap.
    uint32_t pos(uint64_t id) const { return static_cast<uint32_t>(heap.view().find(id)); }
    // The objects with these ids, as a set of positions.
    Bitset set(std::initializer_list<uint64_t> ids) const {
        Bitset b(heap.objectCount());
        for (uint64_t id : ids)
            b.set(pos(id));
        return b;
    }
    // The ids of a set of positions, in position order.
    std::vector<uint64_t> ids(const Bitset& b) const {
        std::vector<uint64_t> out;
        b.forEach([&](size_t p) { out.push_back(heap.view().id(p)); });
        return out;
    }
    // The id of the type called `name`.
    uint32_t type(const std::string& name) const {
        const std::vector<TypeInfo>& types = heap.view().symbols().types();
        for (uint32_t t = 1; t < types.size(); ++t)
            if (types[t].name == name) return t;
        ADD_FAILURE() << "no type " << name;
        return 0;
    }
};

}  // namespace memcity::testing
