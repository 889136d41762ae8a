#include <gtest/gtest.h>

#include <algorithm>
#include <random>

#include "heap/id_index.h"
#include "heap/object_store.h"
#include "trace/events.h"
#include "util/pod_array.h"

namespace memcity {
namespace {

TEST(IdColumn, HighBitsRunsAcross4G) {
    IdColumn c;
    const uint64_t ids[] = {5, 0xfffffffeull, 0x100000000ull, 0x100000005ull, 0x300000000ull};
    for (uint64_t id : ids)
        c.push(id);
    EXPECT_EQ(c.runs.size(), 3u);
    for (size_t i = 0; i < std::size(ids); ++i)
        EXPECT_EQ(c.get(i), ids[i]);
    EXPECT_EQ(c.lowerBound(0x100000001ull, 0, c.size()), 3u);
    EXPECT_EQ(c.lowerBound(0x200000000ull, 0, c.size()), 4u);
    EXPECT_EQ(c.lowerBound(6, 0, c.size()), 1u);
    EXPECT_EQ(c.lowerBound(0x400000000ull, 0, c.size()), 5u);
    EXPECT_EQ(c.gallop(0x100000005ull, 1, c.size()), 3u);
    c.truncate(2);
    EXPECT_EQ(c.runs.size(), 1u);
}

TEST(ObjectStore, SortsOutOfOrderTailsAndFindsIds) {
    ObjectStore s;
    for (uint64_t id : std::initializer_list<uint64_t>{10, 11, 12})
        s.append(id, 0, kNoLength, 0);
    s.normalize([](size_t) { FAIL(); });
    for (uint64_t id : std::initializer_list<uint64_t>{20, 14, 13, 30})
        s.append(id, 1, kNoLength, 0);
    EXPECT_FALSE(s.isSorted());
    s.normalize([](size_t) { FAIL(); });
    ASSERT_TRUE(s.isSorted());
    std::vector<uint64_t> got;
    for (size_t p = 0; p < s.size(); ++p)
        got.push_back(s.id(p));
    EXPECT_EQ(got, (std::vector<uint64_t>{10, 11, 12, 13, 14, 20, 30}));
    EXPECT_EQ(s.find(14), 4u);
    EXPECT_EQ(s.find(15), s.size());
    EXPECT_EQ(s.find(30, 2), 6u);
    EXPECT_EQ(s.find(10, 5), 0u);  // a hint past the answer still finds it
}

TEST(ObjectStore, MergesTailsThatReachBackIntoTheSortedRegion) {
    ObjectStore s;
    for (uint64_t id : std::initializer_list<uint64_t>{1, 5, 9})
        s.append(id, 0, kNoLength, 0);
    s.normalize([](size_t) {});
    for (uint64_t id : std::initializer_list<uint64_t>{7, 2, 10})
        s.append(id, 3, kNoLength, 0);
    s.normalize([](size_t) { FAIL(); });
    std::vector<uint64_t> got;
    for (size_t p = 0; p < s.size(); ++p)
        got.push_back(s.id(p));
    EXPECT_EQ(got, (std::vector<uint64_t>{1, 2, 5, 7, 9, 10}));
    EXPECT_EQ(s.shape[1], 3u);
    EXPECT_EQ(s.shape[2], 0u);
}

TEST(ObjectStore, ReportsDuplicateIds) {
    ObjectStore s;
    for (uint64_t id : std::initializer_list<uint64_t>{1, 2, 3})
        s.append(id, 0, kNoLength, 0);
    s.normalize([](size_t) {});
    for (uint64_t id : std::initializer_list<uint64_t>{2, 4, 4})
        s.append(id, 1, kNoLength, 0);
    std::vector<uint64_t> dups;
    s.normalize([&](size_t pos) {
        dups.push_back(s.id(pos));
        EXPECT_EQ(s.shape[pos], 1u);  // the later copy is the one reported
        s.kill(pos);
    });
    EXPECT_EQ(dups, (std::vector<uint64_t>{2, 4}));
}

TEST(ObjectStore, CompactionKeepsOrderLengthsAndSideTables) {
    ObjectStore s;
    for (uint64_t id = 0; id < 100; ++id)
        s.append(id << 28, static_cast<uint32_t>(id), id % 3 ? id : 70000 + id, id == 50 ? 999 : 0);
    s.normalize([](size_t) {});
    for (size_t p = 0; p < s.size(); p += 2)
        s.kill(p);
    EXPECT_EQ(s.tombstones(), 50u);
    s.compact();
    ASSERT_EQ(s.size(), 50u);
    for (size_t p = 0; p < s.size(); ++p) {
        uint64_t id = 2 * p + 1;
        EXPECT_EQ(s.id(p), id << 28);
        EXPECT_EQ(s.shape[p], id);
        EXPECT_EQ(s.arrayLength(p), id % 3 ? id : 70000 + id);
    }
    EXPECT_EQ(s.long_lengths.size(), 17u);  // odd ids divisible by 3 below 100
    EXPECT_TRUE(s.explicit_sizes.empty());  // id 50 died
}

TEST(IdIndex, FindsEveryIdAndRejectsOthers) {
    std::mt19937_64 rng(7);
    for (int round = 0; round < 4; ++round) {
        IdColumn c;
        std::vector<uint64_t> ids;
        uint64_t id = round == 3 ? 0xffffff00ull : 0;
        for (int i = 0; i < 5000; ++i) {
            id += 1 + rng() % (round == 0 ? 1 : round == 1 ? 10 : 100000);
            ids.push_back(id);
            c.push(id);
        }
        IdIndex index(c, c.size());
        EXPECT_LE(index.memoryBytes(), c.size() * 2 + 64);
        for (size_t i = 0; i < ids.size(); ++i)
            ASSERT_EQ(index.find(ids[i]), i);
        for (size_t i = 1; i < ids.size(); i += 7)
            if (ids[i] - ids[i - 1] > 1) {
                EXPECT_EQ(index.find(ids[i] - 1), c.size());
            }
        EXPECT_EQ(index.find(ids.back() + 1), c.size());
        EXPECT_EQ(index.find(0), ids[0] == 0 ? 0u : c.size());
    }
}

// PodArray's changes in the middle (the replayer's id intervals): values in order, across growth.
TEST(PodArray, InsertsAndErasesInTheMiddleAcrossGrowth) {
    PodArray<uint64_t> a;
    std::vector<uint64_t> model;
    for (uint64_t i = 0; i < 5000; ++i) {
        a.push_back(2 * i);
        model.push_back(2 * i);
    }
    for (uint64_t k = 0; k < 3000; ++k) {  // past the capacity: inserts that grow it
        const size_t at = static_cast<size_t>((k * 7919) % (model.size() + 1));
        EXPECT_EQ(*a.insert(a.begin() + at, 1'000'000 + k), 1'000'000 + k);
        model.insert(model.begin() + static_cast<std::ptrdiff_t>(at), 1'000'000 + k);
    }
    for (uint64_t k = 0; k < 2000; ++k) {
        const size_t at = static_cast<size_t>((k * 104729) % model.size());
        a.erase(a.begin() + at);
        model.erase(model.begin() + static_cast<std::ptrdiff_t>(at));
    }
    a.insert(a.end(), 7);
    model.push_back(7);
    ASSERT_EQ(a.size(), model.size());
    EXPECT_TRUE(std::equal(a.begin(), a.end(), model.begin()));
}

}  // namespace
}  // namespace memcity
