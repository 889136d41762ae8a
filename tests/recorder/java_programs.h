// The recorder's tests' fixture: the Java programs of tests/recorder/java, compiled once per
// test binary with the JDK memcity was built against, and what the tests read from a trace.
#pragma once

#include <gtest/gtest.h>

#include <filesystem>
#include <map>
#include <memory>
#include <string>
#include <vector>

#include "graph/heap_graph.h"
#include "heap/heap_history.h"
#include "trace/trace_reader.h"

namespace memcity::testing {

inline const std::string kJavaHome = MEMCITY_JAVA_HOME;
inline const std::string kMemcity = MEMCITY_BINARY;

class JavaPrograms : public ::testing::Test {
public:
    static void SetUpTestSuite();
    static void TearDownTestSuite();

protected:
    // `memcity record` of a program of ours, with extra JVM flags.
    static std::vector<std::string> record(const std::string& trace, std::vector<std::string> jvm_flags,
                                           std::vector<std::string> program,
                                           std::vector<std::string> options = {});

    struct Loaded {
        std::unique_ptr<TraceFile> file;
        std::unique_ptr<HeapHistory> history;
    };
    static Loaded load(const std::string& path);
    static std::string describeAnomalies(const Diagnostics& d);
    // Allocation events per type name, over the whole trace; `longest`: the longest array's length.
    static std::map<std::string, uint64_t> allocationsByType(const TraceFile& f, uint64_t* longest = nullptr);
    static std::map<std::string, uint64_t> liveByType(const HeapHistory& h, uint32_t gc);
    // A sampled trace's GC `gc` with a snapshot: its heap made whole holds every type the census
    // counted there with the census's objects and bytes, and what the roots reach and what they
    // do not add up to it (failures added to the test). Returns the heap made whole's graph
    // (null on failure), with `heap` the samples' heap it was made from, and the types compared.
    struct MadeWhole {
        std::unique_ptr<HeapGraph> graph;
        size_t types = 0;
    };
    static MadeWhole expectMadeWholeAsCounted(const HeapHistory& h, uint32_t gc, HeapState& heap);
    static std::string tracePath(const std::string& name);

    static std::filesystem::path classes_;  // the compiled programs
};

}  // namespace memcity::testing
