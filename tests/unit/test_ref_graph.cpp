#include <gtest/gtest.h>

#include <algorithm>
#include <random>

#include "heap/ref_graph.h"

namespace memcity {
namespace {

TEST(RefGraph, MatchesAPlainAdjacencyList) {
    std::mt19937 gen(3);
    auto rng = [&] { return static_cast<uint32_t>(gen()); };
    const uint32_t n = 3000;
    std::vector<std::vector<uint32_t>> adj(n);
    for (uint32_t v = 0; v < n; ++v) {
        uint32_t deg = rng() % 5 == 0 ? 0 : rng() % 6;
        if (v == 17) deg = 400;  // a long list (more than 255 bytes)
        for (uint32_t k = 0; k < deg; ++k) {
            uint32_t t = rng() % 3 == 0 ? rng() % n : std::min(n - 1, v + rng() % 20);
            adj[v].push_back(t);
        }
        if (v == 5) adj[v].push_back(5);  // self reference
        if (v == 6) adj[v] = {9, 9};      // repeated target
    }
    RefGraphBuilder b(n);
    std::vector<uint32_t> order(n);
    for (uint32_t v = 0; v < n; ++v)
        order[v] = v;
    std::shuffle(order.begin(), order.end(), gen);
    for (uint32_t v : order) {
        auto copy = adj[v];
        ASSERT_TRUE(b.measure(v, copy));
    }
    auto dup = adj[3];
    EXPECT_FALSE(b.measure(3, dup));  // a second list for the same source is refused
    b.layout();
    std::reverse(order.begin(), order.end());
    for (uint32_t v : order) {
        auto copy = adj[v];
        b.write(v, copy);
    }
    RefGraph g = b.finish();
    uint64_t edges = 0;
    for (uint32_t v = 0; v < n; ++v) {
        std::vector<uint32_t> got;
        g.forEachTarget(v, [&](uint32_t t) { got.push_back(t); });
        auto want = adj[v];
        std::sort(want.begin(), want.end());
        ASSERT_EQ(got, want) << "node " << v;
        EXPECT_EQ(g.degree(v), want.size());
        edges += want.size();
    }
    EXPECT_EQ(g.edgeCount(), edges);
    // Compact: mostly nearby targets cost well under 4 bytes each, lengths and offsets included.
    EXPECT_LT(static_cast<double>(g.memoryBytes()), 4.0 * static_cast<double>(edges) + 2.0 * n);
}

TEST(RefGraph, EmptyGraph) {
    RefGraphBuilder b(0);
    b.layout();
    RefGraph g = b.finish();
    EXPECT_EQ(g.nodeCount(), 0u);
    EXPECT_EQ(g.edgeCount(), 0u);
}

}  // namespace
}  // namespace memcity
