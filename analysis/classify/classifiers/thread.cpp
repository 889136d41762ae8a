// The `thread` classifier: the allocating thread.
#include "classify/builtin_support.h"

namespace memcity {
namespace {

class ThreadClassifier final : public Classifier {
public:
    std::string spec() const override { return "thread"; }
    Cardinality cardinality() const override { return Cardinality::kOne; }
    bool shapeOnly() const override { return true; }
    void classify(const HeapView& heap, size_t pos, std::vector<Key>& out) const override {
        out.push_back(heap.thread(pos));
    }
    std::string label(const SymbolTable& symbols, Key key) const override {
        if (key == 0) return "<unknown thread>";
        const ThreadInfo& t = symbols.thread(static_cast<uint32_t>(key));
        return t.defined && !t.name.empty() ? t.name : "<thread " + std::to_string(key) + ">";
    }
};

}  // namespace

extern const ClassifierInfo kThreadClassifier{"thread",
                                              "",
                                              "the allocating thread",
                                              "thread",
                                              "the allocating thread",
                                              ClassifierNeeds::kShape,
                                              makePlain<ThreadClassifier>};

}  // namespace memcity
