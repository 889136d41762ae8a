// GC_REGIONS (trace/g1_regions.h): G1's region table round-trips, counts its roles, and a table
// that contradicts itself is an error naming where.
#include <gtest/gtest.h>

#include <vector>

#include "trace/g1_regions.h"
#include "util/bytes.h"

using namespace memcity;

namespace {

using R = RegionRole;

// Eight 1 MiB regions: two eden, a humongous object over three regions, an old one, two free.
GcRegionsEvent eightRegions() {
    GcRegionsEvent e;
    e.gc = 7;
    e.after = false;
    e.shift = 20;
    e.first = uint64_t{0xfc000000};
    e.roles = {
        R::kEden, R::kEden, R::kHumongousStart, R::kHumongousContinues, R::kHumongousContinues, R::kOld,
        R::kFree, R::kFree};
    e.used = {4096, 1 << 20, 1 << 20, 1 << 20, 1 << 20, 524288, 0, 0};
    return e;
}

}  // namespace

TEST(G1Regions, RoundTripsAndCountsItsRoles) {
    const GcRegionsEvent e = eightRegions();
    const std::vector<uint8_t> bytes = encodeGcRegions(e);
    GcRegionsEvent d;
    ASSERT_TRUE(decodeGcRegions(bytes, &d));
    EXPECT_EQ(d.gc, 7u);
    EXPECT_FALSE(d.after);
    EXPECT_EQ(d.regionBytes(), uint64_t{1} << 20);
    EXPECT_EQ(d.bottomOf(3), uint64_t{0xfc300000});
    EXPECT_EQ(d.roles, e.roles);
    EXPECT_EQ(d.used, e.used);
    const auto n = d.countRoles();
    EXPECT_EQ(n[static_cast<size_t>(R::kEden)], 2u);
    EXPECT_EQ(n[static_cast<size_t>(R::kHumongousStart)], 1u);
    EXPECT_EQ(n[static_cast<size_t>(R::kHumongousContinues)], 2u);
    EXPECT_EQ(n[static_cast<size_t>(R::kOld)], 1u);
    EXPECT_EQ(n[static_cast<size_t>(R::kFree)], 2u);
    EXPECT_EQ(regionRoleName(R::kHumongousContinues), "humongous continues");
}

TEST(G1Regions, ARoleOfALaterFormatReadsAsUnknown) {
    ByteWriter w;
    for (uint64_t v : {1u, 1u, 20u, 0u, 1u, 42u, 1u, 100u})
        w.varint(v);
    GcRegionsEvent d;
    ASSERT_TRUE(decodeGcRegions(w.bytes(), &d));
    ASSERT_EQ(d.roles.size(), 1u);
    EXPECT_EQ(d.roles[0], R::kUnknown);
    EXPECT_EQ(d.used[0], 100u);
}

TEST(G1Regions, ATableThatContradictsItselfIsAnErrorNamingWhere) {
    GcRegionsEvent e = eightRegions();
    e.roles[2] = R::kOld;  // the continuation now follows an old region
    GcRegionsEvent d;
    Status s = decodeGcRegions(encodeGcRegions(e), &d);
    ASSERT_FALSE(s);
    EXPECT_EQ(s.error().message, "region 3 continues a humongous object that starts nowhere");
    EXPECT_NE(s.error().offset, kNoOffset);

    e = eightRegions();
    e.used[5] = (1 << 20) + 8;  // used past the region's end
    s = decodeGcRegions(encodeGcRegions(e), &d);
    ASSERT_FALSE(s);
    EXPECT_EQ(s.error().message, "region 5 uses 1048584 bytes of 1048576");

    std::vector<uint8_t> bytes = encodeGcRegions(eightRegions());
    bytes.push_back(0);
    s = decodeGcRegions(bytes, &d);
    ASSERT_FALSE(s);
    EXPECT_EQ(s.error().message, "bytes after the last region");
    EXPECT_EQ(s.error().offset, bytes.size() - 1);

    bytes = encodeGcRegions(eightRegions());
    bytes.pop_back();  // cut inside the last run
    EXPECT_FALSE(decodeGcRegions(bytes, &d));
}

TEST(G1Regions, ImpossibleHeadersAreErrors) {
    auto header = [](std::initializer_list<uint64_t> v) {
        ByteWriter w;
        for (uint64_t x : v)
            w.varint(x);
        return std::move(w.bytes());
    };
    GcRegionsEvent d;
    Status s = decodeGcRegions(header({1, 2, 20, 0, 0}), &d);
    ASSERT_FALSE(s);
    EXPECT_EQ(s.error().message, "a phase that is neither the GC's start nor its end");
    s = decodeGcRegions(header({1, 1, 40, 0, 0}), &d);
    ASSERT_FALSE(s);
    EXPECT_EQ(s.error().message, "impossible region size");
    s = decodeGcRegions(header({1, 1, 20, 0, kMaxRegions + 1}), &d);
    ASSERT_FALSE(s);
    EXPECT_EQ(s.error().message, "impossible region count");
    s = decodeGcRegions(header({1, 1, 20, 0, 4, 3, 5}), &d);  // a run of 5 in a table of 4
    ASSERT_FALSE(s);
    EXPECT_EQ(s.error().message, "a run of 5 regions past the table's 4");
    EXPECT_EQ(s.error().offset, 5u);
}
