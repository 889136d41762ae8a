// Explorer scripts and the classifier chain editor's model: parsing with errors that name the
// line, entries checked one by one, the background worker.
#include <gtest/gtest.h>
#include <sys/resource.h>

#include <unistd.h>

#include <algorithm>
#include <atomic>
#include <chrono>
#include <new>
#include <thread>

#include "explore/chain_config.h"
#include "explore/inspection.h"
#include "explore/script.h"
#include "explore/worker.h"

namespace memcity::explore {
namespace {

// A table of commands as the window's runner gives one (app/script_runner.cpp has the real one).
const ScriptVerb kGc{"gc", 1, 1, "gc N: move the cursor to GC N"};
const ScriptVerb kSelect{"select", 1, kRestOfLine, "select PATH: select groups"};
const ScriptVerb kClick{"click", 1, 3, "click X Y [shift]: a click"};
const ScriptVerb kQuit{"quit", 0, 0, "quit: close the window"};
const std::vector<const ScriptVerb*> kVerbs = {&kGc, &kSelect, &kClick, &kQuit};

TEST(Script, ParsesCommandsSkippingCommentsAndBlankLines) {
    auto s =
        parseScript("# a demo\n\ngc 12\n  select java.util / java.util.HashMap  \nclick 10 20 shift\nquit\n",
                    "demo.script", kVerbs);
    ASSERT_TRUE(s.ok()) << s.error().message;
    ASSERT_EQ(s->size(), 4u);
    EXPECT_EQ((*s)[0].verb, "gc");
    EXPECT_EQ((*s)[0].spec, &kGc);
    EXPECT_EQ((*s)[0].line, 3u);
    EXPECT_EQ((*s)[0].args, std::vector<std::string>{"12"});
    EXPECT_EQ((*s)[1].rest, "java.util / java.util.HashMap");
    EXPECT_EQ((*s)[1].spec, &kSelect);
    EXPECT_EQ((*s)[2].args.size(), 3u);
    EXPECT_EQ((*s)[3].verb, "quit");
}

TEST(Script, ErrorsNameTheFileTheLineAndWhatIsWrong) {
    auto unknown = parseScript("gc 1\nfly-to x\n", "demo.script", kVerbs);
    ASSERT_FALSE(unknown.ok());
    EXPECT_EQ(unknown.error().message,
              "demo.script:2: unknown command 'fly-to' (commands: gc, select, click, quit)");
    auto missing = parseScript("gc\n", "s", kVerbs);
    ASSERT_FALSE(missing.ok());
    EXPECT_EQ(missing.error().message, "s:1: gc expects 1 argument, got 0 (gc N: move the cursor to GC N)");
    auto many = parseScript("\n\nclick 1 2 3 4\n", "s", kVerbs);
    ASSERT_FALSE(many.ok());
    EXPECT_EQ(many.error().message.rfind("s:3: click expects 1 to 3 arguments, got 4", 0), 0u)
        << many.error().message;
    auto rest = parseScript("select\n", "s", kVerbs);
    ASSERT_FALSE(rest.ok());
    EXPECT_EQ(rest.error().message.rfind("s:1: select expects at least 1 argument", 0), 0u)
        << rest.error().message;
    auto none = loadScript("/nonexistent/x.script", kVerbs);
    ASSERT_FALSE(none.ok());
    EXPECT_EQ(none.error().message, "cannot read the script /nonexistent/x.script");
}

TEST(ChainConfig, EachEntryIsCheckedOnItsOwn) {
    ChainConfig c;
    c.classifiers = {"type", "site(callers=x)", "{size >}", "type,site"};
    c.filters = {"age >= 3", "age >"};
    const ChainCheck check = checkChain(c);
    ASSERT_EQ(check.classifier_errors.size(), 4u);
    EXPECT_TRUE(check.classifier_errors[0].empty());
    EXPECT_FALSE(check.classifier_errors[1].empty());
    EXPECT_FALSE(check.classifier_errors[2].empty());
    EXPECT_EQ(check.classifier_errors[3], "one classifier per entry (this one holds 2)");
    ASSERT_EQ(check.filter_errors.size(), 2u);
    EXPECT_TRUE(check.filter_errors[0].empty());
    EXPECT_NE(check.filter_errors[1].find("expected a value after '>'"), std::string::npos)
        << check.filter_errors[1];
    EXPECT_FALSE(check.ok());
    EXPECT_EQ(check.firstError().rfind("classifier 2: ", 0), 0u);
    EXPECT_FALSE(buildChain(c).ok());

    ChainConfig empty;
    empty.classifiers.clear();
    EXPECT_EQ(checkChain(empty).firstError(), "add at least one classifier");

    ChainConfig good;
    good.classifiers = {"package", "site(callers=2)"};
    good.filters = {"size > 1k"};
    auto chain = buildChain(good);
    ASSERT_TRUE(chain.ok()) << chain.error().message;
    EXPECT_EQ(chain->classifiers.size(), 2u);
    EXPECT_EQ(chain->filters.size(), 1u);
    EXPECT_EQ(chain->spec(), "package,site(callers=2)");
}

TEST(ChainConfig, FromASpecAndReordering) {
    auto c = chainConfigOf("type,site(callers=2),{site.method}", "age >= 2");
    ASSERT_TRUE(c.ok()) << c.error().message;
    EXPECT_EQ(c->classifiers, (std::vector<std::string>{"type", "site(callers=2)", "{site.method}"}));
    EXPECT_EQ(c->filters, std::vector<std::string>{"age >= 2"});
    EXPECT_FALSE(chainConfigOf("type,nope").ok());
    EXPECT_FALSE(chainConfigOf("type", "age >").ok());
    std::vector<std::string> e{"a", "b", "c"};
    EXPECT_FALSE(moveEntry(e, 0, -1));
    EXPECT_FALSE(moveEntry(e, 2, +1));
    EXPECT_FALSE(moveEntry(e, 5, -1));
    EXPECT_TRUE(moveEntry(e, 2, -1));
    EXPECT_EQ(e, (std::vector<std::string>{"a", "c", "b"}));
    EXPECT_TRUE(moveEntry(e, 0, +1));
    EXPECT_EQ(e, (std::vector<std::string>{"c", "a", "b"}));
}

TEST(Inspection, LongRootPathsKeepTheirEnds) {
    const std::string short_path = "static field A.x \xe2\x86\x92 B \xe2\x86\x92 C";
    EXPECT_EQ(shortenPath(short_path), short_path);
    std::string long_path = "static field A.x";
    for (int i = 1; i < 30; ++i)
        long_path += " \xe2\x86\x92 T" + std::to_string(i);
    EXPECT_EQ(
        shortenPath(long_path),
        "static field A.x \xe2\x86\x92 T1 \xe2\x86\x92 T2 \xe2\x86\x92 T3 \xe2\x86\x92 T4 \xe2\x86\x92 T5 "
        "\xe2\x86\x92 \xe2\x80\xa6 19 more \xe2\x80\xa6 \xe2\x86\x92 T25 \xe2\x86\x92 T26 \xe2\x86\x92 T27 "
        "\xe2\x86\x92 T28 \xe2\x86\x92 T29");
}

// The latest job wins: a job waiting to start is dropped, a running one sees its token cancelled.
TEST(Worker, RunsTheLatestJobAndCancelsTheOneRunning) {
    Worker w("test");
    std::atomic<int> started{0}, finished{0}, cancelled{0};
    std::atomic<int> last{0};
    auto job = [&](int n) {
        return [&, n](const CancelToken& token) {
            ++started;
            for (int i = 0; i < 200 && !token.cancelled(); ++i)
                std::this_thread::sleep_for(std::chrono::milliseconds(1));
            if (token.cancelled()) {
                ++cancelled;
                return;
            }
            last = n;
            ++finished;
        };
    };
    w.submit(job(1));
    while (started == 0)
        std::this_thread::yield();
    w.submit(job(2));  // cancels 1
    w.submit(job(3));  // replaces 2 before it starts (or cancels it)
    w.waitIdle();
    EXPECT_TRUE(w.idle());
    EXPECT_EQ(last, 3);
    EXPECT_EQ(finished, 1);
    EXPECT_GE(cancelled, 1);
    EXPECT_LE(started, 3);
}

// Jobs run below the window's priority (nice +10, at most 19), so the picture wins the cores.
TEST(Worker, RunsJobsAtALowerPriority) {
    const int mine = ::getpriority(PRIO_PROCESS, static_cast<id_t>(::gettid()));
    std::atomic<int> theirs{-100};
    Worker w("test");
    w.submit(
        [&](const CancelToken&) { theirs = ::getpriority(PRIO_PROCESS, static_cast<id_t>(::gettid())); });
    w.waitIdle();
    EXPECT_EQ(theirs, std::min(19, mine + 10));
    // The calling thread keeps its own.
    EXPECT_EQ(::getpriority(PRIO_PROCESS, static_cast<id_t>(::gettid())), mine);
}

TEST(Worker, AJobThatThrowsIsReportedAndTheWorkerGoesOn) {
    Worker w("test");
    std::string failure;
    w.submit([](const CancelToken&) { throw std::bad_alloc(); },
             [&](const std::string& message) { failure = message; });
    w.waitIdle();
    EXPECT_EQ(failure, "out of memory: the input needs more than this process may use");
    std::atomic<bool> ran{false};
    w.submit([&](const CancelToken&) { ran = true; });
    w.waitIdle();
    EXPECT_TRUE(ran);
}

}  // namespace
}  // namespace memcity::explore
