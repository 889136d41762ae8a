// The zoo: real Java programs no one here wrote (H2, Apache Derby, the Eclipse compiler, Jetty,
// Lucene), each recorded end to end with a fixed small workload under Serial, Parallel and G1,
// and held against the JVM's own accounting:
//  - the program's normal output, and a trace without integrity errors;
//  - every full GC (forced between the workload's phases, the heap inspection of the class
//    histogram, the last one) in the order and with the causes -Xlog:gc reports, and memcity's
//    live bytes within 1% of the used bytes after it that -Xlog:gc+heap=debug prints;
//  - at the class histogram's own GC, per class, jcmd GC.class_histogram's instances and bytes
//    equal memcity's live objects plus what the JVM's count right after that GC (the census,
//    GC_CENSUS) shows the recorder does not have: its own objects, fillers, and objects it never
//    saw (docs/recorder.md, "Exactness");
//  - a heap dump of the program at the same point (jcmd GC.heap_dump), imported: per class, the
//    instances and bytes equal the class histogram taken right after it, every class.
#include <gtest/gtest.h>
#include <unistd.h>

#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <map>
#include <regex>
#include <sstream>
#include <thread>

#include "heap/heap_history.h"
#include "hprof/hprof_import.h"
#include "recorder/process.h"
#include "recorder/site_check.h"
#include "unit/trace_builder.h"

namespace memcity {
namespace {

namespace fs = std::filesystem;
using testing::Process;

const std::string kJavaHome = MEMCITY_JAVA_HOME;
// The JVMs each program runs on: the JDK memcity was built against (which also compiles the
// drivers), and Temurin 25 where it is installed.
const std::vector<std::string> kJvms = {kJavaHome, "/usr/lib/jvm/temurin-25-jdk-amd64"};
const std::string kMemcity = MEMCITY_BINARY;

struct Program {
    const char* name;
    std::vector<std::string> jars;  // under /usr/share/java; a missing one skips the program
    const char* main_class;
    std::vector<std::string> args;  // "$SOURCES" and "$OUT": the ecj source list and output dir
    const char* output;             // a regular expression its standard output must match
    const char* hold;               // the checkpoint where the class histogram is taken
    const char* gc_every;           // memcity record --gc-every: dozens of GCs over the workload
};

const std::vector<Program>& programs() {
    static const std::vector<Program> all = {
        {"H2", {"h2.jar"}, "H2Workload", {"10000"}, "checksum 18571\n", "orders", "4m"},
        {"Derby", {"derby.jar"}, "DerbyWorkload", {"5000"}, "checksum 57894\n", "sales", "4m"},
        {"Ecj",
         {"ecj.jar"},
         "EcjWorkload",
         {"$SOURCES", "$OUT", "3"},
         "round 2: [1-9][0-9] sources, [1-9][0-9]+ classes\n",
         "round1",
         "4m"},
        {"Jetty",
         {"jetty9-server.jar", "jetty9-servlet.jar", "jetty9-util.jar", "jetty9-http.jar", "jetty9-io.jar",
          "jetty9-security.jar", "servlet-api.jar"},
         "JettyWorkload",
         {"300"},
         "served 300 requests, 272244 bytes\n",
         "requests200",
         "1m"},
        {"Lucene",
         {"lucene-core-4.10.4.jar", "lucene-analyzers-common-4.10.4.jar", "lucene-queryparser-4.10.4.jar"},
         "LuceneWorkload",
         {"5000"},
         "indexed 5000 documents, 197736 hits\n",
         "indexed",
         "2m"},
    };
    return all;
}

// JDK sources the Eclipse compiler compiles as Java 8 code, without an error, against JDK 17 and
// 25 alike (the rest of java.util uses later syntax or API): 56 of JDK 25's, 120 classes.
const char* const kEcjSources[] = {
    "AbstractCollection",
    "AbstractList",
    "AbstractQueue",
    "AbstractSequentialList",
    "AbstractSet",
    "ArrayDeque",
    "ArrayPrefixHelpers",
    "ArraysParallelSortHelpers",
    "Collection",
    "ComparableTimSort",
    "Comparator",
    "Comparators",
    "ConcurrentModificationException",
    "Date",
    "Dictionary",
    "DualPivotQuicksort",
    "EmptyStackException",
    "EventListener",
    "EventListenerProxy",
    "EventObject",
    "Formattable",
    "FormattableFlags",
    "FormatterClosedException",
    "IllegalFormatArgumentIndexException",
    "IllformedLocaleException",
    "InputMismatchException",
    "IntSummaryStatistics",
    "InvalidPropertiesFormatException",
    "Iterator",
    "ListIterator",
    "LocaleISOData",
    "LongSummaryStatistics",
    "MissingResourceException",
    "NavigableMap",
    "NavigableSet",
    "NoSuchElementException",
    "Objects",
    "Observable",
    "Observer",
    "PrimitiveIterator",
    "PriorityQueue",
    "PropertyResourceBundle",
    "Queue",
    "RandomAccess",
    "ServiceConfigurationError",
    "Spliterator",
    "Spliterators",
    "SplittableRandom",
    "Stack",
    "StringTokenizer",
    "TimSort",
    "TimerTask",
    "TooManyListenersException",
    "Tripwire",
    "Vector",
};

// A class name of jcmd GC.class_histogram or of the trace, made comparable: "[I" and "int[]",
// "[Ljava.lang.String;" and "java.lang.String[]" alike; no module; hidden classes by their
// base name ("Foo$$Lambda/0x0000...", "Foo$$Lambda.0x..." -> "Foo$$Lambda").
std::string comparableName(std::string n) {
    if (auto sp = n.find(" ("); sp != std::string::npos) n.resize(sp);
    n = std::regex_replace(n, std::regex("[/.]0x[0-9a-f]+$"), "");
    size_t dims = 0;
    while (dims < n.size() && n[dims] == '[')
        ++dims;
    if (dims == 0) return n;
    std::string elem = n.substr(dims);
    static const std::map<char, const char*> prim = {{'Z', "boolean"}, {'B', "byte"},  {'C', "char"},
                                                     {'S', "short"},   {'I', "int"},   {'J', "long"},
                                                     {'F', "float"},   {'D', "double"}};
    if (elem.size() == 1 && prim.count(elem[0]))
        elem = prim.at(elem[0]);
    else if (elem.size() > 2 && elem.front() == 'L' && elem.back() == ';')
        elem = elem.substr(1, elem.size() - 2);
    for (size_t i = 0; i < dims; ++i)
        elem += "[]";
    return elem;
}

struct Count {
    int64_t objects = 0, bytes = 0;
    bool operator==(const Count&) const = default;
};

std::map<std::string, Count> parseHistogram(const std::string& text, Count* total) {
    std::map<std::string, Count> out;
    const std::regex row(R"(^\s*\d+:\s+(\d+)\s+(\d+)\s+(\S.*)$)"), sum(R"(^Total\s+(\d+)\s+(\d+))");
    std::istringstream in(text);
    std::smatch m;
    for (std::string line; std::getline(in, line);) {
        if (std::regex_search(line, m, row)) {
            Count& c = out[comparableName(m[3].str())];
            c.objects += std::stoll(m[1].str());
            c.bytes += std::stoll(m[2].str());
        } else if (std::regex_search(line, m, sum)) {
            *total = {std::stoll(m[1].str()), std::stoll(m[2].str())};
        }
    }
    return out;
}

// What -Xlog:gc*,gc+heap=debug says of each full GC, in order: its cause and the used bytes
// after it (the generations' "used NK" of the "Heap after GC" block, in K).
struct LoggedGc {
    std::string cause;
    uint64_t used_after = 0;
};

std::vector<LoggedGc> parseGcLog(const std::string& path) {
    std::ifstream in(path);
    std::map<int, LoggedGc> by_id;
    std::vector<int> full_ids;
    const std::regex full(R"(GC\((\d+)\) Pause Full \((.*)\) [0-9]+[KMG]->)"),
        after(R"(GC\((\d+)\) Heap [Aa]fter GC)"), used(R"(GC\((\d+)\)  \S.*total .*used (\d+)K)");
    int in_after = -1;
    std::smatch m;
    for (std::string line; std::getline(in, line);) {
        if (std::regex_search(line, m, after)) {
            in_after = std::stoi(m[1].str());
            by_id[in_after].used_after = 0;
        } else if (in_after >= 0 && std::regex_search(line, m, used) && std::stoi(m[1].str()) == in_after) {
            by_id[in_after].used_after += std::stoull(m[2].str()) * 1024;
        } else if (line.find("Metaspace") != std::string::npos ||
                   line.find("Heap before") != std::string::npos ||
                   line.find("Heap Before") != std::string::npos) {
            in_after = -1;
        }
        if (std::regex_search(line, m, full) && line.find("->") != std::string::npos) {
            const int id = std::stoi(m[1].str());
            by_id[id].cause = m[2].str();
            full_ids.push_back(id);
        }
    }
    std::vector<LoggedGc> out;
    for (int id : full_ids)
        out.push_back(by_id[id]);
    return out;
}

class Zoo : public ::testing::TestWithParam<std::tuple<size_t, const char*, size_t>> {
public:
    static void SetUpTestSuite() {
        dir_ = fs::temp_directory_path() / ("memcity-zoo-" + std::to_string(getpid()));
        fs::create_directories(dir_ / "classes");
        // The shared checkpoints and H2's driver, then each driver against its program's jars.
        std::vector<std::string> base = {kJavaHome + "/bin/javac", "-d", (dir_ / "classes").string()};
        for (const char* f : {"Zoo.java", "H2Workload.java"})
            base.push_back(std::string(MEMCITY_JAVA_SOURCES) + "/" + f);
        Process p = testing::run(base);
        ASSERT_EQ(p.status, 0) << p.stderr_text;
        for (const Program& program : programs()) {
            if (std::string(program.name) == "H2") continue;
            if (!installed(program)) continue;
            Process c = testing::run({kJavaHome + "/bin/javac", "-d", (dir_ / "classes").string(), "-cp",
                                      classPath(program),
                                      std::string(MEMCITY_ZOO_SOURCES) + "/" + program.main_class + ".java"});
            ASSERT_EQ(c.status, 0) << c.stderr_text;
        }
    }
    static void TearDownTestSuite() {
        if (!::testing::UnitTest::GetInstance()->Failed()) fs::remove_all(dir_);
    }

protected:
    static bool installed(const Program& p) {
        for (const std::string& jar : p.jars)
            if (!fs::exists("/usr/share/java/" + jar)) return false;
        return true;
    }
    static std::string classPath(const Program& p) {
        std::string cp = (dir_ / "classes").string();
        for (const std::string& jar : p.jars)
            cp += ":/usr/share/java/" + jar;
        return cp;
    }
    // The ecj workload's sources, from the JDK's src.zip: their list file, or "" when there is none.
    static std::string ecjSources(const fs::path& work) {
        std::string zip;
        for (const char* z :
             {"/usr/lib/jvm/temurin-25-jdk-amd64/lib/src.zip", "/usr/lib/jvm/openjdk-17/lib/src.zip"})
            if (zip.empty() && fs::exists(z)) zip = z;
        if (zip.empty()) return "";
        std::vector<std::string> extract = {kJavaHome + "/bin/jar", "xf", zip};
        for (const char* f : kEcjSources)
            extract.push_back(std::string("java.base/java/util/") + f + ".java");
        std::string cmd = "cd '" + work.string() + "' && exec";
        for (const std::string& a : extract)
            cmd += " '" + a + "'";
        if (testing::run({"/bin/sh", "-c", cmd}).status != 0) return "";
        std::ofstream list(work / "sources.txt");
        for (const char* f : kEcjSources) {
            const fs::path source = work / "java.base/java/util" / (std::string(f) + ".java");
            if (fs::exists(source)) list << source.string() << "\n";
        }
        return (work / "sources.txt").string();
    }

    // The parameters' program, collector and JVM, a work directory named `prefix` and them, and
    // the program's arguments; `skip` says why the run cannot be made here.
    struct Run {
        const Program* program = nullptr;
        std::string gc, java_home;
        fs::path work;
        std::vector<std::string> args;
        std::string skip;
    };
    Run prepare(const std::string& prefix) const {
        Run r;
        r.program = &programs()[std::get<0>(GetParam())];
        r.gc = std::get<1>(GetParam());
        r.java_home = kJvms[std::get<2>(GetParam())];
        if (!installed(*r.program)) {
            r.skip = std::string(r.program->name) +
                     " is not installed (scripts/setup installs the zoo's packages)";
            return r;
        }
        if (!fs::exists(r.java_home + "/bin/java")) {
            r.skip = "no JVM in " + r.java_home;
            return r;
        }
        r.work =
            dir_ / (prefix + r.program->name + "-" + r.gc + "-" + std::to_string(std::get<2>(GetParam())));
        fs::create_directories(r.work);
        r.args = r.program->args;
        for (std::string& a : r.args) {
            if (a == "$SOURCES") a = ecjSources(r.work);
            if (a == "$OUT") a = (r.work / "out").string();
            if (a.empty()) r.skip = "no JDK src.zip for the Eclipse compiler to compile";
        }
        return r;
    }

    static fs::path dir_;
};

fs::path Zoo::dir_;

TEST_P(Zoo, AgreesWithTheJvmAtEveryFullGc) {
    const Run run = prepare("");
    if (!run.skip.empty()) GTEST_SKIP() << run.skip;
    const Program& program = *run.program;
    const std::string& gc = run.gc;
    const std::string& java_home = run.java_home;
    const fs::path& work = run.work;
    const std::vector<std::string>& args = run.args;
    const std::string trace = (work / "trace.mct").string(), log = (work / "gc.log").string();
    std::vector<std::string> argv = {
        kMemcity, "record", "-o", trace,
        // Dozens of GCs to travel through, a snapshot at every 4th.
        "--gc-every", program.gc_every, "--refs", "4",
        // Every site read from the JVM's frames is checked against GetStackTrace.
        "--sites", "check", "--", java_home + "/bin/java", "-XX:+Use" + gc,
        "-Xlog:gc*,gc+heap=debug:file=" + log, "-Dzoo.gc=true", std::string("-Dzoo.hold=") + program.hold,
        "-cp", classPath(program), program.main_class};
    argv.insert(argv.end(), args.begin(), args.end());
    Process p = testing::start(argv);
    const std::string pid = testing::waitForOutput(p, "READY ([0-9]+) at ", 300);
    ASSERT_FALSE(pid.empty()) << p.stdout_text << p.stderr_text;
    // The JVM's own histogram (a full GC JVMTI does not report: the recorder finds it), then a
    // moment for the recorder to notice it before the program goes on.
    Process jcmd = testing::run({java_home + "/bin/jcmd", pid, "GC.class_histogram"});
    ASSERT_EQ(jcmd.status, 0) << jcmd.stderr_text << jcmd.stdout_text;
    std::this_thread::sleep_for(std::chrono::milliseconds(300));
    ASSERT_EQ(write(p.in, "go\n", 3), 3);
    testing::finish(p, 600);
    ASSERT_EQ(p.status, 0) << p.stderr_text;
    EXPECT_TRUE(std::regex_search(p.stdout_text, std::regex(program.output))) << p.stdout_text;
    const testing::SiteCheck sites = testing::parseSiteCheck(p.stderr_text);
    ASSERT_TRUE(sites.found) << p.stderr_text;
    EXPECT_EQ(sites.differed, 0u) << p.stderr_text;
    EXPECT_EQ(sites.checked, sites.by_key) << p.stderr_text;
    EXPECT_GT(sites.by_key, sites.decoded + sites.not_keyed) << p.stderr_text;

    auto file = TraceFile::open(trace);
    ASSERT_TRUE(file.ok()) << file.error().message;
    auto history = HeapHistory::build(*file);
    ASSERT_TRUE(history.ok()) << history.error().message;
    const HeapHistory& h = *history;
    std::string anomalies;
    for (size_t i = 0; i < Diagnostics::kKinds; ++i)
        if (h.diagnostics()[static_cast<Anomaly>(i)].count)
            anomalies += h.diagnostics()[static_cast<Anomaly>(i)].first + "\n";
    EXPECT_EQ(h.diagnostics().errorCount(), 0u) << anomalies;

    // The class histogram: every class, instances and bytes.
    Count histogram_total;
    const std::map<std::string, Count> jvm = parseHistogram(jcmd.stdout_text, &histogram_total);
    ASSERT_GT(jvm.size(), 100u) << jcmd.stdout_text.substr(0, 2000);
    uint32_t inspection = UINT32_MAX;
    for (const GcRecord& r : h.gcs())
        if (r.cause && file->symbols().string(r.cause) == "Heap Inspection Initiated GC")
            inspection = r.index;
    ASSERT_NE(inspection, UINT32_MAX) << "the histogram's GC is not in the trace";
    const GcRecord& at = h.gcs()[inspection];
    ASSERT_GE(at.census, 0) << "no census right after the histogram's GC";
    std::map<std::string, Count> ours;
    {
        auto heap = h.heapAt(inspection);
        ASSERT_TRUE(heap.ok());
        HeapView v = heap->view();
        v.forEachLive([&](size_t pos) {
            Count& c = ours[comparableName(v.symbols().type(v.type(pos)).name)];
            c.objects += 1;
            c.bytes += static_cast<int64_t>(v.size(pos));
        });
    }
    // memcity's live objects, and what the census right after the GC (the JVM's own count)
    // shows the recorder does not have: its own objects and objects it never saw. Fillers (dead
    // space formatted as int[] before JDK 19, FillerElement[] after) are the rest: the histogram
    // counts those left at the GC, the census also those of allocation buffers taken since.
    std::map<std::string, Count> fillers;
    int64_t untracked = 0, live = 0;
    for (const auto& [name, c] : ours)
        live += c.bytes;
    for (const CensusType& t : h.censuses()[static_cast<size_t>(at.census)].types) {
        const std::string name =
            t.type ? comparableName(file->symbols().type(t.type).name) : std::string("?");
        Count& c = ours[name];
        c.objects += static_cast<int64_t>(t.agent_objects + t.untracked_objects);
        c.bytes += static_cast<int64_t>(t.agent_bytes + t.untracked_bytes);
        fillers[name] = {static_cast<int64_t>(t.filler_objects), static_cast<int64_t>(t.filler_bytes)};
        untracked += static_cast<int64_t>(t.untracked_bytes);
    }
    // JVMTI is not told of the histogram's GC, so the recorder files it at the first event after
    // it; an object a thread allocates meanwhile (the attach listener's, a program thread's) can
    // fall on either side of it. A few such objects are let through, and no more.
    constexpr int64_t kRacingObjects = 3, kRacingBytes = 512;
    int64_t racing_objects = 0, racing_bytes = 0;
    size_t differ = 0;
    std::string report;
    for (const auto& [name, c] : jvm) {
        const Count mine = ours.count(name) ? ours.at(name) : Count{};
        const Count filler = fillers.count(name) ? fillers.at(name) : Count{};
        const int64_t more_objects = c.objects - mine.objects, more_bytes = c.bytes - mine.bytes;
        if (more_objects == 0 && more_bytes == 0) continue;
        if (more_objects >= 0 && more_bytes >= 0 && more_objects <= filler.objects &&
            more_bytes <= filler.bytes)
            continue;
        if (racing_objects + std::abs(more_objects) <= kRacingObjects &&
            racing_bytes + std::abs(more_bytes) <= kRacingBytes) {
            racing_objects += std::abs(more_objects);
            racing_bytes += std::abs(more_bytes);
            continue;
        }
        ++differ;
        if (differ <= 20)
            report += name + ": JVM " + std::to_string(c.objects) + " / " + std::to_string(c.bytes) +
                      " B, memcity " + std::to_string(mine.objects) + " / " + std::to_string(mine.bytes) +
                      " B (fillers " + std::to_string(filler.objects) + " / " + std::to_string(filler.bytes) +
                      " B)\n";
    }
    for (const auto& [name, c] : ours) {
        if (jvm.count(name) || !c.objects) continue;
        if (racing_objects + c.objects <= kRacingObjects && racing_bytes + c.bytes <= kRacingBytes) {
            racing_objects += c.objects;
            racing_bytes += c.bytes;
            continue;
        }
        ++differ;
        report += name + ": only memcity has it, " + std::to_string(c.objects) + " / " +
                  std::to_string(c.bytes) + " B\n";
    }
    EXPECT_EQ(differ, 0u) << report;
    // Objects no event announced (the JIT compiler's threads allocate without JVMTI events) are
    // the trace's from the census after the first full GC that finds them: few are left.
    EXPECT_LT(untracked, live / 200) << "untracked " << untracked << " of " << live;

    // Every full GC -Xlog reports, in order, with its cause: the trace has the JVM's used bytes
    // after it (the log prints them in whole KiB per generation), and memcity's live bytes are
    // within 1% of them less the dead space the collector kept, which the census right after
    // it measures (used bytes the JVM's own count of objects does not explain: the CDS archive
    // regions of G1 on JDK 17, region ends of Parallel).
    const std::vector<LoggedGc> logged = parseGcLog(log);
    std::vector<const GcRecord*> fulls;
    for (const GcRecord& r : h.gcs())
        if (r.kind == static_cast<uint8_t>(format::GcKind::kMajor)) fulls.push_back(&r);
    ASSERT_EQ(fulls.size(), logged.size());
    EXPECT_GE(h.gcCount(), 20u) << "--gc-every " << program.gc_every << ": dozens of GCs to travel through";
    ASSERT_GE(fulls.size(), 4u);  // the phases' GCs, the histogram's, the last one
    for (size_t i = 0; i < fulls.size(); ++i) {
        const GcRecord& r = *fulls[i];
        EXPECT_EQ(file->symbols().string(r.cause), logged[i].cause) << "full GC " << i;
        EXPECT_NEAR(static_cast<double>(r.vm_heap_after), static_cast<double>(logged[i].used_after), 4096.0)
            << "GC " << r.index << ": the trace's JVM figures against -Xlog";
        int64_t dead_space = 0;
        for (const JvmCheck& c : h.jvmChecks())
            if (c.gc == r.index && c.has_census) {
                dead_space = std::max<int64_t>(0, c.deadSpace());
                EXPECT_NEAR(static_cast<double>(r.live_bytes), static_cast<double>(c.jvm_bytes),
                            static_cast<double>(c.jvm_bytes) * 0.001)
                    << "GC " << r.index << ": memcity against the JVM's count of live objects";
            }
        // The figures, for the log: memcity against the JVM's used bytes and its own count.
        int64_t counted = -1;
        for (const JvmCheck& c : h.jvmChecks())
            if (c.gc == r.index && c.has_census) counted = static_cast<int64_t>(c.jvm_bytes);
        const double used = static_cast<double>(logged[i].used_after),
                     live_now = static_cast<double>(r.live_bytes);
        std::printf(
            "zoo %s %s GC %u (%s): memcity %llu B; -Xlog used after %lld B (%+.2f%%); JVM count %lld B "
            "(%+.2f%%)\n",
            program.name, gc.c_str(), r.index, logged[i].cause.c_str(),
            static_cast<unsigned long long>(r.live_bytes), static_cast<long long>(logged[i].used_after),
            100.0 * (live_now - used) / used, static_cast<long long>(counted),
            counted > 0 ? 100.0 * (live_now - static_cast<double>(counted)) / static_cast<double>(counted)
                        : 0.0);
        const double expected = static_cast<double>(logged[i].used_after) - static_cast<double>(dead_space);
        EXPECT_NEAR(static_cast<double>(r.live_bytes), expected, expected * 0.01)
            << "GC " << r.index << " (" << logged[i].cause << "): memcity " << r.live_bytes << ", -Xlog "
            << logged[i].used_after << " less " << dead_space << " of dead space";
    }
    if (!HasFailure()) fs::remove_all(work);
}

// The heap dump importer against the JVM: the program, without memcity, held at its checkpoint;
// two full GCs first, so that what the collectors still process (references, cleaners) is done;
// then its heap dump and its class histogram, back to back. The histogram's GC is a second full
// GC: with MarkSweepDeadRatio=0 it keeps no dead object formatted as a filler where the dump's
// kept another, so the two count the same objects, and the import must give every class the
// JVM's count and bytes.
TEST_P(Zoo, ADumpImportsAsTheJvmCountsEveryClass) {
    const Run run = prepare("dump-");
    if (!run.skip.empty()) GTEST_SKIP() << run.skip;
    const Program& program = *run.program;
    const std::string& gc = run.gc;
    const std::string& java_home = run.java_home;
    const fs::path& work = run.work;
    const std::vector<std::string>& args = run.args;
    std::vector<std::string> argv = {java_home + "/bin/java",
                                     "-XX:+Use" + gc,
                                     "-XX:MarkSweepDeadRatio=0",
                                     std::string("-Dzoo.hold=") + program.hold,
                                     "-cp",
                                     classPath(program),
                                     program.main_class};
    argv.insert(argv.end(), args.begin(), args.end());
    Process p = testing::start(argv);
    const std::string pid = testing::waitForOutput(p, "READY ([0-9]+) at ", 300);
    ASSERT_FALSE(pid.empty()) << p.stdout_text << p.stderr_text;
    const std::string jcmd = java_home + "/bin/jcmd", dump = (work / "heap.hprof").string();
    for (int i = 0; i < 2; ++i)
        ASSERT_EQ(testing::run({jcmd, pid, "GC.run"}).status, 0);
    Process dumped = testing::run({jcmd, pid, "GC.heap_dump", dump});
    ASSERT_EQ(dumped.status, 0) << dumped.stderr_text << dumped.stdout_text;
    Process histogram = testing::run({jcmd, pid, "GC.class_histogram"});
    ASSERT_EQ(histogram.status, 0) << histogram.stderr_text << histogram.stdout_text;
    ASSERT_EQ(write(p.in, "go\n", 3), 3);
    testing::finish(p, 600);
    ASSERT_EQ(p.status, 0) << p.stderr_text;

    const std::string trace = (work / "dump.mct").string();
    auto importer = hprof::Importer::create(trace, "test");
    ASSERT_TRUE(importer.ok()) << importer.error().message;
    auto stats = (*importer)->add(dump);
    ASSERT_TRUE(stats.ok()) << stats.error().message;
    ASSERT_TRUE((*importer)->close().ok());
    auto file = TraceFile::open(trace);
    ASSERT_TRUE(file.ok()) << file.error().message;
    auto history = HeapHistory::build(*file);
    ASSERT_TRUE(history.ok()) << history.error().message;
    EXPECT_EQ(history->diagnostics().errorCount(), 0u);
    EXPECT_EQ(stats->dropped_edges, 0u);
    std::map<std::string, Count> ours;
    {
        auto heap = history->heapAt(0);
        ASSERT_TRUE(heap.ok());
        HeapView v = heap->view();
        v.forEachLive([&](size_t pos) {
            Count& c = ours[comparableName(v.symbols().type(v.type(pos)).name)];
            c.objects += 1;
            c.bytes += static_cast<int64_t>(v.size(pos));
        });
    }
    Count total;
    const std::map<std::string, Count> jvm = parseHistogram(histogram.stdout_text, &total);
    ASSERT_GT(jvm.size(), 100u) << histogram.stdout_text.substr(0, 2000);
    // JDK 21 and later format dead space as jdk.internal.vm.FillerElement[], an int array
    // underneath, and the dump writes it as one: the JVM's FillerElement[] are the dump's int[].
    const std::string filler = "jdk.internal.vm.FillerElement[]";
    std::map<std::string, Count> jvm_as_dumped = jvm;
    if (jvm_as_dumped.count(filler)) {
        Count& ints = jvm_as_dumped["int[]"];
        ints.objects += jvm_as_dumped[filler].objects;
        ints.bytes += jvm_as_dumped[filler].bytes;
        jvm_as_dumped.erase(filler);
    }
    std::string report;
    size_t differ = 0;
    for (const auto& [name, c] : jvm_as_dumped) {
        const Count mine = ours.count(name) ? ours.at(name) : Count{};
        if (mine == c) continue;
        if (++differ <= 20)
            report += name + ": JVM " + std::to_string(c.objects) + " / " + std::to_string(c.bytes) +
                      " B, dump " + std::to_string(mine.objects) + " / " + std::to_string(mine.bytes) +
                      " B\n";
    }
    for (const auto& [name, c] : ours)
        if (!jvm_as_dumped.count(name) && ++differ <= 20)
            report += name + ": only the dump has it, " + std::to_string(c.objects) + " / " +
                      std::to_string(c.bytes) + " B\n";
    EXPECT_EQ(differ, 0u) << report;
    Count all;
    for (const auto& [name, c] : ours)
        all.objects += c.objects, all.bytes += c.bytes;
    EXPECT_EQ(all, total);
    std::printf(
        "zoo dump %s %s: %zu classes, %lld objects, %lld B; the JVM %lld objects, %lld B; %zu sizes "
        "from addresses\n",
        program.name, gc.c_str(), jvm.size(), static_cast<long long>(all.objects),
        static_cast<long long>(all.bytes), static_cast<long long>(total.objects),
        static_cast<long long>(total.bytes), stats->corrections.size());
    if (!HasFailure()) fs::remove_all(work);
}

INSTANTIATE_TEST_SUITE_P(Zoo, Zoo,
                         ::testing::Combine(::testing::Range<size_t>(0, 5),
                                            ::testing::Values("SerialGC", "ParallelGC", "G1GC"),
                                            ::testing::Range<size_t>(0, kJvms.size())),
                         [](const auto& param) {
                             return std::string(programs()[std::get<0>(param.param)].name) + "_" +
                                    std::get<1>(param.param) + (std::get<2>(param.param) ? "_Temurin25" : "");
                         });

}  // namespace
}  // namespace memcity
