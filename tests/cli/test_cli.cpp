// End-to-end: the memcity binary as a user runs it.
#include <gtest/gtest.h>
#include <sys/wait.h>

#include <cstdio>
#include <filesystem>
#include <fstream>
#include <sstream>

#include "cli/commands.h"
#include "cli/run_memcity.h"
#include "trace/trace_reader.h"
#include "unit/trace_builder.h"

namespace memcity {
namespace {

using testing::Outcome;
using testing::slurp;

Outcome run(const std::string& args) {
    return testing::runMemcity(args);
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
    // The options come from the command table: one column, pairs on one line, -h last.
    const std::string render = run("render --help").out;
    EXPECT_NE(render.find("\noptions:\n  --view V           city (default)"), std::string::npos) << render;
    EXPECT_NE(render.find("\n  --from A, --to B   the window of GCs"), std::string::npos) << render;
    EXPECT_NE(render.find("\n  -o, --output F     the PNG to write"), std::string::npos) << render;
    EXPECT_NE(render.find("\n                     on one layout"), std::string::npos)
        << render;  // a second line
    EXPECT_EQ(render.substr(render.size() - 31), "  -h, --help         this help\n");
    // Every option a command's help lists, it takes (and nothing else).
    for (const cli::Command& c : cli::commands())
        for (const cli::OptionSpec& o : c.options) {
            auto parsed = cli::Args::parse(c.name, {std::string(o.name), "1"});
            EXPECT_TRUE(parsed.ok()) << c.name << " " << o.name;
        }
    // The terminal overview takes the window's --gc, and says so of the others.
    const Outcome window_only = run(std::string("open ") + MEMCITY_DEMO_TRACE + " --classify type");
    EXPECT_EQ(window_only.status, 1);
    EXPECT_EQ(window_only.err,
              "memcity open: --classify is for the window; the terminal overview takes --gc N\n");
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
         "memcity record: --refs expects a number of GCs from 1 to 1000000, a share of the run from 1% to "
         "100%, "
         "or 'off', got 'never'"},
        {"record -o /tmp/x.mct --sampled --refs 0% -- java -version",
         "memcity record: --refs expects a number of GCs from 1 to 1000000, a share of the run from 1% to "
         "100%, "
         "or 'off', got '0%'"},
        {"record -o /tmp/x.mct --refs 101% -- java -version",
         "memcity record: --refs expects a number of GCs from 1 to 1000000, a share of the run from 1% to "
         "100%, "
         "or 'off', got '101%'"},
        {"snapshot",
         "memcity snapshot: give the process id of a running JVM, e.g. 'memcity snapshot 1234' (jps or "
         "jcmd lists them)"},
        {"snapshot 4194304 --now", "memcity snapshot: process 4194304 does not exist"},
        {"snapshot 1 --later", "memcity snapshot: unknown option '--later' (see 'memcity snapshot --help')"},
        {"record -o /tmp/x.mct --gc-every 4x -- java -version",
         "memcity record: --gc-every expects a size from 1m to 1024g (e.g. 4m), got '4x'"},
        {"record -o /tmp/x.mct --gc-every 512k -- java -version",
         "memcity record: --gc-every expects a size from 1m to 1024g (e.g. 4m), got '512k'"},
        {"record -o /tmp/x.mct --gc-every 99999999999999999999 -- java -version",
         "memcity record: --gc-every expects a size from 1m to 1024g (e.g. 4m), got '99999999999999999999'"},
        {"record -o /tmp/x.mct --gc-every 4m -- java -Xmn8m -version",
         "memcity record: --gc-every sizes the young generation, which the command sizes too (-Xmn, NewSize "
         "or "
         "SurvivorRatio): drop one"},
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
    EXPECT_EQ(lines(o.err), 1u) << o.err;
    EXPECT_EQ(o.out, "");  // refused before the overview starts
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
    for (const char* key : {"\"format_version\": \"1.4\"", "\"truncated\": false", "\"objects_allocated\": ",
                            "\"peak_live\": {", "\"errors\": 0", "\"alloc\": ", "\"deaths\": "})
        EXPECT_NE(j.out.find(key), std::string::npos) << key << "\n" << j.out;
}

// A trace whose writer (here, this test's) still holds it: read as far as it is complete, and said.
TEST(Cli, ATraceStillBeingWrittenIsReadAsFarAsItIsComplete) {
    testing::TraceBuilder b("cli-live");
    b.alloc(1).alloc(2).gc(0, 3, {1}).alloc(3).gc(1, 4).flush();
    Outcome r = run("gcs " + b.path());
    EXPECT_EQ(r.status, 0) << r.err;
    EXPECT_EQ(r.err,
              "warning: " + b.path() + ": offset " + std::to_string(std::filesystem::file_size(b.path())) +
                  ": the trace is still being written (its recorder is running); read the " +
                  std::to_string(TraceFile::open(b.path())->chunks().size()) + " chunks complete so far\n");
    Outcome info = run("info " + b.path() + " --json");
    EXPECT_NE(info.out.find("\"being_written\": true"), std::string::npos) << info.out;
    b.finish();
    info = run("info " + b.path() + " --json");
    EXPECT_NE(info.out.find("\"being_written\": false"), std::string::npos) << info.out;
    EXPECT_NE(info.out.find("\"truncated\": false"), std::string::npos) << info.out;
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

// The churn window `windows` finds in the churn scenario, and what `churn` says churned in it.
TEST(Cli, ChurnNamesWhatDiedWithinAWindowsSuggestion) {
    const std::string path = synth("churn");
    Outcome w = run("windows " + path);
    ASSERT_EQ(w.status, 0) << w.err;
    const std::string next = "next: memcity churn " + path + " --from 7 --to 12 --classify type,site";
    EXPECT_NE(w.out.find(next), std::string::npos) << w.out;
    Outcome r = run("churn " + path + " --from 7 --to 12 --classify 'type,site(callers=1)' --metric bytes");
    ASSERT_EQ(r.status, 0) << r.err;
    EXPECT_NE(r.out.find("82,000 objects (1.3 MiB) died within, 0 objects (0 B) survive"), std::string::npos)
        << r.out;
    EXPECT_NE(r.out.find("     640.6 KiB    154.8 MiB/s            0 B    java.lang.Integer\n"),
              std::string::npos)
        << r.out;
    Outcome j = run("churn " + path + " --from 7 --to 12 --json --depth 1");
    ASSERT_EQ(j.status, 0) << j.err;
    EXPECT_NE(j.out.find("\"objects_per_s\": "), std::string::npos) << j.out;
    for (auto [args, message] : std::vector<std::pair<std::string, std::string>>{
             {" --to 3", "memcity churn: --from A and --to B are required"},
             {" --from 4 --to 4",
              "memcity churn: " + path + ": a churn window needs two GCs, --from before --to (got 4..4)"},
             {" --from 3 --to 99",
              "memcity churn: " + path + ": GC 99 is out of range: the trace has 51 GCs (0..50)"},
             {" --from 3 --to 9 --classify 'roots'",
              "memcity churn: 'roots' reads references, which objects that died between snapshots never had; "
              "churn takes chains that read none"},
             {" --from 3 --to 9 --window 2",
              "memcity churn: unknown option '--window' (see 'memcity churn --help')"},
         }) {
        Outcome e = run("churn " + path + args);
        EXPECT_EQ(e.status, 1) << args;
        EXPECT_EQ(e.err, message + "\n") << args;
    }
}

// The inspector's closures and every root reaching the group, classified by a chain of one's own.
TEST(Cli, InspectClassifiesClosuresAndReachingRoots) {
    const std::string path = synth("buggy-stack");
    Outcome r = run("inspect " + path +
                    " --gc 4 --classify type --node at.jku.data.TestObject --closure-by type,site");
    ASSERT_EQ(r.status, 0) << r.err;
    for (const char* want : {
             "every GC root reaching the group (its rooted objects, by root):\n"
             "               1 objects         24 B  stack local main at.jku.BuggyMain.main\n",
             "retained (freed with it), by type,site:\n"
             "          10,000 objects    156.2 KiB  at.jku.data.TestObject\n"
             "          10,000 objects    156.2 KiB    at.jku.BuggyMain.fill(BuggyMain.java:21)\n",
             "rooted objects reaching it, by type,site:\n"
             "               1 objects         24 B  at.jku.data.BuggyStack\n",
         })
        EXPECT_NE(r.out.find(want), std::string::npos) << want << "\n---\n" << r.out;
    Outcome bad = run("inspect " + path + " --closure-by sitee");
    EXPECT_EQ(bad.status, 1);
    EXPECT_EQ(bad.err.substr(0, 44), "memcity inspect: --closure-by: classifier 's");
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

// The group named `name` in report --json output: its "objects" and "bytes" as "objects N, bytes N".
std::string jsonGroup(const std::string& json, const std::string& name) {
    const size_t at = json.find("\"name\": \"" + name + "\"");
    if (at == std::string::npos) return "no group " + name;
    const size_t end = json.find('}', at);
    auto number = [&](const std::string& key) {
        const size_t k = json.find("\"" + key + "\": ", at);
        if (k == std::string::npos || k > end) return std::string("?");
        const size_t v = k + key.size() + 4;
        return json.substr(v, json.find_first_of(",\n}", v) - v);
    };
    return "objects " + number("objects") + ", bytes " + number("bytes");
}

TEST(Cli, ReportAndDiffWithAPluginClassifier) {
    const std::string path = synth("buggy-stack");
    const std::string plugin = MEMCITY_SIZE_CLASS_PLUGIN;
    // GC 4 (GC b): 10,000 TestObjects of 16 B; the BuggyStack (24 B) and the main Thread (40 B);
    // the stack's Object[16384] (65,552 B).
    Outcome r = run("report " + path + " --gc 4 --classify 'plugin(path=" + plugin +
                    ",limits=16:64),type' --json --all");
    ASSERT_EQ(r.status, 0) << r.err;
    EXPECT_EQ(r.err, "");
    EXPECT_NE(r.out.find("\"classifiers\": \"plugin(path=" + plugin + ",limits=16:64),type\""),
              std::string::npos)
        << r.out;
    EXPECT_EQ(jsonGroup(r.out, "Overall"), "objects 10003, bytes 225616");
    EXPECT_EQ(jsonGroup(r.out, "up to 16 B"), "objects 10000, bytes 160000");
    EXPECT_EQ(jsonGroup(r.out, "at.jku.data.TestObject"), "objects 10000, bytes 160000");
    EXPECT_EQ(jsonGroup(r.out, "17 B – 64 B"), "objects 2, bytes 64");
    EXPECT_EQ(jsonGroup(r.out, "at.jku.data.BuggyStack"), "objects 1, bytes 24");
    EXPECT_EQ(jsonGroup(r.out, "over 64 B"), "objects 1, bytes 65552");
    EXPECT_EQ(jsonGroup(r.out, "java.lang.Object[]"), "objects 1, bytes 65552");

    // Between GC a and GC b: born 1,000, died 1,000, permanent 9,000 TestObjects (docs/scenarios.md).
    Outcome d =
        run("diff " + path + " --from 3 --to 4 --classify 'plugin(path=" + plugin + ",limits=16)' --depth 1");
    ASSERT_EQ(d.status, 0) << d.err;
    EXPECT_NE(d.out.find("         1,000          1,000          9,000    up to 16 B\n"), std::string::npos)
        << d.out;
    EXPECT_NE(d.out.find("             0              0              3    over 16 B\n"), std::string::npos)
        << d.out;

    const std::string overflow = MEMCITY_BAD_OVERFLOW_PLUGIN;
    for (auto [args, message] : std::vector<std::pair<std::string, std::string>>{
             {"report " + path + " --classify 'plugin(path=/nonexistent.so)'",
              "memcity report: classifier 'plugin(path=/nonexistent.so)': /nonexistent.so: cannot open: No "
              "such "
              "file or directory"},
             {"report " + path + " --classify 'type,plugin(path=" + plugin + ",limits=x)'",
              "memcity report: classifier 'plugin(path=" + plugin +
                  ",limits=x)': size-class: limits expects up to 32 increasing byte counts separated by ':', "
                  "got "
                  "'x'"},
             {"report " + path + " --gc 4 --classify 'plugin(path=" + overflow + ")'",
              "memcity report: classifier 'plugin(path=" + overflow +
                  ")': bad: classify returned 3 keys, more than the capacity 2 for object "},
             {"diff " + path + " --from 3 --to 4 --classify 'plugin(path=" + overflow + ")'",
              "memcity diff: classifier 'plugin(path=" + overflow +
                  ")': bad: classify returned 3 keys, more than the capacity 2 for object "},
         }) {
        Outcome e = run(args);
        EXPECT_EQ(e.status, 1) << args;
        EXPECT_EQ(lines(e.err), 1u) << e.err;
        EXPECT_EQ(e.err.rfind(message, 0), 0u) << e.err;
        EXPECT_EQ(e.out, "") << args;
    }
}

}  // namespace
}  // namespace memcity

namespace memcity {
namespace {

TEST(Cli, WindowsFindsTheDemoLeak) {
    const std::string demo = std::string(MEMCITY_TEST_DATA) + "/../../assets/demo.mct";
    Outcome r = run("windows " + demo);
    ASSERT_EQ(r.status, 0) << r.err;
    EXPECT_TRUE(r.err.empty()) << r.err;
    EXPECT_NE(r.out.find("leaks looked for in reachable memory (12 GCs with a reference snapshot)\n"),
              std::string::npos)
        << r.out;
    EXPECT_NE(r.out.find("memory leak (heuristic)\n  GCs 0..41 (42 GCs, "), std::string::npos) << r.out;
    EXPECT_NE(
        r.out.find("  reachable memory 605.2 KiB -> 2.9 MiB (+2.3 MiB, +391.6%), peak 3.7 MiB at GC 40\n"),
        std::string::npos)
        << r.out;
    EXPECT_NE(r.out.find("  next: memcity diff " + demo + " --from 0 --to 41 --classify type,site"),
              std::string::npos)
        << r.out;
    // What the window's diff shows: the audit history's entries, one per request, all kept.
    Outcome d = run("diff " + demo + " --from 0 --to 41 --classify type --depth 1 --all");
    ASSERT_EQ(d.status, 0) << d.err;
    EXPECT_NE(d.out.find("         2,500              0              0    ShopServer$AuditEntry\n"),
              std::string::npos)
        << d.out;

    Outcome j = run("windows " + demo + " --json --leak-method heuristic --no-narrow");
    ASSERT_EQ(j.status, 0) << j.err;
    for (const char* key : {"\"leak_series\": \"reachable\"", "\"leak_points\": 12",
                            "\"kind\": \"leak-heuristic\"", "\"first_gc\": 0", "\"last_gc\": 41",
                            "\"peak_gc\": 40", "\"points\": 12", "\"narrowed\": false", "\"notes\": ["})
        EXPECT_NE(j.out.find(key), std::string::npos) << key << "\n" << j.out;
    EXPECT_EQ(j.out.find("leak-regression"), std::string::npos) << j.out;
    EXPECT_EQ(j.out.find("\"narrowed\": true"), std::string::npos) << j.out;
}

TEST(Cli, WindowsOnTheScenarios) {
    Outcome g = run("windows " + synth("growing-map") + " --json");
    ASSERT_EQ(g.status, 0) << g.err;
    EXPECT_NE(g.out.find("\"kind\": \"leak-heuristic\",\n      \"narrowed\": false,\n      \"first_gc\": 3,\n"
                         "      \"last_gc\": 26,"),
              std::string::npos)
        << g.out;

    Outcome c = run("windows " + synth("churn"));
    ASSERT_EQ(c.status, 0) << c.err;
    EXPECT_NE(c.out.find("\nhigh memory churn\n  GCs "), std::string::npos) << c.out;
    EXPECT_NE(c.out.find("\nhigh GC overhead\n  GCs "), std::string::npos) << c.out;
    EXPECT_EQ(c.out.find("memory leak"), std::string::npos) << c.out;

    const std::string steady = synth("steady");
    Outcome s = run("windows " + steady);
    ASSERT_EQ(s.status, 0) << s.err;
    EXPECT_NE(s.out.find("\nno suspicious window\nnot found:\n"), std::string::npos) << s.out;
    EXPECT_NE(s.out.find("  gc-overhead: no window: the highest overhead over 5..50 GCs is "),
              std::string::npos);
    // The paper's algorithms take the steady server's warm-up for a leak over the whole run.
    Outcome p = run("windows " + steady + " --paper --leak-method heuristic --no-narrow");
    ASSERT_EQ(p.status, 0) << p.err;
    EXPECT_NE(p.out.find("memory leak (heuristic)\n  GCs 0..30 (31 GCs, "), std::string::npos) << p.out;
    // Thresholds move: at 5% the steady server's GC overhead (5.6%) is a window.
    Outcome o = run("windows " + steady + " --min-overhead 5 --json");
    ASSERT_EQ(o.status, 0) << o.err;
    EXPECT_NE(o.out.find("\"kind\": \"gc-overhead\""), std::string::npos) << o.out;
    EXPECT_NE(o.out.find("\"min_overhead\": 0.05"), std::string::npos) << o.out;
}

TEST(Cli, WindowsOnTinyTraces) {
    testing::TraceBuilder none("cli-no-gc");
    none.alloc(0).alloc(1);
    Outcome r = run("windows " + none.finish());
    ASSERT_EQ(r.status, 0) << r.err;
    EXPECT_NE(r.out.find("\nno suspicious window\nnot found:\n  no window: the trace has no GCs\n"),
              std::string::npos)
        << r.out;
    testing::TraceBuilder one("cli-one-gc");
    one.alloc(0).alloc(1).gc(0, 2, {1});
    Outcome o = run("windows " + one.finish() + " --json");
    ASSERT_EQ(o.status, 0) << o.err;
    EXPECT_NE(o.out.find("\"windows\": []"), std::string::npos) << o.out;
    EXPECT_NE(o.out.find("\"leak: no window: live memory is known at 1 GC, a window needs 3\""),
              std::string::npos)
        << o.out;
    EXPECT_EQ(o.out.find("nan"), std::string::npos) << o.out;
}

TEST(Cli, WindowsBadOptions) {
    for (auto [args, message] : std::vector<std::pair<std::string, std::string>>{
             {"", "memcity windows: expected one trace file (see 'memcity windows --help')"},
             {"x.mct --leak-method fast",
              "memcity windows: --leak-method expects regression, heuristic or both, got 'fast'"},
             {"x.mct --leak-series heap",
              "memcity windows: --leak-series expects auto, reachable, live or full-gc, got 'heap'"},
             {"x.mct --churn all", "memcity windows: --churn expects freed or short-lived, got 'all'"},
             {"x.mct --min-overhead 150",
              "memcity windows: --min-overhead expects a percentage from 0 to 100, got '150'"},
             {"x.mct --min-overhead ten",
              "memcity windows: --min-overhead expects a percentage from 0 to 100, got 'ten'"},
             {"x.mct --min-growth -5",
              "memcity windows: --min-growth expects a percentage of at least 0, got '-5'"},
             {"x.mct --min-r2 2", "memcity windows: --min-r2 expects a number from 0 to 1, got '2'"},
             {"x.mct --min-churn-ratio nan",
              "memcity windows: --min-churn-ratio expects a number of at least 0, got 'nan'"},
             {"x.mct --min-gcs 0", "memcity windows: --min-gcs expects an integer from 1 to 100000, got '0'"},
             {"x.mct --min-gcs 10 --max-gcs 5", "memcity windows: --max-gcs 5 is below --min-gcs 10"},
             {"x.mct --min-points 1",
              "memcity windows: --min-points expects an integer from 2 to 100000, got '1'"},
             {"x.mct --window 3",
              "memcity windows: unknown option '--window' (see 'memcity windows --help')"},
             {"/nonexistent.mct", "error: /nonexistent.mct: cannot open: No such file or directory"},
         }) {
        Outcome e = run("windows " + args);
        EXPECT_EQ(e.status, 1) << args;
        EXPECT_EQ(e.err, message + "\n") << args;
        EXPECT_TRUE(e.out.empty()) << args;
    }
    Outcome h = run("windows --help");
    EXPECT_EQ(h.status, 0);
    EXPECT_NE(h.out.find("usage: memcity windows FILE"), std::string::npos);
    EXPECT_NE(run("--help").out.find("  windows "), std::string::npos);
    // 12.5% is a percentage too.
    EXPECT_EQ(run("windows " + synth("gc-hotspot") + " --min-overhead 12.5%").status, 0);
}

// ManLang18 §5.1 from the command line: the two cache maps together retain 5,222,272 bytes at
// scale 1, each alone far less (docs/scenarios.md).
TEST(Cli, InspectAndRetainedSizesOnMultiCache) {
    const std::string path = synth("multi-cache");
    const std::string id_map =
        "java.util.HashMap/jku.anttracks.example.data.IdCache.<clinit>(IdCache.java:9)";
    const std::string name_map =
        "java.util.HashMap/jku.anttracks.example.data.NameCache.<clinit>(NameCache.java:9)";
    Outcome both = run("inspect " + path + " --node '" + id_map + ";" + name_map + "' --json");
    ASSERT_EQ(both.status, 0) << both.err;
    EXPECT_NE(both.out.find("\"retained\": {\n    \"objects\": 160004,\n    \"bytes\": 5222272\n"),
              std::string::npos)
        << both.out;
    EXPECT_NE(both.out.find("\"name\": \"static field jku.anttracks.example.data.IdCache.idCache\""),
              std::string::npos)
        << both.out;
    Outcome one = run("inspect " + path + " --node '" + id_map + "'");
    ASSERT_EQ(one.status, 0) << one.err;
    EXPECT_NE(one.out.find("retained           40,002 objects      1.2 MiB"), std::string::npos) << one.out;
    EXPECT_NE(one.out.find("static field jku.anttracks.example.data.IdCache.idCache → java.util.HashMap"),
              std::string::npos)
        << one.out;

    Outcome r = run("report " + path +
                    " --classify type,site --filter 'type == \"java.util.HashMap\"' --retained --all --json");
    ASSERT_EQ(r.status, 0) << r.err;
    EXPECT_NE(r.out.find("\"retained\": {\n"), std::string::npos) << r.out;
    EXPECT_NE(r.out.find("\"bytes\": 1251136"), std::string::npos) << r.out;
    EXPECT_NE(r.out.find("\"bytes\": 771136"), std::string::npos) << r.out;

    Outcome roots = run("report " + path + " --classify rooted,type --all");
    ASSERT_EQ(roots.status, 0) << roots.err;
    EXPECT_NE(roots.out.find("1   0.0%        idCache\n"), std::string::npos) << roots.out;

    for (auto [args, message] : std::vector<std::pair<std::string, std::string>>{
             {"inspect " + path + " --node 'java.util.HashMap/Foo'",
              "memcity inspect: no node 'java.util.HashMap / Foo' at GC 13 by type,site (under "
              "'java.util.HashMap': "},
             {"inspect " + path + " --gc 99", "memcity inspect: " + path + ": GC 99 is out of range"},
             {"report " + path + " --classify 'points-to(sitee)'",
              "memcity report: classifier 'points-to(sitee)': classifier 'sitee': unknown"},
         }) {
        Outcome e = run(args);
        EXPECT_EQ(e.status, 1) << args;
        EXPECT_EQ(lines(e.err), 1u) << e.err;
        EXPECT_EQ(e.err.rfind(message, 0), 0u) << e.err;
    }
    // Diff by data structure between the first and the last GC: the products came into both maps.
    Outcome d = run("diff " + path + " --from 0 --to 13 --classify structure,type --json");
    ASSERT_EQ(d.status, 0) << d.err;
    EXPECT_NE(d.out.find("\"name\": \"in several data structures\""), std::string::npos) << d.out;
    // A GC without a snapshot is named, with the nearest that have one.
    const std::string sparse = synth("growing-map", "--refs 3");
    Outcome nd = run("diff " + sparse + " --from 3 --to 4 --classify roots");
    EXPECT_EQ(nd.status, 1);
    EXPECT_EQ(
        nd.err,
        "memcity diff: " + sparse +
            ": GC 4 has no reference snapshot; the nearest are GCs 3 and 6 ('memcity gcs' marks them)\n");
    Outcome e = run("inspect " + sparse + " --gc 4");
    EXPECT_EQ(e.status, 1);
    EXPECT_EQ(
        e.err,
        "memcity inspect: " + sparse +
            ": GC 4 has no reference snapshot; the nearest are GCs 3 and 6 ('memcity gcs' marks them)\n");
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

// The tree series with a classifier that reads references: the GCs with a snapshot, the leaking
// cache of STAG20 §7.2 first by growth; a window without a snapshot is refused.
TEST(Cli, SeriesByContainingDataStructure) {
    const std::string path = synth("growing-map");
    Outcome r = run("series " + path + " --classify structure --depth 1");
    ASSERT_EQ(r.status, 0) << r.err;
    EXPECT_NE(r.out.find("GC 0..26 (27 GCs with a reference snapshot), by structure"), std::string::npos)
        << r.out;
    const size_t overall = r.out.find("Overall\n");
    ASSERT_NE(overall, std::string::npos) << r.out;
    EXPECT_NE(r.out.find("java.util.concurrent.ConcurrentHashMap (allocated in "
                         "com.dynatrace.easytravel.business.JourneyService.<init>(JourneyService.java:51))",
                         overall),
              std::string::npos)
        << r.out;
    const size_t next_line = r.out.find('\n', overall + 8);
    EXPECT_NE(r.out.substr(overall, next_line - overall).find("ConcurrentHashMap"), std::string::npos)
        << r.out;

    const std::string sparse = synth("growing-map", "--refs 3");
    Outcome e = run("series " + sparse + " --classify structure --from 4 --to 5");
    EXPECT_EQ(e.status, 1);
    EXPECT_EQ(e.err,
              "memcity series: " + sparse +
                  ": the chain reads references, and none of GCs 4..5 has a reference snapshot ('memcity "
                  "gcs' marks them)\n");
}

}  // namespace
}  // namespace memcity
