// StackKeyTable (recorder/stack_key_table.h): what stack keys name, per generation of the code.
#include <gtest/gtest.h>

#include "recorder/stack_key_table.h"

namespace memcity::agent {
namespace {

StackKey keyOf(uint64_t i) {
    return {i * 0x9e3779b97f4a7c15ull, ~i};
}

TEST(StackKeyTable, AKeyIsFoundInItsGenerationOnly) {
    StackKeyTable<uint32_t> table;
    EXPECT_EQ(table.find(keyOf(1), 1), nullptr);
    table.put(keyOf(1), 1, 7);
    ASSERT_NE(table.find(keyOf(1), 1), nullptr);
    EXPECT_EQ(*table.find(keyOf(1), 1), 7u);
    EXPECT_EQ(table.find(keyOf(1), 2), nullptr);
    EXPECT_EQ(table.find(keyOf(2), 1), nullptr);
    // The same low half is another key.
    EXPECT_EQ(table.find({keyOf(1).lo, 0}, 1), nullptr);
    // Remembered again in a later generation: the new value, the old generation's gone.
    table.put(keyOf(1), 2, 9);
    EXPECT_EQ(*table.find(keyOf(1), 2), 9u);
    EXPECT_EQ(table.find(keyOf(1), 1), nullptr);
}

TEST(StackKeyTable, KeysThatShareASlotAreAllFound) {
    StackKeyTable<uint32_t> table;
    // Low halves equal modulo any power of two up to 2^20: one probe chain.
    for (uint32_t i = 0; i < 100; ++i)
        table.put({uint64_t{i} << 20, i}, 1, i + 1);
    for (uint32_t i = 0; i < 100; ++i) {
        const uint32_t* v = table.find({uint64_t{i} << 20, i}, 1);
        ASSERT_NE(v, nullptr) << i;
        EXPECT_EQ(*v, i + 1);
    }
    // A stale entry's slot is taken by a new key, and the keys past it are still found.
    table.put({uint64_t{100} << 20, 100}, 2, 500);
    EXPECT_EQ(*table.find({uint64_t{100} << 20, 100}, 2), 500u);
    table.put({uint64_t{50} << 20, 50}, 2, 600);
    EXPECT_EQ(*table.find({uint64_t{50} << 20, 50}, 2), 600u);
    EXPECT_EQ(*table.find({uint64_t{100} << 20, 100}, 2), 500u);
}

TEST(StackKeyTable, GrowsWithItsGenerationAndDropsOlderOnes) {
    StackKeyTable<uint32_t> table;
    for (uint32_t i = 0; i < 100000; ++i)
        table.put(keyOf(i), 1, i);
    for (uint32_t i = 0; i < 100000; i += 997)
        EXPECT_EQ(*table.find(keyOf(i), 1), i);
    const size_t grown = table.capacity();
    EXPECT_GE(grown * 7, size_t{100000} * 10);
    // A new generation of as many keys: the rebuilds keep only its own, so the table does not
    // grow past what one generation needs.
    for (uint32_t i = 0; i < 100000; ++i)
        table.put(keyOf(i + 1000000), 2, i);
    EXPECT_LE(table.capacity(), grown);
    for (uint32_t i = 0; i < 100000; i += 997) {
        EXPECT_EQ(*table.find(keyOf(i + 1000000), 2), i);
        EXPECT_EQ(table.find(keyOf(i), 2), nullptr);
    }
}

}  // namespace
}  // namespace memcity::agent
