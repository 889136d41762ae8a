// The `roots` classifier: the closest GC roots reaching the object (reads references).
#include "classify/builtin_support.h"
#include "graph/heap_graph.h"

namespace memcity {
namespace {

// Appends the identity path of every root in `ids`, each ended by kPathEnd.
void appendIdentities(const HeapGraph& g, std::span<const uint32_t> ids, std::vector<Key>& out) {
    for (uint32_t id : ids) {
        std::span<const uint64_t> path = g.rootIdentity(id);
        out.insert(out.end(), path.begin(), path.end());
        out.push_back(kPathEnd);
    }
}

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

}  // namespace

extern const ClassifierInfo kRootsClassifier{
    "roots",
    "",
    "the closest GC roots reaching the object; 'alive, root not reported' when none does",
    "roots",
    "the closest GC roots reaching it (\"alive, root not reported\" when none)",
    ClassifierNeeds::kReferences,
    makeReferencePlain<ClosestRootClassifier>};

}  // namespace memcity
