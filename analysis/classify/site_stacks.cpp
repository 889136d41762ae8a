#include "classify/site_stacks.h"

#include <algorithm>
#include <unordered_map>

#include "classify/churn.h"
#include "classify/tree.h"
#include "graph/closure.h"

namespace memcity {
namespace {

constexpr std::string_view kUnknownSite = "<unknown site>";  // the site classifier's label for site 0

// The frame behind each label the site classifier gives (SymbolTable::frameLabel), so that stacks
// found by label in the trees get their methods and lines back.
std::unordered_map<std::string, Frame> framesByLabel(const SymbolTable& symbols) {
    std::unordered_map<std::string, Frame> out;
    for (uint32_t site = 1; site < symbols.siteSlots(); ++site) {
        if (!symbols.hasSite(site)) continue;
        for (const Frame& f : symbols.siteFrames(site))
            out.emplace(symbols.frameLabel(f), f);
    }
    return out;
}

// A node's stack, outermost frame first, from its labels (the root's child holds the allocating
// frame, each level below one caller further out).
std::vector<Frame> stackOf(const std::vector<std::string>& labels_innermost_first,
                           const std::unordered_map<std::string, Frame>& frames) {
    std::vector<Frame> out;
    for (auto it = labels_innermost_first.rbegin(); it != labels_innermost_first.rend(); ++it) {
        if (*it == kUnknownSite) continue;
        auto f = frames.find(*it);
        out.push_back(f == frames.end() ? Frame{} : f->second);
    }
    return out;
}

uint64_t minusClamped(uint64_t a, uint64_t b) {
    return a > b ? a - b : 0;  // a sampled tree's rounded estimates may put children above a parent
}

void addStack(SiteProfile& p, std::vector<Frame> frames, uint64_t objects, uint64_t bytes) {
    if (objects == 0 && bytes == 0) return;
    p.stacks.push_back({std::move(frames), objects, bytes});
    p.objects += objects;
    p.bytes += bytes;
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
                                    unsigned threads) {
    if (what != StackValue::kLive && what != StackValue::kRetained)
        return Error{"a heap has no " + std::string(stackValueName(what)) + " values (they need a window)"};
    if (what == StackValue::kRetained && !graph) return Error{"retained sizes need the heap's references"};
    auto chain = parseChain(fullStackChain(heap.symbols()));
    if (!chain) return chain.error();
    TreeOptions options;
    options.threads = threads;
    const ClassificationTree tree = ClassificationTree::build(heap, *chain, options);
    const auto frames = framesByLabel(heap.symbols());
    SiteProfile p;
    p.sampled = tree.sampled();

    // 1. Every node's own objects: those whose stack ends there (the node less its children).
    struct Own {
        uint32_t node;
        std::vector<Frame> frames;
        uint64_t objects, bytes;
    };
    std::vector<Own> own;
    std::vector<std::string> labels;
    auto walk = [&](auto&& self, uint32_t id) -> void {
        const TreeNode& n = tree.node(id);
        uint64_t objects = n.objects, bytes = n.bytes;
        for (uint32_t c : n.children) {
            objects = minusClamped(objects, tree.node(c).objects);
            bytes = minusClamped(bytes, tree.node(c).bytes);
        }
        if (id != ClassificationTree::kRoot) labels.push_back(tree.label(id));
        if (id != ClassificationTree::kRoot && (objects || bytes))
            own.push_back({id, stackOf(labels, frames), objects, bytes});
        for (uint32_t c : n.children)
            self(self, c);
        if (id != ClassificationTree::kRoot) labels.pop_back();
    };
    walk(walk, ClassificationTree::kRoot);
    if (what == StackValue::kLive) {
        for (Own& o : own)
            addStack(p, std::move(o.frames), o.objects, o.bytes);
        return p;
    }

    // 2. Retained: each stack's own objects as a group, closed as `report --retained` closes groups.
    std::vector<uint32_t> nodes;
    for (const Own& o : own) {
        nodes.push_back(o.node);
        for (uint32_t c : tree.node(o.node).children)
            nodes.push_back(c);
    }
    std::vector<Bitset> sets = tree.members(heap, nodes, options);
    std::vector<Bitset> groups;
    size_t at = 0;
    for (const Own& o : own) {
        Bitset g = std::move(sets[at++]);
        for (size_t k = 0; k < tree.node(o.node).children.size(); ++k) {
            const Bitset& child = sets[at++];
            for (size_t w = 0; w < g.words().size(); ++w)
                g.words()[w] &= ~child.words()[w];
        }
        groups.push_back(std::move(g));
    }
    const std::vector<GroupClosure> closures = closuresOf(*graph, groups, threads);
    for (size_t i = 0; i < own.size(); ++i)
        addStack(p, std::move(own[i].frames), closures[i].retained.objects, closures[i].retained.bytes);
    return p;
}

Result<SiteProfile> windowSiteProfile(const HeapHistory& history, uint32_t from, uint32_t to, StackValue what,
                                      unsigned threads) {
    if (what != StackValue::kAllocated && what != StackValue::kChurn)
        return Error{"a window has " + std::string(stackValueName(what)) + " values only at its end"};
    if (to >= history.gcCount()) return Error{history.gcRangeError(to)};
    auto end = history.heapAt(to);
    if (!end) return end.error();
    const SymbolTable& symbols = end->view().symbols();
    auto chain = parseChain(fullStackChain(symbols));
    if (!chain) return chain.error();
    TreeOptions options;
    options.threads = threads;
    auto churn = HeapChurn::build(history, from, to, *chain, options);
    if (!churn) return churn.error();
    const auto frames = framesByLabel(symbols);
    SiteProfile p;
    p.sampled = churn->sampled();
    auto value = [&](const ChurnNode& n) {
        return what == StackValue::kChurn
                   ? n.died
                   : ChurnCounts{n.died.objects + n.survived.objects, n.died.bytes + n.survived.bytes};
    };
    std::vector<std::string> labels;
    auto walk = [&](auto&& self, uint32_t id) -> void {
        const ChurnNode& n = churn->node(id);
        ChurnCounts v = value(n);
        for (uint32_t c : n.children) {
            const ChurnCounts cv = value(churn->node(c));
            v.objects = minusClamped(v.objects, cv.objects);
            v.bytes = minusClamped(v.bytes, cv.bytes);
        }
        if (id != HeapChurn::kRoot) {
            labels.push_back(n.label);
            addStack(p, stackOf(labels, frames), v.objects, v.bytes);
        }
        for (uint32_t c : n.children)
            self(self, c);
        if (id != HeapChurn::kRoot) labels.pop_back();
    };
    walk(walk, HeapChurn::kRoot);
    return p;
}

}  // namespace memcity
