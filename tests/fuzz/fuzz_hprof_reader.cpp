// libFuzzer target: any bytes through the HPROF reader, with a visitor that reads every byte of
// every span it is handed, and then through the importer (memcity import), writing a trace to
// /dev/null. Every outcome must be a value or a one-line error; crashes, reads past the input
// and undefined behaviour are bugs.
#include <cstddef>
#include <cstdint>
#include <cstdlib>
#include <span>

#include "hprof/hprof_import.h"
#include "hprof/hprof_reader.h"

namespace {

using namespace memcity::hprof;

struct Touch final : Visitor {
    uint32_t ids = 4;
    uint64_t sum = 0;

    void add(std::span<const uint8_t> s) {
        for (uint8_t b : s)
            sum += b;
    }
    void header(const Header& h) override { ids = h.id_size; }
    void string(uint64_t id, std::string_view s) override {
        sum += id;
        for (char c : s)
            sum += static_cast<uint8_t>(c);
    }
    void stackTrace(const StackTrace& t) override { sum += t.frame_ids.size(); }
    void classDump(const ClassDump& d) override { sum += d.fields.size() + d.statics.size(); }
    void instance(const InstanceDump& d) override { add(d.values); }
    void objectArray(const ObjectArrayDump& d) override {
        if (d.elements.size() != uint64_t{d.length} * ids) std::abort();
        for (uint32_t k = 0; k < d.length; ++k)
            sum += readId(d.elements.data() + uint64_t{k} * ids, ids);
    }
    void root(const Root& r) override { sum += r.object_id; }
};

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
    Touch t;
    const memcity::Status s = read(std::span<const uint8_t>(data, size), t);
    if (!s.ok() && s.error().message.find('\n') != std::string::npos) std::abort();  // one line
    auto importer = Importer::create("/dev/null", "fuzz");
    if (!importer.ok()) std::abort();
    auto stats = (*importer)->add("input", std::span<const uint8_t>(data, size));
    if (!stats.ok() && stats.error().message.find('\n') != std::string::npos) std::abort();
    (void)(*importer)->close();
    return t.sum == 1 ? 1 : 0;  // (keeps the reads)
}
