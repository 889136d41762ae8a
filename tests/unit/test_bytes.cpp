#include <gtest/gtest.h>

#include <cstring>

#include "util/bytes.h"
#include "util/crc32c.h"

namespace memcity {
namespace {

TEST(Varint, RoundTripsBoundaries) {
    const uint64_t values[] = {0,           1, 127, 128, 16383, 16384, 0xffffffffull, 0x7fffffffffffffffull,
                               ~uint64_t{0}};
    ByteWriter w;
    for (uint64_t v : values)
        w.varint(v);
    ByteReader r(w.bytes().data(), w.size());
    for (uint64_t v : values)
        EXPECT_EQ(r.varint(), v);
    EXPECT_TRUE(r.atEnd());
    EXPECT_FALSE(r.failed());
}

TEST(Varint, EncodedLengths) {
    ByteWriter w;
    w.varint(127);
    EXPECT_EQ(w.size(), 1u);
    w.varint(128);
    EXPECT_EQ(w.size(), 3u);
    w.clear();
    w.varint(~uint64_t{0});
    EXPECT_EQ(w.size(), 10u);
}

TEST(Varint, ZigzagRoundTrips) {
    for (int64_t v : {int64_t{0}, int64_t{-1}, int64_t{1}, int64_t{-64}, int64_t{63}, INT64_MIN, INT64_MAX}) {
        EXPECT_EQ(zigzagDecode(zigzagEncode(v)), v);
    }
    EXPECT_EQ(zigzagEncode(-1), 1u);
    EXPECT_EQ(zigzagEncode(1), 2u);
}

TEST(ByteReader, TruncatedVarintFailsAtItsStart) {
    const uint8_t data[] = {0x05, 0x80, 0x80};
    ByteReader r(data, sizeof data);
    EXPECT_EQ(r.varint(), 5u);
    EXPECT_EQ(r.varint(), 0u);
    EXPECT_TRUE(r.failed());
    EXPECT_EQ(r.failOffset(), 1u);
    EXPECT_STREQ(r.failReason(), "varint runs past the end of data");
    EXPECT_EQ(r.u8(), 0u);  // stays failed
}

TEST(ByteReader, OverlongVarintFails) {
    const uint8_t data[] = {0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0x7f};
    ByteReader r(data, sizeof data);
    r.varint();
    EXPECT_TRUE(r.failed());
    EXPECT_STREQ(r.failReason(), "varint overflows 64 bits");
}

TEST(ByteReader, StringLengthIsChecked) {
    ByteWriter w;
    w.varint(1000);
    w.u8('x');
    ByteReader r(w.bytes().data(), w.size());
    EXPECT_TRUE(r.string(1 << 20).empty());
    EXPECT_TRUE(r.failed());
    EXPECT_STREQ(r.failReason(), "string runs past the end of data");
    ByteReader r2(w.bytes().data(), w.size());
    r2.string(10);
    EXPECT_STREQ(r2.failReason(), "string length is absurd");
}

TEST(Crc32c, KnownValues) {
    // The check value of CRC-32C (RFC 3720 test vectors).
    EXPECT_EQ(crc32c(0, "123456789", 9), 0xe3069283u);
    uint8_t zeros[32] = {};
    EXPECT_EQ(crc32c(0, zeros, sizeof zeros), 0x8a9136aau);
    // Incremental equals one-shot.
    const char* text = "the quick brown fox jumps over the lazy dog";
    size_t n = std::strlen(text);
    EXPECT_EQ(crc32c(crc32c(0, text, 10), text + 10, n - 10), crc32c(0, text, n));
}

}  // namespace
}  // namespace memcity
