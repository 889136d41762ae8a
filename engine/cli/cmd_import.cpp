// memcity import DUMP.hprof... -o OUT.mct: heap dumps into a trace, one GC per dump.
#include <iostream>

#include "cli/args.h"
#include "cli/commands.h"
#include "cli/text_format.h"
#include "hprof/hprof_import.h"

namespace memcity::cli {

namespace {

std::string modelName(const hprof::ObjectModel& m) {
    if (m.header == 8) return "compact headers";
    if (m.oop == 4) return "compressed oops";
    return m.header == 12 ? "uncompressed oops" : "uncompressed oops and class pointers";
}

}  // namespace

void printImported(const hprof::DumpStats& s, bool verbose, std::ostream& out) {
    out << "GC " << s.gc << ": " << s.path << (s.gzip ? " (gzip)" : "") << ": " << formatCount(s.objects)
        << " objects, " << formatBytes(s.bytes) << " (" << formatCount(s.instances) << " instances, "
        << formatCount(s.arrays) << " arrays, " << formatCount(s.mirrors) << " classes), "
        << formatCount(s.edges) << " references, " << formatCount(s.roots) << " roots, " << s.threads
        << " threads; " << modelName(s.model);
    if (!s.corrections.empty()) out << ", " << s.corrections.size() << " class sizes from addresses";
    if (s.unlisted_mirrors) out << ", " << formatCount(s.unlisted_mirrors) << " unlisted class mirrors";
    if (s.dropped_edges)
        out << ", " << formatCount(s.dropped_edges) << " references to objects not in the dump";
    out << "; " << formatBytes(s.file_bytes) << " in "
        << formatDuration(static_cast<int64_t>(s.seconds * 1e9)) << "\n";
    if (verbose)
        for (const std::string& c : s.corrections)
            out << "  size of " << c << "\n";
}

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
    auto importer = hprof::Importer::create(*out, "memcity import");
    if (!importer) {
        std::cerr << "error: " << importer.error().message << "\n";
        return 1;
    }
    for (const std::string& dump : args->positionals()) {
        auto stats = (*importer)->add(dump);
        if (!stats) {
            std::cerr << "error: " << stats.error().message << "\n";
            (void)(*importer)->close();
            return 1;
        }
        printImported(*stats, args->has("--verbose"), std::cout);
    }
    if (Status s = (*importer)->close(); !s.ok()) {
        std::cerr << "error: " << s.error().message << "\n";
        return 1;
    }
    std::cout << "wrote " << *out << "\n";
    return 0;
}

}  // namespace memcity::cli
