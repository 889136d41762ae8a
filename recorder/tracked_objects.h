// tracked_objects.h: the objects a thread allocated whose deaths JNI weak references tell (see
// Recorder::scanWeak), in allocation order.
#pragma once

#include <jni.h>

#include <algorithm>
#include <cstddef>
#include <cstdint>
#include <memory>
#include <vector>

namespace memcity::agent {

// Grows by blocks that stay where they are: an append never copies the entries already there
// (a thread may track millions of objects between two GCs, javac three million), and the blocks
// a GC empties are kept for the objects to come.
class TrackedObjects {
public:
    struct Entry {
        jweak ref;
        uint64_t bits;  // id << 1 | tagged

        uint64_t id() const { return bits >> 1; }
        // A heap walk's tag is on the object (see Recorder::prepareWalk).
        bool tagged() const { return bits & 1; }
        void setTagged() { bits |= 1; }
    };
    static_assert(sizeof(Entry) == 16);

    size_t size() const { return size_; }
    Entry& operator[](size_t i) { return blocks_[i >> kShift][i & kMask]; }
    const Entry& operator[](size_t i) const { return blocks_[i >> kShift][i & kMask]; }

    void push(jweak ref, uint64_t id, bool tagged) {
        // Entries are written before they are read: a new block is left uninitialised.
        if (size_ == blocks_.size() << kShift) blocks_.emplace_back(new Entry[kBlock]);
        (*this)[size_++] = Entry{ref, id << 1 | (tagged ? 1u : 0u)};
    }
    // Keeps the first n entries.
    void truncate(size_t n) { size_ = std::min(size_, n); }
    // Drops every entry and block.
    void clear() {
        blocks_.clear();
        size_ = 0;
    }

private:
    static constexpr size_t kShift = 14;  // 16,384 entries, 256 KiB a block
    static constexpr size_t kBlock = size_t{1} << kShift, kMask = kBlock - 1;
    std::vector<std::unique_ptr<Entry[]>> blocks_;
    size_t size_ = 0;
};

}  // namespace memcity::agent
