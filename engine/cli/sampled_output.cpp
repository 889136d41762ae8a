#include "cli/sampled_output.h"

#include <algorithm>
#include <cmath>
#include <ostream>

#include "cli/text_format.h"

namespace memcity::cli {

std::string estimateText(const SampleSums& s, bool bytes) {
    return formatEstimate(bytes ? s.bytesEstimate() : s.objectsEstimate(), bytes);
}

std::string estimateValueText(const SampleSums& s, bool bytes) {
    return formatEstimateValue(bytes ? s.bytesEstimate() : s.objectsEstimate(), bytes);
}

void sayEstimates(const HeapHistory& history, std::ostream& out) {
    const SampleModel* model = history.sampling();
    if (!model) return;
    out << "sampled: one allocation per " << formatBytes(model->interval())
        << " on average; objects and bytes are estimates (\u2248) with "
        << static_cast<int>(kConfidence * 100) << "% intervals\n";
}

void jsonEstimate(JsonWriter& j, std::string_view key, const SampleSums& s, bool bytes) {
    const Estimate e = bytes ? s.bytesEstimate() : s.objectsEstimate();
    // Whole objects and bytes (a double's six digits would blur a counted figure).
    auto whole = [](double v) { return static_cast<uint64_t>(std::llround(std::max(v, 0.0))); };
    j.key(key).beginObject();
    j.field("estimate", whole(e.value)).field("low", whole(e.low)).field("high", whole(e.high));
    j.field("samples", s.samples).field("exact", e.exact);
    j.endObject();
}

void jsonSampling(JsonWriter& j, const HeapHistory& history) {
    j.key("sampled");
    if (const SampleModel* model = history.sampling()) {
        j.beginObject();
        j.field("interval", model->interval()).field("confidence", kConfidence);
        j.endObject();
    } else {
        j.value(false);
    }
}

}  // namespace memcity::cli
