#include "classify/site_stacks.h"

#include <algorithm>
#include <span>

#include "classify/churn.h"
#include "classify/frame_key.h"
#include "classify/tree.h"
#include "graph/closure.h"

namespace memcity {
namespace {

// A node's stack, outermost frame first, from the site classifier's keys on its path (the root's
// child holds the allocating frame, each level below one caller further out; key 0: an unknown
// site, no frame).
std::vector<Frame> stackOf(const std::vector<Key>& keys_innermost_first) {
    std::vector<Frame> out;
    for (auto it = keys_innermost_first.rbegin(); it != keys_innermost_first.rend(); ++it)
        if (*it != 0) out.push_back(keyFrame(*it));
    return out;
}

uint64_t minusClamped(uint64_t a, uint64_t b) {
    return a > b ? a - b : 0;  // a sampled tree's rounded estimates may put children above a parent
}

void addStack(SiteProfile& p, std::vector<Frame> frames, uint64_t objects, uint64_t bytes, bool summed = true,
              bool other = false) {
    if (objects == 0 && bytes == 0) return;
    p.stacks.push_back({std::move(frames), objects, bytes, other});
    if (!summed) return;
    p.objects += objects;
    p.bytes += bytes;
}

// The tree node whose path is the site's stack (the node the site classifier files its objects
// under), or kNone when the tree has none.
constexpr uint32_t kNone = ~0u;
uint32_t siteNode(const ClassificationTree& tree, const SymbolTable& symbols, uint32_t site) {
    std::span<const Frame> frames = symbols.siteFrames(site);
    std::vector<Key> keys;
    for (const Frame& f : frames)
        keys.push_back(frameKey(f));
    if (keys.empty()) keys.push_back(0);
    uint32_t at = ClassificationTree::kRoot;
    for (Key k : keys) {
        const auto& kids = tree.node(at).children;
        auto it = std::find_if(kids.begin(), kids.end(), [&](uint32_t c) { return tree.node(c).key == k; });
        if (it == kids.end()) return kNone;
        at = *it;
    }
    return at;
}

}  // namespace

std::string_view stackValueName(StackValue what) {
    switch (what) {
        case StackValue::kLive: return "live";
        case StackValue::kRetained: return "retained";
        case StackValue::kAllocated: return "allocated";
        case StackValue::kChurn: return "churn";
    }
    return "?";
}

std::string fullStackChain(const SymbolTable& symbols) {
    size_t deepest = 1;
    for (uint32_t site = 1; site < symbols.siteSlots(); ++site)
        if (symbols.hasSite(site)) deepest = std::max(deepest, symbols.siteFrames(site).size());
    return "site(callers=" + std::to_string(deepest - 1) + ")";
}

Result<SiteProfile> heapSiteProfile(const HeapView& heap, const HeapGraph* graph, StackValue what,
                                    const SiteProfileOptions& opt) {
    if (what != StackValue::kLive && what != StackValue::kRetained)
        return Error{"a heap has no " + std::string(stackValueName(what)) + " values (they need a window)"};
    if (what == StackValue::kRetained && !graph) return Error{"retained sizes need the heap's references"};
    const SymbolTable& symbols = heap.symbols();
    auto chain = parseChain(fullStackChain(symbols));
    if (!chain) return chain.error();
    TreeOptions options;
    options.threads = opt.threads;
    const ClassificationTree tree = ClassificationTree::build(heap, *chain, options);
    SiteProfile p;
    p.sampled = tree.sampled();

    // 1. Every node's own objects: those whose stack ends there (the node less its children).
    struct Own {
        uint32_t node;
        std::vector<Frame> frames;
        uint64_t objects, bytes;
    };
    std::vector<Own> own;
    std::vector<Key> keys;
    auto walk = [&](auto&& self, uint32_t id) -> void {
        const TreeNode& n = tree.node(id);
        uint64_t objects = n.objects, bytes = n.bytes;
        for (uint32_t c : n.children) {
            objects = minusClamped(objects, tree.node(c).objects);
            bytes = minusClamped(bytes, tree.node(c).bytes);
        }
        if (id != ClassificationTree::kRoot) keys.push_back(n.key);
        if (id != ClassificationTree::kRoot && (objects || bytes))
            own.push_back({id, stackOf(keys), objects, bytes});
        for (uint32_t c : n.children)
            self(self, c);
        if (id != ClassificationTree::kRoot) keys.pop_back();
    };
    walk(walk, ClassificationTree::kRoot);
    if (what == StackValue::kLive) {
        for (Own& o : own)
            addStack(p, std::move(o.frames), o.objects, o.bytes);
        return p;
    }

    // 2. Retained: the top stacks by live bytes get a group each, the rest one group together.
    std::vector<uint32_t> by_size(own.size());
    for (uint32_t i = 0; i < by_size.size(); ++i)
        by_size[i] = i;
    std::stable_sort(by_size.begin(), by_size.end(),
                     [&](uint32_t a, uint32_t b) { return own[a].bytes > own[b].bytes; });
    const size_t closed = std::min(own.size(), std::max<size_t>(opt.retained_stacks, 1));
    const uint32_t other_group = static_cast<uint32_t>(closed);
    std::vector<uint32_t> group_of_node(tree.size(), kNone);
    for (size_t r = 0; r < own.size(); ++r)
        group_of_node[own[by_size[r]].node] = r < closed ? static_cast<uint32_t>(r) : other_group;

    // 3. Each object's group, in one pass (through its site's node: a site's objects share a stack).
    std::vector<uint32_t> group_of_site(symbols.siteSlots(), kNone);
    for (uint32_t site = 0; site < symbols.siteSlots(); ++site)
        if (uint32_t node = siteNode(tree, symbols, site); node != kNone)
            group_of_site[site] = group_of_node[node];
    const uint32_t unknown_group = [&] {
        const uint32_t node = siteNode(tree, symbols, ~0u);
        return node == kNone ? kNone : group_of_node[node];
    }();
    std::vector<uint32_t> group_of(heap.positions(), kNone);
    for (size_t pos = 0; pos < heap.positions(); ++pos)
        if (heap.alive(pos)) {
            const uint32_t site = heap.site(pos);
            group_of[pos] = site < group_of_site.size() ? group_of_site[site] : unknown_group;
        }

    // 4. The groups closed as `report --retained` closes groups, a few bit sets at a time.
    constexpr size_t kBatch = 16;
    const size_t groups = closed + (own.size() > closed ? 1 : 0);
    std::vector<GroupClosure> closures;
    closures.reserve(groups);
    for (size_t first = 0; first < groups; first += kBatch) {
        const size_t n = std::min(kBatch, groups - first);
        std::vector<Bitset> sets(n, Bitset(heap.positions()));
        for (size_t pos = 0; pos < group_of.size(); ++pos)
            if (group_of[pos] != kNone && group_of[pos] >= first && group_of[pos] < first + n)
                sets[group_of[pos] - first].set(pos);
        for (GroupClosure& c : closuresOf(*graph, sets, opt.threads))
            closures.push_back(c);
    }
    std::vector<uint32_t> rank(own.size());
    for (uint32_t r = 0; r < by_size.size(); ++r)
        rank[by_size[r]] = r;
    for (size_t i = 0; i < own.size(); ++i)
        if (rank[i] < closed)
            addStack(p, std::move(own[i].frames), closures[rank[i]].retained.objects,
                     closures[rank[i]].retained.bytes, false);
    if (groups > closed) {
        p.other_stacks = own.size() - closed;
        addStack(p, {}, closures[closed].retained.objects, closures[closed].retained.bytes, false, true);
    }
    return p;
}

Result<SiteProfile> windowSiteProfile(const HeapHistory& history, uint32_t from, uint32_t to, StackValue what,
                                      const SiteProfileOptions& opt) {
    if (what != StackValue::kAllocated && what != StackValue::kChurn)
        return Error{"a window has " + std::string(stackValueName(what)) + " values only at its end"};
    if (to >= history.gcCount()) return Error{history.gcRangeError(to)};
    const SymbolTable& symbols = history.trace().symbols();
    auto chain = parseChain(fullStackChain(symbols));
    if (!chain) return chain.error();
    TreeOptions options;
    options.threads = opt.threads;
    auto churn = HeapChurn::build(history, from, to, *chain, options);
    if (!churn) return churn.error();
    SiteProfile p;
    p.sampled = churn->sampled();
    auto value = [&](const ChurnNode& n) {
        return what == StackValue::kChurn
                   ? n.died
                   : ChurnCounts{n.died.objects + n.survived.objects, n.died.bytes + n.survived.bytes};
    };
    std::vector<Key> keys;
    auto walk = [&](auto&& self, uint32_t id) -> void {
        const ChurnNode& n = churn->node(id);
        ChurnCounts v = value(n);
        for (uint32_t c : n.children) {
            const ChurnCounts cv = value(churn->node(c));
            v.objects = minusClamped(v.objects, cv.objects);
            v.bytes = minusClamped(v.bytes, cv.bytes);
        }
        if (id != HeapChurn::kRoot) {
            keys.push_back(n.key);
            addStack(p, stackOf(keys), v.objects, v.bytes);
        }
        for (uint32_t c : n.children)
            self(self, c);
        if (id != HeapChurn::kRoot) keys.pop_back();
    };
    walk(walk, HeapChurn::kRoot);
    return p;
}

}  // namespace memcity
