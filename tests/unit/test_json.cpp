// The JSON string escaper shared by the CLI's --json output and the explorer's table export.
#include "util/json.h"

#include <gtest/gtest.h>

#include <string>

namespace memcity {
namespace {

TEST(JsonString, EscapesControlsAndKeepsValidUtf8) {
    EXPECT_EQ(jsonString(""), "\"\"");
    EXPECT_EQ(jsonString("a\"b\\c/d"), "\"a\\\"b\\\\c/d\"");
    EXPECT_EQ(jsonString(std::string("\b\f\n\r\t\x01\x1f", 7) + std::string(1, '\0')),
              "\"\\b\\f\\n\\r\\t\\u0001\\u001f\\u0000\"");
    // Valid UTF-8 (2, 3 and 4 bytes) passes through.
    EXPECT_EQ(jsonString("h\xC3\xA9llo \xE2\x86\x92 \xF0\x9D\x84\x9E"),
              "\"h\xC3\xA9llo \xE2\x86\x92 \xF0\x9D\x84\x9E\"");
    // Invalid bytes become U+FFFD each: a stray continuation, a truncated sequence, an overlong
    // encoding, a surrogate, past U+10FFFF.
    const std::string r = "\xEF\xBF\xBD";
    EXPECT_EQ(jsonString("a\x80z"), "\"a" + r + "z\"");
    EXPECT_EQ(jsonString("\xE2\x86"), "\"" + r + r + "\"");
    EXPECT_EQ(jsonString("\xC0\xAF"), "\"" + r + r + "\"");
    EXPECT_EQ(jsonString("\xED\xA0\x80"), "\"" + r + r + r + "\"");
    EXPECT_EQ(jsonString("\xF4\x90\x80\x80"), "\"" + r + r + r + r + "\"");
    EXPECT_EQ(jsonString("\xFF"), "\"" + r + "\"");
}

}  // namespace
}  // namespace memcity
