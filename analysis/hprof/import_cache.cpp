#include "hprof/import_cache.h"

#include <fcntl.h>
#include <pwd.h>
#include <sys/stat.h>
#include <unistd.h>
#include <zlib.h>

#include <algorithm>
#include <cerrno>
#include <cstdlib>
#include <cstring>
#include <filesystem>

#include "live/control_protocol.h"
#include "trace/trace_reader.h"
#include "util/units.h"

namespace memcity::hprof {

namespace fs = std::filesystem;

bool isHeapDump(const std::string& path) {
    const int fd = ::open(path.c_str(), O_RDONLY | O_CLOEXEC);
    if (fd < 0) return false;
    struct stat st {};
    uint8_t head[16] = {};
    const bool regular = ::fstat(fd, &st) == 0 && S_ISREG(st.st_mode);
    ssize_t n = regular ? ::read(fd, head, sizeof head) : 0;
    // A gzip file is a dump only if what it holds is one (a pprof profile is gzip too).
    if (n >= 2 && head[0] == 0x1f && head[1] == 0x8b && ::lseek(fd, 0, SEEK_SET) == 0) {
        gzFile gz = ::gzdopen(fd, "rb");
        if (!gz) {
            ::close(fd);
            return false;
        }
        n = ::gzread(gz, head, sizeof head);
        ::gzclose(gz);  // closes fd
    } else {
        ::close(fd);
    }
    return n > 0 && looksLikeDump({head, static_cast<size_t>(n)});
}

Result<std::string> importCacheDirectory() {
    if (const char* xdg = std::getenv("XDG_CACHE_HOME"); xdg && *xdg)
        return (fs::path(xdg) / "memcity").string();
    if (const char* home = std::getenv("HOME"); home && *home)
        return (fs::path(home) / ".cache" / "memcity").string();
    if (const passwd* pw = ::getpwuid(::getuid()); pw && pw->pw_dir && pw->pw_dir[0] == '/')
        return (fs::path(pw->pw_dir) / ".cache" / "memcity").string();
    std::error_code ec;
    const fs::path tmp = fs::temp_directory_path(ec);
    if (ec)
        return Error{
            "no cache for imported heap dumps: no HOME, no home directory and no temporary directory"};
    auto dir = privateCacheDirectory(tmp.string(), ::getuid());
    if (!dir)
        return Error{"no cache for imported heap dumps (no HOME, no home directory): " + dir.error().message};
    return dir;
}

Result<std::string> privateCacheDirectory(const std::string& base, uid_t uid) {
    const std::string dir = (fs::path(base) / ("memcity-cache-" + std::to_string(uid))).string();
    // (The same check as the control channel's socket directory.)
    if (Status s = live::ensurePrivateDirectory(dir, uid); !s.ok()) return s.error();
    return dir;
}

Result<CachedImport> cachedImportOf(const std::string& path) {
    std::error_code ec;
    const fs::path absolute = fs::absolute(path, ec);
    struct stat st {};
    if (::stat(path.c_str(), &st) != 0) return Error{path + ": cannot be read"};
    // The same dump: its path, size and modification time.
    const std::string key = std::to_string(std::hash<std::string>{}(absolute.string())) + "-" +
                            std::to_string(st.st_size) + "-" + std::to_string(st.st_mtim.tv_sec);
    // A directory per dump, the trace named after it: titles and messages show "app.hprof.mct".
    auto cache = importCacheDirectory();
    if (!cache) return Error{path + ": " + cache.error().message};
    const fs::path dir = fs::path(*cache) / "imports" / key;
    fs::create_directories(dir, ec);
    if (ec) return Error{dir.string() + ": " + ec.message()};
    CachedImport place;
    place.dump = path;
    place.dir = dir.string();
    place.trace = (dir / (absolute.filename().string() + ".mct")).string();
    place.partial = partialTracePath(place.trace);
    place.dump_bytes = static_cast<uint64_t>(st.st_size);
    if (fs::exists(place.trace, ec))
        if (auto t = TraceFile::open(place.trace); t.ok() && t->hadFooterIndex()) {
            fs::last_write_time(place.trace, fs::file_time_type::clock::now(), ec);  // used now: pruned last
            place.ready = true;
        }
    return place;
}

std::string partialTracePath(const std::string& trace) {
    return trace + "." + std::to_string(::getpid()) + ".part";
}

Status importWhole(std::span<const std::string> dumps, const std::string& partial, const std::string& trace,
                   Progress progress, const std::function<void(const DumpStats&)>& imported) {
    std::error_code ec;
    auto importer = Importer::create(partial, "memcity import");
    if (!importer) return importer.error();
    (*importer)->onProgress(std::move(progress));
    for (const std::string& dump : dumps) {
        auto stats = (*importer)->add(dump);
        if (!stats) {
            (*importer)->abandon();
            fs::remove(partial, ec);
            return stats.error();
        }
        if (imported) imported(*stats);
    }
    if (Status s = (*importer)->close(); !s.ok()) {
        fs::remove(partial, ec);
        return s.error();
    }
    fs::rename(partial, trace, ec);
    if (ec) {
        std::error_code ignored;
        fs::remove(partial, ignored);
        return Error{trace + ": " + ec.message()};
    }
    return {};
}

Result<PruneResult> importIntoCache(const CachedImport& place, Progress progress) {
    if (Status s = importWhole(std::span<const std::string>(&place.dump, 1), place.partial, place.trace,
                               std::move(progress));
        !s)
        return s.error();
    return pruneImports((fs::path(place.dir).parent_path()).string(), place.dir, importCacheLimit(),
                        std::chrono::hours(24 * 30));
}

uint64_t importCacheLimit() {
    uint64_t bytes = 0;
    if (const char* text = std::getenv("MEMCITY_CACHE_MAX"); text && parseBytes(text, &bytes) && bytes > 0)
        return bytes;
    return uint64_t{8} << 30;
}

PruneResult pruneImports(const std::string& imports, const std::string& keep, uint64_t max_bytes,
                         std::chrono::seconds max_age) {
    struct Entry {
        fs::path dir;
        uint64_t bytes = 0;
        fs::file_time_type used = fs::file_time_type::min();
    };
    std::error_code ec;
    const auto now = fs::file_time_type::clock::now();
    const fs::path kept = fs::weakly_canonical(keep, ec);
    PruneResult result;
    // The regular files of a directory (none where it cannot be read).
    auto filesIn = [](const fs::path& dir) {
        std::vector<fs::directory_entry> files;
        std::error_code e;
        for (fs::directory_iterator it(dir, e), end; !e && it != end; it.increment(e))
            if (std::error_code f; it->is_regular_file(f)) files.push_back(*it);
        return files;
    };
    std::vector<Entry> entries;
    uint64_t total = 0;  // of the import kept
    std::vector<fs::path> dirs;
    for (fs::directory_iterator it(imports, ec), end; !ec && it != end; it.increment(ec))
        if (std::error_code e; it->is_directory(e)) dirs.push_back(it->path());
    for (const fs::path& dir : dirs) {
        const bool is_kept = fs::weakly_canonical(dir, ec) == kept;
        Entry e{dir};
        bool finished = false;
        for (const fs::directory_entry& f : filesIn(dir)) {
            std::error_code fe;
            const uint64_t size = f.file_size(fe);
            const fs::file_time_type time = f.last_write_time(fe);
            if (fe) continue;
            if (f.path().extension() == ".part") {
                // An import that did not finish (a day is longer than any import takes).
                if (now - time > std::chrono::hours(24) && fs::remove(f.path(), fe)) result.freed += size;
                continue;
            }
            finished = true;
            e.bytes += size;
            e.used = std::max(e.used, time);
        }
        if (is_kept)
            total += e.bytes;
        else if (finished)  // (a directory with only an import under way stays)
            entries.push_back(std::move(e));
    }
    // The most recently opened first: they stay while they fit; the first that does not, and
    // every older one, go.
    std::sort(entries.begin(), entries.end(), [](const Entry& a, const Entry& b) { return a.used > b.used; });
    bool full = false;
    for (const Entry& e : entries) {
        full = full || now - e.used > max_age || total + e.bytes > max_bytes;
        if (!full) {
            total += e.bytes;
            continue;
        }
        if (std::error_code re; fs::remove_all(e.dir, re) != static_cast<std::uintmax_t>(-1) && !re) {
            ++result.removed;
            result.freed += e.bytes;
        }
    }
    return result;
}

}  // namespace memcity::hprof
