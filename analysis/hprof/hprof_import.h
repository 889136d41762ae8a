// Heap dumps into a trace: `memcity import`, `memcity FILE.hprof` and `memcity dump`.
//
// Each dump becomes one GC of the trace (a full GC, cause "heap dump", at the dump's time): every
// object of the dump is allocated before it, with the size the JVM counts, and a reference
// snapshot at it holds every reference and every GC root the dump has. The next dump's GC is
// where the previous dump's objects die: a dump has no object identity across dumps (addresses
// move), so between two dumps everything reads as died and born again (docs/hprof.md).
//
// Object ids: a dump's objects in address order, one id per alignment unit of the address, above
// the previous dump's. Sizes come from HotSpot's field layout (hotspot_layout.h), checked against
// the gaps between the objects' addresses, which also pick the object model (compressed oops or
// not) and correct what a dump cannot say (fields the VM injects, @Contended padding).
#pragma once

#include <array>
#include <cstdint>
#include <functional>
#include <memory>
#include <optional>
#include <span>
#include <string>
#include <vector>

#include "hprof/dump_regions.h"
#include "hprof/hotspot_layout.h"
#include "trace/trace_writer.h"
#include "util/progress.h"
#include "util/result.h"

namespace memcity::hprof {

// What one dump held.
struct DumpStats {
    std::string path;
    uint32_t gc = 0;
    uint64_t file_bytes = 0;  // the dump as read (after gunzip)
    bool gzip = false;
    uint64_t timestamp_ms = 0;  // when the dump began (ms since the Unix epoch)
    ObjectModel model;
    uint64_t objects = 0, bytes = 0;  // including class mirrors
    uint64_t instances = 0, arrays = 0, mirrors = 0;
    uint64_t classes = 0;
    uint64_t edges = 0, dropped_edges = 0;  // dropped: to an object the dump does not hold
    uint64_t roots = 0;
    uint64_t threads = 0;
    // Classes whose size the addresses corrected (the layout model said otherwise), each as
    // "java.lang.Thread: 104 B by the layout model, 112 B by the addresses of 8 instances".
    std::vector<std::string> corrections;
    // Under G1, where the grid is known (Importer::placeInG1Regions): the regions per role the
    // objects fill (RegionRole order), or why they do not lie in it (then the dump has no table).
    std::optional<std::array<uint32_t, kRegionRoleCount>> region_counts;
    std::string regions_error;

    // java.lang.Class objects the dump references but does not list (HotSpot lists loaded
    // classes only; CDS archives mirrors of classes not loaded yet): added, sized by their gap.
    uint64_t unlisted_mirrors = 0;
    double seconds = 0;  // reading and writing it
};

// Reads a whole file into memory, gunzipping it if it is gzip-compressed (jcmd GC.heap_dump -gz);
// a file, or its inflated dump, of more than kMaxDumpInMemory bytes is an error (Importer::add
// maps a dump instead, and inflates a gzip one into a temporary file).
inline constexpr uint64_t kMaxDumpInMemory = uint64_t{1} << 30;
Result<std::vector<uint8_t>> readDumpFile(const std::string& path, bool* gzip = nullptr);
// Whether the bytes begin like a heap dump (or a gzip file, which may hold one).
bool looksLikeDump(std::span<const uint8_t> head);

// Where an import is (Importer::onProgress), for a window that shows it.
enum class ImportStep : uint8_t {
    kReading,     // the dump's records, in file order
    kLayingOut,   // the objects in address order, the classes' sizes
    kObjects,     // every object written (the heap is complete in the trace once this ends)
    kReferences,  // the addresses, the references and the roots
};
const char* importStepName(ImportStep step);  // "reading the dump", ...

class Importer {
public:
    // Creates the trace. `producer`: the META producer line ("memcity import").
    static Result<std::unique_ptr<Importer>> create(const std::string& trace_path,
                                                    const std::string& producer);
    ~Importer();
    Importer(const Importer&) = delete;
    Importer& operator=(const Importer&) = delete;

    // Adds the dump as the trace's next GC. Errors name the file (and the offset, for bad bytes);
    // after an error the trace still holds the dumps added before it.
    // `pause_ns`: the JVM's pause for the dump, where the caller measured it (the GC's pause).
    Result<DumpStats> add(const std::string& dump_path, uint64_t pause_ns = 0);
    Result<DumpStats> add(const std::string& name, std::span<const uint8_t> dump, uint64_t pause_ns = 0);
    // The dumps added from now on are of a G1 heap laid out as `grid` (hprof/dump_regions.h):
    // each gets a region table (GC_REGIONS) from its objects. `collected`: each dump began with a
    // full GC (jcmd GC.heap_dump without -all), so its regions that hold objects are old.
    void placeInG1Regions(const G1Grid& grid, bool collected);
    // Flushes what was added so far as complete chunks (a live view sees it).
    void flush();
    // Called on the importing thread as add() goes: its step, and how far through the step
    // (0..1, where it can tell; reading: by the dump's bytes). The trace's file is being written
    // (locked by its writer, TraceFile::beingWritten) from the first call on. Returning false
    // cancels the import: add() soon returns an error.
    // The Progress a caller holds (ProgressReport::stage: the ImportStep, fraction: within it).
    void onProgress(Progress progress);
    // Dumps of at least this many bytes have their heap records read on two threads, where the
    // machine has two cores (64 MiB by default; the trace is the same either way).
    void splitFrom(uint64_t bytes);
    Status close();
    // Leaves the trace as it is, without its end (a reader following it finds it cut off): for
    // an import that failed, whose trace goes.
    void abandon();

    struct State;  // (hprof_import.cpp)

private:
    Importer() = default;
    std::unique_ptr<State> state_;
};

}  // namespace memcity::hprof
