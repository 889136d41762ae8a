// What memcity record and memcity attach share: the options that say where the trace goes and
// what the agent records, the agent they load, and the summary they print at the end.
#pragma once

#include <cstdint>
#include <string>
#include <string_view>
#include <vector>

#include "cli/args.h"
#include "cli/commands.h"
#include "util/result.h"

namespace memcity::cli {

struct LoadedTrace;

struct RecordingOptions {
    std::string out;   // -o as given (for messages)
    std::string file;  // its absolute path: the JVM may run in another directory
    uint32_t depth = 8;
    std::string refs = "1";  // N or "off"
    std::string sites = "walk";
    // --sampled: the heap sampler's mean interval in bytes (docs/recorder.md, "Sampled
    // recording"); 0 records every allocation.
    uint64_t interval = 0;
    bool live = false;
    Words window;  // the window's options (--script FILE)
};
// Their options as `--help` lists them: --output, --sampled, --interval, --depth, --refs,
// `after_refs`, --sites, `after_sites`, --live, --script. Where the two commands word an option
// their own way, the words are theirs.
struct RecordingOptionsHelp {
    std::string_view sampled;             // --sampled's help
    std::string_view sites;               // --sites's
    std::string_view live;                // --live's
    std::vector<OptionSpec> after_refs;   // the command's own options listed after --refs
    std::vector<OptionSpec> after_sites;  // ... and after --sites
};
std::vector<OptionSpec> recordingOptions(const RecordingOptionsHelp& own);
// Reads and checks them: -o given, its directory writable, --depth, --refs, --sites; --script
// only with --live, --live only with the explorer (`live` not empty). Error: one line starting
// with "memcity COMMAND: ".
Result<RecordingOptions> readRecordingOptions(const Args& args, std::string_view command,
                                              bool have_live_view);
// The mean interval a sampled recording takes when --interval does not say (HotSpot's and JFR's
// own default; docs/recorder.md says how it was chosen).
inline constexpr uint64_t kDefaultSamplingInterval = 512 * 1024;
// The agent's options for them: "file=F,depth=N,refs=R[,sites=S][,interval=I]" (callers add their own).
std::string agentOptionsFor(const RecordingOptions& o);

// The agent library next to this memcity (or $MEMCITY_AGENT). Error: one line, "memcity COMMAND:
// the recorder agent ... was not found".
Result<std::string> findAgent(std::string_view command);

// The summary a recording command prints: what the trace `loaded` (written as `name`) holds,
// what became of the program ("exited with status 0 after 3.2 s"), the JVM's agreement, and the
// trace's warnings on stderr.
void printRecordingSummary(const LoadedTrace& loaded, const std::string& name, const std::string& program);

}  // namespace memcity::cli
