// The .mct trace format, version 1: constants shared by the writer and the reader.
// docs/trace-format.md is the specification; this header must agree with it.
#pragma once

#include <array>
#include <cstdint>
#include <string_view>

namespace memcity::format {

// ---- File header (32 bytes at offset 0) ----
inline constexpr std::array<uint8_t, 8> kMagic = {0x89, 'M', 'C', 'T', '\r', '\n', 0x1a, '\n'};
inline constexpr uint16_t kVersionMajor = 1;
inline constexpr uint16_t kVersionMinor = 4;  // 1.1: GC_JVM, GC_CENSUS, GC_LIVE; 1.2: GC_COMPLETE;
                                              // 1.3: GC_SPACES, ADDRS chunks; 1.4: GC_REGIONS
inline constexpr uint32_t kHeaderSize = 32;
// A sampled trace (docs/recorder.md, "Sampled recording"): its allocations are the JVM heap
// sampler's picks, each standing for others, so a 1.x reader must not take it for every
// allocation. It is version 2.1 (1.4 otherwise; 2.1 and 1.4 added GC_REGIONS), sets kHeaderFlagSampled, and
// its header is 40 bytes: the mean sampling interval in bytes (u64) follows at offset 32.
inline constexpr uint16_t kVersionMajorSampled = 2;
inline constexpr uint16_t kVersionMinorSampled = 1;
inline constexpr uint32_t kSampledHeaderSize = 40;
// META key and value of a producer whose reference snapshots list only objects its walk reached
// from the snapshot's roots (as sources, targets or roots): the memcity agent and synth.
inline constexpr std::string_view kMetaSnapshots = "snapshots";
inline constexpr std::string_view kSnapshotsFromRoots = "from roots";
// Header layout: magic[8] | u16 major | u16 minor | u32 flags | u32 header_size | u32 alignment |
//                u64 start_wall_ns [| u64 sampling_interval: version 2]
inline constexpr uint32_t kHeaderFlagSequentialIds = 1u << 0;  // object ids come from one counter
inline constexpr uint32_t kHeaderFlagSampled = 1u << 1;        // allocations are samples (version 2)

// ---- Chunks ----
// Chunk header (24 bytes): u32 sync | u16 kind | u16 flags | u32 stored_size | u32 raw_size |
//                          u32 meta | u32 crc32c(header bytes 0..19, then the stored payload)
inline constexpr uint32_t kChunkSync = 0x314b434d;  // "MCK1"
inline constexpr uint32_t kChunkHeaderSize = 24;
inline constexpr uint32_t kMaxChunkPayload = 64u << 20;  // larger stored or raw sizes are corrupt
inline constexpr uint16_t kChunkFlagZstd = 1u << 0;

enum class ChunkKind : uint16_t {
    kMeta = 1,     // key/value strings about the recording (producer, JVM, command line)
    kSymbols = 2,  // symbol definitions: strings, types, fields, methods, sites, threads...
    kEvents = 3,   // the event stream (meta = number of events)
    kRefs = 4,     // part of a reference snapshot (meta = GC index)
    kRoots = 5,    // GC roots of a snapshot; closes the snapshot (meta = GC index)
    kIndex = 6,    // footer index
    kAddrs = 7,    // part of the objects' addresses at a GC (meta = GC index)
    kObjects = 8,  // a sampled trace's snapshot: objects it reached that were not sampled (meta = GC index)
};
inline constexpr uint16_t kLastChunkKind =
    static_cast<uint16_t>(ChunkKind::kObjects);  // kinds 1..it are known
std::string_view chunkKindName(uint16_t kind);

// ---- Trailer (16 bytes at the very end): u64 index chunk offset | u64 kTrailerMagic ----
inline constexpr uint64_t kTrailerMagic = 0x0a444e45544d4389ull;  // 0x89 "MCTEND\n"
inline constexpr uint32_t kTrailerSize = 16;

// ---- Symbols (records in a SYMBOLS chunk: u8 record kind, then fields) ----
enum class SymbolRecord : uint8_t {
    kString = 1,    // id, bytes
    kType = 2,      // id, name, kind, super, instance size, array header, element size, element type
    kField = 3,     // id, owner type, name, type name, flags
    kMethod = 4,    // id, class name, name, signature, source file
    kSite = 5,      // id, frame count, frames (method, line + 1)
    kThread = 6,    // id, name, flags, java object id + 1
    kRootKind = 7,  // id, name
    kSpace = 8,     // id, name, start address, size
};

enum class TypeKind : uint8_t {
    kInstance = 0,        // an ordinary object; size is the type's instance size
    kPrimitiveArray = 1,  // int[], byte[]...; elements hold no references
    kReferenceArray = 2,  // Object[], String[][]...; elements are references
};

inline constexpr uint8_t kFieldStatic = 1u << 0;     // a static field (edges from the class)
inline constexpr uint8_t kFieldReference = 1u << 1;  // the field holds a reference
inline constexpr uint8_t kThreadDaemon = 1u << 0;

// Symbol id limits: ids are dense small integers, 0 means "none".
inline constexpr uint32_t kMaxSymbolId = 1u << 24;
inline constexpr uint32_t kMaxSiteFrames = 256;
inline constexpr uint32_t kMaxStringBytes = 1u << 20;

// ---- Events (in an EVENTS chunk, after a prologue of varint time_base_ns, varint id_base,
//      varint thread). Each event starts with a tag byte: kind in the low 5 bits, flags above.
enum class EventKind : uint8_t {
    kAlloc = 1,        // zz id delta, type, site, [size], [address], zz time delta
    kAllocArray = 2,   // zz id delta, type, site, length, [size], [address], zz time delta
    kDeaths = 3,       // gc, count, first id, (delta - 1)...   ids strictly ascending
    kGcStart = 4,      // gc, u8 gc kind, cause string, zz time delta
    kGcEnd = 5,        // gc, zz time delta, next object id, heap before, heap after, committed, pause ns
    kThread = 6,       // thread: the allocating thread of the following allocations
    kThreadStart = 7,  // thread, zz time delta
    kThreadEnd = 8,    // thread, zz time delta
    kMove = 9,         // id, new address (optional, for a space/address view)
    kExtension = 31,   // ext kind, length, bytes: skipped by readers that do not know it
};
inline constexpr uint8_t kEventKindMask = 0x1f;
inline constexpr uint8_t kAllocFlagSize = 1u << 5;     // explicit size follows
inline constexpr uint8_t kAllocFlagAddress = 1u << 6;  // address follows
inline constexpr uint32_t kEventKindCount = 32;
std::string_view eventKindName(uint32_t kind);

enum class GcKind : uint8_t {
    kUnknown = 0,
    kMinor = 1,       // "young": a young-generation (minor) collection
    kMajor = 2,       // "full": an old-generation (major) or full collection
    kConcurrent = 3,  // a concurrent cycle (ZGC, Shenandoah, G1 marking)
};
std::string_view gcKindName(uint32_t kind);

// Extension events (EventKind::kExtension) this format defines; readers skip others.
enum class ExtensionKind : uint32_t {
    kGcJvm = 1,       // the JVM's own figures of a GC: the collectors that ran, each memory pool
    kGcCensus = 2,    // the JVM's heap counted by class right after a GC
    kGcLive = 3,      // the objects the JVM's heap still held at the trace's last GC
    kGcComplete = 4,  // everything of a GC's heap has been written: readers complete it at once
    kGcSpaces = 5,    // the collector's spaces right after a GC: where each is and how full
    kGcRegions = 6,   // G1's region table at a GC's start or end: each region's role and use
};

// ---- Reference snapshots ----
// REFS payload: varint gc, then records: zz (source id - previous source id), edge count,
// edges: zz (target id - source id), varint slot = field id << 2 | strength.
enum class RefStrength : uint8_t {
    kStrong = 0,
    kWeak = 1,     // the referent of a WeakReference
    kSoft = 2,     // the referent of a SoftReference
    kPhantom = 3,  // phantom or final referent
};
// ROOTS payload: varint gc, varint refs chunk count, varint source count, varint edge count,
// then roots: varint kind, zz (target id - previous target id), varint detail count, details.
inline constexpr uint32_t kMaxRootDetails = 8;

// Predefined root kinds (a ROOT_KIND symbol may add others, or rename these).
enum class RootKind : uint32_t {
    kJniGlobal = 1,    // details: none
    kSystemClass = 2,  // details: type
    kMonitor = 3,      // details: none
    kStackLocal = 4,   // details: thread, method, slot, frame depth
    kJniLocal = 5,     // details: thread, frame depth
    kThread = 6,       // details: thread
    kOther = 7,        // details: none
    kStaticField = 8,  // details: type (the class), field
    kBuiltinCount = 9,
};
std::string_view builtinRootKindName(uint32_t kind);

}  // namespace memcity::format
