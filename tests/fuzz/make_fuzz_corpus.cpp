// Writes a seed corpus for fuzz_trace_reader: small traces that between them use every chunk
// kind, event kind (the JVM's figures and class counts of format 1.1 too) and snapshot feature,
// compressed and not, complete and cut off.
#include <cstdio>
#include <string>
#include <vector>

#include "trace/extensions.h"
#include "unit/hprof_builder.h"
#include "unit/trace_builder.h"

using memcity::AllocEvent;
using memcity::Edge;
using memcity::WriterOptions;
using memcity::testing::TraceBuilder;

namespace {

// `sampled`: a sampled trace (format 2.0) at a 64-byte interval, its censuses telling what was
// allocated since the GC (so that a reader scales the samples to them).
std::string build(const std::string& dir, const std::string& name, bool compress, int gcs, bool snapshots,
                  bool jvm = false, bool sampled = false) {
    WriterOptions o;
    o.compress = compress;
    o.chunk_bytes = 96;
    if (sampled) o.sampling_interval = 64;
    TraceBuilder b(name, o);
    b.writer().meta("producer", "corpus");
    b.writer().threadStart({2, 1});
    if (jvm) {
        b.writer().defineString(2, "Eden Space");
        b.writer().defineString(3, "Tenured Gen");
        b.writer().defineString(4, "Serial full collection pauses");
        b.writer().defineSpace(1, "Eden Space", 0x1000, 0x1000);
        b.writer().defineSpace(2, "Tenured Gen", 0x2000, 0x8000);
    }
    uint64_t id = 0;
    for (int g = 0; g < gcs; ++g) {
        for (int i = 0; i < 6; ++i) {
            if (i % 3 == 0)
                b.allocArray(id++, 3 + static_cast<uint32_t>(i % 2), static_cast<uint64_t>(i * 7));
            else if (i == 4)
                b.allocSized(id++, 5, 200);
            else
                b.alloc(id++, 1 + static_cast<uint32_t>(i % 2), 1 + static_cast<uint32_t>(g % 2),
                        1 + static_cast<uint32_t>(i % 2));
        }
        b.writer().move({id - 1, 0x1000u + id});
        b.gc(static_cast<uint32_t>(g), id, {id - 6, id - 4});
        if (jvm) {
            // The JVM's figures of the GC, and at every other GC its count by class.
            memcity::GcJvmEvent facts;
            facts.gc = static_cast<uint32_t>(g);
            facts.whole_heap = g % 2 == 1;
            facts.unreported = g == 2;
            facts.collectors = {{4, static_cast<uint64_t>(g), static_cast<uint64_t>(g + 1)}};
            facts.pools = {{2, 4096, 8192, 0, 8192}, {3, 100, 65536, 300, 65536}};
            b.writer().extension(static_cast<uint32_t>(memcity::format::ExtensionKind::kGcJvm),
                                 memcity::encodeGcJvm(facts));
            // The collector's spaces, and its objects' addresses (the live ones end to end in the
            // old space, one in eden).
            const uint64_t top = 0x2000u + 64u * static_cast<uint64_t>(g + 1);
            b.writer().gcSpaces({static_cast<uint32_t>(g),
                                 {{1, memcity::SpaceKind::kEden, 0x1000, 0x1000, 0x2000, 0x1800},
                                  {2, memcity::SpaceKind::kOld, 0x2000, top, 0xa000, top - 64}}});
            std::vector<memcity::ObjectAddress> placed;
            for (uint64_t k = 0; k < id; ++k)
                placed.push_back({k, k + 1 == id ? 0x1000 : 0x2000 + 16 * k});
            b.writer().addresses(static_cast<uint32_t>(g), placed);
            if (g % 2 == 1) {
                memcity::GcCensusEvent census;
                census.gc = static_cast<uint32_t>(g);
                census.types = {{1, 2, 32, 1, 16, 1, 16, 0, 0}, {3, 2, 64, 0, 0, 0, 0, 1, 24}};
                census.newer_objects = 1;
                census.newer_bytes = 16;
                census.newer_by_address = sampled;
                census.duration_ns = sampled ? 1000 : 0;
                b.writer().extension(static_cast<uint32_t>(memcity::format::ExtensionKind::kGcCensus),
                                     memcity::encodeGcCensus(census));
            }
            // Its heap is complete, as a recorder says while the trace is followed (not for the
            // last GC, whose heap GC_LIVE completes).
            if (g + 1 < gcs)
                b.writer().extension(static_cast<uint32_t>(memcity::format::ExtensionKind::kGcComplete),
                                     memcity::encodeGcComplete({static_cast<uint32_t>(g)}));
        }
        if (snapshots && sampled) {
            // A sampled trace's: the heap made whole by two objects that are no samples (ids
            // above every sample's), sample -> instance -> array, the sample a static's.
            const uint64_t base = (uint64_t{1} << 20) + 4 * static_cast<uint64_t>(g);
            b.writer().beginSnapshot(static_cast<uint32_t>(g));
            AllocEvent instance;
            instance.id = base;
            instance.type = 1;
            b.writer().snapshotUnsampled(instance);
            AllocEvent array;
            array.id = base + 2;
            array.type = 3;
            array.length = 5;
            b.writer().snapshotUnsampled(array);
            const Edge from_sample[] = {TraceBuilder::strong(base)};
            const Edge from_instance[] = {TraceBuilder::strong(base + 2, 0)};
            b.writer().snapshotObject(id - 5, from_sample);
            b.writer().snapshotObject(base, from_instance);
            b.writer().snapshotRoot(TraceBuilder::staticRoot(id - 5));
            b.writer().endSnapshot();
        } else if (snapshots) {
            b.snapshot(static_cast<uint32_t>(g),
                       {{id - 5, {TraceBuilder::strong(id - 3), TraceBuilder::weak(id - 2)}},
                        {id - 3, {TraceBuilder::strong(id - 1, 0)}}},
                       {TraceBuilder::staticRoot(id - 5)});
        }
    }
    if (jvm && gcs > 0) {
        // The JVM's heap after the last GC, as a recorder writes it at exit: a few objects of
        // the last GC's epoch are held, the rest of the live heap died without events.
        b.writer().extension(
            static_cast<uint32_t>(memcity::format::ExtensionKind::kGcLive),
            memcity::encodeGcLive({static_cast<uint32_t>(gcs - 1), {id - 5, id - 3, id - 1}}));
    }
    b.writer().threadEnd({2, 99999});
    std::string path = b.finish();
    std::string out = dir + "/" + name + ".mct";
    std::rename(path.c_str(), out.c_str());
    return out;
}

}  // namespace

// Seeds for fuzz_hprof_reader: the unit tests' dump with 4- and 8-byte identifiers, whole and cut,
// and the importer's little heap.
int hprofCorpus(const std::string& dir) {
    int n = 0;
    for (uint32_t ids : {4u, 8u}) {
        std::vector<uint8_t> dump = memcity::hprof::testing::tinyDump(ids);
        memcity::testing::writeFile(dir + "/tiny" + std::to_string(ids) + ".hprof", dump);
        dump.resize(dump.size() * 2 / 3);
        memcity::testing::writeFile(dir + "/cut" + std::to_string(ids) + ".hprof", dump);
        n += 2;
    }
    // The importer's dense little heap (objects, mirrors, statics, threads, roots).
    memcity::testing::writeFile(dir + "/little.hprof", memcity::hprof::testing::littleHeap());
    ++n;
    std::printf("wrote %d heap dumps to %s\n", n, dir.c_str());
    return 0;
}

int main(int argc, char** argv) {
    if (argc == 3 && std::string(argv[1]) == "--hprof") return hprofCorpus(argv[2]);
    if (argc != 2) {
        std::fprintf(stderr, "usage: make_fuzz_corpus DIR | make_fuzz_corpus --hprof DIR\n");
        return 1;
    }
    std::string dir = argv[1];
    build(dir, "plain", false, 3, false);
    build(dir, "zstd", true, 3, false);
    std::string full = build(dir, "snapshots", false, 4, true);
    build(dir, "snapshots-zstd", true, 2, true);
    build(dir, "jvm", false, 4, true, true);
    build(dir, "jvm-zstd", true, 3, false, true);
    const std::string sampled = build(dir, "sampled", false, 4, false, true, true);
    build(dir, "sampled-zstd", true, 3, false, true, true);
    build(dir, "sampled-snapshots", false, 3, true, true, true);
    auto bytes = memcity::testing::readFile(full);
    bytes.resize(bytes.size() * 3 / 5);
    memcity::testing::writeFile(dir + "/cut.mct", bytes);
    bytes = memcity::testing::readFile(sampled);
    bytes.resize(bytes.size() * 3 / 5);
    memcity::testing::writeFile(dir + "/cut-sampled.mct", bytes);
    std::printf("wrote 11 traces to %s\n", dir.c_str());
    return 0;
}
