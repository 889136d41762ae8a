// memcity export: values per allocation stack as collapsed stacks and pprof profiles. Exact lines
// on a tiny hand-made trace; pprof files read back by a small wire-format decoder written here
// (not libprotobuf) and by `go tool pprof` where Go is installed; totals equal to report's and
// churn's on the demo recording.
#include <gtest/gtest.h>
#include <zlib.h>

#include <algorithm>
#include <map>
#include <set>
#include <sstream>

#include "cli/run_memcity.h"
#include "unit/trace_builder.h"

namespace memcity {
namespace {

using testing::runMemcity;
using testing::runShell;
using testing::slurp;
using testing::TraceBuilder;

// TraceBuilder's symbols plus method 3 App.main, site 3 = Main.run:11 called from App.main:5 and
// site 4 = Main.other:20 called from App.main:5. GC 0 keeps 0 (A, site 3), 1 (B, site 4),
// 2 (A, site 1), 3 (A, site 3); its snapshot: roots reach 0, 1 and 3, and 0 references 2.
// Then 4 (A, site 3) and 5 (B, site 4) are born; GC 1 frees 3 and 5.
std::string tinyTrace() {
    TraceBuilder b("export-tiny");
    b.writer().defineMethod(3, "App", "main", "([Ljava/lang/String;)V", "App.java");
    const Frame run[] = {{1, 11}, {3, 5}}, other[] = {{2, 20}, {3, 5}};
    b.writer().defineSite(3, run);
    b.writer().defineSite(4, other);
    b.alloc(0, 1, 3).alloc(1, 2, 4).alloc(2, 1, 1).alloc(3, 1, 3);
    b.gc(0, 4);
    b.snapshot(0, {{0, {TraceBuilder::strong(2)}}, {1, {}}, {2, {}}, {3, {}}},
               {TraceBuilder::staticRoot(0), TraceBuilder::staticRoot(1), TraceBuilder::staticRoot(3)});
    b.alloc(4, 1, 3).alloc(5, 2, 4);
    b.gc(1, 6, {3, 5});
    return b.finish();
}

std::multiset<std::string> lines(const std::string& text) {
    std::multiset<std::string> out;
    std::istringstream in(text);
    for (std::string l; std::getline(in, l);)
        out.insert(l);
    return out;
}

// `memcity export TRACE ARGS -o FILE` and the file it wrote.
std::string exported(const std::string& trace, const std::string& args) {
    const std::string out = testing::tempPath("export");
    auto r = runMemcity(trace + " " + args + " -o " + out);
    EXPECT_EQ(r.status, 0) << r.err;
    return slurp(out);
}

const std::string kRun = "App.main(App.java:5);Main.run(Main.java:11)";
const std::string kOther = "App.main(App.java:5);Main.other(Main.java:20)";

TEST(Export, CollapsedLiveStacksOutermostFirst) {
    const std::string t = "export " + tinyTrace();
    EXPECT_EQ(lines(exported(t, "--gc 0 --what live --format collapsed")),
              (std::multiset<std::string>{kRun + " 32", kOther + " 24", "Main.run(Main.java:10) 16"}));
    EXPECT_EQ(lines(exported(t, "--gc 0 --what live --format collapsed --unit objects")),
              (std::multiset<std::string>{kRun + " 2", kOther + " 1", "Main.run(Main.java:10) 1"}));
}

// "-o -" writes the stacks to standard output (to pipe into flamegraph.pl) and nothing else;
// a file gets a summary line on stderr.
TEST(Export, ToStandardOutputAndASummaryForAFile) {
    auto piped = runMemcity("export " + tinyTrace() + " --gc 0 --what live --format collapsed -o -");
    ASSERT_EQ(piped.status, 0) << piped.err;
    EXPECT_EQ(lines(piped.out),
              (std::multiset<std::string>{kRun + " 32", kOther + " 24", "Main.run(Main.java:10) 16"}));
    EXPECT_EQ(piped.err, "");
    const std::string out = testing::tempPath("export-summary");
    auto written = runMemcity("export " + tinyTrace() + " --gc 0 --what live --format pprof -o " + out);
    ASSERT_EQ(written.status, 0) << written.err;
    EXPECT_EQ(written.err, "memcity export: " + out +
                               ": 3 stacks, 72 B live (GC 0); open it with 'go tool pprof -http=: " + out +
                               "'\n");
}

// An output that is there already is written over, whatever it holds: a pprof profile is gzip, as
// a compressed heap dump is, but an option's value is never read as a trace.
TEST(Export, WritesOverAnEarlierProfile) {
    const std::string t = "export " + tinyTrace();
    const std::string out = testing::tempPath("export-again");
    for (const char* format : {"pprof", "pprof", "collapsed"}) {
        auto r = runMemcity(t + " --gc 0 --what live --format " + format + " -o " + out);
        ASSERT_EQ(r.status, 0) << format << ": " << r.err;
        EXPECT_EQ(r.err.find("importing"), std::string::npos) << r.err;
    }
    EXPECT_EQ(lines(slurp(out)),
              (std::multiset<std::string>{kRun + " 32", kOther + " 24", "Main.run(Main.java:10) 16"}));
}

TEST(Export, CollapsedRetainedIsEachStacksGcClosure) {
    // Site 3's objects 0 and 3 retain 2 as well (48 B); 2 alone retains itself.
    EXPECT_EQ(lines(exported("export " + tinyTrace(), "--gc 0 --what retained --format collapsed")),
              (std::multiset<std::string>{kRun + " 48", kOther + " 24", "Main.run(Main.java:10) 16"}));
}

TEST(Export, CollapsedAllocatedAndChurnOfAWindow) {
    const std::string t = "export " + tinyTrace();
    // Born after GC 0: 4 (A, site 3) survives, 5 (B, site 4) dies at GC 1; 3 died too, but was older.
    EXPECT_EQ(lines(exported(t, "--from 0 --to 1 --what allocated --format collapsed")),
              (std::multiset<std::string>{kRun + " 16", kOther + " 24"}));
    EXPECT_EQ(lines(exported(t, "--from 0 --to 1 --what churn --format collapsed")),
              (std::multiset<std::string>{kOther + " 24"}));
    // --gc N means GC N-1 to N.
    EXPECT_EQ(lines(exported(t, "--gc 1 --what churn --format collapsed")),
              (std::multiset<std::string>{kOther + " 24"}));
}

// ---- An independent reader of pprof's wire format: varints and length-delimited fields ----

std::string gunzip(const std::string& in) {
    z_stream z{};
    EXPECT_EQ(inflateInit2(&z, 15 + 16), Z_OK);
    std::string out;
    char buf[65536];
    z.next_in = reinterpret_cast<Bytef*>(const_cast<char*>(in.data()));
    z.avail_in = static_cast<uInt>(in.size());
    int rc = Z_OK;
    while (rc == Z_OK) {
        z.next_out = reinterpret_cast<Bytef*>(buf);
        z.avail_out = sizeof buf;
        rc = inflate(&z, Z_NO_FLUSH);
        out.append(buf, sizeof buf - z.avail_out);
    }
    inflateEnd(&z);
    EXPECT_EQ(rc, Z_STREAM_END);
    return out;
}

struct Field {
    uint32_t number = 0;
    uint64_t varint = 0;  // wire type 0
    std::string bytes;    // wire type 2
};

std::vector<Field> fields(std::string_view m) {
    std::vector<Field> out;
    size_t i = 0;
    auto varint = [&] {
        uint64_t v = 0;
        for (int shift = 0; i < m.size(); shift += 7) {
            const auto b = static_cast<uint8_t>(m[i++]);
            v |= uint64_t{b & 0x7fu} << shift;
            if (!(b & 0x80)) break;
        }
        return v;
    };
    while (i < m.size()) {
        const uint64_t tag = varint();
        Field f;
        f.number = static_cast<uint32_t>(tag >> 3);
        if ((tag & 7) == 0) {
            f.varint = varint();
        } else if ((tag & 7) == 2) {
            const uint64_t n = varint();
            f.bytes = std::string(m.substr(i, n));
            i += n;
        } else {
            ADD_FAILURE() << "unexpected wire type " << (tag & 7);
            return out;
        }
        out.push_back(std::move(f));
    }
    return out;
}

// Packed (or not) repeated varints of field `number` in message `m`.
std::vector<uint64_t> varints(std::string_view m, uint32_t number) {
    std::vector<uint64_t> out;
    for (const Field& f : fields(m)) {
        if (f.number != number) continue;
        if (f.bytes.empty()) {
            out.push_back(f.varint);
            continue;
        }
        size_t i = 0;
        while (i < f.bytes.size()) {
            uint64_t v = 0;
            for (int shift = 0; i < f.bytes.size(); shift += 7) {
                const auto b = static_cast<uint8_t>(f.bytes[i++]);
                v |= uint64_t{b & 0x7fu} << shift;
                if (!(b & 0x80)) break;
            }
            out.push_back(v);
        }
    }
    return out;
}

struct Decoded {
    std::vector<std::string> strings;
    std::vector<std::string> sample_types;  // "inuse_space/bytes"
    std::vector<uint64_t> totals;           // per sample type
    std::set<std::string> stacks;           // "outer;...;inner" by function name and line
    std::string default_type;
    std::vector<std::string> comments;
    uint64_t duration_ns = 0;
    std::set<std::string> system_names;  // the functions' "pkg.Class.method(signature)"
};

Decoded decode(const std::string& gz) {
    const std::string p = gunzip(gz);
    Decoded d;
    std::map<uint64_t, std::string> function_names, location_names;
    std::vector<std::string> samples, locations, functions, types;
    uint64_t default_type = 0;
    for (const Field& f : fields(p)) {
        if (f.number == 6) d.strings.push_back(f.bytes);
        if (f.number == 1) types.push_back(f.bytes);
        if (f.number == 2) samples.push_back(f.bytes);
        if (f.number == 4) locations.push_back(f.bytes);
        if (f.number == 5) functions.push_back(f.bytes);
        if (f.number == 14) default_type = f.varint;
        if (f.number == 10) d.duration_ns = f.varint;
    }
    for (uint64_t c : varints(p, 13))  // packed
        d.comments.push_back(d.strings.at(c));
    d.default_type = d.strings.at(default_type);
    for (const std::string& t : types)
        d.sample_types.push_back(d.strings.at(varints(t, 1).at(0)) + "/" + d.strings.at(varints(t, 2).at(0)));
    for (const std::string& f : functions) {
        function_names[varints(f, 1).at(0)] = d.strings.at(varints(f, 2).at(0));
        d.system_names.insert(d.strings.at(varints(f, 3).at(0)));
    }
    for (const std::string& l : locations) {
        std::string line;
        for (const Field& f : fields(l))
            if (f.number == 4) {
                const auto ln = varints(f.bytes, 2);
                line = function_names.at(varints(f.bytes, 1).at(0)) + ":" +
                       std::to_string(ln.empty() ? 0 : ln[0]);
            }
        location_names[varints(l, 1).at(0)] = line;
    }
    d.totals.assign(d.sample_types.size(), 0);
    for (const std::string& s : samples) {
        const std::vector<uint64_t> values = varints(s, 2);
        EXPECT_EQ(values.size(), d.sample_types.size());
        for (size_t i = 0; i < values.size() && i < d.totals.size(); ++i)
            d.totals[i] += values[i];
        std::string stack;
        const std::vector<uint64_t> ids = varints(s, 1);
        for (auto it = ids.rbegin(); it != ids.rend(); ++it)
            stack += (stack.empty() ? "" : ";") + location_names.at(*it);
        d.stacks.insert(stack);
    }
    return d;
}

TEST(Export, PprofReadsBackWithItsTypesStacksAndTotals) {
    const std::string trace = tinyTrace();
    const Decoded d = decode(exported("export " + trace, "--gc 0 --what live --format pprof"));
    EXPECT_EQ(d.sample_types, (std::vector<std::string>{"inuse_objects/count", "inuse_space/bytes"}));
    EXPECT_EQ(d.default_type, "inuse_space");
    EXPECT_EQ(d.totals, (std::vector<uint64_t>{4, 72}));
    EXPECT_EQ(d.stacks,
              (std::set<std::string>{"App.main:5;Main.run:11", "App.main:5;Main.other:20", "Main.run:10"}));
    const Decoded a =
        decode(exported("export " + trace, "--from 0 --to 1 --what allocated --format pprof --unit objects"));
    EXPECT_EQ(a.sample_types, (std::vector<std::string>{"alloc_objects/count", "alloc_space/bytes"}));
    EXPECT_EQ(a.default_type, "alloc_objects");
    EXPECT_EQ(a.totals, (std::vector<uint64_t>{2, 40}));
}

// `go tool pprof -raw`: the consumer itself reads the file.
TEST(Export, GoToolPprofReadsTheProfile) {
    if (runShell("command -v go").status != 0) GTEST_SKIP() << "go is not installed: 'go tool pprof' not run";
    const std::string out = testing::tempPath("export-go");
    ASSERT_EQ(runMemcity("export " + tinyTrace() + " --gc 0 --what live --format pprof -o " + out).status, 0);
    auto r = runShell("HOME=${HOME:-/tmp} go tool pprof -raw " + out);
    ASSERT_EQ(r.status, 0) << r.err;
    EXPECT_NE(r.out.find("inuse_objects/count inuse_space/bytes[dflt]"), std::string::npos) << r.out;
    // Samples: "  objects bytes: location ids"; the totals are the heap's.
    uint64_t objects = 0, bytes = 0;
    std::istringstream in(r.out.substr(r.out.find("Samples:")));
    for (std::string l; std::getline(in, l);) {
        uint64_t o = 0, b = 0;
        if (std::sscanf(l.c_str(), " %lu %lu:", &o, &b) == 2) {
            objects += o;
            bytes += b;
        }
        if (l.rfind("Locations", 0) == 0) break;
    }
    EXPECT_EQ(objects, 4u);
    EXPECT_EQ(bytes, 72u);
    EXPECT_NE(r.out.find("Main.run Main.java:11"), std::string::npos) << r.out;
    EXPECT_NE(r.out.find("App.main App.java:5"), std::string::npos) << r.out;
}

// The demo recording: totals as report and churn give them.
uint64_t jsonNumber(const std::string& json, const std::string& key) {
    const size_t at = json.find("\"" + key + "\":");
    EXPECT_NE(at, std::string::npos) << key;
    return at == std::string::npos ? 0 : std::stoull(json.substr(at + key.size() + 3));
}

TEST(Export, DemoTotalsEqualReportAndChurn) {
    const std::string demo = MEMCITY_DEMO_TRACE;
    auto report = runMemcity("report " + demo + " --gc 20 --classify site --depth 1 --json");
    ASSERT_EQ(report.status, 0) << report.err;
    const size_t tree = report.out.find("\"tree\"");
    const Decoded live = decode(exported("export " + demo, "--gc 20 --what live --format pprof"));
    EXPECT_EQ(live.totals, (std::vector<uint64_t>{jsonNumber(report.out.substr(tree), "objects"),
                                                  jsonNumber(report.out.substr(tree), "bytes")}));
    uint64_t collapsed = 0;
    for (const std::string& l : lines(exported("export " + demo, "--gc 20 --what live --format collapsed")))
        collapsed += std::stoull(l.substr(l.rfind(' ') + 1));
    EXPECT_EQ(collapsed, live.totals[1]);

    auto churn = runMemcity("churn " + demo + " --from 10 --to 20 --depth 1 --json");
    ASSERT_EQ(churn.status, 0) << churn.err;
    const std::string died = churn.out.substr(churn.out.find("\"died\""));
    const std::string survived = churn.out.substr(churn.out.find("\"survived\""));
    const Decoded c = decode(exported("export " + demo, "--from 10 --to 20 --what churn --format pprof"));
    EXPECT_EQ(c.totals, (std::vector<uint64_t>{jsonNumber(died, "objects"), jsonNumber(died, "bytes")}));
    const Decoded a = decode(exported("export " + demo, "--from 10 --to 20 --what allocated --format pprof"));
    EXPECT_EQ(a.totals, (std::vector<uint64_t>{jsonNumber(died, "objects") + jsonNumber(survived, "objects"),
                                               jsonNumber(died, "bytes") + jsonNumber(survived, "bytes")}));
}

// Retained sets overlap (site 3's 48 B hold object 2, site 1's 16 B): no sum is printed as a
// total, and the caveat is in the profile.
TEST(Export, RetainedSummaryAndCommentSayTheSetsOverlap) {
    const std::string out = testing::tempPath("export-retained"), trace = tinyTrace();
    auto r = runMemcity("export " + trace + " --gc 0 --what retained --format pprof -o " + out);
    ASSERT_EQ(r.status, 0) << r.err;
    EXPECT_EQ(r.err,
              "memcity export: " + out +
                  ": 3 stacks, each with its own retained bytes (GC 0; the sets overlap and do not add "
                  "up); open it with 'go tool pprof -http=: " +
                  out + "'\n");
    const Decoded d = decode(slurp(out));
    EXPECT_EQ(d.totals, (std::vector<uint64_t>{5, 88}));  // 3 + 1 + 1 objects, 48 + 24 + 16 B
    EXPECT_EQ(d.comments,
              (std::vector<std::string>{
                  "memcity export " + trace + ", GC 0, retained",
                  "retained: each stack's own retained set (3 stacks with the most live bytes); the sets "
                  "overlap, so the samples do not add up: their sum is no total"}));
}

// --stacks 1: the stack with the most live bytes (site 3: 0 and 3, 32 B) closed alone, retaining
// 2 as well (48 B); the other two stacks (objects 1 and 2) closed together as one group, which
// retains itself (40 B: 0 still reaches 2, but a group's own objects count).
TEST(Export, RetainedCapsTheStacksClosedOneByOne) {
    const std::string t = "export " + tinyTrace();
    EXPECT_EQ(lines(exported(t, "--gc 0 --what retained --format collapsed --stacks 1")),
              (std::multiset<std::string>{kRun + " 48", "<other stacks> 40"}));
    const std::string out = testing::tempPath("export-capped");
    auto r = runMemcity(t + " --gc 0 --what retained --format pprof --stacks 1 --unit objects -o " + out);
    ASSERT_EQ(r.status, 0) << r.err;
    EXPECT_EQ(r.err, "memcity export: " + out +
                         ": 2 stacks, each with its own retained objects (GC 0; the sets overlap and do not "
                         "add up; the other 2 stacks as one '<other stacks>' line (--stacks N: more lines)); "
                         "open it with 'go tool pprof -http=: " +
                         out + "'\n");
    const Decoded d = decode(slurp(out));
    EXPECT_EQ(d.stacks, (std::set<std::string>{"App.main:5;Main.run:11", "<other stacks>:0"}));
    EXPECT_EQ(d.totals, (std::vector<uint64_t>{5, 88}));
    EXPECT_EQ(d.comments.at(1),
              "retained: each stack's own retained set (1 stacks with the most live bytes; the other 2 "
              "stacks as one '<other stacks>' line (--stacks N: more lines)); the sets overlap, so the "
              "samples do not add up: their sum is no total");
}

// --gc N with allocated or churn is the window GC N-1 to N: its duration is that window's.
TEST(Export, PprofDurationOfOneGcsInterval) {
    const std::string t = "export " + tinyTrace();
    const Decoded window = decode(exported(t, "--from 0 --to 1 --what allocated --format pprof"));
    EXPECT_GT(window.duration_ns, 0u);
    for (const char* what : {"allocated", "churn"})
        EXPECT_EQ(decode(exported(t, std::string("--gc 1 --what ") + what + " --format pprof")).duration_ns,
                  window.duration_ns)
            << what;
    EXPECT_EQ(decode(exported(t, "--gc 0 --what live --format pprof")).duration_ns, 0u);
}

// Two overloads without line numbers share a label ("Main.load(Main.java)"): each stack keeps its
// own frame (method and signature), in a heap and in a window.
TEST(Export, FramesThatShareALabelStayApart) {
    TraceBuilder b("export-overloads");
    b.writer().defineMethod(4, "Main", "load", "(I)V", "Main.java");
    b.writer().defineMethod(5, "Main", "load", "(J)V", "Main.java");
    const Frame int_load[] = {{4, -1}}, long_load[] = {{5, -1}};
    b.writer().defineSite(5, int_load);
    b.writer().defineSite(6, long_load);
    b.alloc(0, 1, 5).alloc(1, 2, 6);
    b.gc(0, 2);
    b.alloc(2, 1, 5).alloc(3, 2, 6);
    b.gc(1, 4);
    const std::string t = "export " + b.finish();
    const std::set<std::string> both = {"Main.load(I)V", "Main.load(J)V"};
    EXPECT_EQ(decode(exported(t, "--gc 0 --what live --format pprof")).system_names, both);
    EXPECT_EQ(decode(exported(t, "--gc 1 --what allocated --format pprof")).system_names, both);
    EXPECT_EQ(lines(exported(t, "--gc 0 --what live --format collapsed")),
              (std::multiset<std::string>{"Main.load(Main.java) 16", "Main.load(Main.java) 24"}));
}

TEST(Export, BadInputIsOneLine) {
    const std::string t = tinyTrace(), out = testing::tempPath("export-bad");
    auto one = [&](const std::string& args, const std::string& expected) {
        auto r = runMemcity("export " + args);
        EXPECT_EQ(r.status, 1) << args;
        EXPECT_EQ(r.err, expected + "\n") << args;
    };
    one(t + " --gc 0 --what leaked --format pprof -o " + out,
        "memcity export: unknown --what 'leaked' (allocated, live, retained or churn)");
    one(t + " --gc 0 --what live --format svg -o " + out,
        "memcity export: unknown --format 'svg' (collapsed or pprof)");
    one(t + " --gc 7 --what live --format pprof -o " + out,
        "memcity export: " + t + ": GC 7 is out of range: the trace has 2 GCs (0..1)");
    one(t + " --gc 1 --what retained --format pprof -o " + out,
        "memcity export: " + t +
            ": --what retained: GC 1 has no reference snapshot; the nearest is GC 0 ('memcity gcs' marks "
            "them)");
    one(t + " --gc 0 --what churn --format collapsed -o " + out,
        "memcity export: --what churn at GC 0: GC N's interval starts where GC N-1 ended; use --gc 1 or "
        "later, "
        "or --from/--to");
    one(t + " --gc 0 --what live --format pprof --stacks 5 -o " + out,
        "memcity export: --stacks N is for --what retained (the other values add up: every stack is "
        "written)");
    one(t + " --gc 0 --what live --format pprof -o /nonexistent-dir/x.pb.gz",
        "memcity export: /nonexistent-dir/x.pb.gz: cannot write");
    auto missing = runMemcity("export /nonexistent.mct --gc 0 --what live --format pprof -o " + out);
    EXPECT_EQ(missing.status, 1);
    EXPECT_EQ(std::count(missing.err.begin(), missing.err.end(), '\n'), 1) << missing.err;
}

}  // namespace
}  // namespace memcity
