#include "graph/closure.h"

#include <algorithm>
#include <atomic>
#include <map>
#include <thread>

#include "util/parallel.h"

namespace memcity {

Sizes sizesOf(const HeapView& heap, const Bitset& set) {
    Sizes s;
    set.forEach([&](size_t pos) {
        if (!heap.alive(pos)) return;
        ++s.objects;
        s.bytes += heap.size(pos);
    });
    return s;
}

// ManLang18 Listing 2, over a bit set instead of a list.
Bitset transitiveClosure(const HeapGraph& graph, const Bitset& group) {
    const HeapView& heap = graph.heap();
    Bitset closure(graph.size());
    std::vector<uint32_t> work;
    group.forEach([&](size_t pos) {
        if (heap.alive(pos) && closure.insert(pos)) work.push_back(static_cast<uint32_t>(pos));
    });
    const RefGraph& refs = graph.refs();
    while (!work.empty()) {
        const uint32_t pos = work.back();
        work.pop_back();
        refs.forEachTarget(pos, [&](uint32_t t) {
            if (closure.insert(t)) work.push_back(t);
        });
    }
    return closure;
}

namespace {

// Removes from `closure` what `start` reaches inside it without entering the group.
void removeReachable(const HeapGraph& graph, const Bitset& group, Bitset& closure,
                     std::vector<uint32_t>& start) {
    const RefGraph& refs = graph.refs();
    while (!start.empty()) {
        const uint32_t pos = start.back();
        start.pop_back();
        refs.forEachTarget(pos, [&](uint32_t t) {
            if (closure.test(t) && !group.test(t)) {
                closure.reset(t);
                start.push_back(t);
            }
        });
    }
}

// Improved approach: an object of the closure (not of the group) stays alive when a root
// references it or a reachable object outside the closure does; it and what it reaches leave.
Bitset gcClosureLocal(const HeapGraph& graph, const Bitset& group, const Bitset& transitive) {
    const ReverseGraph& reverse = graph.reverse();
    const Bitset& reachable = graph.reachable();
    Bitset closure = transitive;
    std::vector<uint32_t> kept;
    transitive.forEach([&](size_t pos) {
        if (group.test(pos)) return;
        bool alive = graph.rooted(pos);
        for (uint32_t p : reverse.of(pos)) {
            if (alive) break;
            alive = reachable.test(p) && !transitive.test(p);
        }
        if (alive) kept.push_back(static_cast<uint32_t>(pos));
    });
    for (uint32_t pos : kept)
        closure.reset(pos);
    removeReachable(graph, group, closure, kept);
    return closure;
}

// Simple approach: mark what the roots reach without passing through the group; the rest of the
// transitive closure is retained.
Bitset gcClosureFromRoots(const HeapGraph& graph, const Bitset& group, const Bitset& transitive) {
    Bitset alive(graph.size());
    std::vector<uint32_t> work;
    const RefGraph& refs = graph.refs();
    for (const RootRef& r : graph.snapshot().roots)
        if (r.position < graph.size() && !group.test(r.position) && alive.insert(r.position))
            work.push_back(r.position);
    while (!work.empty()) {
        const uint32_t pos = work.back();
        work.pop_back();
        refs.forEachTarget(pos, [&](uint32_t t) {
            if (!group.test(t) && alive.insert(t)) work.push_back(t);
        });
    }
    Bitset closure = transitive;
    auto& words = closure.words();
    for (size_t w = 0; w < words.size(); ++w)
        words[w] &= ~alive.words()[w];
    return closure;
}

}  // namespace

Bitset gcClosure(const HeapGraph& graph, const Bitset& group, const Bitset& transitive,
                 ClosureMethod method) {
    if (method == ClosureMethod::kAuto)
        method = transitive.count() * 4 > graph.size() ? ClosureMethod::kFromRoots : ClosureMethod::kLocal;
    if (method == ClosureMethod::kFromRoots) return gcClosureFromRoots(graph, group, transitive);
    return gcClosureLocal(graph, group, transitive);
}

GroupClosure closureOf(const HeapGraph& graph, const Bitset& group) {
    const HeapView& heap = graph.heap();
    GroupClosure c;
    c.shallow = sizesOf(heap, group);
    Bitset unreached = group;
    auto& words = unreached.words();
    for (size_t w = 0; w < words.size(); ++w)
        words[w] &= ~graph.reachable().words()[w];
    c.unreached = sizesOf(heap, unreached);
    const Bitset transitive = transitiveClosure(graph, group);
    c.deep = sizesOf(heap, transitive);
    c.retained = sizesOf(heap, gcClosure(graph, group, transitive));
    return c;
}

std::vector<GroupClosure> closuresOf(const HeapGraph& graph, const std::vector<Bitset>& groups,
                                     unsigned threads) {
    std::vector<GroupClosure> out(groups.size());
    if (groups.empty()) return out;
    // The reverse graph is shared: build it before the threads need it.
    (void)graph.reverse();
    std::atomic<size_t> next{0};
    auto work = [&] {
        for (size_t i = next++; i < groups.size(); i = next++)
            out[i] = closureOf(graph, groups[i]);
    };
    threads = std::max(1u, std::min<unsigned>(threads, static_cast<unsigned>(groups.size())));
    runParts(threads, [&](size_t) { work(); });
    return out;
}

// ---- Root paths ----

namespace {

// A trie of aggregated paths: a node is (previous node, type, repeated); the first node of a
// path carries the root identity in `previous` with the top bit set.
struct PathTrie {
    struct Node {
        uint64_t previous;
        uint32_t type;
        bool repeated;
        uint32_t depth;  // references from the root object
    };
    static constexpr uint64_t kRootBit = uint64_t{1} << 63;
    std::vector<Node> nodes;
    std::map<std::tuple<uint64_t, uint32_t, bool>, uint32_t> index;

    uint32_t get(uint64_t previous, uint32_t type, bool repeated, uint32_t depth) {
        auto [it, added] = index.try_emplace({previous, type, repeated}, static_cast<uint32_t>(nodes.size()));
        if (added) nodes.push_back({previous, type, repeated, depth});
        return it->second;
    }
    // The node for an object of `type` one reference below an object whose node is `parent`.
    uint32_t extend(uint32_t parent, uint32_t type, uint32_t depth) {
        const Node& p = nodes[parent];
        if (p.type == type) return p.repeated ? parent : get(p.previous, type, true, p.depth);
        return get(parent, type, false, depth);
    }
};

}  // namespace

RootPaths rootPaths(const HeapGraph& graph, const Bitset& group, size_t max_paths) {
    const HeapView& heap = graph.heap();
    RootPaths out;
    PathTrie trie;
    std::vector<uint32_t> memo(graph.size(), kNoPosition);  // position -> trie node
    std::vector<uint32_t> chain;
    auto nodeOf = [&](uint32_t pos) {
        // Walk up to a memoized position or a root object, then assign on the way down.
        chain.clear();
        uint32_t at = pos;
        while (memo[at] == kNoPosition && graph.pathParent(at) != kNoPosition) {
            chain.push_back(at);
            at = graph.pathParent(at);
        }
        if (memo[at] == kNoPosition) {  // a root object
            const uint32_t root = graph.pathRoot(at);
            const uint64_t identity = root == kNoPosition ? 0 : root;
            memo[at] = trie.get(PathTrie::kRootBit | identity, heap.type(at), false, 0);
        }
        for (auto it = chain.rbegin(); it != chain.rend(); ++it)
            memo[*it] = trie.extend(memo[graph.pathParent(*it)], heap.type(*it), graph.rootDistance(*it));
        return memo[pos];
    };
    std::map<uint32_t, std::pair<uint64_t, uint32_t>> ends;  // trie node -> (objects, shortest)
    group.forEach([&](size_t pos) {
        if (!heap.alive(pos)) return;
        if (graph.rootDistance(pos) == kNoPosition) {
            ++out.unreached_objects;
            return;
        }
        ++out.reached_objects;
        auto [it, added] = ends.try_emplace(nodeOf(static_cast<uint32_t>(pos)), 0, ~uint32_t{0});
        ++it->second.first;
        it->second.second = std::min(it->second.second, graph.rootDistance(pos));
    });
    std::vector<std::pair<uint32_t, std::pair<uint64_t, uint32_t>>> sorted(ends.begin(), ends.end());
    std::stable_sort(sorted.begin(), sorted.end(),
                     [](const auto& a, const auto& b) { return a.second.first > b.second.first; });
    for (size_t i = 0; i < sorted.size(); ++i) {
        if (i >= max_paths) {
            ++out.other_paths;
            out.other_objects += sorted[i].second.first;
            continue;
        }
        RootPath p;
        p.objects = sorted[i].second.first;
        p.shortest = sorted[i].second.second;
        uint64_t at = sorted[i].first;
        while (true) {
            const PathTrie::Node& n = trie.nodes[at];
            p.steps.push_back({n.type, n.repeated});
            if (n.previous & PathTrie::kRootBit) {
                p.root_identity = static_cast<uint32_t>(n.previous & ~PathTrie::kRootBit);
                break;
            }
            at = n.previous;
        }
        std::reverse(p.steps.begin(), p.steps.end());
        out.paths.push_back(std::move(p));
    }
    return out;
}

std::string describePath(const HeapGraph& graph, const RootPath& path) {
    const SymbolTable& symbols = graph.heap().symbols();
    std::string s = graph.rootIdentityCount() > path.root_identity
                        ? graph.rootIdentityLabel(path.root_identity)
                        : std::string("<root>");
    for (const RootPathStep& step : path.steps) {
        const std::string& name = symbols.type(step.type).name;
        s += " → " + (name.empty() ? "<type " + std::to_string(step.type) + ">" : name);
        if (step.repeated) s += " (×n)";
    }
    return s;
}

}  // namespace memcity
