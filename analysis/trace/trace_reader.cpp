#include "trace/trace_reader.h"

#include <fcntl.h>
#include <sys/file.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <unistd.h>
#include <zstd.h>

#include <algorithm>
#include <cerrno>
#include <cstring>

#include "util/bytes.h"
#include "util/crc32c.h"

namespace memcity {

using format::ChunkKind;

std::string_view format::chunkKindName(uint16_t kind) {
    switch (static_cast<ChunkKind>(kind)) {
        case ChunkKind::kMeta: return "meta";
        case ChunkKind::kSymbols: return "symbols";
        case ChunkKind::kEvents: return "events";
        case ChunkKind::kRefs: return "refs";
        case ChunkKind::kRoots: return "roots";
        case ChunkKind::kIndex: return "index";
        case ChunkKind::kAddrs: return "addrs";
        case ChunkKind::kObjects: return "objects";
    }
    return "unknown";
}

namespace {
// Whether a writer holds the trace (TraceWriter locks it until it closes it, and a process that
// dies lets go): asked with a shared lock taken and dropped at once, on a file of our own.
bool writerHolds(int fd) {
    if (::flock(fd, LOCK_SH | LOCK_NB) == 0) {
        ::flock(fd, LOCK_UN);
        return false;
    }
    return errno == EWOULDBLOCK;
}
}  // namespace

Result<TraceFile> TraceFile::open(const std::string& path) {
    int fd = ::open(path.c_str(), O_RDONLY | O_CLOEXEC);
    if (fd < 0) return Error::at(path, kNoOffset, std::string("cannot open: ") + std::strerror(errno));
    // Whether a writer holds it is asked before the size, as grow() asks it: a writer that lets
    // go after the size was taken is still followed, and what it wrote last is read.
    const bool writing = writerHolds(fd);
    struct stat st {};
    if (::fstat(fd, &st) != 0) {
        int e = errno;
        ::close(fd);
        return Error::at(path, kNoOffset, std::string("cannot stat: ") + std::strerror(e));
    }
    if (!S_ISREG(st.st_mode)) {
        ::close(fd);
        return Error::at(path, kNoOffset, "not a regular file");
    }
    TraceFile f;
    f.path_ = path;
    f.size_ = static_cast<uint64_t>(st.st_size);
    if (f.size_ > 0) {
        void* m = ::mmap(nullptr, f.size_, PROT_READ, MAP_SHARED, fd, 0);
        if (m == MAP_FAILED) {
            int e = errno;
            ::close(fd);
            return Error::at(path, kNoOffset, std::string("cannot map: ") + std::strerror(e));
        }
        f.mapping_ = m;
        f.mapping_size_ = f.size_;
        f.data_ = static_cast<const uint8_t*>(m);
        f.guards_.emplace_back(m, f.size_);
    }
    f.fd_ = fd;  // (closed with f)
    if (Status s = f.parse(); !s) {
        if (Status whole = f.intact(); !whole) return whole.error();  // (what made the parse fail)
        return s.error();
    }
    if (Status s = f.intact(); !s) return s.error();
    if (!f.trailer_present_ && writing) {
        f.being_written_ = true;
        f.noteBeingWritten();
    }
    return f;
}

Result<size_t> TraceFile::grow() {
    if (!being_written_) return size_t{0};
    // Whether the writer is there is asked before the size: what it wrote before it let go is
    // then read in full.
    const bool writing = writerHolds(fd_);
    struct stat st {};
    if (::fstat(fd_, &st) != 0)
        return Error::at(path_, kNoOffset, std::string("cannot stat: ") + std::strerror(errno));
    const auto size = static_cast<uint64_t>(st.st_size);
    const size_t before = chunks_.size();
    if (size < size_) {
        // Another recording took the file over (its writer truncates it): what was read is gone.
        being_written_ = false;
        return Error::at(path_, size,
                         "the trace shrank from " + std::to_string(size_) +
                             " bytes while it was read (another recording replaced it?)");
    }
    if (size > size_) {
        void* m = ::mmap(nullptr, size, PROT_READ, MAP_SHARED, fd_, 0);
        if (m == MAP_FAILED)
            return Error::at(path_, kNoOffset, std::string("cannot map: ") + std::strerror(errno));
        if (mapping_) old_mappings_.emplace_back(mapping_, mapping_size_);
        guards_.emplace_back(m, size);
        mapping_ = m;
        mapping_size_ = size;
        data_ = static_cast<const uint8_t*>(m);
        size_ = size;
    }
    // Scanned again when the writer is gone, even with nothing new: the note is then the one a
    // reader that came after it would get.
    if (size_ > valid_bytes_ || !writing) {
        const size_t unknown_before = unknown_chunks_;
        // What was added is no trace: the chunks read before it stay as they were (a scan that
        // failed part way has added some), cut off where the bad one starts, and the file is
        // not followed any more (a later grow() would add the same chunks again).
        auto keepWhatWasRead = [&](Error e) -> Error {
            chunks_.resize(before);
            unknown_chunks_ = unknown_before;
            trailer_present_ = false;
            truncated_ = true;
            truncation_note_ = e.message;
            being_written_ = false;
            ::close(fd_);
            fd_ = -1;
            return e;
        };
        trailer_present_ = size_ >= uint64_t{header_.header_size} + format::kTrailerSize &&
                           loadU64(data_ + size_ - 8) == format::kTrailerMagic;
        truncated_ = false;
        truncation_note_.clear();
        if (Status s = scanChunks(valid_bytes_); !s) return keepWhatWasRead(s.error());
        auto verified = std::make_unique<std::atomic<uint8_t>[]>(chunks_.size());
        for (size_t i = 0; i < before; ++i)
            verified[i].store(verified_[i].load(std::memory_order_relaxed), std::memory_order_relaxed);
        verified_ = std::move(verified);
        if (Status s = readSymbolChunks(before); !s) {
            valid_bytes_ = before == 0 ? header_.header_size : chunks_[before - 1].end();
            return keepWhatWasRead(s.error());
        }
    }
    if (trailer_present_ || !writing) {
        being_written_ = false;
    } else {
        noteBeingWritten();
    }
    return chunks_.size() - before;
}

std::optional<uint64_t> TraceFile::faultedAt() const {
    std::optional<uint64_t> at;
    for (const MappedGuard& g : guards_)
        if (auto a = g.shrankAt(); a && (!at || *a < *at)) at = a;
    return at;
}

std::optional<uint64_t> TraceFile::shrankAt() const {
    std::optional<uint64_t> at = faultedAt();
    // A file cut inside a page reads zeros up to that page's end without a fault: its length says.
    struct stat st {};
    if (fd_ >= 0 && ::fstat(fd_, &st) == 0 && static_cast<uint64_t>(st.st_size) < size_) {
        const auto now = static_cast<uint64_t>(st.st_size);
        if (!at || now < *at) at = now;
    }
    return at;
}

Error TraceFile::truncatedError(uint64_t at) const {
    Error e(path_ + ": truncated while being read at offset " + std::to_string(at));
    e.file = path_;
    e.offset = at;
    return e;
}

Status TraceFile::intact() const {
    if (auto at = shrankAt()) return truncatedError(*at);
    return {};
}

void TraceFile::noteBeingWritten() {
    truncation_note_ = describeAt(path_, valid_bytes_,
                                  "the trace is still being written (its recorder is running); read the " +
                                      std::to_string(chunks_.size()) + " chunks complete so far");
}

Result<TraceFile> TraceFile::fromMemory(std::span<const uint8_t> data, std::string name) {
    TraceFile f;
    f.path_ = std::move(name);
    f.data_ = data.data();
    f.size_ = data.size();
    if (Status s = f.parse(); !s) return s.error();
    return f;
}

TraceFile::TraceFile(TraceFile&& other) noexcept {
    *this = std::move(other);
}

TraceFile& TraceFile::operator=(TraceFile&& other) noexcept {
    if (this == &other) return *this;
    reset();
    path_ = std::move(other.path_);
    data_ = other.data_;
    size_ = other.size_;
    mapping_ = other.mapping_;
    mapping_size_ = other.mapping_size_;
    fd_ = other.fd_;
    old_mappings_ = std::move(other.old_mappings_);
    guards_ = std::move(other.guards_);
    being_written_ = other.being_written_;
    trailer_present_ = other.trailer_present_;
    header_ = other.header_;
    chunks_ = std::move(other.chunks_);
    verified_ = std::move(other.verified_);
    symbols_ = std::move(other.symbols_);
    meta_ = std::move(other.meta_);
    gc_end_chunks_ = std::move(other.gc_end_chunks_);
    warnings_ = std::move(other.warnings_);
    truncated_ = other.truncated_;
    had_index_ = other.had_index_;
    valid_bytes_ = other.valid_bytes_;
    truncation_note_ = std::move(other.truncation_note_);
    unknown_chunks_ = other.unknown_chunks_;
    other.mapping_ = nullptr;
    other.fd_ = -1;
    other.old_mappings_.clear();
    other.guards_.clear();
    other.data_ = nullptr;
    other.size_ = 0;
    return *this;
}

TraceFile::~TraceFile() {
    reset();
}

void TraceFile::reset() noexcept {
    guards_.clear();  // (before the ranges are unmapped and can be mapped again by anyone)
    if (mapping_) ::munmap(mapping_, mapping_size_);
    for (const auto& [m, n] : old_mappings_)
        ::munmap(m, n);
    old_mappings_.clear();
    if (fd_ >= 0) ::close(fd_);
    fd_ = -1;
    mapping_ = nullptr;
    data_ = nullptr;
}

Status TraceFile::parse() {
    if (size_ < format::kHeaderSize) {
        return Error::at(path_, kNoOffset,
                         "not a memcity trace: the file has " + std::to_string(size_) +
                             " bytes, fewer than a trace header (" + std::to_string(format::kHeaderSize) +
                             ")");
    }
    if (std::memcmp(data_, format::kMagic.data(), format::kMagic.size()) != 0)
        return Error::at(path_, 0, "not a memcity trace (bad magic)");
    header_.version_major = loadU16(data_ + 8);
    header_.version_minor = loadU16(data_ + 10);
    header_.flags = loadU32(data_ + 12);
    header_.header_size = loadU32(data_ + 16);
    header_.object_alignment = loadU32(data_ + 20);
    header_.start_wall_ns = loadU64(data_ + 24);
    if (header_.version_major != format::kVersionMajor &&
        header_.version_major != format::kVersionMajorSampled) {
        std::string v = std::to_string(header_.version_major) + "." + std::to_string(header_.version_minor);
        return Error::at(path_, 8,
                         "trace format version " + v + " is not supported (this memcity reads versions " +
                             std::to_string(format::kVersionMajor) + ".x and " +
                             std::to_string(format::kVersionMajorSampled) + ".x)");
    }
    if (header_.header_size < format::kHeaderSize || header_.header_size > size_)
        return Error::at(path_, 16, "header size " + std::to_string(header_.header_size) + " is invalid");
    // A sampled trace is version 2 and says so twice: by its flag and by its interval.
    const bool sampled_flag = (header_.flags & format::kHeaderFlagSampled) != 0;
    if (sampled_flag != (header_.version_major == format::kVersionMajorSampled))
        return Error::at(path_, 12,
                         sampled_flag ? "the header says sampled, which needs format version 2"
                                      : "format version 2 needs the header's sampled flag");
    if (sampled_flag) {
        if (header_.header_size < format::kSampledHeaderSize)
            return Error::at(path_, 16,
                             "header size " + std::to_string(header_.header_size) +
                                 " leaves no room for the sampling interval (needs 40)");
        header_.sampling_interval = loadU64(data_ + 32);
        if (header_.sampling_interval == 0 || header_.sampling_interval > (uint64_t{1} << 40))
            return Error::at(path_, 32,
                             "sampling interval " + std::to_string(header_.sampling_interval) +
                                 " bytes is not from 1 byte to 1 TiB");
    }
    if (header_.object_alignment == 0) header_.object_alignment = 8;
    if (header_.object_alignment > 4096 || (header_.object_alignment & (header_.object_alignment - 1)) != 0)
        return Error::at(path_, 20,
                         "object alignment " + std::to_string(header_.object_alignment) +
                             " is not a power of two up to 4096");

    std::string why_not;
    Status indexed = readFooterIndex(&why_not);
    if (!indexed) return indexed;
    if (!had_index_) {
        if (!why_not.empty()) warnings_.push_back(why_not);
        if (Status s = scanChunks(header_.header_size); !s) return s;
    }
    verified_ = std::make_unique<std::atomic<uint8_t>[]>(chunks_.size());
    return readSymbolChunks(0);
}

Status TraceFile::checkChunkHeader(uint64_t offset, ChunkRef* out, bool* past_end) const {
    *past_end = false;
    if (offset + format::kChunkHeaderSize > size_) {
        *past_end = true;
        return Error{"the chunk header runs past the end of the file"};
    }
    const uint8_t* h = data_ + offset;
    if (loadU32(h) != format::kChunkSync) return Error{"no chunk starts here (bad sync marker)"};
    ChunkRef c;
    c.offset = offset;
    c.kind = loadU16(h + 4);
    c.flags = loadU16(h + 6);
    c.stored_size = loadU32(h + 8);
    c.raw_size = loadU32(h + 12);
    c.meta = loadU32(h + 16);
    if (c.stored_size > format::kMaxChunkPayload || c.raw_size > format::kMaxChunkPayload)
        return Error{"chunk size " + std::to_string(std::max(c.stored_size, c.raw_size)) +
                     " is absurd (at most " + std::to_string(format::kMaxChunkPayload) + ")"};
    if (!c.compressed() && c.raw_size != c.stored_size)
        return Error{"uncompressed chunk has stored size " + std::to_string(c.stored_size) +
                     " but raw size " + std::to_string(c.raw_size)};
    if (c.end() > size_) {
        *past_end = true;
        return Error{"the chunk's " + std::to_string(c.stored_size) +
                     "-byte payload runs past the end of the file"};
    }
    *out = c;
    return {};
}

Status TraceFile::readFooterIndex(std::string* why_not) {
    if (size_ < uint64_t{header_.header_size} + format::kTrailerSize) return {};
    const uint8_t* t = data_ + size_ - format::kTrailerSize;
    if (loadU64(t + 8) != format::kTrailerMagic) return {};  // no trailer: the writer did not finish
    trailer_present_ = true;
    uint64_t index_offset = loadU64(t);
    uint64_t trailer_offset = size_ - format::kTrailerSize;
    auto giveUp = [&](uint64_t at, const std::string& what) {
        *why_not =
            describeAt(path_, at, "footer index unreadable (" + what + "); chunks were scanned instead");
        chunks_.clear();
        gc_end_chunks_.clear();
        return Status{};
    };
    if (index_offset < header_.header_size || index_offset >= trailer_offset)
        return giveUp(trailer_offset,
                      "index offset " + std::to_string(index_offset) + " is outside the file");
    ChunkRef ic;
    bool past_end = false;
    if (Status s = checkChunkHeader(index_offset, &ic, &past_end); !s)
        return giveUp(index_offset, s.error().message);
    if (ic.kind != static_cast<uint16_t>(ChunkKind::kIndex) || ic.compressed() || ic.end() != trailer_offset)
        return giveUp(index_offset, "the chunk there is not an uncompressed index ending at the trailer");
    uint32_t crc = crc32c(0, data_ + index_offset, 20);
    crc = crc32c(crc, data_ + ic.payloadOffset(), ic.stored_size);
    if (crc != loadU32(data_ + index_offset + 20)) return giveUp(index_offset, "checksum mismatch");

    ByteReader r(data_ + ic.payloadOffset(), ic.stored_size);
    uint64_t n = r.varint();
    if (r.failed() || n > ic.stored_size) return giveUp(index_offset, "absurd chunk count");
    chunks_.reserve(n);
    uint64_t offset = 0;
    for (uint64_t i = 0; i < n; ++i) {
        offset += r.varint();
        uint64_t kind = r.varint();
        uint64_t meta = r.varint();
        if (r.failed()) return giveUp(index_offset, r.failReason());
        ChunkRef c;
        if (Status s = checkChunkHeader(offset, &c, &past_end); !s)
            return giveUp(offset, "listed chunk " + std::to_string(i) + ": " + s.error().message);
        if (c.kind != kind || c.meta != meta || c.end() > index_offset ||
            (!chunks_.empty() && c.offset < chunks_.back().end()))
            return giveUp(offset, "listed chunk " + std::to_string(i) + " does not match the file");
        chunks_.push_back(c);
    }
    uint64_t gcs = r.varint();
    if (r.failed() || gcs > ic.stored_size) return giveUp(index_offset, "absurd GC count");
    for (uint64_t i = 0; i < gcs; ++i) {
        uint64_t gc = r.varint();
        uint64_t chunk = r.varint();
        if (r.failed() || gc > 0xffffffffu || chunk >= chunks_.size())
            return giveUp(index_offset, "GC entry " + std::to_string(i) + " is out of range");
        gc_end_chunks_.emplace_back(static_cast<uint32_t>(gc), static_cast<uint32_t>(chunk));
    }
    for (const ChunkRef& c : chunks_)
        if (c.kind < 1 || c.kind > format::kLastChunkKind) ++unknown_chunks_;
    had_index_ = true;
    valid_bytes_ = size_;
    return {};
}

Status TraceFile::scanChunks(uint64_t from) {
    const size_t had = chunks_.size();
    uint64_t offset = from;
    while (offset < size_) {
        ChunkRef c;
        bool past_end = false;
        Status s = checkChunkHeader(offset, &c, &past_end);
        if (!s) {
            // A zero-filled or partially written tail is what a crashed writer leaves behind.
            bool zero_tail = std::all_of(data_ + offset, data_ + size_, [](uint8_t b) { return b == 0; });
            bool trailer_only =
                size_ - offset == format::kTrailerSize && loadU64(data_ + size_ - 8) == format::kTrailerMagic;
            if (trailer_only) break;
            if ((past_end || zero_tail) && !trailer_present_) {
                truncated_ = true;
                truncation_note_ =
                    describeAt(path_, offset,
                               "the trace is cut off here (" + s.error().message + "); read " +
                                   std::to_string(chunks_.size()) + " complete chunks before it");
                break;
            }
            return Error::at(path_, offset, s.error().message);
        }
        if (c.kind == static_cast<uint16_t>(ChunkKind::kIndex)) {
            offset = c.end();  // an index without its trailer: skip it
            continue;
        }
        if (c.kind < 1 || c.kind > format::kLastChunkKind) ++unknown_chunks_;
        chunks_.push_back(c);
        offset = c.end();
    }
    // A crash can also leave a last chunk whose header made it to disk but whose payload did not
    // (zeros after a power loss): without a trailer, a last chunk that fails its checksum is the cut.
    // Only one this scan added: those before it were read whole (grow() keeps their checks).
    if (!trailer_present_ && chunks_.size() > had) {
        const ChunkRef& last = chunks_.back();
        uint32_t crc = crc32c(0, data_ + last.offset, 20);
        crc = crc32c(crc, data_ + last.payloadOffset(), last.stored_size);
        if (crc != loadU32(data_ + last.offset + 20)) {
            truncated_ = true;
            truncation_note_ =
                describeAt(path_, last.offset,
                           "the trace is cut off here (the last chunk is incomplete); read " +
                               std::to_string(chunks_.size() - 1) + " complete chunks before it");
            chunks_.pop_back();
            if (last.kind < 1 || last.kind > format::kLastChunkKind) --unknown_chunks_;
            offset = size_;
        }
    }
    if (offset >= size_ && !truncated_ && !trailer_present_) {
        // Every chunk is complete but the writer never wrote its trailer (it was killed between chunks).
        truncated_ = true;
        truncation_note_ = describeAt(path_, size_,
                                      "the trace has no footer (the recording did not finish); read all " +
                                          std::to_string(chunks_.size()) + " chunks");
    }
    valid_bytes_ = chunks_.empty() ? header_.header_size : chunks_.back().end();
    return {};
}

Result<std::span<const uint8_t>> TraceFile::payload(size_t index, std::vector<uint8_t>& scratch) const {
    const ChunkRef& c = chunks_.at(index);
    const uint8_t* stored = data_ + c.payloadOffset();
    if (!verified_[index].load(std::memory_order_relaxed)) {
        uint32_t crc = crc32c(0, data_ + c.offset, 20);
        crc = crc32c(crc, stored, c.stored_size);
        if (crc != loadU32(data_ + c.offset + 20)) {
            // Zeros where the file was cut under us fail the checksum too: that is no corruption.
            if (auto at = shrankAt()) return truncatedError(*at);
            return Error::at(
                path_, c.offset,
                std::string(format::chunkKindName(c.kind)) + " chunk checksum mismatch (corrupt data)");
        }
        verified_[index].store(1, std::memory_order_relaxed);
    }
    // Checked before the bytes are handed out, and so after those of the chunk read before.
    if (auto at = faultedAt()) return truncatedError(*at);
    if (!c.compressed()) return std::span<const uint8_t>(stored, c.stored_size);
    scratch.resize(c.raw_size);
    size_t n = ZSTD_decompress(scratch.data(), scratch.size(), stored, c.stored_size);
    if (auto at = (ZSTD_isError(n) || n != c.raw_size) ? shrankAt() : faultedAt()) return truncatedError(*at);
    if (ZSTD_isError(n))
        return Error::at(path_, c.offset, std::string("cannot decompress chunk: ") + ZSTD_getErrorName(n));
    if (n != c.raw_size)
        return Error::at(path_, c.offset,
                         "chunk decompressed to " + std::to_string(n) + " bytes, its header says " +
                             std::to_string(c.raw_size));
    return std::span<const uint8_t>(scratch.data(), n);
}

std::string TraceFile::describe(size_t index, size_t payload_offset, const std::string& what) const {
    return errorAt(index, payload_offset, what).message;
}

Error TraceFile::errorAt(size_t index, size_t payload_offset, const std::string& what) const {
    // What looks wrong in a file cut short under us is the cut.
    if (auto at = shrankAt()) return truncatedError(*at);
    const ChunkRef& c = chunks_.at(index);
    if (!c.compressed()) return Error::at(path_, c.payloadOffset() + payload_offset, what);
    // Built with append(): GCC 12 warns falsely (-Wrestrict) on chains of operator+ at -O3.
    std::string where = "(";
    where.append(format::chunkKindName(c.kind)).append(" chunk ").append(std::to_string(index));
    where.append(", byte ").append(std::to_string(payload_offset)).append(" of its decompressed payload) ");
    return Error::at(path_, c.offset, where.append(what));
}

void TraceFile::releasePages(size_t begin, size_t end) const {
    if (!mapping_ || begin >= end || end > chunks_.size()) return;
    const long page = ::sysconf(_SC_PAGESIZE);
    auto page_size = static_cast<uint64_t>(page > 0 ? page : 4096);
    uint64_t from = chunks_[begin].offset / page_size * page_size;
    uint64_t to = chunks_[end - 1].end() / page_size * page_size;
    if (to <= from) return;
    ::madvise(static_cast<uint8_t*>(mapping_) + from, to - from, MADV_DONTNEED);
}

Status TraceFile::readSymbolChunks(size_t from) {
    std::vector<uint8_t> scratch;
    for (size_t i = from; i < chunks_.size(); ++i) {
        const ChunkRef& c = chunks_[i];
        if (c.kind == static_cast<uint16_t>(ChunkKind::kSymbols)) {
            auto p = payload(i, scratch);
            if (!p) return p.error();
            if (Status s = symbols_.decode(*p); !s) return errorAt(i, s.error().offset, s.error().message);
        } else if (c.kind == static_cast<uint16_t>(ChunkKind::kMeta)) {
            auto p = payload(i, scratch);
            if (!p) return p.error();
            ByteReader r(p->data(), p->size());
            while (!r.atEnd()) {
                std::string_view k = r.string(format::kMaxStringBytes);
                std::string_view v = r.string(format::kMaxStringBytes);
                if (r.failed())
                    return errorAt(i, r.failOffset(), std::string("meta record: ") + r.failReason());
                meta_.emplace_back(std::string(k), std::string(v));
            }
        }
    }
    return {};
}

}  // namespace memcity
