// How the views, the panels and the scripts show a sampled recording's figures (heap/sampling.h):
// every count and size is an estimate, marked "≈" with its 95% interval and the number of samples
// behind it, never shown as if it were counted; and the one sentence that says why something an
// exact recording has (reference snapshots, object addresses) is not there.
#pragma once

#include <cstdint>
#include <span>
#include <string>
#include <string_view>

#include "classify/series.h"
#include "heap/sampling.h"

namespace memcity::scene {

// Why retained and deep sizes, GC roots, paths to them and the classifiers that read references
// are unavailable, and why the heap map has no objects: each is the whole reason, to be shown
// beside what is greyed out.
inline constexpr std::string_view kNoSnapshotsReason = "a sampled recording has no reference snapshots";
inline constexpr std::string_view kNoAddressesReason = "a sampled recording has no object addresses";

// "sampled: 1 per 512 KiB": what the whole session's figures are estimated from (`interval`:
// TraceHeader::sampling_interval, bytes; contract: not 0).
std::string samplingBadge(uint64_t interval);
// One line on what the badge means, for its tooltip and `print state`: "one allocation per
// 512 KiB on average was recorded; objects and bytes are estimates (≈) with 95% intervals".
std::string samplingNote(uint64_t interval);

// The sums behind `ids` together at fractional GC time `t` of a sampled series, as
// TreeSeries::sumAt reads values: those of the GC at t, or linear between the two GCs around it
// (samples rounded). Zero sums for a series that is not sampled.
SampleSums sampledSumAt(const TreeSeries& series, std::span<const uint32_t> ids, double t);

// "≈ 1.2 MiB (0.9–1.6 MiB)" for bytes, "≈ 12,400 objects (10,100–15,000)" for objects: the
// estimate with its 95% interval. Always marked "≈" (a group without samples reads "≈ 0 B").
std::string estimateText(const SampleSums& sums, Metric metric);
// Just the value, marked: "≈ 1.2 MiB", "≈ 12,400 objects" (where there is no room for the interval).
std::string estimateValue(double value, Metric metric);
// "37 samples", "1 sample".
std::string samplesText(uint64_t samples);

}  // namespace memcity::scene
