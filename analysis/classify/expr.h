// Expressions that users type to filter and classify heap objects:
//
//     type ~ "java.util.*" && age >= 3        a filter (its value is a bool)
//     site.method                             a classifier (its value is the group key)
//
// Expression::parse checks the text once (syntax and kinds) and compiles it into a flat node
// array; evaluate() and test() then walk that array without allocating, reading each property
// only when the walk reaches it (&& and || short-circuit). The language is described for users
// in docs/expressions.md.
#pragma once

#include <cstdint>
#include <string>
#include <string_view>
#include <vector>

#include "util/result.h"

namespace memcity::expr {

// What an expression can read of one object.
enum class Property : uint8_t {
    kType,        // string: Java type name, "java.util.HashMap", "int[]", "java.lang.String[][]"
    kPackage,     // string: "type.package", "java.util"; "" for primitives and the default package
    kSite,        // string: the allocating frame, "java.util.HashMap.resize(HashMap.java:704)"
    kSiteMethod,  // string: "site.method", "java.util.HashMap.resize"
    kSiteClass,   // string: "site.class", "java.util.HashMap"
    kSiteLine,    // number: "site.line", source line of the allocating frame, -1 = unknown
    kThread,      // string: "thread" or "thread.name", the allocating thread's name
    kAge,         // number: GCs survived (1 for an object born since the last GC)
    kSize,        // number: bytes
    kLength,      // number: array length, -1 for instances
    kKind,        // string: "instance", "small array" or "big array"
    kArray,       // bool: the object is an array
    kBorn,        // number: index of the first GC the object lived through
    kId,          // number: object id
};
inline constexpr int kPropertyCount = 14;

// The kind of a value; every expression and sub-expression has one, fixed at parse time.
enum class ValueKind : uint8_t {
    kBool,    // true or false
    kNumber,  // a signed 64-bit integer
    kString,  // bytes, normally UTF-8
};

// The value of an expression for one object. Only the member named by `kind` is meaningful.
// `text` points into the Accessor's data (for a property) or into the Expression (for a string
// literal): it is valid while both live and are not changed.
struct Value {
    ValueKind kind = ValueKind::kBool;
    bool boolean = false;
    int64_t number = 0;
    std::string_view text;
};

// What an expression reads of one object; the caller implements it over its heap view. Each
// function is called only with properties of its kind (propertyKind): number() with kSiteLine,
// kAge, kSize, kLength, kBorn, kId; boolean() with kArray; text() with the rest. A returned
// string_view must stay valid until test() returns, and for evaluate() as long as the caller uses
// the Value it returned.
class Accessor {
public:
    virtual ~Accessor() = default;
    virtual int64_t number(Property p) const = 0;
    virtual bool boolean(Property p) const = 0;
    virtual std::string_view text(Property p) const = 0;
};

// Where in the source a parse error was found. Lines and columns start at 1; a column counts
// characters (UTF-8 code points), a tab counts as one. `offset` is in bytes.
struct SourcePosition {
    uint32_t line = 1;
    uint32_t column = 1;
    size_t offset = 0;
};

class Expression {
public:
    // The constant `true`: a filter that keeps every object.
    Expression();

    // Parses and type-checks `source`. On failure the error message is one line,
    // "line L, column C: what was expected, found what" (see docs/expressions.md), and
    // `*error_at` (when not null) receives the same position.
    static Result<Expression> parse(std::string_view source, SourcePosition* error_at = nullptr);

    // The kind of the whole expression.
    ValueKind kind() const { return kind_; }
    // A filter is an expression whose value is a bool.
    bool isFilter() const { return kind() == ValueKind::kBool; }
    // True when the expression reads only type, type.package, site*, thread* and array (or
    // nothing): the caller may then evaluate it once per (type, site, thread, is-array)
    // combination instead of once per object.
    bool shapeOnly() const { return (properties_ & ~kShapeProperties) == 0; }
    // The properties the expression reads, as a bit mask: bit (1u << Property).
    uint32_t properties() const { return properties_; }
    bool reads(Property p) const { return (properties_ >> static_cast<unsigned>(p)) & 1u; }

    // The value of the expression for the object `a` describes. Does not allocate; reads only
    // the properties it needs. A string result is valid as Value::text says. evaluate() and
    // test() change nothing: one Expression may serve several threads at once.
    Value evaluate(const Accessor& a) const;
    // Contract: isFilter(). Whether the object passes the filter; false for other expressions.
    bool test(const Accessor& a) const { return kind_ == ValueKind::kBool && truth(root_, a); }

    // The text the expression was parsed from ("true" for a default-constructed one).
    const std::string& source() const { return source_; }

    // Properties that depend only on an object's shape (type, site, thread, is-array).
    static constexpr uint32_t kShapeProperties =
        1u << static_cast<unsigned>(Property::kType) | 1u << static_cast<unsigned>(Property::kPackage) |
        1u << static_cast<unsigned>(Property::kSite) | 1u << static_cast<unsigned>(Property::kSiteMethod) |
        1u << static_cast<unsigned>(Property::kSiteClass) | 1u << static_cast<unsigned>(Property::kSiteLine) |
        1u << static_cast<unsigned>(Property::kThread) | 1u << static_cast<unsigned>(Property::kArray);

private:
    class Parser;

    enum class Op : uint8_t {
        kConstant,   // bool/number: `number`; string: strings_[a, a + b)
        kProperty,   // `property`
        kAnd,        // operands_[a, a + b), all bools
        kOr,         // operands_[a, a + b), all bools
        kNot,        // !nodes_[a]
        kCompare,    // nodes_[a] `compare` nodes_[b], numbers
        kEqual,      // nodes_[a] == nodes_[b] (negated when `negate`), same kind, not both strings
        kEqualText,  // strings; both sides read, compared bytewise (negated when `negate`)
        kMatch,      // text of nodes_[a] matches the pattern strings_[b, b + c) in `glob` mode
    };
    enum class Compare : uint8_t { kLess, kLessEqual, kGreater, kGreaterEqual };
    enum class Glob : uint8_t {
        kExact,     // no wildcard: the whole string equals the pattern
        kPrefix,    // "abc*"
        kSuffix,    // "*abc"
        kContains,  // "*abc*"
        kAny,       // "*", "**": every string
        kGeneral,   // anything else, matched with backtracking over the last '*'
    };
    struct Node {
        Op op = Op::kConstant;
        ValueKind kind = ValueKind::kBool;
        Property property = Property::kType;
        Compare compare = Compare::kLess;
        Glob glob = Glob::kExact;
        bool negate = false;
        uint32_t a = 0, b = 0, c = 0;
        int64_t number = 0;
    };

    bool truth(uint32_t index, const Accessor& a) const;
    int64_t numberOf(uint32_t index, const Accessor& a) const;
    std::string_view textOf(uint32_t index, const Accessor& a) const;
    bool matches(const Node& n, std::string_view text) const;

    std::vector<Node> nodes_;
    std::vector<uint32_t> operands_;  // children of kAnd / kOr nodes
    std::string strings_;             // string literals and patterns, unescaped
    std::string source_;
    uint32_t root_ = 0;
    uint32_t properties_ = 0;
    ValueKind kind_ = ValueKind::kBool;
};

// The canonical name of a property: "type", "type.package", "site.method", "thread", ...
std::string_view propertyName(Property p);
// The kind of value a property has.
ValueKind propertyKind(Property p);
// Looks a name up as the language does ("thread.name" is kThread). False when unknown.
bool findProperty(std::string_view name, Property* p);

// A value as a group label: the string itself, the number in decimal, "true" or "false".
std::string toString(const Value& v);

// The package of a Java type name, as `type.package` reads it: "java.util" for
// "java.util.HashMap" and "java.util.HashMap$Node[]"; "" for "int", "int[][]" and types in the
// default package.
std::string_view packageOf(std::string_view type_name);

// Whether `text` matches the glob `pattern` as the '~' operator does: '*' matches any run of
// characters (also none), '?' exactly one character (a UTF-8 code point), anything else itself;
// the whole of `text` must match. Does not allocate.
bool globMatch(std::string_view text, std::string_view pattern);

}  // namespace memcity::expr
