// Synthetic scenarios: deterministic traces with exactly known answers, modelled on the cases of
// the papers (docs/scenarios.md documents each one's expected answers).
#pragma once

#include <cstdint>
#include <span>
#include <string>
#include <string_view>

#include "trace/trace_writer.h"
#include "util/result.h"

namespace memcity::synth {

struct SynthOptions {
    uint32_t scale = 1;       // multiplies the work the program does (1 = a small, fast trace)
    uint64_t seed = 1;        // varies sizes and timings of incidental garbage, never the answers
    uint32_t refs_every = 1;  // reference snapshot after every Nth GC (and every explicit GC); 0 = none
    // writer.sampling_interval != 0: a sampled trace of the same run (SimOptions::sampling_interval).
    WriterOptions writer;
};

struct ScenarioInfo {
    std::string_view name;
    std::string_view summary;
};

std::span<const ScenarioInfo> scenarios();
bool isScenario(std::string_view name);

// Writes the trace of scenario `name` to `path`.
Status synthesize(std::string_view name, const std::string& path, const SynthOptions& options);

}  // namespace memcity::synth
