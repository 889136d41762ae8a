#include "heap/ref_graph.h"

#include <algorithm>

namespace memcity {

namespace {
size_t varintLength(uint64_t v) {
    size_t n = 1;
    while (v >= 0x80) {
        v >>= 7;
        ++n;
    }
    return n;
}
uint64_t zigzag(int64_t v) {
    return (static_cast<uint64_t>(v) << 1) ^ static_cast<uint64_t>(v >> 63);
}
uint8_t* putVarint(uint8_t* p, uint64_t v) {
    while (v >= 0x80) {
        *p++ = static_cast<uint8_t>(v | 0x80);
        v >>= 7;
    }
    *p++ = static_cast<uint8_t>(v);
    return p;
}
bool testAndSet(std::vector<uint64_t>& bits, uint32_t i) {
    uint64_t mask = uint64_t{1} << (i & 63);
    bool was = (bits[i >> 6] & mask) != 0;
    bits[i >> 6] |= mask;
    return was;
}
}  // namespace

size_t RefGraph::encodedLength(uint32_t source, std::span<const uint32_t> t) {
    if (t.empty()) return 0;
    size_t n = varintLength(zigzag(static_cast<int64_t>(t[0]) - static_cast<int64_t>(source)));
    for (size_t i = 1; i < t.size(); ++i)
        n += varintLength(t[i] - t[i - 1]);
    return n;
}

uint8_t* RefGraph::encode(uint8_t* out, uint32_t source, std::span<const uint32_t> t) {
    if (t.empty()) return out;
    out = putVarint(out, zigzag(static_cast<int64_t>(t[0]) - static_cast<int64_t>(source)));
    for (size_t i = 1; i < t.size(); ++i)
        out = putVarint(out, t[i] - t[i - 1]);
    return out;
}

size_t RefGraph::degree(size_t pos) const {
    size_t n = 0;
    forEachTarget(pos, [&](uint32_t) { ++n; });
    return n;
}

size_t RefGraph::memoryBytes() const {
    return length_.capacity() + block_offset_.capacity() * sizeof(uint64_t) + data_.capacity() +
           long_lists_.size() * 32 + long_lists_.bucket_count() * sizeof(void*);
}

RefGraphBuilder::RefGraphBuilder(size_t node_count) {
    g_.length_.assign(node_count, 0);
    seen_.assign((node_count + 63) / 64, 0);
}

bool RefGraphBuilder::measure(uint32_t source, std::span<uint32_t> targets) {
    if (testAndSet(seen_, source)) return false;
    std::sort(targets.begin(), targets.end());
    size_t len = RefGraph::encodedLength(source, targets);
    if (len >= 255) {
        g_.length_[source] = 255;
        g_.long_lists_[source] = len;
    } else {
        g_.length_[source] = static_cast<uint8_t>(len);
    }
    g_.edges_ += targets.size();
    return true;
}

void RefGraphBuilder::layout() {
    size_t n = g_.length_.size();
    constexpr size_t kBlock = RefGraph::kBlock;
    g_.block_offset_.assign((n + kBlock - 1) / kBlock + 1, 0);
    uint64_t off = 0;
    for (size_t pos = 0; pos < n; ++pos) {
        if (pos % kBlock == 0) g_.block_offset_[pos / kBlock] = off;
        off += g_.listLength(pos);
    }
    g_.block_offset_.back() = off;
    g_.data_.assign(off + 8, 0);  // slack: the decoder may peek one byte past a list
    seen_.clear();
    seen_.shrink_to_fit();
    done_.assign((n + 63) / 64, 0);
}

void RefGraphBuilder::write(uint32_t source, std::span<uint32_t> targets) {
    if (testAndSet(done_, source)) return;
    std::sort(targets.begin(), targets.end());
    RefGraph::encode(g_.data_.data() + g_.listOffset(source), source, targets);
}

RefGraph RefGraphBuilder::finish() {
    done_.clear();
    done_.shrink_to_fit();
    return std::move(g_);
}

}  // namespace memcity
