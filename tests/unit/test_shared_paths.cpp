// Files two processes (or two memcity commands) may both reach: a trace a recording still
// writes is never truncated or unlinked by another writer.
#include <gtest/gtest.h>

#include <filesystem>

#include "trace/trace_reader.h"
#include "trace/trace_writer.h"
#include "unit/trace_builder.h"

namespace memcity {
namespace {

using testing::tempPath;

TEST(SharedPaths, ASecondWriterIsRefusedAndTheFirstTraceIsIntact) {
    const std::string path = tempPath("two-writers.mct");
    auto first = TraceWriter::create(path);
    ASSERT_TRUE(first.ok()) << first.error().message;
    (*first)->meta("producer", "the first");
    (*first)->flush();
    const auto size = std::filesystem::file_size(path);
    ASSERT_GT(size, 0u);

    auto second = TraceWriter::create(path);
    ASSERT_FALSE(second.ok());
    EXPECT_EQ(second.error().message,
              path + ": another memcity is writing it (a recording in progress); choose another file");
    EXPECT_EQ(std::filesystem::file_size(path), size);  // not truncated

    // Nor removed by a command about to record into it.
    Status removed = removeUnlessBeingWritten(path);
    ASSERT_FALSE(removed.ok());
    EXPECT_EQ(removed.error().message, second.error().message);
    EXPECT_FALSE(checkNoTraceWriter(path).ok());
    ASSERT_TRUE(std::filesystem::exists(path));

    ASSERT_TRUE((*first)->close().ok());
    first->reset();
    auto trace = TraceFile::open(path);
    ASSERT_TRUE(trace.ok()) << trace.error().message;
    const std::vector<std::pair<std::string, std::string>> expected_meta = {{"producer", "the first"}};
    EXPECT_EQ(trace->meta(), expected_meta);
    EXPECT_TRUE(trace->hadFooterIndex());

    // Finished, it may be replaced.
    EXPECT_TRUE(checkNoTraceWriter(path).ok());
    EXPECT_TRUE(removeUnlessBeingWritten(path).ok());
    EXPECT_FALSE(std::filesystem::exists(path));
    EXPECT_TRUE(removeUnlessBeingWritten(path).ok());  // a missing file is fine
    auto again = TraceWriter::create(path);
    EXPECT_TRUE(again.ok());
}

}  // namespace
}  // namespace memcity
