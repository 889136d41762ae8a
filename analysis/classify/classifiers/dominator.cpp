// The `dominator` classifier: the type of the object's top-level dominator (reads references).
#include "classify/builtin_support.h"
#include "graph/heap_graph.h"

namespace memcity {
namespace {

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

}  // namespace

extern const ClassifierInfo kDominatorClassifier{
    "dominator",
    "",
    "what holds the object: the type of its top-level dominator (below the roots; itself when none)",
    "",
    "",
    ClassifierNeeds::kReferences,
    makeReferencePlain<DominatorClassifier>};

}  // namespace memcity
