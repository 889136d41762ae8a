// End-to-end: `memcity dominators` on a hand-made heap with exact answers, its JSON, its
// grouping, and its bad input.
#include <gtest/gtest.h>

#include "cli/run_memcity.h"
#include "unit/dominator_heap.h"
#include "unit/trace_builder.h"

namespace memcity {
namespace {

using testing::Outcome;

Outcome run(const std::string& args) {
    return testing::runMemcity(args);
}

// The heap of unit/dominator_heap.h (248 B in 9 objects) at GC 0, with its snapshot; GC 1
// (nothing changed) has none.
//   static -> 0 (A, 16) -> 1 (Object[4], 32) -> 3 (int[10], 56), 4 (int[2], 24)
//             0 -> 2 (B, 24), 0 -> 7 (A, 16) <- 5;  stack local -> 5 (B, 24) -> 6 (B, 24);
//             8 (int[4], 32) unreached
std::string handMade() {
    return testing::dominatorHeap("dominators-cli", true);
}

TEST(CliDominators, TreeToDepthByRetainedSize) {
    const std::string path = handMade();
    Outcome r = run("dominators " + path + " --gc 0");
    ASSERT_EQ(r.status, 0) << r.err;
    EXPECT_EQ(
        r.out,
        path +
            ", GC 0: dominator tree (references from the snapshot of GC 0)\n"
            "  heap: 9 objects, 248 B; reached from the GC roots: 8 objects, 216 B; 1 object alive whose "
            "roots the JVM did not report are in no subtree\n"
            "\n"
            "   retained objs     retained reached      shallow  object\n"
            "               5        152 B   70.4%         16 B  A#0\n"
            "               3        112 B   51.9%         32 B    Object[]#1\n"
            "               1         24 B   11.1%         24 B    B#2\n"
            "               2         48 B   22.2%         24 B  B#5\n"
            "               1         24 B   11.1%         24 B    B#6\n"
            "               1         16 B    7.4%         16 B  A#7\n");
    // Depth 3 and one row a level: the rest summed.
    Outcome d = run("dominators " + path + " --gc 0 --depth 3 --top 1");
    ASSERT_EQ(d.status, 0) << d.err;
    EXPECT_NE(d.out.find("  A#0\n"
                         "               3        112 B   51.9%         32 B    Object[]#1\n"
                         "               1         56 B   25.9%         56 B      int[]#3\n"
                         "               1         24 B   11.1%         24 B      … 1 more\n"
                         "               1         24 B   11.1%         24 B    … 1 more\n"
                         "               3         64 B   29.6%         40 B  … 2 more\n"),
              std::string::npos)
        << d.out;
}

TEST(CliDominators, GroupedByAChainLevelByLevel) {
    const std::string path = handMade();
    // Level 0 by type; level 1 by site (the chain's second classifier), then by site below.
    Outcome r = run("dominators " + path + " --gc 0 --group-by type,site");
    ASSERT_EQ(r.status, 0) << r.err;
    EXPECT_NE(r.out.find(", grouped by type,site\n"), std::string::npos) << r.out;
    EXPECT_NE(
        r.out.find(
            "               6        168 B   77.8%         32 B  A (2 objects)\n"
            "               4        136 B   63.0%         56 B    Main.run(Main.java:10) (2 objects)\n"
            "               2         48 B   22.2%         24 B  B (1 object)\n"
            "               1         24 B   11.1%         24 B    Main.run(Main.java:10) (1 object)\n"),
        std::string::npos)
        << r.out;
}

TEST(CliDominators, Json) {
    const std::string path = handMade();
    Outcome r = run("dominators " + path + " --depth 1 --top 2 --json");  // default: the last snapshot GC
    ASSERT_EQ(r.status, 0) << r.err;
    for (const char* want :
         {"\"gc\": 0,", "\"group_by\": null,", "\"reached\": {\n    \"objects\": 8,\n    \"bytes\": 216\n  }",
          "\"label\": \"A#0\",\n      \"id\": 0,\n      \"type\": \"A\",\n      \"objects\": 1,\n      "
          "\"shallow_bytes\": 16,\n      \"retained_objects\": 5,\n      \"retained_bytes\": 152,",
          "\"label\": \"1 more\",\n      \"objects\": 1,\n      \"shallow_bytes\": 16,\n      "
          "\"retained_objects\": 1,\n      \"retained_bytes\": 16,",
          "\"more\": 1\n"})
        EXPECT_NE(r.out.find(want), std::string::npos) << want << "\n---\n" << r.out;
    EXPECT_EQ(r.out.find("\"children\""), std::string::npos) << r.out;  // depth 1
}

// The figure columns of the output's lines from the header of the rows on (the labels cut off:
// a sampled trace's objects have other ids), and its "heap: ..." line.
std::vector<std::string> figures(const std::string& out) {
    std::vector<std::string> lines;
    size_t at = out.find("  heap: ");
    for (size_t end; at < out.size() && (end = out.find('\n', at)) != std::string::npos; at = end + 1) {
        const std::string line = out.substr(at, end - at);
        lines.push_back(line.rfind("  heap: ", 0) == 0 ? line : line.substr(0, 50));
    }
    return lines;
}

TEST(CliDominators, SampledTraceIsTheWholeHeapExact) {
    // The same program recorded sampled (one object in 16 KiB) and exactly: at the snapshot the
    // sampled trace's heap is made whole, so the tree and every figure are the exact trace's.
    const std::string sampled = testing::tempPath("dominators-sampled"),
                      exact = testing::tempPath("dominators-exact");
    ASSERT_EQ(run("synth multi-cache -o " + sampled + " --sampled 16k --refs 5").status, 0);
    ASSERT_EQ(run("synth multi-cache -o " + exact + " --refs 5").status, 0);
    Outcome s = run("dominators " + sampled + " --top 2 --depth 2");
    Outcome e = run("dominators " + exact + " --top 2 --depth 2");
    ASSERT_EQ(s.status, 0) << s.err;
    ASSERT_EQ(e.status, 0) << e.err;
    EXPECT_EQ(
        s.out.substr(0, s.out.find("  heap: ")),
        sampled +
            ", GC 13: dominator tree (references from the snapshot of GC 13)\n"
            "  sampled trace: the tree and its figures are of the whole heap made whole at the snapshot, "
            "every object counted (exact, not estimates)\n");
    EXPECT_EQ(e.out.find("sampled trace"), std::string::npos) << e.out;
    const std::vector<std::string> want = figures(e.out);
    ASSERT_GE(want.size(), 6u) << e.out;
    EXPECT_EQ(want[0],
              "  heap: 160,291 objects, 5.0 MiB; reached from the GC roots: 160,291 objects, 5.0 MiB");
    EXPECT_EQ(want[3], "          40,002      1.2 MiB   23.9%         48 B");  // the first cache's map
    EXPECT_EQ(figures(s.out), want) << s.out << "\n---\n" << e.out;
    Outcome j = run("dominators " + sampled + " --top 1 --depth 1 --json");
    ASSERT_EQ(j.status, 0) << j.err;
    EXPECT_NE(j.out.find("\"whole_heap\": true,"), std::string::npos) << j.out;
    EXPECT_NE(j.out.find("\"heap\": {\n    \"objects\": 160291,"), std::string::npos) << j.out;
}

TEST(CliDominators, BadInputIsOneLine) {
    const std::string path = handMade();
    struct Case {
        std::string args, err;
    } cases[] = {
        {"dominators " + path + " --gc 1",
         "memcity dominators: " + path + ": GC 1 has no reference snapshot; the nearest is GC 0"},
        {"dominators " + path + " --gc 7",
         "memcity dominators: " + path + ": GC 7 is out of range: the trace has 2 GCs (0..1)"},
        {"dominators " + path + " --depht 2", "memcity dominators: unknown option '--depht'"},
        {"dominators " + path + " --group-by sitee",
         "memcity dominators: --group-by: classifier 'sitee': unknown"},
        {"dominators " + path + " --top 0", "memcity dominators: --top"},
        {"dominators /nonexistent/x.mct", "error: /nonexistent/x.mct: "},
    };
    for (const Case& c : cases) {
        Outcome e = run(c.args);
        EXPECT_EQ(e.status, 1) << c.args;
        EXPECT_EQ(e.err.find('\n'), e.err.size() - 1) << e.err;  // one line
        EXPECT_EQ(e.err.rfind(c.err, 0), 0u) << c.args << "\n" << e.err;
    }
    Outcome h = run("dominators --help");
    EXPECT_EQ(h.status, 0);
    EXPECT_NE(h.out.find("--group-by C"), std::string::npos) << h.out;
}

}  // namespace
}  // namespace memcity
