#include "hprof/hprof_import.h"

#include <fcntl.h>
#include <sys/mman.h>
#include <sys/resource.h>
#include <sys/stat.h>
#include <sys/statvfs.h>
#include <unistd.h>
#include <zlib.h>

#include <algorithm>
#include <atomic>
#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <map>
#include <unordered_map>

#include "hprof/hprof_reader.h"
#include "trace/java_names.h"
#include "util/mapped_guard.h"
#include "util/parallel.h"

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

namespace {

// Inflates the gzip file open at `fd` (`path`, for messages) member after member (jcmd
// GC.heap_dump -gz writes many one after another), reading it a block at a time, and hands
// each inflated block to sink(data, bytes); past `limit` inflated bytes (`limit_what` says
// what it is) it stops with an error naming the file and the limit: a few megabytes of gzip can
// say gigabytes.
template <typename Sink>
Status inflateFile(int fd, const std::string& path, uint64_t limit, std::string_view limit_what,
                   Sink&& sink) {
    z_stream z{};
    if (inflateInit2(&z, 16 + MAX_WBITS) != Z_OK) return Error{path + ": zlib failed to start"};
    std::vector<uint8_t> in(1 << 20), out(1 << 20);
    uint64_t fed = 0, inflated = 0;
    bool eof = false;
    Status status;
    for (;;) {
        if (z.avail_in == 0 && !eof) {
            const ssize_t n = ::read(fd, in.data(), in.size());
            if (n < 0) {
                status = Error{path + ": read failed at offset " + std::to_string(fed) + ": " +
                               std::strerror(errno)};
                break;
            }
            eof = n == 0;
            z.next_in = in.data();
            z.avail_in = static_cast<uInt>(n);
            fed += static_cast<uint64_t>(n);
        }
        z.next_out = out.data();
        z.avail_out = static_cast<uInt>(out.size());
        const int rc = inflate(&z, Z_NO_FLUSH);
        const size_t got = out.size() - z.avail_out;
        if (got > limit - inflated) {
            status = Error{path + ": inflates to more than " + std::to_string(limit) + " bytes (" +
                           std::string(limit_what) + ")"};
            break;
        }
        inflated += got;
        if (got > 0) {
            if (Status s = sink(out.data(), got); !s) {
                status = s;
                break;
            }
        }
        if (rc == Z_STREAM_END) {
            if (z.avail_in == 0 && eof) break;
            if (z.avail_in == 0) {  // (the next member, if any, is in the next block)
                const ssize_t n = ::read(fd, in.data(), in.size());
                if (n <= 0) {
                    if (n < 0)
                        status = Error{path + ": read failed at offset " + std::to_string(fed) + ": " +
                                       std::strerror(errno)};
                    break;
                }
                z.next_in = in.data();
                z.avail_in = static_cast<uInt>(n);
                fed += static_cast<uint64_t>(n);
            }
            inflateReset(&z);
            continue;
        }
        if (rc == Z_BUF_ERROR && z.avail_in == 0 && eof) {
            status = Error{path + ": gzip data cut off at offset " + std::to_string(fed) + " (inflated " +
                           std::to_string(inflated) + " bytes)"};
            break;
        }
        if (rc != Z_OK && rc != Z_BUF_ERROR) {
            status = Error{path + ": bad gzip data at offset " + std::to_string(fed - z.avail_in) + " (" +
                           (z.msg ? z.msg : "zlib error") + ")"};
            break;
        }
    }
    inflateEnd(&z);
    return status;
}

// A gzip dump inflated into a file of its own, unlinked at once (no one else can open it, and
// it is gone when the import ends or dies), in $TMPDIR or /tmp: at most the free space there
// (less a margin) and the process's file size limit; the caller maps it as it maps a plain dump.
Result<int> inflateToTemporary(int fd, const std::string& path) {
    const char* tmpdir = std::getenv("TMPDIR");
    const std::string dir = tmpdir && *tmpdir ? tmpdir : "/tmp";
    std::string name = dir + "/memcity-inflated-XXXXXX";
    const int out = ::mkostemp(name.data(), O_CLOEXEC);
    if (out < 0)
        return Error{path + ": no temporary file in " + dir + " to inflate into: " + std::strerror(errno)};
    ::unlink(name.c_str());
    uint64_t limit = UINT64_MAX;
    std::string what;
    struct statvfs fs {};
    if (::fstatvfs(out, &fs) == 0) {
        const uint64_t free_bytes = uint64_t{fs.f_bavail} * fs.f_frsize;
        const uint64_t margin = std::max<uint64_t>(free_bytes / 20, uint64_t{64} << 20);
        limit = free_bytes > margin ? free_bytes - margin : 0;
        what = "the free space in " + dir + " less a margin";
    }
    struct rlimit fsize {};
    if (::getrlimit(RLIMIT_FSIZE, &fsize) == 0 && fsize.rlim_cur != RLIM_INFINITY && fsize.rlim_cur < limit) {
        limit = fsize.rlim_cur;
        what = "the file size limit";
    }
    Status s = inflateFile(fd, path, limit, what, [&](const uint8_t* data, size_t bytes) -> Status {
        for (size_t done = 0; done < bytes;) {
            const ssize_t n = ::write(out, data + done, bytes - done);
            if (n <= 0)
                return Error{path + ": cannot write its inflated dump to " + dir + ": " +
                             std::strerror(n < 0 ? errno : ENOSPC)};
            done += static_cast<size_t>(n);
        }
        return Status{};
    });
    if (!s) {
        ::close(out);
        return s.error();
    }
    return out;
}

// How many elements of `element_bytes` each to reserve for ahead, of the `wanted` a dump's size
// suggests: no more than a quarter of what this process may still map (RLIMIT_AS counts a
// reservation whose pages are never touched; a dump mapped in 3 GiB of a 4 GiB limit leaves
// little) nor a quarter of the machine's memory (an allocation past it is refused). The vector
// grows past it if the dump holds more.
size_t reservable(uint64_t wanted, size_t element_bytes) {
    const long pages = ::sysconf(_SC_PHYS_PAGES), page = ::sysconf(_SC_PAGESIZE);
    uint64_t budget =
        pages > 0 && page > 0 ? static_cast<uint64_t>(pages) * static_cast<uint64_t>(page) : UINT64_MAX;
    struct rlimit as {};
    if (::getrlimit(RLIMIT_AS, &as) == 0 && as.rlim_cur != RLIM_INFINITY) {
        uint64_t mapped = 0;  // (statm's first number: the pages mapped now)
        if (std::FILE* f = std::fopen("/proc/self/statm", "r")) {
            unsigned long long n = 0;
            if (std::fscanf(f, "%llu", &n) == 1 && page > 0) mapped = n * static_cast<uint64_t>(page);
            std::fclose(f);
        }
        budget = std::min<uint64_t>(budget, as.rlim_cur > mapped ? as.rlim_cur - mapped : 0);
    }
    return static_cast<size_t>(std::min<uint64_t>(wanted, budget / 4 / element_bytes));
}

}  // namespace

Result<std::vector<uint8_t>> readDumpFile(const std::string& path, bool* gzip) {
    int fd = ::open(path.c_str(), O_RDONLY | O_CLOEXEC);
    if (fd < 0) return Error{path + ": " + std::strerror(errno)};
    struct stat st {};
    if (::fstat(fd, &st) != 0 || !S_ISREG(st.st_mode)) {
        ::close(fd);
        return Error{path + ": not a regular file"};
    }
    uint8_t magic[2] = {0, 0};
    const bool compressed = ::pread(fd, magic, 2, 0) == 2 && magic[0] == 0x1f && magic[1] == 0x8b;
    if (gzip) *gzip = compressed;
    std::vector<uint8_t> out;
    if (compressed) {
        Status s = inflateFile(fd, path, kMaxDumpInMemory, "what a dump read into memory may hold",
                               [&](const uint8_t* data, size_t bytes) -> Status {
                                   out.insert(out.end(), data, data + bytes);
                                   return Status{};
                               });
        ::close(fd);
        if (!s) return s.error();
        return out;
    }
    if (static_cast<uint64_t>(st.st_size) > kMaxDumpInMemory) {
        ::close(fd);
        return Error{path + ": " + std::to_string(st.st_size) + " bytes, more than " +
                     std::to_string(kMaxDumpInMemory) + " to read into memory"};
    }
    out.resize(static_cast<size_t>(st.st_size));
    size_t got = 0;
    while (got < out.size()) {
        const ssize_t n = ::read(fd, out.data() + got, out.size() - got);
        if (n <= 0) {
            ::close(fd);
            return Error{path + ": read failed at offset " + std::to_string(got)};
        }
        got += static_cast<size_t>(n);
    }
    ::close(fd);
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

void Importer::placeInG1Regions(const G1Grid& grid, bool collected) {
    state_->g1 = grid;
    state_->g1_collected = collected;
}

Result<DumpStats> Importer::add(const std::string& dump_path, uint64_t pause_ns) {
    // A plain dump is mapped (a copy of a gigabyte costs seconds); a gzip one is inflated into
    // a temporary file, which is mapped the same way (memory stays bounded however much it says).
    int fd = ::open(dump_path.c_str(), O_RDONLY | O_CLOEXEC);
    if (fd < 0) return Error{dump_path + ": " + std::strerror(errno)};
    struct stat st {};
    uint8_t magic[2] = {0, 0};
    const bool regular = ::fstat(fd, &st) == 0 && S_ISREG(st.st_mode);
    if (!regular) {
        ::close(fd);
        return Error{dump_path + ": not a regular file"};
    }
    const bool gzip = ::pread(fd, magic, 2, 0) == 2 && magic[0] == 0x1f && magic[1] == 0x8b;
    if (gzip) {
        auto inflated = inflateToTemporary(fd, dump_path);
        ::close(fd);
        if (!inflated) return inflated.error();
        fd = *inflated;
        if (::fstat(fd, &st) != 0) {
            ::close(fd);
            return Error{dump_path + ": its inflated dump cannot be read: " + std::strerror(errno)};
        }
    }
    if (st.st_size == 0) {
        ::close(fd);
        return add(dump_path, std::span<const uint8_t>{}, pause_ns);
    }
    const auto size = static_cast<size_t>(st.st_size);
    void* map = ::mmap(nullptr, size, PROT_READ, MAP_PRIVATE, fd, 0);
    ::close(fd);
    if (map == MAP_FAILED)
        return Error{dump_path + (gzip ? ": its inflated dump of " + std::to_string(size) + " bytes" : "") +
                     ": cannot be mapped: " + std::strerror(errno)};
    ::madvise(map, size, MADV_SEQUENTIAL);
    // A dump cut short while it is read (its pages past the cut read as zeros, not as a SIGBUS)
    // is reported as that, whatever the reader made of the zeros.
    MappedGuard guard(map, size);
    auto stats = add(dump_path, std::span<const uint8_t>(static_cast<const uint8_t*>(map), size), pause_ns);
    const std::optional<uint64_t> cut = guard.shrankAt();
    guard.release();
    ::munmap(map, size);
    if (cut) return Error{dump_path + ": truncated while being read at offset " + std::to_string(*cut)};
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
    // An object takes 30 to 60 bytes of a dump: reserve for them all (untouched pages cost no
    // memory, only address space: as much as there is to spare).
    dump.objects.reserve(reservable(bytes.size() / 24 + 1024, sizeof(detail::Obj)));
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
    const bool split = bytes.size() >= st.split_bytes && defaultThreads() >= 2;
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
    dump.on_objects = [&](uint64_t offset) {
        first_at = offset;
        reading();
        return !stop.load();
    };
    Status read_status;
    if (split) {
        Dump part;
        part.objects.reserve(reservable(bytes.size() / 48 + 1024, sizeof(detail::Obj)));
        part.on_objects = [&](uint64_t offset) {
            if (second_from.load() == 0) second_from = offset;
            second_at = offset;
            return !stop.load();
        };
        Visitor* parts[] = {&dump, &part};
        read_status = readSplit(bytes, parts, reading);
        if (read_status.ok()) dump.absorb(part);
    } else {
        read_status = read(bytes, dump);
    }
    const Error cancelled{name + ": the import was cancelled"};
    if (st.progress.cancelled()) return cancelled;
    if (!read_status.ok()) return Error{name + ": " + read_status.error().message};
    if (!dump.header_status.ok()) return dump.header_status.error();
    if (dump.head.id_size == 0 || !st.writer) return Error{name + ": not a heap dump"};
    if (!st.step(ImportStep::kLayingOut, 0)) return cancelled;
    stats.gc = st.gc;
    DumpImport import(st, dump, bytes, stats, pause_ns);
    if (Status s = import.run(); !s.ok()) return s.error();
    if (st.progress.cancelled()) return cancelled;
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

void Importer::onProgress(Progress progress) {
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
