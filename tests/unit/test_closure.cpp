// Closures, retained sizes, root paths and the classifiers that read references: a hand-made
// heap with exact answers, randomized graphs against brute force, and the multi-cache and
// growing-map scenarios (docs/scenarios.md).
#include <gtest/gtest.h>

#include <random>

#include "classify/tree.h"
#include "graph/closure.h"
#include "graph/dominators.h"
#include "graph/group_report.h"
#include "heap/heap_history.h"
#include "synth/synth.h"
#include "unit/loaded_heap.h"
#include "unit/trace_builder.h"

namespace memcity {
namespace {

using testing::TraceBuilder;
using E = std::vector<Edge>;
using Loaded = testing::LoadedHeap;

// Objects 0..9 (type A, 16 B each, unless noted), references at GC 0:
//   static root -> 0 -> 1 -> 2 -> 4      0 and 3 are rooted (3 by a second static field, 3 also
//   static root -> 3 -> 2                 by a stack local of thread main)
//   2 -> 5 -> 6 -> 5 (a cycle)            7 -> 8: alive, no root reaches them ("root not reported")
//   8 -> 2                                9: an int[10] (56 B) that 1 references
std::string handMade() {
    TraceBuilder b("closure");
    for (uint64_t id = 0; id < 9; ++id)
        b.alloc(id);
    b.allocArray(9, 3, 10);
    b.gc(0, 10);
    b.snapshot(0,
               {{0, E{TraceBuilder::strong(1)}},
                {1, E{TraceBuilder::strong(2), TraceBuilder::strong(9)}},
                {2, E{TraceBuilder::strong(4), TraceBuilder::strong(5)}},
                {3, E{TraceBuilder::strong(2)}},
                {5, E{TraceBuilder::strong(6)}},
                {6, E{TraceBuilder::strong(5)}},
                {7, E{TraceBuilder::strong(8)}},
                {8, E{TraceBuilder::strong(2)}}},
               {TraceBuilder::staticRoot(0), Root::make(8, 3, {2, 2}), Root::make(4, 3, {1, 1, 0, 0})});
    return b.finish();
}

TEST(Closure, TransitiveAndGcClosuresOfHandMadeGroups) {
    Loaded l(handMade());
    const HeapGraph& g = *l.graph;
    EXPECT_EQ(l.ids(g.reachable()), (std::vector<uint64_t>{0, 1, 2, 3, 4, 5, 6, 9}));

    // {0}: reaches everything below it; 2 (and what hangs below it) is also kept by 3.
    Bitset t0 = transitiveClosure(g, l.set({0}));
    EXPECT_EQ(l.ids(t0), (std::vector<uint64_t>{0, 1, 2, 4, 5, 6, 9}));
    EXPECT_EQ(l.ids(gcClosure(g, l.set({0}), t0)), (std::vector<uint64_t>{0, 1, 9}));
    // {0, 3}: together they own everything reachable, though neither does alone.
    Bitset t03 = transitiveClosure(g, l.set({0, 3}));
    EXPECT_EQ(l.ids(gcClosure(g, l.set({0, 3}), t03)), (std::vector<uint64_t>{0, 1, 2, 3, 4, 5, 6, 9}));
    Bitset t3 = transitiveClosure(g, l.set({3}));
    EXPECT_EQ(l.ids(gcClosure(g, l.set({3}), t3)), (std::vector<uint64_t>{3}));
    // {2}: the unreached 8 references 2, but garbage keeps nothing alive.
    Bitset t2 = transitiveClosure(g, l.set({2}));
    EXPECT_EQ(l.ids(gcClosure(g, l.set({2}), t2)), (std::vector<uint64_t>{2, 4, 5, 6}));
    // {5}: 6 is only referenced from inside the cycle.
    Bitset t5 = transitiveClosure(g, l.set({5}));
    EXPECT_EQ(l.ids(gcClosure(g, l.set({5}), t5)), (std::vector<uint64_t>{5, 6}));
    // {1, 2}... and every group of one object, both ways.
    for (uint64_t id = 0; id < 10; ++id) {
        Bitset t = transitiveClosure(g, l.set({id}));
        EXPECT_EQ(l.ids(gcClosure(g, l.set({id}), t, ClosureMethod::kLocal)),
                  l.ids(gcClosure(g, l.set({id}), t, ClosureMethod::kFromRoots)))
            << id;
    }
    // {8}: 8 is garbage referenced by garbage; 2 is kept alive by 3 (a root object inside the
    // closure of {7} is kept by its root).
    Bitset t7 = transitiveClosure(g, l.set({7}));
    EXPECT_EQ(l.ids(gcClosure(g, l.set({7}), t7, ClosureMethod::kLocal)), (std::vector<uint64_t>{7, 8}));
    Bitset t1 = transitiveClosure(g, l.set({8, 1}));
    EXPECT_EQ(l.ids(gcClosure(g, l.set({8, 1}), t1, ClosureMethod::kLocal)),
              (std::vector<uint64_t>{1, 8, 9}));

    const GroupClosure c = closureOf(g, l.set({0, 7}));
    EXPECT_EQ(c.shallow, (Sizes{2, 32}));
    EXPECT_EQ(c.deep, (Sizes{9, 8 * 16 + 56}));      // 0, 1, 2, 4, 5, 6, 9 and 7, 8
    EXPECT_EQ(c.retained, (Sizes{5, 4 * 16 + 56}));  // 0, 1, 9, 7, 8
    EXPECT_EQ(c.unreached, (Sizes{1, 16}));          // 7
    // In parallel, the same answers.
    std::vector<Bitset> groups{l.set({0}), l.set({3}), l.set({0, 3}), l.set({0, 7})};
    const std::vector<GroupClosure> all = closuresOf(g, groups, 2);
    EXPECT_EQ(all[0].retained, (Sizes{3, 2 * 16 + 56}));
    EXPECT_EQ(all[1].retained, (Sizes{1, 16}));
    EXPECT_EQ(all[2].retained, (Sizes{8, 7 * 16 + 56}));
    EXPECT_EQ(all[3].retained, c.retained);
}

TEST(Closure, RootsAndRootPaths) {
    Loaded l(handMade());
    const HeapGraph& g = *l.graph;
    ASSERT_EQ(g.rootIdentityCount(), 3u);
    EXPECT_EQ(g.rootIdentityLabel(g.directRoots(l.pos(0))[0]), "static field A.next");
    ASSERT_EQ(g.directRoots(l.pos(3)).size(), 2u);
    EXPECT_TRUE(g.directRoots(l.pos(1)).empty());
    // 2 is two references from root object 0 but one from 3: its closest roots are 3's two.
    EXPECT_EQ(g.rootDistance(l.pos(2)), 1u);
    EXPECT_EQ(g.closestRoots(l.pos(2)).size(), 2u);
    EXPECT_EQ(g.pathParent(l.pos(2)), l.pos(3));
    EXPECT_EQ(g.closestRoots(l.pos(1)).size(), 1u);
    EXPECT_TRUE(g.closestRoots(l.pos(7)).empty());
    EXPECT_EQ(g.rootDistance(l.pos(7)), kNoPosition);

    // Paths from {4, 6, 7, 1}: 4 and 6 via 3 -> 2 (6 through the run 5, 6 of type A: one step).
    RootPaths p = rootPaths(g, l.set({1, 4, 6, 7}));
    EXPECT_EQ(p.reached_objects, 3u);
    EXPECT_EQ(p.unreached_objects, 1u);
    uint64_t total = 0;
    for (const RootPath& r : p.paths) {
        total += r.objects;
        // Every object here is an A, so each path is one (repeated) step of type A.
        ASSERT_EQ(r.steps.size(), 1u);
        EXPECT_TRUE(r.steps[0].repeated);
    }
    EXPECT_EQ(total, 3u);
}

// Where roots tie, paths start from the most lasting one. 0 is held by a JNI local and a static
// field (the local listed first); 4 is one reference from 1 (a stack local's) and from 2 (a static
// field's), and 1 comes first in the heap.
TEST(Closure, RootPathsStartFromTheMostLastingRoot) {
    TraceBuilder b("lasting");
    for (uint64_t id = 0; id < 5; ++id)
        b.alloc(id);
    b.gc(0, 10);
    b.snapshot(
        0,
        {{0, E{TraceBuilder::strong(3)}}, {1, E{TraceBuilder::strong(4)}}, {2, E{TraceBuilder::strong(4)}}},
        {Root::make(5, 0, {1, 0}), TraceBuilder::staticRoot(0), Root::make(4, 1, {1, 1, 0, 0}),
         Root::make(8, 2, {2, 2})});
    Loaded l(b.finish());
    const HeapGraph& g = *l.graph;
    auto kind = [&](uint32_t identity) { return rootkey::id(g.rootIdentity(identity).front()); };
    ASSERT_EQ(g.directRoots(l.pos(0)).size(), 2u);
    EXPECT_EQ(kind(g.directRoots(l.pos(0))[0]), 5u);  // the JNI local is the first identity
    EXPECT_EQ(kind(g.pathRoot(l.pos(0))), 8u);
    EXPECT_EQ(g.pathRoot(l.pos(3)), kNoPosition);
    EXPECT_EQ(g.rootDistance(l.pos(4)), 1u);
    EXPECT_EQ(g.closestRoots(l.pos(4)).size(), 2u);
    EXPECT_EQ(g.pathParent(l.pos(4)), l.pos(2));

    const RootPaths p = rootPaths(g, l.set({3, 4}));
    ASSERT_EQ(p.paths.size(), 2u);
    for (const RootPath& r : p.paths)
        EXPECT_EQ(kind(r.root_identity), 8u);

    // Lists of roots that hold as much put the lasting one first (by name, the JNI local would be).
    GroupReportOptions options;
    options.dominators = false;
    auto report = buildGroupReport(g, l.set({0}), options);
    ASSERT_TRUE(report.ok());
    ASSERT_EQ(report->direct_roots.size(), 2u);
    EXPECT_EQ(report->direct_roots[0].name.substr(0, 12), "static field");
    EXPECT_EQ(report->direct_roots[1].name.substr(0, 9), "JNI local");
}

// Roots the recorder could not name fully read as what they are, not as symbol numbers.
TEST(Closure, RootsWithoutNamesAreLabelledPlainly) {
    TraceBuilder b("unnamed");
    for (uint64_t id = 0; id < 2; ++id)
        b.alloc(id);
    b.gc(0, 10);
    b.snapshot(0, {}, {Root::make(2, 0, {}), Root::make(8, 1, {1, 0})});
    Loaded l(b.finish());
    const HeapGraph& g = *l.graph;
    ASSERT_EQ(g.directRoots(l.pos(0)).size(), 1u);
    EXPECT_EQ(g.rootIdentityLabel(g.directRoots(l.pos(0))[0]), "system class");
    ASSERT_EQ(g.directRoots(l.pos(1)).size(), 1u);
    const std::string field = g.rootIdentityLabel(g.directRoots(l.pos(1))[0]);
    EXPECT_EQ(field.substr(0, 13), "static field ");
    EXPECT_EQ(field.substr(field.size() - 23), ".(a field not recorded)") << field;
}

TEST(Closure, ReferenceClassifiersOnHandMadeHeap) {
    Loaded l(handMade());
    const HeapView view = l.view();
    auto chain = parseChain("rooted");
    ASSERT_TRUE(chain.ok());
    auto tree = ClassificationTree::build(view, *chain);
    // 3 is referenced by two roots: counted once at the top, under both.
    EXPECT_EQ(tree.node(tree.find({"static field"})).objects, 2u);
    EXPECT_EQ(tree.node(tree.find({"static field", "A", "next"})).objects, 1u);
    EXPECT_EQ(tree.node(tree.find({"static field", "B", "weak"})).objects, 1u);
    EXPECT_EQ(tree.node(tree.find({"stack local", "main", "Main.run"})).objects, 1u);
    EXPECT_EQ(tree.node(tree.find({"not directly rooted"})).objects, 8u);
    EXPECT_EQ(tree.root().objects, 10u);

    auto roots = parseChain("roots");
    ASSERT_TRUE(roots.ok());
    auto rt = ClassificationTree::build(view, *roots);
    EXPECT_EQ(rt.node(rt.find({"alive, root not reported"})).objects, 2u);  // 7, 8
    // 1 and 9 are closest to A.next only; 2, 4, 5, 6 to 3's two roots; 0 and 3 to their own.
    EXPECT_EQ(rt.node(rt.find({"static field", "A", "next"})).objects, 3u);
    EXPECT_EQ(rt.node(rt.find({"static field", "B", "weak"})).objects, 5u);
    EXPECT_EQ(rt.node(rt.find({"stack local"})).objects, 5u);

    auto deg = parseChain("in-degree,out-degree");
    ASSERT_TRUE(deg.ok());
    auto dt = ClassificationTree::build(view, *deg);
    EXPECT_EQ(dt.node(dt.find({"referenced 3–4 times"})).objects, 1u);  // 2: by 1, 3, 8
    EXPECT_EQ(dt.node(dt.find({"referenced 0 times"})).objects, 3u);    // 0, 3, 7
    EXPECT_EQ(dt.node(dt.find({"referenced 0 times", "references 1 time"})).objects, 3u);

    auto pt = parseChain("points-to(type)");
    ASSERT_TRUE(pt.ok());
    auto ptt = ClassificationTree::build(view, *pt);
    EXPECT_EQ(ptt.node(ptt.find({"A"})).objects, 8u);                   // 0, 1, 2, 3, 5, 6, 7, 8
    EXPECT_EQ(ptt.node(ptt.find({"int[]"})).objects, 1u);               // 1
    EXPECT_EQ(ptt.node(ptt.find({"references nothing"})).objects, 2u);  // 4, 9
    auto pf = parseChain("pointed-from");
    ASSERT_TRUE(pf.ok());
    auto pft = ClassificationTree::build(view, *pf);
    EXPECT_EQ(pft.node(pft.find({"referenced by nothing"})).objects, 3u);  // 0, 3, 7

    // Transformers nest (ICPE18 Fig. 15): what references the objects that reference it. 2 is
    // referenced by 1 (itself by 0, an A), 3 (by nothing) and 8 (by 7, an A): under both.
    auto nested = parseChain("pointed-from(pointed-from(type))");
    ASSERT_TRUE(nested.ok()) << nested.error().message;
    for (unsigned threads : {1u, 2u}) {
        auto nt = ClassificationTree::build(view, *nested, {threads});
        const uint32_t by_a = nt.find({"A"});
        ASSERT_NE(by_a, kNoNode);
        EXPECT_EQ(nt.node(by_a).objects, 5u);  // 2, 4, 5, 6 and 9
        EXPECT_EQ(nt.root().objects, 10u);
        EXPECT_EQ(nt.label(by_a), "A");
    }
    // Inner classifiers of several values or a hierarchy give every combination.
    auto hier = parseChain("points-to(type,site)");
    ASSERT_TRUE(hier.ok()) << hier.error().message;
    auto ht = ClassificationTree::build(view, *hier);
    EXPECT_EQ(ht.node(ht.find({"A", "Main.run(Main.java:10)"})).objects, 8u);
    ASSERT_TRUE(parseChain("points-to(calls)").ok());

    // Errors name the spec.
    auto bad2 = parseChain("rooted(x=1)");
    ASSERT_FALSE(bad2.ok());
}

// rooted's options (ManLang18 §3.4): 0 is held by a static field, 1 by a JNI global only, 2 by a
// stack local; 3 by no root.
TEST(Closure, RootedVariablesOnlyAndHideNotRooted) {
    TraceBuilder b("rooted-options");
    for (uint64_t id = 0; id < 4; ++id)
        b.alloc(id);
    b.gc(0, 4);
    b.snapshot(0, {{0, E{TraceBuilder::strong(3)}}},
               {TraceBuilder::staticRoot(0), Root::make(1, 1, {}), Root::make(4, 2, {1, 1, 0, 0})});
    Loaded l(b.finish());
    const HeapView view = l.view();
    std::vector<std::unique_ptr<ClassifierChain>> chains;  // a tree's labels read its chain
    auto tree = [&](const char* spec) {
        auto chain = parseChain(spec);
        EXPECT_TRUE(chain.ok()) << (chain.ok() ? "" : chain.error().message);
        chains.push_back(std::make_unique<ClassifierChain>(std::move(*chain)));
        return ClassificationTree::build(view, *chains.back());
    };
    const ClassificationTree all = tree("rooted");
    EXPECT_EQ(all.node(all.find({"JNI global"})).objects, 1u);
    EXPECT_EQ(all.node(all.find({"not directly rooted"})).objects, 1u);  // 3
    const ClassificationTree vars = tree("rooted(variables=1)");
    EXPECT_EQ(vars.find({"JNI global"}), kNoNode);
    EXPECT_EQ(vars.node(vars.find({"not directly rooted"})).objects, 2u);  // 1 and 3
    EXPECT_EQ(vars.node(vars.find({"stack local"})).objects, 1u);
    const ClassificationTree hidden = tree("rooted(variables=1,hide=1)");
    EXPECT_EQ(hidden.find({"not directly rooted"}), kNoNode);
    uint64_t grouped = 0;
    for (uint32_t c : hidden.root().children)
        grouped += hidden.node(c).objects;
    EXPECT_EQ(grouped, 2u);                // 0 and 2
    EXPECT_EQ(hidden.root().objects, 4u);  // the hidden still count in the whole
    EXPECT_EQ(tree("rooted(hide=1,variables=1)").size(), hidden.size());
    EXPECT_EQ(parseChain("rooted(hide=1)")->spec(), "rooted(hide=1)");
    auto bad = parseChain("rooted(hide=2)");
    ASSERT_FALSE(bad.ok());
    EXPECT_EQ(bad.error().message, "classifier 'rooted(hide=2)': hide expects 0 or 1, got '2'");
}

TEST(Closure, TreeNodeMembersMatchTheirCounts) {
    Loaded l(handMade());
    const HeapView view = l.view();
    for (const char* spec : {"type", "rooted,type", "age,type"}) {
        auto chain = parseChain(spec);
        ASSERT_TRUE(chain.ok());
        auto tree = ClassificationTree::build(view, *chain);
        std::vector<uint32_t> all;
        for (uint32_t id = 0; id < tree.size(); ++id)
            all.push_back(id);
        for (unsigned threads : {1u, 2u}) {
            const std::vector<Bitset> sets = tree.members(view, all, {threads});
            for (uint32_t id = 0; id < tree.size(); ++id) {
                EXPECT_EQ(sets[id].count(), tree.node(id).objects) << spec << " " << tree.path(id);
                EXPECT_EQ(sizesOf(view, sets[id]).bytes, tree.node(id).bytes) << spec << " " << tree.path(id);
            }
        }
    }
}

// Randomized graphs: the GC closure of a group equals what the roots no longer reach when the
// group is dropped (brute force), for small groups (the local algorithm) and large ones (the
// pass from the roots).
TEST(Closure, GcClosureMatchesBruteForceOnRandomGraphs) {
    for (unsigned seed = 1; seed <= 12; ++seed) {
        std::mt19937 rng(seed);
        const uint64_t n = 120;
        TraceBuilder b("closure-random");
        for (uint64_t id = 0; id < n; ++id)
            b.alloc(id);
        b.gc(0, n);
        std::vector<std::pair<uint64_t, std::vector<Edge>>> objects;
        std::vector<std::vector<uint64_t>> adj(n);
        for (uint64_t id = 0; id < n; ++id) {
            std::vector<Edge> e;
            const unsigned k = rng() % 4;
            for (unsigned i = 0; i < k; ++i) {
                const uint64_t t = rng() % n;
                e.push_back(TraceBuilder::strong(t));
                adj[id].push_back(t);
            }
            if (!e.empty()) objects.emplace_back(id, e);
        }
        std::vector<Root> roots;
        std::vector<uint64_t> root_ids;
        for (int i = 0; i < 10; ++i) {
            root_ids.push_back(rng() % n);
            roots.push_back(TraceBuilder::staticRoot(root_ids.back()));
        }
        b.snapshot(0, objects, roots);
        Loaded l(b.finish());
        for (int trial = 0; trial < 20; ++trial) {
            std::vector<uint64_t> group;
            const unsigned size = trial < 10 ? 1 + rng() % 2 : 5 + rng() % 20;
            for (unsigned i = 0; i < size; ++i)
                group.push_back(rng() % n);
            Bitset gs(n);
            std::vector<bool> in_group(n, false);
            for (uint64_t id : group) {
                gs.set(l.pos(id));
                in_group[id] = true;
            }
            // Brute force: reach from the roots around the group, and from the group.
            auto reach = [&](const std::vector<uint64_t>& from, bool avoid_group) {
                std::vector<bool> seen(n, false);
                std::vector<uint64_t> work;
                for (uint64_t id : from)
                    if (!(avoid_group && in_group[id]) && !seen[id]) seen[id] = true, work.push_back(id);
                while (!work.empty()) {
                    const uint64_t u = work.back();
                    work.pop_back();
                    for (uint64_t v : adj[u])
                        if (!(avoid_group && in_group[v]) && !seen[v]) seen[v] = true, work.push_back(v);
                }
                return seen;
            };
            const std::vector<bool> from_group = reach(group, false), alive = reach(root_ids, true);
            std::vector<uint64_t> expect_t, expect_gc;
            for (uint64_t id = 0; id < n; ++id) {
                if (from_group[id]) expect_t.push_back(id);
                if (from_group[id] && !alive[id]) expect_gc.push_back(id);
            }
            const Bitset t = transitiveClosure(*l.graph, gs);
            EXPECT_EQ(l.ids(t), expect_t) << "seed " << seed << " trial " << trial;
            for (ClosureMethod m : {ClosureMethod::kAuto, ClosureMethod::kLocal, ClosureMethod::kFromRoots})
                EXPECT_EQ(l.ids(gcClosure(*l.graph, gs, t, m)), expect_gc)
                    << "seed " << seed << " trial " << trial << " method " << static_cast<int>(m);
        }
    }
}

// ManLang18 §3.2.2: the GC closure of a single object is its dominator subtree. Every object of
// the hand-made heap and of random graphs, both ways.
TEST(Closure, SingleObjectClosuresEqualDominatorSubtrees) {
    std::vector<std::string> traces{handMade()};
    for (unsigned seed = 1; seed <= 6; ++seed) {
        std::mt19937 rng(seed * 7919);
        const uint64_t n = 150;
        TraceBuilder b("closure-dom");
        for (uint64_t id = 0; id < n; ++id)
            id % 5 == 0 ? b.allocArray(id, 3, rng() % 40) : b.alloc(id, 1 + rng() % 2);
        b.gc(0, n);
        std::vector<std::pair<uint64_t, std::vector<Edge>>> objects;
        for (uint64_t id = 0; id < n; ++id) {
            std::vector<Edge> e;
            for (unsigned k = rng() % 4; k > 0; --k)
                e.push_back(TraceBuilder::strong(rng() % n));
            if (!e.empty()) objects.emplace_back(id, e);
        }
        std::vector<Root> roots;
        for (int i = 0; i < 6; ++i)
            roots.push_back(TraceBuilder::staticRoot(rng() % n));
        b.snapshot(0, objects, roots);
        traces.push_back(b.finish());
    }
    for (const std::string& path : traces) {
        Loaded l(path);
        auto dom = computeDominators(l.heap.view(), l.graph->snapshot());
        ASSERT_TRUE(dom.ok()) << dom.error().message;
        for (size_t pos = 0; pos < l.heap.objectCount(); ++pos) {
            Bitset one(l.heap.objectCount());
            one.set(pos);
            const GroupClosure c = closureOf(*l.graph, one);
            if (!l.graph->reachable().test(pos)) {
                EXPECT_FALSE(dom->reached(pos));
                continue;
            }
            EXPECT_EQ(c.retained, (Sizes{dom->retainedObjects(pos), dom->retainedBytes(pos)}))
                << path << " position " << pos;
        }
    }
}

std::string scenario(const std::string& name) {
    static std::map<std::string, std::string> made;
    auto it = made.find(name);
    if (it != made.end()) return it->second;
    const std::string path = testing::tempPath("closure-" + name);
    EXPECT_TRUE(synth::synthesize(name, path, {}).ok());
    return made[name] = path;
}

// ManLang18 §5.1 at scale 1 (docs/scenarios.md): each cache alone retains little of what the two
// retain together.
TEST(Closure, MultiCacheSharedOwnership) {
    Loaded l(scenario("multi-cache"));
    const HeapView view = l.view();
    auto chain = parseChain("type,site");
    ASSERT_TRUE(chain.ok());
    auto tree = ClassificationTree::build(view, *chain);
    const uint32_t id_map =
        tree.find({"java.util.HashMap", "jku.anttracks.example.data.IdCache.<clinit>(IdCache.java:9)"});
    const uint32_t name_map =
        tree.find({"java.util.HashMap", "jku.anttracks.example.data.NameCache.<clinit>(NameCache.java:9)"});
    ASSERT_NE(id_map, kNoNode);
    ASSERT_NE(name_map, kNoNode);
    std::vector<Bitset> sets = tree.members(view, {id_map, name_map});
    Bitset both = sets[0];
    both |= sets[1];
    const std::vector<GroupClosure> c = closuresOf(*l.graph, {sets[0], sets[1], both}, 2);
    EXPECT_EQ(c[0].retained.bytes, 1'251'136u);
    EXPECT_EQ(c[1].retained.bytes, 771'136u);
    EXPECT_EQ(c[2].retained.bytes, 5'222'272u);
    EXPECT_GT(c[2].retained.bytes * 100, view.liveBytes() * 95);
    // Held by the two static fields.
    ASSERT_EQ(sets[0].count(), 1u);
    sets[0].forEach([&](size_t map) {
        ASSERT_EQ(l.graph->directRoots(map).size(), 1u);
        EXPECT_EQ(l.graph->rootIdentityLabel(l.graph->directRoots(map)[0]),
                  "static field jku.anttracks.example.data.IdCache.idCache");
    });

    // The containing data structure: products are in both maps; each map holds its own nodes,
    // table and keys (the name map's keys are the products' names, in both).
    auto by_structure = parseChain("structure,type");
    ASSERT_TRUE(by_structure.ok());
    auto st = ClassificationTree::build(view, *by_structure);
    const std::string several = "in several data structures";
    EXPECT_EQ(st.node(st.find({several, "jku.anttracks.example.data.Product"})).objects, 20'000u);
    EXPECT_EQ(st.node(st.find({several, "int[]"})).objects, 40'000u);
    const std::string id_ds =
        "java.util.HashMap (allocated in jku.anttracks.example.data.IdCache.<clinit>(IdCache.java:9))";
    EXPECT_EQ(st.node(st.find({id_ds, "java.lang.Long"})).objects, 20'000u);
    EXPECT_EQ(st.node(st.find({id_ds, "java.util.HashMap$Node"})).objects, 20'000u);
    EXPECT_EQ(st.node(st.find({id_ds, "java.util.HashMap"})).objects, 1u);
}

// STAG20 §7.2: the leaking cache is a ConcurrentHashMap in JourneyService, holding the query
// keys, the cached location lists, their Locations and their Dates.
TEST(Closure, GrowingMapContainingDataStructure) {
    Loaded l(scenario("growing-map"));
    const HeapView view = l.view();
    auto chain = parseChain("structure,type");
    ASSERT_TRUE(chain.ok());
    auto tree = ClassificationTree::build(view, *chain);
    const auto top = tree.sortedChildren(ClassificationTree::kRoot, Metric::kBytes);
    ASSERT_FALSE(top.empty());
    const std::string cache = tree.label(top[0]);
    EXPECT_EQ(cache,
              "java.util.concurrent.ConcurrentHashMap (allocated in "
              "com.dynatrace.easytravel.business.JourneyService.<init>(JourneyService.java:51))");
    EXPECT_EQ(
        tree.node(tree.find({cache, "com.dynatrace.easytravel.business.JourneyService$QueryKey"})).objects,
        4'000u);
    EXPECT_EQ(tree.node(tree.find({cache, "java.util.concurrent.ConcurrentHashMap$Node"})).objects, 4'000u);
    EXPECT_EQ(tree.node(tree.find({cache, "com.dynatrace.easytravel.jpa.business.Location"})).objects,
              10'000u);
    EXPECT_EQ(tree.node(tree.find({cache, "java.util.Date"})).objects, 10'000u);
    EXPECT_EQ(tree.node(tree.find({cache, "java.util.ArrayList"})).objects, 4'000u);

    // The roots: the cache is reached through the static field JourneyService.INSTANCE.
    auto roots = parseChain("roots");
    ASSERT_TRUE(roots.ok());
    auto rt = ClassificationTree::build(view, *roots);
    const uint32_t instance =
        rt.find({"static field", "com.dynatrace.easytravel.business.JourneyService", "INSTANCE"});
    ASSERT_NE(instance, kNoNode);
    EXPECT_GE(rt.node(instance).objects, 4'000u + 4'000u + 10'000u + 10'000u);
}

// The bundled real recording (a web shop on H2 whose static audit history leaks): at its last
// GC the 2,500 audit entries hang off ShopServer.AUDIT_HISTORY, a ConcurrentHashMap made in
// ShopServer's static initializer, and retain over a quarter of the heap (the orders they point to).
// The demo's ShopServer$AuditEntry objects in the heap `l` holds.
Bitset auditEntries(const Loaded& l) {
    const HeapView view = l.view();
    auto chain = parseChain("type");
    EXPECT_TRUE(chain.ok());
    auto tree = ClassificationTree::build(view, *chain);
    const uint32_t entries = tree.find({"ShopServer$AuditEntry"});
    EXPECT_NE(entries, kNoNode);
    return entries == kNoNode ? Bitset(view.positions()) : tree.members(view, {entries}).front();
}

TEST(Closure, DemoRecordingAuditHistory) {
    // At every GC with a snapshot and audit entries, where a worker's JNI local may also hold the map, the
    // paths name the static field.
    for (uint32_t gc = 16; gc <= 40; gc += 4) {
        Loaded at(MEMCITY_DEMO_TRACE, gc);
        const RootPaths paths = rootPaths(*at.graph, auditEntries(at));
        ASSERT_FALSE(paths.paths.empty()) << "GC " << gc;
        for (const RootPath& p : paths.paths)
            EXPECT_EQ(at.graph->rootIdentityLabel(p.root_identity), "static field ShopServer.AUDIT_HISTORY")
                << "GC " << gc;
    }
    Loaded l(MEMCITY_DEMO_TRACE, 41);
    const HeapView view = l.view();
    const Bitset group = auditEntries(l);
    EXPECT_EQ(group.count(), 2'500u);
    const GroupClosure c = closureOf(*l.graph, group);
    EXPECT_GT(c.retained.bytes * 100, view.liveBytes() * 25);
    EXPECT_EQ(c.unreached.objects, 0u);
    const RootPaths paths = rootPaths(*l.graph, group);
    EXPECT_EQ(paths.reached_objects, 2'500u);
    for (const RootPath& p : paths.paths) {
        EXPECT_EQ(l.graph->rootIdentityLabel(p.root_identity), "static field ShopServer.AUDIT_HISTORY");
        EXPECT_EQ(view.symbols().type(p.steps.front().type).name, "java.util.concurrent.ConcurrentHashMap");
        EXPECT_EQ(view.symbols().type(p.steps.back().type).name, "ShopServer$AuditEntry");
    }

    auto by = parseChain("structure,type");
    ASSERT_TRUE(by.ok());
    auto st = ClassificationTree::build(view, *by);
    EXPECT_EQ(st.node(st.find({"java.util.concurrent.ConcurrentHashMap (allocated in "
                               "ShopServer.<clinit>(ShopServer.java:28))",
                               "ShopServer$AuditEntry"}))
                  .objects,
              2'500u);
    auto roots = parseChain("roots,type");
    ASSERT_TRUE(roots.ok());
    auto rt = ClassificationTree::build(view, *roots);
    EXPECT_EQ(
        rt.node(rt.find({"static field", "ShopServer", "AUDIT_HISTORY", "ShopServer$AuditEntry"})).objects,
        2'500u);
}

}  // namespace
}  // namespace memcity
