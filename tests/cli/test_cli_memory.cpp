// Under an address-space limit (RLIMIT_AS, as `ulimit -v` sets it) every command ends either
// well or in a one-line error: an allocation that fails on a worker thread, or a thread that
// cannot be created, is no abort.
#include <fcntl.h>
#include <sys/resource.h>
#include <sys/wait.h>
#include <unistd.h>

#include <gtest/gtest.h>

#include <string>
#include <vector>

#include "cli/run_memcity.h"
#include "unit/hprof_builder.h"
#include "unit/sanitizers.h"

namespace memcity {
namespace {

struct LimitedRun {
    int raw = 0;  // waitpid's status
    std::string err;
};

// Runs MEMCITY_BINARY with `args` in a child limited to `bytes` of address space; stdout is
// dropped, stderr kept.
LimitedRun runLimited(const std::vector<std::string>& args, rlim_t bytes) {
    const std::string err_path = testing::tempPath("limited-stderr");
    std::vector<char*> argv{const_cast<char*>(MEMCITY_BINARY)};
    for (const std::string& a : args)
        argv.push_back(const_cast<char*>(a.c_str()));
    argv.push_back(nullptr);
    const pid_t pid = ::fork();
    if (pid == 0) {  // (only async-signal-safe calls until exec)
        const int null = ::open("/dev/null", O_WRONLY);
        const int err = ::open(err_path.c_str(), O_WRONLY | O_CREAT | O_TRUNC, 0600);
        if (null < 0 || err < 0 || ::dup2(null, 1) < 0 || ::dup2(err, 2) < 0) ::_exit(126);
        const rlimit limit{bytes, bytes};
        if (::setrlimit(RLIMIT_AS, &limit) != 0) ::_exit(126);
        ::execv(MEMCITY_BINARY, argv.data());
        ::_exit(127);
    }
    LimitedRun run;
    EXPECT_GT(pid, 0);
    if (pid > 0) {
        EXPECT_EQ(::waitpid(pid, &run.raw, 0), pid);
    }
    run.err = testing::slurp(err_path);
    return run;
}

TEST(CliMemoryLimit, EveryCommandEndsWellOrInAOneLineError) {
    if (testing::kUnderSanitizer)
        GTEST_SKIP() << "a sanitizer's shadow memory does not fit an address-space limit";
    const std::string dir = testing::tempDir("memory-limit");
    const std::string dump = dir + "/little.hprof";
    testing::writeFile(dump, hprof::testing::littleHeap());
    const std::vector<std::vector<std::string>> commands = {
        {"report", MEMCITY_DEMO_TRACE},
        {"gcs", MEMCITY_DEMO_TRACE},
        {"import", dump, "-o", dir + "/little.mct"},
    };
    for (rlim_t mb = 30; mb <= 200; mb += 10)
        for (const std::vector<std::string>& args : commands) {
            const LimitedRun run = runLimited(args, mb << 20);
            const std::string what = args[0] + " under " + std::to_string(mb) + " MB: ";
            ASSERT_TRUE(WIFEXITED(run.raw)) << what << "killed by signal " << WTERMSIG(run.raw) << "\n"
                                            << run.err;
            const int status = WEXITSTATUS(run.raw);
            EXPECT_LT(status, 126) << what << run.err;  // (the child's own failures)
            if (status == 0) continue;
            ASSERT_FALSE(run.err.empty()) << what << "exit " << status << " and nothing said";
            ASSERT_EQ(run.err.back(), '\n') << what << run.err;
            const size_t start = run.err.find_last_of('\n', run.err.size() - 2);
            const std::string last = run.err.substr(start == std::string::npos ? 0 : start + 1);
            EXPECT_TRUE(last.starts_with("memcity") || last.starts_with("error")) << what << run.err;
        }
}

}  // namespace
}  // namespace memcity
