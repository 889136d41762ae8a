// RefGraph: the outgoing references of one heap state, between positions [0, n) of that state.
//
// Compressed adjacency: each object's targets are sorted and written as varints (the first
// relative to the object's own position, the rest as gaps), so edges between objects allocated
// close together cost a byte or two. Per object one byte holds the list's length in bytes
// (255 = look in a side table) and every 16 objects share one 64-bit offset. Built in two passes
// over the snapshot: measure every list, then write every list.
#pragma once

#include <cstdint>
#include <span>
#include <unordered_map>
#include <vector>

namespace memcity {

class RefGraph {
public:
    RefGraph() = default;

    size_t nodeCount() const { return length_.size(); }
    uint64_t edgeCount() const { return edges_; }
    size_t memoryBytes() const;

    // Calls f(target_position) for every reference of `pos`, targets ascending (with repeats).
    template <class F>
    void forEachTarget(size_t pos, F&& f) const {
        size_t len = listLength(pos);
        if (len == 0) return;
        const uint8_t* p = data_.data() + listOffset(pos);
        const uint8_t* e = p + len;
        uint64_t v = readVarint(p);
        auto t = static_cast<uint64_t>(static_cast<int64_t>(pos) + unzigzag(v));
        f(static_cast<uint32_t>(t));
        while (p < e) {
            t += readVarint(p);
            f(static_cast<uint32_t>(t));
        }
    }
    size_t degree(size_t pos) const;

    friend class RefGraphBuilder;

private:
    static constexpr size_t kBlock = 16;
    static int64_t unzigzag(uint64_t v) {
        return static_cast<int64_t>(v >> 1) ^ -static_cast<int64_t>(v & 1);
    }
    static uint64_t readVarint(const uint8_t*& p) {
        uint64_t v = *p & 0x7f;
        unsigned shift = 7;
        while (*p++ & 0x80) {
            v |= uint64_t{*p & 0x7fu} << shift;
            shift += 7;
        }
        return v;
    }
    size_t listLength(size_t pos) const {
        uint8_t l = length_[pos];
        return l != 255 ? l : long_lists_.at(static_cast<uint32_t>(pos));
    }
    size_t listOffset(size_t pos) const {
        size_t off = block_offset_[pos / kBlock];
        for (size_t p = pos & ~(kBlock - 1); p < pos; ++p)
            off += listLength(p);
        return off;
    }
    static size_t encodedLength(uint32_t source, std::span<const uint32_t> sorted_targets);
    static uint8_t* encode(uint8_t* out, uint32_t source, std::span<const uint32_t> sorted_targets);

    std::vector<uint8_t> length_;                      // per node: list bytes, 255 = long
    std::unordered_map<uint32_t, size_t> long_lists_;  // node -> list bytes for lists >= 255 bytes
    std::vector<uint64_t> block_offset_;               // per 16 nodes: offset of the first list
    std::vector<uint8_t> data_;
    uint64_t edges_ = 0;
};

// Builds a RefGraph in two passes over the snapshot: measure every list, then write every list.
class RefGraphBuilder {
public:
    explicit RefGraphBuilder(size_t node_count);
    // Pass 1: every source once (any order). Sorts `targets` in place. Returns false, and
    // ignores the list, when `source` was already measured.
    bool measure(uint32_t source, std::span<uint32_t> targets);
    // Between the passes.
    void layout();
    // Pass 2: the same lists again (duplicates are skipped as in pass 1).
    void write(uint32_t source, std::span<uint32_t> targets);
    RefGraph finish();

private:
    RefGraph g_;
    std::vector<uint64_t> seen_;  // bitset of measured sources
    std::vector<uint64_t> done_;  // bitset of written sources
};

}  // namespace memcity
