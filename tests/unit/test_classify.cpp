// Classifiers, filters and classification trees on a tiny hand-made heap with exact answers, and
// on the buggy-stack scenario.
#include <gtest/gtest.h>

#include "classify/diff.h"
#include "classify/tree.h"
#include "heap/heap_history.h"
#include "synth/synth.h"
#include "unit/trace_builder.h"

namespace memcity {
namespace {

using testing::TraceBuilder;

// At GC 1 the heap holds (type, site, thread, size):
//   A ids 1, 2, 7     Main.run:10    main     16 B each   (id 7 born after GC 0)
//   B ids 3, 4        Main.other:20  worker   24 B each
//   int[10] id 5      Main.run:10    worker   56 B
//   int[300] id 6     Main.other:20  main     1216 B
// (A id 0 died at GC 1): 7 objects, 1,368 bytes.
struct Tiny {
    std::unique_ptr<TraceFile> file;
    std::unique_ptr<HeapHistory> history;
    HeapState heap;

    Tiny() {
        TraceBuilder b("classify");
        b.alloc(0).alloc(1).alloc(2).alloc(3, 2, 2, 2).alloc(4, 2, 2, 2);
        b.allocArray(5, 3, 10, 1, 2).allocArray(6, 3, 300, 2, 1);
        b.gc(0, 7);
        b.alloc(7);
        b.gc(1, 8, {0});
        auto f = TraceFile::open(b.finish());
        EXPECT_TRUE(f.ok());
        file = std::make_unique<TraceFile>(std::move(*f));
        auto h = HeapHistory::build(*file);
        EXPECT_TRUE(h.ok());
        history = std::make_unique<HeapHistory>(std::move(*h));
        auto s = history->heapAt(1);
        EXPECT_TRUE(s.ok());
        heap = std::move(*s);
    }
};

ClassifierChain chainOf(std::string_view spec) {
    auto c = parseChain(spec);
    EXPECT_TRUE(c.ok()) << (c.ok() ? "" : c.error().message);
    return c.ok() ? std::move(*c) : ClassifierChain{};
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

TEST(Classify, TypeTreeCountsEveryLiveObjectOnce) {
    Tiny t;
    ClassifierChain chain = chainOf("type");
    auto tree = ClassificationTree::build(t.heap.view(), chain);
    EXPECT_EQ(at(tree, {}), (Counts{7, 1368}));
    EXPECT_EQ(at(tree, {"A"}), (Counts{3, 48}));
    EXPECT_EQ(at(tree, {"B"}), (Counts{2, 48}));
    EXPECT_EQ(at(tree, {"int[]"}), (Counts{2, 1272}));
    EXPECT_EQ(tree.root().children.size(), 3u);
    // Largest first by bytes; by objects A comes before B and int[].
    auto by_bytes = tree.sortedChildren(ClassificationTree::kRoot, Metric::kBytes);
    EXPECT_EQ(tree.label(by_bytes[0]), "int[]");
    EXPECT_EQ(tree.label(by_bytes[1]), "A");  // 48 B ties with B; 3 objects beat 2
    auto by_objects = tree.sortedChildren(ClassificationTree::kRoot, Metric::kObjects);
    EXPECT_EQ(tree.label(by_objects[0]), "A");
    EXPECT_EQ(tree.signatures(),
              4u);  // shapes: A@run/main, B@other/worker, int[]@run/worker, int[]@other/main
}

TEST(Classify, MultiLevelChains) {
    Tiny t;
    ClassifierChain chain = chainOf("type,site");
    auto tree = ClassificationTree::build(t.heap.view(), chain);
    EXPECT_EQ(at(tree, {"int[]", "Main.run(Main.java:10)"}), (Counts{1, 56}));
    EXPECT_EQ(at(tree, {"int[]", "Main.other(Main.java:20)"}), (Counts{1, 1216}));
    EXPECT_EQ(tree.path(tree.find({"int[]", "Main.run(Main.java:10)"})), "int[] / Main.run(Main.java:10)");
    EXPECT_EQ(tree.classifierSpec(tree.find({"int[]", "Main.run(Main.java:10)"})), "site");

    ClassifierChain threads = chainOf("thread,type");
    auto by_thread = ClassificationTree::build(t.heap.view(), threads);
    EXPECT_EQ(at(by_thread, {"main"}), (Counts{4, 48 + 1216}));
    EXPECT_EQ(at(by_thread, {"worker"}), (Counts{3, 48 + 56}));
    EXPECT_EQ(at(by_thread, {"worker", "int[]"}), (Counts{1, 56}));
}

TEST(Classify, PerObjectClassifiers) {
    Tiny t;
    ClassifierChain ages = chainOf("age,type");
    auto tree = ClassificationTree::build(t.heap.view(), ages);
    EXPECT_EQ(at(tree, {"age 2"}), (Counts{6, 1368 - 16}));
    EXPECT_EQ(at(tree, {"age 1", "A"}), (Counts{1, 16}));
    EXPECT_EQ(at(tree, {"age 2", "A"}), (Counts{2, 32}));

    ClassifierChain kinds = chainOf("kind");
    auto k = ClassificationTree::build(t.heap.view(), kinds);
    EXPECT_EQ(at(k, {"instance"}), (Counts{5, 96}));
    EXPECT_EQ(at(k, {"small array"}), (Counts{1, 56}));
    EXPECT_EQ(at(k, {"big array"}), (Counts{1, 1216}));
    ClassifierChain kinds_big = chainOf("kind(big=10)");
    EXPECT_EQ(at(ClassificationTree::build(t.heap.view(), kinds_big), {"big array"}), (Counts{2, 1272}));

    ClassifierChain lengths = chainOf("length");
    auto l = ClassificationTree::build(t.heap.view(), lengths);
    EXPECT_EQ(at(l, {"not an array"}), (Counts{5, 96}));
    EXPECT_EQ(at(l, {"length 300"}), (Counts{1, 1216}));
    ClassifierChain buckets = chainOf("length(buckets=1)");
    auto lb = ClassificationTree::build(t.heap.view(), buckets);
    EXPECT_EQ(at(lb, {"length 9–16"}), (Counts{1, 56}));
    EXPECT_EQ(at(lb, {"length 257–512"}), (Counts{1, 1216}));

    ClassifierChain sizes = chainOf("size");
    auto s = ClassificationTree::build(t.heap.view(), sizes);
    EXPECT_EQ(at(s, {"9 B – 16 B"}), (Counts{3, 48}));        // A
    EXPECT_EQ(at(s, {"17 B – 32 B"}), (Counts{2, 48}));       // B
    EXPECT_EQ(at(s, {"33 B – 64 B"}), (Counts{1, 56}));       // int[10]
    EXPECT_EQ(at(s, {"1025 B – 2 KiB"}), (Counts{1, 1216}));  // int[300]
}

// A one-to-many classifier for the test: A objects belong to groups 1 and 2, the rest to 2.
class TwoGroups final : public Classifier {
public:
    std::string spec() const override { return "two-groups"; }
    Cardinality cardinality() const override { return Cardinality::kMany; }
    bool shapeOnly() const override { return true; }
    void classify(const HeapView& heap, size_t pos, std::vector<Key>& out) const override {
        if (heap.symbols().type(heap.type(pos)).name == "A") out.push_back(1);
        out.push_back(2);
    }
    std::string label(const SymbolTable&, Key key) const override { return "group " + std::to_string(key); }
};

TEST(Classify, OneToManyCountsAnObjectOnceAboveItsGroups) {
    Tiny t;
    ClassifierChain chain;
    chain.classifiers.push_back(std::make_unique<TwoGroups>());
    chain.classifiers.push_back(std::move(chainOf("type").classifiers.front()));
    auto tree = ClassificationTree::build(t.heap.view(), chain);
    EXPECT_EQ(at(tree, {}), (Counts{7, 1368}));  // not 10: the A objects are in both groups
    EXPECT_EQ(at(tree, {"group 1"}), (Counts{3, 48}));
    EXPECT_EQ(at(tree, {"group 2"}), (Counts{7, 1368}));
    EXPECT_EQ(at(tree, {"group 1", "A"}), (Counts{3, 48}));
    EXPECT_EQ(at(tree, {"group 2", "A"}), (Counts{3, 48}));

    // Below a one-to-many level, a parent counts an object once even when two of its children hold it.
    ClassifierChain under = chainOf("thread");
    under.classifiers.push_back(std::make_unique<TwoGroups>());
    auto u = ClassificationTree::build(t.heap.view(), under);
    EXPECT_EQ(at(u, {"main"}), (Counts{4, 1264}));
    EXPECT_EQ(at(u, {"main", "group 1"}), (Counts{3, 48}));
    EXPECT_EQ(at(u, {"main", "group 2"}), (Counts{4, 1264}));
}

TEST(Classify, FiltersAndExpressionClassifiers) {
    Tiny t;
    ClassifierChain chain = chainOf("type");
    auto big = parseFilter("size > 100");
    ASSERT_TRUE(big.ok()) << big.error().message;
    chain.filters.push_back(std::move(*big));
    auto tree = ClassificationTree::build(t.heap.view(), chain);
    EXPECT_EQ(at(tree, {}), (Counts{1, 1216}));
    EXPECT_EQ(tree.filteredObjects(), 6u);
    EXPECT_EQ(tree.filteredBytes(), 152u);

    ClassifierChain shape_filtered = chainOf("type");
    auto worker = parseFilter("thread.name == \"worker\" && type ~ \"*[]\"");
    ASSERT_TRUE(worker.ok()) << worker.error().message;
    shape_filtered.filters.push_back(std::move(*worker));
    ASSERT_TRUE(shape_filtered.shapeOnly());
    EXPECT_EQ(at(ClassificationTree::build(t.heap.view(), shape_filtered), {}), (Counts{1, 56}));

    // A shape-only filter under a per-object classifier: objects of other shapes share the
    // classifier's values, yet stay out.
    ClassifierChain ages = chainOf("age");
    auto only_a = parseFilter("type == \"A\"");
    ASSERT_TRUE(only_a.ok());
    ages.filters.push_back(std::move(*only_a));
    auto by_age = ClassificationTree::build(t.heap.view(), ages);
    EXPECT_EQ(at(by_age, {"age 2"}), (Counts{2, 32}));
    EXPECT_EQ(at(by_age, {"age 1"}), (Counts{1, 16}));
    EXPECT_EQ(by_age.filteredObjects(), 4u);

    ClassifierChain exprs = chainOf("{size > 100},{site.method}");
    auto e = ClassificationTree::build(t.heap.view(), exprs);
    EXPECT_EQ(at(e, {"true"}), (Counts{1, 1216}));
    EXPECT_EQ(at(e, {"false", "Main.run"}), (Counts{4, 48 + 56}));
    EXPECT_EQ(at(e, {"false", "Main.other"}), (Counts{2, 48}));
    EXPECT_EQ(exprs.spec(), "{size > 100},{site.method}");

    // Two strings made for one evaluation do not overwrite each other.
    ClassifierChain both = chainOf("type");
    auto differ = parseFilter("site != site.method && site.method == \"Main.run\"");
    ASSERT_TRUE(differ.ok()) << differ.error().message;
    both.filters.push_back(std::move(*differ));
    EXPECT_EQ(at(ClassificationTree::build(t.heap.view(), both), {}), (Counts{4, 48 + 56}));

    auto not_a_condition = parseFilter("site.method");
    ASSERT_FALSE(not_a_condition.ok());
    EXPECT_NE(not_a_condition.error().message.find("is not a condition"), std::string::npos);
    auto typo = parseFilter("szie > 1");
    ASSERT_FALSE(typo.ok());
    EXPECT_EQ(typo.error().message.rfind("line 1, column 1: ", 0), 0u) << typo.error().message;
}

TEST(Classify, ChainErrorsNameWhatIsWrong) {
    auto expect_error = [](std::string_view spec, std::string_view message) {
        auto c = parseChain(spec);
        ASSERT_FALSE(c.ok()) << spec;
        EXPECT_EQ(c.error().message, message) << spec;
    };
    expect_error(
        "tpye",
        "classifier 'tpye': unknown (classifiers: type, package, site, domain-site, calls, thread, age, "
        "length, "
        "kind, size, rooted, roots, structure, dominator, in-degree, out-degree, points-to, pointed-from, "
        "{EXPR})");
    expect_error("site(caller=2)",
                 "classifier 'site(caller=2)': unknown parameter 'caller' (parameters: callers)");
    expect_error("type(x=1)", "classifier 'type(x=1)': unknown parameter 'x' (it takes none)");
    expect_error("site(callers=two)",
                 "classifier 'site(callers=two)': callers expects a whole number, got 'two'");
    expect_error("site(callers=2", "classifiers 'site(callers=2': missing ')'");
    expect_error("type,,site", "classifiers 'type,,site': an empty classifier name");
    expect_error("size > 1k", "classifier 'size>1k': unknown; an expression goes in braces: {size>1k}");
    auto e = parseChain("type,{szie}");
    ASSERT_FALSE(e.ok());
    EXPECT_EQ(e.error().message.rfind("classifier '{szie}': line 1, column 1: ", 0), 0u) << e.error().message;
    auto ok = parseChain(" type , site(callers=2), package(depth=2) ");
    ASSERT_TRUE(ok.ok());
    EXPECT_EQ(ok->spec(), "type,site(callers=2),package(depth=2)");
}

// A chain or filter from a settings file or a script can hold a newline: its error echoes the
// text with the newline written \n, on one line.
TEST(Classify, ChainAndFilterErrorsEchoANewlineAsBackslashN) {
    auto unknown = parseChain("type,ty\npe");
    ASSERT_FALSE(unknown.ok());
    EXPECT_EQ(unknown.error().message.rfind("classifier 'ty\\npe': unknown (classifiers: ", 0), 0u)
        << unknown.error().message;
    auto open = parseChain("site(callers=\n2");
    ASSERT_FALSE(open.ok());
    EXPECT_EQ(open.error().message, "classifiers 'site(callers=\\n2': missing ')'");
    auto expression = parseChain("{size >\n}");
    ASSERT_FALSE(expression.ok());
    EXPECT_EQ(expression.error().message.find('\n'), std::string::npos) << expression.error().message;
    EXPECT_EQ(expression.error().message.rfind("classifier '{size >\\n}': line ", 0), 0u)
        << expression.error().message;
    auto filter = parseFilter("size\n");
    ASSERT_FALSE(filter.ok());
    EXPECT_EQ(filter.error().message,
              "'size\\n' is not a condition (a filter must be true or false, e.g. 'size > 1k')");
}

TEST(Classify, PruningKeepsNinetyPercentAndAtMostNine) {
    Tiny t;
    ClassifierChain chain = chainOf("type");
    auto tree = ClassificationTree::build(t.heap.view(), chain);
    // By bytes int[] alone holds 1272 / 1368 = 93%: the other two are folded.
    PrunedChildren p = tree.prunedChildren(ClassificationTree::kRoot, Metric::kBytes, {});
    ASSERT_EQ(p.shown.size(), 1u);
    EXPECT_EQ(tree.label(p.shown[0]), "int[]");
    EXPECT_EQ(p.other_groups, 2u);
    EXPECT_EQ(p.other_objects, 5u);
    EXPECT_EQ(p.other_bytes, 96u);
    // By objects: A 3/7, then int[] (2, more bytes than B) makes 5/7 = 71%, then B: all three.
    EXPECT_EQ(tree.prunedChildren(ClassificationTree::kRoot, Metric::kObjects, {}).shown.size(), 3u);
    PruneOptions two;
    two.max_children = 2;
    EXPECT_EQ(tree.prunedChildren(ClassificationTree::kRoot, Metric::kObjects, two).other_groups, 1u);
    PruneOptions none;
    none.enabled = false;
    EXPECT_EQ(tree.prunedChildren(ClassificationTree::kRoot, Metric::kBytes, none).shown.size(), 3u);
}

// The paper's buggy stack (ICPE18 §5.3), at scale 1: at GC b the TestObjects still referenced
// by the stack's array come from main:43 (9,000) and main:47 (1,000, the refill).
TEST(Classify, BuggyStackBySiteAndCaller) {
    const std::string path = testing::tempPath("classify-buggy");
    ASSERT_TRUE(synth::synthesize("buggy-stack", path, {}).ok());
    auto f = TraceFile::open(path);
    ASSERT_TRUE(f.ok());
    auto h = HeapHistory::build(*f);
    ASSERT_TRUE(h.ok());
    uint32_t gc_b = 0;
    for (const auto& [k, v] : f->meta())
        if (k == "synth.expect.gc_b") gc_b = static_cast<uint32_t>(std::stoul(v));
    auto heap = h->heapAt(gc_b);
    ASSERT_TRUE(heap.ok());
    ClassifierChain chain = chainOf("type,site(callers=1)");
    for (unsigned threads : {1u, 2u}) {
        auto tree = ClassificationTree::build(heap->view(), chain, {threads});
        const std::string fill = "at.jku.BuggyMain.fill(BuggyMain.java:21)";
        EXPECT_EQ(at(tree, {"at.jku.data.TestObject"}), (Counts{10'000, 160'000}));
        EXPECT_EQ(
            at(tree, {"at.jku.data.TestObject", fill, "at.jku.BuggyMain.main(BuggyMain.java:43)"}).objects,
            9'000u);
        EXPECT_EQ(
            at(tree, {"at.jku.data.TestObject", fill, "at.jku.BuggyMain.main(BuggyMain.java:47)"}).objects,
            1'000u);
        EXPECT_EQ(at(tree, {}), (Counts{heap->objectCount(), heap->liveBytes()}));
    }
    // The per-object pass, sliced over two threads, adds up to the same tree.
    ClassifierChain ages = chainOf("age,type");
    auto one = ClassificationTree::build(heap->view(), ages, {1});
    auto two = ClassificationTree::build(heap->view(), ages, {2});
    ASSERT_EQ(one.size(), two.size());
    for (uint32_t child : one.root().children) {
        const std::string age = one.label(child);
        EXPECT_EQ(at(two, {age}), (Counts{one.node(child).objects, one.node(child).bytes})) << age;
    }
    EXPECT_EQ(at(one, {}), (Counts{heap->objectCount(), heap->liveBytes()}));

    ClassifierChain packages = chainOf("package,type");
    auto p = ClassificationTree::build(heap->view(), packages);
    EXPECT_EQ(at(p, {"at", "at.jku", "at.jku.data", "at.jku.data.TestObject"}).objects, 10'000u);
    EXPECT_EQ(at(p, {"java", "java.lang", "java.lang.Object[]"}).objects, 1u);
}

TEST(Classify, DiffOfTheTinyHeap) {
    Tiny t;
    auto a = t.history->heapAt(0);
    ASSERT_TRUE(a.ok());
    ClassifierChain chain = chainOf("type");
    // GC 0 -> GC 1: A id 0 died, A id 7 was born, the other six stayed.
    HeapDiff d = HeapDiff::build(a->view(), t.heap.view(), chain);
    const DiffNode& root = d.node(HeapDiff::kRoot);
    EXPECT_EQ(root.born.objects, 1u);
    EXPECT_EQ(root.died.objects, 1u);
    EXPECT_EQ(root.permanent.objects, 6u);
    EXPECT_EQ(root.permanent.bytes, 1368u - 16);
    const uint32_t type_a = d.find({"A"});
    ASSERT_NE(type_a, kNoNode);
    EXPECT_EQ(d.node(type_a).born.objects, 1u);
    EXPECT_EQ(d.node(type_a).died.objects, 1u);
    EXPECT_EQ(d.node(type_a).permanent.objects, 2u);
    EXPECT_EQ(d.node(d.find({"int[]"})).permanent.objects, 2u);
    EXPECT_EQ(d.node(d.find({"int[]"})).born.objects, 0u);
}

// The paper's heap diff of the buggy stack (ICPE18 §5.3; 100k / 100k / 900k at scale 100).
TEST(Classify, BuggyStackDiffBornDiedPermanent) {
    const std::string path = testing::tempPath("diff-buggy");
    ASSERT_TRUE(synth::synthesize("buggy-stack", path, {}).ok());
    auto f = TraceFile::open(path);
    ASSERT_TRUE(f.ok());
    auto h = HeapHistory::build(*f);
    ASSERT_TRUE(h.ok());
    auto a = h->heapAt(3);
    auto b = h->heapAt(4);
    ASSERT_TRUE(a.ok() && b.ok());
    ClassifierChain chain = chainOf("type,site(callers=1)");
    HeapDiff d = HeapDiff::build(a->view(), b->view(), chain, {2});
    const uint32_t test_object = d.find({"at.jku.data.TestObject"});
    ASSERT_NE(test_object, kNoNode);
    EXPECT_EQ(d.node(test_object).born.objects, 1'000u);
    EXPECT_EQ(d.node(test_object).died.objects, 1'000u);
    EXPECT_EQ(d.node(test_object).permanent.objects, 9'000u);
    const std::string fill = "at.jku.BuggyMain.fill(BuggyMain.java:21)";
    const uint32_t refill =
        d.find({"at.jku.data.TestObject", fill, "at.jku.BuggyMain.main(BuggyMain.java:47)"});
    const uint32_t first =
        d.find({"at.jku.data.TestObject", fill, "at.jku.BuggyMain.main(BuggyMain.java:43)"});
    ASSERT_NE(refill, kNoNode);
    ASSERT_NE(first, kNoNode);
    EXPECT_EQ(d.node(refill).born.objects, 1'000u);
    EXPECT_EQ(d.node(refill).died.objects + d.node(refill).permanent.objects, 0u);
    EXPECT_EQ(d.node(first).died.objects, 1'000u);
    EXPECT_EQ(d.node(first).permanent.objects, 9'000u);
}

}  // namespace
}  // namespace memcity
