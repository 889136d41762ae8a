// The extension events of formats 1.1 and 1.2 (EventKind::kExtension, docs/trace-format.md):
// what the JVM itself says about a GC, and when a GC's heap is complete. Older readers skip them.
#pragma once

#include <cstdint>
#include <span>
#include <string>
#include <vector>

#include "trace/symbols.h"

namespace memcity {

// GC_JVM: the JVM's own figures of one GC, taken inside the GC (at its start and its end).
struct CollectorRun {
    uint32_t name = 0;    // STRING id: the collector as the JVM names it
    uint64_t before = 0;  // its invocations since the JVM started, at the GC's start
    uint64_t after = 0;   // ... at its end (after > before: it ran in this GC)
};
struct PoolFigures {
    uint32_t name = 0;  // STRING id: the memory pool as java.lang.management names it
    uint64_t used_before = 0, committed_before = 0;  // bytes, at the GC's start
    uint64_t used_after = 0, committed_after = 0;    // bytes, at its end
};
struct GcJvmEvent {
    uint32_t gc = 0;
    // The JVM ran this GC without reporting it to JVMTI (a heap inspection): the recorder found
    // it from the collectors' counts; its pools before are unknown (0).
    bool unreported = false;
    // A stop-the-world full collection: the heap after it holds the live objects and dead space
    // only (Serial, Parallel, G1), so the JVM's figures can be held against memcity's.
    bool whole_heap = false;
    std::vector<CollectorRun> collectors;
    std::vector<PoolFigures> pools;
};

// GC_CENSUS: the JVM's heap counted by class right after a GC (before the next one), by the
// JVM's own heap iteration. Objects allocated since the GC ended are counted apart.
struct CensusType {
    uint32_t type = 0;                                    // TYPE id, 0 = a class the trace does not name
    uint64_t objects = 0, bytes = 0;                      // objects the trace has, alive at the GC
    uint64_t untracked_objects = 0, untracked_bytes = 0;  // objects the trace never saw
    uint64_t agent_objects = 0, agent_bytes = 0;          // the recorder's own objects
    uint64_t filler_objects = 0, filler_bytes = 0;        // fillers: dead space formatted as objects
};
struct GcCensusEvent {
    uint32_t gc = 0;
    std::vector<CensusType> types;                // types ascending, each once
    uint64_t newer_objects = 0, newer_bytes = 0;  // allocated after the GC ended
    // Optional (a census without them reads as false and 0): the objects allocated after the GC
    // were told apart by address, not only by tag, so the untracked counts are of the heap at the
    // GC even where the trace does not hold every object (a sampled trace); and how long the
    // count held the program up.
    bool newer_by_address = false;
    uint64_t duration_ns = 0;
};

// GC_LIVE: of the objects born before a GC ended, those the JVM's heap still held right after
// it, by the JVM's own heap iteration. A recorder writes it for its last GC, as the trace's last
// event: an object it does not list died in that GC, whether or not its death event came before
// the trace was closed (HotSpot posts a GC's deaths from another thread, later).
struct GcLiveEvent {
    uint32_t gc = 0;
    std::vector<uint64_t> ids;  // ascending, each once
};

// GC_COMPLETE (1.2): everything the heap after GC `gc` needs (its allocations, deaths, census)
// precedes this event, so a reader completes that heap here instead of at the next GC's start:
// a trace still being written shows each GC as soon as the recorder has written it.
struct GcCompleteEvent {
    uint32_t gc = 0;
};

std::vector<uint8_t> encodeGcJvm(const GcJvmEvent& e);
std::vector<uint8_t> encodeGcCensus(const GcCensusEvent& e);
std::vector<uint8_t> encodeGcLive(const GcLiveEvent& e);
std::vector<uint8_t> encodeGcComplete(const GcCompleteEvent& e);

// Decode a payload; an Error (its offset: bytes into `data`, Error::inData) when it is
// malformed or names a symbol the table lacks.
Status decodeGcJvm(std::span<const uint8_t> data, const SymbolTable& symbols, GcJvmEvent* out);
Status decodeGcCensus(std::span<const uint8_t> data, const SymbolTable& symbols, GcCensusEvent* out);
Status decodeGcLive(std::span<const uint8_t> data, GcLiveEvent* out);
Status decodeGcComplete(std::span<const uint8_t> data, GcCompleteEvent* out);

}  // namespace memcity
