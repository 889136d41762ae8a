// Writes the seed corpora of the fuzz targets. For fuzz_trace_reader (and, with --grow,
// fuzz_trace_file): traces that between them use every chunk
// kind, event kind (the JVM's figures and class counts of format 1.1 too) and snapshot feature,
// compressed and not, complete and cut off.
#include <cstdio>
#include <filesystem>
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

// Seeds for fuzz_hprof_file: the dumps above behind a byte that picks gzip (one or two members)
// or not and the split read's parts, and a dump larger than the fuzzers' default 4 KB inputs.
int hprofFileCorpus(const std::string& dir) {
    int n = 0;
    auto put = [&](const std::string& name, uint8_t pick, std::vector<uint8_t> dump) {
        dump.insert(dump.begin(), pick);
        memcity::testing::writeFile(dir + "/" + name, dump);
        ++n;
    };
    put("tiny4", 0x00, memcity::hprof::testing::tinyDump(4));
    put("tiny8-gz", 0x05, memcity::hprof::testing::tinyDump(8));
    put("little-gz2", 0x0b, memcity::hprof::testing::littleHeap());
    put("little-split3", 0x18, memcity::hprof::testing::littleHeap());
    // Big: the little heap's records many times over (its heap records repeated: the same
    // objects again, which the importer must refuse or take without a crash).
    std::vector<uint8_t> big = memcity::hprof::testing::littleHeap();
    const std::vector<uint8_t> once = big;
    while (big.size() < 48 * 1024)
        big.insert(big.end(), once.begin() + 31, once.end());
    put("big-gz", 0x25, big);
    put("big", 0x38, big);
    std::printf("wrote %d heap dump files to %s\n", n, dir.c_str());
    return 0;
}

// Seeds for fuzz_trace_builder: programs (see its header) for deep and large structures.
int builderCorpus(const std::string& dir) {
    using Program = std::vector<uint8_t>;
    auto allocs = [](Program& p, uint16_t n, uint8_t type, uint8_t site) {
        p.insert(p.end(), {0, static_cast<uint8_t>(n), static_cast<uint8_t>(n >> 8), type, site});
    };
    auto snapshot = [](Program& p, uint16_t chain, uint16_t wide, uint8_t roots, uint8_t kill) {
        p.insert(p.end(), {3, static_cast<uint8_t>(chain), static_cast<uint8_t>(chain >> 8),
                           static_cast<uint8_t>(wide), static_cast<uint8_t>(wide >> 8), roots, kill});
    };
    std::vector<std::pair<std::string, Program>> programs;
    // Small: a few objects, two GCs, one snapshot, a flush in between.
    Program small = {0x00, 2, 2, 0};
    allocs(small, 20, 0, 0);
    small.insert(small.end(), {1, 3, 2});
    allocs(small, 10, 3, 1);
    snapshot(small, 8, 4, 1, 5);
    programs.emplace_back("small", small);
    // A long reference chain (20,000 objects in a list, a large program's cap) and a wide object, zstd
    // chunks.
    Program deep = {0x01 | 0x08 | 0x30, 0, 0, 7};
    for (int k = 0; k < 20; ++k)
        allocs(deep, 999, static_cast<uint8_t>(k % 2 == 0 ? 0 : 1), 0);
    snapshot(deep, 20000, 2000, 3, 0xff);
    programs.emplace_back("deep-chain", deep);
    // Many GCs with spaces and addresses, flushed and followed while written.
    Program gcs = {0x02 | 0x04, 3, 1, 1};
    for (int k = 0; k < 60; ++k) {
        allocs(gcs, static_cast<uint16_t>(5 + k % 40), static_cast<uint8_t>(k), static_cast<uint8_t>(k / 3));
        gcs.insert(gcs.end(), {1, static_cast<uint8_t>(k * 13)});
        if (k % 20 == 0) gcs.push_back(2);
        if (k % 15 == 0) gcs.insert(gcs.end(), {4, static_cast<uint8_t>(k)});
    }
    snapshot(gcs, 100, 50, 7, 3);
    programs.emplace_back("many-gcs", gcs);
    // Many classes (a hierarchy 255 deep) and sites (255, up to 48 frames each), wide objects.
    Program classes = {0x0c | 0x30, 255, 255, 9};
    for (int k = 0; k < 20; ++k)
        allocs(classes, 999, static_cast<uint8_t>(k * 7), static_cast<uint8_t>(k * 11));
    classes.push_back(2);
    snapshot(classes, 500, 30000, 5, 1);
    for (int k = 0; k < 20; ++k)
        classes.insert(classes.end(), {1, static_cast<uint8_t>(k)});
    snapshot(classes, 2000, 100, 2, 2);
    programs.emplace_back("many-classes", classes);
    for (const auto& [name, program] : programs)
        memcity::testing::writeFile(dir + "/" + name, program);
    std::printf("wrote %zu trace programs to %s\n", programs.size(), dir.c_str());
    return 0;
}

// Seeds for fuzz_text: each parser's input behind its selector byte (see fuzz_text.cpp).
int textCorpus(const std::string& dir) {
    const std::vector<std::pair<uint8_t, std::string>> seeds = {
        {0, "pause"},
        {0, "when full,used>64m"},
        {0, "snapshot now"},
        {1, "full,used>1g,every-gc"},
        {2,
         "ok version=1 pid=1234 state=paused gc=12 why=full gcs=13 pause=yes when=full snapshots=2 "
         "snapshot_gc=9 snapshot=asked file=/tmp/app.mct"},
        {2, "error no such thing"},
        {3,
         "# memcity settings\nview = city\nmetric=bytes\n[chain \"by site\"]\nspec = type,site(callers=2)\n"
         "[recent]\nfile = \"/tmp/a b.mct\"\n"},
        {4, "gc 3\nselect java.util.HashMap / Main.run(Main.java:10)\nclick 10 20 shift\n# comment\nquit\n"},
        {5, "type,site(callers=2),points-to(package,type),{size > 1k && age >= 2}"},
        {5, "java.util.HashMap / IdCache.<clinit>(IdCache.java:9); byte[]"},
        {7, std::string("java\0-XX:+DisableAttachMechanism\0-cp\0x.jar\0Main\0arg\x01JAVA_TOOL_OPTIONS="
                        "-XX:-DisableAttachMechanism\0_JAVA_OPTIONS=-Xmx1g",
                        109)},
        {8, "0\nreturn code: 0\n"},
        {8, "-1\nCould not load library\n"},
    };
    int n = 0;
    for (const auto& [selector, text] : seeds) {
        std::vector<uint8_t> bytes = {selector};
        bytes.insert(bytes.end(), text.begin(), text.end());
        memcity::testing::writeFile(dir + "/seed" + std::to_string(n++), bytes);
    }
    // The start of HotSpot perf data (its magic, a byte order), for the mutator to grow.
    std::vector<uint8_t> perf = {6, 0xca, 0xfe, 0xc0, 0xc0, 0, 1, 2,    0, 0, 0, 0, 0, 0, 0, 0, 0,
                                 0, 0,    0,    0,    0,    0, 0, 0x20, 0, 0, 0, 1, 0, 0, 0, 0};
    memcity::testing::writeFile(dir + "/perf", perf);
    std::printf("wrote %d parser inputs to %s\n", n + 1, dir.c_str());
    return 0;
}

int main(int argc, char** argv) {
    const std::string mode = argc == 3 ? argv[1] : "";
    if (mode == "--hprof") return hprofCorpus(argv[2]);
    if (mode == "--hprof-file") return hprofFileCorpus(argv[2]);
    if (mode == "--builder") return builderCorpus(argv[2]);
    if (mode == "--text") return textCorpus(argv[2]);
    if (argc != 2 && mode != "--grow") {
        std::fprintf(stderr, "usage: make_fuzz_corpus [--hprof|--hprof-file|--grow|--builder|--text] DIR\n");
        return 1;
    }
    // Traces for fuzz_trace_reader; with --grow for fuzz_trace_file, each followed by the byte
    // it reads last (where the file is cut while it grows, what the pipeline picks).
    std::string dir = argv[argc - 1];
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
    // Larger than the fuzzers' default 4 KB inputs: many GCs, snapshots, the JVM's figures.
    build(dir, "large", false, 40, true, true);
    build(dir, "large-zstd", true, 60, true, true);
    if (mode == "--grow") {
        uint8_t pick = 0;
        for (const auto& entry : std::filesystem::directory_iterator(dir)) {
            bytes = memcity::testing::readFile(entry.path());
            bytes.push_back(pick += 37);
            memcity::testing::writeFile(entry.path(), bytes);
        }
    }
    std::printf("wrote 13 traces to %s\n", dir.c_str());
    return 0;
}
