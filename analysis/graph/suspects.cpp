#include "graph/suspects.h"

#include <algorithm>
#include <map>
#include <unordered_map>

#include "graph/heap_graph.h"

namespace memcity {
namespace {

// Counts objects under names, then lists them most bytes first.
class NameCounter {
public:
    void add(const std::string& name, uint64_t objects, uint64_t bytes) {
        SuspectName& n = names_[name];
        n.objects += objects;
        n.bytes += bytes;
    }
    std::vector<SuspectName> top(size_t max) const {
        std::vector<SuspectName> v;
        v.reserve(names_.size());
        for (const auto& [name, n] : names_)
            v.push_back({name, n.objects, n.bytes});
        std::sort(v.begin(), v.end(), [](const SuspectName& a, const SuspectName& b) {
            if (a.bytes != b.bytes) return a.bytes > b.bytes;
            if (a.objects != b.objects) return a.objects > b.objects;
            return a.name < b.name;
        });
        if (v.size() > max) v.resize(max);
        return v;
    }

private:
    std::map<std::string, SuspectName> names_;
};

std::string siteChain(const SymbolTable& symbols, uint32_t site, size_t max_frames) {
    if (!symbols.hasSite(site)) return symbols.siteLabel(site);
    std::string s;
    const auto frames = symbols.siteFrames(site);
    for (size_t i = 0; i < frames.size() && i < max_frames; ++i)
        s += (i ? " \u2190 " : "") + symbols.frameLabel(frames[i]);
    if (s.empty()) s = symbols.siteLabel(site);
    return s;
}

// Whether `ancestor` is `node` or above it in the dominator tree.
bool dominates(const DominatorTree& tree, uint32_t ancestor, uint32_t node) {
    for (uint32_t n = node; n != DominatorTree::kNone; n = tree.idom(n)) {
        if (n == ancestor) return true;
        if (n == tree.superRoot()) return false;
    }
    return false;
}

}  // namespace

Result<SuspectsReport> findSuspects(const HeapHistory& h, const SuspectsOptions& options) {
    SuspectsReport r;
    // 1. The leak window.
    std::optional<RunSpan> run;
    if (h.counts().any_time) run = RunSpan{h.counts().first_time_ns, h.counts().last_time_ns};
    auto windows = findWindows(h.gcs(), options.windows, run);
    if (!windows) return windows.error();
    r.windows = std::move(*windows);
    for (const Window& w : r.windows.windows)
        if ((w.kind == WindowKind::kLeakRegression || w.kind == WindowKind::kLeakHeuristic) &&
            (!r.leak || w.first_gc < r.leak->first_gc))
            r.leak = w;
    if (!r.leak) {
        std::string why = "no leak: memory does not keep growing to the end of the run";
        for (const std::string& n : r.windows.notes)
            if (n.find("leak") != std::string::npos) why += " (" + n + ")";
        r.notes.push_back(why);
    }

    // 2. The snapshot GC, its heap and references.
    std::optional<uint32_t> gc = options.gc;
    if (gc && *gc >= h.gcCount()) return Error{h.gcRangeError(*gc)};
    if (!gc) gc = lastSnapshotGc(h);
    if (!gc) {
        r.notes.push_back(
            "the trace has no reference snapshot (record with --refs N): no accumulation point, root path "
            "or retained sizes");
        return r;
    }
    auto heap = h.heapAt(*gc);
    if (!heap) return heap.error();
    auto graph_r = loadGraph(h, *heap);
    if (!graph_r) return graph_r.error();
    const HeapGraph& graph = **graph_r;
    const auto& tree_r = graph.dominators();
    if (!tree_r) return tree_r.error();
    const DominatorTree& tree = *tree_r;
    const HeapView& view = graph.heap();
    const SymbolTable& symbols = view.symbols();
    r.has_snapshot = true;
    r.gc = *gc;
    r.reached = {tree.reachedObjects(), tree.reachedBytes()};
    const uint32_t super = tree.superRoot();
    const size_t n = tree.positions();
    auto typeName = [&](size_t pos) { return std::string(symbols.type(view.type(pos)).name); };

    // The biggest retained groups: the top-level dominators.
    {
        NameCounter groups;
        std::vector<uint32_t> top(tree.children(super).begin(), tree.children(super).end());
        for (uint32_t p : top)
            groups.add(typeName(p), tree.retainedObjects(p), tree.retainedBytes(p));
        r.retained_groups = groups.top(options.max_groups);
        std::sort(top.begin(), top.end(), [&](uint32_t a, uint32_t b) {
            return tree.retainedBytes(a) != tree.retainedBytes(b)
                       ? tree.retainedBytes(a) > tree.retainedBytes(b)
                       : a < b;
        });
        for (size_t i = 0; i < top.size() && i < options.max_groups; ++i)
            r.largest.push_back({view.id(top[i]),
                                 typeName(top[i]),
                                 {tree.retainedObjects(top[i]), tree.retainedBytes(top[i])}});
    }
    if (!r.leak) return r;

    // 2. The growth: reached objects born after the window's first GC.
    const uint32_t first_gc = r.leak->first_gc;
    std::vector<uint8_t> growing(n, 0);
    std::vector<uint64_t> g_bytes(n + 1, 0), g_objects(n + 1, 0);
    NameCounter growth_types;
    for (size_t p = 0; p < n; ++p) {
        if (!tree.reached(p) || !view.alive(p) || view.birthGc(p) <= first_gc) continue;
        growing[p] = 1;
        const uint64_t b = view.size(p);
        g_bytes[p] = b;
        g_objects[p] = 1;
        r.growth += Sizes{1, b};
        growth_types.add(typeName(p), 1, b);
    }
    r.growth_types = growth_types.top(options.max_names);
    if (r.growth.objects == 0) {
        r.notes.push_back("nothing born in the leak window is still reached at GC " + std::to_string(*gc));
        return r;
    }
    // Subtree sums: a preorder from the super-root, summed in reverse.
    std::vector<uint32_t> order;
    order.reserve(n + 1);
    order.push_back(super);
    for (size_t i = 0; i < order.size(); ++i)
        for (uint32_t c : tree.children(order[i]))
            order.push_back(c);
    for (size_t i = order.size(); i-- > 1;) {
        const uint32_t p = order[i], d = tree.idom(p);
        g_bytes[d] += g_bytes[p];
        g_objects[d] += g_objects[p];
    }

    // 3. Accumulation points.
    std::vector<uint32_t> starts;
    for (uint32_t c : tree.children(super))
        if (static_cast<double>(g_bytes[c]) >= options.min_share * static_cast<double>(r.growth.bytes))
            starts.push_back(c);
    std::sort(starts.begin(), starts.end(), [&](uint32_t a, uint32_t b) {
        return g_bytes[a] != g_bytes[b] ? g_bytes[a] > g_bytes[b] : a < b;
    });
    for (uint32_t start : starts) {
        if (r.suspects.size() >= options.max_suspects) break;
        uint32_t p = start;
        for (;;) {
            uint32_t best = kNoPosition;
            for (uint32_t c : tree.children(p))
                if (best == kNoPosition || g_bytes[c] > g_bytes[best]) best = c;
            if (best == kNoPosition ||
                static_cast<double>(g_bytes[best]) < options.descend_share * static_cast<double>(g_bytes[p]))
                break;
            p = best;
        }
        // Lift a point inside a data structure, or an array, to its owner.
        const uint32_t stopped = p;
        const uint32_t head = graph.container(p);
        if (head != kNoPosition && head != HeapGraph::kMultipleContainers && head != p &&
            dominates(tree, head, p))
            p = head;
        else if (view.isArray(p) && tree.idom(p) != super && tree.idom(p) != DominatorTree::kNone)
            p = tree.idom(p);

        Suspect s;
        s.id = view.id(p);
        s.type = typeName(p);
        if (p != stopped) s.via = typeName(stopped);
        s.retained = {tree.retainedObjects(p), tree.retainedBytes(p)};
        s.growth = {g_objects[p], g_bytes[p]};
        s.share = static_cast<double>(g_bytes[p]) / static_cast<double>(r.growth.bytes);
        // 4. The root path: the breadth-first search's parents, from the point up to a root object.
        std::vector<uint32_t> path{p};
        for (uint32_t q = graph.pathParent(p); q != kNoPosition; q = graph.pathParent(q))
            path.push_back(q);
        std::reverse(path.begin(), path.end());
        if (graph.rootDistance(p) != kNoPosition) {
            const uint32_t root = graph.pathRoot(path.front());
            if (root != kNoPosition) s.root = graph.rootIdentityLabel(root);
            for (uint32_t q : path)
                s.path.push_back({view.id(q), typeName(q)});
        }
        // The growth it holds, by type, site and thread.
        NameCounter types, sites, threads;
        std::vector<uint32_t> stack{p};
        while (!stack.empty()) {
            const uint32_t q = stack.back();
            stack.pop_back();
            for (uint32_t c : tree.children(q))
                stack.push_back(c);
            if (!growing[q]) continue;
            const uint64_t b = view.size(q);
            types.add(typeName(q), 1, b);
            sites.add(siteChain(symbols, view.site(q), options.max_frames), 1, b);
            const ThreadInfo& t = symbols.thread(view.thread(q));
            threads.add(t.defined ? t.name : "<unknown thread>", 1, b);
        }
        s.types = types.top(options.max_names);
        s.sites = sites.top(options.max_names);
        s.threads = threads.top(options.max_names);
        r.suspects.push_back(std::move(s));
    }
    if (r.suspects.empty())
        r.notes.push_back("the growth is spread: no single object's dominator subtree holds " +
                          std::to_string(static_cast<int>(options.min_share * 100)) + "% of it");
    return r;
}

}  // namespace memcity
