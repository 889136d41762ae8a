// End-to-end: the memcity binary as a user runs it.
#include <gtest/gtest.h>
#include <sys/wait.h>

#include <cstdio>
#include <fstream>
#include <sstream>

#include "unit/trace_builder.h"

namespace memcity {
namespace {

struct Outcome {
    int status = -1;
    std::string out, err;
};

std::string slurp(const std::string& path) {
    std::ifstream in(path);
    std::stringstream ss;
    ss << in.rdbuf();
    return ss.str();
}

Outcome run(const std::string& args) {
    std::string out = testing::tempPath("stdout"), err = testing::tempPath("stderr");
    std::string cmd = std::string(MEMCITY_BINARY) + " " + args + " >" + out + " 2>" + err;
    int raw = std::system(cmd.c_str());
    Outcome r;
    r.status = WIFEXITED(raw) ? WEXITSTATUS(raw) : -1;
    r.out = slurp(out);
    r.err = slurp(err);
    return r;
}

size_t lines(const std::string& s) {
    size_t n = 0;
    for (char c : s)
        n += c == '\n';
    return n;
}

std::string synth(const std::string& scenario, const std::string& extra = "") {
    std::string path = testing::tempPath(scenario);
    Outcome r = run("synth " + scenario + " -o " + path + " " + extra);
    EXPECT_EQ(r.status, 0) << r.err;
    return path;
}

TEST(Cli, HelpAndVersion) {
    Outcome r = run("--help");
    EXPECT_EQ(r.status, 0);
    for (const char* cmd : {"open", "info", "gcs", "synth"})
        EXPECT_NE(r.out.find(cmd), std::string::npos);
    for (const char* cmd : {"info", "gcs", "synth", "open"}) {
        Outcome h = run(std::string(cmd) + " --help");
        EXPECT_EQ(h.status, 0) << cmd;
        EXPECT_NE(h.out.find("usage: memcity"), std::string::npos) << cmd;
    }
    EXPECT_EQ(run("help gcs").out, run("gcs --help").out);
    EXPECT_NE(run("--version").out.find("memcity "), std::string::npos);
}

TEST(Cli, UsageErrorsAreOneLineAndFail) {
    struct Case {
        std::string args, message;
    } cases[] = {
        {"info --jsn x.mct", "memcity info: unknown option '--jsn' (see 'memcity info --help')"},
        {"frobnicate", "memcity: unknown command 'frobnicate' (see 'memcity --help')"},
        {"info", "memcity info: expected one trace file (see 'memcity info --help')"},
        {"synth churn", "memcity synth: -o FILE is required"},
        {"synth nope -o /tmp/x.mct", "memcity synth: unknown scenario 'nope' (see 'memcity synth --list')"},
        {"synth churn -o /tmp/x.mct --scale zero",
         "memcity synth: --scale expects an integer from 1 to 100000, got 'zero'"},
        {"synth churn -o /tmp/x.mct --refs never",
         "memcity synth: --refs expects a positive integer or 'off', got 'never'"},
        {"gcs x.mct --from", "memcity gcs: option --from needs a value"},
        {"info /nonexistent.mct", "error: /nonexistent.mct: cannot open: No such file or directory"},
        {"/nonexistent.mct", "error: /nonexistent.mct: cannot open: No such file or directory"},
        {"synth churn -o /nonexistent/dir/x.mct",
         "memcity synth: /nonexistent/dir/x.mct: cannot create: No such file or directory"},
        {"record -- java -version", "memcity record: -o FILE is required"},
        {"record -o /tmp/x.mct --depth 0 -- java -version",
         "memcity record: --depth expects an integer from 1 to 256, got '0'"},
        {"record -o /tmp/x.mct --refs never -- java -version",
         "memcity record: --refs expects a positive integer or 'off', got 'never'"},
        {"record -o /nonexistent/dir/x.mct -- java -version",
         "memcity record: /nonexistent/dir/x.mct: cannot write there: No such file or directory"},
    };
    for (const Case& c : cases) {
        Outcome r = run(c.args);
        EXPECT_EQ(r.status, 1) << c.args;
        EXPECT_EQ(r.err, c.message + "\n") << c.args;
        EXPECT_TRUE(r.out.empty()) << c.args;
    }
}

TEST(Cli, GcIndexOutOfRange) {
    std::string path = synth("buggy-stack");
    Outcome r = run("gcs " + path + " --from 2 --to 999");
    EXPECT_EQ(r.status, 1);
    EXPECT_EQ(lines(r.err), 1u);
    EXPECT_NE(r.err.find(path + ": GC 999 is out of range: the trace has "), std::string::npos) << r.err;
    Outcome o = run("open " + path + " --gc 999");
    EXPECT_EQ(o.status, 1);
    EXPECT_NE(o.err.find("GC 999 is out of range"), std::string::npos) << o.err;
}

TEST(Cli, InfoOnASoundTrace) {
    std::string path = synth("multi-cache");
    Outcome r = run("info " + path);
    EXPECT_EQ(r.status, 0) << r.err;
    EXPECT_TRUE(r.err.empty()) << r.err;
    EXPECT_NE(r.out.find("integrity   no problems found"), std::string::npos) << r.out;
    EXPECT_NE(r.out.find("synth.scenario = multi-cache"), std::string::npos);
    Outcome j = run("info " + path + " --json");
    EXPECT_EQ(j.status, 0);
    for (const char* key : {"\"format_version\": \"1.0\"", "\"truncated\": false", "\"objects_allocated\": ",
                            "\"peak_live\": {", "\"errors\": 0", "\"alloc\": ", "\"deaths\": "})
        EXPECT_NE(j.out.find(key), std::string::npos) << key << "\n" << j.out;
}

TEST(Cli, InfoReportsIntegrityErrorsWithOffsetsAndExitsTwo) {
    testing::TraceBuilder b("cli-bad");
    b.alloc(0).alloc(1).gc(0, 2, {5});
    std::string path = b.finish();
    Outcome r = run("info " + path);
    EXPECT_EQ(r.status, 2);
    EXPECT_EQ(lines(r.err), 1u) << r.err;
    EXPECT_NE(r.err.find("error: " + path + ": offset "), std::string::npos) << r.err;
    EXPECT_NE(r.err.find("object 5 dies at GC 0 but was never allocated"), std::string::npos) << r.err;
    Outcome j = run("info --json " + path);
    EXPECT_EQ(j.status, 2);
    EXPECT_NE(j.out.find("\"kind\": \"unknown-death\""), std::string::npos) << j.out;
    // Other commands still show the trace, with the problem as a warning.
    Outcome g = run("gcs " + path);
    EXPECT_EQ(g.status, 0);
    EXPECT_NE(g.err.find("warning: " + path + ": offset "), std::string::npos);
}

TEST(Cli, TruncatedTraceWarnsAndStillShows) {
    std::string path = synth("steady");
    auto bytes = testing::readFile(path);
    bytes.resize(bytes.size() * 2 / 3);
    std::string cut = testing::tempPath("cut");
    testing::writeFile(cut, bytes);
    Outcome r = run("info " + cut);
    EXPECT_EQ(r.status, 0) << r.err;
    EXPECT_NE(r.err.find("warning: " + cut + ": offset "), std::string::npos) << r.err;
    EXPECT_NE(r.err.find("the trace is cut off here"), std::string::npos) << r.err;
    Outcome g = run("gcs " + cut + " --json");
    EXPECT_EQ(g.status, 0);
    EXPECT_NE(g.out.find("\"index\": 0"), std::string::npos);
}

TEST(Cli, GcsTableAndJson) {
    std::string path = synth("buggy-stack", "--refs off");
    Outcome r = run("gcs " + path + " --from 1 --to 2");
    EXPECT_EQ(r.status, 0) << r.err;
    EXPECT_EQ(lines(r.out), 3u) << r.out;  // header + 2 rows
    Outcome j = run("gcs " + path + " --json");
    EXPECT_EQ(j.status, 0);
    EXPECT_NE(j.out.find("\"reachable_bytes\": null"), std::string::npos) << j.out;  // no snapshots
    EXPECT_NE(j.out.find("\"cause\": \"System.gc()\""), std::string::npos);
}

TEST(Cli, OverviewAndSynthList) {
    std::string path = synth("growing-map");
    Outcome r = run(path);
    EXPECT_EQ(r.status, 0) << r.err;
    EXPECT_NE(r.out.find("live heap after each GC"), std::string::npos);
    EXPECT_NE(r.out.find("biggest types at GC"), std::string::npos);
    EXPECT_NE(r.out.find("com.dynatrace.easytravel.jpa.business.Location"), std::string::npos);
    Outcome l = run("synth --list");
    EXPECT_EQ(l.status, 0);
    EXPECT_EQ(lines(l.out), 7u);
}

}  // namespace
}  // namespace memcity

namespace memcity {
namespace {

TEST(Cli, DiffPrintsBornDiedPermanent) {
    const std::string path = synth("buggy-stack");
    Outcome r = run("diff " + path + " --from 3 --to 4 --depth 1");
    ASSERT_EQ(r.status, 0) << r.err;
    EXPECT_NE(r.out.find("         1,000          1,000          9,000    at.jku.data.TestObject"),
              std::string::npos)
        << r.out;
    Outcome j = run("diff " + path + " --from 3 --to 4 --json --depth 1");
    ASSERT_EQ(j.status, 0) << j.err;
    EXPECT_NE(j.out.find("\"permanent\": {\n"), std::string::npos) << j.out;
    for (auto [args, message] : std::vector<std::pair<std::string, std::string>>{
             {" --from 3", "memcity diff: --from A and --to B are required"},
             {" --from 4 --to 3", "memcity diff: --from 4 is after --to 3"},
             {" --from 3 --to 99",
              "memcity diff: " + path + ": GC 99 is out of range: the trace has 5 GCs (0..4)"},
         }) {
        Outcome e = run("diff " + path + args);
        EXPECT_EQ(e.status, 1) << args;
        EXPECT_EQ(e.err, message + "\n") << args;
    }
}

TEST(Cli, ReportPrintsTheClassificationTree) {
    const std::string path = synth("buggy-stack");
    // GC 4 is GC b: 10,000 TestObjects, 9,000 pushed from main:43 and 1,000 from main:47.
    Outcome r = run("report " + path + " --gc 4 --classify 'type,site(callers=1)' --metric objects --all");
    ASSERT_EQ(r.status, 0) << r.err;
    EXPECT_NE(r.out.find(", GC 4: "), std::string::npos) << r.out;
    EXPECT_NE(r.out.find("by type,site(callers=1)"), std::string::npos) << r.out;
    EXPECT_NE(r.out.find("10,000 100.0%    at.jku.data.TestObject"), std::string::npos) << r.out;
    EXPECT_NE(r.out.find("9,000  90.0%        at.jku.BuggyMain.main(BuggyMain.java:43)"), std::string::npos)
        << r.out;
    EXPECT_NE(r.out.find("at.jku.BuggyMain.main(BuggyMain.java:47)"), std::string::npos) << r.out;

    Outcome j = run("report " + path + " --gc 4 --classify type --json --filter 'type ~ \"at.jku.*\"'");
    ASSERT_EQ(j.status, 0) << j.err;
    EXPECT_NE(j.out.find("\"classifiers\": \"type\""), std::string::npos) << j.out;
    EXPECT_NE(j.out.find("\"name\": \"at.jku.data.TestObject\""), std::string::npos) << j.out;
    EXPECT_NE(j.out.find("\"objects\": 10000"), std::string::npos) << j.out;
    EXPECT_EQ(j.out.find("java.lang.Object[]"), std::string::npos) << "filtered out";

    for (auto [args, message] : std::vector<std::pair<std::string, std::string>>{
             {" --classify tpye", "memcity report: classifier 'tpye': unknown (classifiers: "},
             {" --gc 999",
              "memcity report: " + path + ": GC 999 is out of range: the trace has 5 GCs (0..4)"},
             {" --metric weight", "memcity report: --metric expects objects or bytes, got 'weight'"},
             {" --filter 'age >'", "memcity report: --filter: line 1, column "},
         }) {
        Outcome e = run("report " + path + args);
        EXPECT_EQ(e.status, 1) << args;
        EXPECT_EQ(lines(e.err), 1u) << e.err;
        EXPECT_EQ(e.err.rfind(message, 0), 0u) << e.err;
    }
}

TEST(Cli, SeriesShowsEveryGroupOverTime) {
    const std::string path = synth("buggy-stack");
    // TestObjects at GCs 0..4: 2,049, 4,097, 8,193, 10,000, 10,000 (GC a and GC b hold N).
    Outcome r = run("series " + path + " --classify type --metric objects --depth 1");
    ASSERT_EQ(r.status, 0) << r.err;
    EXPECT_NE(r.out.find(", GC 0..4 (5 GCs), by type, 5 groups, sorted by growth of objects\n"),
              std::string::npos)
        << r.out;
    EXPECT_NE(r.out.find("       2,049       10,000       +7,951  \u2582\u2583\u2587\u2588\u2588" +
                         std::string(19, ' ') + "    at.jku.data.TestObject\n"),
              std::string::npos)
        << r.out;
    EXPECT_NE(r.out.find("           3            3            0  "), std::string::npos) << r.out;
    EXPECT_NE(r.out.find("Other (3 groups)"), std::string::npos) << r.out;
    Outcome w = run("series " + path + " --classify type --from 3 --to 4 --sort end --metric bytes --all");
    ASSERT_EQ(w.status, 0) << w.err;
    EXPECT_NE(w.out.find(", GC 3..4 (2 GCs), by type, 5 groups, sorted by end of bytes\n"), std::string::npos)
        << w.out;
    EXPECT_NE(w.out.find("   156.2 KiB    156.2 KiB            0  "), std::string::npos) << w.out;
    EXPECT_EQ(w.out.find("Other"), std::string::npos) << w.out;

    Outcome j = run("series " + path + " --classify type --json --depth 1 --to 1");
    ASSERT_EQ(j.status, 0) << j.err;
    EXPECT_NE(j.out.find("\"gcs\": [\n    0,\n    1\n  ]"), std::string::npos) << j.out;
    EXPECT_NE(j.out.find("\"name\": \"at.jku.data.TestObject\""), std::string::npos) << j.out;
    EXPECT_NE(j.out.find("\"objects\": [\n          2049,\n          4097\n        ]"), std::string::npos)
        << j.out;
    EXPECT_NE(j.out.find("\"sort\": \"growth\""), std::string::npos) << j.out;
    EXPECT_NE(j.out.find("\"other\": {"), std::string::npos) << j.out;

    Outcome h = run("series --help");
    EXPECT_EQ(h.status, 0);
    EXPECT_EQ(h.out.rfind("usage: memcity series FILE", 0), 0u) << h.out;
    EXPECT_NE(run("--help").out.find("  series  "), std::string::npos);

    for (auto [args, message] : std::vector<std::pair<std::string, std::string>>{
             {" --sort size", "memcity series: --sort expects start, end or growth, got 'size'"},
             {" --from 4 --to 3", "memcity series: --from 4 is after --to 3"},
             {" --to 99", "memcity series: " + path + ": GC 99 is out of range: the trace has 5 GCs (0..4)"},
             {" --from 5", "memcity series: " + path + ": GC 5 is out of range: the trace has 5 GCs (0..4)"},
             {" --classify tpye", "memcity series: classifier 'tpye': unknown (classifiers: "},
             {" --metric weight", "memcity series: --metric expects objects or bytes, got 'weight'"},
             {" --from x", "memcity series: --from expects"},
         }) {
        Outcome e = run("series " + path + args);
        EXPECT_EQ(e.status, 1) << args;
        EXPECT_EQ(lines(e.err), 1u) << e.err;
        EXPECT_EQ(e.err.rfind(message, 0), 0u) << e.err;
    }
}

}  // namespace
}  // namespace memcity
