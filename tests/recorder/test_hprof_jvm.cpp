// The HPROF reader on a real JVM's dump of itself (HotSpotDiagnosticMXBean.dumpHeap, what jcmd
// GC.heap_dump writes): read whole, every instance's values as long as its class chain's fields,
// every class named, and the test program's 1,000 Items with their fields and chain.
#include <gtest/gtest.h>

#include <filesystem>
#include <map>
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

}  // namespace
}  // namespace memcity
