// memcity synth SCENARIO -o FILE [--scale N] [--seed S] [--refs N|off] [--no-compress]
#include <chrono>
#include <iostream>

#include "cli/args.h"
#include "cli/commands.h"
#include "cli/text_format.h"
#include "synth/synth.h"

namespace memcity::cli {

namespace {

int runSynth(const Words& words) {
    auto args = Args::parse("synth", words);
    if (!args) {
        std::cerr << args.error().message << "\n";
        return 1;
    }
    if (args->help()) return printHelp("synth");
    if (args->has("--list")) {
        for (const synth::ScenarioInfo& s : synth::scenarios())
            std::cout << s.name << "\t" << s.summary << "\n";
        return 0;
    }
    if (args->positionals().size() != 1) {
        std::cerr << "memcity synth: expected one scenario name (see 'memcity synth --list')\n";
        return 1;
    }
    const std::string& name = args->positionals()[0];
    if (!synth::isScenario(name)) {
        std::cerr << "memcity synth: unknown scenario '" << name << "' (see 'memcity synth --list')\n";
        return 1;
    }
    auto out = args->value("--output");
    if (!out || out->empty()) {
        std::cerr << "memcity synth: -o FILE is required\n";
        return 1;
    }
    synth::SynthOptions o;
    auto scale = args->unsignedValue("--scale", 1, 1, 100'000);
    auto seed = args->unsignedValue("--seed", 1);
    if (!scale || !seed) {
        std::cerr << (!scale ? scale.error() : seed.error()).message << "\n";
        return 1;
    }
    o.scale = static_cast<uint32_t>(*scale);
    o.seed = *seed;
    if (auto refs = args->value("--refs")) {
        if (*refs == "off") {
            o.refs_every = 0;
        } else {
            auto n = args->unsignedValue("--refs", 1, 1, 1'000'000);
            if (!n) {
                std::cerr << "memcity synth: --refs expects a positive integer or 'off', got '" << *refs
                          << "'\n";
                return 1;
            }
            o.refs_every = static_cast<uint32_t>(*n);
        }
    }
    o.writer.compress = !args->has("--no-compress");
    if (auto interval = args->value("--sampled")) {
        if (!parseBytes(*interval, &o.writer.sampling_interval) || o.writer.sampling_interval == 0 ||
            o.writer.sampling_interval > (uint64_t{1} << 30)) {
            std::cerr
                << "memcity synth: --sampled expects a sampling interval from 1 byte to 1g (e.g. 64k), got '"
                << *interval << "'\n";
            return 1;
        }
        // A sampled recording takes reference snapshots only when asked.
        if (!args->value("--refs")) o.refs_every = 0;
    }
    auto t0 = std::chrono::steady_clock::now();
    if (Status s = synth::synthesize(name, *out, o); !s) {
        std::cerr << "memcity synth: " << s.error().message << "\n";
        return 1;
    }
    auto ms =
        std::chrono::duration_cast<std::chrono::milliseconds>(std::chrono::steady_clock::now() - t0).count();
    std::cout << "wrote " << *out << " (" << name << ", scale " << o.scale << ", seed " << o.seed << ") in "
              << formatDuration(static_cast<int64_t>(ms) * 1'000'000) << "\n";
    return 0;
}

}  // namespace

extern const Command kSynth{
    .name = "synth",
    .summary = "write a synthetic trace with exactly known answers",
    .usage = R"(usage: memcity synth SCENARIO -o FILE [--scale N] [--seed S] [--refs N|off] [--sampled BYTES]
                    [--no-compress]
       memcity synth --list

Scenarios (docs/scenarios.md gives each one's expected answers):
  buggy-stack   a stack whose pop keeps references (ICPE18, 5.3)
  multi-cache   products held by two static maps: shared ownership (ManLang18, 5.1)
  growing-map   a cache whose key lacks equals/hashCode (STAG20, 7.2)
  churn         a burst of short-lived objects between calm phases
  gc-hotspot    a phase in which most objects survive
  steady        a server with bounded caches: no leak
  big-heap      tens of millions of objects: the benchmark workload

)",
    .options =
        {
            {"--output", "FILE", "-o", "where to write the trace (required)"},
            {"--scale", "N", "", "multiply the program's work by N (default 1)"},
            {"--seed", "S", "", "vary incidental garbage (default 1); the answers do not change"},
            {"--refs", "N|off", "", "reference snapshot after every Nth GC (default 1), or none"},
            {"--sampled", "BYTES", "",
             "the same run as a sampled recording at this mean interval (e.g. 64k):\nonly the objects the "
             "JVM's heap sampler would pick, a census at every\nexplicit GC, and snapshots only with "
             "--refs"},
            {"--no-compress", "", "", "write chunks without zstd"},
            {"--list", "", "", "list the scenarios"},
        },
    .run = [](const Words& a, const Services&) { return runSynth(a); },
};

}  // namespace memcity::cli
