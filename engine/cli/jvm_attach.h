// A client for HotSpot's dynamic attach mechanism on Linux (what `jcmd` and the Attach API do):
// the checks a tool makes before it touches a process (a HotSpot JVM, of this user, with attach
// enabled, that will not print a thread dump when signalled), one attach operation, and loading
// a JVMTI agent.
//
// The protocol, as HotSpot's attach listener speaks it (version 1):
//  - The listener is a thread the JVM starts on demand. It listens on the Unix socket
//    /tmp/.java_pid<PID> (always /tmp, whatever java.io.tmpdir says; PID as the JVM sees it).
//  - To start it, a client creates the file .attach_pid<PID> in the JVM's working directory (or
//    in /tmp) and sends SIGQUIT. HotSpot's signal thread sees the file and starts the listener
//    instead of printing a thread dump. Without the file (or with -XX:+DisableAttachMechanism)
//    SIGQUIT prints a thread dump into the program's output; a process that does not catch SIGQUIT
//    (-Xrs, or a JVM still starting) dies of it.
//  - An operation is one connection: the client writes "1\0", the operation's name and three
//    arguments, each NUL-terminated; the JVM accepts only peers with its own effective uid and gid
//    (or root), and answers with its result code on the first line, the operation's output after
//    it, and closes the connection.
//
// Containers: the socket, the trigger file and the perf data are reached through
// /proc/<pid>/root and /proc/<pid>/cwd, so a JVM in another mount namespace (a container, a
// systemd PrivateTmp) works, and the JVM's own pid (the last of NSpid in /proc/<pid>/status)
// names its files. Not handled: a target in a user namespace whose ids map differently (the uid
// check compares ids as this process sees them, HotSpot compares its own), and a JVM this
// process cannot see in /proc (a PID namespace beside or above ours). Nor is another client that
// starts the same JVM's listener at the same moment (jcmd, a second memcity): the protocol has no
// lock, and the later of two signals can print a thread dump.
#pragma once

#include <sys/types.h>

#include <array>
#include <cstdint>
#include <span>
#include <string>
#include <string_view>
#include <vector>

#include "util/result.h"

namespace memcity::cli {

// A process checkAttachable found to be a HotSpot JVM this user may attach to.
struct JvmTarget {
    pid_t pid = 0;     // as this process sees it (kill, /proc)
    pid_t ns_pid = 0;  // as the JVM sees itself (innermost PID namespace): names its files
    uid_t uid = 0;     // the JVM's effective user and group
    gid_t gid = 0;
    std::string command;            // /proc/PID/comm, e.g. "java" (what error messages call it)
    std::string main_class;         // the main class, "-jar" file or module/class; "" when not found
    std::string libjvm;             // the libjvm.so it maps, as a path in its own file system
    bool listener_running = false;  // its attach socket exists: an operation sends no signal
};

// Checks, without sending the JVM anything, that `pid` is a HotSpot JVM this user may attach to:
// the process exists and maps libjvm.so (not OpenJ9's), its effective uid is ours (refused even
// when we are root) and, unless we are root, so is its gid; its attach mechanism is enabled (the
// perf data counter sun.rt.jvmCapabilities, or without perf data its options: the command line
// and JAVA_TOOL_OPTIONS, JDK_JAVA_OPTIONS, _JAVA_OPTIONS in its environment); and, when its
// listener is not running yet, it catches SIGQUIT. The error is one line naming the pid and the
// reason, e.g. "process 1234 (java) was started with -XX:+DisableAttachMechanism: it accepts no
// agent".
Result<JvmTarget> checkAttachable(pid_t pid);

// The JVM's answer to one operation.
struct AttachReply {
    int code = 0;      // the result code on the reply's first line: 0 for success (JNI_OK)
    std::string text;  // the rest of the reply, as the JVM wrote it (operation output, messages)
};

// Sends one attach operation (e.g. "jcmd" with {"VM.version", "", ""}, "properties", "load") to
// the JVM `pid` and returns its reply; a reply with a nonzero code is a reply, not an error.
// checkAttachable runs first. When the listener is not running, the trigger file is created (in
// the JVM's working directory, else its /tmp), one SIGQUIT sent (through a pidfd where the kernel
// has them, so a recycled pid is never signalled) and the socket waited for; the trigger file is
// removed afterwards (kept after a timeout, so that a signal still pending cannot print a thread
// dump when it comes). `timeout_s` bounds each wait: for the listener to start, to connect, to send
// and for the whole reply. Limits of protocol version 1: `command` at most 16 bytes, each argument
// at most 1024 bytes, no NUL in either; the reply at most 64 MiB. The error is one line naming the
// pid and what failed ("no attach listener within 10 s", "connection refused", ...).
Result<AttachReply> attachOperation(pid_t pid, std::string_view command,
                                    const std::array<std::string, 3>& args, double timeout_s = 10);

// Loads the JVMTI agent `library` (an absolute path in the JVM's file system) into the JVM `pid`
// with `options` (passed to Agent_OnAttach; may be empty) and returns what Agent_OnAttach
// returned (0 for success; the JVM unloads an agent that returned anything else). Errors: the
// checks and transport errors of attachOperation, and a library the JVM could not load or that
// has no Agent_OnAttach, with the JVM's reason (e.g. "cannot open shared object file: No such
// file or directory"). JDK 21+ print a warning on the JVM's stderr unless it was started with
// -XX:+EnableDynamicAgentLoading, and may refuse with -XX:-EnableDynamicAgentLoading.
Result<int> loadAgent(pid_t pid, const std::string& library, const std::string& options,
                      double timeout_s = 10);

// ---- The parsers beneath, exposed for tests on hand-made input ----

// The value of the string counter `name` (e.g. "sun.rt.jvmCapabilities") in HotSpot perf data
// (the bytes of /tmp/hsperfdata_<user>/<pid>): a prologue (magic 0xcafec0c0, byte order, entry
// offset and count) and entries (length, name offset, vector length, type, data offset). Any
// byte order; every offset is checked against `perf_data`. Error (without a file name) for
// malformed data or when there is no such string counter.
Result<std::string> perfDataString(std::span<const uint8_t> perf_data, std::string_view name);

// What a JVM's options say about -XX:+DisableAttachMechanism.
enum class AttachSwitch {
    kEnabled,   // not mentioned, or the last mention is -XX:-DisableAttachMechanism
    kDisabled,  // the last mention is -XX:+DisableAttachMechanism
    kUnknown,   // options memcity cannot read: a launcher other than java, an @argfile, -XX:Flags=,
                // -XX:VMOptionsFile=
};

// A java command line as the launcher reads it: the JVM options end at the main class (or
// -jar FILE, -m MODULE/CLASS, a source file); what follows is the program's.
struct JavaCommandLine {
    std::string main_class;  // "" when not found
    AttachSwitch attach = AttachSwitch::kEnabled;
};

// Parses `argv` (from /proc/PID/cmdline) with the environment `environment` ("NAME=value" each),
// in HotSpot's order of precedence: JAVA_TOOL_OPTIONS, JDK_JAVA_OPTIONS, the command line,
// _JAVA_OPTIONS (the last mention of a flag wins).
JavaCommandLine parseJavaCommandLine(const std::vector<std::string>& argv,
                                     const std::vector<std::string>& environment);

// Splits a raw reply into its result code (the first line, a decimal integer) and the rest.
// Error for an empty reply (the JVM closed the connection without answering: it rejects an
// operation it cannot read) or a first line that is not a number.
Result<AttachReply> parseAttachReply(std::string_view raw);

// Agent_OnAttach's return code from the reply to "load". Loaded: "0\nreturn code: <rc>\n" (JDK 21+,
// and JDK 17 updates since the change was backported: seen from 17.0.15 and 25.0.3), or
// "0\n<rc>\n" (older JDKs). Not loaded: the reason as text, after -1 (JDK 17) or after 0 (JDK 21+).
// Errors begin with `who` (e.g. "process 1234 (java)") and carry the JVM's reason on one line.
Result<int> agentReturnCode(std::string_view who, const AttachReply& reply);

}  // namespace memcity::cli
