// Tiny tree series for the scene tests: hand-made traces (tests/unit/trace_builder.h) loaded,
// replayed and classified in one call.
#pragma once

#include <gtest/gtest.h>

#include <memory>
#include <string>
#include <string_view>

#include "classify/series.h"
#include "heap/heap_history.h"
#include "trace/trace_reader.h"

namespace memcity::testing {

// A trace with its history and one series over every GC; the series reads the chain and the
// history, so all four live together.
struct LoadedSeries {
    std::unique_ptr<TraceFile> file;
    std::unique_ptr<HeapHistory> history;
    std::unique_ptr<ClassifierChain> chain;
    std::unique_ptr<TreeSeries> series;
};

inline LoadedSeries loadSeries(const std::string& path, std::string_view chain_spec) {
    LoadedSeries l;
    auto f = TraceFile::open(path);
    EXPECT_TRUE(f.ok()) << (f.ok() ? "" : f.error().message);
    if (!f) std::abort();
    l.file = std::make_unique<TraceFile>(std::move(*f));
    auto h = HeapHistory::build(*l.file);
    EXPECT_TRUE(h.ok()) << (h.ok() ? "" : h.error().message);
    if (!h) std::abort();
    l.history = std::make_unique<HeapHistory>(std::move(*h));
    auto c = parseChain(chain_spec);
    EXPECT_TRUE(c.ok()) << (c.ok() ? "" : c.error().message);
    if (!c) std::abort();
    l.chain = std::make_unique<ClassifierChain>(std::move(*c));
    auto s = TreeSeries::build(*l.history, *l.chain);
    EXPECT_TRUE(s.ok()) << (s.ok() ? "" : s.error().message);
    if (!s) std::abort();
    l.series = std::make_unique<TreeSeries>(std::move(*s));
    return l;
}

}  // namespace memcity::testing
