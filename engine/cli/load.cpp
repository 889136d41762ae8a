#include "cli/load.h"

#include <unistd.h>

#include <cstdio>
#include <filesystem>
#include <iostream>
#include <ostream>

#include "cli/text_format.h"
#include "util/parallel.h"

#ifndef MEMCITY_DEMO_TRACE
#define MEMCITY_DEMO_TRACE ""
#endif

namespace memcity::cli {

Result<LoadedTrace> loadTrace(const std::string& path, const LoadOptions& options) {
    auto file = TraceFile::open(path);
    if (!file) return file.error();
    LoadedTrace t;
    t.trace = std::make_unique<TraceFile>(std::move(*file));
    HistoryOptions ho;
    ho.reachability = options.reachability;
    ho.threads = defaultThreads();
    const bool tty = options.progress && ::isatty(STDERR_FILENO);
    if (tty) {
        ho.progress = Progress([&](const ProgressReport& p) {
            std::fprintf(stderr, "\rreading %s: %s (%s, %u GCs)   ", path.c_str(),
                         formatPercent(p.fraction).c_str(), formatBytes(p.position).c_str(),
                         static_cast<uint32_t>(p.count));
            std::fflush(stderr);
            return true;
        });
    }
    auto history = HeapHistory::build(*t.trace, ho);
    if (tty) std::fprintf(stderr, "\r\033[K");
    if (!history) return history.error();
    t.history = std::make_unique<HeapHistory>(std::move(*history));
    return t;
}

void printDiagnostics(const LoadedTrace& t, std::ostream& err, bool errors_are_errors) {
    std::fflush(stdout);
    std::cout.flush();
    for (const std::string& w : t.trace->warnings())
        err << "warning: " << w << "\n";
    if (t.trace->truncated()) err << "warning: " << t.trace->truncationNote() << "\n";
    if (t.trace->unknownChunkCount() > 0)
        err << "warning: " << t.trace->path() << ": skipped " << t.trace->unknownChunkCount()
            << " chunks of kinds this memcity does not know (written by a newer version)\n";
    const Diagnostics& d = t.history->diagnostics();
    for (size_t i = 0; i < Diagnostics::kKinds; ++i) {
        auto a = static_cast<Anomaly>(i);
        const AnomalyRecord& r = d[a];
        if (r.count == 0) continue;
        bool error = Diagnostics::isError(a);
        err << (error && errors_are_errors ? "error: " : error ? "warning: " : "note: ") << r.first;
        if (r.count > 1)
            err << " (and " << formatCount(r.count - 1) << " more " << Diagnostics::description(a) << ")";
        err << "\n";
    }
}

std::string demoTracePath() {
    std::string compiled = MEMCITY_DEMO_TRACE;
    if (!compiled.empty() && std::filesystem::exists(compiled)) return compiled;
    // Next to the executable: ./assets/demo.mct
    std::error_code ec;
    auto exe = std::filesystem::read_symlink("/proc/self/exe", ec);
    if (!ec) {
        auto candidate = exe.parent_path() / "assets" / "demo.mct";
        if (std::filesystem::exists(candidate)) return candidate.string();
    }
    return {};
}

}  // namespace memcity::cli
