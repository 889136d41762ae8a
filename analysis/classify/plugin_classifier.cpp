// Plugin classifiers: a shared library opened with dlopen, its descriptor checked once, and an
// adapter that hands it one object at a time as a memcity_object (memcity_plugin.h).
#include "classify/plugin_classifier.h"

#include <dlfcn.h>
#include <sys/stat.h>

#include <algorithm>
#include <atomic>
#include <cerrno>
#include <cstdio>
#include <cstring>
#include <filesystem>
#include <map>
#include <mutex>

#include "classify/memcity_plugin.h"

namespace memcity {
namespace {

// The key under which objects go when the plugin broke its contract for them (reserved by the ABI).
constexpr Key kPluginErrorKey = ~Key{0};
static_assert(MEMCITY_RESERVED_KEY_MIN == ~Key{0} - 1, "the ABI reserves the two largest keys");

constexpr uint32_t kDefaultMaxKeys = 64;
constexpr uint32_t kMostMaxKeys = 65536;
// Labels longer than this are cut.
constexpr size_t kMostLabelBytes = 65536;

// ---- Parsing the item ----

struct PluginSpec {
    std::string path;
    std::vector<std::pair<std::string, std::string>> params;  // other than path, in order
};

// A value as written, or the inside of "..." with \" and \\ undone.
Result<std::string> unquote(const std::string& v) {
    if (v.empty() || v.front() != '"') return v;
    if (v.size() < 2 || v.back() != '"') return Error{"unterminated string " + v};
    std::string out;
    for (size_t i = 1; i + 1 < v.size(); ++i) {
        if (v[i] == '\\' && i + 2 < v.size()) ++i;
        out += v[i];
    }
    return out;
}

Result<PluginSpec> parsePluginSpec(const std::string& item) {
    const std::string where = "classifier '" + item + "': ";
    const size_t open = item.find('(');
    if (open == std::string::npos) return Error{where + "path=FILE is required (see docs/plugins.md)"};
    if (item.back() != ')') return Error{where + "expected ')' at the end"};
    const std::string inner = item.substr(open + 1, item.size() - open - 2);
    // PARAM=VALUE items split at the commas outside quotes.
    std::vector<std::string> items;
    std::string current;
    bool quoted = false;
    for (size_t i = 0; i < inner.size(); ++i) {
        const char c = inner[i];
        if (quoted && c == '\\' && i + 1 < inner.size()) {
            current += c;
            current += inner[++i];
            continue;
        }
        if (c == '"') quoted = !quoted;
        if (c == ',' && !quoted) {
            items.push_back(std::move(current));
            current.clear();
        } else {
            current += c;
        }
    }
    if (!inner.empty()) items.push_back(std::move(current));
    PluginSpec spec;
    bool have_path = false;
    std::vector<std::string> seen;
    for (const std::string& kv : items) {
        const size_t eq = kv.find('=');
        if (eq == std::string::npos || eq == 0 || eq + 1 == kv.size())
            return Error{where + "expected PARAM=VALUE, found '" + kv + "'"};
        const std::string key = kv.substr(0, eq);
        auto value = unquote(kv.substr(eq + 1));
        if (!value) return Error{where + key + ": " + value.error().message};
        if (std::find(seen.begin(), seen.end(), key) != seen.end())
            return Error{where + "parameter '" + key + "' is given twice"};
        seen.push_back(key);
        if (key == "path") {
            spec.path = std::move(*value);
            have_path = true;
        } else {
            spec.params.emplace_back(key, std::move(*value));
        }
    }
    if (!have_path) return Error{where + "path=FILE is required (see docs/plugins.md)"};
    return spec;
}

// ---- The loaded library ----

struct Library {
    void* handle = nullptr;
    ~Library() {
        if (handle) dlclose(handle);
    }
};

// What memcity_object's get_ functions read, for the duration of one classify call.
struct HostObject {
    const HeapView* heap;
    size_t pos;
    uint32_t site;
};

const HostObject& hostOf(const memcity_object* object) {
    return *static_cast<const HostObject*>(object->host);
}

uint64_t getId(const memcity_object* object) {
    const HostObject& h = hostOf(object);
    return h.heap->id(h.pos);
}

uint32_t getBirthGc(const memcity_object* object) {
    const HostObject& h = hostOf(object);
    return h.heap->birthGc(h.pos);
}

uint32_t getAge(const memcity_object* object) {
    const HostObject& h = hostOf(object);
    return h.heap->age(h.pos);
}

uint32_t getFrameCount(const memcity_object* object) {
    const HostObject& h = hostOf(object);
    return static_cast<uint32_t>(h.heap->symbols().siteFrames(h.site).size());
}

int getFrame(const memcity_object* object, uint32_t index, memcity_frame* out) {
    const HostObject& h = hostOf(object);
    const SymbolTable& symbols = h.heap->symbols();
    const std::span<const Frame> frames = symbols.siteFrames(h.site);
    if (index >= frames.size()) return 0;
    const Frame& f = frames[index];
    const MethodInfo& m = symbols.method(f.method);
    out->class_name = {m.class_name.data(), m.class_name.size()};
    out->method = {m.name.data(), m.name.size()};
    out->line = f.line;
    out->method_id = f.method;
    return 1;
}

memcity_string view(const std::string& s) {
    return {s.data(), s.size()};
}

class PluginClassifier final : public Classifier {
public:
    PluginClassifier(std::string spec, std::shared_ptr<Library> library, const memcity_plugin* plugin,
                     void* instance)
        : spec_(std::move(spec)),
          library_(std::move(library)),
          plugin_(plugin),
          instance_(instance),
          cardinality_(plugin->cardinality == MEMCITY_ONE    ? Cardinality::kOne
                       : plugin->cardinality == MEMCITY_MANY ? Cardinality::kMany
                                                             : Cardinality::kHierarchy),
          capacity_(cardinality_ == Cardinality::kOne ? 1
                    : plugin->max_keys == 0           ? kDefaultMaxKeys
                                                      : plugin->max_keys) {}
    ~PluginClassifier() override {
        if (plugin_->init && plugin_->destroy) plugin_->destroy(instance_);
    }
    PluginClassifier(const PluginClassifier&) = delete;
    PluginClassifier& operator=(const PluginClassifier&) = delete;

    std::string spec() const override { return spec_; }
    Cardinality cardinality() const override { return cardinality_; }
    bool shapeOnly() const override { return plugin_->shape_only != 0; }

    void classify(const HeapView& heap, size_t pos, std::vector<Key>& out) const override {
        const SymbolTable& symbols = heap.symbols();
        const Shape& shape = heap.shape(pos);
        const HostObject host{&heap, pos, shape.site};
        memcity_object o;
        o.type_id = shape.type;
        o.site_id = shape.site;
        o.thread_id = shape.thread;
        o.is_array = shape.size == 0;
        o.type_name = view(symbols.type(shape.type).name);
        o.thread_name = view(symbols.thread(shape.thread).name);
        o.length = shape.size == 0 ? heap.store().arrayLength(pos) : 0;
        o.size = shape.size != 0 ? shape.size : heap.size(pos);
        o.gc = heap.gc();
        o.get_id = getId;
        o.get_birth_gc = getBirthGc;
        o.get_age = getAge;
        o.get_frame_count = getFrameCount;
        o.get_frame = getFrame;
        o.host = &host;

        if (cardinality_ == Cardinality::kOne) {
            Key key = 0;
            const size_t n = plugin_->classify(instance_, &o, &key, 1);
            if (n != 1 || key >= MEMCITY_RESERVED_KEY_MIN) {
                breach(heap.id(pos), n, n == 1 ? key : 0);
                key = kPluginErrorKey;
            }
            out.push_back(key);
            return;
        }
        const size_t first = out.size();
        out.resize(first + capacity_);
        Key* keys = out.data() + first;
        const size_t n = plugin_->classify(instance_, &o, keys, capacity_);
        const Key* reserved =
            n <= capacity_ ? std::find_if(keys, keys + n, [](Key k) { return k >= MEMCITY_RESERVED_KEY_MIN; })
                           : keys + n;
        if (n > capacity_ || reserved != keys + n || (n == 0 && cardinality_ == Cardinality::kHierarchy)) {
            breach(heap.id(pos), n, reserved != keys + n ? *reserved : 0);
            out.resize(first);
            out.push_back(kPluginErrorKey);
            return;
        }
        out.resize(first + n);
    }

    std::string label(const SymbolTable&, Key key) const override {
        if (key == kPluginErrorKey) return "(plugin error)";
        char buffer[256];
        const size_t n = plugin_->label(instance_, key, buffer, sizeof buffer);
        if (n < sizeof buffer) return std::string(buffer, n);
        std::string s(std::min(n, kMostLabelBytes) + 1, '\0');
        const size_t again = plugin_->label(instance_, key, s.data(), s.size());
        s.resize(std::min(again, s.size() - 1));
        return s;
    }

    Status failure() const {
        if (!failed_.load(std::memory_order_acquire)) return {};
        std::lock_guard lock(mutex_);
        return Error{failure_};
    }

private:
    // Records the first breach of contract (n keys returned for object `id`).
    void breach(uint64_t id, size_t n, Key reserved_key) const {
        std::lock_guard lock(mutex_);
        if (failed_.load(std::memory_order_relaxed)) return;
        std::string what;
        if (n > capacity_)
            what = std::to_string(n) + " keys, more than the capacity " + std::to_string(capacity_);
        else if (n == 0)
            what = cardinality_ == Cardinality::kOne ? "no key (a one-to-one classifier gives exactly one)"
                                                     : "no key (a path has at least one)";
        else
            what = "the reserved key " + std::to_string(reserved_key);
        failure_ = "classifier '" + spec_ + "': " + printable(plugin_->name, 80) + ": classify returned " +
                   what + " for object " + std::to_string(id);
        failed_.store(true, std::memory_order_release);
    }

    std::string spec_;
    std::shared_ptr<Library> library_;  // destroyed after the instance
    const memcity_plugin* plugin_;
    void* instance_;
    Cardinality cardinality_;
    size_t capacity_;
    mutable std::mutex mutex_;
    mutable std::atomic<bool> failed_{false};
    mutable std::string failure_;
};

// The plugin's init message on one line, whatever it wrote.
std::string initMessage(const char* buffer, size_t capacity) {
    std::string s(buffer, strnlen(buffer, capacity));
    std::replace_if(
        s.begin(), s.end(), [](char c) { return c == '\n' || c == '\r'; }, ' ');
    return s.empty() ? "init failed without a message" : printable(s, 400);
}

}  // namespace

bool isPluginSpec(std::string_view item) {
    return item == "plugin" || item.starts_with("plugin(");
}

Status checkPluginSpec(std::string_view item_text, bool absolute_only) {
    const std::string item(item_text);
    auto spec = parsePluginSpec(item);
    if (!spec) return spec.error();
    if (absolute_only && !spec->path.starts_with("/"))
        return Error{"classifier '" + item + "': " + spec->path +
                     ": a relative path; give the plugin's absolute path (/.../x.so)"};
    return {};
}

namespace {

// The libraries opened so far, by resolved path, each with the file's identity when it was
// opened: a chain applied again, or many windows, open a library once.
struct OpenedLibrary {
    struct stat st {};
    std::shared_ptr<Library> library;
};
std::mutex g_libraries_mutex;
std::map<std::string, OpenedLibrary> g_libraries;
std::atomic<size_t> g_library_loads{0};

bool sameFile(const struct stat& a, const struct stat& b) {
    return a.st_dev == b.st_dev && a.st_ino == b.st_ino && a.st_size == b.st_size &&
           a.st_mtim.tv_sec == b.st_mtim.tv_sec && a.st_mtim.tv_nsec == b.st_mtim.tv_nsec;
}

// The library at `resolved`, opened now or earlier. Error: dlopen's text.
Result<std::shared_ptr<Library>> openLibrary(const std::string& resolved, const struct stat& st) {
    std::lock_guard lock(g_libraries_mutex);
    if (auto it = g_libraries.find(resolved); it != g_libraries.end()) {
        if (sameFile(it->second.st, st)) return it->second.library;
        g_libraries.erase(it);  // changed: closed once its classifiers are gone
    }
    auto library = std::make_shared<Library>();
    library->handle = dlopen(resolved.c_str(), RTLD_NOW | RTLD_LOCAL);
    ++g_library_loads;
    if (!library->handle) {
        const char* why = dlerror();
        return Error{why ? why : "dlopen failed"};
    }
    g_libraries[resolved] = {st, library};
    return library;
}

}  // namespace

size_t pluginLibraryLoads() {
    return g_library_loads.load();
}

Result<std::unique_ptr<Classifier>> loadPluginClassifier(std::string_view item_text) {
    const std::string item(item_text);
    const std::string where = "classifier '" + item + "': ";
    auto spec = parsePluginSpec(item);
    if (!spec) return spec.error();
    const std::string& path = spec->path;
    std::error_code ec;
    const std::filesystem::path absolute = std::filesystem::absolute(path, ec);
    if (ec) return Error{where + path + ": " + ec.message()};

    // dlopen's own text for a missing file is less direct than the usual one.
    if (std::FILE* f = std::fopen(absolute.c_str(), "rb"))
        std::fclose(f);
    else
        return Error{where + path + ": cannot open: " + std::strerror(errno)};
    const std::filesystem::path resolved = std::filesystem::canonical(absolute, ec);
    struct stat st {};
    if (ec || ::stat(resolved.c_str(), &st) != 0) return Error{where + path + ": cannot open"};
    auto opened = openLibrary(resolved.string(), st);
    if (!opened) return Error{where + path + ": not a loadable shared object: " + opened.error().message};
    std::shared_ptr<Library> library = std::move(*opened);
    dlerror();
    void* symbol = dlsym(library->handle, MEMCITY_PLUGIN_ENTRY_NAME);
    if (!symbol)
        return Error{where + path +
                     ": no symbol " MEMCITY_PLUGIN_ENTRY_NAME " (a plugin exports it; see memcity_plugin.h)"};
    // POSIX guarantees that a function's address survives the trip through void*.
    memcity_plugin_entry_fn entry;
    static_assert(sizeof entry == sizeof symbol);
    std::memcpy(&entry, &symbol, sizeof entry);
    const memcity_plugin* plugin = entry();
    if (!plugin) return Error{where + path + ": " MEMCITY_PLUGIN_ENTRY_NAME " returned no descriptor"};
    if (plugin->abi_version != MEMCITY_PLUGIN_ABI_VERSION)
        return Error{where + path + ": built for plugin ABI version " + std::to_string(plugin->abi_version) +
                     ", this memcity loads version " + std::to_string(MEMCITY_PLUGIN_ABI_VERSION) +
                     " (rebuild it against this memcity's memcity_plugin.h)"};
    if (!plugin->name || !*plugin->name) return Error{where + path + ": the descriptor has no name"};
    const std::string name = printable(plugin->name, 80);
    if (plugin->cardinality != MEMCITY_ONE && plugin->cardinality != MEMCITY_MANY &&
        plugin->cardinality != MEMCITY_HIERARCHY)
        return Error{where + name + ": invalid cardinality " + std::to_string(plugin->cardinality) +
                     " (expected MEMCITY_ONE, MEMCITY_MANY or MEMCITY_HIERARCHY)"};
    if (plugin->max_keys > kMostMaxKeys)
        return Error{where + name + ": max_keys " + std::to_string(plugin->max_keys) + " is over " +
                     std::to_string(kMostMaxKeys)};
    if (!plugin->classify) return Error{where + name + ": the descriptor has no classify function"};
    if (!plugin->label) return Error{where + name + ": the descriptor has no label function"};

    void* instance = nullptr;
    if (plugin->init) {
        std::vector<memcity_param> params;
        for (const auto& [k, v] : spec->params)
            params.push_back({k.c_str(), v.c_str()});
        char message[512] = {};
        if (plugin->init(params.data(), params.size(), &instance, message, sizeof message) != 0)
            return Error{where + name + ": " + initMessage(message, sizeof message)};
    } else if (!spec->params.empty()) {
        return Error{where + name + " takes no parameters, got '" + spec->params.front().first + "'"};
    }
    return std::unique_ptr<Classifier>(
        std::make_unique<PluginClassifier>(item, std::move(library), plugin, instance));
}

Status pluginErrors(const ClassifierChain& chain) {
    for (const auto& c : chain.classifiers)
        if (const auto* p = dynamic_cast<const PluginClassifier*>(c.get()))
            if (Status st = p->failure(); !st) return st;
    return {};
}

}  // namespace memcity
