#include "recorder/java_programs.h"

#include <unistd.h>

#include <algorithm>
#include <cstdlib>

#include "classify/classifier.h"
#include "classify/tree.h"
#include "recorder/process.h"
#include "trace/event_decoder.h"
#include "unit/trace_builder.h"

namespace memcity::testing {

namespace fs = std::filesystem;

fs::path JavaPrograms::classes_;

void JavaPrograms::SetUpTestSuite() {
    if (!classes_.empty()) return;  // compiled for an earlier suite of this binary
    classes_ = fs::temp_directory_path() / ("memcity-java-" + std::to_string(getpid()));
    fs::create_directories(classes_);
    std::vector<std::string> argv = {kJavaHome + "/bin/javac", "-d", classes_.string()};
    for (const auto& f : fs::directory_iterator(MEMCITY_JAVA_SOURCES))
        if (f.path().extension() == ".java") argv.push_back(f.path().string());
    Process p = run(argv);
    ASSERT_EQ(p.status, 0) << p.stderr_text;
    std::atexit([] { fs::remove_all(classes_); });
}

void JavaPrograms::TearDownTestSuite() {}

std::vector<std::string> JavaPrograms::record(const std::string& trace, std::vector<std::string> jvm_flags,
                                              std::vector<std::string> program,
                                              std::vector<std::string> options) {
    std::vector<std::string> argv = {kMemcity, "record", "-o", trace};
    argv.insert(argv.end(), options.begin(), options.end());
    argv.insert(argv.end(), {"--", kJavaHome + "/bin/java", "-Xmx512m", "-cp", classes_.string()});
    argv.insert(argv.end(), jvm_flags.begin(), jvm_flags.end());
    argv.insert(argv.end(), program.begin(), program.end());
    return argv;
}

JavaPrograms::Loaded JavaPrograms::load(const std::string& path) {
    Loaded l;
    auto f = TraceFile::open(path);
    EXPECT_TRUE(f.ok()) << (f.ok() ? "" : f.error().message);
    if (!f.ok()) return l;
    l.file = std::make_unique<TraceFile>(std::move(*f));
    auto h = HeapHistory::build(*l.file);
    EXPECT_TRUE(h.ok()) << (h.ok() ? "" : h.error().message);
    if (h.ok()) l.history = std::make_unique<HeapHistory>(std::move(*h));
    return l;
}

std::string JavaPrograms::describeAnomalies(const Diagnostics& d) {
    std::string s;
    for (size_t i = 0; i < Diagnostics::kKinds; ++i)
        if (d[static_cast<Anomaly>(i)].count) s += d[static_cast<Anomaly>(i)].first + "\n";
    return s;
}

JavaPrograms::MadeWhole JavaPrograms::expectMadeWholeAsCounted(const HeapHistory& h, uint32_t gc,
                                                               HeapState& heap) {
    MadeWhole out;
    const GcRecord& rec = h.gcs()[gc];
    EXPECT_TRUE(rec.has_snapshot);
    EXPECT_GE(rec.calibration, 0);  // (a sampled snapshot's GC is counted too)
    auto state = h.heapAt(gc);
    EXPECT_TRUE(state.ok());
    if (!state) return out;
    heap = std::move(*state);
    auto graph = loadGraph(h, heap);
    EXPECT_TRUE(graph.ok()) << (graph.ok() ? "" : graph.error().message);
    if (!graph) return out;
    EXPECT_NE((*graph)->whole(), nullptr);
    const HeapView whole = (*graph)->heap();
    EXPECT_FALSE(whole.sampled());
    EXPECT_EQ(rec.reachable_objects + rec.unreached_objects, whole.liveObjects());
    EXPECT_EQ(rec.reachable_bytes + rec.unreached_bytes, whole.liveBytes());
    auto chain = parseChain("type");
    EXPECT_TRUE(chain.ok());
    if (!chain) return out;
    const ClassificationTree counted = ClassificationTree::build(heap.view(), *chain);
    const ClassificationTree made = ClassificationTree::build(whole, *chain);
    for (uint32_t id : counted.sortedChildren(ClassificationTree::kRoot, Metric::kBytes)) {
        if (!counted.node(id).sampled.bytesEstimate().exact) continue;  // a type the census counted
        const std::string type = counted.label(id);
        const uint32_t m = made.find({type});
        EXPECT_NE(m, kNoNode) << type;
        if (m == kNoNode) continue;
        EXPECT_EQ(made.node(m).objects, counted.node(id).objects) << type;
        EXPECT_EQ(made.node(m).bytes, counted.node(id).bytes) << type;
        ++out.types;
    }
    out.graph = std::move(*graph);
    return out;
}

std::map<std::string, uint64_t> JavaPrograms::allocationsByType(const TraceFile& f, uint64_t* longest) {
    struct V : EventVisitorBase {
        std::map<uint32_t, uint64_t> by_type;
        uint64_t longest = 0;
        void onAlloc(const AllocEvent& e, size_t) {
            ++by_type[e.type];
            if (e.isArray()) longest = std::max(longest, e.length);
        }
    } v;
    std::vector<uint8_t> scratch;
    for (size_t i = 0; i < f.chunks().size(); ++i) {
        if (f.chunks()[i].kind != static_cast<uint16_t>(format::ChunkKind::kEvents)) continue;
        auto p = f.payload(i, scratch);
        EXPECT_TRUE(p.ok());
        decodeEvents(*p, f.symbols(), f.header().object_alignment, v);
    }
    std::map<std::string, uint64_t> out;
    for (auto [t, n] : v.by_type)
        out[f.symbols().type(t).name] += n;
    if (longest) *longest = v.longest;
    return out;
}

std::map<std::string, uint64_t> JavaPrograms::liveByType(const HeapHistory& h, uint32_t gc) {
    std::map<std::string, uint64_t> out;
    auto heap = h.heapAt(gc);
    EXPECT_TRUE(heap.ok());
    if (!heap.ok()) return out;
    HeapView v = heap->view();
    v.forEachLive([&](size_t p) { ++out[v.symbols().type(v.type(p)).name]; });
    return out;
}

std::string JavaPrograms::tracePath(const std::string& name) {
    return tempPath(name);
}

}  // namespace memcity::testing
