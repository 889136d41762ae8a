// The `points-to` and `pointed-from` transformers: the neighbours, by an inner chain (read references).
#include <algorithm>
#include <map>
#include <mutex>

#include "classify/builtin_support.h"
#include "graph/heap_graph.h"

namespace memcity {
namespace {

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

// Their one parameter is an inner chain (default type).
Result<std::unique_ptr<Classifier>> makeTransformer(const std::string& item, bool points_to) {
    const size_t open = item.find('(');
    std::string inner = "type";
    if (open != std::string::npos) {
        if (item.back() != ')') return Error{"classifier '" + item + "': expected ')' at the end"};
        inner = item.substr(open + 1, item.size() - open - 2);
    }
    auto chain = parseChain(inner);
    if (!chain) return Error{"classifier '" + item + "': " + chain.error().message};
    return std::unique_ptr<Classifier>(std::make_unique<TransformerClassifier>(points_to, std::move(*chain)));
}

Result<std::unique_ptr<Classifier>> makePointsTo(const std::string& item) {
    return makeTransformer(item, true);
}

Result<std::unique_ptr<Classifier>> makePointedFrom(const std::string& item) {
    return makeTransformer(item, false);
}

}  // namespace

extern const ClassifierInfo kPointsToClassifier{
    "points-to",
    "(CHAIN) (default type)",
    "the objects it references, classified by CHAIN",
    "points-to(C)",
    "the objects it references, classified by chain C (default type)",
    ClassifierNeeds::kReferences,
    makePointsTo};
extern const ClassifierInfo kPointedFromClassifier{"pointed-from",
                                                   "(CHAIN) (default type)",
                                                   "the objects referencing it, classified by CHAIN",
                                                   "pointed-from(C)",
                                                   "the objects referencing it, classified by chain C",
                                                   ClassifierNeeds::kReferences,
                                                   makePointedFrom};

}  // namespace memcity
