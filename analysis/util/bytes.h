// Little-endian loads/stores and LEB128 varints, with bound checks on every read.
#pragma once

#include <bit>
#include <cstddef>
#include <cstdint>
#include <cstring>
#include <string>
#include <string_view>
#include <vector>

#include "util/result.h"

namespace memcity {

inline uint16_t loadU16(const uint8_t* p) {
    uint16_t v;
    std::memcpy(&v, p, sizeof v);
    return v;
}
inline uint32_t loadU32(const uint8_t* p) {
    uint32_t v;
    std::memcpy(&v, p, sizeof v);
    return v;
}
inline uint64_t loadU64(const uint8_t* p) {
    uint64_t v;
    std::memcpy(&v, p, sizeof v);
    return v;
}
inline void storeU16(uint8_t* p, uint16_t v) {
    std::memcpy(p, &v, sizeof v);
}
inline void storeU32(uint8_t* p, uint32_t v) {
    std::memcpy(p, &v, sizeof v);
}
inline void storeU64(uint8_t* p, uint64_t v) {
    std::memcpy(p, &v, sizeof v);
}

static_assert(std::endian::native == std::endian::little, "memcity assumes a little-endian host");

inline uint64_t zigzagEncode(int64_t v) {
    return (static_cast<uint64_t>(v) << 1) ^ static_cast<uint64_t>(v >> 63);
}
inline int64_t zigzagDecode(uint64_t v) {
    return static_cast<int64_t>(v >> 1) ^ -static_cast<int64_t>(v & 1);
}

// Appends bytes to a growable buffer.
class ByteWriter {
public:
    void u8(uint8_t v) { buf_.push_back(v); }
    void u16(uint16_t v) { append(&v, sizeof v); }
    void u32(uint32_t v) { append(&v, sizeof v); }
    void u64(uint64_t v) { append(&v, sizeof v); }
    void varint(uint64_t v) {
        if (v < 0x80) {  // (most of a trace's varints)
            buf_.push_back(static_cast<uint8_t>(v));
            return;
        }
        uint8_t tmp[10];
        size_t n = 0;
        while (v >= 0x80) {
            tmp[n++] = static_cast<uint8_t>(v | 0x80);
            v >>= 7;
        }
        tmp[n++] = static_cast<uint8_t>(v);
        append(tmp, n);
    }
    void svarint(int64_t v) { varint(zigzagEncode(v)); }
    void string(std::string_view s) {
        varint(s.size());
        append(s.data(), s.size());
    }
    void append(const void* data, size_t n) {
        // (resize and copy: a range insert's general path costs more than the bytes, at a few
        // bytes an event)
        const size_t at = buf_.size();
        buf_.resize(at + n);
        if (n) std::memcpy(buf_.data() + at, data, n);
    }

    size_t size() const { return buf_.size(); }
    bool empty() const { return buf_.empty(); }
    const std::vector<uint8_t>& bytes() const { return buf_; }
    std::vector<uint8_t>& bytes() { return buf_; }
    void clear() { buf_.clear(); }

private:
    std::vector<uint8_t> buf_;
};

// Reads from a byte range. Every read checks the bound; after the first failed read the
// reader is "failed", all further reads return 0 and failOffset() tells where it broke.
class ByteReader {
public:
    ByteReader(const uint8_t* data, size_t size) : begin_(data), p_(data), end_(data + size) {}

    bool failed() const { return failed_; }
    bool atEnd() const { return p_ >= end_; }
    size_t offset() const { return static_cast<size_t>(p_ - begin_); }
    size_t remaining() const { return static_cast<size_t>(end_ - p_); }
    // Offset at which the first read failed (valid once failed()).
    size_t failOffset() const { return fail_offset_; }
    const char* failReason() const { return fail_reason_; }

    uint8_t u8() {
        if (p_ >= end_) return fail("unexpected end of data"), 0;
        return *p_++;
    }
    uint64_t varint() {
        // Fast paths: one byte; or, with ten bytes left, no bound check per byte.
        if (p_ < end_ && *p_ < 0x80) return *p_++;
        if (end_ - p_ >= 10) {
            const uint8_t* q = p_;
            uint64_t v = 0;
            for (unsigned shift = 0; shift < 70; shift += 7) {
                uint8_t b = *q++;
                v |= static_cast<uint64_t>(b & 0x7f) << shift;
                if (b < 0x80) {
                    if (shift == 63 && b > 1) break;
                    p_ = q;
                    return v;
                }
            }
            return varintSlow();
        }
        return varintSlow();
    }
    uint64_t varintSlow() {
        uint64_t v = 0;
        unsigned shift = 0;
        const uint8_t* start = p_;
        while (p_ < end_) {
            uint8_t b = *p_++;
            if (shift == 63 && b > 1) {
                p_ = start;
                return fail("varint overflows 64 bits"), 0;
            }
            v |= static_cast<uint64_t>(b & 0x7f) << shift;
            if (b < 0x80) return v;
            shift += 7;
            if (shift > 63) {
                p_ = start;
                return fail("varint longer than 10 bytes"), 0;
            }
        }
        p_ = start;
        return fail("varint runs past the end of data"), 0;
    }
    int64_t svarint() { return zigzagDecode(varint()); }
    // A varint that must fit in 32 bits.
    uint32_t varint32() {
        uint64_t v = varint();
        if (v > 0xffffffffu) return fail("value does not fit in 32 bits"), 0;
        return static_cast<uint32_t>(v);
    }
    std::string_view string(size_t max_len) {
        size_t at = offset();
        uint64_t n = varint();
        if (failed_) return {};
        if (n > max_len) return p_ = begin_ + at, fail("string length is absurd"), std::string_view{};
        if (n > remaining())
            return p_ = begin_ + at, fail("string runs past the end of data"), std::string_view{};
        std::string_view s(reinterpret_cast<const char*>(p_), n);
        p_ += n;
        return s;
    }
    void skip(size_t n) {
        if (n > remaining()) return fail("skip past the end of data");
        p_ += n;
    }
    // Marks the reader failed at the current position with a reason (static storage).
    void fail(const char* reason) {
        if (failed_) return;
        failed_ = true;
        fail_offset_ = offset();
        fail_reason_ = reason;
        p_ = end_;
    }

private:
    const uint8_t* begin_;
    const uint8_t* p_;
    const uint8_t* end_;
    bool failed_ = false;
    size_t fail_offset_ = 0;
    const char* fail_reason_ = "";
};

// A payload decoder's error: the reader's own where a read failed, else `what` at the reader's
// offset (Error::inData: the offset counts from the start of the reader's bytes).
inline Error decodeFailed(const ByteReader& r, std::string_view what) {
    return Error::inData(r.failed() ? r.failOffset() : r.offset(),
                         r.failed() ? std::string(r.failReason()) : std::string(what));
}

}  // namespace memcity
