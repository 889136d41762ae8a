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

const std::vector<ClassifierInfo> kBuiltins = {
    {"type", "", "the object's type: java.util.HashMap, int[]"},
    {"package", "depth=N (default: all levels)", "the type's package, outermost first: java, java.util"},
    {"site", "callers=N (default 0)", "the allocating frame, then N of its callers"},
    {"domain-site", "libraries=P|P... (default java.|javax.|jdk.|sun.|com.sun.)",
     "the closest domain call site: the first allocating frame outside the library prefixes"},
    {"calls", "", "every method on the allocating stack (an object counts under each once)"},
    {"thread", "", "the allocating thread"},
    {"age", "", "GCs survived (1: born since the previous GC)"},
    {"length", "buckets=1 (default 0)", "array length, exact or in power-of-two buckets"},
    {"kind", "big=N (default 256)", "instance, small array, big array (length >= N)"},
    {"size", "", "object size in power-of-two buckets"},
    {"rooted", "",
     "the GC roots referencing the object itself: kind, then class and field, or thread and method"},
    {"roots", "", "the closest GC roots reaching the object; 'alive, root not reported' when none does"},
    {"structure", "", "the data structure holding the object: java.util.HashMap (allocated in ...)"},
    {"dominator", "",
     "what holds the object: the type of its top-level dominator (below the roots; itself when none)"},
    {"in-degree", "", "how many references point to the object, in buckets"},
    {"out-degree", "", "how many references the object holds, in buckets"},
    {"points-to", "(CHAIN) (default type)", "the objects it references, classified by CHAIN"},
    {"pointed-from", "(CHAIN) (default type)", "the objects referencing it, classified by CHAIN"},
    {"{EXPR}", "", "the value of an expression (docs/expressions.md): {site.method}, {size > 1k}"},
};

Result<std::unique_ptr<Classifier>> makeClassifier(const std::string& item) {
    if (item.front() == '{' && item.back() == '}') {
        auto c = parseExpressionClassifier(std::string_view(item).substr(1, item.size() - 2));
        if (!c) return Error{"classifier '" + item + "': " + c.error().message};
        return c;
    }
    if (const std::string name = item.substr(0, item.find('(')); isReferenceClassifier(name))
        return makeReferenceClassifier(item, name);
    auto parsed = parseSpec(item);
    if (!parsed) return parsed.error();
    const ParsedSpec& p = *parsed;
    if (p.name == "domain-site") {  // its one parameter is a list of prefixes, not a number
        std::string libraries(DomainSiteClassifier::kDefaultLibraries);
        for (const auto& [k, v] : p.params) {
            if (k != "libraries")
                return Error{"classifier '" + item + "': unknown parameter '" + k +
                             "' (parameters: libraries)"};
            libraries = v;
        }
        return std::unique_ptr<Classifier>(std::make_unique<DomainSiteClassifier>(std::move(libraries)));
    }
    // Each classifier takes the parameters it names; values are whole numbers.
    std::map<std::string, uint64_t> values;
    auto take = [&](std::initializer_list<std::pair<const char*, uint64_t>> allowed) -> Status {
        for (auto [k, def] : allowed)
            values[k] = def;
        for (const auto& [k, v] : p.params) {
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
    };
    Status ok;
    std::unique_ptr<Classifier> c;
    if (p.name == "type") {
        ok = take({});
        c = std::make_unique<TypeClassifier>();
    } else if (p.name == "package") {
        ok = take({{"depth", 0}});
        c = std::make_unique<PackageClassifier>(values["depth"]);
    } else if (p.name == "site") {
        ok = take({{"callers", 0}});
        c = std::make_unique<SiteClassifier>(values["callers"]);
    } else if (p.name == "calls") {
        ok = take({});
        c = std::make_unique<CallSitesClassifier>();
    } else if (p.name == "thread") {
        ok = take({});
        c = std::make_unique<ThreadClassifier>();
    } else if (p.name == "age") {
        ok = take({});
        c = std::make_unique<AgeClassifier>();
    } else if (p.name == "length") {
        ok = take({{"buckets", 0}});
        c = std::make_unique<LengthClassifier>(values["buckets"] != 0);
    } else if (p.name == "kind") {
        ok = take({{"big", kBigArrayLength}});
        if (ok && values["big"] == 0) return Error{"classifier '" + item + "': big must be at least 1"};
        c = std::make_unique<KindClassifier>(values["big"]);
    } else if (p.name == "size") {
        ok = take({});
        c = std::make_unique<SizeClassifier>();
    } else {
        std::string names;
        for (const ClassifierInfo& info : kBuiltins)
            names += std::string(names.empty() ? "" : ", ") + std::string(info.name);
        if (p.name.find_first_of(" <>=!~&|\"") != std::string::npos)
            return Error{"classifier '" + item + "': unknown; an expression goes in braces: {" + item + "}"};
        return Error{"classifier '" + p.name + "': unknown (classifiers: " + names + ")"};
    }
    if (!ok) return ok.error();
    return c;
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

}  // namespace memcity
