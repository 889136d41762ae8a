// The `type` classifier: the object's type.
#include "classify/builtin_support.h"

namespace memcity {
namespace {

class TypeClassifier final : public Classifier {
public:
    std::string spec() const override { return "type"; }
    Cardinality cardinality() const override { return Cardinality::kOne; }
    bool shapeOnly() const override { return true; }
    bool typeOnly() const override { return true; }
    void classify(const HeapView& heap, size_t pos, std::vector<Key>& out) const override {
        out.push_back(heap.type(pos));
    }
    std::string label(const SymbolTable& symbols, Key key) const override {
        const std::string& name = symbols.type(static_cast<uint32_t>(key)).name;
        return name.empty() ? "<type " + std::to_string(key) + ">" : name;
    }
};

}  // namespace

extern const ClassifierInfo kTypeClassifier{"type",
                                            "",
                                            "the object's type: java.util.HashMap, int[]",
                                            "type",
                                            "the object's type",
                                            ClassifierNeeds::kShape,
                                            makePlain<TypeClassifier>};

}  // namespace memcity
