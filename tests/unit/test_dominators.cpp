// Dominator trees: hand-made graphs with exact answers, random graphs against brute force (the GC
// closure of every single object), and the multi-cache scenario's documented retained sizes.
#include <gtest/gtest.h>

#include <algorithm>
#include <map>
#include <random>
#include <string>

#include "graph/dominators.h"
#include "heap/heap_history.h"
#include "synth/synth.h"
#include "unit/trace_builder.h"

namespace memcity {
namespace {

constexpr uint32_t kNone = DominatorTree::kNone;

struct Graph {
    std::vector<std::vector<uint32_t>> adj;  // references per position (any order, repeats allowed)
    std::vector<uint32_t> roots;
    std::vector<uint64_t> sizes;  // shallow bytes per position
    size_t size() const { return adj.size(); }
};

RefGraph refGraph(const Graph& g) {
    RefGraphBuilder b(g.size());
    for (uint32_t v = 0; v < g.size(); ++v) {
        auto copy = g.adj[v];
        b.measure(v, copy);
    }
    b.layout();
    for (uint32_t v = 0; v < g.size(); ++v) {
        auto copy = g.adj[v];
        b.write(v, copy);
    }
    return b.finish();
}

ShallowSizes sizesOf(const Graph& g) {
    return [&g](size_t begin, size_t end, uint64_t* out) {
        std::copy(g.sizes.begin() + static_cast<ptrdiff_t>(begin),
                  g.sizes.begin() + static_cast<ptrdiff_t>(end), out);
    };
}

DominatorTree dominators(const Graph& g, unsigned threads = 1) {
    RefGraph rg = refGraph(g);
    auto t = computeDominators(rg, g.roots, sizesOf(g), {threads});
    EXPECT_TRUE(t.ok()) << (t.ok() ? "" : t.error().message);
    return std::move(*t);
}

// Sizes 10, 20, 30, ... so that every retained size names its objects.
Graph graph(std::vector<std::vector<uint32_t>> adj, std::vector<uint32_t> roots) {
    Graph g{std::move(adj), std::move(roots), {}};
    for (size_t p = 0; p < g.size(); ++p)
        g.sizes.push_back(10 * (p + 1));
    return g;
}

std::vector<uint32_t> idoms(const DominatorTree& t) {
    std::vector<uint32_t> out;
    for (size_t p = 0; p < t.positions(); ++p)
        out.push_back(t.idom(p));
    return out;
}
std::vector<uint64_t> retainedBytes(const DominatorTree& t) {
    std::vector<uint64_t> out;
    for (size_t p = 0; p < t.positions(); ++p)
        out.push_back(t.retainedBytes(p));
    return out;
}
std::vector<uint64_t> retainedObjects(const DominatorTree& t) {
    std::vector<uint64_t> out;
    for (size_t p = 0; p < t.positions(); ++p)
        out.push_back(t.retainedObjects(p));
    return out;
}
std::vector<uint32_t> children(const DominatorTree& t, size_t node) {
    auto c = t.children(node);
    return {c.begin(), c.end()};
}
using U32 = std::vector<uint32_t>;
using U64 = std::vector<uint64_t>;

TEST(Dominators, Chain) {
    // root 0 -> 1 -> 2 -> 3
    DominatorTree t = dominators(graph({{1}, {2}, {3}, {}}, {0}));
    const uint32_t s = t.superRoot();
    EXPECT_EQ(s, 4u);
    EXPECT_EQ(idoms(t), (U32{s, 0, 1, 2}));
    EXPECT_EQ(retainedBytes(t), (U64{100, 90, 70, 40}));
    EXPECT_EQ(retainedObjects(t), (U64{4, 3, 2, 1}));
    EXPECT_EQ(children(t, s), (U32{0}));
    EXPECT_EQ(children(t, 1), (U32{2}));
    EXPECT_EQ(children(t, 3), (U32{}));
    EXPECT_EQ(t.retainedObjects(s), 4u);
    EXPECT_EQ(t.retainedBytes(s), 100u);
}

TEST(Dominators, Diamond) {
    // 0 -> 1, 2; 1 -> 3; 2 -> 3; 3 -> 4: neither branch alone keeps 3 alive.
    DominatorTree t = dominators(graph({{1, 2}, {3}, {3}, {4}, {}}, {0}));
    const uint32_t s = t.superRoot();
    EXPECT_EQ(idoms(t), (U32{s, 0, 0, 0, 3}));
    EXPECT_EQ(retainedBytes(t), (U64{150, 20, 30, 90, 50}));
    EXPECT_EQ(retainedObjects(t), (U64{5, 1, 1, 2, 1}));
    EXPECT_EQ(children(t, 0), (U32{1, 2, 3}));
}

TEST(Dominators, Cycles) {
    // 0 -> 1 -> 2 -> 3 -> 1 (a loop back), 2 -> 4.
    DominatorTree a = dominators(graph({{1}, {2}, {3, 4}, {1}, {}}, {0}));
    const uint32_t s = a.superRoot();
    EXPECT_EQ(idoms(a), (U32{s, 0, 1, 2, 2}));
    EXPECT_EQ(retainedBytes(a), (U64{150, 140, 120, 40, 50}));
    // A cycle entered at two points: 0 -> 1, 0 -> 2, 1 <-> 2. The depth-first parent of one of them
    // is the other, yet only 0 dominates either.
    DominatorTree b = dominators(graph({{1, 2}, {2}, {1}}, {0}));
    EXPECT_EQ(idoms(b), (U32{b.superRoot(), 0, 0}));
    EXPECT_EQ(retainedBytes(b), (U64{60, 20, 30}));
    // Every object on a rooted cycle: 0 -> 1 -> 2 -> 0.
    DominatorTree c = dominators(graph({{1}, {2}, {0}}, {0}));
    EXPECT_EQ(idoms(c), (U32{c.superRoot(), 0, 1}));
    EXPECT_EQ(retainedBytes(c), (U64{60, 50, 30}));
}

TEST(Dominators, ObjectReachedFromTwoRoots) {
    // Roots 0 and 1 both hold 2; 2 -> 3. Only the super-root dominates 2.
    DominatorTree t = dominators(graph({{2}, {2}, {3}, {}}, {0, 1}));
    const uint32_t s = t.superRoot();
    EXPECT_EQ(idoms(t), (U32{s, s, s, 2}));
    EXPECT_EQ(retainedBytes(t), (U64{10, 20, 70, 40}));
    EXPECT_EQ(retainedObjects(t), (U64{1, 1, 2, 1}));
    EXPECT_EQ(children(t, s), (U32{0, 1, 2}));
    EXPECT_EQ(t.retainedBytes(s), 100u);
}

TEST(Dominators, SelfLoopsAndRepeatedReferences) {
    // 0 -> 0, 1, 1, 1; 1 -> 1, 2, 2; 2 -> 2: the same as the chain 0 -> 1 -> 2.
    DominatorTree t = dominators(graph({{0, 1, 1, 1}, {1, 2, 2}, {2}}, {0, 0}));
    const uint32_t s = t.superRoot();
    EXPECT_EQ(idoms(t), (U32{s, 0, 1}));
    EXPECT_EQ(retainedBytes(t), (U64{60, 50, 30}));
    EXPECT_EQ(t.stats().predecessor_edges, 3u);  // super -> 0, 0 -> 1, 1 -> 2
}

TEST(Dominators, UnreachedPartsAreLeftOut) {
    // 0 -> 1 is rooted. 2 <-> 3 and 4 are garbage; 3 and 4 point into the live part, which must not
    // count: 1 stays dominated by 0.
    DominatorTree t = dominators(graph({{1}, {}, {3}, {2, 1}, {1, 0}}, {0}));
    const uint32_t s = t.superRoot();
    EXPECT_EQ(idoms(t), (U32{s, 0, kNone, kNone, kNone}));
    EXPECT_EQ(retainedBytes(t), (U64{30, 20, 0, 0, 0}));
    EXPECT_EQ(retainedObjects(t), (U64{2, 1, 0, 0, 0}));
    EXPECT_FALSE(t.reached(3));
    EXPECT_TRUE(t.reached(1));
    EXPECT_EQ(children(t, 2), (U32{}));
    EXPECT_EQ(t.reachedObjects(), 2u);
    EXPECT_EQ(t.reachedBytes(), 30u);
    // No roots: nothing is reached.
    DominatorTree none = dominators(graph({{1}, {}}, {}));
    EXPECT_EQ(idoms(none), (U32{kNone, kNone}));
    EXPECT_EQ(none.reachedObjects(), 0u);
    EXPECT_EQ(children(none, none.superRoot()), (U32{}));
}

TEST(Dominators, RootThatIsAlsoReferenced) {
    // 0 -> 1 -> 2 -> 3, with 0 and 2 rooted: 2 is its own owner, 0 retains only 0 and 1. Both root
    // orders, so that the depth-first walk meets 2 first through 1 once and once as a root.
    for (U32 roots : {U32{0, 2}, U32{2, 0}}) {
        DominatorTree t = dominators(graph({{1}, {2}, {3}, {}}, roots));
        const uint32_t s = t.superRoot();
        EXPECT_EQ(idoms(t), (U32{s, 0, s, 2}));
        EXPECT_EQ(retainedBytes(t), (U64{30, 20, 70, 40}));
        EXPECT_EQ(children(t, s), (U32{0, 2}));
    }
}

TEST(Dominators, DeepChainNeedsNoRecursion) {
    // Two million objects in one chain, plus a back reference from each to the first: every
    // semidominator is the first object, and each object still dominates the rest of the chain.
    const uint32_t n = 2'000'000;
    Graph g;
    g.adj.resize(n);
    for (uint32_t v = 0; v + 1 < n; ++v)
        g.adj[v] = {v + 1, 0};
    g.roots = {0};
    g.sizes.assign(n, 8);
    for (unsigned threads : {1u, 2u}) {
        DominatorTree t = dominators(g, threads);
        EXPECT_EQ(t.idom(0), t.superRoot());
        EXPECT_EQ(t.idom(n - 1), n - 2);
        EXPECT_EQ(t.idom(n / 2), n / 2 - 1);
        EXPECT_EQ(t.retainedObjects(0), n);
        EXPECT_EQ(t.retainedBytes(1), 8ull * (n - 1));
        EXPECT_EQ(t.retainedObjects(n - 3), 3u);
    }
}

TEST(Dominators, BadInputIsAnError) {
    Graph g = graph({{1}, {}}, {0});
    RefGraph rg = refGraph(g);
    auto bad_root = computeDominators(rg, U32{1, 2}, sizesOf(g));
    ASSERT_FALSE(bad_root.ok());
    EXPECT_EQ(bad_root.error().message, "dominators: a root at position 2, outside the graph's 2 positions");

    // A snapshot loaded for another heap.
    testing::TraceBuilder b("dom-mismatch");
    b.alloc(0).alloc(1).alloc(2).gc(0, 3);
    auto file = TraceFile::open(b.finish());
    ASSERT_TRUE(file.ok());
    auto history = HeapHistory::build(*file);
    ASSERT_TRUE(history.ok());
    auto heap = history->heapAt(0);
    ASSERT_TRUE(heap.ok());
    HeapSnapshot snap;
    snap.graph = std::move(rg);
    auto mismatch = computeDominators(heap->view(), snap);
    ASSERT_FALSE(mismatch.ok());
    EXPECT_EQ(mismatch.error().message,
              "dominators: the snapshot of GC 0 was loaded for 2 positions, the heap of GC 0 has 3");
}

// Brute force: the objects reachable from the roots when `removed` (if any) is taken away.
std::vector<uint8_t> reachable(const Graph& g, size_t removed) {
    std::vector<uint8_t> seen(g.size(), 0);
    std::vector<uint32_t> stack;
    auto push = [&](uint32_t p) {
        if (p == removed || seen[p]) return;
        seen[p] = 1;
        stack.push_back(p);
    };
    for (uint32_t r : g.roots)
        push(r);
    while (!stack.empty()) {
        uint32_t p = stack.back();
        stack.pop_back();
        for (uint32_t t : g.adj[p])
            push(t);
    }
    return seen;
}

// For every object x: the objects that die when x alone is freed (the GC closure of {x}) are x's
// dominator subtree, in objects and bytes; x's immediate dominator is the closest object whose
// removal kills x (the one that retains least), or the super-root when there is none.
void checkAgainstBruteForce(const Graph& g, const DominatorTree& t) {
    const size_t n = g.size();
    const auto all = reachable(g, n);
    std::vector<std::vector<uint8_t>> dies(n);
    std::vector<uint64_t> dying(n, 0);
    uint64_t reached = 0, reached_bytes = 0;
    for (size_t x = 0; x < n; ++x) {
        ASSERT_EQ(t.reached(x), all[x] != 0) << "object " << x;
        if (!all[x]) {
            EXPECT_EQ(t.idom(x), kNone);
            EXPECT_EQ(t.retainedObjects(x), 0u);
            EXPECT_EQ(t.retainedBytes(x), 0u);
            continue;
        }
        ++reached;
        reached_bytes += g.sizes[x];
        const auto without = reachable(g, x);
        dies[x].assign(n, 0);
        uint64_t bytes = 0;
        for (size_t p = 0; p < n; ++p) {
            if (all[p] && !without[p]) {
                dies[x][p] = 1;
                ++dying[x];
                bytes += g.sizes[p];
            }
        }
        // The dominator subtree of x, walked through children().
        std::vector<uint8_t> subtree(n, 0);
        std::vector<uint32_t> stack = {static_cast<uint32_t>(x)};
        while (!stack.empty()) {
            uint32_t p = stack.back();
            stack.pop_back();
            subtree[p] = 1;
            for (uint32_t c : t.children(p))
                stack.push_back(c);
        }
        ASSERT_EQ(subtree, dies[x]) << "object " << x;
        EXPECT_EQ(t.retainedObjects(x), dying[x]) << "object " << x;
        EXPECT_EQ(t.retainedBytes(x), bytes) << "object " << x;
    }
    for (size_t x = 0; x < n; ++x) {
        if (!all[x]) continue;
        uint32_t want = t.superRoot();
        for (size_t d = 0; d < n; ++d)
            if (d != x && all[d] && dies[d][x] && (want == t.superRoot() || dying[d] < dying[want]))
                want = static_cast<uint32_t>(d);
        ASSERT_EQ(t.idom(x), want) << "object " << x;
    }
    EXPECT_EQ(t.retainedObjects(t.superRoot()), reached);
    EXPECT_EQ(t.retainedBytes(t.superRoot()), reached_bytes);
    uint64_t listed = 0;
    for (size_t node = 0; node <= n; ++node) {
        auto c = t.children(node);
        EXPECT_TRUE(std::is_sorted(c.begin(), c.end()));
        for (uint32_t p : c)
            EXPECT_EQ(t.idom(p), node);
        listed += c.size();
    }
    EXPECT_EQ(listed, reached);
}

TEST(Dominators, LengauerTarjanExample) {
    // The flow graph of Lengauer and Tarjan (1979), R = 0, A = 1, ..., L = 12.
    enum : uint32_t { R, A, B, C, D, E, F, G, H, I, J, K, L };
    Graph g =
        graph({{A, B, C}, {D}, {A, D, E}, {F, G}, {L}, {H}, {I}, {I, J}, {E, K}, {K}, {I}, {I, R}, {H}}, {R});
    DominatorTree t = dominators(g);
    EXPECT_EQ(idoms(t), (U32{t.superRoot(), R, R, R, R, R, C, C, R, R, G, R, D}));
    EXPECT_EQ(children(t, R), (U32{A, B, C, D, E, H, I, K}));
    EXPECT_EQ(t.retainedBytes(C), 40u + 70 + 80 + 110);
    EXPECT_EQ(t.retainedBytes(D), 50u + 130);
    checkAgainstBruteForce(g, t);
}

// A random heap: most objects referenced by an older one (lists and trees under object 0), more
// references on top (forward, back into cycles, far), self-loops and repeats, a few more roots (some
// also referenced, one possibly twice), some objects left without an owner, and a garbage region
// at the end that refers into the live part but is referenced by nothing live.
Graph randomGraph(uint32_t seed) {
    std::mt19937 gen(seed);
    auto rng = [&](uint32_t bound) { return static_cast<uint32_t>(gen() % bound); };
    const uint32_t n = 50 + rng(350);
    const uint32_t garbage = n - n / 8;  // positions [garbage, n) are never rooted nor referenced
    const uint32_t extra = rng(4);       // up to how many more references an object has
    Graph g;
    g.adj.resize(n);
    for (uint32_t v = 1; v < n; ++v) {
        if (rng(10) == 0) continue;  // no owner of its own
        const uint32_t from = v < garbage ? 0 : garbage;
        const uint32_t u =
            rng(3) == 0 ? from + rng(v - from + 1) : std::max(from, v - std::min(v, 1 + rng(8)));
        if (u != v) g.adj[u].push_back(v);
    }
    for (uint32_t v = 0; v < n; ++v) {
        const uint32_t deg = extra ? rng(extra + 1) : 0;
        for (uint32_t k = 0; k < deg; ++k) {
            uint32_t t = rng(3) == 0 ? rng(n) : std::min(n - 1, v - std::min(v, rng(8)) + rng(16));
            if (v < garbage && t >= garbage) t = rng(garbage);
            g.adj[v].push_back(t);
        }
        if (rng(20) == 0) g.adj[v].push_back(v);
        if (!g.adj[v].empty() && rng(10) == 0) g.adj[v].push_back(g.adj[v][0]);
        g.sizes.push_back(16 + 8 * rng(10));
    }
    const uint32_t roots = 1 + rng(5);
    for (uint32_t k = 0; k < roots; ++k)
        g.roots.push_back(k == 0 ? 0 : rng(garbage));
    if (rng(3) == 0) g.roots.push_back(g.roots.back());
    return g;
}

TEST(Dominators, RandomGraphsMatchBruteForce) {
    for (uint32_t seed = 0; seed < 150; ++seed) {
        SCOPED_TRACE("seed " + std::to_string(seed));
        Graph g = randomGraph(seed);
        DominatorTree one = dominators(g, 1);
        checkAgainstBruteForce(g, one);
        if (::testing::Test::HasFatalFailure()) return;
        DominatorTree two = dominators(g, 2);
        EXPECT_EQ(idoms(two), idoms(one));
        EXPECT_EQ(retainedBytes(two), retainedBytes(one));
        for (size_t node = 0; node <= g.size(); ++node)
            ASSERT_EQ(children(two, node), children(one, node));
    }
}

// multi-cache at scale 1 (docs/scenarios.md): each cache map alone retains its table, its nodes
// and, for the id cache, its Long keys; the products themselves are held by both maps, so no
// object dominates them.
TEST(Dominators, MultiCacheMapsRetainOnlyWhatTheyAloneHold) {
    const std::string path = testing::tempPath("dom-multi-cache");
    ASSERT_TRUE(synth::synthesize("multi-cache", path, {}).ok());
    auto file = TraceFile::open(path);
    ASSERT_TRUE(file.ok());
    auto history = HeapHistory::build(*file);
    ASSERT_TRUE(history.ok());
    uint64_t final_gc = 0;
    for (const auto& [k, v] : file->meta())
        if (k == "synth.expect.final_gc") final_gc = std::stoull(v);
    auto heap = history->heapAt(static_cast<uint32_t>(final_gc));
    ASSERT_TRUE(heap.ok());
    auto snap = history->snapshotFor(*heap);
    ASSERT_TRUE(snap.ok() && snap->has_value());
    const HeapView v = heap->view();
    std::map<std::string, size_t> statics;
    for (const RootRef& r : (*snap)->roots)
        if (r.kind == static_cast<uint32_t>(format::RootKind::kStaticField))
            statics[file->symbols().field(static_cast<uint32_t>(r.details[1])).name] = r.position;
    ASSERT_TRUE(statics.count("idCache") && statics.count("nameCache"));
    const size_t id_map = statics["idCache"], name_map = statics["nameCache"];
    EXPECT_EQ(file->symbols().type(v.type(id_map)).name, "java.util.HashMap");
    EXPECT_EQ(file->symbols().type(v.type(name_map)).name, "java.util.HashMap");

    for (unsigned threads : {1u, 2u}) {
        auto t = computeDominators(v, **snap, {threads});
        ASSERT_TRUE(t.ok()) << t.error().message;
        const uint64_t q = 20'000, table = 16 + 4 * 32768;
        EXPECT_EQ(t->idom(id_map), t->superRoot());
        EXPECT_EQ(t->idom(name_map), t->superRoot());
        EXPECT_EQ(t->retainedBytes(id_map), 1'251'136u);  // 48 + T + 32Q + 24Q
        EXPECT_EQ(t->retainedBytes(id_map), 48 + table + 32 * q + 24 * q);
        EXPECT_EQ(t->retainedObjects(id_map), 2 + 2 * q);  // map, table, nodes, Longs
        EXPECT_EQ(t->retainedBytes(name_map), 771'136u);   // 48 + T + 32Q
        EXPECT_EQ(t->retainedObjects(name_map), 2 + q);
        // Together the maps retain 5,222,272 bytes (the group closure); alone, not half of it.
        EXPECT_LT(t->retainedBytes(id_map) + t->retainedBytes(name_map), 5'222'272u / 2);
        // Every product hangs directly under the super-root, shared by the two maps. It retains
        // itself (40 bytes) and its two int arrays (40 + 24), not its name: the name map's key is
        // the same string, which hangs under the super-root too.
        const std::string product = "jku.anttracks.example.data.Product";
        uint64_t products = 0, names = 0;
        v.forEachLive([&](size_t p) {
            if (file->symbols().type(v.type(p)).name != product) return;
            ++products;
            EXPECT_EQ(t->idom(p), t->superRoot());
            EXPECT_EQ(t->retainedObjects(p), 3u);
            EXPECT_EQ(t->retainedBytes(p), 40u + 40 + 24);
            (*snap)->graph.forEachTarget(p, [&](uint32_t target) {
                if (file->symbols().type(v.type(target)).name != "java.lang.String") return;
                ++names;
                EXPECT_EQ(t->idom(target), t->superRoot());
                EXPECT_EQ(t->retainedBytes(target), 24u + 32);  // the String and its byte[]
            });
        });
        EXPECT_EQ(products, q);
        EXPECT_EQ(names, q);
        EXPECT_EQ(t->reachedObjects(), v.liveObjects());  // the simulated GC leaves no garbage
        EXPECT_EQ(t->reachedBytes(), v.liveBytes());
    }
}

}  // namespace
}  // namespace memcity
