// A small streaming JSON writer: objects, arrays, strings (escaped by util/json.h), numbers, booleans, null.
// Commas and nesting are tracked; keys are written with key() before each member's value.
#pragma once

#include <cstdint>
#include <string>
#include <string_view>
#include <vector>

namespace memcity::cli {

class JsonWriter {
public:
    explicit JsonWriter(bool pretty = true) : pretty_(pretty) {}

    JsonWriter& beginObject();
    JsonWriter& endObject();
    JsonWriter& beginArray();
    JsonWriter& endArray();
    JsonWriter& key(std::string_view k);
    JsonWriter& value(std::string_view s);
    JsonWriter& value(const char* s) { return value(std::string_view(s)); }
    JsonWriter& value(uint64_t v);
    JsonWriter& value(int64_t v);
    JsonWriter& value(uint32_t v) { return value(uint64_t{v}); }
    JsonWriter& value(int v) { return value(int64_t{v}); }
    JsonWriter& value(double v);
    JsonWriter& value(bool v);
    JsonWriter& null();
    // key + value in one call.
    template <class T>
    JsonWriter& field(std::string_view k, const T& v) {
        key(k);
        return value(v);
    }

    const std::string& str() const { return out_; }

private:
    void separate();
    void newline();

    std::string out_;
    std::vector<bool> first_;  // per open container: nothing written yet
    bool pretty_;
    bool after_key_ = false;
};

}  // namespace memcity::cli
