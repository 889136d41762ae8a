// The filter and classifier expression language: parsing, kinds, evaluation and exact error
// messages, on one hand-made object.
#include <gtest/gtest.h>

#include <string>

#include "classify/expr.h"

namespace memcity::expr {
namespace {

// One object with every property set; counts the reads so tests can see what was evaluated.
struct FakeObject : Accessor {
    std::string type = "java.util.HashMap";
    std::string package = "java.util";
    std::string site = "java.util.HashMap.resize(HashMap.java:704)";
    std::string site_method = "java.util.HashMap.resize";
    std::string site_class = "java.util.HashMap";
    int64_t site_line = 704;
    std::string thread = "main";
    int64_t age = 3;
    int64_t size = 48;
    int64_t length = -1;
    std::string kind = "instance";
    bool array = false;
    int64_t born = 7;
    int64_t id = 1234;
    mutable uint32_t reads = 0;  // bit mask of the properties read
    mutable int read_count = 0;

    void note(Property p) const {
        reads |= 1u << static_cast<unsigned>(p);
        ++read_count;
    }
    int64_t number(Property p) const override {
        note(p);
        switch (p) {
            case Property::kSiteLine: return site_line;
            case Property::kAge: return age;
            case Property::kSize: return size;
            case Property::kLength: return length;
            case Property::kBorn: return born;
            case Property::kId: return id;
            default: ADD_FAILURE() << "number() asked for " << propertyName(p); return 0;
        }
    }
    bool boolean(Property p) const override {
        note(p);
        if (p != Property::kArray) ADD_FAILURE() << "boolean() asked for " << propertyName(p);
        return array;
    }
    std::string_view text(Property p) const override {
        note(p);
        switch (p) {
            case Property::kType: return type;
            case Property::kPackage: return package;
            case Property::kSite: return site;
            case Property::kSiteMethod: return site_method;
            case Property::kSiteClass: return site_class;
            case Property::kThread: return thread;
            case Property::kKind: return kind;
            default: ADD_FAILURE() << "text() asked for " << propertyName(p); return {};
        }
    }
};

Expression parseOk(std::string_view source) {
    auto r = Expression::parse(source);
    EXPECT_TRUE(r.ok()) << source << ": " << (r.ok() ? "" : r.error().message);
    return r.ok() ? std::move(r).value() : Expression();
}

// Parses a filter and tests it on `o`; a parse failure or a non-filter fails the test.
bool passes(std::string_view source, const FakeObject& o = FakeObject()) {
    auto r = Expression::parse(source);
    EXPECT_TRUE(r.ok()) << source << ": " << (r.ok() ? "" : r.error().message);
    if (!r.ok()) return false;
    EXPECT_TRUE(r->isFilter()) << source;
    EXPECT_EQ(r->evaluate(o).boolean, r->test(o)) << source;
    return r->test(o);
}

std::string errorOf(std::string_view source) {
    auto r = Expression::parse(source);
    EXPECT_FALSE(r.ok()) << source << " parsed";
    return r.ok() ? std::string() : r.error().message;
}

TEST(Expr, LiteralsHaveTheirKindsAndValues) {
    FakeObject o;
    Expression n = parseOk("42");
    EXPECT_EQ(n.kind(), ValueKind::kNumber);
    EXPECT_FALSE(n.isFilter());
    EXPECT_EQ(n.evaluate(o).kind, ValueKind::kNumber);
    EXPECT_EQ(n.evaluate(o).number, 42);
    Expression s = parseOk("\"abc\"");
    EXPECT_EQ(s.kind(), ValueKind::kString);
    EXPECT_EQ(s.evaluate(o).text, "abc");
    Expression t = parseOk("true");
    EXPECT_EQ(t.kind(), ValueKind::kBool);
    EXPECT_TRUE(t.isFilter());
    EXPECT_TRUE(t.test(o));
    EXPECT_FALSE(parseOk("false").test(o));
    EXPECT_EQ(parseOk("-17").evaluate(o).number, -17);
    EXPECT_EQ(parseOk("007").evaluate(o).number, 7);
    EXPECT_EQ(o.read_count, 0);
}

TEST(Expr, SizeSuffixes) {
    FakeObject o;
    const std::pair<const char*, int64_t> cases[] = {
        {"1k", 1024},
        {"2K", 2048},
        {"3kb", 3072},
        {"1KB", 1024},
        {"1kB", 1024},
        {"1m", 1 << 20},
        {"5M", 5 << 20},
        {"1mb", 1 << 20},
        {"2MB", 2 << 20},
        {"1g", int64_t{1} << 30},
        {"3G", int64_t{3} << 30},
        {"1gb", int64_t{1} << 30},
        {"4GB", int64_t{4} << 30},
        {"-2k", -2048},
        {"0k", 0},
    };
    for (auto [source, value] : cases)
        EXPECT_EQ(parseOk(source).evaluate(o).number, value) << source;
    o.size = 1500;
    EXPECT_TRUE(passes("size > 1k", o));
    EXPECT_FALSE(passes("size >= 2kb", o));
}

TEST(Expr, NumberLimits) {
    FakeObject o;
    EXPECT_EQ(parseOk("9223372036854775807").evaluate(o).number, INT64_MAX);
    EXPECT_EQ(parseOk("-9223372036854775808").evaluate(o).number, INT64_MIN);
    EXPECT_EQ(parseOk("8589934591g").evaluate(o).number, int64_t{8589934591} << 30);
    EXPECT_EQ(errorOf("size > 9223372036854775808"),
              "line 1, column 8: expected a number from -9223372036854775808 to 9223372036854775807, "
              "found 9223372036854775808");
    EXPECT_EQ(errorOf("99999999999999999999"),
              "line 1, column 1: expected a number from -9223372036854775808 to 9223372036854775807, "
              "found 99999999999999999999");
    EXPECT_EQ(errorOf("-9223372036854775809"),
              "line 1, column 1: expected a number from -9223372036854775808 to 9223372036854775807, "
              "found -9223372036854775809");
    EXPECT_EQ(errorOf("8589934592g"),
              "line 1, column 1: expected a number from -9223372036854775808 to 9223372036854775807, "
              "found 8589934592g");
    EXPECT_EQ(errorOf("size > 3x"),
              "line 1, column 8: expected a whole number with an optional k, m or g suffix, found '3x'");
    EXPECT_EQ(errorOf("size > 1.5k"),
              "line 1, column 8: expected a whole number with an optional k, m or g suffix, found '1.5k'");
}

TEST(Expr, StringEscapes) {
    FakeObject o;
    EXPECT_EQ(parseOk(R"("a\"b\\c")").evaluate(o).text, "a\"b\\c");
    EXPECT_EQ(parseOk(R"("")").evaluate(o).text, "");
    o.type = "say \"hi\"";
    EXPECT_TRUE(passes(R"(type == "say \"hi\"")", o));
    EXPECT_EQ(errorOf(R"(type == "a\nb")"),
              R"(line 1, column 11: unknown escape '\n' in a string: the escapes are '\"' and '\\')");
}

TEST(Expr, EveryPropertyReadsItsValue) {
    FakeObject o;
    EXPECT_EQ(parseOk("type").evaluate(o).text, "java.util.HashMap");
    EXPECT_EQ(parseOk("type.package").evaluate(o).text, "java.util");
    EXPECT_EQ(parseOk("site").evaluate(o).text, "java.util.HashMap.resize(HashMap.java:704)");
    EXPECT_EQ(parseOk("site.method").evaluate(o).text, "java.util.HashMap.resize");
    EXPECT_EQ(parseOk("site.class").evaluate(o).text, "java.util.HashMap");
    EXPECT_EQ(parseOk("site.line").evaluate(o).number, 704);
    EXPECT_EQ(parseOk("thread").evaluate(o).text, "main");
    EXPECT_EQ(parseOk("thread.name").evaluate(o).text, "main");
    EXPECT_EQ(parseOk("age").evaluate(o).number, 3);
    EXPECT_EQ(parseOk("size").evaluate(o).number, 48);
    EXPECT_EQ(parseOk("length").evaluate(o).number, -1);
    EXPECT_EQ(parseOk("kind").evaluate(o).text, "instance");
    EXPECT_EQ(parseOk("array").evaluate(o).boolean, false);
    EXPECT_EQ(parseOk("born").evaluate(o).number, 7);
    EXPECT_EQ(parseOk("id").evaluate(o).number, 1234);
    EXPECT_EQ(parseOk("site.line").kind(), ValueKind::kNumber);
    EXPECT_EQ(parseOk("thread.name").kind(), ValueKind::kString);
    EXPECT_EQ(parseOk("array").kind(), ValueKind::kBool);
}

TEST(Expr, PropertyNamesAndKinds) {
    for (int i = 0; i < kPropertyCount; ++i) {
        auto p = static_cast<Property>(i);
        Property found = Property::kId;
        ASSERT_TRUE(findProperty(propertyName(p), &found)) << propertyName(p);
        EXPECT_EQ(found, p);
        EXPECT_EQ(parseOk(propertyName(p)).kind(), propertyKind(p)) << propertyName(p);
    }
    EXPECT_EQ(propertyName(Property::kPackage), "type.package");
    EXPECT_EQ(propertyName(Property::kThread), "thread");
    Property p = Property::kType;
    EXPECT_TRUE(findProperty("thread.name", &p));
    EXPECT_EQ(p, Property::kThread);
    EXPECT_FALSE(findProperty("Type", &p));
}

TEST(Expr, NumberComparisons) {
    FakeObject o;  // age 3
    EXPECT_TRUE(passes("age == 3", o));
    EXPECT_FALSE(passes("age == 4", o));
    EXPECT_TRUE(passes("age != 4", o));
    EXPECT_FALSE(passes("age != 3", o));
    EXPECT_TRUE(passes("age < 4", o));
    EXPECT_FALSE(passes("age < 3", o));
    EXPECT_TRUE(passes("age <= 3", o));
    EXPECT_FALSE(passes("age <= 2", o));
    EXPECT_TRUE(passes("age > 2", o));
    EXPECT_FALSE(passes("age > 3", o));
    EXPECT_TRUE(passes("age >= 3", o));
    EXPECT_FALSE(passes("age >= 4", o));
    EXPECT_TRUE(passes("2 < age", o));
    EXPECT_FALSE(passes("3 < age", o));
    EXPECT_TRUE(passes("length == -1", o));
    EXPECT_TRUE(passes("born < id", o));
    EXPECT_FALSE(passes("id < born", o));
    EXPECT_TRUE(passes("age>=3", o));
}

TEST(Expr, EqualityOfStringsAndBools) {
    FakeObject o;
    EXPECT_TRUE(passes(R"(type == "java.util.HashMap")", o));
    EXPECT_FALSE(passes(R"(type == "java.util.HashMa")", o));
    EXPECT_FALSE(passes(R"(type == "java.util.*")", o));  // '==' has no wildcards
    EXPECT_TRUE(passes(R"(type != "java.util.TreeMap")", o));
    EXPECT_FALSE(passes(R"(type != "java.util.HashMap")", o));
    EXPECT_TRUE(passes(R"("main" == thread)", o));
    EXPECT_TRUE(passes("type == site.class", o));
    EXPECT_FALSE(passes("type != site.class", o));
    EXPECT_FALSE(passes("type == site.method", o));
    EXPECT_TRUE(passes("array == false", o));
    EXPECT_FALSE(passes("array != false", o));
    EXPECT_TRUE(passes("(age > 1) == true", o));
    EXPECT_TRUE(passes(R"("a" == "a")", o));
    EXPECT_FALSE(passes(R"("a" == "b")", o));
    EXPECT_TRUE(passes(R"(kind == "instance")", o));
    o.kind = "big array";
    EXPECT_TRUE(passes(R"("big array" == kind)", o));
}

TEST(Expr, GlobMatching) {
    FakeObject o;  // type java.util.HashMap
    EXPECT_TRUE(passes(R"(type ~ "java.util.*")", o));
    EXPECT_FALSE(passes(R"(type ~ "java.lang.*")", o));
    EXPECT_TRUE(passes(R"(type ~ "*HashMap")", o));
    EXPECT_FALSE(passes(R"(type ~ "*Hash")", o));  // the whole string must match
    EXPECT_FALSE(passes(R"(type ~ "java")", o));
    EXPECT_TRUE(passes(R"(type ~ "*util*")", o));
    EXPECT_FALSE(passes(R"(type ~ "*lang*")", o));
    EXPECT_TRUE(passes(R"(type ~ "*")", o));
    EXPECT_TRUE(passes(R"(type ~ "**")", o));
    EXPECT_TRUE(passes(R"(type ~ "java.util.HashMa?")", o));
    EXPECT_FALSE(passes(R"(type ~ "java.util.HashMap?")", o));
    EXPECT_TRUE(passes(R"(type ~ "j*.*.Hash*p")", o));
    EXPECT_FALSE(passes(R"(type ~ "j*.*.Hash*x")", o));
    EXPECT_TRUE(passes(R"(type ~ "java.util.HashMap")", o));
    EXPECT_FALSE(passes(R"(type ~ "")", o));
    EXPECT_TRUE(passes(R"(type !~ "java.lang.*")", o));
    EXPECT_FALSE(passes(R"(type !~ "java.*")", o));
    EXPECT_TRUE(passes(R"("int[]" ~ "*[]")", o));
    o.package = "";
    EXPECT_TRUE(passes(R"(type.package ~ "")", o));
    EXPECT_TRUE(passes(R"(type.package ~ "*")", o));
    EXPECT_FALSE(passes(R"(type.package ~ "?")", o));
}

TEST(Expr, GlobMatchFunction) {
    EXPECT_TRUE(globMatch("", ""));
    EXPECT_FALSE(globMatch("a", ""));
    EXPECT_FALSE(globMatch("", "?"));
    EXPECT_TRUE(globMatch("", "*"));
    EXPECT_TRUE(globMatch("abc", "a?c"));
    EXPECT_FALSE(globMatch("abbc", "a?c"));
    EXPECT_TRUE(globMatch("aXbYbZc", "a*b*c"));
    EXPECT_TRUE(globMatch("abcbcd", "*bcd"));  // needs backtracking
    EXPECT_TRUE(globMatch("aaa", "*a"));
    EXPECT_FALSE(globMatch("aab", "*a"));
    EXPECT_TRUE(globMatch("mississippi", "m*iss*pi"));
    EXPECT_FALSE(globMatch("mississippi", "m*iss*x"));
    EXPECT_TRUE(globMatch("a*b", "a*b"));
    EXPECT_TRUE(globMatch("caf\xc3\xa9", "caf?"));  // '?' is one code point, not one byte
    EXPECT_FALSE(globMatch("caf\xc3\xa9", "caf??"));
    EXPECT_TRUE(globMatch("\xc3\xa9x", "*x"));
}

TEST(Expr, PrecedenceAndParentheses) {
    FakeObject o;
    EXPECT_TRUE(passes("true || false && false", o));  // && binds tighter than ||
    EXPECT_FALSE(passes("(true || false) && false", o));
    EXPECT_TRUE(passes("false && false || true", o));
    EXPECT_FALSE(passes("!true && false", o));
    EXPECT_TRUE(passes("!(true && false)", o));
    EXPECT_TRUE(passes("!false || false", o));
    EXPECT_FALSE(passes("! age > 2", o));  // ! applies to the whole comparison
    EXPECT_TRUE(passes("!!true", o));
    EXPECT_TRUE(passes("((age)) == (3)", o));
    EXPECT_TRUE(passes("age > 1 && size > 1 && !array", o));
    EXPECT_TRUE(passes("age > 9 || size > 9 || thread == \"x\"", o));
    EXPECT_FALSE(passes("age > 9 || size > 99 || thread == \"x\"", o));
    EXPECT_TRUE(passes(R"(type ~ "java.util.*" && age >= 3)", o));
}

TEST(Expr, KeywordOperators) {
    FakeObject o;
    EXPECT_TRUE(passes("age > 1 and size > 1", o));
    EXPECT_FALSE(passes("age > 1 and size > 100", o));
    EXPECT_TRUE(passes("age > 10 or size > 1", o));
    EXPECT_FALSE(passes("age > 10 or size > 100", o));
    EXPECT_TRUE(passes("not array", o));
    EXPECT_FALSE(passes("not age > 1", o));
    EXPECT_TRUE(passes("true or false and false", o));
    EXPECT_TRUE(passes("not(array)and(age>1)", o));
}

TEST(Expr, PropertiesAreReadLazily) {
    FakeObject o;
    Expression e = parseOk("age > 100 && size > 0 && type ~ \"x\"");
    EXPECT_FALSE(e.test(o));
    EXPECT_EQ(o.reads, 1u << static_cast<unsigned>(Property::kAge));
    o.reads = 0;
    Expression f = parseOk("age > 1 || size > 0");
    EXPECT_TRUE(f.test(o));
    EXPECT_EQ(o.reads, 1u << static_cast<unsigned>(Property::kAge));
    o.read_count = 0;
    EXPECT_TRUE(parseOk("age > 1 && size > 1 && !array").test(o));
    EXPECT_EQ(o.read_count, 3);
}

TEST(Expr, PropertyMasksAndShapeOnly) {
    auto bit = [](Property p) { return 1u << static_cast<unsigned>(p); };
    Expression a = parseOk(R"(type ~ "java.*" && site.method == "x" || thread.name == "main")");
    EXPECT_EQ(a.properties(), bit(Property::kType) | bit(Property::kSiteMethod) | bit(Property::kThread));
    EXPECT_TRUE(a.shapeOnly());
    EXPECT_TRUE(a.reads(Property::kType));
    EXPECT_FALSE(a.reads(Property::kAge));
    Expression b =
        parseOk(R"(type.package == "" && !array && site.line > 3 && site ~ "*" && site.class ~ "*")");
    EXPECT_EQ(b.properties(), bit(Property::kPackage) | bit(Property::kArray) | bit(Property::kSiteLine) |
                                  bit(Property::kSite) | bit(Property::kSiteClass));
    EXPECT_TRUE(b.shapeOnly());
    for (const char* source : {"age > 1", "size > 1", "length > 1", "kind == \"instance\"", "born > 1",
                               "id > 1", "array && age > 1"}) {
        Expression e = parseOk(source);
        EXPECT_FALSE(e.shapeOnly()) << source;
    }
    EXPECT_EQ(parseOk("size > 1k && size < 1m").properties(), bit(Property::kSize));
    EXPECT_EQ(parseOk("true").properties(), 0u);
    EXPECT_TRUE(parseOk("true").shapeOnly());
    EXPECT_TRUE(parseOk("site.method").shapeOnly());
    EXPECT_FALSE(parseOk("age").shapeOnly());
}

TEST(Expr, ClassifiersAreNotFilters) {
    FakeObject o;
    Expression e = parseOk("site.method");
    EXPECT_FALSE(e.isFilter());
    EXPECT_EQ(e.kind(), ValueKind::kString);
    EXPECT_FALSE(e.test(o));  // test() of a non-filter says false
    Value v = e.evaluate(o);
    EXPECT_EQ(v.kind, ValueKind::kString);
    EXPECT_EQ(toString(v), "java.util.HashMap.resize");
    EXPECT_EQ(toString(parseOk("age").evaluate(o)), "3");
    EXPECT_EQ(toString(parseOk("array").evaluate(o)), "false");
    EXPECT_EQ(toString(parseOk("age > 1").evaluate(o)), "true");
    EXPECT_EQ(parseOk("age > 1").kind(), ValueKind::kBool);
}

TEST(Expr, CopiesAndMovesKeepTheirOwnData) {
    FakeObject o;
    Expression copy;
    {
        Expression original =
            parseOk(R"(type ~ "java.util.*" || "a long literal that is not in SSO" == thread)");
        copy = original;
        Expression moved = std::move(original);
        EXPECT_TRUE(moved.test(o));
    }
    EXPECT_TRUE(copy.test(o));
    EXPECT_EQ(copy.source(), R"(type ~ "java.util.*" || "a long literal that is not in SSO" == thread)");
    Expression literal;
    {
        Expression original = parseOk(R"("a long string literal, long enough to be on the heap")");
        literal = original;
    }
    EXPECT_EQ(literal.evaluate(o).text, "a long string literal, long enough to be on the heap");
    Expression fallback;
    EXPECT_TRUE(fallback.test(o));
    EXPECT_EQ(fallback.source(), "true");
    EXPECT_EQ(fallback.properties(), 0u);
}

TEST(Expr, ErrorsFromTheBrief) {
    EXPECT_EQ(errorOf("age>3&&"), "line 1, column 8: expected a value after '&&', found end of input");
    EXPECT_EQ(errorOf(R"(tpye ~ "java.*")"),
              "line 1, column 1: unknown property 'tpye' (did you mean 'type'?)");
    EXPECT_EQ(errorOf("type < 3"), "line 1, column 6: '<' compares numbers, but 'type' is a string");
    EXPECT_EQ(errorOf(R"(age > 1 && "abc)"), "line 1, column 12: unterminated string");
}

TEST(Expr, ErrorPositionsOnSeveralLines) {
    EXPECT_EQ(errorOf("age > 3 &&\n  tpye == \"x\""),
              "line 2, column 3: unknown property 'tpye' (did you mean 'type'?)");
    EXPECT_EQ(errorOf("age > 3\n&& size > 1\n&& type == \"abc\n"), "line 3, column 12: unterminated string");
    EXPECT_EQ(errorOf("age > 3 &&\n\n   "),
              "line 1, column 11: expected a value after '&&', found end of input");
    EXPECT_EQ(
        errorOf("type == \"\xc3\xa9t\xc3\xa9\" && x"),
        "line 1, column 18: unknown property 'x' (expected one of type, type.package, site, site.method, "
        "site.class, site.line, thread, age, size, length, kind, array, born, id, thread.name)");
    SourcePosition at;
    auto r = Expression::parse("age > 1 ||\r\n\tsize < type", &at);
    ASSERT_FALSE(r.ok());
    EXPECT_EQ(r.error().message, "line 2, column 7: '<' compares numbers, but 'type' is a string");
    EXPECT_EQ(at.line, 2u);
    EXPECT_EQ(at.column, 7u);
    EXPECT_EQ(at.offset, 18u);
}

TEST(Expr, SyntaxErrors) {
    EXPECT_EQ(errorOf(R"(type == "a" b)"),
              "line 1, column 13: expected '&&', '||' or end of input, found 'b'");
    EXPECT_EQ(errorOf("type b"), "line 1, column 6: expected an operator or end of input, found 'b'");
    EXPECT_EQ(errorOf(""), "line 1, column 1: expected an expression, found end of input");
    EXPECT_EQ(errorOf("  \n\t "), "line 1, column 1: expected an expression, found end of input");
    EXPECT_EQ(errorOf("&& age"), "line 1, column 1: expected an expression, found '&&'");
    EXPECT_EQ(errorOf("1 < age < 5"),
              "line 1, column 9: comparisons do not chain: expected '&&' or '||' between two comparisons, "
              "found '<'");
    EXPECT_EQ(errorOf("age == 1 == true"),
              "line 1, column 10: comparisons do not chain: expected '&&' or '||' between two comparisons, "
              "found '=='");
    EXPECT_EQ(
        errorOf("(age > 3"),
        "line 1, column 9: expected '&&', '||' or ')' to close the '(' at line 1, column 1, found end of "
        "input");
    EXPECT_EQ(errorOf("()"), "line 1, column 2: expected a value after '(', found ')'");
    EXPECT_EQ(errorOf("age > 3)"), "line 1, column 8: expected '&&', '||' or end of input, found ')'");
    EXPECT_EQ(errorOf("age = 3"), "line 1, column 5: expected '==', found '='");
    EXPECT_EQ(errorOf("array & true"), "line 1, column 7: expected '&&', found '&'");
    EXPECT_EQ(errorOf("array | true"), "line 1, column 7: expected '||', found '|'");
    EXPECT_EQ(errorOf("age > $"),
              "line 1, column 7: expected a property, literal, operator or parenthesis, found '$'");
    EXPECT_EQ(errorOf("age >"), "line 1, column 6: expected a value after '>', found end of input");
    EXPECT_EQ(errorOf("not"), "line 1, column 4: expected a value after 'not', found end of input");
    EXPECT_EQ(errorOf("array AND true"),
              "line 1, column 7: expected an operator or end of input, found 'AND' (did you mean 'and'?)");
    EXPECT_EQ(errorOf("age > 1 && || true"), "line 1, column 12: expected a value after '&&', found '||'");
}

TEST(Expr, UnknownPropertySuggestions) {
    EXPECT_EQ(errorOf("site.metod"),
              "line 1, column 1: unknown property 'site.metod' (did you mean 'site.method'?)");
    EXPECT_EQ(errorOf("Age > 1"), "line 1, column 1: unknown property 'Age' (did you mean 'age'?)");
    EXPECT_EQ(errorOf("sise > 1"),
              "line 1, column 1: unknown property 'sise' (did you mean 'site' or 'size'?)");
    EXPECT_EQ(errorOf("TRUE"), "line 1, column 1: unknown property 'TRUE' (did you mean 'true'?)");
    EXPECT_EQ(errorOf("age > 1 && threads == \"a\""),
              "line 1, column 12: unknown property 'threads' (did you mean 'thread'?)");
    std::string far = errorOf("weight > 1");
    EXPECT_EQ(
        far.rfind("line 1, column 1: unknown property 'weight' (expected one of type, type.package,", 0), 0u)
        << far;
    std::string tiny = errorOf("xy");  // two edits away from "id", but shares nothing with it
    EXPECT_EQ(tiny.find("did you mean"), std::string::npos) << tiny;
}

TEST(Expr, TypeErrors) {
    EXPECT_EQ(errorOf("3 > type"), "line 1, column 3: '>' compares numbers, but 'type' is a string");
    EXPECT_EQ(errorOf("array <= 3"), "line 1, column 7: '<=' compares numbers, but 'array' is a bool");
    EXPECT_EQ(errorOf("age < \"3\""), "line 1, column 5: '<' compares numbers, but \"3\" is a string");
    EXPECT_EQ(
        errorOf("type == 3"),
        "line 1, column 6: '==' compares values of the same kind, but 'type' is a string and 3 is a number");
    EXPECT_EQ(
        errorOf("(age > 1) != age"),
        "line 1, column 11: '!=' compares values of the same kind, but '(age > 1)' is a bool and 'age' is a "
        "number");
    EXPECT_EQ(errorOf("age ~ \"1*\""),
              "line 1, column 5: '~' matches a string against a pattern, but 'age' is a number");
    EXPECT_EQ(errorOf("type ~ site"), "line 1, column 8: expected a quoted pattern after '~', found 'site'");
    EXPECT_EQ(errorOf("type !~ 3"), "line 1, column 9: expected a quoted pattern after '!~', found 3");
    EXPECT_EQ(errorOf("type && age > 1"), "line 1, column 6: '&&' combines bools, but 'type' is a string");
    EXPECT_EQ(errorOf("array or age"), "line 1, column 7: 'or' combines bools, but 'age' is a number");
    EXPECT_EQ(errorOf("!site"), "line 1, column 1: '!' negates a bool, but 'site' is a string");
    EXPECT_EQ(errorOf("not 1k"), "line 1, column 1: 'not' negates a bool, but 1k is a number");
    EXPECT_EQ(errorOf("kind == \"array\""),
              "line 1, column 9: expected \"instance\", \"small array\" or \"big array\" for 'kind', found "
              "\"array\"");
    EXPECT_EQ(errorOf("\"Small array\" != kind"),
              "line 1, column 1: expected \"instance\", \"small array\" or \"big array\" for 'kind', found "
              "\"Small array\"");
}

TEST(Expr, NestingIsLimited) {
    std::string ok = std::string(100, '(') + "true" + std::string(100, ')');
    EXPECT_TRUE(parseOk(ok).test(FakeObject()));
    std::string deep = std::string(101, '(') + "true" + std::string(101, ')');
    EXPECT_EQ(errorOf(deep),
              "line 1, column 101: expected at most 100 nested levels of '(' and '!', found more");
    std::string nots = std::string(200, '!') + "true";
    EXPECT_EQ(errorOf(nots),
              "line 1, column 101: expected at most 100 nested levels of '(' and '!', found more");
    std::string wide = "age > 0";
    for (int i = 0; i < 5000; ++i)
        wide += " && age > 0";
    EXPECT_TRUE(parseOk(wide).test(FakeObject()));  // long chains stay flat
}

TEST(Expr, PackageOf) {
    EXPECT_EQ(packageOf("java.util.HashMap"), "java.util");
    EXPECT_EQ(packageOf("java.util.HashMap$Node[]"), "java.util");
    EXPECT_EQ(packageOf("java.lang.String[][]"), "java.lang");
    EXPECT_EQ(packageOf("int"), "");
    EXPECT_EQ(packageOf("int[][]"), "");
    EXPECT_EQ(packageOf("Main"), "");
    EXPECT_EQ(packageOf(""), "");
}

}  // namespace
}  // namespace memcity::expr
