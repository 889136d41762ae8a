// Object classifiers and filters (ICPE18 §3.3): a classifier maps a live object to one value
// (one-to-one), a set of values (one-to-many) or a path of values (one-to-hierarchy); a filter
// decides whether the object is classified at all. Values are 64-bit keys that the classifier
// names on demand, so classifying millions of objects builds no strings.
//
// A classifier chain ("type,site(callers=2)") is parsed by parseChain; docs/classifiers.md lists
// the classifiers and their parameters.
#pragma once

#include <cstdint>
#include <memory>
#include <string>
#include <string_view>
#include <vector>

#include "heap/heap_state.h"
#include "util/result.h"

namespace memcity {

using Key = uint64_t;

// Arrays of at least this many elements are "big arrays" (the kind classifier's default and the
// expression language's `kind`); shorter ones are "small arrays".
inline constexpr uint64_t kBigArrayLength = 256;

enum class Cardinality : uint8_t {
    kOne,        // exactly one value: the object goes to one child
    kMany,       // a set of distinct values: the object goes to each child, counted once above them
    kHierarchy,  // a path of values, outermost first: the object goes down the path
    kPaths,      // several paths, each ended by kPathEnd: the object goes down each, counted once
                 // in every node they share (the roots that reference an object, kind -> class ->
                 // field; the objects an object points to, classified by an inner chain)
};

// The value a one-to-many classifier gives an object for which it has no value.
inline constexpr Key kNoValueKey = ~Key{0} - 1;
// Ends one path of a kPaths classifier's values.
inline constexpr Key kPathEnd = ~Key{0} - 2;

class Classifier {
public:
    virtual ~Classifier() = default;

    // The spec it was made from, as the user would write it: "site(callers=2)".
    virtual std::string spec() const = 0;
    virtual Cardinality cardinality() const = 0;
    // True when the values depend only on the object's shape (type, site, thread): the tree builder
    // then classifies one object per shape instead of every object.
    virtual bool shapeOnly() const = 0;
    // Appends the object's values to `out` (kOne: exactly one; kMany: distinct, maybe none;
    // kHierarchy: the path, outermost first, at least one).
    virtual void classify(const HeapView& heap, size_t pos, std::vector<Key>& out) const = 0;
    // The name of a value as trees show it: "java.util.HashMap", "age 3".
    virtual std::string label(const SymbolTable& symbols, Key key) const = 0;
    // The name of the value at `depth` of a path (kHierarchy, kPaths); label() unless overridden.
    virtual std::string pathLabel(const SymbolTable& symbols, Key key, size_t depth) const {
        (void)depth;
        return label(symbols, key);
    }
    // True when the classifier reads the heap's references (HeapView::graph() must be set).
    virtual bool needsReferences() const { return false; }
    // True when the values depend only on the object's type (type, package): a group of such
    // values is a set of whole types, which a census counts exactly (heap/sampling.h).
    virtual bool typeOnly() const { return false; }
};

class Filter {
public:
    virtual ~Filter() = default;
    virtual std::string spec() const = 0;
    virtual bool shapeOnly() const = 0;
    // True when the object is to be classified.
    virtual bool accept(const HeapView& heap, size_t pos) const = 0;
};

// Classifiers applied one after another, and the filters every classified object passes.
struct ClassifierChain {
    std::vector<std::unique_ptr<Classifier>> classifiers;
    std::vector<std::unique_ptr<Filter>> filters;

    bool shapeOnly() const;
    bool needsReferences() const;
    std::string spec() const;  // "type,site(callers=2)"
};

// Parses a comma-separated list of classifier specs: NAME or NAME(PARAM=VALUE,...). Errors name
// the spec and what was expected: "classifier 'sitee': unknown (classifiers: type, package, ...)".
Result<ClassifierChain> parseChain(std::string_view text);

// A filter from the expression language (docs/expressions.md).
Result<std::unique_ptr<Filter>> parseFilter(std::string_view expression);

// What a classifier reads besides the object's shape.
enum class ClassifierNeeds : uint8_t {
    kShape,       // the shape only (type, site, thread): counted once per shape (shapeOnly())
    kObject,      // the object's own record too (its age, array length, size)
    kReferences,  // the heap's references: a GC with a reference snapshot (needsReferences())
};

// One built-in classifier: the one table that parseChain, the menus, the help's list and
// isReferenceClassifier read. Adding a classifier is its own file, classify/classifiers/NAME.cpp
// (its class, its factory and its entry), and one line in the list in builtin_classifiers.cpp
// (docs/hacking.md says how; docs/classifiers.md describes them for users).
struct ClassifierInfo {
    std::string_view name;     // what a chain calls it: "site"; "{EXPR}" for an expression
    std::string_view params;   // "callers=N (default 0)", for the menus
    std::string_view summary;  // one line, for the menus
    std::string_view usage;    // its entry in classifierListing(): "site(callers=N)"; empty: none
    std::string_view help;     // the line there
    ClassifierNeeds needs;
    // Makes one from its whole spec ("site(callers=2)"); errors name the spec.
    Result<std::unique_ptr<Classifier>> (*make)(const std::string& item);
};
// The table, in the order menus and "unknown classifier" errors list it.
const std::vector<ClassifierInfo>& builtinClassifiers();
// The entry named `name` (null when none; "{EXPR}" is found by its braces, not by name).
const ClassifierInfo* findClassifier(std::string_view name);
// The classifiers as `memcity report --help` lists them: one "  USAGE  HELP" line each, the
// ones that read references after a line that says so.
std::string classifierListing();

}  // namespace memcity
