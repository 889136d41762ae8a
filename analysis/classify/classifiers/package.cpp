// The `package` classifier: the type's package, outermost first.
#include <mutex>
#include <unordered_map>

#include "classify/builtin_support.h"
#include "classify/expr.h"

namespace memcity {
namespace {

// java -> java.util -> java.util.concurrent, down to `depth` levels (0 = all).
class PackageClassifier final : public Classifier {
public:
    explicit PackageClassifier(uint64_t depth) : depth_(depth) {}
    std::string spec() const override {
        return depth_ ? withParams("package", {{"depth", depth_}}) : std::string("package");
    }
    Cardinality cardinality() const override { return Cardinality::kHierarchy; }
    bool shapeOnly() const override { return true; }
    bool typeOnly() const override { return true; }
    void classify(const HeapView& heap, size_t pos, std::vector<Key>& out) const override {
        // Arrays belong to their element type's package; primitives and their arrays to none.
        const std::string_view package = expr::packageOf(heap.symbols().type(heap.type(pos)).name);
        if (package.empty()) {
            out.push_back(intern("(no package)"));
            return;
        }
        uint64_t levels = 0;
        for (size_t dot = package.find('.');; dot = package.find('.', dot + 1)) {
            out.push_back(intern(std::string(package.substr(0, dot))));
            if (++levels == depth_ || dot == std::string_view::npos) break;
        }
    }
    std::string label(const SymbolTable&, Key key) const override {
        std::lock_guard lock(mutex_);
        return key < names_.size() ? names_[key] : "?";
    }

private:
    Key intern(const std::string& s) const {
        std::lock_guard lock(mutex_);
        auto [it, added] = ids_.try_emplace(s, names_.size());
        if (added) names_.push_back(s);
        return it->second;
    }
    uint64_t depth_;
    mutable std::mutex mutex_;
    mutable std::unordered_map<std::string, Key> ids_;
    mutable std::vector<std::string> names_;
};

Result<std::unique_ptr<Classifier>> makePackage(const std::string& item) {
    std::map<std::string, uint64_t> values;
    if (Status ok = takeNumbers(item, {{"depth", 0}}, values); !ok) return ok.error();
    return std::unique_ptr<Classifier>(std::make_unique<PackageClassifier>(values["depth"]));
}

}  // namespace

extern const ClassifierInfo kPackageClassifier{"package",
                                               "depth=N (default: all levels)",
                                               "the type's package, outermost first: java, java.util",
                                               "package(depth=N)",
                                               "the type's package, outermost first (default: all levels)",
                                               ClassifierNeeds::kShape,
                                               makePackage};

}  // namespace memcity
