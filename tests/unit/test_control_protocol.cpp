// The live control channel's protocol (analysis/live/control_protocol.h) on hand-written lines:
// requests and pause conditions parsed exactly, or refused with what is wrong; status replies
// round-trip, a later version's extra fields skipped; the socket's directory is checked.
#include <gtest/gtest.h>
#include <sys/stat.h>
#include <unistd.h>

#include <filesystem>

#include "live/control_protocol.h"
#include "unit/trace_builder.h"

namespace memcity::live {
namespace {

TEST(ControlProtocol, RequestsParseAndFormatBack) {
    for (const char* line :
         {"hello", "status", "pause", "step", "resume", "detach", "own", "snapshot", "snapshot now",
          "when none", "when full", "when used>67108864", "when full,used>1024,every-gc"}) {
        auto r = parseRequest(line);
        ASSERT_TRUE(r.ok()) << line << ": " << r.error().message;
        EXPECT_EQ(formatRequest(*r), line);
    }
    auto sized = parseRequest("when used>64m,full");
    ASSERT_TRUE(sized.ok());
    EXPECT_EQ(sized->when.used_above, uint64_t{64} << 20);
    EXPECT_TRUE(sized->when.full_gc);
    EXPECT_FALSE(sized->when.every_gc);
    EXPECT_TRUE(parseRequest("snapshot now")->now);
    EXPECT_FALSE(parseRequest("snapshot")->now);
}

TEST(ControlProtocol, BadRequestsSayWhatIsWrong) {
    struct Case {
        std::string line, says;
    };
    for (const Case& c : std::vector<Case>{
             {"fly",
              "unknown request 'fly' (hello, status, pause, step, resume, when, snapshot, detach, own)"},
             {"pause now", "'pause' takes no argument"},
             {"snapshot later", "'snapshot' takes 'now' or nothing, not 'later'"},
             {"when", "no condition"},
             {"when full,later", "unknown condition 'later'"},
             {"when used>", "'used>': expected used>SIZE"},
             {"when used>0", "'used>0': expected used>SIZE"},
             {"when used>12q", "'used>12q': expected used>SIZE"},
             {std::string("pa\0se", 5), "not printable ASCII"},
             {"st\xc3\xa4tus", "not printable ASCII"},
             {std::string(600, 'a'), "longer than 512 bytes"},
         }) {
        auto r = parseRequest(c.line);
        ASSERT_FALSE(r.ok()) << c.line;
        EXPECT_NE(r.error().message.find(c.says), std::string::npos) << r.error().message;
    }
}

TEST(ControlProtocol, StatusRoundTrips) {
    AgentStatus s;
    s.pid = 4242;
    s.state = ProgramState::kPaused;
    s.paused_gc = 17;
    s.why = kPauseAsked | kPauseUsed;
    s.gcs = 18;
    s.can_pause = true;
    s.when.full_gc = true;
    s.when.used_above = 1 << 20;
    s.snapshots = 3;
    s.snapshot_gc = 12;
    s.snapshot_asked = true;
    s.file = "/tmp/a dir/with spaces=and equals.mct";
    const std::string line = formatStatus(s);
    EXPECT_EQ(
        line,
        "ok version=1 pid=4242 state=paused gc=17 why=asked,used gcs=18 pause=yes when=full,used>1048576 "
        "snapshots=3 snapshot_gc=12 snapshot=asked file=/tmp/a dir/with spaces=and equals.mct");
    auto back = parseStatus(line);
    ASSERT_TRUE(back.ok()) << back.error().message;
    EXPECT_EQ(back->pid, 4242);
    EXPECT_EQ(back->state, ProgramState::kPaused);
    EXPECT_EQ(back->paused_gc, 17);
    EXPECT_EQ(back->why, kPauseAsked | kPauseUsed);
    EXPECT_EQ(back->gcs, 18u);
    EXPECT_EQ(back->when, s.when);
    EXPECT_EQ(back->file, s.file);
    EXPECT_EQ(back->snapshots, 3u);
    EXPECT_EQ(back->snapshot_gc, 12);
    EXPECT_TRUE(back->snapshot_asked);
    // A later version's fields are skipped; an error reply is an error.
    auto later = parseStatus("ok version=1 pid=1 state=running colour=blue gcs=0 pause=no when=none file=/x");
    ASSERT_TRUE(later.ok()) << later.error().message;
    EXPECT_FALSE(later->can_pause);
    EXPECT_EQ(later->paused_gc, -1);
    EXPECT_EQ(later->snapshot_gc, -1);  // (an agent before snapshots, or none taken)
    EXPECT_FALSE(later->snapshot_asked);
    auto error = parseStatus("error the agent is tired");
    ASSERT_FALSE(error.ok());
    EXPECT_EQ(error.error().message, "the agent is tired");
    auto bare = parseStatus("error ");  // an error is never an empty message
    ASSERT_FALSE(bare.ok());
    EXPECT_EQ(bare.error().message, "the agent answered an error without a reason");
    EXPECT_FALSE(parseStatus("ok version=1 pid=1 gcs=0").ok());  // no state
    EXPECT_FALSE(parseStatus("hello there").ok());
}

TEST(ControlProtocol, TheSocketDirectoryMustBePrivate) {
    namespace fs = std::filesystem;
    const fs::path dir = fs::path(testing::tempPath("control-dir")).replace_extension();
    ASSERT_TRUE(ensurePrivateDirectory(dir.string(), geteuid()).ok());
    struct stat st {};
    ASSERT_EQ(stat(dir.c_str(), &st), 0);
    EXPECT_EQ(st.st_mode & 0777, 0700u);
    EXPECT_TRUE(ensurePrivateDirectory(dir.string(), geteuid()).ok());  // again: it is there
    chmod(dir.c_str(), 0755);
    auto open = ensurePrivateDirectory(dir.string(), geteuid());
    ASSERT_FALSE(open.ok());
    EXPECT_NE(open.error().message.find("others may enter it"), std::string::npos) << open.error().message;
    auto other = ensurePrivateDirectory(dir.string(), geteuid() + 1);
    ASSERT_FALSE(other.ok());
    EXPECT_NE(other.error().message.find("belongs to uid"), std::string::npos) << other.error().message;
    fs::remove(dir);
    fs::create_directory_symlink("/tmp", dir);
    auto link = ensurePrivateDirectory(dir.string(), geteuid());
    ASSERT_FALSE(link.ok());
    EXPECT_NE(link.error().message.find("not a directory"), std::string::npos) << link.error().message;
    fs::remove(dir);
}

TEST(ControlProtocol, AttachCodesReadAsSentences) {
    EXPECT_EQ(attachCodeMessage(static_cast<int>(AttachCode::kAlreadyRecording)),
              "a memcity agent records this JVM already");
    EXPECT_EQ(attachCodeMessage(99), "the agent failed with code 99");
}

}  // namespace
}  // namespace memcity::live
