// The `kind` classifier: instance, small array or big array.
#include "classify/builtin_support.h"

namespace memcity {
namespace {

// Instance, small array or big array (length >= big).
class KindClassifier final : public Classifier {
public:
    explicit KindClassifier(uint64_t big) : big_(big) {}
    std::string spec() const override {
        return big_ == kBigArrayLength ? "kind" : withParams("kind", {{"big", big_}});
    }
    Cardinality cardinality() const override { return Cardinality::kOne; }
    bool shapeOnly() const override { return false; }
    void classify(const HeapView& heap, size_t pos, std::vector<Key>& out) const override {
        const uint64_t n = heap.arrayLength(pos);
        out.push_back(n == kNoLength ? 0 : n < big_ ? 1 : 2);
    }
    std::string label(const SymbolTable&, Key key) const override {
        return key == 0 ? "instance" : key == 1 ? "small array" : "big array";
    }

private:
    uint64_t big_;
};

Result<std::unique_ptr<Classifier>> makeKind(const std::string& item) {
    std::map<std::string, uint64_t> values;
    if (Status ok = takeNumbers(item, {{"big", kBigArrayLength}}, values); !ok) return ok.error();
    if (values["big"] == 0) return Error{"classifier '" + item + "': big must be at least 1"};
    return std::unique_ptr<Classifier>(std::make_unique<KindClassifier>(values["big"]));
}

}  // namespace

extern const ClassifierInfo kKindClassifier{"kind",
                                            "big=N (default 256)",
                                            "instance, small array, big array (length >= N)",
                                            "kind(big=N)",
                                            "instance, small array, big array (length >= N, default 256)",
                                            ClassifierNeeds::kObject,
                                            makeKind};

}  // namespace memcity
