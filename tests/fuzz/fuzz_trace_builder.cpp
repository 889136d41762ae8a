// libFuzzer target, structure-aware: the input is a program for TraceBuilder (tests/unit), which
// writes a well-formed trace from it, so that every mutation gets past the checksums and the
// decoder into the rebuild and the analysis: many objects, long reference chains, wide objects,
// many GCs, deep class hierarchies, many sites with deep stacks. The trace is opened while it is
// written (at the first flush) and grown to its end, and must then be whole; the analysis
// pipeline (fuzz_pipeline.h) runs on it. Every outcome must be a value or a one-line error.
//
// The program:
//   byte 0: bit 0 zstd chunks, bit 1 the collector's spaces and the objects' addresses at every
//           GC, bits 2-3 the chunk size (96, 512, 4096 or 65536 bytes), bits 4-5 both set: a
//           large program (kMaxLargeObjects rather than kMaxObjects)
//   byte 1: extra types: a chain of that many classes, each the subclass of the one before
//   byte 2: extra sites: that many, site k with k % 48 + 1 frames
//   byte 3: the pipeline's choice of classifier chain, filter and GC
//   then operations, one byte each (its value mod 5) and their arguments:
//     0 N:u16 T:u8 S:u8   N % 1024 + 1 objects, types from T on, sites from S on
//     1 M:u8              a GC; the live objects k with k % (M % 7 + 2) == M / 7 % 2 die
//     2                   flush (the first one opens the trace while it is written)
//     3 L:u16 W:u16 R:u8  a GC with a reference snapshot: a chain through the first L % 65536
//                         live objects, one object referencing W of them, R % 8 + 1 static roots
//     4 K:u8              the live object K % live moves
//   past a cap (objects in all, kMaxGcs, kMaxSnapshots) an allocation, GC or snapshot does nothing.
#include <cstdio>
#include <cstdlib>
#include <map>
#include <optional>
#include <string>
#include <vector>

#include "fuzz/fuzz_pipeline.h"
#include "trace/trace_reader.h"
#include "unit/trace_builder.h"

namespace {

using memcity::Edge;
using memcity::fuzz::ByteReader;
using memcity::testing::TraceBuilder;

// Caps that keep one run to tens of milliseconds (a few hundred at worst) under the sanitizers,
// so that the fuzzer tries tens of programs a second: the objects a program allocates in all,
// its GCs (each rebuilt and classified by the series) and its reference snapshots. Deep and large
// structures stay within them: a chain through every object, an object referencing all of them.
constexpr uint64_t kMaxObjects = 4096;
constexpr uint64_t kMaxLargeObjects = 20000;  // one program in four may be large
constexpr uint32_t kMaxGcs = 64;
constexpr uint32_t kMaxSnapshots = 4;

struct Program {
    Program(ByteReader reader, TraceBuilder& builder) : in(reader), b(builder) {}

    ByteReader in;
    TraceBuilder& b;
    bool jvm = false;
    uint64_t max_objects = kMaxObjects;
    uint32_t types = 5, sites = 2;
    std::vector<uint64_t> live;
    uint64_t next_id = 1;
    uint32_t gcs = 0, snapshots = 0;
    std::vector<std::string> names;  // the extra types' names, alive while the writer is

    // The extra symbols: a chain of subclasses (instances and reference arrays by turns), and
    // sites of deep stacks over methods of their own.
    void defineSymbols(uint32_t extra_types, uint32_t extra_sites) {
        using memcity::TypeDef;
        using memcity::format::TypeKind;
        for (uint32_t k = 0; k < extra_types; ++k)
            names.push_back("p" + std::to_string(k % 7) + ".q.C" + std::to_string(k) +
                            (k % 3 == 2 ? "[]" : ""));
        for (uint32_t k = 0; k < extra_types; ++k) {
            TypeDef t{names[k], TypeKind::kInstance, k == 0 ? 1u : 5 + k, 16 + 8 * (k % 8), 0, 0, 0};
            if (k % 3 == 2) t = TypeDef{names[k], TypeKind::kReferenceArray, 0, 0, 16, 4, 1};
            b.writer().defineType(6 + k, t);
        }
        types += extra_types;
        for (uint32_t k = 0; k < extra_sites; ++k) {
            b.writer().defineMethod(3 + k, "p" + std::to_string(k % 5) + ".Deep" + std::to_string(k % 11),
                                    "m" + std::to_string(k), "()V", "Deep.java");
            std::vector<memcity::Frame> frames;
            for (uint32_t f = 0; f <= k % 48; ++f)
                frames.push_back({3 + (k + f) % (k + 1), static_cast<int32_t>(f)});
            b.writer().defineSite(3 + k, frames);
        }
        sites += extra_sites;
    }

    void allocate() {
        const uint32_t n = in.u16() % 1024 + 1, t = in.u8(), s = in.u8();
        for (uint32_t i = 0; i < n && next_id <= max_objects; ++i) {
            const uint32_t type = 1 + (t + i) % types, site = 1 + (s + i / 3) % sites;
            const uint32_t thread = 1 + i % 2;
            const uint64_t id = next_id++;
            if (type == 3 || type == 4 || (type > 5 && (type - 6) % 3 == 2))
                b.allocArray(id, type, (t * 131 + i * 37) % (i % 64 == 0 ? 100000 : 300), site, thread);
            else if (type == 5)
                b.allocSized(id, type, 8 * (1 + i % 64), site, thread);
            else
                b.alloc(id, type, site, thread);
            live.push_back(id);
        }
    }

    void gc(uint8_t m) {
        if (gcs >= kMaxGcs) return;
        const size_t every = m % 7 + 2, which = m / 7 % 2;
        std::vector<uint64_t> dead, kept;
        for (size_t k = 0; k < live.size(); ++k)
            (k % every == which ? dead : kept).push_back(live[k]);
        b.gc(gcs, next_id, dead);
        live = std::move(kept);
        if (jvm) {
            std::vector<memcity::ObjectAddress> placed;
            uint64_t at = 0x100000;
            for (uint64_t id : live) {
                placed.push_back({id, at});
                at += 8 * (1 + id % 16);
            }
            b.writer().gcSpaces({gcs,
                                 {{1, memcity::SpaceKind::kEden, 0x10000, 0x10000, 0x20000, 0x10000},
                                  {2, memcity::SpaceKind::kOld, 0x100000, at, at + 0x100000, at}}});
            b.writer().addresses(gcs, placed);
        }
        ++gcs;
    }

    void snapshot() {
        const size_t chain = in.u16(), wide = in.u16(), roots = in.u8() % 8 + 1;
        const uint32_t before = gcs;
        gc(in.u8());
        if (gcs == before || snapshots == kMaxSnapshots || live.empty()) return;
        ++snapshots;
        std::map<uint64_t, std::vector<Edge>> edges;
        for (size_t k = 0; k + 1 < live.size() && k < chain; ++k)
            edges[live[k]].push_back(TraceBuilder::strong(live[k + 1]));
        const uint64_t hub = live[live.size() / 2];
        for (size_t k = 0; k < live.size() && k < wide; ++k)
            edges[hub].push_back(TraceBuilder::strong(live[(k * 7919) % live.size()], k % 2 ? 1 : 0));
        b.writer().beginSnapshot(gcs - 1);
        for (const auto& [source, out] : edges)
            b.writer().snapshotObject(source, out);
        for (size_t r = 0; r < roots; ++r)
            b.writer().snapshotRoot(TraceBuilder::staticRoot(live[(r * 104729) % live.size()]));
        b.writer().endSnapshot();
    }
};

void oneLine(const memcity::Error& e) {
    if (e.message.empty() || e.message.find('\n') != std::string::npos) std::abort();
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
    using namespace memcity;
    fuzz::ByteReader in(data, size);
    const uint8_t flags = in.u8();
    WriterOptions options;
    options.compress = (flags & 1) != 0;
    constexpr uint32_t kChunkBytes[] = {96, 512, 4096, 65536};
    options.chunk_bytes = kChunkBytes[(flags >> 2) & 3];
    TraceBuilder builder("fuzz", options);
    Program p(in, builder);  // reads on from byte 1
    p.jvm = (flags & 2) != 0;
    if ((flags & 0x30) == 0x30) p.max_objects = kMaxLargeObjects;
    const uint8_t extra_types = p.in.u8(), extra_sites = p.in.u8();
    p.defineSymbols(extra_types, extra_sites);
    const uint8_t choice = p.in.u8();

    std::optional<Result<TraceFile>> opened;
    while (!p.in.empty()) {
        switch (p.in.u8() % 5) {
            case 0: p.allocate(); break;
            case 1: p.gc(p.in.u8()); break;
            case 2:
                builder.flush();
                if (!opened) opened.emplace(TraceFile::open(builder.path()));
                break;
            case 3: p.snapshot(); break;
            case 4:
                if (!p.live.empty())
                    builder.writer().move({p.live[p.in.u8() % p.live.size()], 0x900000 + 8 * p.gcs});
                break;
        }
    }
    if (p.gcs == 0) p.gc(0);
    const std::string path = builder.finish();

    if (opened) {
        // Followed while written: grown to the end, the trace must be whole.
        if (!opened->ok()) std::abort();
        auto grown = (*opened)->grow();
        if (!grown.ok() || (*opened)->beingWritten() || (*opened)->truncated()) std::abort();
    }
    auto file = TraceFile::open(path);
    std::remove(path.c_str());
    if (!file.ok()) std::abort();  // the builder writes a well-formed trace
    TraceFile& trace = opened ? **opened : *file;
    HistoryOptions history_options;
    history_options.checkpoint_events = 4096;
    auto history = HeapHistory::build(trace, history_options);
    if (!history.ok()) {
        oneLine(history.error());
        return 0;
    }
    fuzz::analyseHistory(*history, choice);
    return 0;
}
