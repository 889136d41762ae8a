#include "hprof/hprof_import.h"

#include <fcntl.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <unistd.h>
#include <zlib.h>

#include <algorithm>
#include <atomic>
#include <chrono>
#include <cstdio>
#include <cstring>
#include <map>
#include <thread>
#include <unordered_map>

#include "hprof/hprof_reader.h"
#include "trace/java_names.h"

#include "hprof/dump_import.h"

namespace memcity::hprof {
namespace detail {

// "java/lang/String" or "[I" (a dump's internal names) as Java names them.
// A hidden class's suffix ("Foo$$Lambda+0x0000000800c0c000" in a dump) as JVMTI names it
// (".0x..."), so a dump and a recording name it alike.
std::string javaNameOfInternal(std::string_view internal) {
    if (!internal.empty() && internal[0] == '[') return javaName(internal);
    std::string name(internal);
    std::replace(name.begin(), name.end(), '/', '.');
    if (auto plus = name.rfind("+0x"); plus != std::string::npos) name[plus] = '.';
    return name;
}

// The internal name of a primitive array type's class ("[I" for int).
std::string_view primitiveArrayName(uint8_t type) {
    switch (static_cast<BasicType>(type)) {
        case BasicType::kBoolean: return "[Z";
        case BasicType::kChar: return "[C";
        case BasicType::kFloat: return "[F";
        case BasicType::kDouble: return "[D";
        case BasicType::kByte: return "[B";
        case BasicType::kShort: return "[S";
        case BasicType::kInt: return "[I";
        case BasicType::kLong: return "[J";
        default: return "";
    }
}

}  // namespace detail

using detail::Dump;
using detail::DumpImport;

Result<std::vector<uint8_t>> readDumpFile(const std::string& path, bool* gzip) {
    int fd = ::open(path.c_str(), O_RDONLY | O_CLOEXEC);
    if (fd < 0) return Error{path + ": " + std::strerror(errno)};
    struct stat st {};
    if (::fstat(fd, &st) != 0 || !S_ISREG(st.st_mode)) {
        ::close(fd);
        return Error{path + ": not a regular file"};
    }
    std::vector<uint8_t> raw(static_cast<size_t>(st.st_size));
    size_t got = 0;
    while (got < raw.size()) {
        const ssize_t n = ::read(fd, raw.data() + got, raw.size() - got);
        if (n <= 0) {
            ::close(fd);
            return Error{path + ": read failed at offset " + std::to_string(got)};
        }
        got += static_cast<size_t>(n);
    }
    ::close(fd);
    const bool compressed = raw.size() >= 2 && raw[0] == 0x1f && raw[1] == 0x8b;
    if (gzip) *gzip = compressed;
    if (!compressed) return raw;
    // jcmd GC.heap_dump -gz writes many gzip members one after another: inflate each.
    std::vector<uint8_t> out;
    out.reserve(raw.size() * 4);
    z_stream z{};
    if (inflateInit2(&z, 16 + MAX_WBITS) != Z_OK) return Error{path + ": zlib failed to start"};
    z.next_in = raw.data();
    z.avail_in = static_cast<uInt>(std::min<size_t>(raw.size(), UINT32_MAX));
    size_t fed = z.avail_in;
    std::vector<uint8_t> buffer(1 << 20);
    for (;;) {
        z.next_out = buffer.data();
        z.avail_out = static_cast<uInt>(buffer.size());
        const int rc = inflate(&z, Z_NO_FLUSH);
        out.insert(out.end(), buffer.data(), buffer.data() + (buffer.size() - z.avail_out));
        if (z.avail_in == 0 && fed < raw.size()) {
            const size_t more = std::min<size_t>(raw.size() - fed, UINT32_MAX);
            z.next_in = raw.data() + fed;
            z.avail_in = static_cast<uInt>(more);
            fed += more;
        }
        if (rc == Z_STREAM_END) {
            if (z.avail_in == 0) break;
            inflateReset(&z);
            continue;
        }
        if (rc == Z_BUF_ERROR && z.avail_in == 0) {
            inflateEnd(&z);
            return Error{path + ": gzip data cut off at offset " + std::to_string(fed) + " (inflated " +
                         std::to_string(out.size()) + " bytes)"};
        }
        if (rc != Z_OK && rc != Z_BUF_ERROR) {
            const uint64_t at = fed - z.avail_in;
            inflateEnd(&z);
            return Error{path + ": bad gzip data at offset " + std::to_string(at) + " (" +
                         (z.msg ? z.msg : "zlib error") + ")"};
        }
    }
    inflateEnd(&z);
    return out;
}

bool looksLikeDump(std::span<const uint8_t> head) {
    static constexpr std::string_view magic = "JAVA PROFILE ";
    if (head.size() >= 2 && head[0] == 0x1f && head[1] == 0x8b) return true;
    return head.size() >= magic.size() && std::memcmp(head.data(), magic.data(), magic.size()) == 0;
}

Importer::~Importer() = default;

Result<std::unique_ptr<Importer>> Importer::create(const std::string& trace_path,
                                                   const std::string& producer) {
    // The trace's header holds the first dump's time: the writer starts with the first dump. Its
    // file must be writable now.
    const int fd = ::open(trace_path.c_str(), O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0644);
    if (fd < 0) return Error{trace_path + ": " + std::strerror(errno)};
    ::close(fd);
    std::unique_ptr<Importer> im(new Importer());
    im->state_ = std::make_unique<State>();
    im->state_->path = trace_path;
    im->state_->producer = producer;
    return im;
}

Result<DumpStats> Importer::add(const std::string& dump_path, uint64_t pause_ns) {
    // A plain dump is mapped (a copy of a gigabyte costs seconds); a gzip one is inflated.
    const int fd = ::open(dump_path.c_str(), O_RDONLY | O_CLOEXEC);
    if (fd < 0) return Error{dump_path + ": " + std::strerror(errno)};
    struct stat st {};
    uint8_t magic[2] = {0, 0};
    const bool regular = ::fstat(fd, &st) == 0 && S_ISREG(st.st_mode);
    const bool gzip = regular && ::pread(fd, magic, 2, 0) == 2 && magic[0] == 0x1f && magic[1] == 0x8b;
    if (regular && !gzip && st.st_size > 0) {
        const auto size = static_cast<size_t>(st.st_size);
        void* map = ::mmap(nullptr, size, PROT_READ, MAP_PRIVATE, fd, 0);
        ::close(fd);
        if (map == MAP_FAILED) return Error{dump_path + ": cannot be mapped: " + std::strerror(errno)};
        ::madvise(map, size, MADV_SEQUENTIAL);
        auto stats =
            add(dump_path, std::span<const uint8_t>(static_cast<const uint8_t*>(map), size), pause_ns);
        ::munmap(map, size);
        return stats;
    }
    ::close(fd);
    auto bytes = readDumpFile(dump_path);
    if (!bytes) return bytes.error();
    auto stats = add(dump_path, *bytes, pause_ns);
    if (stats) stats->gzip = gzip;
    return stats;
}

Result<DumpStats> Importer::add(const std::string& name, std::span<const uint8_t> bytes, uint64_t pause_ns) {
    const auto t0 = std::chrono::steady_clock::now();
    State& st = *state_;
    DumpStats stats;
    stats.path = name;
    stats.file_bytes = bytes.size();
    Dump dump;
    // An object takes 30 to 60 bytes of a dump: reserve for them all (untouched pages cost nothing).
    dump.objects.reserve(bytes.size() / 24 + 1024);
    // The trace is begun with the first dump's header (its time is the trace's start): a
    // window following the trace has it from then on.
    dump.on_header = [&](const Header& h) -> Status {
        if (st.writer) return {};
        WriterOptions options;
        options.start_wall_ns = h.timestamp_ms * 1'000'000;
        auto w = TraceWriter::create(st.path, options);
        if (!w) return w.error();
        st.writer = std::move(*w);
        st.writer->meta("producer", st.producer);
        st.writer->meta("source", "heap dumps (HPROF): no allocation sites, no object identity across dumps");
        st.symbols.cause = ++st.symbols.next_string;
        st.writer->defineString(st.symbols.cause, "Heap Dump");
        st.writer->flush();
        st.step(ImportStep::kReading, 0);
        return {};
    };
    // A big dump's heap records are read in two parts, on two threads (the second part's
    // objects, classes and roots then join the first's as if one pass had read them).
    const bool split = bytes.size() >= st.split_bytes && std::thread::hardware_concurrency() >= 2;
    std::atomic<bool> stop{false};
    // How far the parts are: the first from the start, the second from where it began. This
    // thread alone reports it, and hears a cancel, while its part is read and after.
    std::atomic<uint64_t> first_at{0}, second_from{0}, second_at{0};
    auto reading = [&] {
        const uint64_t at = second_at.load(), from = second_from.load();
        const uint64_t read = first_at.load() + at - std::min(at, from);
        if (!st.step(ImportStep::kReading,
                     std::min(1.0, static_cast<double>(read) / static_cast<double>(bytes.size()))))
            stop = true;
    };
    if (st.progress)
        dump.on_objects = [&](uint64_t offset) {
            first_at = offset;
            reading();
            return !stop.load();
        };
    Status read_status;
    if (split) {
        Dump part;
        part.objects.reserve(bytes.size() / 48 + 1024);
        part.on_objects = [&](uint64_t offset) {
            if (second_from.load() == 0) second_from = offset;
            second_at = offset;
            return !stop.load();
        };
        Visitor* parts[] = {&dump, &part};
        read_status = readSplit(bytes, parts, st.progress ? std::function<void()>(reading) : nullptr);
        if (read_status.ok()) dump.absorb(part);
    } else {
        read_status = read(bytes, dump);
    }
    const Error cancelled{name + ": the import was cancelled"};
    if (st.cancelled) return cancelled;
    if (!read_status.ok()) return Error{name + ": " + read_status.error().message};
    if (!dump.header_status.ok()) return dump.header_status.error();
    if (dump.head.id_size == 0 || !st.writer) return Error{name + ": not a heap dump"};
    if (!st.step(ImportStep::kLayingOut, 0)) return cancelled;
    stats.gc = st.gc;
    DumpImport import(st, dump, bytes, stats, pause_ns);
    if (Status s = import.run(); !s.ok()) return s.error();
    if (st.cancelled) return cancelled;
    st.writer->meta("dump " + std::to_string(st.gc), name);
    ++st.gc;
    stats.seconds = std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
    return stats;
}

const char* importStepName(ImportStep step) {
    switch (step) {
        case ImportStep::kReading: return "reading the dump";
        case ImportStep::kLayingOut: return "laying out the objects";
        case ImportStep::kObjects: return "writing the objects";
        case ImportStep::kReferences: return "writing the references";
    }
    return "importing";
}

void Importer::onProgress(std::function<bool(ImportStep, double)> progress) {
    state_->progress = std::move(progress);
}

void Importer::splitFrom(uint64_t bytes) {
    state_->split_bytes = bytes;
}

void Importer::flush() {
    if (state_->writer) state_->writer->flush();
}

void Importer::abandon() {
    if (state_->writer) state_->writer->abandon();
}

Status Importer::close() {
    // (A writer without a dump: the first one failed after its header.)
    Status closed = state_->writer ? state_->writer->close() : Status{};
    if (state_->gc == 0) return Error{state_->path + ": no heap dump was imported"};
    return closed;
}

}  // namespace memcity::hprof
