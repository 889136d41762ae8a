// The `calls` classifier: every method on the allocating stack.
#include <algorithm>

#include "classify/builtin_support.h"

namespace memcity {
namespace {

// Every method on the allocating stack (one-to-many): an object counts under each of them once.
class CallSitesClassifier final : public Classifier {
public:
    std::string spec() const override { return "calls"; }
    Cardinality cardinality() const override { return Cardinality::kMany; }
    bool shapeOnly() const override { return true; }
    void classify(const HeapView& heap, size_t pos, std::vector<Key>& out) const override {
        const size_t first = out.size();
        for (const Frame& f : heap.symbols().siteFrames(heap.site(pos)))
            if (std::find(out.begin() + static_cast<ptrdiff_t>(first), out.end(), Key{f.method}) == out.end())
                out.push_back(f.method);
    }
    std::string label(const SymbolTable& symbols, Key key) const override {
        const MethodInfo& m = symbols.method(static_cast<uint32_t>(key));
        return m.defined ? m.class_name + "." + m.name : "<method " + std::to_string(key) + ">";
    }
};

}  // namespace

extern const ClassifierInfo kCallsClassifier{
    "calls",
    "",
    "every method on the allocating stack (an object counts under each once)",
    "calls",
    "every method on the allocating stack (an object counts under each once)",
    ClassifierNeeds::kShape,
    makePlain<CallSitesClassifier>};

}  // namespace memcity
