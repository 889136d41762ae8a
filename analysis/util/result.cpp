#include "util/result.h"

#include <algorithm>

namespace memcity {

std::string printable(std::string_view s, size_t max_bytes) {
    std::string out;
    out.reserve(std::min(s.size(), max_bytes) + 8);
    static const char* hex = "0123456789abcdef";
    for (size_t i = 0; i < s.size(); ++i) {
        if (out.size() >= max_bytes) {
            out += "...";
            break;
        }
        auto c = static_cast<unsigned char>(s[i]);
        if (c == '\n')
            out += "\\n";
        else if (c == '\t')
            out += "\\t";
        else if (c < 0x20 || c == 0x7f) {
            out += "\\x";
            out += hex[c >> 4];
            out += hex[c & 15];
        } else {
            out += static_cast<char>(c);
        }
    }
    return out;
}

std::string describeAt(const std::string& path, uint64_t offset, const std::string& what) {
    if (offset == kNoOffset) return path + ": " + what;
    return path + ": offset " + std::to_string(offset) + ": " + what;
}

}  // namespace memcity
