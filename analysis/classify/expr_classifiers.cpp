// Filters and classifiers written in the expression language (docs/expressions.md), read
// against a heap: `--filter 'type ~ "java.util.*" && age >= 3'`, `--classify 'type,{site.method}'`.
#include <mutex>
#include <unordered_map>

#include "classify/classifier.h"
#include "classify/expr.h"
#include "classify/expr_classifiers.h"

namespace memcity {
namespace {

using expr::Property;

// One object of a heap, as expressions read it. Strings it makes (site labels) live in the
// accessor, which lives for one evaluation.
class HeapAccessor final : public expr::Accessor {
public:
    HeapAccessor(const HeapView& heap, size_t pos) : heap_(heap), pos_(pos) {}

    int64_t number(Property p) const override {
        switch (p) {
            case Property::kSiteLine: {
                auto frames = heap_.symbols().siteFrames(heap_.site(pos_));
                return frames.empty() ? -1 : frames[0].line;
            }
            case Property::kAge: return heap_.age(pos_);
            case Property::kSize: return static_cast<int64_t>(heap_.size(pos_));
            case Property::kLength: {
                const uint64_t n = heap_.arrayLength(pos_);
                return n == kNoLength ? -1 : static_cast<int64_t>(n);
            }
            case Property::kBorn: return heap_.birthGc(pos_);
            case Property::kId: return static_cast<int64_t>(heap_.id(pos_));
            default: return 0;
        }
    }
    bool boolean(Property p) const override { return p == Property::kArray && heap_.isArray(pos_); }
    std::string_view text(Property p) const override {
        const SymbolTable& symbols = heap_.symbols();
        switch (p) {
            case Property::kType: return symbols.type(heap_.type(pos_)).name;
            case Property::kPackage: return expr::packageOf(symbols.type(heap_.type(pos_)).name);
            case Property::kSite:
            case Property::kSiteMethod:
            case Property::kSiteClass: {
                auto frames = symbols.siteFrames(heap_.site(pos_));
                if (frames.empty()) return p == Property::kSite ? "<unknown site>" : "";
                if (p == Property::kSite) return site_ = symbols.frameLabel(frames[0]);
                const MethodInfo& m = symbols.method(frames[0].method);
                if (p == Property::kSiteClass) return m.class_name;
                return site_method_ = m.class_name + "." + m.name;
            }
            case Property::kThread: return symbols.thread(heap_.thread(pos_)).name;
            case Property::kKind: {
                const uint64_t n = heap_.arrayLength(pos_);
                return n == kNoLength ? "instance" : n < kBigArrayLength ? "small array" : "big array";
            }
            default: return {};
        }
    }

private:
    const HeapView& heap_;
    size_t pos_;
    // One string per property that has to be made, since an expression may hold both at once
    // (site == site.method).
    mutable std::string site_, site_method_;
};

class ExprFilter final : public Filter {
public:
    explicit ExprFilter(expr::Expression e) : e_(std::move(e)) {}
    std::string spec() const override { return e_.source(); }
    bool shapeOnly() const override { return e_.shapeOnly(); }
    bool accept(const HeapView& heap, size_t pos) const override { return e_.test(HeapAccessor(heap, pos)); }

private:
    expr::Expression e_;
};

// {EXPR}: the expression's value is the group.
class ExprClassifier final : public Classifier {
public:
    explicit ExprClassifier(expr::Expression e) : e_(std::move(e)) {}
    std::string spec() const override { return "{" + e_.source() + "}"; }
    Cardinality cardinality() const override { return Cardinality::kOne; }
    bool shapeOnly() const override { return e_.shapeOnly(); }
    void classify(const HeapView& heap, size_t pos, std::vector<Key>& out) const override {
        HeapAccessor a(heap, pos);
        const expr::Value v = e_.evaluate(a);
        switch (v.kind) {
            case expr::ValueKind::kBool: out.push_back(v.boolean ? 1 : 0); break;
            case expr::ValueKind::kNumber: out.push_back(static_cast<Key>(v.number)); break;
            case expr::ValueKind::kString: {
                std::lock_guard lock(mutex_);
                auto [it, added] = ids_.try_emplace(std::string(v.text), names_.size());
                if (added) names_.emplace_back(v.text);
                out.push_back(it->second);
                break;
            }
        }
    }
    std::string label(const SymbolTable&, Key key) const override {
        switch (e_.kind()) {
            case expr::ValueKind::kBool: return key ? "true" : "false";
            case expr::ValueKind::kNumber: return std::to_string(static_cast<int64_t>(key));
            case expr::ValueKind::kString: {
                std::lock_guard lock(mutex_);
                return key < names_.size() ? (names_[key].empty() ? "\"\"" : names_[key]) : "?";
            }
        }
        return "?";
    }

private:
    expr::Expression e_;
    mutable std::mutex mutex_;
    mutable std::unordered_map<std::string, Key> ids_;
    mutable std::vector<std::string> names_;
};

}  // namespace

Result<std::unique_ptr<Filter>> parseFilter(std::string_view expression) {
    auto e = expr::Expression::parse(expression);
    if (!e) return Error{printable(e.error().message, std::string::npos)};
    if (!e->isFilter())  // the expression is echoed on one line (a newline in it is written \n)
        return Error{"'" + printable(expression, std::string::npos) +
                     "' is not a condition (a filter must be true or false, e.g. 'size > 1k')"};
    return std::unique_ptr<Filter>(std::make_unique<ExprFilter>(std::move(*e)));
}

Result<std::unique_ptr<Classifier>> parseExpressionClassifier(std::string_view expression) {
    auto e = expr::Expression::parse(expression);
    if (!e) return e.error();
    return std::unique_ptr<Classifier>(std::make_unique<ExprClassifier>(std::move(*e)));
}

}  // namespace memcity
