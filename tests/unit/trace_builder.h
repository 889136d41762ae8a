// TraceBuilder: tiny hand-made traces for tests, with a fixed set of symbols:
//   type 1 "A"        instance, 16 bytes, fields next (1, reference) and weak (2, reference)
//   type 2 "B"        instance, 24 bytes
//   type 3 "int[]"    primitive array, 16-byte header, 4 bytes per element
//   type 4 "Object[]" reference array, 16-byte header, 4 bytes per element
//   type 5 "Class"    instance whose size varies (every allocation gives it)
//   sites 1 ("Main.run:10") and 2 ("Main.other:20"), threads 1 ("main") and 2 ("worker")
// Time advances by 100 ns per event.
#pragma once

#include <cstdint>
#include <cstdlib>
#include <memory>
#include <optional>
#include <string>
#include <vector>

#include "trace/events.h"
#include "trace/trace_writer.h"

namespace memcity::testing {

// A fresh file name in the test temp directory.
std::string tempPath(const std::string& stem);
// A new, empty directory in the test temp directory (mkdtemp: unique even when an earlier test
// process had this one's pid, which wraps at 32768 in a long run).
std::string tempDir(const std::string& stem);

// Sets an environment variable for the scope (nullptr: unset), restoring it afterwards.
class ScopedEnv {
public:
    ScopedEnv(const char* name, const char* value) : name_(name) {
        if (const char* old = std::getenv(name)) old_ = old;
        value ? ::setenv(name, value, 1) : ::unsetenv(name);
    }
    ~ScopedEnv() { old_ ? ::setenv(name_, old_->c_str(), 1) : ::unsetenv(name_); }
    ScopedEnv(const ScopedEnv&) = delete;
    ScopedEnv& operator=(const ScopedEnv&) = delete;

private:
    const char* name_;
    std::optional<std::string> old_;
};

class TraceBuilder {
public:
    explicit TraceBuilder(const std::string& stem = "trace", WriterOptions options = {});
    ~TraceBuilder();

    TraceBuilder& alloc(uint64_t id, uint32_t type = 1, uint32_t site = 1, uint32_t thread = 1);
    TraceBuilder& allocArray(uint64_t id, uint32_t type, uint64_t length, uint32_t site = 1,
                             uint32_t thread = 1);
    TraceBuilder& allocSized(uint64_t id, uint32_t type, uint64_t size, uint32_t site = 1,
                             uint32_t thread = 1);
    TraceBuilder& gcStart(uint32_t gc);
    TraceBuilder& gcEnd(uint32_t gc, uint64_t next_object_id, uint64_t pause_ns = 1000);
    TraceBuilder& deaths(uint32_t gc, std::vector<uint64_t> ids);
    // gcStart + gcEnd (watermark = next id) + deaths (if any).
    TraceBuilder& gc(uint32_t gc, uint64_t next_object_id, std::vector<uint64_t> ids = {});
    TraceBuilder& snapshot(uint32_t gc, std::vector<std::pair<uint64_t, std::vector<Edge>>> objects,
                           std::vector<Root> roots);
    TraceBuilder& flush();

    TraceWriter& writer() { return *w_; }
    const std::string& path() const { return path_; }
    // Closes the trace (footer and trailer) and returns its path.
    std::string finish();

    static Root staticRoot(uint64_t target) { return Root::make(8, target, {1, 1}); }
    static Edge strong(uint64_t target, uint32_t field = 1) { return Edge{target, field, 0}; }
    static Edge weak(uint64_t target) { return Edge{target, 2, 1}; }

private:
    TraceBuilder& add(uint64_t id, uint32_t type, uint64_t length, uint64_t size, uint32_t site,
                      uint32_t thread);

    std::string path_;
    std::unique_ptr<TraceWriter> w_;
    int64_t t_ = 0;
};

// Reads a whole file.
std::vector<uint8_t> readFile(const std::string& path);
void writeFile(const std::string& path, const std::vector<uint8_t>& bytes);

}  // namespace memcity::testing
