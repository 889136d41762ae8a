// What the built-in classifiers (classify/classifiers/*.cpp, one file each) share: naming a spec
// back, parsing parameters, the factories of those that take none, and the base of those that
// read references. Internal to classify/: the rest of memcity reads classify/classifier.h.
#pragma once

#include <cstdint>
#include <initializer_list>
#include <map>
#include <memory>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include "classify/classifier.h"
#include "util/result.h"

namespace memcity {

// Names made of parameters, shown back to the user: "site(callers=2)".
std::string withParams(std::string_view name, const std::vector<std::pair<std::string, uint64_t>>& params);

// A spec split into its name and its PARAM=VALUE pairs: "site(callers=2)".
struct ParsedSpec {
    std::string name;
    std::vector<std::pair<std::string, std::string>> params;
};
Result<ParsedSpec> parseSpec(const std::string& item);

// Reads the whole-number parameters of `item` into `values`: each of `allowed` (its name, its
// default) and no other. Errors name the spec and what was expected.
Status takeNumbers(const std::string& item, std::initializer_list<std::pair<const char*, uint64_t>> allowed,
                   std::map<std::string, uint64_t>& values);

// A classifier that takes no parameters.
template <typename C>
Result<std::unique_ptr<Classifier>> makePlain(const std::string& item) {
    std::map<std::string, uint64_t> values;
    if (Status ok = takeNumbers(item, {}, values); !ok) return ok.error();
    return std::unique_ptr<Classifier>(std::make_unique<C>());
}

// The base of the classifiers that read the heap's references (HeapView::graph(), graph/heap_graph.h).
class ReferenceClassifier : public Classifier {
public:
    bool shapeOnly() const override { return false; }
    bool needsReferences() const override { return true; }
};

// A reference classifier that takes no parameters, made with `args`. (Their entries need
// ClassifierNeeds::kReferences, so parseChain hands them the whole spec unparsed.)
template <typename C, auto... args>
Result<std::unique_ptr<Classifier>> makeReferencePlain(const std::string& item) {
    if (item.find('(') != std::string::npos)
        return Error{"classifier '" + item + "': unknown parameter (it takes none)"};
    return std::unique_ptr<Classifier>(std::make_unique<C>(args...));
}

}  // namespace memcity
