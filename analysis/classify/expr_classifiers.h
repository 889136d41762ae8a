// Classifiers written in the expression language: the `{EXPR}` items of a classifier chain.
#pragma once

#include <memory>
#include <string_view>

#include "classify/classifier.h"

namespace memcity {

// A one-to-one classifier whose value is the expression's: `{site.method}`, `{size > 1k}`.
// Errors are the expression's parse errors ("line 1, column 3: ...").
Result<std::unique_ptr<Classifier>> parseExpressionClassifier(std::string_view expression);

}  // namespace memcity
