// TraceFile opens a .mct file read-only through mmap. Uncompressed payloads are read in place
// (zero-copy); zstd payloads are decompressed into a caller-owned scratch buffer. Every bound is
// checked; a file cut off mid-write opens up to its last complete chunk and says so.
#pragma once

#include <atomic>
#include <cstdint>
#include <memory>
#include <optional>
#include <span>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include "trace/symbols.h"
#include "trace/trace_format.h"
#include "util/mapped_guard.h"
#include "util/result.h"

namespace memcity {

struct TraceHeader {
    uint16_t version_major = 0;
    uint16_t version_minor = 0;
    uint32_t flags = 0;
    uint32_t header_size = 0;
    uint32_t object_alignment = 8;  // bytes
    uint64_t start_wall_ns = 0;
    // The heap sampler's mean interval in bytes when the allocations are its samples (a version
    // 2 trace: docs/recorder.md, "Sampled recording"); 0 when they are every allocation.
    uint64_t sampling_interval = 0;
    bool sampled() const { return sampling_interval != 0; }
};

struct ChunkRef {
    uint64_t offset = 0;  // of the chunk header
    uint16_t kind = 0;    // format::ChunkKind (or unknown)
    uint16_t flags = 0;
    uint32_t stored_size = 0;
    uint32_t raw_size = 0;
    uint32_t meta = 0;
    uint64_t payloadOffset() const { return offset + format::kChunkHeaderSize; }
    uint64_t end() const { return payloadOffset() + stored_size; }
    bool compressed() const { return (flags & format::kChunkFlagZstd) != 0; }
};

class TraceFile {
public:
    // Opens and maps a file, reads its header, chunk list (from the footer index, or by scanning
    // when the file was cut off), metadata and symbols.
    static Result<TraceFile> open(const std::string& path);
    // Reads a trace held in memory; `data` must outlive the TraceFile. `name` is used in messages.
    static Result<TraceFile> fromMemory(std::span<const uint8_t> data, std::string name);

    TraceFile(TraceFile&& other) noexcept;
    TraceFile& operator=(TraceFile&& other) noexcept;
    TraceFile(const TraceFile&) = delete;
    TraceFile& operator=(const TraceFile&) = delete;
    ~TraceFile();

    const std::string& path() const { return path_; }
    uint64_t fileSize() const { return size_; }
    const TraceHeader& header() const { return header_; }
    const std::vector<ChunkRef>& chunks() const { return chunks_; }
    const SymbolTable& symbols() const { return symbols_; }
    const std::vector<std::pair<std::string, std::string>>& meta() const { return meta_; }
    // The value of the metadata `key` (the last one written), or nullptr.
    const std::string* metaValue(std::string_view key) const {
        for (auto it = meta_.rbegin(); it != meta_.rend(); ++it)
            if (it->first == key) return &it->second;
        return nullptr;
    }

    // Truncation: true when the file ends without a trailer; validBytes() is where the last
    // complete chunk ends and truncationNote() says what was found after it (or, while its
    // recorder still writes it, that it is still being written).
    bool truncated() const { return truncated_; }
    uint64_t validBytes() const { return valid_bytes_; }
    const std::string& truncationNote() const { return truncation_note_; }
    // A trace whose writer still holds it (TraceWriter locks its file until it closes it): open()
    // read the chunks complete so far. grow() reads what was added since: it maps the file's new
    // length and adds its complete chunks, with their symbols and metadata, and returns how many.
    // beingWritten() turns false once the trailer arrives (the trace is then whole), or once the
    // writer is gone without one (then it is cut off, as open() would have said). Not
    // thread-safe: whoever reads chunks() or symbols() on other threads must hold them off.
    bool beingWritten() const { return being_written_; }
    Result<size_t> grow();

    // A mapped file truncated by someone else while it is read (its pages past the new end then
    // read as zeros, not as a SIGBUS: util/mapped_guard.h): the lowest offset known to be gone,
    // from the pages that faulted and the file's length now; nullopt while the file is whole.
    // Whatever was read since it shrank is not to be trusted: payload(), describe() and the
    // readers built on them (HeapHistory) report truncatedError() instead.
    std::optional<uint64_t> shrankAt() const;
    // "path: truncated while being read at offset N" when shrankAt() says so, else success.
    Status intact() const;

    // Non-fatal notes found while opening (e.g. an unreadable footer index that was rebuilt).
    const std::vector<std::string>& warnings() const { return warnings_; }
    bool hadFooterIndex() const { return had_index_; }
    size_t unknownChunkCount() const { return unknown_chunks_; }
    // (gc, chunk number) of every GC_END, from the footer index (empty without one).
    const std::vector<std::pair<uint32_t, uint32_t>>& indexedGcEnds() const { return gc_end_chunks_; }

    // The payload of chunk `index`, checked against its checksum. For a compressed chunk the bytes
    // land in `scratch` (resized as needed); otherwise they point into the mapping.
    Result<std::span<const uint8_t>> payload(size_t index, std::vector<uint8_t>& scratch) const;

    // "path: offset N: what" for a position inside chunk `index`'s payload. For compressed chunks
    // the offset is the chunk's and the position is given within the decompressed payload.
    std::string describe(size_t index, size_t payload_offset, const std::string& what) const;
    // The same as an Error with its file and offset (in the file: the chunk's for a compressed
    // one) set; truncatedError's where the file shrank under us.
    Error errorAt(size_t index, size_t payload_offset, const std::string& what) const;

    // Tells the kernel the mapped pages of chunks [begin, end) are not needed for now, so a long
    // pass over a big trace does not keep the whole file resident.
    void releasePages(size_t begin, size_t end) const;

private:
    TraceFile() = default;
    Status parse();
    Status readFooterIndex(std::string* why_not);
    Status scanChunks(uint64_t from);
    Status readSymbolChunks(size_t from);
    void noteBeingWritten();
    Status checkChunkHeader(uint64_t offset, ChunkRef* out, bool* past_end) const;
    std::optional<uint64_t> faultedAt() const;  // from the guards only: no system call
    Error truncatedError(uint64_t at) const;
    void reset() noexcept;

    std::string path_;
    const uint8_t* data_ = nullptr;
    uint64_t size_ = 0;
    void* mapping_ = nullptr;  // owned mmap, null for fromMemory
    size_t mapping_size_ = 0;
    // The mapped file (its length tells whether it shrank), and while the trace is being
    // written the shorter mappings grow() replaced (payloads handed out point into them),
    // unmapped with the TraceFile; a guard per mapping, current and old.
    int fd_ = -1;
    std::vector<std::pair<void*, size_t>> old_mappings_;
    std::vector<MappedGuard> guards_;
    bool being_written_ = false;

    TraceHeader header_;
    std::vector<ChunkRef> chunks_;
    std::unique_ptr<std::atomic<uint8_t>[]> verified_;  // per chunk: checksum already checked
    SymbolTable symbols_;
    std::vector<std::pair<std::string, std::string>> meta_;
    std::vector<std::pair<uint32_t, uint32_t>> gc_end_chunks_;
    std::vector<std::string> warnings_;
    bool truncated_ = false;
    bool had_index_ = false;
    bool trailer_present_ = false;  // the writer finished: damage cannot be truncation
    uint64_t valid_bytes_ = 0;
    std::string truncation_note_;
    size_t unknown_chunks_ = 0;
};

}  // namespace memcity
