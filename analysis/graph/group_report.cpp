#include "graph/group_report.h"

#include <algorithm>
#include <map>
#include <optional>

namespace memcity {
namespace {

using Counts = std::map<std::string, CountedName>;

void add(Counts& counts, const std::string& name, uint64_t bytes) {
    CountedName& c = counts[name];
    ++c.objects;
    c.bytes += bytes;
}

// The counts most bytes first, then most objects, then (roots) the most lasting kind; the map's
// name order breaks the remaining ties.
std::vector<CountedName> sortedCounts(Counts& counts, size_t max,
                                      const std::map<std::string, int>* rank = nullptr) {
    std::vector<CountedName> v;
    v.reserve(counts.size());
    for (auto& [name, c] : counts) {
        c.name = name;
        v.push_back(std::move(c));
    }
    auto rankOf = [&](const CountedName& c) { return rank ? rank->at(c.name) : 0; };
    std::stable_sort(v.begin(), v.end(), [&](const CountedName& a, const CountedName& b) {
        if (a.bytes != b.bytes) return a.bytes > b.bytes;
        if (a.objects != b.objects) return a.objects > b.objects;
        return rankOf(a) < rankOf(b);
    });
    if (v.size() > max) v.resize(max);
    return v;
}

// `a` without the positions of `b`.
Bitset minus(Bitset a, const Bitset& b) {
    std::vector<uint64_t>& words = a.words();
    for (size_t w = 0; w < words.size() && w < b.words().size(); ++w)
        words[w] &= ~b.words()[w];
    return a;
}

}  // namespace

Result<GroupReport> buildGroupReport(const HeapGraph& graph, const Bitset& group,
                                     const GroupReportOptions& options) {
    if (group.size() != graph.size())
        return Error{"a group of " + std::to_string(group.size()) + " positions for a heap of " +
                     std::to_string(graph.size())};
    if (options.dominator_tree && options.dominator_tree->positions() != graph.size())
        return Error{"a dominator tree of " + std::to_string(options.dominator_tree->positions()) +
                     " positions for a heap of " + std::to_string(graph.size())};
    const uint64_t stages = options.dominators ? 6 : 5;
    uint64_t stage = 0;
    auto cancelled = [&] {
        ++stage;
        return !options.progress.report(
            {.fraction = static_cast<double>(stage - 1) / static_cast<double>(stages),
             .position = stage,
             .total = stages});
    };
    const Error cancel{std::string(kGroupReportCancelled)};
    const HeapView& heap = graph.heap();
    GroupReport r;
    r.heap = {heap.liveObjects(), heap.liveBytes()};

    // Closures: the same sets and sizes as closureOf, kept.
    if (cancelled()) return cancel;
    r.closure.shallow = sizesOf(heap, group);
    r.closure.unreached = sizesOf(heap, minus(group, graph.reachable()));
    r.deep_set = transitiveClosure(graph, group);
    r.closure.deep = sizesOf(heap, r.deep_set);
    r.retained_set = gcClosure(graph, group, r.deep_set);
    r.closure.retained = sizesOf(heap, r.retained_set);

    // Roots, by identity label.
    if (cancelled()) return cancel;
    Counts direct, closest;
    std::map<std::string, int> rank;  // per root label
    auto addRoot = [&](Counts& counts, uint32_t id, uint64_t bytes) {
        std::string label = graph.rootIdentityLabel(id);
        add(counts, label, bytes);
        rank.try_emplace(std::move(label), graph.rootRank(id));
    };
    group.forEach([&](size_t pos) {
        if (!heap.alive(pos)) return;
        const uint64_t bytes = heap.size(pos);
        for (uint32_t id : graph.directRoots(pos))
            addRoot(direct, id, bytes);
        for (uint32_t id : graph.closestRoots(pos))
            addRoot(closest, id, bytes);
    });
    r.direct_roots = sortedCounts(direct, options.max_roots, &rank);
    r.closest_roots = sortedCounts(closest, options.max_roots, &rank);

    // Every root reaching the group: the group's ancestors along strong references, walked
    // backwards once, and the rooted ones among them.
    if (cancelled()) return cancel;
    {
        const ReverseGraph& reverse = graph.reverse();
        Bitset seen(graph.size());
        std::vector<uint32_t> stack;
        group.forEach([&](size_t pos) {
            if (!heap.alive(pos)) return;
            seen.set(pos);
            stack.push_back(static_cast<uint32_t>(pos));
        });
        while (!stack.empty()) {
            const uint32_t pos = stack.back();
            stack.pop_back();
            for (uint32_t source : reverse.of(pos))
                if (!seen.test(source)) {
                    seen.set(source);
                    stack.push_back(source);
                }
        }
        r.reaching_set = Bitset(graph.size());
        Counts reaching;
        seen.forEach([&](size_t pos) {
            if (!graph.rooted(pos)) return;
            r.reaching_set.set(pos);
            for (uint32_t id : graph.directRoots(pos))
                addRoot(reaching, id, heap.size(pos));
        });
        r.reaching_roots = sortedCounts(reaching, options.max_roots, &rank);
    }

    if (cancelled()) return cancel;
    r.paths = rootPaths(graph, group, options.max_paths);

    // What the group retains, by type name.
    if (cancelled()) return cancel;
    const SymbolTable& symbols = heap.symbols();
    Counts types;
    r.retained_set.forEach(
        [&](size_t pos) { add(types, symbols.type(heap.type(pos)).name, heap.size(pos)); });
    r.retained_by_type = sortedCounts(types, options.max_types);

    // The group's objects that retain the most on their own.
    if (!options.dominators) return r;
    if (cancelled()) return cancel;
    std::optional<DominatorTree> computed;
    const DominatorTree* dom = options.dominator_tree;
    if (!dom) {
        DominatorOptions dom_options;
        dom_options.threads = options.threads;
        auto d = computeDominators(heap, graph.snapshot(), dom_options);
        if (!d) return d.error();
        computed = std::move(*d);
        dom = &*computed;
    }
    std::vector<SingleRetainer> singles;
    group.forEach([&](size_t pos) {
        if (!heap.alive(pos) || !dom->reached(pos)) return;
        singles.push_back({static_cast<uint32_t>(pos), heap.id(pos), heap.type(pos),
                           Sizes{dom->retainedObjects(pos), dom->retainedBytes(pos)}});
    });
    const size_t shown = std::min(singles.size(), options.max_singles);
    std::partial_sort(singles.begin(), singles.begin() + static_cast<ptrdiff_t>(shown), singles.end(),
                      [](const SingleRetainer& a, const SingleRetainer& b) {
                          return a.retained.bytes != b.retained.bytes ? a.retained.bytes > b.retained.bytes
                                                                      : a.position < b.position;
                      });
    singles.resize(shown);
    r.largest_objects = std::move(singles);
    r.dominators_computed = true;
    return r;
}

}  // namespace memcity
