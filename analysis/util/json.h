// JSON string literals: the one escaper the CLI's JSON output and the explorer's exports share.
#pragma once

#include <string>
#include <string_view>

namespace memcity {

// The string as a JSON string literal, quotes included. Quote, backslash and control characters
// are escaped (\n, \t, \b, \f, \r or \u00XX); valid UTF-8 passes through, and each byte of an
// invalid UTF-8 sequence (overlong, surrogate, cut off, past U+10FFFF) becomes U+FFFD, so the
// output is always valid JSON.
std::string jsonString(std::string_view s);

}  // namespace memcity
