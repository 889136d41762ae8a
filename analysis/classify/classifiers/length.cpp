// The `length` classifier: array length, exact or in buckets.
#include <bit>

#include "classify/builtin_support.h"

namespace memcity {
namespace {

// Array length: exact, or in power-of-two buckets with buckets=1.
class LengthClassifier final : public Classifier {
public:
    explicit LengthClassifier(bool buckets) : buckets_(buckets) {}
    std::string spec() const override { return buckets_ ? "length(buckets=1)" : "length"; }
    Cardinality cardinality() const override { return Cardinality::kOne; }
    bool shapeOnly() const override { return false; }
    void classify(const HeapView& heap, size_t pos, std::vector<Key>& out) const override {
        const uint64_t n = heap.arrayLength(pos);
        if (n == kNoLength)
            out.push_back(kInstance);
        else
            out.push_back(buckets_ ? (n == 0 ? 0 : std::bit_width(n - 1) + 1) : n);
    }
    std::string label(const SymbolTable&, Key key) const override {
        if (key == kInstance) return "not an array";
        if (!buckets_) return "length " + std::to_string(key);
        if (key <= 1) return "length " + std::to_string(key);
        const uint64_t hi = uint64_t{1} << (key - 1), lo = hi / 2 + 1;
        return "length " + std::to_string(lo) + (lo == hi ? "" : "–" + std::to_string(hi));
    }

private:
    static constexpr Key kInstance = ~Key{0};
    bool buckets_;
};

Result<std::unique_ptr<Classifier>> makeLength(const std::string& item) {
    std::map<std::string, uint64_t> values;
    if (Status ok = takeNumbers(item, {{"buckets", 0}}, values); !ok) return ok.error();
    return std::unique_ptr<Classifier>(std::make_unique<LengthClassifier>(values["buckets"] != 0));
}

}  // namespace

extern const ClassifierInfo kLengthClassifier{"length",
                                              "buckets=1 (default 0)",
                                              "array length, exact or in power-of-two buckets",
                                              "length(buckets=1)",
                                              "array length, exact or in power-of-two buckets",
                                              ClassifierNeeds::kObject,
                                              makeLength};

}  // namespace memcity
