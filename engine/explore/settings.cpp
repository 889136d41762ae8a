#include "explore/settings.h"

#include <fcntl.h>
#include <sys/file.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <charconv>
#include <cmath>
#include <cstdlib>
#include <cstring>
#include <filesystem>
#include <span>
#include <string_view>
#include <system_error>
#include <type_traits>
#include <variant>

namespace memcity::explore {

namespace {

constexpr std::string_view kBlanks = " \t";

std::string_view trim(std::string_view s) {
    const size_t b = s.find_first_not_of(kBlanks);
    if (b == std::string_view::npos) return {};
    const size_t e = s.find_last_not_of(kBlanks);
    return s.substr(b, e - b + 1);
}

// ---- writing ----

std::string quote(std::string_view s) {
    static constexpr char kHex[] = "0123456789abcdef";
    std::string out = "\"";
    for (char ch : s) {
        const auto c = static_cast<unsigned char>(ch);
        switch (c) {
            case '"': out += "\\\""; break;
            case '\\': out += "\\\\"; break;
            case '\n': out += "\\n"; break;
            case '\r': out += "\\r"; break;
            case '\t': out += "\\t"; break;
            default:
                if (c < 0x20 || c == 0x7F) {
                    out += "\\x";
                    out += kHex[c >> 4];
                    out += kHex[c & 0xFu];
                } else {
                    out += ch;
                }
        }
    }
    out += '"';
    return out;
}

std::string number(float v) {
    char buf[64];
    auto [end, ec] = std::to_chars(buf, buf + sizeof buf, v);
    return ec == std::errc() ? std::string(buf, end) : std::string("1");
}

const char* boolean(bool v) {
    return v ? "true" : "false";
}

// ---- reading ----

int hexDigit(char c) {
    if (c >= '0' && c <= '9') return c - '0';
    if (c >= 'a' && c <= 'f') return c - 'a' + 10;
    if (c >= 'A' && c <= 'F') return c - 'A' + 10;
    return -1;
}

// Decodes a value: a quoted string (the whole text must be one), or the raw text. Sets `error`
// and returns false when the quoted string is malformed.
bool decodeValue(std::string_view text, std::string& out, std::string& error) {
    out.clear();
    if (text.empty() || text[0] != '"') {
        out.assign(text);
        return true;
    }
    size_t i = 1;
    for (; i < text.size() && text[i] != '"'; ++i) {
        if (text[i] != '\\') {
            out += text[i];
            continue;
        }
        if (++i == text.size()) break;
        switch (text[i]) {
            case '\\': out += '\\'; break;
            case '"': out += '"'; break;
            case 'n': out += '\n'; break;
            case 'r': out += '\r'; break;
            case 't': out += '\t'; break;
            case 'x': {
                const int hi = i + 1 < text.size() ? hexDigit(text[i + 1]) : -1;
                const int lo = i + 2 < text.size() ? hexDigit(text[i + 2]) : -1;
                if (hi < 0 || lo < 0) {
                    error = "\\x must be followed by two hex digits";
                    return false;
                }
                out += static_cast<char>(hi * 16 + lo);
                i += 2;
                break;
            }
            default: error = "unknown escape \\" + printable(text.substr(i, 1)); return false;
        }
    }
    if (i >= text.size()) {
        error = "unterminated quoted string";
        return false;
    }
    if (!trim(text.substr(i + 1)).empty()) {
        error = "text after the closing quote";
        return false;
    }
    return true;
}

bool parseBool(const std::string& s, bool& out) {
    if (s == "true" || s == "1") {
        out = true;
    } else if (s == "false" || s == "0") {
        out = false;
    } else {
        return false;
    }
    return true;
}

bool parseInt(const std::string& s, int64_t lo, int64_t hi, int32_t& out) {
    int64_t v = 0;
    const char* end = s.data() + s.size();
    auto [p, ec] = std::from_chars(s.data(), end, v);
    if (ec != std::errc() || p != end || v < lo || v > hi) return false;
    out = static_cast<int32_t>(v);
    return true;
}

bool parseFloat(const std::string& s, float lo, float hi, float& out) {
    float v = 0;
    const char* end = s.data() + s.size();
    auto [p, ec] = std::from_chars(s.data(), end, v);
    if (ec != std::errc() || p != end || !std::isfinite(v) || v < lo || v > hi) return false;
    out = v;
    return true;
}

// ---- the keys ----

// Where a key's value lives in Settings. The table reads and writes through it; formatSettings and
// mergeSettings only read (fieldOf on a const Settings).
using FieldRef = std::variant<int32_t*, std::optional<int32_t>*, bool*, std::string*, float*>;

// One key of the settings file's main part: its name, its field, and what a value must be. kKeys
// is the one place a key is listed: reading, writing (in this order) and merging all walk
// settingKeys() (kKeys with the panels' flags of kPanels). Adding a key: a field in Settings
// (settings.h) and one row in kKeys. (`recent`, a repeated key, and the chains' sections are read
// and written on their own.)
struct SettingKey {
    std::string_view key;
    FieldRef (*field)(Settings&);  // null: a panel's flag (panel)
    // What a value must be, for the warning on a bad one ("a whole number from 1 to 100000");
    // booleans and choices say it themselves.
    std::string_view expected = {};
    double lo = 0, hi = 0;                      // numbers: the range allowed
    std::span<const char* const> choices = {};  // strings: the values allowed; none: any but ""
    bool PanelSettings::*panel = nullptr;       // a panel's flag (kPanels) when field is null
};

constexpr const char* kMetrics[] = {"objects", "bytes"};
constexpr const char* kSorts[] = {"start", "end", "growth"};

// The panels (settings.h PanelInfo), one row per line of MEMCITY_PANELS (explore/panels.h).
constexpr PanelInfo kPanels[] = {
#define MEMCITY_PANEL_ROW(field, Draw, name, key, menu, shown) {name, key, menu, &PanelSettings::field},
    MEMCITY_PANELS(MEMCITY_PANEL_ROW)
#undef MEMCITY_PANEL_ROW
};

const SettingKey kKeys[] = {
    {"window.width", [](Settings& s) -> FieldRef { return &s.window_width; },
     "a whole number from 1 to 100000", 1, 100000},
    {"window.height", [](Settings& s) -> FieldRef { return &s.window_height; },
     "a whole number from 1 to 100000", 1, 100000},
    {"window.x", [](Settings& s) -> FieldRef { return &s.window_x; },
     "a whole number from -1000000 to 1000000", -1000000, 1000000},
    {"window.y", [](Settings& s) -> FieldRef { return &s.window_y; },
     "a whole number from -1000000 to 1000000", -1000000, 1000000},
    {"window.maximised", [](Settings& s) -> FieldRef { return &s.maximised; }},
    {"vsync", [](Settings& s) -> FieldRef { return &s.vsync; }},
    {"view", [](Settings& s) -> FieldRef { return &s.view; }, "a view name"},
    {"metric", [](Settings& s) -> FieldRef { return &s.metric; }, {}, 0, 0, kMetrics},
    {"sort", [](Settings& s) -> FieldRef { return &s.sort; }, {}, 0, 0, kSorts},
    {"camera_speed", [](Settings& s) -> FieldRef { return &s.camera_speed; }, "a number above 0", 1e-6, 1e6},
    {"ui_scale", [](Settings& s) -> FieldRef { return &s.ui_scale; }, "a number from 0.25 to 8", 0.25, 8},
};
constexpr std::string_view kRecentKey = "recent";

// The keys in the order formatSettings writes them: the window's, the panels' (kPanels), the rest.
const std::vector<SettingKey>& settingKeys() {
    static const std::vector<SettingKey> keys = [] {
        std::vector<SettingKey> k(std::begin(kKeys), std::end(kKeys));
        auto at = std::find_if(k.begin(), k.end(), [](const SettingKey& r) { return r.key == "vsync"; }) + 1;
        for (const PanelInfo& p : kPanels)
            at = k.insert(at, SettingKey{.key = p.key, .field = nullptr, .panel = p.shown}) + 1;
        return k;
    }();
    return keys;
}

const SettingKey* findKey(std::string_view key) {
    for (const SettingKey& k : settingKeys())
        if (k.key == key) return &k;
    return nullptr;
}

FieldRef fieldOf(const SettingKey& key, Settings& s) {
    if (!key.field) return &(s.panels.*key.panel);
    return key.field(s);
}
// The field of `key` in a Settings that is only read.
FieldRef fieldOf(const SettingKey& key, const Settings& s) {
    return fieldOf(key, const_cast<Settings&>(s));  // NOLINT(cppcoreguidelines-pro-type-const-cast)
}

// The value of `key` as written; nullopt: not written (an unset window position).
std::optional<std::string> formatKey(const SettingKey& key, const Settings& s) {
    return std::visit(
        [](const auto* field) -> std::optional<std::string> {
            using T = std::remove_cvref_t<decltype(*field)>;
            if constexpr (std::is_same_v<T, int32_t>) {
                return std::to_string(*field);
            } else if constexpr (std::is_same_v<T, std::optional<int32_t>>) {
                if (!*field) return std::nullopt;
                return std::to_string(**field);
            } else if constexpr (std::is_same_v<T, bool>) {
                return boolean(*field);
            } else if constexpr (std::is_same_v<T, std::string>) {
                return quote(*field);
            } else {
                return number(*field);
            }
        },
        fieldOf(key, s));
}

// The comment formatSettings writes first (not kept as an extra: it is written anew).
constexpr std::string_view kFirstLine = "# memcity explorer settings (format: engine/explore/settings.h)";

// One parse of a settings file.
class Parser {
public:
    explicit Parser(const std::string& path) : path_(path) {}

    LoadedSettings run(std::string_view text) {
        if (text.substr(0, 3) == "\xEF\xBB\xBF") text.remove_prefix(3);  // a UTF-8 byte order mark
        while (!text.empty()) {
            const size_t nl = text.find('\n');
            std::string_view line = text.substr(0, nl);
            text.remove_prefix(nl == std::string_view::npos ? text.size() : nl + 1);
            ++line_no_;
            if (!line.empty() && line.back() == '\r') line.remove_suffix(1);
            raw_ = line;
            const size_t warned = out_.warnings.size();
            read_ = true;
            parseLine(trim(line));
            // What this version does not read is kept for the next save (a later version's key,
            // a malformed line, a comment other than the one formatSettings writes).
            if (!trim(line).empty() && trim(line)[0] != '[' && section_ != Section::kIgnored &&
                line != kFirstLine && (!read_ || out_.warnings.size() > warned))
                (section_ == Section::kMain ? out_.extras.main : chain_extras_).emplace_back(line);
        }
        endSection();
        return std::move(out_);
    }

private:
    enum class Section : uint8_t {
        kMain,     // before any header
        kChain,    // [chain "NAME"]
        kIgnored,  // an unknown or malformed section: its keys are skipped
    };

    void warn(size_t line, const std::string& what) {
        out_.warnings.push_back(path_ + ": line " + std::to_string(line) + ": " + what);
    }
    void warn(const std::string& what) { warn(line_no_, what); }

    void parseLine(std::string_view line) {
        if (line.empty()) return;
        if (section_ != Section::kMain && line[0] != '[') section_lines_.emplace_back(raw_);
        if (line[0] == '#' || line[0] == ';') {
            read_ = false;
            return;
        }
        if (line[0] == '[') return parseHeader(line);
        const size_t eq = line.find('=');
        if (eq == std::string_view::npos)
            return warn("expected key = value, got \"" + printable(line) + "\"");
        const std::string key(trim(line.substr(0, eq)));
        if (key.empty()) return warn("missing key before '='");
        const std::string_view raw = trim(line.substr(eq + 1));
        switch (section_) {
            case Section::kMain: return setMain(key, raw);
            case Section::kChain: return setChain(key, raw);
            case Section::kIgnored: return;
        }
    }

    void parseHeader(std::string_view line) {
        endSection();
        section_ = Section::kIgnored;
        section_lines_.assign(1, std::string(raw_));
        if (line.back() != ']') return warn("malformed section header \"" + printable(line) + "\"");
        const std::string_view inner = trim(line.substr(1, line.size() - 2));
        constexpr std::string_view kChainWord = "chain";
        if (inner.substr(0, kChainWord.size()) != kChainWord) return;  // an unknown section
        const std::string_view rest = inner.substr(kChainWord.size());
        if (!rest.empty() && rest[0] != ' ' && rest[0] != '\t' && rest[0] != '"') return;  // "chainsaw"
        std::string name, error;
        if (!decodeValue(trim(rest), name, error)) return warn("chain name: " + error);
        if (name.empty()) return warn("chain without a name");
        section_ = Section::kChain;
        chain_name_ = std::move(name);
        chain_ = SavedChain{};
        chain_line_ = line_no_;
    }

    // Ends the section that is open: a chain is read (or, without a spec, kept as it was); a
    // section this version does not read is kept.
    void endSection() {
        if (section_ == Section::kChain && chain_.spec.empty()) {
            warn(chain_line_, "chain \"" + printable(chain_name_) + "\" has no spec; skipped");
            section_ = Section::kIgnored;
        } else if (section_ == Section::kChain) {
            out_.settings.chains[chain_name_] = std::move(chain_);
            auto& kept = out_.extras.chain[chain_name_];
            kept.insert(kept.end(), chain_extras_.begin(), chain_extras_.end());
        }
        if (section_ == Section::kIgnored)
            out_.extras.sections.insert(out_.extras.sections.end(), section_lines_.begin(),
                                        section_lines_.end());
        section_lines_.clear();
        chain_extras_.clear();
        section_ = Section::kMain;
    }

    // Decodes the value of a known key; false (with a warning) when it is malformed.
    bool decode(const std::string& key, std::string_view raw, std::string& value) {
        std::string error;
        if (decodeValue(raw, value, error)) return true;
        warn(key + ": " + error);
        return false;
    }

    void badValue(const std::string& key, const std::string& expected, const std::string& value) {
        warn(key + ": expected " + expected + ", got \"" + printable(value) + "\"");
    }

    void setBool(const std::string& key, const std::string& value, bool& field) {
        if (!parseBool(value, field)) badValue(key, "true or false", value);
    }

    void setChoice(const std::string& key, const std::string& value, std::span<const char* const> choices,
                   std::string& field) {
        std::string expected;
        for (const char* c : choices) {
            if (value == c) {
                field = value;
                return;
            }
            expected += expected.empty() ? "" : ", ";
            expected += c;
        }
        badValue(key, "one of " + expected, value);
    }

    void setMain(const std::string& key, std::string_view raw) {
        const SettingKey* k = findKey(key);
        if (!k && key != kRecentKey) {
            read_ = false;  // a later version's
            return;
        }
        std::string v;
        if (!decode(key, raw, v)) return;
        if (!k) {  // recent
            if (v.empty()) return badValue(key, "a file path", v);
            std::vector<std::string>& r = out_.settings.recent_files;
            if (r.size() < kMaxRecentFiles && std::find(r.begin(), r.end(), v) == r.end()) r.push_back(v);
            return;
        }
        const std::string expected(k->expected);
        const auto lo = static_cast<int64_t>(k->lo), hi = static_cast<int64_t>(k->hi);
        std::visit(
            [&](auto* field) {
                using T = std::remove_pointer_t<decltype(field)>;
                if constexpr (std::is_same_v<T, int32_t>) {
                    if (!parseInt(v, lo, hi, *field)) badValue(key, expected, v);
                } else if constexpr (std::is_same_v<T, std::optional<int32_t>>) {
                    int32_t n = 0;
                    if (!parseInt(v, lo, hi, n)) return badValue(key, expected, v);
                    *field = n;
                } else if constexpr (std::is_same_v<T, bool>) {
                    setBool(key, v, *field);
                } else if constexpr (std::is_same_v<T, std::string>) {
                    if (k->choices.size() > 0) return setChoice(key, v, k->choices, *field);
                    if (v.empty()) return badValue(key, expected, v);
                    *field = v;
                } else {
                    if (!parseFloat(v, static_cast<float>(k->lo), static_cast<float>(k->hi), *field))
                        badValue(key, expected, v);
                }
            },
            fieldOf(*k, out_.settings));
    }

    void setChain(const std::string& key, std::string_view raw) {
        if (key != "spec" && key != "filter") {
            read_ = false;  // a later version's
            return;
        }
        std::string v;
        if (!decode(key, raw, v)) return;
        (key == "spec" ? chain_.spec : chain_.filter) = std::move(v);
    }

    const std::string& path_;
    LoadedSettings out_;
    size_t line_no_ = 0;
    Section section_ = Section::kMain;
    std::string chain_name_;
    SavedChain chain_;
    size_t chain_line_ = 0;
    std::string_view raw_;  // the line being read, as written
    bool read_ = true;      // whether this version read it (false: a comment, a later version's key)
    std::vector<std::string> section_lines_;  // the open section's lines, as written
    std::vector<std::string> chain_extras_;   // the open chain's lines this version does not read
};

std::string systemError(int e) {
    return std::strerror(e);
}

}  // namespace

std::span<const PanelInfo> panelTable() {
    return kPanels;
}

const PanelInfo* findPanel(std::string_view name) {
    for (const PanelInfo& p : kPanels)
        if (p.name == name) return &p;
    return nullptr;
}

std::string formatSettings(const Settings& s, const SettingsExtras& extras) {
    std::string out = std::string(kFirstLine) + "\n";
    auto line = [&out](std::string_view key, const std::string& value) {
        out += key;
        out += " = ";
        out += value;
        out += '\n';
    };
    for (const SettingKey& k : settingKeys())
        if (std::optional<std::string> value = formatKey(k, s)) line(k.key, *value);
    for (const std::string& r : s.recent_files)
        line(kRecentKey, quote(r));
    auto verbatim = [&out](const std::vector<std::string>& lines) {
        for (const std::string& l : lines)
            out += l + "\n";
    };
    verbatim(extras.main);
    for (const auto& [name, chain] : s.chains) {
        out += "\n[chain " + quote(name) + "]\n";
        line("spec", quote(chain.spec));
        line("filter", quote(chain.filter));
        if (auto it = extras.chain.find(name); it != extras.chain.end()) verbatim(it->second);
    }
    if (!extras.sections.empty()) out += "\n";
    verbatim(extras.sections);
    return out;
}

LoadedSettings parseSettings(const std::string& text, const std::string& path) {
    return Parser(path).run(text);
}

Result<std::string> defaultSettingsPath() {
    auto env = [](const char* name) -> std::string {
        const char* v = std::getenv(name);
        return v ? v : "";
    };
    if (std::string p = env("MEMCITY_SETTINGS"); !p.empty()) return p;
    if (std::string x = env("XDG_CONFIG_HOME"); !x.empty() && x[0] == '/') return x + "/memcity/settings.ini";
    if (std::string h = env("HOME"); !h.empty()) return h + "/.config/memcity/settings.ini";
    return Error{"no place for the settings: none of MEMCITY_SETTINGS, XDG_CONFIG_HOME, HOME is set"};
}

namespace {

// The text of the file at `path`; empty when there is none.
Result<std::string> readText(const std::string& path) {
    const int fd = ::open(path.c_str(), O_RDONLY | O_CLOEXEC);
    if (fd < 0) {
        if (errno == ENOENT) return std::string();
        return Error{path + ": cannot open: " + systemError(errno)};
    }
    std::string text;
    char buf[16384];
    for (;;) {
        const ssize_t n = ::read(fd, buf, sizeof buf);
        if (n == 0) break;
        if (n < 0) {
            if (errno == EINTR) continue;
            const int e = errno;
            ::close(fd);
            return Error{path + ": cannot read: " + systemError(e)};
        }
        text.append(buf, static_cast<size_t>(n));
    }
    ::close(fd);
    return text;
}

}  // namespace

Result<LoadedSettings> loadSettings(const std::string& path) {
    auto text = readText(path);
    if (!text) return text.error();
    return parseSettings(*text, path);
}

namespace {

// Creates the folder of `path` (if any). Error: names it.
Status makeFolderOf(const std::string& path) {
    if (path.empty()) return Error{"cannot save settings: empty path"};
    const std::filesystem::path dir = std::filesystem::path(path).parent_path();
    if (dir.empty()) return {};
    std::error_code ec;
    std::filesystem::create_directories(dir, ec);
    if (ec) return Error{dir.string() + ": cannot create folder: " + ec.message()};
    return {};
}

// Replaces `path` by `text` atomically (saveSettings), its folder made already.
Status replaceWith(const std::string& path, const std::string& text) {
    const std::string tmp = path + ".tmp-" + std::to_string(::getpid());
    const int fd = ::open(tmp.c_str(), O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0644);
    if (fd < 0) return Error{path + ": cannot create temporary file " + tmp + ": " + systemError(errno)};
    size_t done = 0;
    int e = 0;
    while (done < text.size()) {
        const ssize_t n = ::write(fd, text.data() + done, text.size() - done);
        if (n < 0) {
            if (errno == EINTR) continue;
            e = errno;
            break;
        }
        done += static_cast<size_t>(n);
    }
    if (e == 0 && ::fsync(fd) != 0) e = errno;
    if (::close(fd) != 0 && e == 0) e = errno;
    if (e != 0) {
        ::unlink(tmp.c_str());
        return Error{path + ": cannot write " + tmp + ": " + systemError(e)};
    }
    if (::rename(tmp.c_str(), path.c_str()) != 0) {
        e = errno;
        ::unlink(tmp.c_str());
        return Error{path + ": cannot replace: " + systemError(e)};
    }
    return {};
}

}  // namespace

Status saveSettings(const std::string& path, const Settings& settings) {
    if (Status s = makeFolderOf(path); !s) return s;
    return replaceWith(path, formatSettings(settings));
}

Settings mergeSettings(const Settings& disk, const Settings& base, const Settings& now) {
    Settings merged = disk;
    auto take = [](auto& out, const auto& was, const auto& is) {
        if (is != was) out = is;
    };
    for (const SettingKey& k : settingKeys())
        std::visit(
            [&](auto* out) {
                using P = decltype(out);
                take(*out, *std::get<P>(fieldOf(k, base)), *std::get<P>(fieldOf(k, now)));
            },
            fieldOf(k, merged));
    if (now.recent_files != base.recent_files) {
        std::vector<std::string> recent = now.recent_files;
        for (const std::string& r : disk.recent_files)
            if (recent.size() < kMaxRecentFiles && std::find(recent.begin(), recent.end(), r) == recent.end())
                recent.push_back(r);
        merged.recent_files = std::move(recent);
    }
    for (const auto& [name, chain] : now.chains)
        if (auto it = base.chains.find(name); it == base.chains.end() || it->second != chain)
            merged.chains[name] = chain;
    for (const auto& [name, chain] : base.chains)
        if (!now.chains.contains(name)) merged.chains.erase(name);
    return merged;
}

Status saveSettingsChanges(const std::string& path, const Settings& base, const Settings& now) {
    if (Status s = makeFolderOf(path); !s) return s;
    // A lock file of its own: the settings file is replaced (a new inode) by every save.
    const std::string lock_path = path + ".lock";
    const int lock = ::open(lock_path.c_str(), O_RDWR | O_CREAT | O_CLOEXEC, 0644);
    if (lock < 0) return Error{lock_path + ": cannot open: " + systemError(errno)};
    while (::flock(lock, LOCK_EX) != 0) {
        if (errno == EINTR) continue;
        const int e = errno;
        ::close(lock);
        return Error{lock_path + ": cannot lock: " + systemError(e)};
    }
    auto text = readText(path);
    Status result;
    if (!text) {
        result = text.error();
    } else {
        const LoadedSettings disk = parseSettings(*text, path);
        result = replaceWith(path, formatSettings(mergeSettings(disk.settings, base, now), disk.extras));
    }
    ::close(lock);  // (lets the lock go)
    return result;
}

void addRecentFile(Settings& settings, const std::string& path) {
    if (path.empty()) return;
    std::error_code ec;
    std::filesystem::path p = std::filesystem::absolute(path, ec);
    if (ec) p = path;
    const std::string abs = p.lexically_normal().string();
    std::vector<std::string>& r = settings.recent_files;
    r.erase(std::remove(r.begin(), r.end(), abs), r.end());
    r.insert(r.begin(), abs);
    if (r.size() > kMaxRecentFiles) r.resize(kMaxRecentFiles);
}

}  // namespace memcity::explore
