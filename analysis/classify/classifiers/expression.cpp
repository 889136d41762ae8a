// The `{EXPR}` entry: a classifier from an expression (classify/expr_classifiers.h makes it).
#include "classify/builtin_support.h"
#include "classify/expr_classifiers.h"

namespace memcity {
namespace {

// "{EXPR}": the expression between the braces.
Result<std::unique_ptr<Classifier>> makeExpression(const std::string& item) {
    auto c = parseExpressionClassifier(std::string_view(item).substr(1, item.size() - 2));
    if (!c) return Error{"classifier '" + item + "': " + c.error().message};
    return c;
}

}  // namespace

extern const ClassifierInfo kExpressionClassifier{
    "{EXPR}",
    "",
    "the value of an expression (docs/expressions.md): {site.method}, {size > 1k}",
    "{EXPR}",
    "the value of an expression, e.g. {site.method} or {size > 1k}",
    ClassifierNeeds::kObject,
    makeExpression};

}  // namespace memcity
