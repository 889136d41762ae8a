#include "scene/estimates.h"

#include <algorithm>
#include <cmath>
#include <iterator>
#include <vector>

#include "util/units.h"

namespace memcity::scene {
namespace {

// "512 KiB", "1 MiB", "100,000 B": an interval as the recorder's option reads it.
std::string intervalText(uint64_t bytes) {
    static constexpr const char* kUnits[] = {"B", "KiB", "MiB", "GiB"};
    size_t unit = 0;
    uint64_t v = bytes;
    while (unit + 1 < std::size(kUnits) && v >= 1024 && v % 1024 == 0) {
        v /= 1024;
        ++unit;
    }
    return unit == 0 && bytes >= 1024 ? formatBytes(bytes) : formatCount(v) + " " + kUnits[unit];
}

// Counts to three significant digits, as formatEstimate writes estimated counts.
std::string roundedCount(double value) {
    auto n = static_cast<uint64_t>(std::llround(std::max(value, 0.0)));
    uint64_t unit = 1;
    while (n / unit >= 1000)
        unit *= 10;
    return formatCount((n + unit / 2) / unit * unit);
}

}  // namespace

std::string samplingBadge(uint64_t interval) {
    return "sampled: 1 per " + intervalText(interval);
}

std::string samplingNote(uint64_t interval) {
    return "one allocation per " + intervalText(interval) +
           " on average was recorded; objects and bytes are estimates (\u2248) with " +
           std::to_string(static_cast<int>(kConfidence * 100)) + "% intervals";
}

std::string snapshotGcsText(std::span<const GcRecord> gcs) {
    std::vector<uint32_t> at;
    for (const GcRecord& g : gcs)
        if (g.has_snapshot) at.push_back(g.index);
    if (at.empty()) return {};
    if (at.size() == 1) return "GC " + std::to_string(at[0]);
    std::string out = "GCs ";
    constexpr size_t kListed = 6;  // more: the first three, "…", the last
    if (at.size() > kListed) {
        for (size_t i = 0; i < 3; ++i)
            out += std::to_string(at[i]) + ", ";
        return out + "\u2026 " + std::to_string(at.back()) + " (" + std::to_string(at.size()) + " in all)";
    }
    for (size_t i = 0; i + 1 < at.size(); ++i)
        out += std::to_string(at[i]) + (i + 2 < at.size() ? ", " : " ");
    return out + "and " + std::to_string(at.back());
}

std::string sampledReferencesReason(std::span<const GcRecord> gcs) {
    const std::string at = snapshotGcsText(gcs);
    if (at.empty()) return std::string(kNoSnapshotsReason);
    uint32_t last = 0;
    for (const GcRecord& g : gcs)
        if (g.has_snapshot) last = g.index;
    return "references exist at " + at + " only: the timeline's other GCs cannot be classified by them " +
           "('memcity report --gc " + std::to_string(last) + "' classifies one)";
}

std::string sampledSizesReason(std::span<const GcRecord> gcs) {
    const std::string at = snapshotGcsText(gcs);
    if (at.empty()) return std::string(kNoSnapshotsReason);
    return "a group's deep and retained sizes are not estimated from samples; at " + at +
           " the inspector shows what its sampled objects retain";
}

std::string sampledClosureNote(uint64_t sampled_objects, uint32_t snapshot_gc) {
    return "sizes, roots and paths are those of its " + formatCount(sampled_objects) +
           (sampled_objects == 1 ? " sampled object" : " sampled objects") + " at GC " +
           std::to_string(snapshot_gc) +
           ", exact for them over the whole heap's references; what the samples retain together is not "
           "what the group retains, so the group's retained size is not estimated";
}

SampleSums sampledSumAt(const TreeSeries& series, std::span<const uint32_t> ids, double t) {
    if (!series.sampled() || series.gcCount() == 0) return {};
    const std::vector<uint32_t>& gcs = series.gcs();
    t = std::clamp(t, static_cast<double>(gcs.front()), static_cast<double>(gcs.back()));
    auto next = std::upper_bound(gcs.begin(), gcs.end(), static_cast<uint32_t>(std::floor(t)));
    const uint32_t g0 = *(next - 1);
    const SampleSums a = series.sampledSum(ids, g0);
    if (next == gcs.end()) return a;
    const SampleSums b = series.sampledSum(ids, *next);
    const double f = (t - static_cast<double>(g0)) / static_cast<double>(*next - g0);
    if (f <= 0) return a;
    auto lerp = [f](double x, double y) { return x + (y - x) * f; };
    auto lerpCount = [&](uint64_t x, uint64_t y) {
        return static_cast<uint64_t>(
            std::llround(std::max(0.0, lerp(static_cast<double>(x), static_cast<double>(y)))));
    };
    SampleSums s;
    s.samples = lerpCount(a.samples, b.samples);
    s.sample_bytes = lerpCount(a.sample_bytes, b.sample_bytes);
    s.objects = lerp(a.objects, b.objects);
    s.bytes = lerp(a.bytes, b.bytes);
    s.var_objects = lerp(a.var_objects, b.var_objects);
    s.var_bytes = lerp(a.var_bytes, b.var_bytes);
    return s;
}

std::string estimateText(const SampleSums& sums, Metric metric) {
    const bool bytes = metric == Metric::kBytes;
    const Estimate e = bytes ? sums.bytesEstimate() : sums.objectsEstimate();
    // "≈ …" with its interval; "= …" where a census counted the group (no sampled group is
    // exact otherwise: heap/sampling.h keeps their variance above 0).
    std::string text = formatEstimate(e, bytes);
    if (!bytes) {
        // "≈ 12,400 objects (10,100–15,000)"
        const size_t open = text.find(" (");
        text.insert(open == std::string::npos ? text.size() : open, " objects");
    }
    return text;
}

std::string estimateValue(double value, Metric metric) {
    if (metric == Metric::kBytes)
        return "\u2248 " + formatBytes(static_cast<uint64_t>(std::llround(std::max(value, 0.0))));
    return "\u2248 " + roundedCount(value) + " objects";
}

std::string samplesText(uint64_t samples) {
    return formatCount(samples) + (samples == 1 ? " sample" : " samples");
}

}  // namespace memcity::scene
