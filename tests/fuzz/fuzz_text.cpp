// libFuzzer target: the text and small binary parsers memcity meets outside trace files, picked
// by the first input byte (mod 9), the rest their input:
//   0 a control request line (analysis/live/control_protocol.h), 1 pause conditions,
//   2 a status reply, 3 a settings file (engine/explore/settings.h), 4 an explorer script
//   (engine/explore/script.h), 5 a classifier chain, a filter and node paths, 6 HotSpot perf
//   data (engine/cli/jvm_attach.h), 7 a java command line and environment (NUL-separated, the
//   environment after a 0x01 byte), 8 an attach reply and an agent's return code.
// What is read and written back must read the same; every error is one line; crashes are bugs.
#include <cstddef>
#include <cstdint>
#include <cstdlib>
#include <span>
#include <string>
#include <string_view>
#include <vector>

#include "classify/classifier.h"
#include "classify/tree.h"
#include "cli/jvm_attach.h"
#include "explore/script.h"
#include "explore/settings.h"
#include "fuzz/one_line.h"
#include "live/control_protocol.h"

namespace {

using namespace memcity;

using fuzz::good;
using fuzz::oneLine;

std::vector<std::string> split(std::string_view s, char at) {
    std::vector<std::string> out;
    for (size_t from = 0;;) {
        const size_t end = s.find(at, from);
        out.emplace_back(s.substr(from, end - from));
        if (end == std::string_view::npos) return out;
        from = end + 1;
    }
}

const explore::ScriptVerb kGc{"gc", 1, 1, "gc N"};
const explore::ScriptVerb kSelect{"select", 1, explore::kRestOfLine, "select PATH"};
const explore::ScriptVerb kClick{"click", 1, 3, "click X Y [shift]"};
const explore::ScriptVerb kQuit{"quit", 0, 0, "quit"};
const explore::ScriptVerb* const kVerbs[] = {&kGc, &kSelect, &kClick, &kQuit};

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
    if (size < 1) return 0;
    const std::string_view text(reinterpret_cast<const char*>(data) + 1, size - 1);
    const std::span<const uint8_t> bytes(data + 1, size - 1);
    const std::string_view line = text.substr(0, text.find('\n'));  // the protocol's parsers take one line
    switch (data[0] % 9) {
        case 0:
            if (auto r = live::parseRequest(line); good(r)) {
                auto again = live::parseRequest(live::formatRequest(*r));
                if (!again.ok() || again->command != r->command || again->when != r->when ||
                    again->now != r->now)
                    std::abort();
            }
            break;
        case 1:
            if (auto c = live::parseConditions(line); good(c)) {
                auto again = live::parseConditions(live::formatConditions(*c));
                if (!again.ok() || *again != *c) std::abort();
            }
            break;
        case 2:
            if (auto s = live::parseStatus(line); good(s)) {
                auto again = live::parseStatus(live::formatStatus(*s));
                if (!again.ok() || again->file != s->file || again->state != s->state || again->gcs != s->gcs)
                    std::abort();
            }
            break;
        case 3: {
            const explore::LoadedSettings loaded = explore::parseSettings(std::string(text), "fuzz.ini");
            for (const std::string& w : loaded.warnings)
                if (w.find('\n') != std::string::npos) std::abort();
            const explore::LoadedSettings again =
                explore::parseSettings(explore::formatSettings(loaded.settings), "fuzz.ini");
            if (!again.warnings.empty() || !(again.settings == loaded.settings)) std::abort();
            break;
        }
        case 4:
            if (auto s = explore::parseScript(text, "fuzz.script", kVerbs); good(s))
                for (const explore::ScriptCommand& c : *s)
                    if (!c.spec || c.args.size() < c.spec->min_args || c.args.size() > c.spec->max_args)
                        std::abort();
            break;
        case 5: {
            (void)good(parseChain(text));  // a newline in them is echoed as \n
            (void)good(parseFilter(text));
            size_t labels = 0;
            for (const auto& path : parseNodePaths(std::string(text)))
                labels += path.size();
            if (labels > text.size() + 1) std::abort();
            break;
        }
        case 6: (void)good(cli::perfDataString(bytes, "sun.rt.jvmCapabilities")); break;
        case 7: {
            const size_t env = text.find('\x01');
            const auto argv = split(text.substr(0, env), '\0');
            const auto environment = env == std::string_view::npos ? std::vector<std::string>{}
                                                                   : split(text.substr(env + 1), '\0');
            (void)cli::parseJavaCommandLine(argv, environment);
            break;
        }
        case 8:
            if (auto reply = cli::parseAttachReply(text); good(reply))
                (void)good(cli::agentReturnCode("process 1 (java)", *reply));
            break;
    }
    return 0;
}
