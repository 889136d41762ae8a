// Tree series for the scene tests: tiny hand-made traces with exact values, and synthetic
// scenarios for the structural checks.
#pragma once

#include <gtest/gtest.h>

#include <cstdlib>
#include <map>
#include <memory>
#include <string>
#include <string_view>

#include "classify/series.h"
#include "heap/heap_history.h"
#include "synth/synth.h"
#include "unit/trace_builder.h"

namespace memcity::scene::testing {

// A trace with its rebuilt history and one series over it (the series refers to both).
struct Fixture {
    std::unique_ptr<TraceFile> file;
    std::unique_ptr<HeapHistory> history;
    std::unique_ptr<ClassifierChain> chain;
    std::unique_ptr<TreeSeries> series;
};

inline Fixture fixtureOf(const std::string& path, std::string_view chain_spec,
                         const SeriesOptions& options = {}) {
    Fixture f;
    auto file = TraceFile::open(path);
    if (!file) {
        ADD_FAILURE() << file.error().message;
        std::abort();
    }
    f.file = std::make_unique<TraceFile>(std::move(*file));
    auto history = HeapHistory::build(*f.file);
    if (!history) {
        ADD_FAILURE() << history.error().message;
        std::abort();
    }
    f.history = std::make_unique<HeapHistory>(std::move(*history));
    auto chain = parseChain(chain_spec);
    if (!chain) {
        ADD_FAILURE() << chain.error().message;
        std::abort();
    }
    f.chain = std::make_unique<ClassifierChain>(std::move(*chain));
    auto series = TreeSeries::build(*f.history, *f.chain, options);
    if (!series) {
        ADD_FAILURE() << series.error().message;
        std::abort();
    }
    f.series = std::make_unique<TreeSeries>(std::move(*series));
    return f;
}

// Four GCs (A 16 B, B 24 B, int[n] 16 + 4n B rounded to 8; sites run = Main.run:10, other =
// Main.other:20). Bytes per (type, site) and GC:
//   A/run     32  32  16  32        B/other   24   0  24   0
//   A/other    0   0  16  16        int[]/run  0  56  56   0
//                                   int[]/other 0   0   0 416
//   root      56  88 112 464
inline std::string lifecycleTrace() {
    ::memcity::testing::TraceBuilder b("city-life");
    b.alloc(0).alloc(1).alloc(2, 2, 2);
    b.gc(0, 3);
    b.allocArray(3, 3, 10, 1);
    b.gc(1, 4, {2});
    b.alloc(4, 2, 2).alloc(5, 1, 2);
    b.gc(2, 6, {0});
    b.allocArray(6, 3, 100, 2).alloc(7);
    b.gc(3, 8, {3, 4});
    return b.finish();
}

inline const std::string kRun = "Main.run(Main.java:10)";
inline const std::string kOther = "Main.other(Main.java:20)";

// Written once per test program and scenario.
inline std::string scenarioTrace(const std::string& name, uint32_t scale = 1) {
    static std::map<std::pair<std::string, uint32_t>, std::string> written;
    if (auto it = written.find({name, scale}); it != written.end()) return it->second;
    const std::string path = ::memcity::testing::tempPath("city-" + name);
    written[{name, scale}] = path;
    synth::SynthOptions o;
    o.scale = scale;
    o.refs_every = 0;
    Status st = synth::synthesize(name, path, o);
    EXPECT_TRUE(st.ok()) << (st.ok() ? "" : st.error().message);
    return path;
}

}  // namespace memcity::scene::testing
