// libFuzzer target: any bytes through the HPROF reader, with a visitor that reads every byte of
// every span it is handed, and then through the importer (memcity import), writing a trace to
// /dev/null. Every outcome must be a value or a one-line error; crashes, reads past the input
// and undefined behaviour are bugs.
#include <cstddef>
#include <cstdint>
#include <cstdlib>
#include <span>

#include "fuzz/hprof_touch.h"
#include "hprof/hprof_import.h"
#include "hprof/hprof_reader.h"

using namespace memcity::hprof;
using memcity::fuzz::Touch;

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
