#include "scene/cohorts.h"

#include <unordered_map>
#include <utility>

namespace memcity::scene {
namespace {

CohortCounts cohortsOf(const DiffNode& n) {
    return {n.born, n.died, n.permanent};
}

}  // namespace

std::string_view cohortName(Cohort cohort) {
    switch (cohort) {
        case Cohort::kBorn: return "born";
        case Cohort::kDied: return "died";
        case Cohort::kPermanent: return "permanent";
    }
    return "?";
}

CohortCounts& CohortCounts::operator+=(const CohortCounts& o) {
    born += o.born;
    died += o.died;
    permanent += o.permanent;
    return *this;
}

std::optional<Cohort> dominantCohort(const CohortCounts& counts, Metric metric) {
    std::optional<Cohort> best;
    uint64_t most = 0;
    for (Cohort c : {Cohort::kBorn, Cohort::kDied, Cohort::kPermanent}) {
        const SeriesCounts& v = counts.of(c);
        const uint64_t value = metric == Metric::kObjects ? v.objects : v.bytes;
        if (value > most) {
            most = value;
            best = c;
        }
    }
    return best;
}

uint32_t cohortColor(Cohort cohort, uint8_t alpha) {
    switch (cohort) {
        case Cohort::kBorn: return palette::trendColor(Trend::kStronglyGrowing, alpha);
        case Cohort::kDied: return palette::trendColor(Trend::kShrinking, alpha);
        case Cohort::kPermanent: return palette::trendColor(Trend::kStable, alpha);
    }
    return palette::trendColor(Trend::kStable, alpha);
}

SeriesDiff SeriesDiff::lay(const HeapDiff& diff, const TreeSeries& series) {
    SeriesDiff out;
    out.base_ = diff.fromGc();
    out.gc_ = diff.toGc();
    out.nodes_.resize(series.size());
    // (diff node, series node) pairs whose label paths are equal, from the roots down.
    std::vector<std::pair<uint32_t, uint32_t>> stack{{HeapDiff::kRoot, TreeSeries::kRoot}};
    std::unordered_map<std::string, uint32_t> by_label;
    while (!stack.empty()) {
        const auto [d, s] = stack.back();
        stack.pop_back();
        const DiffNode& node = diff.node(d);
        out.nodes_[s] = cohortsOf(node);
        if (node.children.empty()) continue;
        by_label.clear();
        for (uint32_t c : series.node(s).children)
            by_label.emplace(series.label(c), c);
        for (uint32_t c : node.children) {
            const auto found = by_label.find(diff.node(c).label);
            if (found == by_label.end())
                out.unplaced_ += cohortsOf(diff.node(c));
            else
                stack.emplace_back(c, found->second);
        }
    }
    return out;
}

const CohortCounts& SeriesDiff::at(uint32_t node) const {
    static const CohortCounts kNone{};
    return node < nodes_.size() ? nodes_[node] : kNone;
}

CohortCounts SeriesDiff::sum(std::span<const uint32_t> nodes) const {
    CohortCounts total;
    for (uint32_t id : nodes)
        total += at(id);
    return total;
}

}  // namespace memcity::scene
