#include "cli/dump_open.h"

#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>

#include <cstdlib>
#include <filesystem>
#include <iostream>

#include "cli/text_format.h"
#include "hprof/hprof_import.h"
#include "trace/trace_reader.h"

namespace memcity::cli {

namespace fs = std::filesystem;

bool isHeapDump(const std::string& path) {
    const int fd = ::open(path.c_str(), O_RDONLY | O_CLOEXEC);
    if (fd < 0) return false;
    struct stat st {};
    uint8_t head[16] = {};
    const bool regular = ::fstat(fd, &st) == 0 && S_ISREG(st.st_mode);
    const ssize_t n = regular ? ::read(fd, head, sizeof head) : 0;
    ::close(fd);
    return n > 0 && hprof::looksLikeDump({head, static_cast<size_t>(n)});
}

namespace {

fs::path cacheDir() {
    if (const char* xdg = std::getenv("XDG_CACHE_HOME"); xdg && *xdg) return fs::path(xdg) / "memcity";
    if (const char* home = std::getenv("HOME"); home && *home) return fs::path(home) / ".cache" / "memcity";
    return fs::temp_directory_path() / "memcity-cache";
}

}  // namespace

Result<std::string> traceOfDump(const std::string& path) {
    std::error_code ec;
    const fs::path absolute = fs::absolute(path, ec);
    struct stat st {};
    if (::stat(path.c_str(), &st) != 0) return Error{path + ": cannot be read"};
    // The same dump: its path, size and modification time.
    const std::string key = std::to_string(std::hash<std::string>{}(absolute.string())) + "-" +
                            std::to_string(st.st_size) + "-" + std::to_string(st.st_mtim.tv_sec);
    // A directory per dump, the trace named after it: titles and messages show "app.hprof.mct".
    const fs::path dir = cacheDir() / "imports" / key;
    fs::create_directories(dir, ec);
    if (ec) return Error{dir.string() + ": " + ec.message()};
    const fs::path trace = dir / (absolute.filename().string() + ".mct");
    if (fs::exists(trace, ec))
        if (auto t = TraceFile::open(trace.string()); t.ok() && t->hadFooterIndex()) return trace.string();
    std::cerr << "importing " << path << " (" << formatBytes(static_cast<uint64_t>(st.st_size)) << ") into "
              << trace.string() << "\n";
    const fs::path partial = trace.string() + ".part";
    auto importer = hprof::Importer::create(partial.string(), "memcity import");
    if (!importer) return importer.error();
    auto stats = (*importer)->add(path);
    if (!stats) {
        (void)(*importer)->close();
        fs::remove(partial, ec);
        return stats.error();
    }
    if (Status s = (*importer)->close(); !s.ok()) return s.error();
    fs::rename(partial, trace, ec);
    if (ec) return Error{trace.string() + ": " + ec.message()};
    return trace.string();
}

Status openDumpsIn(std::vector<std::string>& words) {
    for (std::string& w : words) {
        if (w.empty() || w[0] == '-' || !isHeapDump(w)) continue;
        auto trace = traceOfDump(w);
        if (!trace) return trace.error();
        w = *trace;
    }
    return Status{};
}

}  // namespace memcity::cli
