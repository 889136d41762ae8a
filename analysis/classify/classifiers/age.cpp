// The `age` classifier: GCs survived.
#include "classify/builtin_support.h"

namespace memcity {
namespace {

// GCs survived, up to and including the heap's GC (1: born since the previous GC).
class AgeClassifier final : public Classifier {
public:
    std::string spec() const override { return "age"; }
    Cardinality cardinality() const override { return Cardinality::kOne; }
    bool shapeOnly() const override { return false; }
    void classify(const HeapView& heap, size_t pos, std::vector<Key>& out) const override {
        out.push_back(heap.age(pos));
    }
    std::string label(const SymbolTable&, Key key) const override { return "age " + std::to_string(key); }
};

}  // namespace

extern const ClassifierInfo kAgeClassifier{"age",
                                           "",
                                           "GCs survived (1: born since the previous GC)",
                                           "age",
                                           "GCs survived (1: born since the previous GC)",
                                           ClassifierNeeds::kObject,
                                           makePlain<AgeClassifier>};

}  // namespace memcity
