// The `in-degree` and `out-degree` classifiers: references to and from the object (read references).
#include <bit>

#include "classify/builtin_support.h"
#include "graph/heap_graph.h"

namespace memcity {
namespace {

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

}  // namespace

extern const ClassifierInfo kInDegreeClassifier{
    "in-degree",
    "",
    "how many references point to the object, in buckets",
    "in-degree",
    "references to it, in buckets; out-degree: references it holds",
    ClassifierNeeds::kReferences,
    makeReferencePlain<DegreeClassifier, true>};
extern const ClassifierInfo kOutDegreeClassifier{"out-degree",
                                                 "",
                                                 "how many references the object holds, in buckets",
                                                 "",
                                                 "",
                                                 ClassifierNeeds::kReferences,
                                                 makeReferencePlain<DegreeClassifier, false>};

}  // namespace memcity
