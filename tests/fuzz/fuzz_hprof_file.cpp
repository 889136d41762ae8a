// libFuzzer target: a heap dump as a file, as `memcity import` reads it: gzip-compressed (as
// `jcmd GC.heap_dump -gz` writes it, in one or two gzip members) or not, imported into a trace
// that is then opened and analysed (fuzz_pipeline.h); and the same bytes read split over one
// to three visitors (the parallel read of a big dump). The first input byte picks: bit 0 gzip,
// bit 1 two gzip members, bits 2-3 the parts of the split read less one, the rest the
// pipeline's choices. Every outcome must be a value or a one-line error.
#include <zlib.h>

#include <cstddef>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <span>
#include <string>
#include <string_view>
#include <vector>

#include "fuzz/fuzz_pipeline.h"
#include "fuzz/hprof_touch.h"
#include "hprof/hprof_import.h"
#include "hprof/hprof_reader.h"
#include "trace/trace_reader.h"

namespace {

void oneLine(const memcity::Error& e) {
    if (e.message.empty() || e.message.find('\n') != std::string::npos) std::abort();
}

// Appends `in` to `out` as one gzip member.
void gzipMember(std::span<const uint8_t> in, std::vector<uint8_t>& out) {
    z_stream z{};
    if (deflateInit2(&z, 6, Z_DEFLATED, 15 + 16, 8, Z_DEFAULT_STRATEGY) != Z_OK) std::abort();
    const size_t at = out.size();
    out.resize(at + deflateBound(&z, in.size()) + 32);
    z.next_in = const_cast<Bytef*>(in.data());
    z.avail_in = static_cast<uInt>(in.size());
    z.next_out = out.data() + at;
    z.avail_out = static_cast<uInt>(out.size() - at);
    if (deflate(&z, Z_FINISH) != Z_STREAM_END) std::abort();
    out.resize(at + z.total_out);
    deflateEnd(&z);
}

void writeAll(const std::string& path, std::span<const uint8_t> bytes) {
    FILE* f = std::fopen(path.c_str(), "wb");
    if (!f || std::fwrite(bytes.data(), 1, bytes.size(), f) != bytes.size() || std::fclose(f) != 0)
        std::abort();
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
    using namespace memcity;
    if (size < 1) return 0;
    const uint8_t pick = data[0];
    const std::span<const uint8_t> dump(data + 1, size - 1);

    // The split read.
    fuzz::Touch touches[3];
    // Only the first part sees the header: tell the others the identifiers' size.
    if (const size_t end =
            std::string_view(reinterpret_cast<const char*>(dump.data()), dump.size()).find('\0');
        end != std::string_view::npos && end + 5 <= dump.size())
        for (fuzz::Touch& t : touches)
            t.ids = dump[end + 4];
    hprof::Visitor* parts[3] = {&touches[0], &touches[1], &touches[2]};
    const size_t count = 1 + (pick >> 2 & 3) % 3;
    if (Status s = hprof::readSplit(dump, std::span<hprof::Visitor* const>(parts, count)); !s.ok())
        oneLine(s.error());

    // The file, gzipped or not, imported.
    const std::string& dir = fuzz::workDirectory();
    std::string path = dir + "/dump.hprof";
    if (pick & 1) {
        std::vector<uint8_t> gz;
        const size_t half = pick & 2 ? dump.size() / 2 : dump.size();
        gzipMember(dump.first(half), gz);
        if (half < dump.size()) gzipMember(dump.subspan(half), gz);
        path += ".gz";
        writeAll(path, gz);
    } else {
        writeAll(path, dump);
    }
    const std::string trace_path = dir + "/imported.mct";
    auto importer = hprof::Importer::create(trace_path, "fuzz");
    if (!importer.ok()) std::abort();
    auto stats = (*importer)->add(path);
    if (!stats.ok()) oneLine(stats.error());
    const Status closed = (*importer)->close();
    std::remove(path.c_str());
    if (!stats.ok() || !closed.ok()) {
        std::remove(trace_path.c_str());
        return 0;
    }
    // What it imported, analysed.
    auto file = TraceFile::open(trace_path);
    if (!file.ok()) std::abort();  // the importer's own trace
    auto history = HeapHistory::build(*file, HistoryOptions{});
    if (history.ok())
        fuzz::analyseHistory(*history, pick >> 4);
    else
        oneLine(history.error());
    std::remove(trace_path.c_str());
    return 0;
}
