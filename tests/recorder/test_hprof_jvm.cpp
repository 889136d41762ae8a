// Heap dumps of real JVMs:
//  - the HPROF reader on a JVM's dump of itself (HotSpotDiagnosticMXBean.dumpHeap, what jcmd
//    GC.heap_dump writes): read whole, every instance's values as long as its class chain's
//    fields, every class named, and the test program's 1,000 Items with their fields and chain;
//  - `memcity dump` taking a series from a running JVM, and a dump opened where a trace is;
//  - the retained sizes of a known structure, from a dump and from memcity's own recording of the
//    same program at the same GC, equal.
// (The import's counts and bytes per class against jcmd GC.class_histogram: test_zoo.cpp.)
#include <gtest/gtest.h>

#include <unistd.h>

#include <filesystem>
#include <map>
#include <regex>
#include <set>
#include <string>

#include "hprof/hprof_reader.h"
#include "recorder/java_programs.h"
#include "recorder/process.h"
#include "unit/trace_builder.h"

namespace memcity {
namespace {

class HprofJvm : public testing::JavaPrograms {};

struct Collect final : hprof::Visitor {
    uint32_t ids = 0;
    std::map<uint64_t, std::string> strings;
    std::map<uint64_t, uint64_t> class_names;  // class id -> name id
    std::map<uint64_t, hprof::ClassDump> classes;
    std::map<uint64_t, uint64_t> instances_of;                            // class id -> instances
    std::map<uint64_t, std::pair<uint64_t, std::vector<uint8_t>>> items;  // of the class asked for
    std::vector<std::pair<uint64_t, size_t>> instance_sizes;              // (class id, values' bytes)
    uint64_t object_arrays = 0, primitive_arrays = 0, roots = 0, segments = 0;
    std::set<uint64_t> array_classes;

    void header(const hprof::Header& h) override { ids = h.id_size; }
    void string(uint64_t id, std::string_view s) override { strings[id] = std::string(s); }
    void loadClass(const hprof::LoadClass& l) override { class_names[l.class_id] = l.name_id; }
    void heapDumpBegin(bool, uint64_t) override { ++segments; }
    void root(const hprof::Root&) override { ++roots; }
    void classDump(const hprof::ClassDump& d) override { classes[d.class_id] = d; }
    void instance(const hprof::InstanceDump& d) override {
        ++instances_of[d.class_id];
        instance_sizes.emplace_back(d.class_id, d.values.size());
        if (d.class_id == item_class) items[d.id] = {d.class_id, {d.values.begin(), d.values.end()}};
    }
    void objectArray(const hprof::ObjectArrayDump& d) override {
        ++object_arrays;
        array_classes.insert(d.class_id);
    }
    void primitiveArray(const hprof::PrimitiveArrayDump&) override { ++primitive_arrays; }

    uint64_t item_class = 0;  // known after a first pass
    std::string nameOf(uint64_t class_id) const {
        auto c = class_names.find(class_id);
        if (c == class_names.end()) return "";
        auto s = strings.find(c->second);
        return s == strings.end() ? "" : s->second;
    }
    // The bytes an instance's values take: its class's fields and every superclass's.
    size_t fieldBytes(uint64_t class_id) const {
        size_t n = 0;
        for (auto c = classes.find(class_id); c != classes.end(); c = classes.find(c->second.super_id))
            for (const hprof::ClassField& f : c->second.fields)
                n += hprof::valueSize(f.type, ids);
        return n;
    }
};

TEST_F(HprofJvm, AJvmsOwnDumpReadsWhole) {
    const std::string dump = testing::tempPath("dump-self") + ".hprof";
    std::filesystem::remove(dump);
    testing::Process p =
        testing::run({testing::kJavaHome + "/bin/java", "-cp", classes_.string(), "DumpSelf", dump, "1000"});
    ASSERT_EQ(p.status, 0) << p.stderr_text;
    const std::vector<uint8_t> bytes = testing::readFile(dump);
    ASSERT_GT(bytes.size(), 100'000u);

    Collect first;
    Status s = hprof::read(bytes, first);
    ASSERT_TRUE(s.ok()) << s.error().message;
    for (const auto& [id, name] : first.class_names)
        if (first.strings[name] == "DumpSelf$Item") first.item_class = id;
    ASSERT_NE(first.item_class, 0u);
    Collect c;
    c.item_class = first.item_class;
    s = hprof::read(bytes, c);
    ASSERT_TRUE(s.ok()) << s.error().message;

    EXPECT_TRUE(c.ids == 8 || c.ids == 4) << c.ids;
    EXPECT_GT(c.segments, 0u);
    EXPECT_GT(c.roots, 100u);
    EXPECT_GT(c.object_arrays, 100u);
    EXPECT_GT(c.primitive_arrays, 1000u);
    // Every instance's class is dumped and named, and its values are its fields' bytes.
    for (const auto& [class_id, size] : c.instance_sizes) {
        ASSERT_TRUE(c.classes.count(class_id)) << class_id;
        ASSERT_EQ(size, c.fieldBytes(class_id)) << c.nameOf(class_id);
    }
    for (const auto& [class_id, count] : c.instances_of)
        EXPECT_NE(c.nameOf(class_id), "") << class_id;
    for (uint64_t class_id : c.array_classes)
        EXPECT_EQ(c.nameOf(class_id).rfind('[', 0), 0u) << c.nameOf(class_id);  // [Lx; or [[I
    EXPECT_NE(c.nameOf(c.classes.begin()->first), "");
    // The program's Items: 1,000, with an int, a long and a reference to the one before.
    EXPECT_EQ(c.instances_of[c.item_class], 1000u);
    const hprof::ClassDump& item = c.classes.at(c.item_class);
    std::map<std::string, uint8_t> fields;
    for (const hprof::ClassField& f : item.fields)
        fields[c.strings[f.name_id]] = f.type;
    EXPECT_EQ(fields, (std::map<std::string, uint8_t>{{"next", 2}, {"stamp", 11}, {"value", 10}}));
    // Each Item's next is another Item, but one: the chain of 1,000.
    size_t next_offset = 0, value_offset = 0, stamp_offset = 0, at = 0;
    for (const hprof::ClassField& f : item.fields) {
        const std::string& name = c.strings[f.name_id];
        (name == "next" ? next_offset : name == "value" ? value_offset : stamp_offset) = at;
        at += hprof::valueSize(f.type, c.ids);
    }
    size_t chained = 0;
    std::set<uint64_t> values;
    for (const auto& [id, item_values] : c.items) {
        const std::vector<uint8_t>& v = item_values.second;
        const uint64_t next = hprof::readId(v.data() + next_offset, c.ids);
        chained += c.items.count(next);
        const auto value = static_cast<uint32_t>(hprof::readId(v.data() + value_offset, 4));
        values.insert(value);
        EXPECT_EQ(hprof::readId(v.data() + stamp_offset, 8), uint64_t{value} * 3);
    }
    EXPECT_EQ(chained, 999u);
    EXPECT_EQ(values.size(), 1000u);
    EXPECT_EQ(*values.rbegin(), 999u);
    std::filesystem::remove(dump);
}

// The "retained" bytes `memcity inspect` prints for the node of type `type` at `gc`.
int64_t retainedBytes(const std::string& trace, uint32_t gc, const std::string& type) {
    testing::Process p = testing::run({testing::kMemcity, "inspect", trace, "--gc", std::to_string(gc),
                                       "--classify", "type", "--node", type, "--json"});
    EXPECT_EQ(p.status, 0) << p.stderr_text;
    std::smatch m;
    static const std::regex retained(R"("retained": \{\s*"objects": \d+,\s*"bytes": (\d+))");
    if (!std::regex_search(p.stdout_text, m, retained)) {
        ADD_FAILURE() << "no retained size in\n" << p.stdout_text.substr(0, 1000);
        return -1;
    }
    return std::stoll(m[1].str());
}

TEST_F(HprofJvm, RetainedSizesAreTheRecordingsOwnAtTheDumpsGc) {
    // The program recorded with a snapshot at every GC, and dumped while it waits: the dump's GC
    // is in the recording, with its snapshot.
    const std::string trace = tracePath("dumped-recording"), dump = testing::tempPath("dumped") + ".hprof",
                      imported = testing::tempPath("dumped-import") + ".mct";
    std::filesystem::remove(dump);
    testing::Process p = testing::start(record(trace, {}, {"Histogram"}, {"--refs", "1"}));
    const std::string pid = testing::waitForOutput(p, "READY ([0-9]+)", 60);
    ASSERT_FALSE(pid.empty()) << p.stderr_text;
    testing::Process jcmd = testing::run({testing::kJavaHome + "/bin/jcmd", pid, "GC.heap_dump", dump});
    ASSERT_EQ(jcmd.status, 0) << jcmd.stderr_text << jcmd.stdout_text;
    ASSERT_EQ(write(p.in, "go\n", 3), 3);
    testing::finish(p, 60);
    ASSERT_EQ(p.status, 0) << p.stderr_text;
    testing::Process im = testing::run({testing::kMemcity, "import", dump, "-o", imported});
    ASSERT_EQ(im.status, 0) << im.stderr_text;

    Loaded l = load(trace);
    ASSERT_TRUE(l.history);
    uint32_t dump_gc = UINT32_MAX;
    for (const GcRecord& g : l.history->gcs())
        if (g.cause && l.file->symbols().string(g.cause) == "Heap Dump Initiated GC") dump_gc = g.index;
    ASSERT_NE(dump_gc, UINT32_MAX) << "the dump's GC is not in the recording";
    ASSERT_TRUE(l.history->gcs()[dump_gc].has_snapshot);
    // B: 5,000, each with its long[4]; C: 777, each with its String and its bytes; the C[].
    EXPECT_EQ(retainedBytes(imported, 0, "Histogram$B"), 5000 * (16 + 48));
    for (const char* type : {"Histogram$B", "Histogram$C", "Histogram$C[]", "Histogram$A"}) {
        const int64_t recorded = retainedBytes(trace, dump_gc, type),
                      from_dump = retainedBytes(imported, 0, type);
        EXPECT_GT(recorded, 0) << type;
        EXPECT_EQ(from_dump, recorded) << type;
    }
    std::filesystem::remove(dump);
}

TEST_F(HprofJvm, DumpTakesASeriesFromARunningJvm) {
    const std::string out = testing::tempPath("dump-series") + ".mct";
    testing::Process p =
        testing::start({testing::kJavaHome + "/bin/java", "-cp", classes_.string(), "Histogram"});
    const std::string pid = testing::waitForOutput(p, "READY ([0-9]+)", 60);
    ASSERT_FALSE(pid.empty()) << p.stderr_text;
    testing::Process d =
        testing::run({testing::kMemcity, "dump", pid, "--every", "0.5", "--count", "3", "-o", out}, 120);
    ASSERT_EQ(d.status, 0) << d.stderr_text << d.stdout_text;
    ASSERT_EQ(write(p.in, "go\n", 3), 3);
    testing::finish(p, 60);
    ASSERT_EQ(p.status, 0) << p.stderr_text;
    // A line per dump with its pause, then the total.
    const std::regex line(R"(pause <= [0-9.]+ m?s.*GC [0-2]: .*objects)");
    EXPECT_EQ(std::distance(std::sregex_iterator(d.stdout_text.begin(), d.stdout_text.end(), line),
                            std::sregex_iterator()),
              3)
        << d.stdout_text;
    EXPECT_NE(d.stdout_text.find("wrote " + out + ": 3 dumps"), std::string::npos) << d.stdout_text;
    // The raw dumps are gone.
    for (int k = 0; k < 3; ++k) {
        const auto raw = std::filesystem::temp_directory_path() /
                         ("dump-series-" + pid + "-" + std::to_string(k) + ".hprof");
        EXPECT_FALSE(std::filesystem::exists(raw)) << raw;
    }
    Loaded l = load(out);
    ASSERT_TRUE(l.history);
    ASSERT_EQ(l.history->gcCount(), 3u);
    EXPECT_EQ(l.history->diagnostics().errorCount(), 0u) << describeAnomalies(l.history->diagnostics());
    for (uint32_t gc = 0; gc < 3; ++gc) {
        const GcRecord& g = l.history->gcs()[gc];
        EXPECT_GT(g.pause_ns, 0u);
        EXPECT_TRUE(g.has_snapshot);
        auto live = liveByType(*l.history, gc);
        EXPECT_EQ(live["Histogram$A"], 10000u) << "GC " << gc;
        EXPECT_EQ(live["Histogram$B"], 5000u) << "GC " << gc;
        EXPECT_EQ(live["Histogram$C"], 777u) << "GC " << gc;
        if (gc > 0) {
            EXPECT_GT(g.end_ns, l.history->gcs()[gc - 1].end_ns);
        }
    }
    // A dump of a JVM that is gone: one line, exit status 1.
    testing::Process gone = testing::run({testing::kMemcity, "dump", pid, "-o", out});
    EXPECT_EQ(gone.status, 1);
    EXPECT_NE(gone.stderr_text.find("memcity dump: "), std::string::npos) << gone.stderr_text;
}

TEST_F(HprofJvm, AHeapDumpOpensWhereATraceDoes) {
    const std::string dump = testing::tempPath("open-me") + ".hprof";
    std::filesystem::remove(dump);
    testing::Process p =
        testing::run({testing::kJavaHome + "/bin/java", "-cp", classes_.string(), "DumpSelf", dump, "1000"});
    ASSERT_EQ(p.status, 0) << p.stderr_text;
    const std::string cache = testing::tempPath("cache");
    std::filesystem::remove_all(cache);
    // The first time it is imported into the cache; the second time the cache's trace opens.
    for (int round = 0; round < 2; ++round) {
        testing::Process r =
            testing::run({"/usr/bin/env", "XDG_CACHE_HOME=" + cache, testing::kMemcity, "report", dump,
                          "--classify", "type", "--metric", "objects", "--all"});
        ASSERT_EQ(r.status, 0) << r.stderr_text;
        EXPECT_EQ(r.stderr_text.find("importing"), round == 0 ? 0u : std::string::npos) << r.stderr_text;
        EXPECT_TRUE(std::regex_search(r.stdout_text, std::regex(R"(\s1,000 .*DumpSelf\$Item\n)")))
            << r.stdout_text.substr(0, 3000);
    }
    std::filesystem::remove_all(cache);
    std::filesystem::remove(dump);
}

}  // namespace
}  // namespace memcity
