// The built-in classifiers that read one object's own properties (type, package, allocation site,
// call sites, thread, age, array length, kind, size), and parsing of classifier chains.
#include <algorithm>
#include <bit>
#include <charconv>
#include <map>
#include <mutex>
#include <unordered_map>

#include "classify/classifier.h"
#include "classify/expr.h"
#include "classify/expr_classifiers.h"
#include "classify/frame_key.h"
#include "classify/plugin_classifier.h"
#include "classify/ref_classifiers.h"

namespace memcity {

// ---- Keys of frames: method id in the high half, line + 1 in the low half ----

Key frameKey(const Frame& f) {
    return (Key{f.method} << 32) | static_cast<uint32_t>(f.line + 1);
}
Frame keyFrame(Key k) {
    return Frame{static_cast<uint32_t>(k >> 32), static_cast<int32_t>(static_cast<uint32_t>(k)) - 1};
}

namespace {

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

class TypeClassifier final : public Classifier {
public:
    std::string spec() const override { return "type"; }
    Cardinality cardinality() const override { return Cardinality::kOne; }
    bool shapeOnly() const override { return true; }
    bool typeOnly() const override { return true; }
    void classify(const HeapView& heap, size_t pos, std::vector<Key>& out) const override {
        out.push_back(heap.type(pos));
    }
    std::string label(const SymbolTable& symbols, Key key) const override {
        const std::string& name = symbols.type(static_cast<uint32_t>(key)).name;
        return name.empty() ? "<type " + std::to_string(key) + ">" : name;
    }
};

// java -> java.util -> java.util.concurrent, down to `depth` levels (0 = all).
class PackageClassifier final : public Classifier {
public:
    explicit PackageClassifier(uint64_t depth) : depth_(depth) {}
    std::string spec() const override {
        return depth_ ? withParams("package", {{"depth", depth_}}) : std::string("package");
    }
    Cardinality cardinality() const override { return Cardinality::kHierarchy; }
    bool shapeOnly() const override { return true; }
    bool typeOnly() const override { return true; }
    void classify(const HeapView& heap, size_t pos, std::vector<Key>& out) const override {
        // Arrays belong to their element type's package; primitives and their arrays to none.
        const std::string_view package = expr::packageOf(heap.symbols().type(heap.type(pos)).name);
        if (package.empty()) {
            out.push_back(intern("(no package)"));
            return;
        }
        uint64_t levels = 0;
        for (size_t dot = package.find('.');; dot = package.find('.', dot + 1)) {
            out.push_back(intern(std::string(package.substr(0, dot))));
            if (++levels == depth_ || dot == std::string_view::npos) break;
        }
    }
    std::string label(const SymbolTable&, Key key) const override {
        std::lock_guard lock(mutex_);
        return key < names_.size() ? names_[key] : "?";
    }

private:
    Key intern(const std::string& s) const {
        std::lock_guard lock(mutex_);
        auto [it, added] = ids_.try_emplace(s, names_.size());
        if (added) names_.push_back(s);
        return it->second;
    }
    uint64_t depth_;
    mutable std::mutex mutex_;
    mutable std::unordered_map<std::string, Key> ids_;
    mutable std::vector<std::string> names_;
};

// The allocating frame, then up to `callers` of its callers (one-to-hierarchy, ICPE18 §3.3.3).
class SiteClassifier final : public Classifier {
public:
    explicit SiteClassifier(uint64_t callers) : callers_(callers) {}
    std::string spec() const override {
        return callers_ ? withParams("site", {{"callers", callers_}}) : std::string("site");
    }
    Cardinality cardinality() const override { return Cardinality::kHierarchy; }
    bool shapeOnly() const override { return true; }
    void classify(const HeapView& heap, size_t pos, std::vector<Key>& out) const override {
        std::span<const Frame> frames = heap.symbols().siteFrames(heap.site(pos));
        if (frames.empty()) {
            out.push_back(0);
            return;
        }
        const size_t n = std::min<size_t>(frames.size(), callers_ + 1);
        for (size_t i = 0; i < n; ++i)
            out.push_back(frameKey(frames[i]));
    }
    std::string label(const SymbolTable& symbols, Key key) const override {
        return key == 0 ? "<unknown site>" : symbols.frameLabel(keyFrame(key));
    }

private:
    uint64_t callers_;
};

// The closest domain call site (STAG20 §7.2): the first frame of the allocating stack whose
// class is outside the library prefixes, so a String built deep in the JDK is filed under the
// application code that asked for it.
class DomainSiteClassifier final : public Classifier {
public:
    static constexpr std::string_view kDefaultLibraries = "java.|javax.|jdk.|sun.|com.sun.";

    explicit DomainSiteClassifier(std::string libraries) : libraries_text_(std::move(libraries)) {
        for (size_t at = 0; at <= libraries_text_.size();) {
            const size_t bar = std::min(libraries_text_.find('|', at), libraries_text_.size());
            if (bar > at) libraries_.push_back(libraries_text_.substr(at, bar - at));
            at = bar + 1;
        }
    }
    std::string spec() const override {
        return libraries_text_ == kDefaultLibraries ? "domain-site"
                                                    : "domain-site(libraries=" + libraries_text_ + ")";
    }
    Cardinality cardinality() const override { return Cardinality::kOne; }
    bool shapeOnly() const override { return true; }
    void classify(const HeapView& heap, size_t pos, std::vector<Key>& out) const override {
        const SymbolTable& symbols = heap.symbols();
        for (const Frame& f : symbols.siteFrames(heap.site(pos))) {
            const MethodInfo& m = symbols.method(f.method);
            const bool library = std::any_of(libraries_.begin(), libraries_.end(), [&](const std::string& p) {
                return m.class_name.starts_with(p);
            });
            if (!library) {
                out.push_back(frameKey(f));
                return;
            }
        }
        out.push_back(0);
    }
    std::string label(const SymbolTable& symbols, Key key) const override {
        return key == 0 ? "<no domain frame recorded>" : symbols.frameLabel(keyFrame(key));
    }

private:
    std::string libraries_text_;
    std::vector<std::string> libraries_;
};

// Every method on the allocating stack (one-to-many): an object counts under each of them once.
class CallSitesClassifier final : public Classifier {
public:
    std::string spec() const override { return "calls"; }
    Cardinality cardinality() const override { return Cardinality::kMany; }
    bool shapeOnly() const override { return true; }
    void classify(const HeapView& heap, size_t pos, std::vector<Key>& out) const override {
        const size_t first = out.size();
        for (const Frame& f : heap.symbols().siteFrames(heap.site(pos)))
            if (std::find(out.begin() + static_cast<ptrdiff_t>(first), out.end(), Key{f.method}) == out.end())
                out.push_back(f.method);
    }
    std::string label(const SymbolTable& symbols, Key key) const override {
        const MethodInfo& m = symbols.method(static_cast<uint32_t>(key));
        return m.defined ? m.class_name + "." + m.name : "<method " + std::to_string(key) + ">";
    }
};

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

// GCs survived, up to and including the heap's GC (1: born since the previous GC).
class AgeClassifier final : public Classifier {
public:
    std::string spec() const override { return "age"; }
    Cardinality cardinality() const override { return Cardinality::kOne; }
    bool shapeOnly() const override { return false; }
    void classify(const HeapView& heap, size_t pos, std::vector<Key>& out) const override {
        out.push_back(heap.age(pos));
    }
    std::string label(const SymbolTable&, Key key) const override { return "age " + std::to_string(key); }
};

// Array length: exact, or in power-of-two buckets with buckets=1.
class LengthClassifier final : public Classifier {
public:
    explicit LengthClassifier(bool buckets) : buckets_(buckets) {}
    std::string spec() const override { return buckets_ ? "length(buckets=1)" : "length"; }
    Cardinality cardinality() const override { return Cardinality::kOne; }
    bool shapeOnly() const override { return false; }
    void classify(const HeapView& heap, size_t pos, std::vector<Key>& out) const override {
        const uint64_t n = heap.arrayLength(pos);
        if (n == kNoLength)
            out.push_back(kInstance);
        else
            out.push_back(buckets_ ? (n == 0 ? 0 : std::bit_width(n - 1) + 1) : n);
    }
    std::string label(const SymbolTable&, Key key) const override {
        if (key == kInstance) return "not an array";
        if (!buckets_) return "length " + std::to_string(key);
        if (key <= 1) return "length " + std::to_string(key);
        const uint64_t hi = uint64_t{1} << (key - 1), lo = hi / 2 + 1;
        return "length " + std::to_string(lo) + (lo == hi ? "" : "–" + std::to_string(hi));
    }

private:
    static constexpr Key kInstance = ~Key{0};
    bool buckets_;
};

// Instance, small array or big array (length >= big).
class KindClassifier final : public Classifier {
public:
    explicit KindClassifier(uint64_t big) : big_(big) {}
    std::string spec() const override {
        return big_ == kBigArrayLength ? "kind" : withParams("kind", {{"big", big_}});
    }
    Cardinality cardinality() const override { return Cardinality::kOne; }
    bool shapeOnly() const override { return false; }
    void classify(const HeapView& heap, size_t pos, std::vector<Key>& out) const override {
        const uint64_t n = heap.arrayLength(pos);
        out.push_back(n == kNoLength ? 0 : n < big_ ? 1 : 2);
    }
    std::string label(const SymbolTable&, Key key) const override {
        return key == 0 ? "instance" : key == 1 ? "small array" : "big array";
    }

private:
    uint64_t big_;
};

// Object size in power-of-two buckets: "17 B – 32 B", "1025 B – 2 KiB".
class SizeClassifier final : public Classifier {
public:
    std::string spec() const override { return "size"; }
    Cardinality cardinality() const override { return Cardinality::kOne; }
    bool shapeOnly() const override { return false; }
    void classify(const HeapView& heap, size_t pos, std::vector<Key>& out) const override {
        const uint64_t s = heap.size(pos);
        out.push_back(s <= 1 ? 0 : static_cast<Key>(std::bit_width(s - 1)));
    }
    std::string label(const SymbolTable&, Key key) const override {
        if (key == 0) return "0 B – 1 B";
        const uint64_t hi = uint64_t{1} << key, lo = hi / 2 + 1;
        auto bytes = [](uint64_t b) {
            if (b >= (uint64_t{1} << 30) && b % (uint64_t{1} << 30) == 0)
                return std::to_string(b >> 30) + " GiB";
            if (b >= (uint64_t{1} << 20) && b % (uint64_t{1} << 20) == 0)
                return std::to_string(b >> 20) + " MiB";
            if (b >= 1024 && b % 1024 == 0) return std::to_string(b >> 10) + " KiB";
            return std::to_string(b) + " B";
        };
        return lo == hi ? bytes(hi) : std::to_string(lo) + " B – " + bytes(hi);
    }
};

// ---- Parsing ----

struct ParsedSpec {
    std::string name;
    std::vector<std::pair<std::string, std::string>> params;
};

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

// A classifier that takes no parameters.
template <typename C>
Result<std::unique_ptr<Classifier>> makePlain(const std::string& item) {
    std::map<std::string, uint64_t> values;
    if (Status ok = takeNumbers(item, {}, values); !ok) return ok.error();
    return std::unique_ptr<Classifier>(std::make_unique<C>());
}

Result<std::unique_ptr<Classifier>> makePackage(const std::string& item) {
    std::map<std::string, uint64_t> values;
    if (Status ok = takeNumbers(item, {{"depth", 0}}, values); !ok) return ok.error();
    return std::unique_ptr<Classifier>(std::make_unique<PackageClassifier>(values["depth"]));
}

Result<std::unique_ptr<Classifier>> makeSite(const std::string& item) {
    std::map<std::string, uint64_t> values;
    if (Status ok = takeNumbers(item, {{"callers", 0}}, values); !ok) return ok.error();
    return std::unique_ptr<Classifier>(std::make_unique<SiteClassifier>(values["callers"]));
}

// Its one parameter is a list of prefixes, not a number.
Result<std::unique_ptr<Classifier>> makeDomainSite(const std::string& item) {
    auto parsed = parseSpec(item);
    if (!parsed) return parsed.error();
    std::string libraries(DomainSiteClassifier::kDefaultLibraries);
    for (const auto& [k, v] : parsed->params) {
        if (k != "libraries")
            return Error{"classifier '" + item + "': unknown parameter '" + k + "' (parameters: libraries)"};
        libraries = v;
    }
    return std::unique_ptr<Classifier>(std::make_unique<DomainSiteClassifier>(std::move(libraries)));
}

Result<std::unique_ptr<Classifier>> makeLength(const std::string& item) {
    std::map<std::string, uint64_t> values;
    if (Status ok = takeNumbers(item, {{"buckets", 0}}, values); !ok) return ok.error();
    return std::unique_ptr<Classifier>(std::make_unique<LengthClassifier>(values["buckets"] != 0));
}

Result<std::unique_ptr<Classifier>> makeKind(const std::string& item) {
    std::map<std::string, uint64_t> values;
    if (Status ok = takeNumbers(item, {{"big", kBigArrayLength}}, values); !ok) return ok.error();
    if (values["big"] == 0) return Error{"classifier '" + item + "': big must be at least 1"};
    return std::unique_ptr<Classifier>(std::make_unique<KindClassifier>(values["big"]));
}

// ref_classifiers.h parses their parameters (an inner chain, 0/1 flags).
Result<std::unique_ptr<Classifier>> makeReference(const std::string& item) {
    return makeReferenceClassifier(item, item.substr(0, item.find('(')));
}

// "{EXPR}": the expression between the braces.
Result<std::unique_ptr<Classifier>> makeExpression(const std::string& item) {
    auto c = parseExpressionClassifier(std::string_view(item).substr(1, item.size() - 2));
    if (!c) return Error{"classifier '" + item + "': " + c.error().message};
    return c;
}

using Needs = ClassifierNeeds;

// The built-in classifiers, in the order the menus and "unknown" errors list them.
const std::vector<ClassifierInfo> kBuiltins = {
    {"type", "", "the object's type: java.util.HashMap, int[]", "type", "the object's type", Needs::kShape,
     makePlain<TypeClassifier>},
    {"package", "depth=N (default: all levels)", "the type's package, outermost first: java, java.util",
     "package(depth=N)", "the type's package, outermost first (default: all levels)", Needs::kShape,
     makePackage},
    {"site", "callers=N (default 0)", "the allocating frame, then N of its callers", "site(callers=N)",
     "the allocating frame, then N of its callers (default 0)", Needs::kShape, makeSite},
    {"domain-site", "libraries=P|P... (default java.|javax.|jdk.|sun.|com.sun.)",
     "the closest domain call site: the first allocating frame outside the library prefixes", "", "",
     Needs::kShape, makeDomainSite},
    {"calls", "", "every method on the allocating stack (an object counts under each once)", "calls",
     "every method on the allocating stack (an object counts under each once)", Needs::kShape,
     makePlain<CallSitesClassifier>},
    {"thread", "", "the allocating thread", "thread", "the allocating thread", Needs::kShape,
     makePlain<ThreadClassifier>},
    {"age", "", "GCs survived (1: born since the previous GC)", "age",
     "GCs survived (1: born since the previous GC)", Needs::kObject, makePlain<AgeClassifier>},
    {"length", "buckets=1 (default 0)", "array length, exact or in power-of-two buckets", "length(buckets=1)",
     "array length, exact or in power-of-two buckets", Needs::kObject, makeLength},
    {"kind", "big=N (default 256)", "instance, small array, big array (length >= N)", "kind(big=N)",
     "instance, small array, big array (length >= N, default 256)", Needs::kObject, makeKind},
    {"size", "", "object size in power-of-two buckets", "size", "object size in power-of-two buckets",
     Needs::kObject, makePlain<SizeClassifier>},
    {"rooted", "",
     "the GC roots referencing the object itself: kind, then class and field, or thread and method", "rooted",
     "the GC roots referencing the object: kind, class, static field / thread, method", Needs::kReferences,
     makeReference},
    {"roots", "", "the closest GC roots reaching the object; 'alive, root not reported' when none does",
     "roots", "the closest GC roots reaching it (\"alive, root not reported\" when none)", Needs::kReferences,
     makeReference},
    {"structure", "", "the data structure holding the object: java.util.HashMap (allocated in ...)",
     "structure", "the data structure holding it: java.util.HashMap (allocated in ...)", Needs::kReferences,
     makeReference},
    {"dominator", "",
     "what holds the object: the type of its top-level dominator (below the roots; itself when none)", "", "",
     Needs::kReferences, makeReference},
    {"in-degree", "", "how many references point to the object, in buckets", "in-degree",
     "references to it, in buckets; out-degree: references it holds", Needs::kReferences, makeReference},
    {"out-degree", "", "how many references the object holds, in buckets", "", "", Needs::kReferences,
     makeReference},
    {"points-to", "(CHAIN) (default type)", "the objects it references, classified by CHAIN", "points-to(C)",
     "the objects it references, classified by chain C (default type)", Needs::kReferences, makeReference},
    {"pointed-from", "(CHAIN) (default type)", "the objects referencing it, classified by CHAIN",
     "pointed-from(C)", "the objects referencing it, classified by chain C", Needs::kReferences,
     makeReference},
    {"{EXPR}", "", "the value of an expression (docs/expressions.md): {site.method}, {size > 1k}", "{EXPR}",
     "the value of an expression, e.g. {site.method} or {size > 1k}", Needs::kObject, makeExpression},
};

Result<std::unique_ptr<Classifier>> makeClassifier(const std::string& item) {
    if (item.front() == '{' && item.back() == '}') return makeExpression(item);
    const std::string name = item.substr(0, item.find('('));
    const ClassifierInfo* info = findClassifier(name);
    // The reference classifiers parse their own parameters (an inner chain, 0/1 flags).
    if (info && info->needs == Needs::kReferences) return info->make(item);
    auto parsed = parseSpec(item);
    if (!parsed) return parsed.error();
    if (!info) {
        std::string names;
        for (const ClassifierInfo& c : kBuiltins)
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
    return kBuiltins;
}

const ClassifierInfo* findClassifier(std::string_view name) {
    if (name.starts_with('{')) return nullptr;  // an expression is known by its braces
    for (const ClassifierInfo& c : kBuiltins)
        if (c.name == name) return &c;
    return nullptr;
}

std::string classifierListing() {
    auto line = [](std::string_view usage, std::string_view help) {
        std::string s = "  " + std::string(usage);
        s.resize(std::max<size_t>(s.size(), 18), ' ');
        return s + " " + std::string(help) + "\n";
    };
    std::string own, references;
    for (const ClassifierInfo& c : kBuiltins)
        if (!c.usage.empty()) (c.needs == Needs::kReferences ? references : own) += line(c.usage, c.help);
    // A plugin is not built in: its line follows the built-ins'.
    own += line("plugin(path=F,...)", "a classifier from a shared library F (docs/plugins.md)");
    return own + "These read the references, so they need a GC with a reference snapshot:\n" + references;
}

}  // namespace memcity
