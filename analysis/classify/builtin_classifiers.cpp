// The table of built-in classifiers, built from one list (MEMCITY_CLASSIFIERS below), and parsing
// of classifier chains. Each classifier is in its own file, classify/classifiers/NAME.cpp, with
// its factory and its entry; what they share is classify/builtin_support.h.
#include <algorithm>
#include <charconv>
#include <map>

#include "classify/builtin_support.h"
#include "classify/classifier.h"
#include "classify/frame_key.h"
#include "classify/plugin_classifier.h"
#include "classify/ref_classifiers.h"

// One line per built-in classifier, in the order the menus, the help's list and "unknown
// classifier" errors show them. Adding one: define `extern const ClassifierInfo kNameClassifier{...}`
// in its classifiers/NAME.cpp and add its line here. (The list names each entry itself, so that
// the linker keeps every classifiers/*.cpp of the static library.)
#define MEMCITY_CLASSIFIERS(X) \
    X(kTypeClassifier)         \
    X(kPackageClassifier)      \
    X(kSiteClassifier)         \
    X(kDomainSiteClassifier)   \
    X(kCallsClassifier)        \
    X(kThreadClassifier)       \
    X(kAgeClassifier)          \
    X(kLengthClassifier)       \
    X(kKindClassifier)         \
    X(kSizeClassifier)         \
    X(kRootedClassifier)       \
    X(kRootsClassifier)        \
    X(kStructureClassifier)    \
    X(kDominatorClassifier)    \
    X(kInDegreeClassifier)     \
    X(kOutDegreeClassifier)    \
    X(kPointsToClassifier)     \
    X(kPointedFromClassifier)  \
    X(kExpressionClassifier)

namespace memcity {

#define MEMCITY_DECLARE_CLASSIFIER(k) extern const ClassifierInfo k;
MEMCITY_CLASSIFIERS(MEMCITY_DECLARE_CLASSIFIER)
#undef MEMCITY_DECLARE_CLASSIFIER

// ---- Keys of frames: method id in the high half, line + 1 in the low half ----

Key frameKey(const Frame& f) {
    return (Key{f.method} << 32) | static_cast<uint32_t>(f.line + 1);
}
Frame keyFrame(Key k) {
    return Frame{static_cast<uint32_t>(k >> 32), static_cast<int32_t>(static_cast<uint32_t>(k)) - 1};
}

// Names made of parameters, shown back to the user: "site(callers=2)".
std::string withParams(std::string_view name, const std::vector<std::pair<std::string, uint64_t>>& params) {
    std::string s(name);
    bool any = false;
    for (const auto& [k, v] : params) {
        s += any ? "," : "(";
        s += k + "=" + std::to_string(v);
        any = true;
    }
    return any ? s + ")" : s;
}

// ---- Parsing ----

Result<ParsedSpec> parseSpec(const std::string& item) {
    ParsedSpec p;
    const size_t open = item.find('(');
    p.name = item.substr(0, open);
    if (open == std::string::npos) return p;
    if (item.back() != ')') return Error{"classifier '" + item + "': expected ')' at the end"};
    std::string inner = item.substr(open + 1, item.size() - open - 2);
    size_t start = 0;
    while (start <= inner.size() && !inner.empty()) {
        size_t comma = inner.find(',', start);
        std::string kv = inner.substr(start, comma == std::string::npos ? std::string::npos : comma - start);
        const size_t eq = kv.find('=');
        if (eq == std::string::npos || eq == 0 || eq + 1 == kv.size())
            return Error{"classifier '" + item + "': expected PARAM=VALUE, found '" + kv + "'"};
        p.params.emplace_back(kv.substr(0, eq), kv.substr(eq + 1));
        if (comma == std::string::npos) break;
        start = comma + 1;
    }
    return p;
}

// Reads the whole-number parameters of `item` into `values`: each of `allowed` (its name, its
// default) and no other. Errors name the spec and what was expected.
Status takeNumbers(const std::string& item, std::initializer_list<std::pair<const char*, uint64_t>> allowed,
                   std::map<std::string, uint64_t>& values) {
    auto parsed = parseSpec(item);
    if (!parsed) return parsed.error();
    for (auto [k, def] : allowed)
        values[k] = def;
    for (const auto& [k, v] : parsed->params) {
        auto it = values.find(k);
        if (it == values.end()) {
            std::string names;
            for (auto [a, d] : allowed)
                names += std::string(names.empty() ? "" : ", ") + a;
            return Error{"classifier '" + item + "': unknown parameter '" + k + "'" +
                         (names.empty() ? " (it takes none)" : " (parameters: " + names + ")")};
        }
        uint64_t n = 0;
        auto [end, ec] = std::from_chars(v.data(), v.data() + v.size(), n);
        if (ec != std::errc() || end != v.data() + v.size() || n > 1'000'000)
            return Error{"classifier '" + item + "': " + k + " expects a whole number, got '" + v + "'"};
        it->second = n;
    }
    return {};
}

namespace {

// Splits "a,b(x=1,y=2),{size > 1k},c" at the commas outside parentheses, braces and quotes;
// spaces are dropped outside braces.
Result<std::vector<std::string>> splitChain(std::string_view text) {
    std::vector<std::string> items;
    int parens = 0, braces = 0;
    bool quoted = false;
    std::string current;
    for (size_t i = 0; i < text.size(); ++i) {
        const char c = text[i];
        if (quoted) {
            current += c;
            if (c == '\\' && i + 1 < text.size())
                current += text[++i];
            else if (c == '"')
                quoted = false;
            continue;
        }
        if (c == '"') quoted = true;
        if (c == '(') ++parens;
        if (c == '{') ++braces;
        if ((c == ')' && --parens < 0) || (c == '}' && --braces < 0))
            return Error{"classifiers '" + std::string(text) + "': unbalanced '" + std::string(1, c) + "'"};
        if (c == ',' && parens == 0 && braces == 0) {
            items.push_back(current);
            current.clear();
        } else if (c != ' ' || braces > 0) {
            current += c;
        }
    }
    if (quoted) return Error{"classifiers '" + std::string(text) + "': unterminated string"};
    if (parens != 0) return Error{"classifiers '" + std::string(text) + "': missing ')'"};
    if (braces != 0) return Error{"classifiers '" + std::string(text) + "': missing '}'"};
    items.push_back(current);
    for (const std::string& item : items)
        if (item.empty()) return Error{"classifiers '" + std::string(text) + "': an empty classifier name"};
    return items;
}

Result<std::unique_ptr<Classifier>> makeClassifier(const std::string& item) {
    if (item.front() == '{' && item.back() == '}') return kExpressionClassifier.make(item);
    const std::string name = item.substr(0, item.find('('));
    const ClassifierInfo* info = findClassifier(name);
    // The reference classifiers parse their own parameters (an inner chain, 0/1 flags).
    if (info && info->needs == ClassifierNeeds::kReferences) return info->make(item);
    auto parsed = parseSpec(item);
    if (!parsed) return parsed.error();
    if (!info) {
        std::string names;
        for (const ClassifierInfo& c : builtinClassifiers())
            names += std::string(names.empty() ? "" : ", ") + std::string(c.name);
        if (name.find_first_of(" <>=!~&|\"") != std::string::npos)
            return Error{"classifier '" + item + "': unknown; an expression goes in braces: {" + item + "}"};
        return Error{"classifier '" + name + "': unknown (classifiers: " + names + ")"};
    }
    return info->make(item);
}

}  // namespace

bool ClassifierChain::shapeOnly() const {
    return std::all_of(classifiers.begin(), classifiers.end(),
                       [](const auto& c) { return c->shapeOnly(); }) &&
           std::all_of(filters.begin(), filters.end(), [](const auto& f) { return f->shapeOnly(); });
}

bool ClassifierChain::needsReferences() const {
    return std::any_of(classifiers.begin(), classifiers.end(),
                       [](const auto& c) { return c->needsReferences(); });
}

std::string ClassifierChain::spec() const {
    std::string s;
    for (const auto& c : classifiers)
        s += (s.empty() ? "" : ",") + c->spec();
    return s;
}

Result<ClassifierChain> parseChain(std::string_view text) {
    // The errors echo the text: a newline in it (a chain from a settings file, a script or the
    // editor) is written \n, as any control character is escaped, so that they stay one line.
    auto oneLine = [](const Error& e) { return Error{printable(e.message, std::string::npos)}; };
    auto items = splitChain(text);
    if (!items) return oneLine(items.error());
    ClassifierChain chain;
    for (const std::string& item : *items) {
        auto c = isPluginSpec(item) ? loadPluginClassifier(item) : makeClassifier(item);
        if (!c) return oneLine(c.error());
        chain.classifiers.push_back(std::move(*c));
    }
    return chain;
}

const std::vector<ClassifierInfo>& builtinClassifiers() {
#define MEMCITY_LIST_CLASSIFIER(k) k,
    static const std::vector<ClassifierInfo> table = {MEMCITY_CLASSIFIERS(MEMCITY_LIST_CLASSIFIER)};
#undef MEMCITY_LIST_CLASSIFIER
    return table;
}

const ClassifierInfo* findClassifier(std::string_view name) {
    if (name.starts_with('{')) return nullptr;  // an expression is known by its braces
    for (const ClassifierInfo& c : builtinClassifiers())
        if (c.name == name) return &c;
    return nullptr;
}

bool isReferenceClassifier(std::string_view name) {
    const ClassifierInfo* c = findClassifier(name);
    return c && c->needs == ClassifierNeeds::kReferences;
}

std::string classifierListing() {
    auto line = [](std::string_view usage, std::string_view help) {
        std::string s = "  " + std::string(usage);
        s.resize(std::max<size_t>(s.size(), 18), ' ');
        return s + " " + std::string(help) + "\n";
    };
    std::string own, references;
    for (const ClassifierInfo& c : builtinClassifiers())
        if (!c.usage.empty())
            (c.needs == ClassifierNeeds::kReferences ? references : own) += line(c.usage, c.help);
    // A plugin is not built in: its line follows the built-ins'.
    own += line("plugin(path=F,...)", "a classifier from a shared library F (docs/plugins.md)");
    return own + "These read the references, so they need a GC with a reference snapshot:\n" + references;
}

}  // namespace memcity
