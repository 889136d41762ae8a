// The pure half of the attach client (cli/jvm_attach.h): HotSpot's perf data, a java command line
// with the environment's option variables, and the JVM's replies. No system calls here.
#include "cli/jvm_attach.h"

#include <algorithm>
#include <cctype>
#include <charconv>
#include <optional>

namespace memcity::cli {
namespace {

// ---- Perf data (HotSpot's perfMemory.hpp) ----

// The prologue: magic (4 bytes, always CA FE C0 C0 in the file), byte order (0 big, 1 little
// endian), major and minor version, accessible (0 while the JVM sets the memory up), used bytes,
// overflow, modification time stamp (8), entry offset and entry count.
constexpr size_t kPrologueBytes = 32;
constexpr size_t kByteOrderAt = 4;
constexpr size_t kAccessibleAt = 7;
constexpr size_t kUsedAt = 8;
constexpr size_t kEntryOffsetAt = 24;
constexpr size_t kEntryCountAt = 28;
// An entry: its length, the offset of its name, vector length (0: a scalar), data type, flags,
// units, variability, the offset of its data; offsets from the entry's start.
constexpr size_t kEntryHeaderBytes = 20;
constexpr size_t kNameOffsetAt = 4;
constexpr size_t kVectorLengthAt = 8;
constexpr size_t kDataTypeAt = 12;
constexpr size_t kDataOffsetAt = 16;
constexpr uint8_t kTypeByte = 'B';  // strings are byte vectors, NUL-terminated

class PerfReader {
public:
    PerfReader(std::span<const uint8_t> data, bool big_endian) : data_(data), big_(big_endian) {}

    // Contract: at + 4 <= size().
    int32_t i32(size_t at) const {
        uint32_t v = 0;
        for (size_t i = 0; i < 4; ++i) {
            const uint32_t byte = data_[at + (big_ ? i : 3 - i)];
            v = (v << 8) | byte;
        }
        return static_cast<int32_t>(v);
    }

private:
    std::span<const uint8_t> data_;
    bool big_;
};

Error perfError(const std::string& what) {
    return Error{"perf data: " + what};
}

// ---- Command lines ----

// Launcher options followed by a value in the next word (java --help, JDK 17 to 25).
bool takesValue(std::string_view option) {
    static constexpr std::string_view kWithValue[] = {"-cp",
                                                      "-classpath",
                                                      "--class-path",
                                                      "-p",
                                                      "--module-path",
                                                      "--upgrade-module-path",
                                                      "--add-modules",
                                                      "--limit-modules",
                                                      "--add-reads",
                                                      "--add-exports",
                                                      "--add-opens",
                                                      "--patch-module",
                                                      "--enable-native-access",
                                                      "--source",
                                                      "-d",
                                                      "--describe-module"};
    return std::find(std::begin(kWithValue), std::end(kWithValue), option) != std::end(kWithValue);
}

std::string_view valueOf(const std::vector<std::string>& environment, std::string_view name) {
    for (const std::string& entry : environment)
        if (entry.size() > name.size() && entry.starts_with(name) && entry[name.size()] == '=')
            return std::string_view(entry).substr(name.size() + 1);
    return {};
}

// The words of an option variable (HotSpot splits them on white space; quotes around a word are
// dropped).
std::vector<std::string_view> words(std::string_view s) {
    std::vector<std::string_view> out;
    size_t i = 0;
    while (i < s.size()) {
        while (i < s.size() && std::isspace(static_cast<unsigned char>(s[i])))
            ++i;
        size_t j = i;
        while (j < s.size() && !std::isspace(static_cast<unsigned char>(s[j])))
            ++j;
        if (j > i) {
            std::string_view w = s.substr(i, j - i);
            if (w.size() >= 2 && (w.front() == '"' || w.front() == '\'') && w.back() == w.front())
                w = w.substr(1, w.size() - 2);
            out.push_back(w);
        }
        i = j;
    }
    return out;
}

// What the options seen so far say; the last mention of the flag wins.
struct AttachMentions {
    std::optional<bool> disabled;
    bool unreadable = false;  // options came from somewhere memcity does not read

    void consider(std::string_view option) {
        if (option == "-XX:+DisableAttachMechanism" || option == "-XX:DisableAttachMechanism=true")
            disabled = true;
        else if (option == "-XX:-DisableAttachMechanism" || option == "-XX:DisableAttachMechanism=false")
            disabled = false;
        else if (option.starts_with("-XX:Flags=") || option.starts_with("-XX:VMOptionsFile=") ||
                 option.starts_with("@"))
            unreadable = true;
    }
};

std::optional<int> parseInt(std::string_view s) {
    if (s.empty()) return std::nullopt;
    int v = 0;
    const char* end = s.data() + s.size();
    auto [ptr, ec] = std::from_chars(s.data(), end, v);
    if (ec != std::errc() || ptr != end) return std::nullopt;
    return v;
}

// `text` on one line: its lines joined with "; ", control characters escaped.
std::string oneLine(std::string_view text) {
    std::string out;
    size_t i = 0;
    while (i < text.size()) {
        size_t nl = text.find('\n', i);
        if (nl == std::string_view::npos) nl = text.size();
        std::string_view line = text.substr(i, nl - i);
        while (!line.empty() && (line.back() == '\r' || line.back() == ' '))
            line.remove_suffix(1);
        if (!line.empty()) {
            if (!out.empty()) out += "; ";
            out += line;
        }
        i = nl + 1;
    }
    return printable(out, 400);
}

}  // namespace

Result<std::string> perfDataString(std::span<const uint8_t> perf_data, std::string_view name) {
    const std::span<const uint8_t> d = perf_data;
    if (d.size() < kPrologueBytes)
        return perfError("shorter than its prologue (" + std::to_string(d.size()) + " bytes)");
    if (d[0] != 0xca || d[1] != 0xfe || d[2] != 0xc0 || d[3] != 0xc0)
        return perfError("no magic number 0xcafec0c0");
    if (d[kByteOrderAt] > 1) return perfError("unknown byte order " + std::to_string(d[kByteOrderAt]));
    if (d[kAccessibleAt] == 0) return perfError("not accessible yet (the JVM is starting)");
    const PerfReader r(d, d[kByteOrderAt] == 0);

    // Entries lie within the used bytes (the file may be longer).
    const int32_t used = r.i32(kUsedAt);
    const size_t end = used > 0 ? std::min(d.size(), static_cast<size_t>(used)) : d.size();
    const int32_t first = r.i32(kEntryOffsetAt);
    const int32_t count = r.i32(kEntryCountAt);
    if (first < 0 || count < 0) return perfError("negative entry offset or count");
    size_t at = static_cast<size_t>(first);
    for (int32_t i = 0; i < count; ++i) {
        const std::string where = "entry " + std::to_string(i) + " at offset " + std::to_string(at);
        if (at > end || end - at < kEntryHeaderBytes) return perfError(where + ": past the used bytes");
        const int32_t length = r.i32(at);
        if (length < static_cast<int32_t>(kEntryHeaderBytes) || static_cast<size_t>(length) > end - at)
            return perfError(where + ": bad length " + std::to_string(length));
        const size_t base = at;
        const auto entry = d.subspan(base, static_cast<size_t>(length));
        at += entry.size();

        const int32_t name_at = r.i32(base + kNameOffsetAt);
        if (name_at < static_cast<int32_t>(kEntryHeaderBytes) || static_cast<size_t>(name_at) >= entry.size())
            return perfError(where + ": name offset out of the entry");
        const auto name_bytes = entry.subspan(static_cast<size_t>(name_at));
        const auto nul = std::find(name_bytes.begin(), name_bytes.end(), uint8_t{0});
        if (nul == name_bytes.end()) return perfError(where + ": name without its NUL");
        const std::string_view entry_name(reinterpret_cast<const char*>(name_bytes.data()),
                                          static_cast<size_t>(nul - name_bytes.begin()));
        if (entry_name != name) continue;

        const int32_t vector_length = r.i32(base + kVectorLengthAt);
        const int32_t data_at = r.i32(base + kDataOffsetAt);
        if (entry[kDataTypeAt] != kTypeByte || vector_length <= 0)
            return perfError("counter " + std::string(name) + " is not a string");
        if (data_at < static_cast<int32_t>(kEntryHeaderBytes) ||
            static_cast<size_t>(data_at) > entry.size() ||
            static_cast<size_t>(vector_length) > entry.size() - static_cast<size_t>(data_at))
            return perfError(where + ": data out of the entry");
        const auto value = entry.subspan(static_cast<size_t>(data_at), static_cast<size_t>(vector_length));
        const auto value_end = std::find(value.begin(), value.end(), uint8_t{0});
        return std::string(reinterpret_cast<const char*>(value.data()),
                           static_cast<size_t>(value_end - value.begin()));
    }
    return perfError("no counter " + std::string(name));
}

JavaCommandLine parseJavaCommandLine(const std::vector<std::string>& argv,
                                     const std::vector<std::string>& environment) {
    JavaCommandLine out;
    if (argv.empty()) {
        out.attach = AttachSwitch::kUnknown;
        return out;
    }
    const std::string_view launcher = std::string_view(argv[0]).substr(argv[0].rfind('/') + 1);
    AttachMentions mentions;
    // A program that creates its JVM itself passes options we cannot see.
    mentions.unreadable = launcher != "java";

    // HotSpot reads JAVA_TOOL_OPTIONS first; the java launcher puts JDK_JAVA_OPTIONS before its
    // own arguments; _JAVA_OPTIONS come last and override both.
    for (std::string_view w : words(valueOf(environment, "JAVA_TOOL_OPTIONS")))
        mentions.consider(w);
    if (launcher == "java")
        for (std::string_view w : words(valueOf(environment, "JDK_JAVA_OPTIONS")))
            mentions.consider(w);
    for (size_t i = 1; i < argv.size(); ++i) {
        const std::string& a = argv[i];
        const bool has_next = i + 1 < argv.size();
        if ((a == "-jar" || a == "-m" || a == "--module") && has_next) {
            out.main_class = argv[i + 1];
            break;
        }
        if (a.starts_with("--module=")) {
            out.main_class = a.substr(9);
            break;
        }
        if (takesValue(a)) {
            ++i;
            continue;
        }
        if (!a.starts_with("-") && !a.starts_with("@")) {
            out.main_class = a;  // a class or, with --source, a source file
            break;
        }
        mentions.consider(a);
    }
    for (std::string_view w : words(valueOf(environment, "_JAVA_OPTIONS")))
        mentions.consider(w);

    if (mentions.disabled.value_or(false))
        out.attach = AttachSwitch::kDisabled;
    else if (mentions.unreadable)
        out.attach = AttachSwitch::kUnknown;
    else
        out.attach = AttachSwitch::kEnabled;
    return out;
}

Result<AttachReply> parseAttachReply(std::string_view raw) {
    if (raw.empty()) return Error{"the JVM closed the connection without a reply"};
    const size_t nl = raw.find('\n');
    std::string_view first = raw.substr(0, nl);
    if (!first.empty() && first.back() == '\r') first.remove_suffix(1);
    const std::optional<int> code = parseInt(first);
    if (!code) return Error{"a malformed reply: \"" + printable(raw, 80) + "\""};
    return AttachReply{*code, nl == std::string_view::npos ? std::string() : std::string(raw.substr(nl + 1))};
}

Result<int> agentReturnCode(std::string_view who, const AttachReply& reply) {
    const std::string_view text = reply.text;
    if (reply.code == 0) {
        std::string_view first = text.substr(0, text.find('\n'));
        constexpr std::string_view kPrefix = "return code: ";  // absent before JDK 21 and early 17u
        if (first.starts_with(kPrefix)) first.remove_prefix(kPrefix.size());
        if (const std::optional<int> rc = parseInt(first)) return *rc;
    }
    // Not loaded: the reason is the text, whatever the code (JDK 17: -1, JDK 21+: 0).
    std::string reason = oneLine(text);
    if (reason.empty()) reason = "the JVM gave no reason (result code " + std::to_string(reply.code) + ")";
    return Error{std::string(who) + " did not load the agent: " + reason};
}

}  // namespace memcity::cli
