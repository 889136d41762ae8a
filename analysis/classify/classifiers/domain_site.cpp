// The `domain-site` classifier: the first allocating frame outside the library prefixes.
#include <algorithm>

#include "classify/builtin_support.h"
#include "classify/frame_key.h"

namespace memcity {
namespace {

// The closest domain call site (STAG20 §7.2): the first frame of the allocating stack whose
// class is outside the library prefixes, so a String built deep in the JDK is filed under the
// application code that asked for it.
class DomainSiteClassifier final : public Classifier {
public:
    static constexpr std::string_view kDefaultLibraries = "java.|javax.|jdk.|sun.|com.sun.";

    explicit DomainSiteClassifier(std::string libraries) : libraries_text_(std::move(libraries)) {
        for (size_t at = 0; at <= libraries_text_.size();) {
            const size_t bar = std::min(libraries_text_.find('|', at), libraries_text_.size());
            if (bar > at) libraries_.push_back(libraries_text_.substr(at, bar - at));
            at = bar + 1;
        }
    }
    std::string spec() const override {
        return libraries_text_ == kDefaultLibraries ? "domain-site"
                                                    : "domain-site(libraries=" + libraries_text_ + ")";
    }
    Cardinality cardinality() const override { return Cardinality::kOne; }
    bool shapeOnly() const override { return true; }
    void classify(const HeapView& heap, size_t pos, std::vector<Key>& out) const override {
        const SymbolTable& symbols = heap.symbols();
        for (const Frame& f : symbols.siteFrames(heap.site(pos))) {
            const MethodInfo& m = symbols.method(f.method);
            const bool library = std::any_of(libraries_.begin(), libraries_.end(), [&](const std::string& p) {
                return m.class_name.starts_with(p);
            });
            if (!library) {
                out.push_back(frameKey(f));
                return;
            }
        }
        out.push_back(0);
    }
    std::string label(const SymbolTable& symbols, Key key) const override {
        return key == 0 ? "<no domain frame recorded>" : symbols.frameLabel(keyFrame(key));
    }

private:
    std::string libraries_text_;
    std::vector<std::string> libraries_;
};

// Its one parameter is a list of prefixes, not a number.
Result<std::unique_ptr<Classifier>> makeDomainSite(const std::string& item) {
    auto parsed = parseSpec(item);
    if (!parsed) return parsed.error();
    std::string libraries(DomainSiteClassifier::kDefaultLibraries);
    for (const auto& [k, v] : parsed->params) {
        if (k != "libraries")
            return Error{"classifier '" + item + "': unknown parameter '" + k + "' (parameters: libraries)"};
        libraries = v;
    }
    return std::unique_ptr<Classifier>(std::make_unique<DomainSiteClassifier>(std::move(libraries)));
}

}  // namespace

extern const ClassifierInfo kDomainSiteClassifier{
    "domain-site",
    "libraries=P|P... (default java.|javax.|jdk.|sun.|com.sun.)",
    "the closest domain call site: the first allocating frame outside the library prefixes",
    "",
    "",
    ClassifierNeeds::kShape,
    makeDomainSite};

}  // namespace memcity
