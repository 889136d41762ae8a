#include "graph/dominator_view.h"

#include <algorithm>
#include <unordered_map>

namespace memcity {
namespace {

// The first value `c` gives the object at `pos` (see dominatorRows), kNoValueKey for none.
Key firstValue(const Classifier& c, const HeapView& view, size_t pos, std::vector<Key>& scratch) {
    scratch.clear();
    c.classify(view, pos, scratch);
    if (scratch.empty() || scratch.front() == kPathEnd) return kNoValueKey;
    return scratch.front();
}

std::string valueLabel(const Classifier& c, const SymbolTable& symbols, Key key) {
    if (key == kNoValueKey) return "(none)";
    switch (c.cardinality()) {
        case Cardinality::kHierarchy:
        case Cardinality::kPaths: return c.pathLabel(symbols, key, 0);
        default: return c.label(symbols, key);
    }
}

// Cuts `rows` (sorted) at options.max_rows, summing the rest into one last row.
void cut(std::vector<DominatorRow>& rows, const DominatorRowOptions& options) {
    if (options.max_rows == 0 || rows.size() <= options.max_rows) return;
    DominatorRow rest;
    for (size_t i = options.max_rows; i < rows.size(); ++i) {
        rest.objects += rows[i].objects;
        rest.shallow_bytes += rows[i].shallow_bytes;
        rest.retained_objects += rows[i].retained_objects;
        rest.retained_bytes += rows[i].retained_bytes;
    }
    rest.more = rows.size() - options.max_rows;
    rest.label = std::to_string(rest.more) + " more";
    rows.resize(options.max_rows);
    rows.push_back(std::move(rest));
}

}  // namespace

std::string dominatorObjectLabel(const HeapGraph& graph, uint32_t pos) {
    const HeapView& heap = graph.heap();
    const uint32_t type = heap.type(pos);
    const std::string& name = heap.symbols().type(type).name;
    return (name.empty() ? "<type " + std::to_string(type) + ">" : name) + "#" + std::to_string(heap.id(pos));
}

Result<std::vector<DominatorRow>> dominatorRows(const HeapGraph& graph, const DominatorTree& tree,
                                                uint32_t node, const ClassifierChain* group_by,
                                                const DominatorRowOptions& options) {
    const Classifier* c =
        group_by && !group_by->classifiers.empty() ? group_by->classifiers.front().get() : nullptr;
    return dominatorRowsOf(graph, tree, std::span<const uint32_t>(&node, 1), c, options);
}

Result<std::vector<DominatorRow>> dominatorRowsOf(const HeapGraph& graph, const DominatorTree& tree,
                                                  std::span<const uint32_t> nodes, const Classifier* group_by,
                                                  const DominatorRowOptions& options) {
    if (tree.positions() != graph.size())
        return Error{"the dominator tree has " + std::to_string(tree.positions()) + " positions, the graph " +
                     std::to_string(graph.size())};
    const HeapView& heap = graph.heap();
    std::vector<uint32_t> kids;
    for (uint32_t n : nodes) {
        if (n > tree.superRoot())
            return Error{"dominator tree node " + std::to_string(n) + " is out of range (the super-root is " +
                         std::to_string(tree.superRoot()) + ")"};
        std::span<const uint32_t> k = tree.children(n);
        kids.insert(kids.end(), k.begin(), k.end());
    }
    // Most retained bytes first, then ascending position.
    auto before = [&](uint32_t a, uint32_t b) {
        const uint64_t ra = tree.retainedBytes(a), rb = tree.retainedBytes(b);
        return ra != rb ? ra > rb : a < b;
    };
    std::vector<DominatorRow> rows;

    if (!group_by) {
        const size_t shown = options.max_rows ? std::min(options.max_rows, kids.size()) : kids.size();
        std::partial_sort(kids.begin(), kids.begin() + static_cast<ptrdiff_t>(shown), kids.end(), before);
        rows.reserve(shown + 1);
        for (size_t i = 0; i < shown; ++i) {
            const uint32_t p = kids[i];
            DominatorRow r;
            r.label = dominatorObjectLabel(graph, p);
            r.position = p;
            r.objects = 1;
            r.shallow_bytes = heap.size(p);
            r.retained_objects = tree.retainedObjects(p);
            r.retained_bytes = tree.retainedBytes(p);
            rows.push_back(std::move(r));
        }
        if (shown < kids.size()) {
            DominatorRow rest;
            for (size_t i = shown; i < kids.size(); ++i) {
                rest.objects += 1;
                rest.shallow_bytes += heap.size(kids[i]);
                rest.retained_objects += tree.retainedObjects(kids[i]);
                rest.retained_bytes += tree.retainedBytes(kids[i]);
            }
            rest.more = kids.size() - shown;
            rest.label = std::to_string(rest.more) + " more";
            rows.push_back(std::move(rest));
        }
        return rows;
    }

    // Grouped: a row per first value. Classifiers of the shape alone are asked once per shape.
    const HeapView view = heap.withGraph(&graph);
    const bool by_shape = group_by->shapeOnly();
    std::unordered_map<uint32_t, Key> shape_keys;
    std::unordered_map<Key, size_t> group_of;
    std::vector<Key> group_keys, scratch;
    for (uint32_t p : kids) {
        Key key;
        if (by_shape) {
            auto [it, added] = shape_keys.try_emplace(view.shapeId(p), 0);
            if (added) it->second = firstValue(*group_by, view, p, scratch);
            key = it->second;
        } else {
            key = firstValue(*group_by, view, p, scratch);
        }
        auto [it, added] = group_of.try_emplace(key, rows.size());
        if (added) {
            rows.emplace_back();
            group_keys.push_back(key);
        }
        DominatorRow& r = rows[it->second];
        r.members.push_back(p);
        r.objects += 1;
        r.shallow_bytes += heap.size(p);
        r.retained_objects += tree.retainedObjects(p);
        r.retained_bytes += tree.retainedBytes(p);
    }
    for (size_t i = 0; i < rows.size(); ++i) {
        rows[i].label = valueLabel(*group_by, heap.symbols(), group_keys[i]);
        std::sort(rows[i].members.begin(), rows[i].members.end(), before);
    }
    std::sort(rows.begin(), rows.end(), [](const DominatorRow& a, const DominatorRow& b) {
        return a.retained_bytes != b.retained_bytes ? a.retained_bytes > b.retained_bytes : a.label < b.label;
    });
    cut(rows, options);
    return rows;
}

std::vector<uint32_t> topDominators(const DominatorTree& tree) {
    std::vector<uint32_t> top(tree.positions(), kNoPosition);
    std::vector<uint32_t> stack;
    for (uint32_t t : tree.children(tree.superRoot())) {
        stack.push_back(t);
        while (!stack.empty()) {
            const uint32_t p = stack.back();
            stack.pop_back();
            top[p] = t;
            for (uint32_t c : tree.children(p))
                stack.push_back(c);
        }
    }
    return top;
}

}  // namespace memcity
