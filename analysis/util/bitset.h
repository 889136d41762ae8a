// A fixed-size set of heap positions, one bit each (ManLang18 §4.2: closures as bit sets, so that
// closures of tree nodes combine with or/and and cost n/8 bytes however many objects they hold).
#pragma once

#include <bit>
#include <cstdint>
#include <vector>

namespace memcity {

class Bitset {
public:
    Bitset() = default;
    explicit Bitset(size_t size) : size_(size), words_((size + 63) / 64, 0) {}

    size_t size() const { return size_; }
    bool test(size_t i) const { return (words_[i >> 6] >> (i & 63)) & 1; }
    void set(size_t i) { words_[i >> 6] |= uint64_t{1} << (i & 63); }
    void reset(size_t i) { words_[i >> 6] &= ~(uint64_t{1} << (i & 63)); }
    // Sets bit i and returns whether it was clear.
    bool insert(size_t i) {
        uint64_t& w = words_[i >> 6];
        const uint64_t m = uint64_t{1} << (i & 63);
        if (w & m) return false;
        w |= m;
        return true;
    }

    size_t count() const {
        size_t n = 0;
        for (uint64_t w : words_)
            n += static_cast<size_t>(std::popcount(w));
        return n;
    }
    bool empty() const {
        for (uint64_t w : words_)
            if (w) return false;
        return true;
    }
    Bitset& operator|=(const Bitset& o) {
        for (size_t i = 0; i < words_.size() && i < o.words_.size(); ++i)
            words_[i] |= o.words_[i];
        return *this;
    }
    Bitset& operator&=(const Bitset& o) {
        for (size_t i = 0; i < words_.size(); ++i)
            words_[i] &= i < o.words_.size() ? o.words_[i] : 0;
        return *this;
    }
    bool operator==(const Bitset&) const = default;

    // Calls f(position) for every set bit, ascending.
    template <class F>
    void forEach(F&& f) const {
        for (size_t w = 0; w < words_.size(); ++w)
            for (uint64_t bits = words_[w]; bits; bits &= bits - 1)
                f(w * 64 + static_cast<size_t>(std::countr_zero(bits)));
    }

    const std::vector<uint64_t>& words() const { return words_; }
    std::vector<uint64_t>& words() { return words_; }
    size_t memoryBytes() const { return words_.capacity() * sizeof(uint64_t); }

private:
    size_t size_ = 0;
    std::vector<uint64_t> words_;
};

}  // namespace memcity
