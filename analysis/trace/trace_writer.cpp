#include "trace/trace_writer.h"

#include <fcntl.h>
#include <sys/file.h>
#include <sys/stat.h>
#include <unistd.h>
#include <zstd.h>

#include <algorithm>
#include <bit>
#include <cerrno>
#include <cstring>

#include "util/crc32c.h"

namespace memcity {

using format::ChunkKind;
using format::SymbolRecord;

namespace {

std::string heldMessage(const std::string& path) {
    return path + ": another memcity is writing it (a recording in progress); choose another file";
}

// Opens `path` and takes `lock` on it without waiting. Sets *fd (-1 for a missing file). Error
// when a writer holds it, or it cannot be opened.
Status lockExisting(const std::string& path, int lock, int* fd) {
    *fd = ::open(path.c_str(), O_RDONLY | O_CLOEXEC | O_NONBLOCK);
    if (*fd < 0) {
        if (errno == ENOENT) return {};
        return Error{path + ": cannot open: " + std::strerror(errno)};
    }
    if (::flock(*fd, lock | LOCK_NB) == 0) return {};
    const int e = errno;
    ::close(*fd);
    *fd = -1;
    if (e == EWOULDBLOCK) return Error{heldMessage(path)};
    return Error{path + ": cannot lock: " + std::strerror(e)};
}

}  // namespace

Status checkNoTraceWriter(const std::string& path) {
    int fd = -1;
    Status s = lockExisting(path, LOCK_SH, &fd);
    if (fd >= 0) ::close(fd);
    return s;
}

Status removeUnlessBeingWritten(const std::string& path) {
    int fd = -1;
    if (Status s = lockExisting(path, LOCK_EX, &fd); !s) return s;
    if (fd < 0) return {};
    Status result;
    if (::unlink(path.c_str()) != 0 && errno != ENOENT)
        result = Error{path + ": cannot remove: " + std::strerror(errno)};
    ::close(fd);
    return result;
}

Result<std::unique_ptr<TraceWriter>> TraceWriter::create(const std::string& path,
                                                         const WriterOptions& options) {
    // Not truncated yet: the file may be another writer's recording, which only its lock tells.
    int fd = ::open(path.c_str(), O_WRONLY | O_CREAT | O_CLOEXEC, 0644);
    if (fd < 0) return Error{path + ": cannot create: " + std::strerror(errno)};
    // Held until the file is closed (or the process dies): readers know it is still being
    // written, and another writer keeps off it.
    if (::flock(fd, LOCK_EX | LOCK_NB) != 0) {
        const int e = errno;
        ::close(fd);
        if (e == EWOULDBLOCK) return Error{heldMessage(path)};
        return Error{path + ": cannot lock: " + std::strerror(e)};
    }
    // (Only a regular file: a device such as /dev/null has nothing to truncate.)
    struct stat st {};
    if (::fstat(fd, &st) == 0 && S_ISREG(st.st_mode) && ::ftruncate(fd, 0) != 0) {
        const int e = errno;
        ::close(fd);
        return Error{path + ": cannot truncate: " + std::strerror(e)};
    }
    std::unique_ptr<TraceWriter> w(new TraceWriter(path, fd, options));
    if (!w->ok()) return w->status().error();
    return w;
}

TraceWriter::TraceWriter(std::string path, int fd, const WriterOptions& options)
    : path_(std::move(path)), fd_(fd), options_(options) {
    if (options_.compress) zstd_ = ZSTD_createCCtx();
    const bool sampled = options_.sampling_interval != 0;
    uint8_t header[format::kSampledHeaderSize] = {};
    const uint32_t header_size = sampled ? format::kSampledHeaderSize : format::kHeaderSize;
    std::memcpy(header, format::kMagic.data(), format::kMagic.size());
    storeU16(header + 8, sampled ? format::kVersionMajorSampled : format::kVersionMajor);
    storeU16(header + 10, sampled ? format::kVersionMinorSampled : format::kVersionMinor);
    storeU32(header + 12, format::kHeaderFlagSequentialIds | (sampled ? format::kHeaderFlagSampled : 0));
    storeU32(header + 16, header_size);
    storeU32(header + 20, options_.object_alignment);
    storeU64(header + 24, options_.start_wall_ns);
    if (sampled) storeU64(header + 32, options_.sampling_interval);
    writeRaw(header, header_size);
}

TraceWriter::~TraceWriter() {
    if (!closed_) (void)close();
    if (zstd_) ZSTD_freeCCtx(static_cast<ZSTD_CCtx*>(zstd_));
}

void TraceWriter::fail(const std::string& what) {
    if (error_.empty()) error_ = describeAt(path_, offset_, what);
}

Status TraceWriter::status() const {
    if (error_.empty()) return {};
    return Error{error_};
}

void TraceWriter::writeRaw(const void* data, size_t size) {
    if (!ok()) return;
    const auto* p = static_cast<const uint8_t*>(data);
    while (size > 0) {
        ssize_t n = ::write(fd_, p, size);
        if (n < 0) {
            if (errno == EINTR) continue;
            fail(std::string("write failed: ") + std::strerror(errno));
            return;
        }
        p += n;
        size -= static_cast<size_t>(n);
        offset_ += static_cast<uint64_t>(n);
    }
}

void TraceWriter::writeChunk(ChunkKind kind, std::span<const uint8_t> payload, uint32_t meta) {
    if (!ok()) return;
    if (payload.size() > format::kMaxChunkPayload) {
        fail("chunk payload of " + std::to_string(payload.size()) +
             " bytes is larger than the format allows");
        return;
    }
    std::span<const uint8_t> stored = payload;
    uint16_t flags = 0;
    // The footer index stays uncompressed: readers find it from the trailer without decoding.
    if (zstd_ && payload.size() >= 64 && kind != ChunkKind::kIndex) {
        compressed_.resize(ZSTD_compressBound(payload.size()));
        size_t n = ZSTD_compressCCtx(static_cast<ZSTD_CCtx*>(zstd_), compressed_.data(), compressed_.size(),
                                     payload.data(), payload.size(), options_.zstd_level);
        if (!ZSTD_isError(n) && n < payload.size()) {
            stored = {compressed_.data(), n};
            flags |= format::kChunkFlagZstd;
        }
    }
    uint8_t header[format::kChunkHeaderSize];
    storeU32(header, format::kChunkSync);
    storeU16(header + 4, static_cast<uint16_t>(kind));
    storeU16(header + 6, flags);
    storeU32(header + 8, static_cast<uint32_t>(stored.size()));
    storeU32(header + 12, static_cast<uint32_t>(payload.size()));
    storeU32(header + 16, meta);
    uint32_t crc = crc32c(0, header, 20);
    crc = crc32c(crc, stored.data(), stored.size());
    storeU32(header + 20, crc);
    if (kind != ChunkKind::kIndex) chunks_.push_back({offset_, static_cast<uint16_t>(kind), meta});
    // One write per chunk where possible, so a crash rarely leaves more than one partial chunk.
    std::vector<uint8_t> whole(sizeof header + stored.size());
    std::memcpy(whole.data(), header, sizeof header);
    if (!stored.empty()) std::memcpy(whole.data() + sizeof header, stored.data(), stored.size());
    writeRaw(whole.data(), whole.size());
}

// ---- Meta and symbols ----

void TraceWriter::meta(std::string_view key, std::string_view value) {
    meta_.string(key);
    meta_.string(value);
}

void TraceWriter::defineString(uint32_t id, std::string_view s) {
    symbols_.u8(static_cast<uint8_t>(SymbolRecord::kString));
    symbols_.varint(id);
    symbols_.string(s);
}

void TraceWriter::defineType(uint32_t id, const TypeDef& t) {
    symbols_.u8(static_cast<uint8_t>(SymbolRecord::kType));
    symbols_.varint(id);
    symbols_.string(t.name);
    symbols_.u8(static_cast<uint8_t>(t.kind));
    symbols_.varint(t.super_type);
    symbols_.varint(t.instance_size);
    symbols_.varint(t.array_header);
    symbols_.varint(t.element_size);
    symbols_.varint(t.element_type);
}

void TraceWriter::defineField(uint32_t id, uint32_t owner_type, std::string_view name,
                              std::string_view type_name, uint8_t flags) {
    symbols_.u8(static_cast<uint8_t>(SymbolRecord::kField));
    symbols_.varint(id);
    symbols_.varint(owner_type);
    symbols_.string(name);
    symbols_.string(type_name);
    symbols_.u8(flags);
}

void TraceWriter::defineMethod(uint32_t id, std::string_view class_name, std::string_view name,
                               std::string_view signature, std::string_view source_file) {
    symbols_.u8(static_cast<uint8_t>(SymbolRecord::kMethod));
    symbols_.varint(id);
    symbols_.string(class_name);
    symbols_.string(name);
    symbols_.string(signature);
    symbols_.string(source_file);
}

void TraceWriter::defineSite(uint32_t id, std::span<const Frame> frames) {
    symbols_.u8(static_cast<uint8_t>(SymbolRecord::kSite));
    symbols_.varint(id);
    symbols_.varint(frames.size());
    for (const Frame& f : frames) {
        symbols_.varint(f.method);
        symbols_.varint(f.line < 0 ? 0 : static_cast<uint64_t>(f.line) + 1);
    }
}

void TraceWriter::defineThread(uint32_t id, std::string_view name, uint8_t flags, uint64_t java_object_id) {
    symbols_.u8(static_cast<uint8_t>(SymbolRecord::kThread));
    symbols_.varint(id);
    symbols_.string(name);
    symbols_.u8(flags);
    symbols_.varint(java_object_id == 0 ? 0 : java_object_id + 1);
}

void TraceWriter::defineRootKind(uint32_t id, std::string_view name) {
    symbols_.u8(static_cast<uint8_t>(SymbolRecord::kRootKind));
    symbols_.varint(id);
    symbols_.string(name);
}

void TraceWriter::defineSpace(uint32_t id, std::string_view name, uint64_t start, uint64_t size) {
    symbols_.u8(static_cast<uint8_t>(SymbolRecord::kSpace));
    symbols_.varint(id);
    symbols_.string(name);
    symbols_.varint(start);
    symbols_.varint(size);
}

void TraceWriter::flushSymbols() {
    if (!meta_.empty()) {
        writeChunk(ChunkKind::kMeta, meta_.bytes(), 0);
        meta_.clear();
    }
    if (!symbols_.empty()) {
        writeChunk(ChunkKind::kSymbols, symbols_.bytes(), 0);
        symbols_.clear();
    }
}

// ---- Events ----

void TraceWriter::ensureEvents() {
    if (events_.started() && events_.bytes() >= options_.chunk_bytes) flushEvents();
    if (!events_.started()) events_.reset(last_time_, last_alloc_id_ + 1, events_.currentThread());
}

void TraceWriter::flushEvents() {
    if (!events_.started() || events_.eventCount() == 0) {
        events_.clear();
        return;
    }
    flushSymbols();
    auto chunk_number = static_cast<uint32_t>(chunks_.size());
    for (uint32_t gc : events_.gcEnds())
        gc_end_chunks_.emplace_back(gc, chunk_number);
    writeChunk(ChunkKind::kEvents, events_.payload(), events_.eventCount());
    events_.clear();  // keeps the current thread for the next payload
}

void TraceWriter::alloc(const AllocEvent& e) {
    ensureEvents();
    events_.thread(e.thread);
    events_.alloc(e);
    last_alloc_id_ = e.id;
    last_time_ = e.time_ns;
}

void TraceWriter::deaths(uint32_t gc, std::span<const uint64_t> ids) {
    if (ids.empty()) return;
    for (size_t i = 1; i < ids.size(); ++i) {
        if (ids[i] <= ids[i - 1]) {
            fail("deaths: object ids must be strictly ascending");
            return;
        }
    }
    ensureEvents();
    events_.deaths(gc, ids);
}

void TraceWriter::gcStart(const GcStartEvent& e) {
    ensureEvents();
    events_.gcStart(e);
    last_time_ = e.time_ns;
}

void TraceWriter::gcEnd(const GcEndEvent& e) {
    ensureEvents();
    events_.gcEnd(e);
    last_time_ = e.time_ns;
}

void TraceWriter::threadStart(const ThreadEvent& e) {
    ensureEvents();
    events_.threadStart(e);
    last_time_ = e.time_ns;
}

void TraceWriter::threadEnd(const ThreadEvent& e) {
    ensureEvents();
    events_.threadEnd(e);
    last_time_ = e.time_ns;
}

void TraceWriter::move(const MoveEvent& e) {
    ensureEvents();
    events_.move(e);
}

void TraceWriter::gcSpaces(const GcSpacesEvent& e) {
    extension(static_cast<uint32_t>(format::ExtensionKind::kGcSpaces), encodeGcSpaces(e));
}

void TraceWriter::gcRegions(const GcRegionsEvent& e) {
    extension(static_cast<uint32_t>(format::ExtensionKind::kGcRegions), encodeGcRegions(e));
}

void TraceWriter::addresses(uint32_t gc, std::span<const ObjectAddress> objects) {
    const uint32_t alignment = std::max<uint32_t>(options_.object_alignment, 1);
    const auto shift = static_cast<uint32_t>(std::countr_zero(alignment));
    for (size_t i = 0; i < objects.size(); ++i) {
        if (i > 0 && objects[i].id <= objects[i - 1].id) {
            fail("addresses: object ids are not ascending at object " + std::to_string(objects[i].id));
            return;
        }
        if (objects[i].address & (alignment - 1)) {
            fail("addresses: object " + std::to_string(objects[i].id) + "'s address is not aligned");
            return;
        }
    }
    // About 3 bytes an object: chunks of chunk_bytes hold a third as many objects.
    const size_t per_chunk = std::max<size_t>(options_.chunk_bytes / 3, 1);
    ByteWriter payload;
    for (size_t from = 0; from < objects.size() && ok(); from += per_chunk) {
        payload.clear();
        encodeAddresses(gc, shift, objects.subspan(from, std::min(per_chunk, objects.size() - from)),
                        payload);
        writeChunkPayload(static_cast<uint16_t>(ChunkKind::kAddrs), payload.bytes(), gc);
    }
}

void TraceWriter::extension(uint32_t ext_kind, std::span<const uint8_t> data) {
    ensureEvents();
    events_.extension(ext_kind, data);
}

void TraceWriter::writeEvents(EventEncoder& encoder) {
    if (encoder.eventCount() == 0) {
        encoder.clear();
        return;
    }
    flushEvents();
    flushSymbols();
    auto chunk_number = static_cast<uint32_t>(chunks_.size());
    for (uint32_t gc : encoder.gcEnds())
        gc_end_chunks_.emplace_back(gc, chunk_number);
    writeChunk(ChunkKind::kEvents, encoder.payload(), encoder.eventCount());
    encoder.clear();
}

void TraceWriter::writeChunkPayload(uint16_t kind, std::span<const uint8_t> payload, uint32_t meta) {
    if (kind == static_cast<uint16_t>(ChunkKind::kIndex)) {
        fail("writeChunkPayload: the index chunk is written by close()");
        return;
    }
    flushEvents();
    flushSymbols();
    writeChunk(static_cast<ChunkKind>(kind), payload, meta);
}

// ---- Snapshots ----

void TraceWriter::beginSnapshot(uint32_t gc) {
    if (in_snapshot_) {
        fail("beginSnapshot: the snapshot of GC " + std::to_string(snapshot_gc_) + " is still open");
        return;
    }
    flushEvents();
    in_snapshot_ = true;
    snapshot_gc_ = gc;
    snapshot_prev_source_ = 0;
    snapshot_prev_root_ = 0;
    snapshot_sources_ = 0;
    snapshot_edges_ = 0;
    snapshot_ref_chunks_ = 0;
    snapshot_roots_ = 0;
    snapshot_prev_unsampled_ = 0;
    snapshot_unsampled_ = 0;
    snapshot_unsampled_chunks_ = 0;
    refs_.clear();
    roots_.clear();
    unsampled_.clear();
}

void TraceWriter::flushRefs() {
    if (refs_.empty()) return;
    flushSymbols();
    writeChunk(ChunkKind::kRefs, refs_.bytes(), snapshot_gc_);
    refs_.clear();
    ++snapshot_ref_chunks_;
}

void TraceWriter::snapshotObject(uint64_t source, std::span<const Edge> edges) {
    if (!in_snapshot_) {
        fail("snapshotObject outside a snapshot");
        return;
    }
    if (refs_.empty()) {
        refs_.varint(snapshot_gc_);
        snapshot_prev_source_ = 0;  // each REFS chunk decodes on its own
    }
    refs_.svarint(static_cast<int64_t>(source - snapshot_prev_source_));
    snapshot_prev_source_ = source;
    refs_.varint(edges.size());
    for (const Edge& e : edges) {
        refs_.svarint(static_cast<int64_t>(e.target - source));
        refs_.varint(uint64_t{e.field} << 2 | (e.strength & 3u));
    }
    ++snapshot_sources_;
    snapshot_edges_ += edges.size();
    if (refs_.size() >= options_.chunk_bytes) flushRefs();
}

void TraceWriter::flushUnsampled() {
    if (unsampled_.empty()) return;
    flushSymbols();
    writeChunk(ChunkKind::kObjects, unsampled_.bytes(), snapshot_gc_);
    unsampled_.clear();
    ++snapshot_unsampled_chunks_;
}

void TraceWriter::snapshotUnsampled(const AllocEvent& e) {
    if (!in_snapshot_) {
        fail("snapshotUnsampled outside a snapshot");
        return;
    }
    if (options_.sampling_interval == 0) {
        fail("snapshotUnsampled in a trace that is not sampled");
        return;
    }
    if (unsampled_.empty()) {
        unsampled_.varint(snapshot_gc_);
        unsampled_.varint(snapshot_prev_unsampled_);  // each OBJECTS chunk decodes on its own
    }
    // (In any order: a walk lists objects as it meets them.)
    unsampled_.svarint(static_cast<int64_t>(e.id - snapshot_prev_unsampled_));
    snapshot_prev_unsampled_ = e.id;
    unsampled_.varint(e.type);
    unsampled_.varint(e.isArray() ? e.length + 1 : 0);
    unsampled_.varint(e.size);
    ++snapshot_unsampled_;
    if (unsampled_.size() >= options_.chunk_bytes) flushUnsampled();
}

void TraceWriter::snapshotRoot(const Root& root) {
    if (!in_snapshot_) {
        fail("snapshotRoot outside a snapshot");
        return;
    }
    if (root.detail_count > format::kMaxRootDetails) {
        fail("snapshotRoot: more than 8 details");
        return;
    }
    roots_.varint(root.kind);
    roots_.svarint(static_cast<int64_t>(root.target - snapshot_prev_root_));
    snapshot_prev_root_ = root.target;
    roots_.varint(root.detail_count);
    for (uint32_t i = 0; i < root.detail_count; ++i)
        roots_.varint(root.details[i]);
    ++snapshot_roots_;
}

void TraceWriter::endSnapshot() {
    if (!in_snapshot_) {
        fail("endSnapshot without beginSnapshot");
        return;
    }
    flushRefs();
    flushUnsampled();
    ByteWriter payload;
    payload.varint(snapshot_gc_);
    payload.varint(snapshot_ref_chunks_);
    payload.varint(snapshot_sources_);
    payload.varint(snapshot_edges_);
    payload.varint(snapshot_roots_);
    if (options_.sampling_interval != 0) {  // a sampled trace's: its unsampled objects (OBJECTS)
        payload.varint(snapshot_unsampled_chunks_);
        payload.varint(snapshot_unsampled_);
    }
    payload.append(roots_.bytes().data(), roots_.size());
    flushSymbols();
    writeChunk(ChunkKind::kRoots, payload.bytes(), snapshot_gc_);
    roots_.clear();
    in_snapshot_ = false;
}

void TraceWriter::cancelSnapshot() {
    if (!in_snapshot_) {
        fail("cancelSnapshot without beginSnapshot");
        return;
    }
    // What it flushed already stays in the file without a roots chunk: said, so that a reader
    // drops it quietly rather than take it for a broken snapshot.
    if (snapshot_ref_chunks_ + snapshot_unsampled_chunks_ > 0)
        meta(kAbandonedSnapshotKey, std::to_string(snapshot_gc_));
    refs_.clear();
    roots_.clear();
    unsampled_.clear();
    in_snapshot_ = false;
}

// ---- Flush and close ----

void TraceWriter::flush() {
    flushEvents();
    flushSymbols();
}

Status TraceWriter::close() {
    if (closed_) return status();
    if (in_snapshot_) endSnapshot();
    flush();
    if (ok()) {
        ByteWriter index;
        index.varint(chunks_.size());
        uint64_t prev = 0;
        for (const ChunkEntry& c : chunks_) {
            index.varint(c.offset - prev);
            prev = c.offset;
            index.varint(c.kind);
            index.varint(c.meta);
        }
        index.varint(gc_end_chunks_.size());
        for (const auto& [gc, chunk] : gc_end_chunks_) {
            index.varint(gc);
            index.varint(chunk);
        }
        uint64_t index_offset = offset_;
        writeChunk(ChunkKind::kIndex, index.bytes(), 0);
        uint8_t trailer[format::kTrailerSize];
        storeU64(trailer, index_offset);
        storeU64(trailer + 8, format::kTrailerMagic);
        writeRaw(trailer, sizeof trailer);
    }
    if (fd_ >= 0) {
        if (::close(fd_) != 0) fail(std::string("close failed: ") + std::strerror(errno));
        fd_ = -1;
    }
    closed_ = true;
    return status();
}

void TraceWriter::abandon() {
    if (fd_ >= 0) ::close(fd_);
    fd_ = -1;
    closed_ = true;
}

}  // namespace memcity
