#include "trace/extensions.h"

#include "util/bytes.h"

namespace memcity {
namespace {

// Entries of a list are at least one byte each: a count above what is left is corrupt.
constexpr uint64_t kMaxListEntries = 1u << 20;

bool countOk(ByteReader& r, uint64_t n) {
    return !r.failed() && n <= kMaxListEntries && n <= r.remaining();
}

}  // namespace

std::vector<uint8_t> encodeGcJvm(const GcJvmEvent& e) {
    ByteWriter w;
    w.varint(e.gc);
    w.varint((e.unreported ? 1u : 0u) | (e.whole_heap ? 2u : 0u));  // flags
    w.varint(e.collectors.size());
    for (const CollectorRun& c : e.collectors) {
        w.varint(c.name);
        w.varint(c.before);
        w.varint(c.after);
    }
    w.varint(e.pools.size());
    for (const PoolFigures& p : e.pools) {
        w.varint(p.name);
        w.varint(p.used_before);
        w.varint(p.committed_before);
        w.varint(p.used_after);
        w.varint(p.committed_after);
    }
    return std::move(w.bytes());
}

Status decodeGcJvm(std::span<const uint8_t> data, const SymbolTable& symbols, GcJvmEvent* out) {
    ByteReader r(data.data(), data.size());
    *out = GcJvmEvent{};
    out->gc = static_cast<uint32_t>(r.varint());
    const uint64_t flags = r.varint();
    out->unreported = (flags & 1) != 0;
    out->whole_heap = (flags & 2) != 0;
    const uint64_t collectors = r.varint();
    if (!countOk(r, collectors)) return decodeFailed(r, "impossible collector count");
    for (uint64_t i = 0; i < collectors; ++i) {
        CollectorRun c;
        const size_t at = r.offset();
        c.name = static_cast<uint32_t>(r.varint());
        c.before = r.varint();
        c.after = r.varint();
        if (r.failed()) return decodeFailed(r, "");
        if (!symbols.hasString(c.name)) {
            return Error::inData(at, "collector name " + std::to_string(c.name) + " is not a defined string");
        }
        out->collectors.push_back(c);
    }
    const uint64_t pools = r.varint();
    if (!countOk(r, pools)) return decodeFailed(r, "impossible pool count");
    for (uint64_t i = 0; i < pools; ++i) {
        PoolFigures p;
        const size_t at = r.offset();
        p.name = static_cast<uint32_t>(r.varint());
        p.used_before = r.varint();
        p.committed_before = r.varint();
        p.used_after = r.varint();
        p.committed_after = r.varint();
        if (r.failed()) return decodeFailed(r, "");
        if (!symbols.hasString(p.name)) {
            return Error::inData(at, "pool name " + std::to_string(p.name) + " is not a defined string");
        }
        out->pools.push_back(p);
    }
    if (r.failed()) return decodeFailed(r, "");
    return {};
}

std::vector<uint8_t> encodeGcCensus(const GcCensusEvent& e) {
    ByteWriter w;
    w.varint(e.gc);
    w.varint(e.types.size());
    for (const CensusType& t : e.types) {
        w.varint(t.type);
        w.varint(t.objects);
        w.varint(t.bytes);
        w.varint(t.untracked_objects);
        w.varint(t.untracked_bytes);
        w.varint(t.agent_objects);
        w.varint(t.agent_bytes);
        w.varint(t.filler_objects);
        w.varint(t.filler_bytes);
    }
    for (uint64_t v : {e.newer_objects, e.newer_bytes})
        w.varint(v);
    if (e.newer_by_address || e.duration_ns != 0) {
        w.varint(e.newer_by_address ? 1 : 0);  // flags
        w.varint(e.duration_ns);
    }
    return std::move(w.bytes());
}

Status decodeGcCensus(std::span<const uint8_t> data, const SymbolTable& symbols, GcCensusEvent* out) {
    ByteReader r(data.data(), data.size());
    *out = GcCensusEvent{};
    out->gc = static_cast<uint32_t>(r.varint());
    const uint64_t types = r.varint();
    if (!countOk(r, types)) return decodeFailed(r, "impossible type count");
    for (uint64_t i = 0; i < types; ++i) {
        CensusType t;
        const size_t at = r.offset();
        t.type = static_cast<uint32_t>(r.varint());
        t.objects = r.varint();
        t.bytes = r.varint();
        t.untracked_objects = r.varint();
        t.untracked_bytes = r.varint();
        t.agent_objects = r.varint();
        t.agent_bytes = r.varint();
        t.filler_objects = r.varint();
        t.filler_bytes = r.varint();
        if (r.failed()) return decodeFailed(r, "");
        if (t.type != 0 && !symbols.hasType(t.type)) {
            return Error::inData(at, "census type " + std::to_string(t.type) + " is not a defined type");
        }
        if (!out->types.empty() && t.type <= out->types.back().type) {
            return Error::inData(at, "census types are not ascending");
        }
        out->types.push_back(t);
    }
    for (uint64_t* v : {&out->newer_objects, &out->newer_bytes})
        *v = r.varint();
    if (!r.failed() && !r.atEnd()) {  // since a sampled trace's census (format 2.0)
        out->newer_by_address = (r.varint() & 1) != 0;
        out->duration_ns = r.varint();
    }
    if (r.failed()) return decodeFailed(r, "");
    return {};
}

std::vector<uint8_t> encodeGcLive(const GcLiveEvent& e) {
    ByteWriter w;
    w.varint(e.gc);
    w.varint(e.ids.size());
    uint64_t previous = 0;
    for (uint64_t id : e.ids) {
        w.varint(id - previous);  // ascending: the first relative to 0, then gaps of at least 1
        previous = id;
    }
    return std::move(w.bytes());
}

Status decodeGcLive(std::span<const uint8_t> data, GcLiveEvent* out) {
    ByteReader r(data.data(), data.size());
    *out = GcLiveEvent{};
    out->gc = static_cast<uint32_t>(r.varint());
    const uint64_t n = r.varint();
    // Each id is at least one byte: a count above what is left is corrupt (no fixed cap: a heap
    // may hold many millions of objects).
    if (r.failed() || n > r.remaining()) return decodeFailed(r, "impossible object count");
    out->ids.reserve(n);
    uint64_t id = 0;
    for (uint64_t i = 0; i < n; ++i) {
        const size_t at = r.offset();
        const uint64_t gap = r.varint();
        if (r.failed()) return decodeFailed(r, "");
        if ((i > 0 && gap == 0) || gap > UINT64_MAX - id) {
            return Error::inData(at, "object ids are not ascending");
        }
        id += gap;
        out->ids.push_back(id);
    }
    if (r.remaining() != 0) {
        return Error::inData(r.offset(), "bytes after the last object id");
    }
    return {};
}

std::vector<uint8_t> encodeGcComplete(const GcCompleteEvent& e) {
    ByteWriter w;
    w.varint(e.gc);
    return std::move(w.bytes());
}

Status decodeGcComplete(std::span<const uint8_t> data, GcCompleteEvent* out) {
    ByteReader r(data.data(), data.size());
    *out = GcCompleteEvent{};
    const uint64_t gc = r.varint();
    if (r.failed() || gc > UINT32_MAX) return decodeFailed(r, "impossible GC index");
    out->gc = static_cast<uint32_t>(gc);
    if (r.remaining() != 0) {
        return Error::inData(r.offset(), "bytes after the GC index");
    }
    return {};
}

}  // namespace memcity
