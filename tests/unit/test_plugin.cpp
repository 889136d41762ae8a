// Classifier plugins (memcity_plugin.h) loaded from the C libraries in tests/plugins/: exact trees
// on a small hand-made heap, every field of memcity_object, one and two threads, and each way of
// loading or running a plugin that must fail in one line.
#include <gtest/gtest.h>

#include <unistd.h>

#include <algorithm>
#include <chrono>
#include <filesystem>
#include <map>

#include "classify/plugin_classifier.h"
#include "classify/tree.h"
#include "heap/heap_history.h"
#include "unit/trace_builder.h"

namespace memcity {
namespace {

using testing::TraceBuilder;

const std::string kSizeClass = MEMCITY_SIZE_CLASS_PLUGIN;
const std::string kTags = MEMCITY_TAGS_PLUGIN;
const std::string kStack = MEMCITY_STACK_PLUGIN;
const std::string kProbe = MEMCITY_PROBE_PLUGIN;

// Adds to TraceBuilder's symbols: types 6 "java.util.HashMap" (48 B) and 7 "java.util.HashMap$Node"
// (32 B); method 3 App.main; site 3 = Main.run:11 called from App.main:5.
void defineMore(TraceBuilder& b) {
    b.writer().defineType(6, TypeDef{"java.util.HashMap", format::TypeKind::kInstance, 0, 48, 0, 0, 0});
    b.writer().defineType(7, TypeDef{"java.util.HashMap$Node", format::TypeKind::kInstance, 0, 32, 0, 0, 0});
    b.writer().defineMethod(3, "App", "main", "()V", "App.java");
    const Frame frames[] = {{1, 11}, {3, 5}};
    b.writer().defineSite(3, frames);
}

// At GC 1 the heap holds (id: type, site, thread, size):
//   1, 2: A             Main.run:10     main     16 B
//   3:    B             Main.other:20   worker   24 B
//   4:    int[10]       Main.run:10     worker   56 B
//   5:    int[300]      Main.other:20   main     1216 B
//   6:    HashMap       site 3          main     48 B
//   7:    HashMap$Node  site 3          main     32 B
//   8:    HashMap       site 3          worker   48 B   (born after GC 0: age 1; the rest age 2)
// (A id 0 died at GC 1): 8 objects, 1,456 bytes.
struct Small {
    std::unique_ptr<TraceFile> file;
    std::unique_ptr<HeapHistory> history;
    HeapState heap;

    Small() {
        TraceBuilder b("plugin");
        defineMore(b);
        b.alloc(0).alloc(1).alloc(2).alloc(3, 2, 2, 2).allocArray(4, 3, 10, 1, 2).allocArray(5, 3, 300, 2, 1);
        b.alloc(6, 6, 3, 1).alloc(7, 7, 3, 1);
        b.gc(0, 8);
        b.alloc(8, 6, 3, 2);
        b.gc(1, 9, {0});
        load(b.finish());
    }
    explicit Small(const std::string& path) { load(path); }

    void load(const std::string& path) {
        auto f = TraceFile::open(path);
        ASSERT_TRUE(f.ok()) << f.error().message;
        file = std::make_unique<TraceFile>(std::move(*f));
        auto h = HeapHistory::build(*file);
        ASSERT_TRUE(h.ok()) << h.error().message;
        history = std::make_unique<HeapHistory>(std::move(*h));
        auto s = history->heapAt(static_cast<uint32_t>(history->gcCount() - 1));
        ASSERT_TRUE(s.ok()) << s.error().message;
        heap = std::move(*s);
    }
};

ClassifierChain chainOf(const std::string& spec) {
    auto c = parseChain(spec);
    EXPECT_TRUE(c.ok()) << (c.ok() ? "" : c.error().message);
    return c.ok() ? std::move(*c) : ClassifierChain{};
}

std::string chainError(const std::string& spec) {
    auto c = parseChain(spec);
    EXPECT_FALSE(c.ok()) << spec;
    return c.ok() ? "" : c.error().message;
}

struct Counts {
    uint64_t objects, bytes;
    bool operator==(const Counts&) const = default;
};
std::ostream& operator<<(std::ostream& o, const Counts& c) {
    return o << c.objects << " objects, " << c.bytes << " B";
}

Counts at(const ClassificationTree& t, const std::vector<std::string>& path) {
    const uint32_t id = t.find(path);
    EXPECT_NE(id, kNoNode) << "no node " << ::testing::PrintToString(path);
    if (id == kNoNode) return {~0ull, ~0ull};
    return {t.node(id).objects, t.node(id).bytes};
}

// Every node by its path of keys, for comparing trees whose nodes were made in another order.
std::map<std::vector<Key>, Counts> byKeys(const ClassificationTree& t) {
    std::map<std::vector<Key>, Counts> out;
    for (uint32_t id = 0; id < t.size(); ++id) {
        std::vector<Key> path;
        for (uint32_t at = id; at != ClassificationTree::kRoot; at = t.node(at).parent)
            path.push_back(t.node(at).key);
        std::reverse(path.begin(), path.end());
        out[path] = {t.node(id).objects, t.node(id).bytes};
    }
    return out;
}

// Every node by its path of labels.
std::map<std::string, Counts> byLabels(const ClassificationTree& t) {
    std::map<std::string, Counts> out;
    for (uint32_t id = 0; id < t.size(); ++id)
        out[t.path(id)] = {t.node(id).objects, t.node(id).bytes};
    return out;
}

TEST(Plugin, OneToOneWithParameters) {
    Small s;
    ClassifierChain chain = chainOf("plugin(path=" + kSizeClass + ",limits=16:64),type");
    ASSERT_EQ(chain.classifiers.size(), 2u);
    EXPECT_EQ(chain.classifiers[0]->cardinality(), Cardinality::kOne);
    EXPECT_FALSE(chain.classifiers[0]->shapeOnly());
    EXPECT_EQ(chain.spec(), "plugin(path=" + kSizeClass + ",limits=16:64),type");
    auto tree = ClassificationTree::build(s.heap.view(), chain);
    EXPECT_TRUE(pluginErrors(chain).ok());
    EXPECT_EQ(at(tree, {}), (Counts{8, 1456}));
    EXPECT_EQ(tree.root().children.size(), 3u);
    EXPECT_EQ(at(tree, {"up to 16 B"}), (Counts{2, 32}));
    EXPECT_EQ(at(tree, {"17 B – 64 B"}), (Counts{5, 208}));
    EXPECT_EQ(at(tree, {"17 B – 64 B", "java.util.HashMap"}), (Counts{2, 96}));
    EXPECT_EQ(at(tree, {"over 64 B"}), (Counts{1, 1216}));
    EXPECT_EQ(tree.classifierSpec(tree.find({"over 64 B"})), "plugin(path=" + kSizeClass + ",limits=16:64)");

    // A quoted value, and a path relative to the current directory.
    const std::string relative = std::filesystem::relative(kSizeClass).string();
    ClassifierChain quoted = chainOf("plugin(path=\"" + relative + "\",limits=\"16\")");
    auto q = ClassificationTree::build(s.heap.view(), quoted);
    EXPECT_EQ(at(q, {"up to 16 B"}), (Counts{2, 32}));
    EXPECT_EQ(at(q, {"over 16 B"}), (Counts{6, 1424}));

    // A path with a space, a comma and parentheses, in quotes.
    const std::filesystem::path dir = testing::tempPath("my plugins, (copy)");
    std::filesystem::create_directories(dir);
    std::filesystem::copy_file(kSizeClass, dir / "size class.so");
    ClassifierChain odd = chainOf("plugin(path=\"" + (dir / "size class.so").string() + "\",limits=16),type");
    EXPECT_EQ(at(ClassificationTree::build(s.heap.view(), odd), {"over 16 B", "int[]"}), (Counts{2, 1272}));
    std::filesystem::remove_all(dir);
}

TEST(Plugin, SizeClassWithoutLimitsMatchesTheBuiltinSize) {
    Small s;
    ClassifierChain plugin = chainOf("plugin(path=" + kSizeClass + ")");
    ClassifierChain builtin = chainOf("size");
    auto p = ClassificationTree::build(s.heap.view(), plugin);
    auto b = ClassificationTree::build(s.heap.view(), builtin);
    EXPECT_EQ(byKeys(p), byKeys(b));
    EXPECT_EQ(byKeys(p).size(), 5u);  // the root and the buckets up to 16, 32, 64 and 2048 bytes
    EXPECT_EQ(at(p, {"33 B – 64 B"}), (Counts{3, 152}));
    EXPECT_EQ(at(p, {"1025 B – 2048 B"}), (Counts{1, 1216}));
}

TEST(Plugin, OneToManyCountsAnObjectOnceAboveItsTags) {
    Small s;
    ClassifierChain chain = chainOf("plugin(path=" + kTags + "),type");
    EXPECT_EQ(chain.classifiers[0]->cardinality(), Cardinality::kMany);
    auto tree = ClassificationTree::build(s.heap.view(), chain);
    EXPECT_EQ(at(tree, {}), (Counts{8, 1456}));
    EXPECT_EQ(at(tree, {"array"}), (Counts{2, 1272}));
    EXPECT_EQ(at(tree, {"collection"}), (Counts{2, 96}));  // the maps, not their nodes
    EXPECT_EQ(at(tree, {"collection", "java.util.HashMap"}), (Counts{2, 96}));
    EXPECT_EQ(at(tree, {"big (>= 1024 B)"}), (Counts{1, 1216}));
    EXPECT_EQ(at(tree, {"(none)"}), (Counts{4, 88}));  // A, A, B, HashMap$Node
    EXPECT_EQ(tree.root().children.size(), 4u);        // nothing is old (age >= 3)

    ClassifierChain older = chainOf("plugin(path=" + kTags + ",big=56,old=2)");
    auto o = ClassificationTree::build(s.heap.view(), older);
    EXPECT_EQ(at(o, {}), (Counts{8, 1456}));
    EXPECT_EQ(at(o, {"old (age >= 2)"}), (Counts{7, 1408}));  // all but id 8
    EXPECT_EQ(at(o, {"big (>= 56 B)"}), (Counts{2, 1272}));
    EXPECT_EQ(o.find({"(none)"}), kNoNode);
}

TEST(Plugin, OneToHierarchyReadsFramesAndIsShapeOnly) {
    Small s;
    ClassifierChain chain = chainOf("plugin(path=" + kStack + ",thread=1)");
    EXPECT_EQ(chain.classifiers[0]->cardinality(), Cardinality::kHierarchy);
    EXPECT_TRUE(chain.shapeOnly());
    auto tree = ClassificationTree::build(s.heap.view(), chain);
    EXPECT_EQ(tree.signatures(), 7u);  // shapes
    EXPECT_EQ(byLabels(tree), (std::map<std::string, Counts>{
                                  {"", {8, 1456}},
                                  {"main", {5, 1328}},
                                  {"main / Main.run:10", {2, 32}},
                                  {"main / Main.other:20", {1, 1216}},
                                  {"main / App.main:5", {2, 80}},
                                  {"main / App.main:5 / Main.run:11", {2, 80}},
                                  {"worker", {3, 128}},
                                  {"worker / Main.other:20", {1, 24}},
                                  {"worker / Main.run:10", {1, 56}},
                                  {"worker / App.main:5", {1, 48}},
                                  {"worker / App.main:5 / Main.run:11", {1, 48}},
                              }));
    ClassifierChain inner = chainOf("plugin(path=" + kStack + ",depth=1)");
    auto i = ClassificationTree::build(s.heap.view(), inner);
    EXPECT_EQ(at(i, {"Main.run:11"}), (Counts{3, 128}));
    EXPECT_EQ(i.find({"App.main:5"}), kNoNode);
}

TEST(Plugin, EveryFieldOfTheObject) {
    Small s;
    // field -> (label of a group -> objects in it)
    const std::map<std::string, std::map<std::string, uint64_t>> expected = {
        {"id", {{"1", 1}, {"2", 1}, {"3", 1}, {"4", 1}, {"5", 1}, {"6", 1}, {"7", 1}, {"8", 1}}},
        {"type_id", {{"1", 2}, {"2", 1}, {"3", 2}, {"6", 2}, {"7", 1}}},
        {"site_id", {{"1", 3}, {"2", 2}, {"3", 3}}},
        {"thread_id", {{"1", 5}, {"2", 3}}},
        {"is_array", {{"0", 6}, {"1", 2}}},
        {"type_name", {{"1", 3}, {"5", 2}, {"17", 2}, {"22", 1}}},  // A, B; int[]; HashMap; $Node
        {"thread_name", {{"4", 5}, {"6", 3}}},
        {"length", {{"0", 6}, {"10", 1}, {"300", 1}}},
        {"size", {{"16", 2}, {"24", 1}, {"56", 1}, {"1216", 1}, {"48", 2}, {"32", 1}}},
        {"gc", {{"1", 8}}},
        {"birth_gc", {{"0", 7}, {"1", 1}}},
        {"age", {{"2", 7}, {"1", 1}}},
        {"frame_count", {{"1", 5}, {"2", 3}}},
        {"frame_line", {{"11", 3}, {"21", 2}, {"12", 3}}},
        {"frame_past_end", {{"0", 8}}},
    };
    for (const auto& [field, groups] : expected) {
        ClassifierChain chain = chainOf("plugin(path=" + kProbe + ",field=" + field + ")");
        auto tree = ClassificationTree::build(s.heap.view(), chain);
        std::map<std::string, uint64_t> got;
        for (uint32_t c : tree.root().children)
            got[tree.label(c)] = tree.node(c).objects;
        EXPECT_EQ(got, groups) << field;
    }
}

// 240,000 objects of five types, three sites, two threads, and many sizes, so that the pass over
// the objects runs in slices.
std::string bigTrace() {
    TraceBuilder b("plugin-big");
    defineMore(b);
    const uint64_t n = 240'000;
    for (uint64_t id = 0; id < n; ++id) {
        const auto site = static_cast<uint32_t>(1 + id % 3);
        const auto thread = static_cast<uint32_t>(1 + (id % 7 == 0));
        switch (id % 5) {
            case 0: b.alloc(id, 1, site, thread); break;
            case 1: b.alloc(id, 6, site, thread); break;
            case 2: b.allocArray(id, 3, (id * 7) % 600, site, thread); break;
            case 3: b.allocArray(id, 4, id % 40, site, thread); break;
            default: b.allocSized(id, 5, 16 + (id % 13) * 8, site, thread); break;
        }
        if (id == n / 2) b.gc(0, id + 1);
    }
    std::vector<uint64_t> dead;
    for (uint64_t id = 0; id < n; id += 4)
        dead.push_back(id);
    b.gc(1, n, dead);
    return b.finish();
}

TEST(Plugin, TwoThreadsGiveTheSameTree) {
    Small s(bigTrace());
    ASSERT_EQ(s.heap.objectCount(), 180'000u);
    const std::string spec = "plugin(path=" + kStack + ",thread=1),plugin(path=" + kTags +
                             ",big=512,old=2),plugin(path=" + kSizeClass + ")";
    ClassifierChain chain = chainOf(spec);
    auto one = ClassificationTree::build(s.heap.view(), chain, {1});
    auto two = ClassificationTree::build(s.heap.view(), chain, {2});
    EXPECT_TRUE(pluginErrors(chain).ok());
    EXPECT_EQ(one.root().objects, 180'000u);
    EXPECT_EQ(one.size(), 187u);  // nodes: a tree that branches at every level
    EXPECT_EQ(byLabels(one), byLabels(two));

    // The plugin's size classes are the built-in's, in one thread and two.
    ClassifierChain plugin = chainOf("plugin(path=" + kSizeClass + "),type");
    ClassifierChain builtin = chainOf("size,type");
    const auto expected = byKeys(ClassificationTree::build(s.heap.view(), builtin, {1}));
    EXPECT_EQ(expected.size(), 26u);
    EXPECT_EQ(byKeys(ClassificationTree::build(s.heap.view(), plugin, {1})), expected);
    EXPECT_EQ(byKeys(ClassificationTree::build(s.heap.view(), plugin, {2})), expected);
}

TEST(Plugin, LoadErrorsAreOneLine) {
    const std::string bad_abi = MEMCITY_BAD_ABI_PLUGIN, no_entry = MEMCITY_BAD_NO_ENTRY_PLUGIN;
    const std::string cardinality = MEMCITY_BAD_CARDINALITY_PLUGIN, overflow = MEMCITY_BAD_OVERFLOW_PLUGIN;
    const std::string text = testing::tempPath("not-a-library");
    testing::writeFile(text, {'h', 'e', 'l', 'l', 'o', '\n'});
    struct Case {
        std::string spec, message;
    } cases[] = {
        {"plugin(path=/nonexistent/x.so)",
         "classifier 'plugin(path=/nonexistent/x.so)': /nonexistent/x.so: cannot open: No such file or "
         "directory"},
        {"plugin(path=" + no_entry + ")", "classifier 'plugin(path=" + no_entry + ")': " + no_entry +
                                              ": no symbol memcity_plugin_entry (a plugin exports it; see "
                                              "memcity_plugin.h)"},
        {"plugin(path=" + bad_abi + ")",
         "classifier 'plugin(path=" + bad_abi + ")': " + bad_abi +
             ": built for plugin ABI version 2, this memcity loads version 1 (rebuild it against this "
             "memcity's memcity_plugin.h)"},
        {"plugin(path=" + cardinality + ")",
         "classifier 'plugin(path=" + cardinality +
             ")': bad: invalid cardinality 7 (expected MEMCITY_ONE, MEMCITY_MANY or MEMCITY_HIERARCHY)"},
        {"type,plugin(path=" + kSizeClass + ",limits=64:16)",
         "classifier 'plugin(path=" + kSizeClass +
             ",limits=64:16)': size-class: limits expects up to 32 increasing byte counts separated by ':', "
             "got '64:16'"},
        {"plugin(path=" + kTags + ",colour=red)",
         "classifier 'plugin(path=" + kTags +
             ",colour=red)': tags: unknown parameter 'colour' (parameters: big, old)"},
        {"plugin(path=" + overflow + ",x=1)",
         "classifier 'plugin(path=" + overflow + ",x=1)': bad takes no parameters, got 'x'"},
        {"plugin", "classifier 'plugin': path=FILE is required (see docs/plugins.md)"},
        {"plugin(limits=16)", "classifier 'plugin(limits=16)': path=FILE is required (see docs/plugins.md)"},
        {"plugin(path)", "classifier 'plugin(path)': expected PARAM=VALUE, found 'path'"},
        {"plugin(path=a.so,path=b.so)",
         "classifier 'plugin(path=a.so,path=b.so)': parameter 'path' is given twice"},
        {"plugin(path=\"a.so)", "classifiers 'plugin(path=\"a.so)': unterminated string"},
    };
    for (const Case& c : cases)
        EXPECT_EQ(chainError(c.spec), c.message);
    // Not a shared object: the dynamic loader's own words follow.
    const std::string not_so = chainError("plugin(path=" + text + ")");
    const std::string prefix =
        "classifier 'plugin(path=" + text + ")': " + text + ": not a loadable shared object: ";
    EXPECT_EQ(not_so.rfind(prefix, 0), 0u) << not_so;
    EXPECT_GT(not_so.size(), prefix.size());
    EXPECT_EQ(not_so.find('\n'), std::string::npos);
    std::filesystem::remove(text);
}

TEST(Plugin, BreachesWhileClassifyingAreReportedAfterTheBuild) {
    Small s;
    struct Case {
        std::string path, what;
    } cases[] = {
        {MEMCITY_BAD_OVERFLOW_PLUGIN, "3 keys, more than the capacity 2"},
        {MEMCITY_BAD_NO_KEY_PLUGIN, "no key (a one-to-one classifier gives exactly one)"},
        {MEMCITY_BAD_RESERVED_KEY_PLUGIN, "the reserved key 18446744073709551615"},
    };
    for (const Case& c : cases) {
        ClassifierChain chain = chainOf("type,plugin(path=" + c.path + ")");
        EXPECT_TRUE(pluginErrors(chain).ok());
        auto tree = ClassificationTree::build(s.heap.view(), chain);
        const Status st = pluginErrors(chain);
        ASSERT_FALSE(st.ok()) << c.path;
        // Shape-only: the first shape's object is id 1 (id 0 died).
        EXPECT_EQ(st.error().message, "classifier 'plugin(path=" + c.path + ")': bad: classify returned " +
                                          c.what + " for object 1");
        // The objects stay in the tree, under "(plugin error)".
        EXPECT_EQ(at(tree, {"A", "(plugin error)"}), (Counts{2, 32})) << c.path;
        EXPECT_EQ(at(tree, {}), (Counts{8, 1456}));
    }
}

}  // namespace
}  // namespace memcity

namespace memcity {
namespace {

// A chain applied again (or checked, or loaded by several windows) opens its library once; a
// changed file is opened anew.
TEST(Plugin, TheLoaderOpensALibraryOncePerFile) {
    const std::filesystem::path copy =
        std::filesystem::temp_directory_path() / ("memcity-once-" + std::to_string(::getpid()) + ".so");
    std::filesystem::copy_file(kSizeClass, copy, std::filesystem::copy_options::overwrite_existing);
    const std::string item = "plugin(path=" + copy.string() + ",limits=16)";
    const size_t before = pluginLibraryLoads();
    for (int k = 0; k < 5; ++k) {
        auto c = loadPluginClassifier(item);
        ASSERT_TRUE(c) << c.error().message;
    }
    EXPECT_EQ(pluginLibraryLoads(), before + 1);
    // Checking an item never loads it.
    EXPECT_TRUE(checkPluginSpec(item, true).ok());
    EXPECT_EQ(pluginLibraryLoads(), before + 1);
    // A new file at the path (another modification time and inode): loaded again.
    std::filesystem::remove(copy);
    std::filesystem::copy_file(kSizeClass, copy);
    std::filesystem::last_write_time(copy,
                                     std::filesystem::file_time_type::clock::now() + std::chrono::hours(1));
    ASSERT_TRUE(loadPluginClassifier(item));
    EXPECT_EQ(pluginLibraryLoads(), before + 2);
    std::filesystem::remove(copy);
}

TEST(Plugin, ACheckRefusesARelativePathWhereOnlyAbsoluteOnesAreTaken) {
    const Status relative = checkPluginSpec("plugin(path=./x.so)", true);
    ASSERT_FALSE(relative.ok());
    EXPECT_EQ(relative.error().message,
              "classifier 'plugin(path=./x.so)': ./x.so: a relative path; give the plugin's absolute path "
              "(/.../x.so)");
    EXPECT_TRUE(checkPluginSpec("plugin(path=./x.so)", false).ok());
    EXPECT_FALSE(checkPluginSpec("plugin(path=/x.so", true).ok());
}

}  // namespace
}  // namespace memcity
