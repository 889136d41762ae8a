#include "classify/expr.h"

#include <algorithm>
#include <array>
#include <limits>

namespace memcity::expr {

namespace {

struct PropertyInfo {
    std::string_view name;
    Property property;
    ValueKind kind;
};

// Every name the language accepts, canonical names first (in Property order), then aliases.
constexpr std::array<PropertyInfo, 15> kProperties = {{
    {"type", Property::kType, ValueKind::kString},
    {"type.package", Property::kPackage, ValueKind::kString},
    {"site", Property::kSite, ValueKind::kString},
    {"site.method", Property::kSiteMethod, ValueKind::kString},
    {"site.class", Property::kSiteClass, ValueKind::kString},
    {"site.line", Property::kSiteLine, ValueKind::kNumber},
    {"thread", Property::kThread, ValueKind::kString},
    {"age", Property::kAge, ValueKind::kNumber},
    {"size", Property::kSize, ValueKind::kNumber},
    {"length", Property::kLength, ValueKind::kNumber},
    {"kind", Property::kKind, ValueKind::kString},
    {"array", Property::kArray, ValueKind::kBool},
    {"born", Property::kBorn, ValueKind::kNumber},
    {"id", Property::kId, ValueKind::kNumber},
    {"thread.name", Property::kThread, ValueKind::kString},
}};

// The values `kind` can have; comparing it with anything else is reported as a mistake.
constexpr std::array<std::string_view, 3> kKindValues = {"instance", "small array", "big array"};

constexpr int kMaxDepth = 100;  // nested '(' and '!', so that parsing and evaluating stay shallow

bool isSpace(char c) {
    return c == ' ' || c == '\t' || c == '\r' || c == '\n' || c == '\f' || c == '\v';
}
bool isDigit(char c) {
    return c >= '0' && c <= '9';
}
bool isLetter(char c) {
    return (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || c == '_';
}
bool isNameChar(char c) {
    return isLetter(c) || isDigit(c) || c == '.';
}
bool isContinuation(char c) {
    return (static_cast<unsigned char>(c) & 0xc0) == 0x80;
}
char lower(char c) {
    return c >= 'A' && c <= 'Z' ? static_cast<char>(c - 'A' + 'a') : c;
}

std::string quoted(std::string_view s) {
    return "'" + printable(s, 60) + "'";
}

const char* kindName(ValueKind k) {
    switch (k) {
        case ValueKind::kBool: return "a bool";
        case ValueKind::kNumber: return "a number";
        case ValueKind::kString: return "a string";
    }
    return "a value";
}

// Optimal string alignment distance (an adjacent transposition counts as one edit), ignoring
// ASCII case. Contract: both strings are at most 32 bytes.
int editDistance(std::string_view a, std::string_view b) {
    int d[33][33];
    for (size_t i = 0; i <= a.size(); ++i)
        d[i][0] = static_cast<int>(i);
    for (size_t j = 0; j <= b.size(); ++j)
        d[0][j] = static_cast<int>(j);
    for (size_t i = 1; i <= a.size(); ++i) {
        for (size_t j = 1; j <= b.size(); ++j) {
            int cost = lower(a[i - 1]) == lower(b[j - 1]) ? 0 : 1;
            d[i][j] = std::min({d[i - 1][j] + 1, d[i][j - 1] + 1, d[i - 1][j - 1] + cost});
            if (i > 1 && j > 1 && lower(a[i - 1]) == lower(b[j - 2]) && lower(a[i - 2]) == lower(b[j - 1]))
                d[i][j] = std::min(d[i][j], d[i - 2][j - 2] + 1);
        }
    }
    return d[a.size()][b.size()];
}

// Joins quoted names as "'a'", "'a' or 'b'", "'a', 'b' or 'c'".
std::string alternatives(const std::vector<std::string_view>& names) {
    std::string out;
    for (size_t i = 0; i < names.size(); ++i) {
        if (i > 0) out += i + 1 == names.size() ? " or " : ", ";
        out += quoted(names[i]);
    }
    return out;
}

std::string unknownProperty(std::string_view name) {
    std::string message = "unknown property " + quoted(name);
    std::vector<std::string_view> best;
    int best_distance = 3;  // suggest only names at most 2 edits away
    if (name.size() <= 32) {
        std::vector<std::string_view> candidates;
        for (const PropertyInfo& p : kProperties)
            candidates.push_back(p.name);
        for (std::string_view keyword : {"true", "false", "not"})
            candidates.push_back(keyword);
        for (std::string_view candidate : candidates) {
            int distance = editDistance(name, candidate);
            // A short name is not "close" to something it shares nothing with.
            if (distance > 2 || (distance > 0 && distance >= static_cast<int>(name.size()))) continue;
            if (distance < best_distance) {
                best_distance = distance;
                best.clear();
            }
            if (distance == best_distance) best.push_back(candidate);
        }
    }
    if (!best.empty()) return message + " (did you mean " + alternatives(best) + "?)";
    message += " (expected one of";
    for (size_t i = 0; i < kProperties.size(); ++i)
        message += (i == 0 ? " " : ", ") + std::string(kProperties[i].name);
    return message + ")";
}

// ---- Lexer -------------------------------------------------------------------------------------

enum class Tok : uint8_t {
    kEnd,
    kError,  // `text` holds the message
    kNumber,
    kString,  // `text` holds the unescaped value
    kName,
    kTrue,
    kFalse,
    kAnd,
    kOr,
    kNot,
    kEqual,
    kNotEqual,
    kLess,
    kLessEqual,
    kGreater,
    kGreaterEqual,
    kMatch,
    kNoMatch,
    kOpen,
    kClose,
};

struct Token {
    Tok tok = Tok::kEnd;
    SourcePosition pos;
    size_t end = 0;  // byte offset just past the token
    int64_t number = 0;
    std::string text;
};

bool isComparison(Tok t) {
    return t >= Tok::kEqual && t <= Tok::kNoMatch;
}

class Lexer {
public:
    explicit Lexer(std::string_view source) : src_(source) {}

    std::string_view raw(const Token& t) const { return src_.substr(t.pos.offset, t.end - t.pos.offset); }

    Token next() {
        while (at_.offset < src_.size() && isSpace(src_[at_.offset]))
            step();
        Token t;
        t.pos = at_;
        if (at_.offset == src_.size()) {
            t.pos = last_end_;  // point just past the last token, not at trailing blank lines
            t.end = last_end_.offset;
            return t;
        }
        char c = src_[at_.offset];
        char d = at_.offset + 1 < src_.size() ? src_[at_.offset + 1] : '\0';
        switch (c) {
            case '(': single(t, Tok::kOpen); break;
            case ')': single(t, Tok::kClose); break;
            case '~': single(t, Tok::kMatch); break;
            case '!':
                if (d == '=' || d == '~')
                    single(t, d == '=' ? Tok::kNotEqual : Tok::kNoMatch, 2);
                else
                    single(t, Tok::kNot);
                break;
            case '<': d == '=' ? single(t, Tok::kLessEqual, 2) : single(t, Tok::kLess); break;
            case '>': d == '=' ? single(t, Tok::kGreaterEqual, 2) : single(t, Tok::kGreater); break;
            case '=': pair(t, '=', Tok::kEqual); break;
            case '&': pair(t, '&', Tok::kAnd); break;
            case '|': pair(t, '|', Tok::kOr); break;
            case '"': string(t); break;
            default:
                if (isDigit(c) || (c == '-' && isDigit(d)))
                    number(t);
                else if (isLetter(c))
                    name(t);
                else
                    unexpected(t);
        }
        t.end = at_.offset;
        last_end_ = at_;
        return t;
    }

private:
    void step(size_t bytes = 1) {
        for (size_t i = 0; i < bytes && at_.offset < src_.size(); ++i) {
            char c = src_[at_.offset++];
            if (c == '\n') {
                ++at_.line;
                at_.column = 1;
            } else if (!isContinuation(c)) {
                ++at_.column;
            }
        }
    }

    void single(Token& t, Tok tok, size_t bytes = 1) {
        t.tok = tok;
        step(bytes);
    }

    void fail(Token& t, std::string message) {
        t.tok = Tok::kError;
        t.text = std::move(message);
    }

    // A two-character operator written with both characters the same: "==", "&&", "||".
    void pair(Token& t, char second, Tok tok) {
        bool ok = at_.offset + 1 < src_.size() && src_[at_.offset + 1] == second;
        std::string found(1, src_[at_.offset]);
        step(ok ? 2 : 1);
        if (ok)
            t.tok = tok;
        else
            fail(t, "expected " + quoted(found + second) + ", found " + quoted(found));
    }

    void string(Token& t) {
        step();  // the opening quote
        t.tok = Tok::kString;
        while (true) {
            if (at_.offset == src_.size() || src_[at_.offset] == '\n') return fail(t, "unterminated string");
            char c = src_[at_.offset];
            if (c == '"') {
                step();
                return;
            }
            if (c == '\\') {
                char e = at_.offset + 1 < src_.size() ? src_[at_.offset + 1] : '\0';
                if (e == '"' || e == '\\') {
                    t.text += e;
                    step(2);
                    continue;
                }
                if (e == '\0' || e == '\n') return fail(t, "unterminated string");
                SourcePosition escape = at_;
                step();
                size_t start = at_.offset;
                step();
                while (at_.offset < src_.size() && isContinuation(src_[at_.offset]))
                    step();
                std::string found = "\\" + printable(src_.substr(start, at_.offset - start));
                t.pos = escape;
                return fail(t,
                            "unknown escape '" + found + "' in a string: the escapes are '\\\"' and '\\\\'");
            }
            t.text += c;
            step();
        }
    }

    void number(Token& t) {
        size_t start = at_.offset;
        bool negative = src_[at_.offset] == '-';
        if (negative) step();
        const uint64_t limit = negative ? uint64_t{1} << 63 : (uint64_t{1} << 63) - 1;
        uint64_t value = 0;
        bool too_large = false;
        while (at_.offset < src_.size() && isDigit(src_[at_.offset])) {
            auto digit = static_cast<uint64_t>(src_[at_.offset] - '0');
            if (value > (limit - digit) / 10)
                too_large = true;
            else
                value = value * 10 + digit;
            step();
        }
        uint64_t scale = 1;
        if (at_.offset < src_.size()) {
            char s = lower(src_[at_.offset]);
            scale = s == 'k'   ? uint64_t{1} << 10
                    : s == 'm' ? uint64_t{1} << 20
                    : s == 'g' ? uint64_t{1} << 30
                               : 1;
            if (scale != 1) {
                step();
                if (at_.offset < src_.size() && lower(src_[at_.offset]) == 'b') step();
            }
        }
        if (at_.offset < src_.size() && isNameChar(src_[at_.offset])) {
            while (at_.offset < src_.size() && isNameChar(src_[at_.offset]))
                step();
            return fail(t, "expected a whole number with an optional k, m or g suffix, found " +
                               quoted(src_.substr(start, at_.offset - start)));
        }
        if (too_large || value > limit / scale)
            return fail(t, "expected a number from -9223372036854775808 to 9223372036854775807, found " +
                               printable(src_.substr(start, at_.offset - start), 60));
        value *= scale;
        t.tok = Tok::kNumber;
        // Two's complement: negating 2^63 as unsigned gives the bits of INT64_MIN.
        t.number = static_cast<int64_t>(negative ? ~value + 1 : value);
    }

    void name(Token& t) {
        size_t start = at_.offset;
        while (at_.offset < src_.size() && isNameChar(src_[at_.offset]))
            step();
        std::string_view word = src_.substr(start, at_.offset - start);
        t.tok = word == "and"     ? Tok::kAnd
                : word == "or"    ? Tok::kOr
                : word == "not"   ? Tok::kNot
                : word == "true"  ? Tok::kTrue
                : word == "false" ? Tok::kFalse
                                  : Tok::kName;
    }

    void unexpected(Token& t) {
        size_t start = at_.offset;
        step();
        while (at_.offset < src_.size() && isContinuation(src_[at_.offset]))
            step();
        fail(t, "expected a property, literal, operator or parenthesis, found " +
                    quoted(src_.substr(start, at_.offset - start)));
    }

    std::string_view src_;
    SourcePosition at_;
    SourcePosition last_end_;  // just past the last token
};

}  // namespace

// ---- Parser ------------------------------------------------------------------------------------

class Expression::Parser {
public:
    static constexpr uint32_t kFail = ~uint32_t{0};

    Parser(std::string_view source, Expression& out) : lex_(source), src_(source), out_(out) {}

    // Parses the whole source into out_; false with error_ and error_at_ set on failure.
    bool run() {
        advance();
        if (failed_) return false;
        uint32_t root = parseOr("");
        if (root == kFail) return false;
        if (cur_.tok != Tok::kEnd) {
            fail(cur_.pos, "expected " + operators() + " or end of input, found " + describe(cur_));
            return false;
        }
        out_.root_ = root;
        out_.kind_ = out_.nodes_[root].kind;
        return true;
    }

    std::string error_;
    SourcePosition error_at_;

private:
    struct Span {
        SourcePosition begin;
        size_t end = 0;  // byte offset
    };

    uint32_t fail(const SourcePosition& at, std::string message) {
        if (!failed_) {
            failed_ = true;
            error_at_ = at;
            error_ =
                "line " + std::to_string(at.line) + ", column " + std::to_string(at.column) + ": " + message;
        }
        return kFail;
    }

    void advance() {
        cur_ = lex_.next();
        if (cur_.tok == Tok::kError) fail(cur_.pos, cur_.text);
    }

    std::string describe(const Token& t) const {
        switch (t.tok) {
            case Tok::kEnd: return "end of input";
            case Tok::kNumber:
            case Tok::kString: return printable(lex_.raw(t), 60);
            default: break;
        }
        std::string_view raw = lex_.raw(t);
        std::string out = quoted(raw);
        if (t.tok == Tok::kName) {
            for (std::string_view keyword : {"and", "or"})
                if (raw.size() == keyword.size() && editDistance(raw, keyword) == 0)
                    out += " (did you mean " + quoted(keyword) + "?)";
        }
        return out;
    }

    // A node as the user wrote it: literals as they are, anything else in quotes.
    std::string describe(uint32_t node) const {
        const Span& s = spans_[node];
        std::string_view text = src_.substr(s.begin.offset, s.end - s.begin.offset);
        if (out_.nodes_[node].op == Op::kConstant && out_.nodes_[node].kind != ValueKind::kBool)
            return printable(text, 60);
        return quoted(text);
    }

    // What may follow the expression parsed last.
    std::string operators() const { return last_comparison_ ? "'&&', '||'" : "an operator"; }

    uint32_t add(const Node& n, const SourcePosition& begin, size_t end) {
        out_.nodes_.push_back(n);
        spans_.push_back({begin, end});
        return static_cast<uint32_t>(out_.nodes_.size() - 1);
    }

    uint32_t addString(std::string_view s) {
        auto offset = static_cast<uint32_t>(out_.strings_.size());
        out_.strings_ += s;
        return offset;
    }

    // or := and { ('||' | 'or') and }; and := unary { ('&&' | 'and') unary }
    uint32_t parseOr(std::string_view after) { return parseList(after, Tok::kOr); }
    uint32_t parseList(std::string_view after, Tok op) {
        uint32_t first = op == Tok::kOr ? parseList(after, Tok::kAnd) : parseUnary(after);
        if (first == kFail || cur_.tok != op) return first;
        std::vector<uint32_t> operands{first};
        while (cur_.tok == op) {
            Token op_token = cur_;
            std::string_view op_text = lex_.raw(op_token);
            if (!checkBool(op_text, op_token.pos, operands.back())) return kFail;
            advance();
            if (failed_) return kFail;
            uint32_t next = op == Tok::kOr ? parseList(op_text, Tok::kAnd) : parseUnary(op_text);
            if (next == kFail || !checkBool(op_text, op_token.pos, next)) return kFail;
            operands.push_back(next);
        }
        Node n;
        n.op = op == Tok::kOr ? Op::kOr : Op::kAnd;
        n.kind = ValueKind::kBool;
        n.a = static_cast<uint32_t>(out_.operands_.size());
        n.b = static_cast<uint32_t>(operands.size());
        out_.operands_.insert(out_.operands_.end(), operands.begin(), operands.end());
        return add(n, spans_[first].begin, spans_[operands.back()].end);
    }

    bool checkBool(std::string_view op, const SourcePosition& at, uint32_t operand) {
        if (out_.nodes_[operand].kind == ValueKind::kBool) return true;
        const char* verb = op == "!" || op == "not" ? " negates a bool" : " combines bools";
        fail(at,
             quoted(op) + verb + ", but " + describe(operand) + " is " + kindName(out_.nodes_[operand].kind));
        return false;
    }

    // unary := ('!' | 'not') unary | comparison
    uint32_t parseUnary(std::string_view after) {
        if (cur_.tok != Tok::kNot) return parseComparison(after);
        Token op_token = cur_;
        std::string_view op_text = lex_.raw(op_token);
        if (++depth_ > kMaxDepth) return tooDeep(op_token);
        advance();
        if (failed_) return kFail;
        uint32_t operand = parseUnary(op_text);
        --depth_;
        if (operand == kFail || !checkBool(op_text, op_token.pos, operand)) return kFail;
        Node n;
        n.op = Op::kNot;
        n.kind = ValueKind::kBool;
        n.a = operand;
        return add(n, op_token.pos, spans_[operand].end);
    }

    uint32_t tooDeep(const Token& t) {
        return fail(t.pos, "expected at most " + std::to_string(kMaxDepth) +
                               " nested levels of '(' and '!', found more");
    }

    // comparison := primary [ op primary ], where op is == != < <= > >= ~ !~
    uint32_t parseComparison(std::string_view after) {
        last_comparison_ = false;
        uint32_t left = parsePrimary(after);
        if (left == kFail || !isComparison(cur_.tok)) return left;
        Token op = cur_;
        std::string_view op_text = lex_.raw(op);
        ValueKind left_kind = out_.nodes_[left].kind;
        bool ordering = op.tok >= Tok::kLess && op.tok <= Tok::kGreaterEqual;
        bool match = op.tok == Tok::kMatch || op.tok == Tok::kNoMatch;
        if (ordering && left_kind != ValueKind::kNumber)
            return fail(op.pos, quoted(op_text) + " compares numbers, but " + describe(left) + " is " +
                                    kindName(left_kind));
        if (match && left_kind != ValueKind::kString)
            return fail(op.pos, quoted(op_text) + " matches a string against a pattern, but " +
                                    describe(left) + " is " + kindName(left_kind));
        advance();
        if (failed_) return kFail;
        uint32_t right = parsePrimary(op_text);
        if (right == kFail) return kFail;
        ValueKind right_kind = out_.nodes_[right].kind;
        if (ordering && right_kind != ValueKind::kNumber)
            return fail(op.pos, quoted(op_text) + " compares numbers, but " + describe(right) + " is " +
                                    kindName(right_kind));
        if (!ordering && !match && right_kind != left_kind)
            return fail(op.pos, quoted(op_text) + " compares values of the same kind, but " + describe(left) +
                                    " is " + kindName(left_kind) + " and " + describe(right) + " is " +
                                    kindName(right_kind));
        const Node& r = out_.nodes_[right];
        if (match && !(r.op == Op::kConstant && r.kind == ValueKind::kString))
            return fail(spans_[right].begin,
                        "expected a quoted pattern after " + quoted(op_text) + ", found " + describe(right));
        if (!ordering && !match && !checkKindValue(left, right)) return kFail;
        if (!ordering && !match && !checkKindValue(right, left)) return kFail;

        Node n;
        n.kind = ValueKind::kBool;
        n.negate = op.tok == Tok::kNotEqual || op.tok == Tok::kNoMatch;
        if (ordering) {
            n.op = Op::kCompare;
            n.compare = op.tok == Tok::kLess        ? Compare::kLess
                        : op.tok == Tok::kLessEqual ? Compare::kLessEqual
                        : op.tok == Tok::kGreater   ? Compare::kGreater
                                                    : Compare::kGreaterEqual;
            n.a = left;
            n.b = right;
        } else if (match) {
            setPattern(n, left, right);
        } else if (left_kind == ValueKind::kString && r.op == Op::kConstant) {
            n.op = Op::kMatch;  // equality with a literal is a match without wildcards
            n.a = left;
            n.b = r.a;
            n.c = r.b;
        } else if (left_kind == ValueKind::kString && out_.nodes_[left].op == Op::kConstant) {
            n.op = Op::kMatch;
            n.a = right;
            n.b = out_.nodes_[left].a;
            n.c = out_.nodes_[left].b;
        } else {
            n.op = left_kind == ValueKind::kString ? Op::kEqualText : Op::kEqual;
            n.a = left;
            n.b = right;
        }
        uint32_t node = add(n, spans_[left].begin, spans_[right].end);
        if (isComparison(cur_.tok))
            return fail(cur_.pos,
                        "comparisons do not chain: expected '&&' or '||' between two comparisons, found " +
                            describe(cur_));
        last_comparison_ = true;
        return node;
    }

    std::string_view patternOf(uint32_t constant) const {
        const Node& n = out_.nodes_[constant];
        return std::string_view(out_.strings_).substr(n.a, n.b);
    }

    // `kind` compared with a literal that it can never be equal to is a typing mistake.
    bool checkKindValue(uint32_t property, uint32_t constant) {
        const Node& p = out_.nodes_[property];
        const Node& c = out_.nodes_[constant];
        if (p.op != Op::kProperty || p.property != Property::kKind || c.op != Op::kConstant) return true;
        std::string_view value = patternOf(constant);
        for (std::string_view k : kKindValues)
            if (value == k) return true;
        std::vector<std::string_view> values(kKindValues.begin(), kKindValues.end());
        std::string expected;
        for (size_t i = 0; i < values.size(); ++i)
            expected += (i == 0                   ? ""
                         : i + 1 == values.size() ? " or "
                                                  : ", ") +
                        ("\"" + std::string(values[i])) + "\"";
        fail(spans_[constant].begin,
             "expected " + expected + " for " + describe(property) + ", found " + describe(constant));
        return false;
    }

    // Picks the cheapest way to match the string literal `constant` and points the node at the
    // part of it that way needs.
    void setPattern(Node& n, uint32_t subject, uint32_t constant) {
        n.op = Op::kMatch;
        n.a = subject;
        std::string_view pattern = patternOf(constant);
        size_t lead = 0, trail = 0;
        while (lead < pattern.size() && pattern[lead] == '*')
            ++lead;
        while (trail < pattern.size() - lead && pattern[pattern.size() - 1 - trail] == '*')
            ++trail;
        std::string_view middle = pattern.substr(lead, pattern.size() - lead - trail);
        bool simple = middle.find_first_of("*?") == std::string_view::npos;
        if (!simple) {
            n.glob = Glob::kGeneral;
            middle = pattern;
        } else if (lead > 0 && middle.empty()) {
            n.glob = Glob::kAny;
        } else {
            n.glob = lead > 0 && trail > 0 ? Glob::kContains
                     : lead > 0            ? Glob::kSuffix
                     : trail > 0           ? Glob::kPrefix
                                           : Glob::kExact;
        }
        n.b = out_.nodes_[constant].a + static_cast<uint32_t>(middle.data() - pattern.data());
        n.c = static_cast<uint32_t>(middle.size());
    }

    // primary := number | string | true | false | property | '(' or ')'
    uint32_t parsePrimary(std::string_view after) {
        Token t = cur_;
        Node n;
        switch (t.tok) {
            case Tok::kNumber:
                n.kind = ValueKind::kNumber;
                n.number = t.number;
                break;
            case Tok::kString:
                n.kind = ValueKind::kString;
                n.a = addString(t.text);
                n.b = static_cast<uint32_t>(t.text.size());
                break;
            case Tok::kTrue:
            case Tok::kFalse:
                n.kind = ValueKind::kBool;
                n.number = t.tok == Tok::kTrue ? 1 : 0;
                break;
            case Tok::kName: {
                std::string_view name = lex_.raw(t);
                if (!findProperty(name, &n.property)) return fail(t.pos, unknownProperty(name));
                n.op = Op::kProperty;
                n.kind = propertyKind(n.property);
                out_.properties_ |= 1u << static_cast<unsigned>(n.property);
                break;
            }
            case Tok::kOpen: return parseParenthesis(t);
            default:
                if (after.empty()) return fail(t.pos, "expected an expression, found " + describe(t));
                return fail(t.pos, "expected a value after " + quoted(after) + ", found " + describe(t));
        }
        advance();
        if (failed_) return kFail;
        return add(n, t.pos, t.end);
    }

    uint32_t parseParenthesis(const Token& open) {
        if (++depth_ > kMaxDepth) return tooDeep(open);
        advance();
        if (failed_) return kFail;
        uint32_t inner = parseOr("(");
        if (inner == kFail) return kFail;
        if (cur_.tok != Tok::kClose)
            return fail(cur_.pos, "expected " + operators() + " or ')' to close the '(' at line " +
                                      std::to_string(open.pos.line) + ", column " +
                                      std::to_string(open.pos.column) + ", found " + describe(cur_));
        --depth_;
        spans_[inner] = {open.pos, cur_.end};  // messages quote the parentheses too
        advance();
        last_comparison_ = false;
        return failed_ ? kFail : inner;
    }

    Lexer lex_;
    std::string_view src_;
    Expression& out_;
    Token cur_;
    std::vector<Span> spans_;  // by node index
    int depth_ = 0;
    bool failed_ = false;
    bool last_comparison_ = false;  // the last operand parsed was a complete comparison
};

// ---- Expression --------------------------------------------------------------------------------

Expression::Expression() : source_("true") {
    Node n;
    n.number = 1;
    nodes_.push_back(n);
}

Result<Expression> Expression::parse(std::string_view source, SourcePosition* error_at) {
    Expression e;
    e.nodes_.clear();
    e.source_ = std::string(source);
    Parser parser(e.source_, e);
    if (!parser.run()) {
        if (error_at) *error_at = parser.error_at_;
        return Error{parser.error_};
    }
    return e;
}

int64_t Expression::numberOf(uint32_t index, const Accessor& a) const {
    const Node& n = nodes_[index];
    return n.op == Op::kProperty ? a.number(n.property) : n.number;
}

std::string_view Expression::textOf(uint32_t index, const Accessor& a) const {
    const Node& n = nodes_[index];
    return n.op == Op::kProperty ? a.text(n.property) : std::string_view(strings_.data() + n.a, n.b);
}

bool Expression::matches(const Node& n, std::string_view text) const {
    std::string_view p(strings_.data() + n.b, n.c);
    switch (n.glob) {
        case Glob::kExact: return text == p;
        case Glob::kPrefix: return text.starts_with(p);
        case Glob::kSuffix: return text.ends_with(p);
        case Glob::kContains: return text.find(p) != std::string_view::npos;
        case Glob::kAny: return true;
        case Glob::kGeneral: return globMatch(text, p);
    }
    return false;
}

bool Expression::truth(uint32_t index, const Accessor& a) const {
    const Node& n = nodes_[index];
    switch (n.op) {
        case Op::kConstant: return n.number != 0;
        case Op::kProperty: return a.boolean(n.property);
        case Op::kAnd:
            for (uint32_t i = n.a; i < n.a + n.b; ++i)
                if (!truth(operands_[i], a)) return false;
            return true;
        case Op::kOr:
            for (uint32_t i = n.a; i < n.a + n.b; ++i)
                if (truth(operands_[i], a)) return true;
            return false;
        case Op::kNot: return !truth(n.a, a);
        case Op::kCompare: {
            int64_t l = numberOf(n.a, a), r = numberOf(n.b, a);
            switch (n.compare) {
                case Compare::kLess: return l < r;
                case Compare::kLessEqual: return l <= r;
                case Compare::kGreater: return l > r;
                case Compare::kGreaterEqual: return l >= r;
            }
            return false;
        }
        case Op::kEqual: {
            bool equal = nodes_[n.a].kind == ValueKind::kNumber ? numberOf(n.a, a) == numberOf(n.b, a)
                                                                : truth(n.a, a) == truth(n.b, a);
            return equal != n.negate;
        }
        case Op::kEqualText: return (textOf(n.a, a) == textOf(n.b, a)) != n.negate;
        case Op::kMatch: return matches(n, textOf(n.a, a)) != n.negate;
    }
    return false;
}

Value Expression::evaluate(const Accessor& a) const {
    Value v;
    v.kind = kind_;
    switch (kind_) {
        case ValueKind::kBool: v.boolean = truth(root_, a); break;
        case ValueKind::kNumber: v.number = numberOf(root_, a); break;
        case ValueKind::kString: v.text = textOf(root_, a); break;
    }
    return v;
}

// ---- Free functions ----------------------------------------------------------------------------

std::string_view propertyName(Property p) {
    auto i = static_cast<size_t>(p);
    return i < kPropertyCount ? kProperties[i].name : std::string_view("?");
}

ValueKind propertyKind(Property p) {
    auto i = static_cast<size_t>(p);
    return i < kPropertyCount ? kProperties[i].kind : ValueKind::kBool;
}

bool findProperty(std::string_view name, Property* p) {
    for (const PropertyInfo& info : kProperties) {
        if (info.name == name) {
            *p = info.property;
            return true;
        }
    }
    return false;
}

std::string toString(const Value& v) {
    switch (v.kind) {
        case ValueKind::kBool: return v.boolean ? "true" : "false";
        case ValueKind::kNumber: return std::to_string(v.number);
        case ValueKind::kString: return std::string(v.text);
    }
    return {};
}

std::string_view packageOf(std::string_view type_name) {
    size_t dot = type_name.rfind('.');
    return dot == std::string_view::npos ? std::string_view() : type_name.substr(0, dot);
}

bool globMatch(std::string_view text, std::string_view pattern) {
    auto nextChar = [&](size_t i) {
        ++i;
        while (i < text.size() && isContinuation(text[i]))
            ++i;
        return i;
    };
    size_t t = 0, p = 0;
    size_t star = std::string_view::npos;  // pattern position just past the last '*' seen
    size_t star_text = 0;                  // text position that '*' was last tried up to
    while (t < text.size()) {
        if (p < pattern.size()) {
            char c = pattern[p];
            if (c == '*') {
                star = ++p;
                star_text = t;
                continue;
            }
            if (c == '?' || c == text[t]) {
                t = c == '?' ? nextChar(t) : t + 1;
                ++p;
                continue;
            }
        }
        if (star == std::string_view::npos) return false;
        // Let the last '*' take one more character and try the rest of the pattern again.
        star_text = nextChar(star_text);
        t = star_text;
        p = star;
    }
    while (p < pattern.size() && pattern[p] == '*')
        ++p;
    return p == pattern.size();
}

}  // namespace memcity::expr
