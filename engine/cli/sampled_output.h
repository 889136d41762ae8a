// How the commands show a sampled trace's figures (heap/sampling.h): every estimate marked "≈"
// with its 95% interval, never as if it were counted; JSON gives the estimate, its interval and
// the samples behind it.
#pragma once

#include <iosfwd>
#include <string>

#include "cli/json_writer.h"
#include "heap/heap_history.h"
#include "heap/sampling.h"

namespace memcity::cli {

// "≈ 12.3 MiB (10.1–14.9 MiB)": a bytes or objects estimate with its interval.
std::string estimateText(const SampleSums& s, bool bytes);
// "≈ 12.3 MiB" / "= 12.3 MiB": without the interval, where a table has no room for it.
std::string estimateValueText(const SampleSums& s, bool bytes);
// The line a command prints above a sampled trace's figures: what they are estimated from.
// Nothing for an exact trace.
void sayEstimates(const HeapHistory& history, std::ostream& out);
// {"estimate": E, "low": L, "high": H, "samples": N} under `key`, for objects or bytes.
void jsonEstimate(JsonWriter& j, std::string_view key, const SampleSums& s, bool bytes);
// "sampled": {"interval": I, "confidence": 0.95} (or false): what a JSON report's figures are.
void jsonSampling(JsonWriter& j, const HeapHistory& history);

}  // namespace memcity::cli
