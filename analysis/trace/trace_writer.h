// TraceWriter writes a .mct file: header, chunks (symbols, events, snapshots), footer index
// and trailer. It is used by the JVMTI recorder and by the synthetic scenario generator.
//
// Errors are sticky: after the first failure (disk full, bad argument) every call is a no-op
// and status() reports what happened, with the file and byte offset. Whatever was written
// before the failure stays a readable (truncated) trace. Not thread-safe: callers serialise.
#pragma once

#include <cstdint>
#include <memory>
#include <span>
#include <string>
#include <string_view>
#include <vector>

#include "trace/event_encoder.h"
#include "trace/events.h"
#include "trace/g1_regions.h"
#include "trace/heap_layout.h"
#include "trace/symbols.h"
#include "trace/trace_format.h"
#include "util/bytes.h"
#include "util/result.h"

namespace memcity {

struct WriterOptions {
    bool compress = true;  // zstd per chunk, kept only where it is smaller
    int zstd_level = 3;
    uint32_t chunk_bytes = 256 << 10;  // target raw payload size of events and refs chunks
    uint64_t start_wall_ns = 0;        // wall-clock time of trace time 0 (ns since the Unix epoch)
    uint32_t object_alignment = 8;     // bytes; array sizes are rounded up to it
    // The JVM heap sampler's mean interval in bytes when the allocations written are its samples
    // (a version 2 trace); 0 when they are every allocation.
    uint64_t sampling_interval = 0;
};

struct TypeDef {
    std::string_view name;
    format::TypeKind kind = format::TypeKind::kInstance;
    uint32_t super_type = 0;
    uint32_t instance_size = 0;  // instances: bytes (0 = every allocation gives its size)
    uint32_t array_header = 0;   // arrays: bytes before the first element
    uint32_t element_size = 0;   // arrays: bytes per element
    uint32_t element_type = 0;   // arrays of references: the element type id
};

class TraceWriter {
public:
    // Creates the trace at `path`, or replaces what is there: the file is locked (until the writer
    // closes it, or its process dies) before anything in it is touched. Error, nothing changed:
    // another writer holds it ("PATH: another memcity is writing it ..."), or it cannot be created.
    static Result<std::unique_ptr<TraceWriter>> create(const std::string& path,
                                                       const WriterOptions& options = {});
    ~TraceWriter();
    TraceWriter(const TraceWriter&) = delete;
    TraceWriter& operator=(const TraceWriter&) = delete;

    // ---- Recording metadata ----
    void meta(std::string_view key, std::string_view value);

    // ---- Symbols (ids start at 1; each id is defined once). Buffered and written before the
    //      next chunk that could use them. ----
    void defineString(uint32_t id, std::string_view s);
    void defineType(uint32_t id, const TypeDef& t);
    void defineField(uint32_t id, uint32_t owner_type, std::string_view name, std::string_view type_name,
                     uint8_t flags);
    void defineMethod(uint32_t id, std::string_view class_name, std::string_view name,
                      std::string_view signature, std::string_view source_file);
    // Frames innermost first.
    void defineSite(uint32_t id, std::span<const Frame> frames);
    void defineThread(uint32_t id, std::string_view name, uint8_t flags = 0, uint64_t java_object_id = 0);
    void defineRootKind(uint32_t id, std::string_view name);
    void defineSpace(uint32_t id, std::string_view name, uint64_t start, uint64_t size);

    // ---- Events, buffered into the writer's own events chunk ----
    void alloc(const AllocEvent& e);                          // e.thread selects the allocating thread
    void deaths(uint32_t gc, std::span<const uint64_t> ids);  // ids strictly ascending
    void gcStart(const GcStartEvent& e);
    void gcEnd(const GcEndEvent& e);
    void threadStart(const ThreadEvent& e);
    void threadEnd(const ThreadEvent& e);
    void move(const MoveEvent& e);
    // The collector's spaces right after a GC (GC_SPACES; their SPACE symbols defined first).
    void gcSpaces(const GcSpacesEvent& e);
    // G1's region table at a GC's start or end (GC_REGIONS).
    void gcRegions(const GcRegionsEvent& e);
    // An extension event (format::ExtensionKind): a payload readers that do not know it skip.
    void extension(uint32_t ext_kind, std::span<const uint8_t> data);

    // Writes an events payload built by another encoder (e.g. a per-thread buffer) as one chunk,
    // after the writer's own pending events. Clears the encoder.
    void writeEvents(EventEncoder& encoder);

    // Writes a chunk of any kind with a payload built by the caller (for kinds this writer does
    // not know; readers skip kinds they do not know). Pending symbols and events go first.
    void writeChunkPayload(uint16_t kind, std::span<const uint8_t> payload, uint32_t meta);

    // ---- Addresses: every object alive after GC `gc` with its address, ids ascending, in ADDRS
    //      chunks of about chunk_bytes each. Addresses are multiples of object_alignment. ----
    void addresses(uint32_t gc, std::span<const ObjectAddress> objects);

    // ---- Reference snapshots: begin, objects and roots, end ----
    void beginSnapshot(uint32_t gc);
    void snapshotObject(uint64_t source, std::span<const Edge> edges);  // each source once per snapshot
    void snapshotRoot(const Root& root);
    // A sampled trace's snapshot lists the objects of its GC's heap that were not sampled, each
    // once, with an id above every sample's, in any order: id, type, length and size as in
    // alloc() (site, thread, time unused).
    void snapshotUnsampled(const AllocEvent& e);
    void endSnapshot();
    // Closes a snapshot without its roots chunk: what it had buffered is dropped, and what it
    // wrote so far stays, named by the META pair kAbandonedSnapshotKey = its GC index, so that a
    // reader drops it quietly.
    void cancelSnapshot();
    static constexpr std::string_view kAbandonedSnapshotKey = "snapshot.abandoned";

    // Writes everything buffered so far as complete chunks.
    void flush();
    // Flushes, writes the footer index and the trailer, closes the file. Returns the final status.
    Status close();
    // Closes the file as it is, without the footer and the trailer: a reader following it finds
    // it cut off, its writer gone (for a write that failed, whose file goes).
    void abandon();

    Status status() const;
    bool ok() const { return error_.empty(); }
    uint64_t bytesWritten() const { return offset_; }
    const std::string& path() const { return path_; }

private:
    TraceWriter(std::string path, int fd, const WriterOptions& options);
    void writeChunk(format::ChunkKind kind, std::span<const uint8_t> payload, uint32_t meta);
    void writeRaw(const void* data, size_t size);
    void flushSymbols();
    void flushEvents();
    void flushRefs();
    void flushUnsampled();
    void fail(const std::string& what);
    void ensureEvents();

    struct ChunkEntry {
        uint64_t offset;
        uint16_t kind;
        uint32_t meta;
    };

    std::string path_;
    int fd_ = -1;
    WriterOptions options_;
    uint64_t offset_ = 0;
    std::string error_;
    bool closed_ = false;

    ByteWriter symbols_;
    ByteWriter meta_;
    EventEncoder events_;
    int64_t last_time_ = 0;  // delta bases for the next events payload
    uint64_t last_alloc_id_ = ~uint64_t{0};
    ByteWriter refs_;
    ByteWriter roots_;
    ByteWriter unsampled_;
    std::vector<uint8_t> compressed_;
    void* zstd_ = nullptr;  // ZSTD_CCtx

    // Snapshot state.
    bool in_snapshot_ = false;
    uint32_t snapshot_gc_ = 0;
    uint64_t snapshot_prev_source_ = 0;
    uint64_t snapshot_prev_root_ = 0;
    uint64_t snapshot_sources_ = 0;
    uint64_t snapshot_edges_ = 0;
    uint32_t snapshot_ref_chunks_ = 0;
    uint64_t snapshot_roots_ = 0;
    uint64_t snapshot_prev_unsampled_ = 0;
    uint64_t snapshot_unsampled_ = 0;
    uint32_t snapshot_unsampled_chunks_ = 0;

    std::vector<ChunkEntry> chunks_;
    std::vector<std::pair<uint32_t, uint32_t>> gc_end_chunks_;  // (gc, chunk number)
};

// Whether a TraceWriter (of any process) holds `path`: Error, naming the path, when one does; a
// missing file is fine. For a command that is about to record into `path`.
Status checkNoTraceWriter(const std::string& path);
// Removes the file at `path` unless a TraceWriter holds it (then the Error of checkNoTraceWriter,
// and the file stays): the file is unlinked under the writer's lock, so a recording that began
// before is never unlinked. A missing file is fine.
Status removeUnlessBeingWritten(const std::string& path);

}  // namespace memcity
