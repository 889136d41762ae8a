// memcity import DUMP.hprof... -o OUT.mct: heap dumps into a trace, one GC per dump.
#include <sys/stat.h>

#include <filesystem>
#include <iostream>

#include "cli/args.h"
#include "cli/commands.h"
#include "cli/text_format.h"
#include "hprof/hprof_import.h"
#include "hprof/import_cache.h"

namespace memcity::cli {

namespace {

std::string modelName(const hprof::ObjectModel& m) {
    if (m.header == 8) return "compact headers";
    if (m.oop == 4) return "compressed oops";
    return m.header == 12 ? "uncompressed oops" : "uncompressed oops and class pointers";
}

// Whether `a` and `b` name one file: the same file where both exist, else the same path once
// resolved (symbolic links, "..").
bool sameFile(const std::string& a, const std::string& b) {
    struct stat sa {
    }, sb{};
    if (::stat(a.c_str(), &sa) == 0 && ::stat(b.c_str(), &sb) == 0)
        return sa.st_dev == sb.st_dev && sa.st_ino == sb.st_ino;
    std::error_code ea, eb;
    const auto ca = std::filesystem::weakly_canonical(a, ea), cb = std::filesystem::weakly_canonical(b, eb);
    return !ea && !eb && ca == cb;
}

}  // namespace

void printImported(const hprof::DumpStats& s, bool verbose, std::ostream& out) {
    out << "GC " << s.gc << ": " << s.path << (s.gzip ? " (gzip)" : "") << ": " << formatCount(s.objects)
        << " objects, " << formatBytes(s.bytes) << " (" << formatCount(s.instances) << " instances, "
        << formatCount(s.arrays) << " arrays, " << formatCount(s.mirrors) << " classes), "
        << formatCount(s.edges) << " references, " << formatCount(s.roots) << " roots, " << s.threads
        << " threads; " << modelName(s.model);
    if (!s.corrections.empty()) out << ", " << s.corrections.size() << " class sizes from addresses";
    if (s.region_counts) {
        const auto& n = *s.region_counts;
        auto at = [&](RegionRole r) { return n[static_cast<size_t>(r)]; };
        out << ", G1 regions: " << at(RegionRole::kHumongousStart) + at(RegionRole::kHumongousContinues)
            << " humongous (" << at(RegionRole::kHumongousStart) << " objects), " << at(RegionRole::kOld)
            << " old";
        if (at(RegionRole::kUnknown)) out << ", " << at(RegionRole::kUnknown) << " young or old";
        out << ", " << at(RegionRole::kFree) << " free";
    }
    if (s.unlisted_mirrors) out << ", " << formatCount(s.unlisted_mirrors) << " unlisted class mirrors";
    if (s.dropped_edges)
        out << ", " << formatCount(s.dropped_edges) << " references to objects not in the dump";
    out << "; " << formatBytes(s.file_bytes) << " in "
        << formatDuration(static_cast<int64_t>(s.seconds * 1e9)) << "\n";
    if (!s.regions_error.empty()) out << "  no G1 regions: " << s.regions_error << "\n";
    if (verbose)
        for (const std::string& c : s.corrections)
            out << "  size of " << c << "\n";
}

namespace {

int runImport(const Words& words) {
    auto args = Args::parse("import", words);
    if (!args) {
        std::cerr << args.error().message << "\n";
        return 1;
    }
    if (args->help()) return printHelp("import");
    auto out = args->value("--output");
    if (!out || out->empty()) {
        std::cerr << "memcity import: -o OUT.mct is required\n";
        return 1;
    }
    if (args->positionals().empty()) {
        std::cerr << "memcity import: expected one or more heap dumps (FILE.hprof)\n";
        return 1;
    }
    // Written whole or not at all: into a private file beside OUT, renamed over it once every dump
    // is in; a dump that is OUT itself is refused (the import would replace it).
    for (const std::string& dump : args->positionals())
        if (sameFile(dump, *out)) {
            std::cerr << "memcity import: the output " << *out << " is the dump " << dump
                      << " itself: choose another -o\n";
            return 1;
        }
    const std::vector<std::string>& dumps = args->positionals();
    const bool verbose = args->has("--verbose");
    if (Status s = hprof::importWhole(
            dumps, hprof::partialTracePath(*out), *out, {},
            [&](const hprof::DumpStats& stats) { printImported(stats, verbose, std::cout); });
        !s) {
        std::cerr << "error: " << s.error().message << "\n";
        return 1;
    }
    std::cout << "wrote " << *out << "\n";
    return 0;
}

}  // namespace

extern const Command kImport{
    .name = "import",
    .summary = "turn heap dumps (HPROF) into a trace, one GC per dump",
    .usage = R"(usage: memcity import DUMP.hprof... -o OUT.mct

Reads heap dumps (jcmd PID GC.heap_dump, -XX:+HeapDumpOnOutOfMemoryError, VisualVM; gzip-
compressed ones too) of one JVM, in the order given, and writes a trace with one full GC per
dump: its objects with the sizes the JVM counts, every reference and GC root, its threads.
A dump has no allocation sites and no object identity across dumps: between two dumps every
object reads as died and born again (docs/hprof.md). 'memcity FILE.hprof' opens one directly.

)",
    .options =
        {
            {"--output", "FILE", "-o", "where to write the trace (required)"},
            {"--verbose", "", "-v", "list the classes whose size the objects' addresses corrected"},
        },
    .import_dumps = false,
    .run = [](const Words& a, const Services&) { return runImport(a); },
};

}  // namespace memcity::cli
