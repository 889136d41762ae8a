// How a recording's full GCs are held against the JVM's own figures (analysis/heap/jvm_check.h).
#include <gtest/gtest.h>

#include <cstdint>

#include "heap/jvm_check.h"

namespace memcity {
namespace {

JvmCheck counted(uint64_t used_after, uint64_t live, uint64_t jvm_bytes, uint64_t agent_bytes = 0) {
    JvmCheck c;
    c.jvm_used_after = used_after;
    c.live_bytes = live;
    c.has_census = true;
    c.jvm_bytes = jvm_bytes;
    c.agent_bytes = agent_bytes;
    return c;
}

TEST(JvmCheck, DeadSpaceIsUsedBytesNoObjectHolds) {
    EXPECT_EQ(counted(10'000, 9'000, 9'000, 200).deadSpace(), 800);
    EXPECT_EQ(counted(10'000, 9'000, 10'500).deadSpace(), -500);  // allocated since the GC
}

TEST(JvmCheck, DeadSpaceSaturatesOnCorruptFigures) {
    EXPECT_EQ(counted(UINT64_MAX, 0, 0).deadSpace(), INT64_MAX);
    EXPECT_EQ(counted(0, 0, UINT64_MAX).deadSpace(), -INT64_MAX);
    EXPECT_EQ(counted(0, 0, UINT64_MAX, UINT64_MAX).deadSpace(), -INT64_MAX);  // the sum wraps
    JvmAgreement a = summarizeJvmChecks({counted(UINT64_MAX, 1, 0), counted(0, 1, UINT64_MAX)});
    EXPECT_EQ(a.dead_space, INT64_MAX);
    EXPECT_FALSE(describeJvmAgreement(a, true).empty());
}

TEST(JvmCheck, GapIsAgainstTheCountWhereThereIsOne) {
    const JvmCheck c = counted(10'000, 9'090, 9'000);
    EXPECT_NEAR(c.gap(), 0.01, 1e-12);
    EXPECT_NEAR(c.usedGap(), -0.091, 1e-12);
    EXPECT_TRUE(c.agrees());
    EXPECT_FALSE(counted(10'000, 9'200, 9'000).agrees());
}

TEST(JvmCheck, ChecksWithoutCountAssumeTheLeastDeadSpace) {
    JvmCheck bare;
    bare.jvm_used_after = 10'000;
    bare.live_bytes = 7'000;
    std::vector<JvmCheck> checks = {counted(10'000, 7'000, 7'000), counted(12'000, 8'000, 8'000), bare};
    settleJvmChecks(checks);
    EXPECT_EQ(checks[2].assumed_dead_space, 3'000u);
    EXPECT_EQ(checks[2].expected(), 7'000u);
    EXPECT_TRUE(checks[2].agrees());
    EXPECT_NE(describeJvmCheck(checks[2]).find("less the 2.9 KiB of dead space"), std::string::npos)
        << describeJvmCheck(checks[2]);
}

TEST(JvmCheck, AgreementNamesWhatDisagrees) {
    const JvmAgreement a =
        summarizeJvmChecks({counted(10'000, 10'000, 10'000), counted(10'000, 5'000, 10'000)});
    EXPECT_EQ(a.full_gcs, 2u);
    EXPECT_EQ(a.disagreeing, 1u);
    EXPECT_EQ(a.with_census, 2u);
    const std::string s = describeJvmAgreement(a, true);
    EXPECT_NE(s.find("live bytes at 2 full GCs"), std::string::npos) << s;
    EXPECT_NE(s.find("1 full GC differs by over 1%"), std::string::npos) << s;
    EXPECT_NE(describeJvmAgreement({}, false).find("none of the JVM's own GC figures"), std::string::npos);
    EXPECT_NE(describeJvmAgreement({}, true).find("no full GC"), std::string::npos);
}

}  // namespace
}  // namespace memcity
