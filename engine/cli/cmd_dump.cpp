// memcity dump PID --every SECONDS [--count N] [--all] [--keep] [--live] -o OUT.mct: heap dumps
// of a running JVM, taken through its attach mechanism (as jcmd PID GC.heap_dump does), each
// imported into the trace as it arrives and then deleted.
#include <signal.h>
#include <sys/stat.h>
#include <unistd.h>

#include <cerrno>
#include <cstring>

#include <atomic>
#include <chrono>
#include <filesystem>
#include <iostream>
#include <memory>
#include <system_error>
#include <thread>

#include "cli/args.h"
#include "cli/commands.h"
#include "cli/jvm_attach.h"
#include "cli/jvm_target_args.h"
#include "cli/raw_dump.h"
#include "cli/text_format.h"
#include "hprof/hprof_import.h"
#include "util/parallel.h"

namespace memcity::cli {

void printImported(const hprof::DumpStats& s, bool verbose, std::ostream& out);

Status checkWrittenDump(const std::string& path, uid_t owner) {
    struct stat st {};
    if (::lstat(path.c_str(), &st) != 0)
        return Error{path + ": the JVM did not write it: " + std::strerror(errno)};
    if (!S_ISREG(st.st_mode))
        return Error{path + ": not a regular file (a link or something else is in the dump's place)"};
    if (st.st_uid != owner)
        return Error{path + ": belongs to uid " + std::to_string(st.st_uid) + ", not to the JVM's uid " +
                     std::to_string(owner)};
    if (st.st_nlink != 1) return Error{path + ": has other names (a hard link): not the dump the JVM wrote"};
    if (st.st_size == 0) return Error{path + ": the JVM wrote an empty dump"};
    return {};
}

namespace {

// A fresh directory only we can enter (mkdtemp: mode 0700, a name nobody could predict), where
// the JVM writes the raw dumps: nothing another user planted can be taken for one. Removed, with
// what is left in it, when it goes.
class PrivateDumpDirectory {
public:
    static Result<std::unique_ptr<PrivateDumpDirectory>> create() {
        std::error_code ec;
        const std::filesystem::path base = std::filesystem::temp_directory_path(ec);
        if (ec) return Error{"memcity dump: no directory for temporary files: " + ec.message()};
        std::string name = (base / "memcity-dump-XXXXXX").string();
        if (!::mkdtemp(name.data()))
            return Error{name.substr(0, name.size() - 6) +
                         "*: cannot create a private directory for the dumps: " + std::strerror(errno)};
        return std::unique_ptr<PrivateDumpDirectory>(new PrivateDumpDirectory(name));
    }
    ~PrivateDumpDirectory() {
        std::error_code ec;
        std::filesystem::remove_all(path_, ec);
    }
    PrivateDumpDirectory(const PrivateDumpDirectory&) = delete;
    PrivateDumpDirectory& operator=(const PrivateDumpDirectory&) = delete;
    const std::string& path() const { return path_; }

private:
    explicit PrivateDumpDirectory(std::string path) : path_(std::move(path)) {}
    std::string path_;
};

using Clock = std::chrono::steady_clock;
using namespace std::chrono_literals;

struct DumpOptions {
    pid_t pid = 0;
    std::string out;
    double every_s = 10;
    uint64_t count = 0;  // 0: until the JVM exits or Ctrl-C
    bool all = false, keep = false, verbose = false;
};

// The dumps: one every `every_s`, until `stop` says so, the count is reached or the JVM is gone.
// Returns the number imported; `why` says how it ended.
Result<uint64_t> dumpLoop(const DumpOptions& o, const std::function<bool()>& stop, std::string* why) {
    auto importer = hprof::Importer::create(o.out, "memcity dump");
    if (!importer) return importer.error();
    namespace fs = std::filesystem;
    // Kept dumps go next to the output (the user's own choice of directory); the others into a
    // private directory of this run.
    std::unique_ptr<PrivateDumpDirectory> private_dir;
    if (!o.keep) {
        auto made = PrivateDumpDirectory::create();
        if (!made) {
            (void)(*importer)->close();
            return made.error();
        }
        private_dir = std::move(*made);
    }
    // Under G1, its region grid (HPROF has none): the dumps' objects are placed into it.
    if (auto info = attachOperation(o.pid, "jcmd", {"GC.heap_info", "", ""}, 60); info && info->code == 0)
        if (const auto grid = hprof::parseG1HeapInfo(info->text)) {
            (*importer)->placeInG1Regions(*grid, !o.all);
            std::cout << "G1 heap: " << ((grid->end - grid->bottom) >> grid->shift) << " regions of "
                      << formatBytes(uint64_t{1} << grid->shift)
                      << " (jcmd GC.heap_info); each dump's objects are placed into them\n";
        }
    const fs::path raw_dir = o.keep ? fs::path(o.out).parent_path() : fs::path(private_dir->path());
    const std::string stem = fs::path(o.out).stem().string();
    uint64_t taken = 0;
    auto next = Clock::now();
    *why = "";
    while (o.count == 0 || taken < o.count) {
        while (Clock::now() < next) {
            if (stop()) {
                *why = "stopped";
                break;
            }
            std::this_thread::sleep_for(50ms);
        }
        if (!why->empty()) break;
        next += std::chrono::duration_cast<Clock::duration>(std::chrono::duration<double>(o.every_s));
        const std::string raw = fs::absolute(raw_dir / (stem + "-" + std::to_string(o.pid) + "-" +
                                                        std::to_string(taken) + ".hprof"))
                                    .string();
        std::error_code ec;
        fs::remove(raw, ec);
        // (HotSpot does not overwrite a file, and answers as if it had written it.)
        if (struct stat st{}; ::lstat(raw.c_str(), &st) == 0) {
            (void)(*importer)->close();
            return Error{raw + ": is in the way of the dump and cannot be removed"};
        }
        // The pause: the whole operation, from the request to the JVM's answer (a full GC first,
        // unless --all, then the dump written, all at one safepoint) is its upper bound.
        const auto t0 = Clock::now();
        auto reply = attachOperation(
            o.pid, "jcmd", {"GC.heap_dump " + std::string(o.all ? "-all " : "") + raw, "", ""}, 600);
        const double op_s = std::chrono::duration<double>(Clock::now() - t0).count();
        if (!reply) {
            if (kill(o.pid, 0) != 0 && taken > 0) {
                *why = "the JVM exited";
                break;
            }
            (void)(*importer)->close();
            return reply.error();
        }
        if (reply->code != 0 || !fs::exists(raw, ec)) {
            (void)(*importer)->close();
            std::string text = reply->text;
            while (!text.empty() && (text.back() == '\n' || text.back() == '\r'))
                text.pop_back();
            return Error{"process " + std::to_string(o.pid) +
                         " did not write its heap dump: " + (text.empty() ? "no reason given" : text)};
        }
        // The JVM runs as our user (checkAttachable refuses another's).
        if (Status written = checkWrittenDump(raw, ::geteuid()); !written.ok()) {
            (void)(*importer)->close();
            return written.error();
        }
        auto stats = (*importer)->add(raw, static_cast<uint64_t>(op_s * 1e9));
        if (!o.keep) fs::remove(raw, ec);
        if (!stats) {
            (void)(*importer)->close();
            return stats.error();
        }
        (*importer)->flush();
        ++taken;
        // "Heap dump file created [N bytes in X secs]": the JVM's own time for the dump.
        std::string jvm_said;
        if (auto in = reply->text.find(" bytes in "); in != std::string::npos) {
            const size_t from = in + 10, to = reply->text.find(" secs", from);
            if (to != std::string::npos)
                jvm_said = ", the JVM wrote it in " + reply->text.substr(from, to - from) + " s";
        }
        std::cout << "pause <= " << formatDuration(static_cast<int64_t>(op_s * 1e9)) << jvm_said << "; ";
        printImported(*stats, o.verbose, std::cout);
        std::cout.flush();
    }
    if (Status s = (*importer)->close(); !s.ok()) return s.error();
    return taken;
}

int runDump(const Words& words, const LiveView& live) {
    auto args = Args::parse("dump", words);
    if (!args) {
        std::cerr << args.error().message << "\n";
        return 1;
    }
    if (args->help()) return printHelp("dump");
    auto pid = parsePid(*args, "dump");
    if (!pid) {
        std::cerr << pid.error().message << "\n";
        return 1;
    }
    DumpOptions o;
    o.pid = *pid;
    auto out = args->value("--output");
    if (!out || out->empty()) {
        std::cerr << "memcity dump: -o OUT.mct is required\n";
        return 1;
    }
    o.out = *out;
    if (auto every = args->value("--every")) {
        char* end = nullptr;
        o.every_s = std::strtod(every->c_str(), &end);
        if (end == every->c_str() || *end != '\0' || !(o.every_s >= 0.1) || o.every_s > 86400) {
            std::cerr << "memcity dump: --every expects seconds between 0.1 and 86400, got '" << *every
                      << "'\n";
            return 1;
        }
    }
    auto count = args->unsignedValue("--count", 0, 1, 1'000'000);
    if (!count) {
        std::cerr << count.error().message << "\n";
        return 1;
    }
    o.count = *count;
    o.all = args->has("--all");
    o.keep = args->has("--keep");
    o.verbose = args->has("--verbose");
    if (auto target = checkAttachable(o.pid); !target) {
        std::cerr << "memcity dump: " << target.error().message << "\n";
        return 1;
    }
    InterruptGuard interrupts;
    std::string why;
    Result<uint64_t> taken = uint64_t{0};
    if (args->has("--live") && live) {
        std::atomic<bool> done{false}, closed{false};
        std::thread worker;
        try {
            worker = std::thread([&] {
                try {
                    taken = dumpLoop(
                        o, [&] { return InterruptGuard::interrupted() || closed.load(); }, &why);
                } catch (...) {  // (std::bad_alloc, most often)
                    taken = Error{describeFailure(std::current_exception())};
                }
                done = true;
            });
        } catch (const std::system_error& e) {
            std::cerr << "memcity dump: cannot start the dumping thread: " << e.what() << "\n";
            return 1;
        }
        // The window waits for the first dump's trace.
        live(o.out, [&] { return !done.load(); }, {});
        closed = true;
        worker.join();
    } else {
        taken = dumpLoop(
            o, [] { return InterruptGuard::interrupted(); }, &why);
    }
    if (!taken) {
        std::cerr << "memcity dump: " << taken.error().message << "\n";
        return 1;
    }
    std::cout << "wrote " << o.out << ": " << *taken << (*taken == 1 ? " dump" : " dumps")
              << (why.empty() ? "" : " (" + why + ")") << "\n";
    return 0;
}

}  // namespace

extern const Command kDump{
    .name = "dump",
    .summary = "heap dumps of a running JVM, every few seconds, into a trace",
    .usage = R"(usage: memcity dump PID -o OUT.mct [--every SECONDS] [--count N] [--all] [--keep] [--live]

Takes a heap dump of the running JVM PID every SECONDS (as jcmd PID GC.heap_dump does: one
pause per dump, a full GC and the dump), imports each into OUT.mct as it arrives (one GC per
dump, as 'memcity import') and deletes it. Ends after N dumps, when the JVM exits, or at
Ctrl-C; the JVM goes on. Each line says the pause: the whole operation's time, an upper bound.
Under G1 it also asks the JVM for its region grid (jcmd PID GC.heap_info), which a dump does not
hold, and places each dump's objects into it for the heap map (docs/heapmap.md).

)",
    .options =
        {
            {"--output", "FILE", "-o", "where to write the trace (required)"},
            {"--every", "SECONDS", "", "time between two dumps' starts (default 10)"},
            {"--count", "N", "", "stop after N dumps (default: until the JVM exits or Ctrl-C)"},
            {"--all", "", "", "dump unreachable objects too (no full GC before each dump)"},
            {"--keep", "", "", "keep the raw dumps, next to OUT (OUT-PID-K.hprof)"},
            {"--live", "", "", "watch the trace in a window as the dumps arrive"},
            {"--verbose", "", "-v", "list the classes whose size the objects' addresses corrected"},
        },
    .import_dumps = false,
    .run = [](const Words& a, const Services& s) { return runDump(a, s.live); },
};

}  // namespace memcity::cli
