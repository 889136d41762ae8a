#include "util/result.h"

#include <algorithm>

namespace memcity {

namespace {

// The length of the valid UTF-8 sequence at s[i] (2 to 4 bytes: no overlong forms, no
// surrogates, nothing past U+10FFFF), or 0.
size_t utf8Sequence(std::string_view s, size_t i) {
    const auto b = [&](size_t k) { return static_cast<unsigned char>(s[i + k]); };
    const unsigned char c = b(0);
    const size_t n = c >= 0xc2 && c <= 0xdf ? 2 : c >= 0xe0 && c <= 0xef ? 3 : c >= 0xf0 && c <= 0xf4 ? 4 : 0;
    if (n == 0 || i + n > s.size()) return 0;
    for (size_t k = 1; k < n; ++k)
        if ((b(k) & 0xc0) != 0x80) return 0;
    if ((c == 0xe0 && b(1) < 0xa0) || (c == 0xed && b(1) > 0x9f) || (c == 0xf0 && b(1) < 0x90) ||
        (c == 0xf4 && b(1) > 0x8f))
        return 0;
    return n;
}

}  // namespace

std::string printable(std::string_view s, size_t max_bytes) {
    std::string out;
    out.reserve(std::min(s.size(), max_bytes) + 8);
    static const char* hex = "0123456789abcdef";
    const auto escape = [&](unsigned char c) {
        out += "\\x";
        out += hex[c >> 4];
        out += hex[c & 15];
    };
    for (size_t i = 0; i < s.size(); ++i) {
        if (out.size() >= max_bytes) {
            out += "...";
            break;
        }
        auto c = static_cast<unsigned char>(s[i]);
        if (c == '\n') {
            out += "\\n";
        } else if (c == '\t') {
            out += "\\t";
        } else if (c < 0x20 || c == 0x7f) {
            escape(c);
        } else if (c < 0x80) {
            out += static_cast<char>(c);
        } else if (const size_t n = utf8Sequence(s, i);
                   n == 0 || (c == 0xc2 && static_cast<unsigned char>(s[i + 1]) < 0xa0)) {
            escape(c);  // not UTF-8, or a C1 control (U+0080 to U+009F: 0x9b starts an escape sequence)
        } else {
            out.append(s.substr(i, n));
            i += n - 1;
        }
    }
    return out;
}

std::string describeAt(const std::string& path, uint64_t offset, const std::string& what) {
    if (offset == kNoOffset) return path + ": " + what;
    return path + ": offset " + std::to_string(offset) + ": " + what;
}

Error Error::at(const std::string& file, uint64_t offset, const std::string& what) {
    Error e(describeAt(file, offset, what));
    e.file = file;
    e.offset = offset;
    return e;
}

Error Error::inData(uint64_t offset, std::string what) {
    Error e(std::move(what));
    e.offset = offset;
    return e;
}

}  // namespace memcity
