// The `structure` classifier: the data structure holding the object (reads references).
#include "classify/builtin_support.h"
#include "graph/heap_graph.h"

namespace memcity {
namespace {

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

}  // namespace

extern const ClassifierInfo kStructureClassifier{
    "structure",
    "",
    "the data structure holding the object: java.util.HashMap (allocated in ...)",
    "structure",
    "the data structure holding it: java.util.HashMap (allocated in ...)",
    ClassifierNeeds::kReferences,
    makeReferencePlain<StructureClassifier>};

}  // namespace memcity
