// What memcity takes from places other users can reach: a raw heap dump (memcity dump), the
// control channel's socket and its peer, a trace's named socket, the import cache's directory.
#include <gtest/gtest.h>
#include <pwd.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <sys/un.h>
#include <sys/wait.h>
#include <unistd.h>

#include <chrono>
#include <csignal>
#include <cstdlib>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <optional>
#include <thread>

#include "cli/raw_dump.h"
#include "hprof/import_cache.h"
#include "live/control_client.h"

namespace memcity {
namespace {

namespace fs = std::filesystem;

// A fresh directory of mode 0700, removed at the end.
struct TempDir {
    fs::path path;
    TempDir() {
        std::string name = (fs::temp_directory_path() / "memcity-private-XXXXXX").string();
        EXPECT_NE(::mkdtemp(name.data()), nullptr);
        path = name;
    }
    ~TempDir() {
        std::error_code ec;
        fs::permissions(path, fs::perms::owner_all, ec);
        fs::remove_all(path, ec);
    }
};

void writeFile(const fs::path& p, const std::string& text) {
    std::ofstream(p, std::ios::binary) << text;
}

TEST(RawDump, OnlyTheFileTheJvmWroteIsTaken) {
    TempDir dir;
    const fs::path dump = dir.path / "d.hprof";
    writeFile(dump, "JAVA PROFILE 1.0.2");
    EXPECT_TRUE(cli::checkWrittenDump(dump.string(), ::geteuid()).ok());
    // A link to a file elsewhere (a dump another user planted, or /etc/shadow).
    const fs::path link = dir.path / "link.hprof";
    fs::create_symlink(dump, link);
    const Status linked = cli::checkWrittenDump(link.string(), ::geteuid());
    ASSERT_FALSE(linked.ok());
    EXPECT_EQ(linked.error().message,
              link.string() + ": not a regular file (a link or something else is in the dump's place)");
    // A hard link: one file, two names.
    const fs::path hard = dir.path / "hard.hprof";
    fs::create_hard_link(dump, hard);
    EXPECT_FALSE(cli::checkWrittenDump(hard.string(), ::geteuid()).ok());
    fs::remove(hard);
    // A FIFO, an empty file, a file of another user.
    const fs::path fifo = dir.path / "fifo.hprof";
    ASSERT_EQ(::mkfifo(fifo.c_str(), 0600), 0);
    EXPECT_FALSE(cli::checkWrittenDump(fifo.string(), ::geteuid()).ok());
    const fs::path empty = dir.path / "empty.hprof";
    writeFile(empty, "");
    EXPECT_FALSE(cli::checkWrittenDump(empty.string(), ::geteuid()).ok());
    const Status other = cli::checkWrittenDump(dump.string(), ::geteuid() + 1);
    ASSERT_FALSE(other.ok());
    EXPECT_NE(other.error().message.find(": belongs to uid "), std::string::npos) << other.error().message;
    EXPECT_FALSE(cli::checkWrittenDump((dir.path / "missing.hprof").string(), ::geteuid()).ok());
}

// A socket listening in `dir`, answering each line with `reply` (nothing when empty).
class FakeAgent {
public:
    FakeAgent(const fs::path& dir, std::string reply)
        : path_((dir / "1.sock").string()), reply_(std::move(reply)) {
        fd_ = ::socket(AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC, 0);
        sockaddr_un addr{};
        addr.sun_family = AF_UNIX;
        std::strcpy(addr.sun_path, path_.c_str());
        EXPECT_EQ(::bind(fd_, reinterpret_cast<const sockaddr*>(&addr), sizeof addr), 0);
        EXPECT_EQ(::listen(fd_, 4), 0);
        thread_ = std::thread([this] {
            const int c = ::accept(fd_, nullptr, nullptr);
            if (c < 0) return;
            char buf[512];
            if (::recv(c, buf, sizeof buf, 0) > 0 && !reply_.empty())
                (void)!::send(c, reply_.data(), reply_.size(), MSG_NOSIGNAL);
            // Keeps the connection open until the client goes.
            while (::recv(c, buf, sizeof buf, 0) > 0) {
            }
            ::close(c);
        });
    }
    ~FakeAgent() {
        ::shutdown(fd_, SHUT_RDWR);
        ::close(fd_);
        thread_.join();
    }
    const std::string& path() const { return path_; }

private:
    std::string path_, reply_;
    int fd_ = -1;
    std::thread thread_;
};

TEST(ControlClientPeer, AReplyWithTerminalEscapesIsRefused) {
    TempDir dir;
    FakeAgent agent(dir.path, "ok version=1 pid=1 state=\x1b]0;owned\x07running gcs=0 file=/tmp/x.mct\n");
    auto c = live::ControlClient::connect(agent.path(), 2.0);
    ASSERT_FALSE(c);
    EXPECT_NE(c.error().message.find("control characters"), std::string::npos) << c.error().message;
    EXPECT_EQ(c.error().message.find('\x1b'), std::string::npos);
    EXPECT_NE(c.error().message.find("\\x1b"), std::string::npos);
}

TEST(ControlClientPeer, APeerThatNeverAnswersTimesOut) {
    TempDir dir;
    FakeAgent agent(dir.path, "");
    const auto t0 = std::chrono::steady_clock::now();
    auto c = live::ControlClient::connect(agent.path(), 0.3);
    ASSERT_FALSE(c);
    EXPECT_LT(std::chrono::steady_clock::now() - t0, std::chrono::seconds(2));
    EXPECT_NE(c.error().message.find("no reply"), std::string::npos) << c.error().message;
}

TEST(ControlClientPeer, TheSocketsDirectoryMustBeOursAndPrivate) {
    TempDir dir;
    FakeAgent agent(dir.path, "");
    fs::permissions(dir.path, fs::perms::owner_all | fs::perms::group_read | fs::perms::group_exec |
                                  fs::perms::others_read | fs::perms::others_exec);
    auto open = live::ControlClient::connect(agent.path(), 0.3);
    ASSERT_FALSE(open);
    EXPECT_NE(open.error().message.find("refused, its directory is not a private one of yours"),
              std::string::npos)
        << open.error().message;
    EXPECT_NE(open.error().message.find("(mode 755)"), std::string::npos) << open.error().message;
    fs::permissions(dir.path, fs::perms::owner_all);
    // A link to the directory, made by whoever could write where it is.
    TempDir other;
    const fs::path link = other.path / "memcity-link";
    fs::create_directory_symlink(dir.path, link);
    auto linked = live::ControlClient::connect((link / "1.sock").string(), 0.3);
    ASSERT_FALSE(linked);
    EXPECT_NE(linked.error().message.find("not a directory (a link"), std::string::npos)
        << linked.error().message;
}

TEST(ControlClientPeer, APeerOfAnotherUserIsRefused) {
    if (::geteuid() != 0) GTEST_SKIP() << "needs root, to listen as another user";
    TempDir dir;
    const std::string path = (dir.path / "1.sock").string();
    const int fd = ::socket(AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC, 0);
    sockaddr_un addr{};
    addr.sun_family = AF_UNIX;
    std::strcpy(addr.sun_path, path.c_str());
    ASSERT_EQ(::bind(fd, reinterpret_cast<const sockaddr*>(&addr), sizeof addr), 0);
    int ready[2];
    ASSERT_EQ(::pipe(ready), 0);
    const pid_t child = ::fork();
    if (child == 0) {
        // The listener's credentials are taken at listen(): the child listens as nobody.
        if (::setgid(65534) != 0 || ::setuid(65534) != 0 || ::listen(fd, 4) != 0) ::_exit(1);
        (void)!::write(ready[1], "x", 1);
        const int c = ::accept(fd, nullptr, nullptr);
        const char reply[] =
            "ok version=1 pid=1 state=running gcs=0 pause=yes when=none snapshots=0 file=/x\n";
        char buf[512];
        if (c >= 0 && ::recv(c, buf, sizeof buf, 0) > 0)
            (void)!::send(c, reply, sizeof reply - 1, MSG_NOSIGNAL);
        ::sleep(2);
        ::_exit(0);
    }
    char x = 0;
    ASSERT_EQ(::read(ready[0], &x, 1), 1);
    auto c = live::ControlClient::connect(path, 1.0);
    ::kill(child, SIGKILL);
    ::waitpid(child, nullptr, 0);
    ::close(fd);
    ::close(ready[0]);
    ::close(ready[1]);
    ASSERT_FALSE(c);
    EXPECT_NE(c.error().message.find("refused, the peer runs as uid 65534"), std::string::npos)
        << c.error().message;
}

TEST(ControlClientPeer, OnlyATracesSocketInOurOwnDirectoryIsTried) {
    const std::string ours = live::socketDirectory(::geteuid());
    EXPECT_TRUE(live::checkOwnSocketPath(ours + "/1234.sock").ok());
    for (const std::string& elsewhere :
         {std::string("/tmp/elsewhere/1234.sock"), ours + "/../memcity-1/1234.sock", ours + "/x.sock",
          ours + "/", ours + "/1234.sock/..", std::string("/run/user/1234.sock")}) {
        const Status s = live::checkOwnSocketPath(elsewhere);
        ASSERT_FALSE(s.ok()) << elsewhere;
        EXPECT_EQ(s.error().message,
                  elsewhere + ": not a control socket in " + ours + "/ (memcity connects only to its own)");
    }
    EXPECT_EQ(live::escapeControls("a\x1b[2Jb\n"), "a\\x1b[2Jb\\x0a");
}

TEST(ControlClientPeer, TheAgentsTraceIsOpenedOnlyIfItIsOurs) {
    TempDir dir;
    const fs::path trace = dir.path / "t.mct";
    writeFile(trace, "x");
    EXPECT_TRUE(live::checkAgentTrace(trace.string()).ok());
    const fs::path link = dir.path / "l.mct";
    fs::create_symlink(trace, link);
    EXPECT_FALSE(live::checkAgentTrace(link.string()).ok());
    EXPECT_FALSE(live::checkAgentTrace(dir.path.string()).ok());
}

// Sets or unsets an environment variable for a test's duration.
struct EnvGuard {
    std::string name;
    std::optional<std::string> saved;
    explicit EnvGuard(std::string n) : name(std::move(n)) {
        if (const char* v = std::getenv(name.c_str())) saved = v;
        ::unsetenv(name.c_str());
    }
    ~EnvGuard() {
        if (saved) ::setenv(name.c_str(), saved->c_str(), 1);
    }
};

TEST(ImportCache, WithoutHomeOrXdgTheCacheIsInTheUsersHomeDirectory) {
    EnvGuard home("HOME"), xdg("XDG_CACHE_HOME");
    const passwd* pw = ::getpwuid(::getuid());
    ASSERT_NE(pw, nullptr);
    auto dir = hprof::importCacheDirectory();
    ASSERT_TRUE(dir) << dir.error().message;
    EXPECT_EQ(*dir, (fs::path(pw->pw_dir) / ".cache" / "memcity").string());
    EXPECT_EQ(dir->find("/tmp/memcity-cache"), std::string::npos);
}

TEST(ImportCache, ThePrivateFallbackIsCheckedNotTrusted) {
    TempDir base;
    const std::string expected = (base.path / ("memcity-cache-" + std::to_string(::getuid()))).string();
    auto made = hprof::privateCacheDirectory(base.path.string(), ::getuid());
    ASSERT_TRUE(made) << made.error().message;
    EXPECT_EQ(*made, expected);
    struct stat st {};
    ASSERT_EQ(::lstat(expected.c_str(), &st), 0);
    EXPECT_EQ(st.st_mode & 0777, 0700u);
    // Made by another first, open to others: refused.
    fs::permissions(expected, fs::perms::owner_all | fs::perms::others_all);
    auto open = hprof::privateCacheDirectory(base.path.string(), ::getuid());
    ASSERT_FALSE(open);
    EXPECT_EQ(open.error().message, expected + ": others may enter it (mode 707)");
    // A link in its place.
    fs::remove(expected);
    TempDir elsewhere;
    fs::create_directory_symlink(elsewhere.path, expected);
    auto linked = hprof::privateCacheDirectory(base.path.string(), ::getuid());
    ASSERT_FALSE(linked);
    EXPECT_EQ(linked.error().message, expected + ": not a directory (a link or a file is in its place)");
    // Another user's.
    EXPECT_FALSE(hprof::privateCacheDirectory(elsewhere.path.string(), ::getuid() + 1));
}

}  // namespace
}  // namespace memcity
