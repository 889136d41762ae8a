#include "classify/ref_classifiers.h"

#include <algorithm>
#include <bit>
#include <map>
#include <mutex>
#include <tuple>

#include "graph/heap_graph.h"

namespace memcity {
namespace {

class ReferenceClassifier : public Classifier {
public:
    bool shapeOnly() const override { return false; }
    bool needsReferences() const override { return true; }
};

// Appends the identity path of every root in `ids`, each ended by kPathEnd.
void appendIdentities(const HeapGraph& g, std::span<const uint32_t> ids, std::vector<Key>& out) {
    for (uint32_t id : ids) {
        std::span<const uint64_t> path = g.rootIdentity(id);
        out.insert(out.end(), path.begin(), path.end());
        out.push_back(kPathEnd);
    }
}

// Directly GC-rooted (ManLang18 §4.3.1): root kind -> class -> static field, kind -> thread ->
// method, ... for each root that references the object itself. The paper's options (§3.4):
// `variables` keeps only the roots that are variables (static fields and stack locals); `hide`
// puts the objects no such root references in no group (they count in the parent only).
class DirectRootClassifier final : public ReferenceClassifier {
public:
    DirectRootClassifier(bool variables, bool hide) : variables_(variables), hide_(hide) {}
    std::string spec() const override {
        if (!variables_ && !hide_) return "rooted";
        std::string s = "rooted(";
        if (variables_) s += "variables=1";
        if (hide_) s += std::string(variables_ ? "," : "") + "hide=1";
        return s + ")";
    }
    Cardinality cardinality() const override { return Cardinality::kPaths; }
    void classify(const HeapView& heap, size_t pos, std::vector<Key>& out) const override {
        const HeapGraph* g = heap.graph();
        std::span<const uint32_t> ids = g ? g->directRoots(pos) : std::span<const uint32_t>();
        const size_t first = out.size();
        for (uint32_t id : ids) {
            std::span<const uint64_t> path = g->rootIdentity(id);
            if (variables_ && !isVariable(path)) continue;
            out.insert(out.end(), path.begin(), path.end());
            out.push_back(kPathEnd);
        }
        if (out.size() > first) return;
        if (!hide_) out.push_back(rootkey::kNotDirectlyRooted);
        out.push_back(kPathEnd);  // alone: an empty path, no group
    }
    std::string label(const SymbolTable& symbols, Key key) const override {
        return rootkey::label(symbols, key);
    }

private:
    static bool isVariable(std::span<const uint64_t> identity) {
        if (identity.empty()) return false;
        const uint64_t kind = identity.front();
        return kind == rootkey::make(rootkey::kKind, static_cast<uint64_t>(format::RootKind::kStaticField)) ||
               kind == rootkey::make(rootkey::kKind, static_cast<uint64_t>(format::RootKind::kStackLocal));
    }
    bool variables_, hide_;
};

// Indirectly GC-rooted (ManLang18 §4.3.2), cut at the first roots found: the roots closest to the
// object (fewest references away; all of them when several are as close).
class ClosestRootClassifier final : public ReferenceClassifier {
public:
    std::string spec() const override { return "roots"; }
    Cardinality cardinality() const override { return Cardinality::kPaths; }
    void classify(const HeapView& heap, size_t pos, std::vector<Key>& out) const override {
        const HeapGraph* g = heap.graph();
        std::span<const uint32_t> ids = g ? g->closestRoots(pos) : std::span<const uint32_t>();
        if (ids.empty()) {
            out.push_back(rootkey::kRootNotReported);
            out.push_back(kPathEnd);
            return;
        }
        appendIdentities(*g, ids, out);
    }
    std::string label(const SymbolTable& symbols, Key key) const override {
        return rootkey::label(symbols, key);
    }
};

// The containing data structure (STAG20 §7.2): "java.util.HashMap (allocated in
// IdCache.<clinit>(IdCache.java:12))", "not in a data structure", "in several data structures".
class StructureClassifier final : public ReferenceClassifier {
public:
    static constexpr Key kNone = ~Key{0} - 10, kSeveral = ~Key{0} - 11;
    std::string spec() const override { return "structure"; }
    Cardinality cardinality() const override { return Cardinality::kOne; }
    void classify(const HeapView& heap, size_t pos, std::vector<Key>& out) const override {
        const HeapGraph* g = heap.graph();
        const uint32_t head = g ? g->container(pos) : kNoPosition;
        if (head == kNoPosition)
            out.push_back(kNone);
        else if (head == HeapGraph::kMultipleContainers)
            out.push_back(kSeveral);
        else  // (a position of the graph's heap: a sampled trace's may be past the samples')
            out.push_back((Key{g->heap().type(head)} << 32) | g->heap().site(head));
    }
    std::string label(const SymbolTable& symbols, Key key) const override {
        if (key == kNone) return "not in a data structure";
        if (key == kSeveral) return "in several data structures";
        const auto type = static_cast<uint32_t>(key >> 32), site = static_cast<uint32_t>(key);
        const std::string& name = symbols.type(type).name;
        return (name.empty() ? "<type " + std::to_string(type) + ">" : name) + " (allocated in " +
               symbols.siteLabel(site) + ")";
    }
};

// References to (in) or from (out) the object, in buckets 0, 1, 2, 3–4, 5–8, ...
class DegreeClassifier final : public ReferenceClassifier {
public:
    explicit DegreeClassifier(bool in) : in_(in) {}
    std::string spec() const override { return in_ ? "in-degree" : "out-degree"; }
    Cardinality cardinality() const override { return Cardinality::kOne; }
    void classify(const HeapView& heap, size_t pos, std::vector<Key>& out) const override {
        const HeapGraph* g = heap.graph();
        uint64_t d = 0;
        if (g) d = in_ ? g->reverse().of(pos).size() : g->refs().degree(pos);
        out.push_back(d <= 2 ? d : std::bit_width(d - 1) + 1);  // 3–4 -> 3, 5–8 -> 4, ...
    }
    std::string label(const SymbolTable&, Key key) const override {
        const std::string what = in_ ? "referenced " : "references ";
        if (key <= 2) return what + std::to_string(key) + (key == 1 ? " time" : " times");
        const uint64_t hi = uint64_t{1} << (key - 1), lo = hi / 2 + 1;
        return what + std::to_string(lo) + "–" + std::to_string(hi) + " times";
    }

private:
    bool in_;
};

// What holds the heap: the type of the object's top-level dominator, the ancestor just below the
// super-root of the dominator tree (itself for an object no single object dominates). A sampled
// trace's graph is the whole heap at its snapshot: the dominator is found in it, and may be an
// object the snapshot alone listed.
class DominatorClassifier final : public ReferenceClassifier {
public:
    static constexpr Key kUnreached = ~Key{0} - 10, kNoTree = ~Key{0} - 11;
    std::string spec() const override { return "dominator"; }
    Cardinality cardinality() const override { return Cardinality::kOne; }
    void classify(const HeapView& heap, size_t pos, std::vector<Key>& out) const override {
        const HeapGraph* g = heap.graph();
        std::span<const uint32_t> top = g ? g->topDominators() : std::span<const uint32_t>();
        if (top.empty())
            out.push_back(kNoTree);
        else if (top[pos] == kNoPosition)
            out.push_back(kUnreached);
        else
            out.push_back(g->heap().type(top[pos]));
    }
    std::string label(const SymbolTable& symbols, Key key) const override {
        if (key == kUnreached) return "alive, root not reported";
        if (key == kNoTree) return "no dominator tree";
        const std::string& name = symbols.type(static_cast<uint32_t>(key)).name;
        return name.empty() ? "<type " + std::to_string(key) + ">" : name;
    }
};

// Points-to / pointed-from (ICPE18 §3.7): the object becomes the objects it references (or that
// reference it), each is classified by the inner chain, and the object goes under every distinct
// result once. Inner classifiers of one value give each neighbour one path of one key per
// classifier; others (hierarchies, sets, paths: a nested transformer, ICPE18 Fig. 15) give it
// every combination of their values, and their keys are tokens naming (classifier, depth, key).
class TransformerClassifier final : public ReferenceClassifier {
public:
    TransformerClassifier(bool points_to, ClassifierChain inner)
        : points_to_(points_to), inner_(std::move(inner)) {
        for (const auto& c : inner_.classifiers)
            simple_ = simple_ && c->cardinality() == Cardinality::kOne;
    }
    std::string spec() const override {
        return std::string(points_to_ ? "points-to" : "pointed-from") + "(" + inner_.spec() + ")";
    }
    Cardinality cardinality() const override { return Cardinality::kPaths; }
    void classify(const HeapView& heap, size_t pos, std::vector<Key>& out) const override {
        const HeapGraph* g = heap.graph();
        if (!g) return;
        // The neighbours are positions of the graph's heap: a sampled trace's holds the objects
        // its snapshot listed besides the samples, after them, each standing for itself.
        const HeapView neighbours = g->whole() ? g->heap().withGraph(g) : heap;
        std::vector<std::vector<Key>>& paths = scratchPaths();
        size_t used = 0;
        auto add = [&](uint32_t target) {
            if (simple_)
                addSimple(neighbours, target, used);
            else
                addCombined(neighbours, target, used);
        };
        if (points_to_)
            g->refs().forEachTarget(pos, add);
        else
            for (uint32_t source : g->reverse().of(pos))
                add(source);
        std::sort(paths.begin(), paths.begin() + static_cast<ptrdiff_t>(used));
        for (size_t i = 0; i < used; ++i) {
            if (i > 0 && paths[i] == paths[i - 1]) continue;
            out.insert(out.end(), paths[i].begin(), paths[i].end());
            out.push_back(kPathEnd);
        }
        if (used == 0) {
            out.push_back(kNothing);
            out.push_back(kPathEnd);
        }
    }
    std::string label(const SymbolTable& symbols, Key key) const override {
        return pathLabel(symbols, key, 0);
    }
    std::string pathLabel(const SymbolTable& symbols, Key key, size_t depth) const override {
        if (key == kNothing) return points_to_ ? "references nothing" : "referenced by nothing";
        if (simple_) {
            if (key == kNoValueKey) return "(none)";
            return inner_.classifiers[std::min(depth, inner_.classifiers.size() - 1)]->label(symbols, key);
        }
        Token t;
        {
            std::lock_guard lock(tokens_mutex_);
            if (key == 0 || key > tokens_.size()) return "(none)";
            t = tokens_[key - 1];
        }
        if (t.key == kNoValueKey) return "(none)";
        return inner_.classifiers[t.classifier]->pathLabel(symbols, t.key, t.depth);
    }

private:
    static constexpr Key kNothing = ~Key{0} - 10;
    static constexpr size_t kMaxCombinations = 64;  // per neighbour: more are left out
    struct Token {
        uint32_t classifier = 0, depth = 0;
        Key key = 0;
        auto operator<=>(const Token&) const = default;
    };

    // This thread's paths of the object being classified, reused between objects.
    static std::vector<std::vector<Key>>& scratchPaths() {
        thread_local std::vector<std::vector<Key>> paths;
        return paths;
    }
    // The next path of the scratch, empty.
    static std::vector<Key>& nextPath(size_t& used) {
        std::vector<std::vector<Key>>& paths = scratchPaths();
        if (used == paths.size()) paths.emplace_back();
        std::vector<Key>& p = paths[used++];
        p.clear();
        return p;
    }

    void addSimple(const HeapView& heap, uint32_t target, size_t& used) const {
        thread_local std::vector<Key> values;
        std::vector<Key>& p = nextPath(used);
        for (const auto& c : inner_.classifiers) {
            values.clear();
            c->classify(heap, target, values);
            p.push_back(values.empty() ? kNoValueKey : values.front());
        }
    }

    Key token(uint32_t classifier, uint32_t depth, Key key) const {
        std::lock_guard lock(tokens_mutex_);
        auto [it, added] = token_ids_.try_emplace(Token{classifier, depth, key}, tokens_.size() + 1);
        if (added) tokens_.push_back(Token{classifier, depth, key});
        return it->second;
    }

    // Every combination of the inner classifiers' values for `target`, each a path of tokens.
    void addCombined(const HeapView& heap, uint32_t target, size_t& used) const {
        thread_local std::vector<Key> values;
        std::vector<std::vector<Key>> combos{{}}, next;
        for (uint32_t ci = 0; ci < inner_.classifiers.size(); ++ci) {
            const Classifier& c = *inner_.classifiers[ci];
            values.clear();
            c.classify(heap, target, values);
            // The classifier's alternatives, each a sequence of (depth, key).
            std::vector<std::vector<Key>> alternatives;
            switch (c.cardinality()) {
                case Cardinality::kOne:
                    alternatives.push_back({token(ci, 0, values.empty() ? kNoValueKey : values.front())});
                    break;
                case Cardinality::kHierarchy: {
                    std::vector<Key> a;
                    for (size_t d = 0; d < values.size(); ++d)
                        a.push_back(token(ci, static_cast<uint32_t>(d), values[d]));
                    if (a.empty()) a.push_back(token(ci, 0, kNoValueKey));
                    alternatives.push_back(std::move(a));
                    break;
                }
                case Cardinality::kMany:
                    for (Key v : values)
                        alternatives.push_back({token(ci, 0, v)});
                    if (alternatives.empty()) alternatives.push_back({token(ci, 0, kNoValueKey)});
                    break;
                case Cardinality::kPaths: {
                    std::vector<Key> a;
                    for (Key v : values) {
                        if (v == kPathEnd) {
                            alternatives.push_back(std::move(a));
                            a.clear();
                            continue;
                        }
                        a.push_back(token(ci, static_cast<uint32_t>(a.size()), v));
                    }
                    if (alternatives.empty()) alternatives.push_back({token(ci, 0, kNoValueKey)});
                    break;
                }
            }
            next.clear();
            for (const auto& prefix : combos)
                for (const auto& alt : alternatives) {
                    if (next.size() == kMaxCombinations) break;
                    next.push_back(prefix);
                    next.back().insert(next.back().end(), alt.begin(), alt.end());
                }
            combos.swap(next);
        }
        for (auto& combo : combos)
            nextPath(used) = std::move(combo);
    }

    bool points_to_;
    ClassifierChain inner_;
    bool simple_ = true;
    mutable std::mutex tokens_mutex_;
    mutable std::vector<Token> tokens_;
    mutable std::map<Token, Key> token_ids_;
};

}  // namespace

bool isReferenceClassifier(std::string_view name) {
    const ClassifierInfo* c = findClassifier(name);
    return c && c->needs == ClassifierNeeds::kReferences;
}

Result<std::unique_ptr<Classifier>> makeReferenceClassifier(const std::string& item,
                                                            const std::string& name) {
    const size_t open = item.find('(');
    if (name == "points-to" || name == "pointed-from") {
        std::string inner = "type";
        if (open != std::string::npos) {
            if (item.back() != ')') return Error{"classifier '" + item + "': expected ')' at the end"};
            inner = item.substr(open + 1, item.size() - open - 2);
        }
        auto chain = parseChain(inner);
        if (!chain) return Error{"classifier '" + item + "': " + chain.error().message};
        return std::unique_ptr<Classifier>(
            std::make_unique<TransformerClassifier>(name == "points-to", std::move(*chain)));
    }
    if (name == "rooted") {
        bool variables = false, hide = false;
        if (open != std::string::npos) {
            if (item.back() != ')') return Error{"classifier '" + item + "': expected ')' at the end"};
            const std::string inner = item.substr(open + 1, item.size() - open - 2);
            for (size_t at = 0; at <= inner.size();) {
                const size_t comma = std::min(inner.find(',', at), inner.size());
                const std::string kv = inner.substr(at, comma - at);
                bool* flag = kv.starts_with("variables=") ? &variables
                             : kv.starts_with("hide=")    ? &hide
                                                          : nullptr;
                const std::string value = kv.substr(kv.find('=') + 1);
                if (!flag)
                    return Error{"classifier '" + item + "': unknown parameter '" +
                                 kv.substr(0, kv.find('=')) + "' (parameters: variables, hide)"};
                if (value != "0" && value != "1")
                    return Error{"classifier '" + item + "': " + kv.substr(0, kv.find('=')) +
                                 " expects 0 or 1, got '" + value + "'"};
                *flag = value == "1";
                at = comma + 1;
            }
        }
        return std::unique_ptr<Classifier>(std::make_unique<DirectRootClassifier>(variables, hide));
    }
    if (open != std::string::npos)
        return Error{"classifier '" + item + "': unknown parameter (it takes none)"};
    if (name == "roots") return std::unique_ptr<Classifier>(std::make_unique<ClosestRootClassifier>());
    if (name == "structure") return std::unique_ptr<Classifier>(std::make_unique<StructureClassifier>());
    if (name == "dominator") return std::unique_ptr<Classifier>(std::make_unique<DominatorClassifier>());
    return std::unique_ptr<Classifier>(std::make_unique<DegreeClassifier>(name == "in-degree"));
}

}  // namespace memcity
