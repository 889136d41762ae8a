// A heap diff (ICPE18 §5.3) laid onto a tree series: per series node, the objects born since the
// diff's base GC (alive at its GC only), dead since (alive at the base only) and permanent (alive
// at both). The views colour each building and sector by the cohort that dominates it, the tree
// table lists the three; both read a SeriesDiff.
//
// A diff node lands on the series node at the same label path. Both are classified by one chain,
// so every path of the diff is in a series that holds both GCs; groups the series lacks (it was
// built over another range) are summed in unplaced().
#pragma once

#include <cstdint>
#include <optional>
#include <span>
#include <string_view>
#include <vector>

#include "classify/diff.h"
#include "classify/series.h"
#include "scene/palette.h"

namespace memcity::scene {

enum class Cohort : uint8_t {
    kBorn,       // alive at the diff's GC, not at its base
    kDied,       // alive at the base, not at the diff's GC
    kPermanent,  // alive at both
};
inline constexpr int kCohortCount = 3;
// "born", "died", "permanent".
std::string_view cohortName(Cohort cohort);

struct CohortCounts {
    SeriesCounts born, died, permanent;

    const SeriesCounts& of(Cohort c) const {
        return c == Cohort::kBorn ? born : c == Cohort::kDied ? died : permanent;
    }
    CohortCounts& operator+=(const CohortCounts& o);
    bool operator==(const CohortCounts&) const = default;
};

// The cohort with the largest value in `metric` (ties: born, then died, then permanent: what is
// new is what a diff is read for); none when all three are zero.
std::optional<Cohort> dominantCohort(const CohortCounts& counts, Metric metric);

// A cohort's colour, as the trend's (Okabe–Ito): born vermillion (like strong growth), died sky
// blue (like shrinking), permanent grey (like stable).
uint32_t cohortColor(Cohort cohort, uint8_t alpha = 255);

class SeriesDiff {
public:
    SeriesDiff() = default;
    // Contract: `diff` was classified by the chain that built `series`.
    static SeriesDiff lay(const HeapDiff& diff, const TreeSeries& series);

    uint32_t baseGc() const { return base_; }
    uint32_t gc() const { return gc_; }
    // The node's counts; zeros for a node the diff does not reach or an id out of range.
    const CohortCounts& at(uint32_t node) const;
    // Sums over several nodes (an "Other" group).
    CohortCounts sum(std::span<const uint32_t> nodes) const;
    // Counts of diff groups with no series node (their top-most such group each).
    const CohortCounts& unplaced() const { return unplaced_; }

private:
    std::vector<CohortCounts> nodes_;  // by series node id
    CohortCounts unplaced_;
    uint32_t base_ = 0, gc_ = 0;
};

}  // namespace memcity::scene
