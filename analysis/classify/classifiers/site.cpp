// The `site` classifier: the allocating frame and some of its callers.
#include <algorithm>

#include "classify/builtin_support.h"
#include "classify/frame_key.h"

namespace memcity {
namespace {

// The allocating frame, then up to `callers` of its callers (one-to-hierarchy, ICPE18 §3.3.3).
class SiteClassifier final : public Classifier {
public:
    explicit SiteClassifier(uint64_t callers) : callers_(callers) {}
    std::string spec() const override {
        return callers_ ? withParams("site", {{"callers", callers_}}) : std::string("site");
    }
    Cardinality cardinality() const override { return Cardinality::kHierarchy; }
    bool shapeOnly() const override { return true; }
    void classify(const HeapView& heap, size_t pos, std::vector<Key>& out) const override {
        std::span<const Frame> frames = heap.symbols().siteFrames(heap.site(pos));
        if (frames.empty()) {
            out.push_back(0);
            return;
        }
        const size_t n = std::min<size_t>(frames.size(), callers_ + 1);
        for (size_t i = 0; i < n; ++i)
            out.push_back(frameKey(frames[i]));
    }
    std::string label(const SymbolTable& symbols, Key key) const override {
        return key == 0 ? "<unknown site>" : symbols.frameLabel(keyFrame(key));
    }

private:
    uint64_t callers_;
};

Result<std::unique_ptr<Classifier>> makeSite(const std::string& item) {
    std::map<std::string, uint64_t> values;
    if (Status ok = takeNumbers(item, {{"callers", 0}}, values); !ok) return ok.error();
    return std::unique_ptr<Classifier>(std::make_unique<SiteClassifier>(values["callers"]));
}

}  // namespace

extern const ClassifierInfo kSiteClassifier{"site",
                                            "callers=N (default 0)",
                                            "the allocating frame, then N of its callers",
                                            "site(callers=N)",
                                            "the allocating frame, then N of its callers (default 0)",
                                            ClassifierNeeds::kShape,
                                            makeSite};

}  // namespace memcity
