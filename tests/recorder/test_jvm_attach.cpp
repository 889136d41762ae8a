// The attach client (engine/cli/jvm_attach.h): its parsers on hand-made perf data, command lines
// and replies; then real JVMs (the build's JDK and Temurin 25, each test on each): checks, jcmd
// twice, agents loaded with their return codes, and the refusals that must leave the program's
// output free of a thread dump and the program running.
#include <gtest/gtest.h>
#include <pwd.h>
#include <signal.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include <chrono>
#include <filesystem>
#include <fstream>
#include <regex>
#include <thread>

#include "cli/jvm_attach.h"
#include "recorder/process.h"

namespace memcity {
namespace {

namespace fs = std::filesystem;
using cli::AttachReply;
using cli::AttachSwitch;
using testing::Process;

// ---- Perf data, command lines and replies, hand-made ----

// A perf data file: a scalar counter, then the string counters `strings`, in either byte order.
std::vector<uint8_t> perfData(const std::vector<std::pair<std::string, std::string>>& strings,
                              bool big_endian) {
    std::vector<uint8_t> d(32, 0);
    auto put32 = [&](size_t at, uint32_t v) {
        for (size_t i = 0; i < 4; ++i)
            d[at + (big_endian ? i : 3 - i)] = static_cast<uint8_t>(v >> (24 - 8 * i));
    };
    d[0] = 0xca, d[1] = 0xfe, d[2] = 0xc0, d[3] = 0xc0;
    d[4] = big_endian ? 0 : 1;
    d[5] = 2;  // version 2.0
    d[7] = 1;  // accessible
    auto entry = [&](const std::string& name, char type, const std::string& value) {
        const size_t at = d.size();
        const size_t name_at = 20;
        const size_t data_at = (name_at + name.size() + 1 + 7) / 8 * 8;
        const size_t vector = type == 'B' ? value.size() + 1 : 0;
        const size_t length = (data_at + (type == 'B' ? vector : 8) + 7) / 8 * 8;
        d.resize(at + length, 0);
        put32(at, static_cast<uint32_t>(length));
        put32(at + 4, static_cast<uint32_t>(name_at));
        put32(at + 8, static_cast<uint32_t>(vector));
        d[at + 12] = static_cast<uint8_t>(type);
        put32(at + 16, static_cast<uint32_t>(data_at));
        std::copy(name.begin(), name.end(), d.begin() + static_cast<ptrdiff_t>(at + name_at));
        std::copy(value.begin(), value.end(), d.begin() + static_cast<ptrdiff_t>(at + data_at));
    };
    entry("sun.rt.createVmBeginTime", 'J', "");
    for (const auto& [name, value] : strings)
        entry(name, 'B', value);
    put32(8, static_cast<uint32_t>(d.size()));  // used
    put32(24, 32);                              // entries start after the prologue
    put32(28, static_cast<uint32_t>(1 + strings.size()));
    d.resize(d.size() + 64, 0);  // the rest of the file, unused
    return d;
}

std::string perfString(const std::vector<uint8_t>& d, std::string_view name) {
    Result<std::string> r = cli::perfDataString(d, name);
    return r.ok() ? "value " + *r : "error " + r.error().message;
}

TEST(JvmAttachParse, PerfDataStringsInBothByteOrders) {
    for (bool big : {false, true}) {
        const auto d = perfData({{"java.property.java.vm.name", "OpenJDK 64-Bit Server VM"},
                                 {"sun.rt.jvmCapabilities", "1100000000"}},
                                big);
        EXPECT_EQ(perfString(d, "sun.rt.jvmCapabilities"), "value 1100000000");
        EXPECT_EQ(perfString(d, "java.property.java.vm.name"), "value OpenJDK 64-Bit Server VM");
        EXPECT_EQ(perfString(d, "sun.rt.jvm"), "error perf data: no counter sun.rt.jvm");
        EXPECT_EQ(perfString(d, "sun.rt.createVmBeginTime"),
                  "error perf data: counter sun.rt.createVmBeginTime is not a string");
    }
}

TEST(JvmAttachParse, PerfDataMalformed) {
    const auto good = perfData({{"sun.rt.jvmCapabilities", "0100"}}, false);
    EXPECT_EQ(perfString(good, "sun.rt.jvmCapabilities"), "value 0100");
    // Cut anywhere: an error or the value, never a read past the end.
    for (size_t n = 0; n < good.size(); ++n) {
        const std::vector<uint8_t> cut(good.begin(), good.begin() + static_cast<ptrdiff_t>(n));
        const std::string s = perfString(cut, "sun.rt.jvmCapabilities");
        EXPECT_TRUE(s.starts_with("error perf data: ") || s == "value 0100") << n << ": " << s;
    }
    EXPECT_EQ(perfString({}, "x"), "error perf data: shorter than its prologue (0 bytes)");
    auto bad = good;
    bad[0] = 0;
    EXPECT_EQ(perfString(bad, "x"), "error perf data: no magic number 0xcafec0c0");
    bad = good;
    bad[7] = 0;
    EXPECT_EQ(perfString(bad, "x"), "error perf data: not accessible yet (the JVM is starting)");
    bad = good;
    bad[32] = bad[33] = bad[34] = bad[35] = 0;  // the first entry's length: 0 would loop forever
    EXPECT_EQ(perfString(bad, "x"), "error perf data: entry 0 at offset 32: bad length 0");
    bad = good;
    bad[36] = 0xff;  // its name offset past the entry
    EXPECT_EQ(perfString(bad, "x"), "error perf data: entry 0 at offset 32: name offset out of the entry");
    bad = good;
    bad[28] = 0xff, bad[29] = 0xff, bad[30] = 0xff, bad[31] = 0x7f;  // 2^31 - 1 entries
    EXPECT_EQ(perfString(bad, "x"), "error perf data: entry 2 at offset 144: past the used bytes");
    EXPECT_EQ(perfString(bad, "sun.rt.jvmCapabilities"), "value 0100");
}

cli::JavaCommandLine parse(std::vector<std::string> argv, std::vector<std::string> environment = {}) {
    return cli::parseJavaCommandLine(argv, environment);
}

TEST(JvmAttachParse, CommandLines) {
    const std::string java = "/usr/lib/jvm/jdk/bin/java";
    auto c = parse(
        {java, "-cp", "-XX:+DisableAttachMechanism", "-Xmx1g", "app.Main", "-XX:+DisableAttachMechanism"});
    EXPECT_EQ(c.main_class,
              "app.Main");  // a class path that looks like the flag, a program argument that is it
    EXPECT_EQ(c.attach, AttachSwitch::kEnabled);
    c = parse({java, "-XX:+DisableAttachMechanism", "-jar", "app.jar"});
    EXPECT_EQ(c.main_class, "app.jar");
    EXPECT_EQ(c.attach, AttachSwitch::kDisabled);
    c = parse({java, "--module-path", "mods", "-m", "app/app.Main"});
    EXPECT_EQ(c.main_class, "app/app.Main");
    EXPECT_EQ(parse({java, "--module=app/app.Main"}).main_class, "app/app.Main");
    EXPECT_EQ(parse({java, "--source", "21", "Hello.java"}).main_class, "Hello.java");
    EXPECT_EQ(parse({java, "-version"}).main_class, "");
    // The last mention wins, in HotSpot's order: JAVA_TOOL_OPTIONS, JDK_JAVA_OPTIONS, the command
    // line, _JAVA_OPTIONS.
    EXPECT_EQ(parse({java, "-XX:-DisableAttachMechanism", "Main"},
                    {"JAVA_TOOL_OPTIONS=-XX:+DisableAttachMechanism"})
                  .attach,
              AttachSwitch::kEnabled);
    EXPECT_EQ(parse({java, "Main"}, {"JAVA_TOOL_OPTIONS=-Xmx1g  '-XX:+DisableAttachMechanism'"}).attach,
              AttachSwitch::kDisabled);
    EXPECT_EQ(parse({java, "Main"}, {"JDK_JAVA_OPTIONS=-XX:DisableAttachMechanism=true"}).attach,
              AttachSwitch::kDisabled);
    EXPECT_EQ(
        parse({java, "-XX:+DisableAttachMechanism", "Main"}, {"_JAVA_OPTIONS=-XX:-DisableAttachMechanism"})
            .attach,
        AttachSwitch::kEnabled);
    EXPECT_EQ(parse({java, "Main"}, {"MY_JAVA_TOOL_OPTIONS=-XX:+DisableAttachMechanism"}).attach,
              AttachSwitch::kEnabled);
    // Options memcity cannot read.
    EXPECT_EQ(parse({java, "@options.txt", "Main"}).attach, AttachSwitch::kUnknown);
    EXPECT_EQ(parse({java, "-XX:VMOptionsFile=jvm.opts", "Main"}).attach, AttachSwitch::kUnknown);
    EXPECT_EQ(parse({"/opt/app/bin/server", "--port", "80"}).attach, AttachSwitch::kUnknown);
    EXPECT_EQ(parse({}).attach, AttachSwitch::kUnknown);
}

std::string reply(std::string_view raw) {
    Result<AttachReply> r = cli::parseAttachReply(raw);
    return r.ok() ? std::to_string(r->code) + "|" + r->text : "error " + r.error().message;
}

TEST(JvmAttachParse, Replies) {
    EXPECT_EQ(reply("0\nJDK 17.0.15\n"), "0|JDK 17.0.15\n");
    EXPECT_EQ(reply("-1\njava.lang.IllegalArgumentException: Unknown diagnostic command\n"),
              "-1|java.lang.IllegalArgumentException: Unknown diagnostic command\n");
    EXPECT_EQ(reply("0"), "0|");
    EXPECT_EQ(reply("101\r\n"), "101|");
    EXPECT_EQ(reply(""), "error the JVM closed the connection without a reply");
    EXPECT_EQ(reply("ok\n"), "error a malformed reply: \"ok\\n\"");
    EXPECT_EQ(reply("99999999999\n"), "error a malformed reply: \"99999999999\\n\"");
    EXPECT_EQ(reply(std::string("\0\x01\n", 3)), "error a malformed reply: \"\\x00\\x01\\n\"");
}

std::string agentCode(int code, std::string text) {
    Result<int> r = cli::agentReturnCode("process 1 (java)", AttachReply{code, std::move(text)});
    return r.ok() ? "rc " + std::to_string(*r) : r.error().message;
}

TEST(JvmAttachParse, AgentReturnCodesOfOldAndNewJdks) {
    // Older JDKs: "0\n<rc>\n".
    EXPECT_EQ(agentCode(0, "0\n"), "rc 0");
    EXPECT_EQ(agentCode(0, "7\n"), "rc 7");
    // JDK 17 (17.0.15 as observed): -1 and the reason when not loaded.
    EXPECT_EQ(
        agentCode(
            -1, "/x.so was not loaded.\n/x.so: cannot open shared object file: No such file or directory\n"),
        "process 1 (java) did not load the agent: /x.so was not loaded.; /x.so: cannot open shared object "
        "file: No such file or directory");
    // JDK 21+ and 17.0.15 (as observed): "0\nreturn code: <rc>\n"; JDK 21+ (25.0.3 as observed): 0
    // and the reason when not loaded.
    EXPECT_EQ(agentCode(0, "return code: 0\n"), "rc 0");
    EXPECT_EQ(agentCode(0, "return code: -3\n"), "rc -3");
    EXPECT_EQ(agentCode(0, "Agent_OnAttach is not available in /x.so\n"),
              "process 1 (java) did not load the agent: Agent_OnAttach is not available in /x.so");
    EXPECT_EQ(agentCode(0, "return code: many\n"),
              "process 1 (java) did not load the agent: return code: many");
    EXPECT_EQ(agentCode(0, ""),
              "process 1 (java) did not load the agent: the JVM gave no reason (result code 0)");
    EXPECT_EQ(agentCode(100, ""),
              "process 1 (java) did not load the agent: the JVM gave no reason (result code 100)");
}

// ---- Real JVMs ----

struct Jdk {
    std::string name;  // in the test's name
    std::string home;
};

// Test names say the JDK, not its bytes.
void PrintTo(const Jdk& jdk, std::ostream* out) {
    *out << jdk.name << " at " << jdk.home;
}

// The major version in JAVA_HOME/release ("JAVA_VERSION=\"17.0.15\"" says 17), or "".
std::string majorVersion(const std::string& home) {
    std::ifstream in(home + "/release");
    const std::regex version("^JAVA_VERSION=\"([0-9]+)");
    std::smatch m;
    for (std::string line; std::getline(in, line);)
        if (std::regex_search(line, m, version)) return m[1].str();
    return {};
}

bool contains(const std::string& s, std::string_view part) {
    return s.find(part) != std::string::npos;
}

// A JVM of the test, killed with its process group if the test ends before it does.
struct Jvm {
    Process p;
    pid_t pid = -1;  // as the JVM says it ("ready <pid>")

    Jvm() = default;
    Jvm(const Jvm&) = delete;
    Jvm& operator=(const Jvm&) = delete;
    ~Jvm() {
        if (p.pid > 0 && p.status == -1) {
            kill(-p.pid, SIGKILL);
            testing::finish(p, 10);
        }
    }
    std::string output() const { return p.stdout_text + p.stderr_text; }
};

class JvmAttach : public ::testing::TestWithParam<Jdk> {
public:
    static void SetUpTestSuite() {
        // World-readable, for a JVM of another user.
        classes_ = fs::temp_directory_path() / ("memcity-attach-" + std::to_string(getpid()));
        fs::create_directories(classes_);
        fs::permissions(classes_, fs::perms::owner_all | fs::perms::group_read | fs::perms::group_exec |
                                      fs::perms::others_read | fs::perms::others_exec);
        Process p = testing::run({std::string(MEMCITY_JAVA_HOME) + "/bin/javac", "--release", "17", "-d",
                                  classes_.string(), std::string(MEMCITY_JAVA_SOURCES) + "/Sleeper.java"});
        ASSERT_EQ(p.status, 0) << p.stderr_text;
    }
    static void TearDownTestSuite() { fs::remove_all(classes_); }

protected:
    void SetUp() override {
        if (!fs::exists(GetParam().home + "/bin/java")) GTEST_SKIP() << "no JDK at " << GetParam().home;
    }

    // Starts Sleeper with `flags`, behind `prefix` (env, setpriv), and waits for its "ready".
    void start(Jvm& jvm, const std::vector<std::string>& flags, const std::vector<std::string>& prefix = {}) {
        std::vector<std::string> argv = prefix;
        argv.insert(argv.end(), {GetParam().home + "/bin/java", "-Xmx64m", "-cp", classes_.string()});
        argv.insert(argv.end(), flags.begin(), flags.end());
        argv.push_back("Sleeper");
        jvm.p = testing::start(argv);
        const std::string pid = testing::waitForOutput(jvm.p, "ready ([0-9]+)", 60);
        ASSERT_FALSE(pid.empty()) << jvm.output();
        jvm.pid = std::stoi(pid);
        ASSERT_EQ(jvm.pid, jvm.p.pid);  // exec'd by the prefix, not a child of it
    }

    // The program still answers its stdin, exits 0, and printed no thread dump.
    static void expectStillWorks(Jvm& jvm) {
        ASSERT_EQ(write(jvm.p.in, "hello\n", 6), 6);
        EXPECT_EQ(testing::waitForOutput(jvm.p, "(echo hello)", 30), "echo hello") << jvm.output();
        testing::finish(jvm.p, 60);
        EXPECT_EQ(jvm.p.status, 0) << jvm.output();
        EXPECT_FALSE(contains(jvm.output(), "Full thread dump")) << jvm.output();
    }

    // The JVM's trigger files are gone.
    static void expectNoTriggerFile(pid_t pid) {
        const std::string name = ".attach_pid" + std::to_string(pid);
        EXPECT_FALSE(fs::exists("/proc/" + std::to_string(pid) + "/cwd/" + name));
        EXPECT_FALSE(fs::exists("/tmp/" + name));
    }

    // Every way in refuses `pid` with `message`.
    static void expectRefused(pid_t pid, const std::string& message) {
        Result<cli::JvmTarget> check = cli::checkAttachable(pid);
        ASSERT_FALSE(check.ok());
        EXPECT_EQ(check.error().message, message);
        Result<AttachReply> op = cli::attachOperation(pid, "jcmd", {"VM.version", "", ""}, 5);
        ASSERT_FALSE(op.ok());
        EXPECT_EQ(op.error().message, message);
        Result<int> load = cli::loadAgent(pid, MEMCITY_ATTACH_AGENT_0, "", 5);
        ASSERT_FALSE(load.ok());
        EXPECT_EQ(load.error().message, message);
    }

    // sun.rt.jvmCapabilities from the JVM's perf data file, read here, or the error.
    static std::string capabilities(pid_t pid) {
        const passwd* pw = getpwuid(geteuid());
        if (!pw) return "no user name";
        std::ifstream in(std::string("/tmp/hsperfdata_") + pw->pw_name + "/" + std::to_string(pid),
                         std::ios::binary);
        const std::vector<char> bytes{std::istreambuf_iterator<char>(in), std::istreambuf_iterator<char>()};
        Result<std::string> caps =
            cli::perfDataString(std::span(reinterpret_cast<const uint8_t*>(bytes.data()), bytes.size()),
                                "sun.rt.jvmCapabilities");
        return caps.ok() ? *caps : caps.error().message;
    }

    static fs::path classes_;
};

fs::path JvmAttach::classes_;

TEST_P(JvmAttach, ChecksThenRunsJcmdTwice) {
    Jvm jvm;
    ASSERT_NO_FATAL_FAILURE(start(jvm, {}));
    Result<cli::JvmTarget> t = cli::checkAttachable(jvm.pid);
    ASSERT_TRUE(t.ok()) << t.error().message;
    EXPECT_EQ(t->pid, jvm.pid);
    EXPECT_EQ(t->ns_pid, jvm.pid);
    EXPECT_EQ(t->uid, geteuid());
    EXPECT_EQ(t->gid, getegid());
    EXPECT_EQ(t->command, "java");
    EXPECT_EQ(t->main_class, "Sleeper");
    EXPECT_TRUE(t->libjvm.ends_with("/lib/server/libjvm.so")) << t->libjvm;
    EXPECT_FALSE(t->listener_running);
    EXPECT_EQ(capabilities(jvm.pid).substr(0, 1), "1");

    // The first operation starts the listener; the second finds it running.
    const std::string version = "JDK " + majorVersion(GetParam().home) + ".";
    for (int i = 0; i < 2; ++i) {
        Result<AttachReply> r = cli::attachOperation(jvm.pid, "jcmd", {"VM.version", "", ""});
        ASSERT_TRUE(r.ok()) << r.error().message;
        EXPECT_EQ(r->code, 0) << r->text;
        EXPECT_TRUE(contains(r->text, version)) << r->text;
        EXPECT_TRUE(contains(r->text, "64-Bit Server VM version")) << r->text;
        t = cli::checkAttachable(jvm.pid);
        ASSERT_TRUE(t.ok()) << t.error().message;
        EXPECT_TRUE(t->listener_running);
    }
    expectNoTriggerFile(jvm.pid);

    // A command the JVM rejects is a reply, not an error.
    Result<AttachReply> bad = cli::attachOperation(jvm.pid, "jcmd", {"No.such.command", "", ""});
    ASSERT_TRUE(bad.ok()) << bad.error().message;
    EXPECT_EQ(bad->code, -1);
    EXPECT_EQ(bad->text, "java.lang.IllegalArgumentException: Unknown diagnostic command\n");
    // What the JVM would not read is refused before it is sent.
    Result<AttachReply> too_long = cli::attachOperation(jvm.pid, "jcmd", {std::string(1025, 'x'), "", ""});
    ASSERT_FALSE(too_long.ok());
    EXPECT_TRUE(too_long.error().message.starts_with(
        "process " + std::to_string(jvm.pid) + " (java): an argument of 'jcmd' is longer than 1024 bytes"))
        << too_long.error().message;

    // One of its threads is not the process.
    pid_t thread = 0;
    for (const auto& e : fs::directory_iterator("/proc/" + std::to_string(jvm.pid) + "/task"))
        if (e.path().filename() != std::to_string(jvm.pid)) thread = std::stoi(e.path().filename().string());
    ASSERT_NE(thread, 0);
    Result<cli::JvmTarget> not_process = cli::checkAttachable(thread);
    ASSERT_FALSE(not_process.ok());
    EXPECT_TRUE(not_process.error().message.ends_with(" is a thread of process " + std::to_string(jvm.pid) +
                                                      ": give the process id"))
        << not_process.error().message;
    expectStillWorks(jvm);
}

TEST_P(JvmAttach, LoadsAgentsAndSaysWhyNot) {
    Jvm jvm;
    ASSERT_NO_FATAL_FAILURE(start(jvm, {}));
    const std::string who = "process " + std::to_string(jvm.pid) + " (java)";

    Result<int> missing = cli::loadAgent(jvm.pid, "/nonexistent/libagent.so", "");
    ASSERT_FALSE(missing.ok());
    EXPECT_EQ(missing.error().message,
              who +
                  " did not load the agent: /nonexistent/libagent.so was not loaded.; "
                  "/nonexistent/libagent.so: cannot open shared object file: No such file "
                  "or directory");
    Result<int> relative = cli::loadAgent(jvm.pid, "libagent.so", "");
    ASSERT_FALSE(relative.ok());
    EXPECT_EQ(relative.error().message,
              "process " + std::to_string(jvm.pid) +
                  ": the agent library must be an absolute path, not \"libagent.so\"");
    Result<int> no_entry = cli::loadAgent(jvm.pid, MEMCITY_ATTACH_AGENT_NONE, "");
    ASSERT_FALSE(no_entry.ok());
    EXPECT_EQ(no_entry.error().message, who + " did not load the agent: Agent_OnAttach is not available in " +
                                            MEMCITY_ATTACH_AGENT_NONE);

    Result<int> zero = cli::loadAgent(jvm.pid, MEMCITY_ATTACH_AGENT_0, "out=/tmp/x.mct,depth=4");
    ASSERT_TRUE(zero.ok()) << zero.error().message;
    EXPECT_EQ(*zero, 0);
    Result<int> seven = cli::loadAgent(jvm.pid, MEMCITY_ATTACH_AGENT_7, "");
    ASSERT_TRUE(seven.ok()) << seven.error().message;
    EXPECT_EQ(*seven, 7);
    EXPECT_TRUE(contains(testing::waitForOutput(jvm.p, "(attach agent: options '', returning 7)", 30), "7"))
        << jvm.output();
    EXPECT_TRUE(contains(jvm.p.stdout_text, "attach agent: options 'out=/tmp/x.mct,depth=4', returning 0\n"))
        << jvm.output();
    expectNoTriggerFile(jvm.pid);
    expectStillWorks(jvm);
}

// The perf data says it, also where the command line cannot (the flag in an options file).
TEST_P(JvmAttach, RefusesDisabledAttachFromPerfData) {
    const std::string options = (classes_ / "disabled.opts").string();
    std::ofstream(options) << "-XX:+DisableAttachMechanism\n";
    for (const std::string& flag :
         {std::string("-XX:+DisableAttachMechanism"), "-XX:VMOptionsFile=" + options}) {
        Jvm jvm;
        ASSERT_NO_FATAL_FAILURE(start(jvm, {flag}));
        EXPECT_EQ(capabilities(jvm.pid).substr(0, 1), "0");
        expectRefused(jvm.pid,
                      "process " + std::to_string(jvm.pid) +
                          " (java) was started with -XX:+DisableAttachMechanism: it accepts no agent");
        expectNoTriggerFile(jvm.pid);
        expectStillWorks(jvm);
    }
}

// Options in a file: with perf data, attach goes on; without, memcity cannot tell and sends no
// signal.
TEST_P(JvmAttach, OptionsFileNeedsPerfData) {
    const std::string options = (classes_ / "plain.opts").string();
    std::ofstream(options) << "-Xss1m\n";
    Jvm with;
    ASSERT_NO_FATAL_FAILURE(start(with, {"-XX:VMOptionsFile=" + options}));
    EXPECT_EQ(capabilities(with.pid).substr(0, 1), "1");
    Result<AttachReply> r = cli::attachOperation(with.pid, "jcmd", {"VM.version", "", ""});
    ASSERT_TRUE(r.ok()) << r.error().message;
    EXPECT_EQ(r->code, 0);
    expectStillWorks(with);

    Jvm without;
    ASSERT_NO_FATAL_FAILURE(start(without, {"-XX:-UsePerfData", "-XX:VMOptionsFile=" + options}));
    expectRefused(without.pid, "process " + std::to_string(without.pid) +
                                   " (java): memcity cannot tell whether it was started with "
                                   "-XX:+DisableAttachMechanism (no perf data, and options from a file or a "
                                   "launcher other than java), so it sends no SIGQUIT to start its attach "
                                   "listener");
    expectNoTriggerFile(without.pid);
    expectStillWorks(without);
}

// Without perf data the options say it: the command line, or JAVA_TOOL_OPTIONS.
TEST_P(JvmAttach, RefusesDisabledAttachFromOptions) {
    for (bool in_environment : {false, true}) {
        Jvm jvm;
        if (in_environment)
            ASSERT_NO_FATAL_FAILURE(start(jvm, {"-XX:-UsePerfData"},
                                          {"env", "JAVA_TOOL_OPTIONS=-Xss1m -XX:+DisableAttachMechanism"}));
        else
            ASSERT_NO_FATAL_FAILURE(start(jvm, {"-XX:-UsePerfData", "-XX:+DisableAttachMechanism"}));
        expectRefused(jvm.pid,
                      "process " + std::to_string(jvm.pid) +
                          " (java) was started with -XX:+DisableAttachMechanism: it accepts no agent");
        expectStillWorks(jvm);
    }
}

TEST_P(JvmAttach, AttachesWithoutPerfData) {
    Jvm jvm;
    ASSERT_NO_FATAL_FAILURE(start(jvm, {"-XX:-UsePerfData"}));
    Result<AttachReply> r = cli::attachOperation(jvm.pid, "jcmd", {"VM.version", "", ""});
    ASSERT_TRUE(r.ok()) << r.error().message;
    EXPECT_EQ(r->code, 0);
    Result<int> rc = cli::loadAgent(jvm.pid, MEMCITY_ATTACH_AGENT_7, "again");
    ASSERT_TRUE(rc.ok()) << rc.error().message;
    EXPECT_EQ(*rc, 7);
    expectStillWorks(jvm);
}

// -Xrs: HotSpot catches no SIGQUIT (it would die of one) and starts its listener at startup
// instead. Attach needs no signal; once the listener's socket is gone (a /tmp cleaner), none
// can start it again, and memcity says so rather than kill the program.
TEST_P(JvmAttach, NeverSignalsJvmThatDoesNotCatchSigQuit) {
    Jvm jvm;
    ASSERT_NO_FATAL_FAILURE(start(jvm, {"-Xrs"}));
    Result<cli::JvmTarget> t = cli::checkAttachable(jvm.pid);
    ASSERT_TRUE(t.ok()) << t.error().message;
    EXPECT_TRUE(t->listener_running);
    Result<AttachReply> r = cli::attachOperation(jvm.pid, "jcmd", {"VM.version", "", ""});
    ASSERT_TRUE(r.ok()) << r.error().message;
    EXPECT_EQ(r->code, 0);

    ASSERT_TRUE(fs::remove("/tmp/.java_pid" + std::to_string(jvm.pid)));
    expectRefused(jvm.pid,
                  "process " + std::to_string(jvm.pid) +
                      " (java) does not catch SIGQUIT (started with -Xrs, or still starting): its attach "
                      "listener cannot be started");
    expectNoTriggerFile(jvm.pid);
    expectStillWorks(jvm);
}

// Waits up to 10 s for the state letter in /proc/PID/status to be `state`.
bool waitForState(pid_t pid, char state) {
    const auto deadline = std::chrono::steady_clock::now() + std::chrono::seconds(10);
    while (std::chrono::steady_clock::now() < deadline) {
        std::ifstream in("/proc/" + std::to_string(pid) + "/status");
        for (std::string line; std::getline(in, line);)
            if (line.starts_with("State:\t") && line.size() > 7 && line[7] == state) return true;
        std::this_thread::sleep_for(std::chrono::milliseconds(10));
    }
    return false;
}

// A JVM that does not answer: the operation gives up after its timeout, and works once it answers.
TEST_P(JvmAttach, TimesOutOnStoppedJvm) {
    Jvm jvm;
    ASSERT_NO_FATAL_FAILURE(start(jvm, {}));
    // Stopped before its listener runs: no signal (it would wait, pending, past any timeout).
    ASSERT_EQ(kill(jvm.pid, SIGSTOP), 0);
    ASSERT_TRUE(waitForState(jvm.pid, 'T'));
    Result<cli::JvmTarget> stopped = cli::checkAttachable(jvm.pid);
    ASSERT_FALSE(stopped.ok());
    EXPECT_EQ(stopped.error().message, "process " + std::to_string(jvm.pid) +
                                           " (java) is stopped (SIGSTOP, or a debugger): its attach listener "
                                           "cannot be started now");
    ASSERT_EQ(kill(jvm.pid, SIGCONT), 0);

    ASSERT_TRUE(cli::attachOperation(jvm.pid, "jcmd", {"VM.version", "", ""}).ok());  // listener up
    ASSERT_EQ(kill(jvm.pid, SIGSTOP), 0);
    ASSERT_TRUE(waitForState(jvm.pid, 'T'));
    const auto before = std::chrono::steady_clock::now();
    Result<AttachReply> r = cli::attachOperation(jvm.pid, "jcmd", {"VM.version", "", ""}, 0.5);
    const double took = std::chrono::duration<double>(std::chrono::steady_clock::now() - before).count();
    ASSERT_EQ(kill(jvm.pid, SIGCONT), 0);
    ASSERT_FALSE(r.ok());
    EXPECT_EQ(r.error().message,
              "process " + std::to_string(jvm.pid) + " (java): no reply to 'jcmd' within 0.5 s");
    EXPECT_LT(took, 5.0);
    Result<AttachReply> again = cli::attachOperation(jvm.pid, "jcmd", {"VM.version", "", ""});
    ASSERT_TRUE(again.ok()) << again.error().message;
    EXPECT_EQ(again->code, 0);
    expectStillWorks(jvm);
}

TEST_P(JvmAttach, RefusesJvmOfAnotherUser) {
    if (geteuid() != 0) GTEST_SKIP() << "needs root, to start a JVM as another user";
    if (access("/usr/bin/setpriv", X_OK) != 0) GTEST_SKIP() << "needs setpriv (util-linux)";
    Jvm jvm;
    ASSERT_NO_FATAL_FAILURE(
        start(jvm, {}, {"/usr/bin/setpriv", "--reuid=65534", "--regid=65534", "--clear-groups"}));
    const passwd* pw = getpwuid(65534);
    const std::string user = pw ? "user " + std::string(pw->pw_name) + " (uid 65534)" : "uid 65534";
    expectRefused(jvm.pid, "process " + std::to_string(jvm.pid) + " (java) belongs to " + user +
                               ": memcity attaches only to your own processes");
    expectNoTriggerFile(jvm.pid);
    expectStillWorks(jvm);
}

INSTANTIATE_TEST_SUITE_P(Jdks, JvmAttach,
                         ::testing::Values(Jdk{"BuildJdk", MEMCITY_JAVA_HOME},
                                           Jdk{"Temurin25", "/usr/lib/jvm/temurin-25-jdk-amd64"}),
                         [](const ::testing::TestParamInfo<Jdk>& param_info) {
                             return param_info.param.name;
                         });

// ---- Processes that are not JVMs ----

TEST(JvmAttachRefusals, ProcessThatIsNotAJvm) {
    Process sleeper = testing::start({"sleep", "30"});
    // Until it has exec'd, it is still the test's fork.
    const auto deadline = std::chrono::steady_clock::now() + std::chrono::seconds(10);
    std::string comm;
    while (comm != "sleep" && std::chrono::steady_clock::now() < deadline) {
        std::this_thread::sleep_for(std::chrono::milliseconds(10));
        std::ifstream in("/proc/" + std::to_string(sleeper.pid) + "/comm");
        std::getline(in, comm);
    }
    const std::string message =
        "process " + std::to_string(sleeper.pid) + " (sleep) is not a Java virtual machine";
    Result<cli::JvmTarget> check = cli::checkAttachable(sleeper.pid);
    ASSERT_FALSE(check.ok());
    EXPECT_EQ(check.error().message, message);
    Result<AttachReply> op = cli::attachOperation(sleeper.pid, "jcmd", {"VM.version", "", ""});
    ASSERT_FALSE(op.ok());
    EXPECT_EQ(op.error().message, message);
    // Still asleep: no SIGQUIT reached it (it would have died of it).
    int raw = 0;
    EXPECT_EQ(waitpid(sleeper.pid, &raw, WNOHANG), 0);
    kill(sleeper.pid, SIGKILL);
    testing::finish(sleeper, 10);
    EXPECT_EQ(sleeper.status, 128 + SIGKILL);
}

TEST(JvmAttachRefusals, ProcessThatDoesNotExist) {
    const pid_t child = fork();
    if (child == 0) _exit(0);
    ASSERT_GT(child, 0);
    ASSERT_EQ(waitpid(child, nullptr, 0), child);
    const std::string gone = "process " + std::to_string(child) + " does not exist";
    Result<cli::JvmTarget> check = cli::checkAttachable(child);
    ASSERT_FALSE(check.ok());
    EXPECT_EQ(check.error().message, gone);
    Result<int> load = cli::loadAgent(child, MEMCITY_ATTACH_AGENT_0, "");
    ASSERT_FALSE(load.ok());
    EXPECT_EQ(load.error().message, gone);
    for (pid_t bad : {0, -1}) {
        Result<AttachReply> op = cli::attachOperation(bad, "jcmd", {"VM.version", "", ""});
        ASSERT_FALSE(op.ok());
        EXPECT_EQ(op.error().message,
                  "process " + std::to_string(bad) + " does not exist (not a process id)");
    }
}

}  // namespace
}  // namespace memcity
