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
#include "heap/heap_state.h"
#include "heap/sampling.h"

namespace memcity::scene {

// Why retained and deep sizes, GC roots, paths to them and the classifiers that read references
// are unavailable in a sampled recording that took no reference snapshot, and why the heap map
// has no objects: each is the whole reason, to be shown beside what is greyed out.
inline constexpr std::string_view kNoSnapshotsReason = "this sampled recording has no reference snapshot";
inline constexpr std::string_view kNoAddressesReason = "a sampled recording has no object addresses";

// A sampled recording's reference snapshots (HeapHistory::sampled(), GcRecord::has_snapshot)
// make its heap whole at their GCs: there, references, roots and what a group's sampled objects
// retain are exact; elsewhere there are no references. `gcs`: every GC of the trace.
//
// "GC 12", "GCs 12 and 40", "GCs 0, 10, 20, … 90 (10 in all)": the GCs with a snapshot ("" when none).
std::string snapshotGcsText(std::span<const GcRecord> gcs);
// Why the classifiers that read references cannot classify a sampled recording's timeline:
// kNoSnapshotsReason without snapshots, else "references exist at GCs 12 and 40 only: ...".
std::string sampledReferencesReason(std::span<const GcRecord> gcs);
// Why a sampled recording's tree table has no deep and retained sizes: they would be the groups'
// retained sizes, which samples do not estimate (the inspector shows what a group's sampled
// objects retain, where there is a snapshot).
std::string sampledSizesReason(std::span<const GcRecord> gcs);
// What a group's closure, roots and paths at a sampled recording's snapshot GC are about: "its
// 201 sampled objects at GC 40, exact for them over the whole heap's references; what the samples
// retain together is not what the group retains: the group's retained size is not estimated".
std::string sampledClosureNote(uint64_t sampled_objects, uint32_t snapshot_gc);

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
