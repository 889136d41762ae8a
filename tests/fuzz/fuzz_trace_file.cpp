// libFuzzer target: any bytes (their chunks' checksums repaired) as a trace file that grows while
// it is read, as one does while its recorder runs: the first part written under the writer's
// lock, TraceFile::open, the rest appended in pieces with grow() after each, the lock let go,
// grow() once more; then the analysis pipeline on it (fuzz_pipeline.h). The last input byte
// picks where the file is cut and the pipeline's classifiers, filter and GC.
// Every outcome must be a value or a one-line error; crashes and undefined behaviour are bugs.
#include <fcntl.h>
#include <sys/file.h>
#include <unistd.h>

#include <algorithm>
#include <cstddef>
#include <cstdint>
#include <cstdlib>
#include <string>
#include <vector>

#include "fuzz/fuzz_pipeline.h"
#include "fuzz/repair_checksums.h"
#include "heap/heap_history.h"
#include "trace/trace_reader.h"

namespace {

void appendAll(int fd, const uint8_t* data, size_t size) {
    while (size > 0) {
        const ssize_t n = ::write(fd, data, size);
        if (n <= 0) std::abort();
        data += n;
        size -= static_cast<size_t>(n);
    }
}

void checkOneLine(const memcity::Error& e) {
    if (e.message.find('\n') != std::string::npos) std::abort();
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
    using namespace memcity;
    if (size < 2) return 0;
    const uint8_t pick = data[size - 1];
    const std::vector<uint8_t> input = fuzz::withRepairedChecksums(data, size - 1);
    const std::string path = fuzz::workDirectory() + "/growing.mct";

    // The writer: the file under its lock, the first part in it.
    const int fd = ::open(path.c_str(), O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0600);
    if (fd < 0 || ::flock(fd, LOCK_EX | LOCK_NB) != 0) std::abort();
    // Three cuts in order: at 0, 1/4, 2/4 or 3/4; at 2/4 or 3/4 (no earlier than the first); the end.
    const size_t first = input.size() * (pick & 3) / 4;
    const size_t cuts[] = {first, std::max(first, input.size() * (2 + ((pick >> 2) & 1)) / 4), input.size()};
    appendAll(fd, input.data(), cuts[0]);
    auto file = TraceFile::open(path);
    size_t written = cuts[0];
    for (size_t cut : cuts) {
        appendAll(fd, input.data() + written, cut - written);
        written = cut;
        if (file.ok()) {
            if (auto grown = file->grow(); !grown.ok()) checkOneLine(grown.error());
        }
    }
    ::close(fd);  // the writer goes (its lock with it)
    if (!file.ok()) {
        checkOneLine(file.error());
        return 0;
    }
    if (auto grown = file->grow(); !grown.ok())
        checkOneLine(grown.error());
    else if (file->beingWritten())
        std::abort();  // its writer is gone

    HistoryOptions options;
    options.checkpoint_events = 64;  // exercise checkpoints on small inputs
    auto history = HeapHistory::build(*file, options);
    if (!history.ok()) {
        checkOneLine(history.error());
        return 0;
    }
    fuzz::analyseHistory(*history, pick >> 3);
    return 0;
}
