// SlowCopy: a finished trace written again, chunk by chunk, as a recorder writes it: for tests of
// readers that follow a trace still being written.
#pragma once

#include <fcntl.h>
#include <sys/file.h>
#include <unistd.h>

#include <gtest/gtest.h>

#include <atomic>
#include <chrono>
#include <string>
#include <thread>
#include <vector>

#include "trace/trace_reader.h"

namespace memcity::testing {

// Copies a finished trace into `to` chunk by chunk, as a recorder writes it: the file locked
// the way TraceWriter locks it, a pause after each chunk, and the footer last, or never (the
// writer died: its lock goes with it).
class SlowCopy {
public:
    SlowCopy(const std::string& from, std::string to, std::chrono::milliseconds pause, bool footer)
        : to_(std::move(to)) {
        auto source = TraceFile::open(from);
        EXPECT_TRUE(source.ok());
        fd_ = ::open(to_.c_str(), O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0644);
        EXPECT_GE(fd_, 0);
        EXPECT_EQ(::flock(fd_, LOCK_EX | LOCK_NB), 0);
        bytes_ = readAll(from);
        for (const ChunkRef& c : source->chunks())
            ends_.push_back(c.end());
        // The header and the first chunk (meta, symbols) are there before the reader comes.
        put(0, ends_.front());
        thread_ = std::thread([this, pause, footer] {
            for (size_t i = 1; i < ends_.size(); ++i) {
                std::this_thread::sleep_for(pause);
                put(ends_[i - 1], ends_[i]);
                chunks_written_ = i + 1;
            }
            if (footer) put(ends_.back(), bytes_.size());
            ::close(fd_);
            done_ = true;
        });
    }
    ~SlowCopy() { thread_.join(); }

    size_t chunks() const { return ends_.size(); }
    size_t chunksWritten() const { return chunks_written_; }
    bool done() const { return done_; }

private:
    static std::string readAll(const std::string& path) {
        std::string out;
        int fd = ::open(path.c_str(), O_RDONLY | O_CLOEXEC);
        char buf[1 << 16];
        for (ssize_t n; (n = ::read(fd, buf, sizeof buf)) > 0;)
            out.append(buf, static_cast<size_t>(n));
        ::close(fd);
        return out;
    }
    void put(uint64_t from, uint64_t to) {
        // In two writes, as TraceWriter writes a chunk's header and payload: a reader may see half.
        const uint64_t mid = from + (to - from) / 2;
        EXPECT_EQ(::write(fd_, bytes_.data() + from, mid - from), static_cast<ssize_t>(mid - from));
        EXPECT_EQ(::write(fd_, bytes_.data() + mid, to - mid), static_cast<ssize_t>(to - mid));
    }

    std::string to_, bytes_;
    std::vector<uint64_t> ends_;
    int fd_ = -1;
    std::atomic<size_t> chunks_written_{1};
    std::atomic<bool> done_{false};
    std::thread thread_;
};

}  // namespace memcity::testing
