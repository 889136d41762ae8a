// The `size` classifier: object size in power-of-two buckets.
#include <bit>

#include "classify/builtin_support.h"

namespace memcity {
namespace {

// Object size in power-of-two buckets: "17 B – 32 B", "1025 B – 2 KiB".
class SizeClassifier final : public Classifier {
public:
    std::string spec() const override { return "size"; }
    Cardinality cardinality() const override { return Cardinality::kOne; }
    bool shapeOnly() const override { return false; }
    void classify(const HeapView& heap, size_t pos, std::vector<Key>& out) const override {
        const uint64_t s = heap.size(pos);
        out.push_back(s <= 1 ? 0 : static_cast<Key>(std::bit_width(s - 1)));
    }
    std::string label(const SymbolTable&, Key key) const override {
        if (key == 0) return "0 B – 1 B";
        const uint64_t hi = uint64_t{1} << key, lo = hi / 2 + 1;
        auto bytes = [](uint64_t b) {
            if (b >= (uint64_t{1} << 30) && b % (uint64_t{1} << 30) == 0)
                return std::to_string(b >> 30) + " GiB";
            if (b >= (uint64_t{1} << 20) && b % (uint64_t{1} << 20) == 0)
                return std::to_string(b >> 20) + " MiB";
            if (b >= 1024 && b % 1024 == 0) return std::to_string(b >> 10) + " KiB";
            return std::to_string(b) + " B";
        };
        return lo == hi ? bytes(hi) : std::to_string(lo) + " B – " + bytes(hi);
    }
};

}  // namespace

extern const ClassifierInfo kSizeClassifier{"size",
                                            "",
                                            "object size in power-of-two buckets",
                                            "size",
                                            "object size in power-of-two buckets",
                                            ClassifierNeeds::kObject,
                                            makePlain<SizeClassifier>};

}  // namespace memcity
