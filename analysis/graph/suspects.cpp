#include "graph/suspects.h"

#include <algorithm>
#include <map>
#include <unordered_map>

#include "graph/heap_graph.h"

namespace memcity {
namespace {

// Counts objects under names, then lists them most bytes first. A sampled count adds samples
// with their weights, and lists the estimates, rounded.
class NameCounter {
public:
    void add(const std::string& name, uint64_t objects, uint64_t bytes, const SampleSums& sampled = {}) {
        SuspectName& n = names_[name];
        n.objects += objects;
        n.bytes += bytes;
        n.sampled += sampled;
    }
    std::vector<SuspectName> top(size_t max) const {
        std::vector<SuspectName> v;
        v.reserve(names_.size());
        for (const auto& [name, n] : names_) {
            v.push_back({name, n.objects, n.bytes, n.sampled});
            if (n.sampled.samples) {
                v.back().objects = n.sampled.roundedObjects();
                v.back().bytes = n.sampled.roundedBytes();
            }
        }
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

// Counts objects under a symbol id (a type, site or thread of the trace's symbol table): no
// string per object, only an integer key. top() names each distinct id once and merges ids that
// share a name (two sites whose first frames agree, threads without a name), as a count by name
// would.
class IdCounter {
public:
    void add(uint32_t id, uint64_t bytes) {
        Count& c = counts_[id];
        ++c.objects;
        c.bytes += bytes;
    }
    void addSample(uint32_t id, const SampleWeight& w, uint64_t size) { counts_[id].sampled.add(w, size); }
    // `name(id)` gives an id's name.
    template <class Name>
    std::vector<SuspectName> top(size_t max, const Name& name) const {
        NameCounter names;
        for (const auto& [id, c] : counts_)
            names.add(name(id), c.objects, c.bytes, c.sampled);
        return names.top(max);
    }

private:
    struct Count {
        uint64_t objects = 0, bytes = 0;
        SampleSums sampled;
    };
    std::unordered_map<uint32_t, Count> counts_;
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
    auto typeLabel = [&](uint32_t type) { return std::string(symbols.type(type).name); };

    // The biggest retained groups: the top-level dominators.
    {
        std::unordered_map<uint32_t, Sizes> by_type;
        std::vector<uint32_t> top(tree.children(super).begin(), tree.children(super).end());
        for (uint32_t p : top)
            by_type[view.type(p)] += Sizes{tree.retainedObjects(p), tree.retainedBytes(p)};
        NameCounter groups;
        for (const auto& [type, retained] : by_type)
            groups.add(typeLabel(type), retained.objects, retained.bytes);
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

    // 2. The growth: reached objects born after the window's first GC. A sampled trace's graph
    // is the heap made whole: its first positions are the samples (whose birth GC and weight
    // the samples' heap knows), the rest the objects the snapshot alone listed (birth unknown:
    // never growth).
    const uint32_t first_gc = r.leak->first_gc;
    const WholeHeap* whole = graph.whole();
    const HeapView samples = heap->view();
    r.sampled = whole != nullptr;
    const size_t growth_end = whole ? whole->samplePositions() : n;
    std::vector<uint8_t> growing(n, 0);
    std::vector<double> g_bytes(n + 1, 0);  // weighted in a sampled trace
    IdCounter growth_types;
    for (size_t p = 0; p < growth_end; ++p) {
        if (!tree.reached(p) || !view.alive(p) || view.birthGc(p) <= first_gc) continue;
        growing[p] = 1;
        const uint64_t b = view.size(p);
        if (r.sampled) {
            const SampleWeight w = samples.weight(p);
            g_bytes[p] = w.bytes;
            r.growth_sampled.add(w, b);
            growth_types.addSample(view.type(p), w, b);
        } else {
            g_bytes[p] = static_cast<double>(b);
            r.growth += Sizes{1, b};
            growth_types.add(view.type(p), b);
        }
    }
    if (r.sampled) r.growth = {r.growth_sampled.roundedObjects(), r.growth_sampled.roundedBytes()};
    r.growth_types = growth_types.top(options.max_names, typeLabel);
    if (!r.sampled && r.growth.objects == 0) {
        r.notes.push_back("nothing born in the leak window is still reached at GC " + std::to_string(*gc));
        return r;
    }
    if (r.sampled) {
        r.basis = PointBasis::kSampledGrowth;
        if (r.growth_sampled.samples < options.min_samples) {
            r.basis = PointBasis::kRetained;
            r.notes.push_back(
                "only " + std::to_string(r.growth_sampled.samples) +
                " sampled objects born in the leak window " + "are reached at GC " + std::to_string(*gc) +
                " (fewer than " + std::to_string(options.min_samples) +
                "): the accumulation points are found from retained sizes, not from the growth");
        }
    }
    // Subtree sums: a preorder from the super-root, summed in reverse.
    std::vector<uint32_t> order;
    order.reserve(n + 1);
    order.push_back(super);
    for (size_t i = 0; i < order.size(); ++i)
        for (uint32_t c : tree.children(order[i]))
            order.push_back(c);
    for (size_t i = order.size(); i-- > 1;) {
        const uint32_t p = order[i];
        g_bytes[tree.idom(p)] += g_bytes[p];
    }
    const double growth_total = g_bytes[super];

    // 3. Accumulation points: walked down by the growth or, failing samples, by retained bytes.
    const bool by_retained = r.basis == PointBasis::kRetained;
    auto metric = [&](uint32_t p) {
        return by_retained ? static_cast<double>(tree.retainedBytes(p)) : g_bytes[p];
    };
    const double total = by_retained ? static_cast<double>(r.reached.bytes) : growth_total;
    std::vector<uint32_t> starts;
    for (uint32_t c : tree.children(super))
        if (total > 0 && metric(c) >= options.min_share * total) starts.push_back(c);
    std::sort(starts.begin(), starts.end(),
              [&](uint32_t a, uint32_t b) { return metric(a) != metric(b) ? metric(a) > metric(b) : a < b; });
    for (uint32_t start : starts) {
        if (r.suspects.size() >= options.max_suspects) break;
        uint32_t p = start;
        for (;;) {
            uint32_t best = kNoPosition;
            for (uint32_t c : tree.children(p))
                if (best == kNoPosition || metric(c) > metric(best)) best = c;
            if (best == kNoPosition || metric(best) < options.descend_share * metric(p)) break;
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
        s.share = growth_total > 0 ? g_bytes[p] / growth_total : 0.0;
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
        IdCounter types, sites, threads;
        std::vector<uint32_t> stack{p};
        while (!stack.empty()) {
            const uint32_t q = stack.back();
            stack.pop_back();
            for (uint32_t c : tree.children(q))
                stack.push_back(c);
            if (!growing[q]) continue;
            const uint64_t b = view.size(q);
            if (r.sampled) {
                const SampleWeight w = samples.weight(q);
                s.growth_sampled.add(w, b);
                types.addSample(view.type(q), w, b);
                sites.addSample(view.site(q), w, b);
                threads.addSample(view.thread(q), w, b);
            } else {
                s.growth += Sizes{1, b};
                types.add(view.type(q), b);
                sites.add(view.site(q), b);
                threads.add(view.thread(q), b);
            }
        }
        if (r.sampled) s.growth = {s.growth_sampled.roundedObjects(), s.growth_sampled.roundedBytes()};
        s.types = types.top(options.max_names, typeLabel);
        s.sites = sites.top(options.max_names,
                            [&](uint32_t site) { return siteChain(symbols, site, options.max_frames); });
        s.threads = threads.top(options.max_names, [&](uint32_t thread) {
            const ThreadInfo& t = symbols.thread(thread);
            return t.defined ? t.name : std::string("<unknown thread>");
        });
        r.suspects.push_back(std::move(s));
    }
    if (r.suspects.empty() && by_retained)
        r.notes.push_back("no single object's dominator subtree retains " +
                          std::to_string(static_cast<int>(options.min_share * 100)) +
                          "% of the reached heap");
    else if (r.suspects.empty())
        r.notes.push_back("the growth is spread: no single object's dominator subtree holds " +
                          std::to_string(static_cast<int>(options.min_share * 100)) + "% of it");
    return r;
}

}  // namespace memcity
