#include "unit/trace_builder.h"

#include <unistd.h>

#include <atomic>
#include <cstdio>
#include <cstdlib>
#include <fstream>
#include <iterator>
#include <random>
#include <stdexcept>

namespace memcity::testing {

namespace {
std::string tempBase() {
    const char* dir = std::getenv("TEST_TMPDIR");
    return dir && *dir ? dir : "/tmp";
}
}  // namespace

std::string tempPath(const std::string& stem) {
    // The pid alone is not unique: tests leave their files behind, and a fresh machine running
    // hundreds of test processes hands a pid out again.
    static const std::string process =
        std::to_string(::getpid()) + "-" + std::to_string(std::random_device{}() & 0xffffff);
    static std::atomic<int> counter{0};
    return tempBase() + "/memcity-test-" + process + "-" + std::to_string(counter++) + "-" + stem + ".mct";
}

std::string tempDir(const std::string& stem) {
    std::string path = tempBase() + "/memcity-test-" + stem + "-XXXXXX";
    if (!::mkdtemp(path.data())) throw std::runtime_error("cannot create a directory like " + path);
    return path;
}

TraceBuilder::TraceBuilder(const std::string& stem, WriterOptions options) : path_(tempPath(stem)) {
    auto w = TraceWriter::create(path_, options);
    if (!w) throw std::runtime_error(w.error().message);
    w_ = std::move(*w);
    TypeDef a{"A", format::TypeKind::kInstance, 0, 16, 0, 0, 0};
    TypeDef b{"B", format::TypeKind::kInstance, 0, 24, 0, 0, 0};
    TypeDef ints{"int[]", format::TypeKind::kPrimitiveArray, 0, 0, 16, 4, 0};
    TypeDef objs{"Object[]", format::TypeKind::kReferenceArray, 0, 0, 16, 4, 0};
    TypeDef cls{"Class", format::TypeKind::kInstance, 0, 0, 0, 0, 0};
    w_->defineType(1, a);
    w_->defineType(2, b);
    w_->defineType(3, ints);
    w_->defineType(4, objs);
    w_->defineType(5, cls);
    w_->defineField(1, 1, "next", "A", format::kFieldReference);
    w_->defineField(2, 1, "weak", "A", format::kFieldReference);
    w_->defineMethod(1, "Main", "run", "()V", "Main.java");
    w_->defineMethod(2, "Main", "other", "()V", "Main.java");
    Frame f1{1, 10}, f2{2, 20};
    w_->defineSite(1, {&f1, 1});
    w_->defineSite(2, {&f2, 1});
    w_->defineThread(1, "main");
    w_->defineThread(2, "worker");
    w_->defineString(1, "test");
}

TraceBuilder::~TraceBuilder() = default;

TraceBuilder& TraceBuilder::add(uint64_t id, uint32_t type, uint64_t length, uint64_t size, uint32_t site,
                                uint32_t thread) {
    AllocEvent e;
    e.id = id;
    e.type = type;
    e.site = site;
    e.thread = thread;
    e.length = length;
    e.size = size;
    e.time_ns = t_ += 100;
    w_->alloc(e);
    return *this;
}

TraceBuilder& TraceBuilder::alloc(uint64_t id, uint32_t type, uint32_t site, uint32_t thread) {
    return add(id, type, kNoLength, 0, site, thread);
}

TraceBuilder& TraceBuilder::allocArray(uint64_t id, uint32_t type, uint64_t length, uint32_t site,
                                       uint32_t thread) {
    return add(id, type, length, 0, site, thread);
}

TraceBuilder& TraceBuilder::allocSized(uint64_t id, uint32_t type, uint64_t size, uint32_t site,
                                       uint32_t thread) {
    return add(id, type, kNoLength, size, site, thread);
}

TraceBuilder& TraceBuilder::gcStart(uint32_t gc) {
    w_->gcStart({gc, 1, 1, t_ += 100});
    return *this;
}

TraceBuilder& TraceBuilder::gcEnd(uint32_t gc, uint64_t next_object_id, uint64_t pause_ns) {
    GcEndEvent e;
    e.gc = gc;
    e.time_ns = t_ += 100;
    e.next_object_id = next_object_id;
    e.pause_ns = pause_ns;
    w_->gcEnd(e);
    return *this;
}

TraceBuilder& TraceBuilder::deaths(uint32_t gc, std::vector<uint64_t> ids) {
    w_->deaths(gc, ids);
    return *this;
}

TraceBuilder& TraceBuilder::gc(uint32_t g, uint64_t next_object_id, std::vector<uint64_t> ids) {
    gcStart(g);
    gcEnd(g, next_object_id);
    if (!ids.empty()) deaths(g, std::move(ids));
    return *this;
}

TraceBuilder& TraceBuilder::snapshot(uint32_t gc, std::vector<std::pair<uint64_t, std::vector<Edge>>> objects,
                                     std::vector<Root> roots) {
    w_->beginSnapshot(gc);
    for (auto& [src, edges] : objects)
        w_->snapshotObject(src, edges);
    for (const Root& r : roots)
        w_->snapshotRoot(r);
    w_->endSnapshot();
    return *this;
}

TraceBuilder& TraceBuilder::flush() {
    w_->flush();
    return *this;
}

std::string TraceBuilder::finish() {
    Status s = w_->close();
    if (!s) throw std::runtime_error(s.error().message);
    return path_;
}

std::vector<uint8_t> readFile(const std::string& path) {
    std::ifstream in(path, std::ios::binary);
    return std::vector<uint8_t>(std::istreambuf_iterator<char>(in), {});
}

void writeFile(const std::string& path, const std::vector<uint8_t>& bytes) {
    std::ofstream out(path, std::ios::binary | std::ios::trunc);
    out.write(reinterpret_cast<const char*>(bytes.data()), static_cast<std::streamsize>(bytes.size()));
}

}  // namespace memcity::testing
