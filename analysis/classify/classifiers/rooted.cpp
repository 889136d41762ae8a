// The `rooted` classifier: the GC roots that reference the object itself (reads references).
#include "classify/builtin_support.h"
#include "graph/heap_graph.h"

namespace memcity {
namespace {

// Directly GC-rooted (ManLang18 §4.3.1): root kind -> class -> static field, kind -> thread ->
// method, ... for each root that references the object itself. The paper's options (§3.4):
// `variables` keeps only the roots that are variables (static fields and stack locals); `hide`
// puts the objects no such root references in no group (they count in the parent only).
class DirectRootClassifier final : public ReferenceClassifier {
public:
    DirectRootClassifier(bool variables, bool hide) : variables_(variables), hide_(hide) {}
    std::string spec() const override {
        if (!variables_ && !hide_) return "rooted";
        std::string s = "rooted(";
        if (variables_) s += "variables=1";
        if (hide_) s += std::string(variables_ ? "," : "") + "hide=1";
        return s + ")";
    }
    Cardinality cardinality() const override { return Cardinality::kPaths; }
    void classify(const HeapView& heap, size_t pos, std::vector<Key>& out) const override {
        const HeapGraph* g = heap.graph();
        std::span<const uint32_t> ids = g ? g->directRoots(pos) : std::span<const uint32_t>();
        const size_t first = out.size();
        for (uint32_t id : ids) {
            std::span<const uint64_t> path = g->rootIdentity(id);
            if (variables_ && !isVariable(path)) continue;
            out.insert(out.end(), path.begin(), path.end());
            out.push_back(kPathEnd);
        }
        if (out.size() > first) return;
        if (!hide_) out.push_back(rootkey::kNotDirectlyRooted);
        out.push_back(kPathEnd);  // alone: an empty path, no group
    }
    std::string label(const SymbolTable& symbols, Key key) const override {
        return rootkey::label(symbols, key);
    }

private:
    static bool isVariable(std::span<const uint64_t> identity) {
        if (identity.empty()) return false;
        const uint64_t kind = identity.front();
        return kind == rootkey::make(rootkey::kKind, static_cast<uint64_t>(format::RootKind::kStaticField)) ||
               kind == rootkey::make(rootkey::kKind, static_cast<uint64_t>(format::RootKind::kStackLocal));
    }
    bool variables_, hide_;
};

// Its parameters are 0/1 flags.
Result<std::unique_ptr<Classifier>> makeRooted(const std::string& item) {
    const size_t open = item.find('(');
    bool variables = false, hide = false;
    if (open != std::string::npos) {
        if (item.back() != ')') return Error{"classifier '" + item + "': expected ')' at the end"};
        const std::string inner = item.substr(open + 1, item.size() - open - 2);
        for (size_t at = 0; at <= inner.size();) {
            const size_t comma = std::min(inner.find(',', at), inner.size());
            const std::string kv = inner.substr(at, comma - at);
            bool* flag = kv.starts_with("variables=") ? &variables
                         : kv.starts_with("hide=")    ? &hide
                                                      : nullptr;
            const std::string value = kv.substr(kv.find('=') + 1);
            if (!flag)
                return Error{"classifier '" + item + "': unknown parameter '" + kv.substr(0, kv.find('=')) +
                             "' (parameters: variables, hide)"};
            if (value != "0" && value != "1")
                return Error{"classifier '" + item + "': " + kv.substr(0, kv.find('=')) +
                             " expects 0 or 1, got '" + value + "'"};
            *flag = value == "1";
            at = comma + 1;
        }
    }
    return std::unique_ptr<Classifier>(std::make_unique<DirectRootClassifier>(variables, hide));
}

}  // namespace

extern const ClassifierInfo kRootedClassifier{
    "rooted",
    "",
    "the GC roots referencing the object itself: kind, then class and field, or thread and method",
    "rooted",
    "the GC roots referencing the object: kind, class, static field / thread, method",
    ClassifierNeeds::kReferences,
    makeRooted};

}  // namespace memcity
