#include "render/batches.h"

#include <algorithm>
#include <cmath>
#include <numbers>

#include "shaders/shared.h"

namespace memcity::render {

uint32_t orderBoxes(const std::vector<BoxInstance>& boxes, glm::vec3 eye, std::vector<BoxInstance>* out) {
    out->clear();
    out->reserve(boxes.size());
    std::vector<uint32_t> translucent;
    for (uint32_t i = 0; i < boxes.size(); ++i) {
        if (alphaOf(boxes[i].color) == 255) {
            out->push_back(boxes[i]);
        } else if (alphaOf(boxes[i].color) > 0) {
            translucent.push_back(i);
        }
    }
    const uint32_t opaque = static_cast<uint32_t>(out->size());
    // Opaque boxes nearest first: the depth test then rejects most hidden fragments before they
    // are shaded (on lavapipe, a street view with large near buildings is bound by them). Ties
    // keep the given order, so the picture stays the same every run.
    {
        std::vector<std::pair<float, uint32_t>> keyed(opaque);
        for (uint32_t i = 0; i < opaque; ++i) {
            const BoxInstance& b = (*out)[i];
            const glm::vec3 nearest = glm::clamp(eye, b.min, b.max);
            const glm::vec3 d = nearest - eye;
            keyed[i] = {glm::dot(d, d), i};
        }
        std::sort(keyed.begin(), keyed.end());
        std::vector<BoxInstance> sorted(opaque);
        for (uint32_t i = 0; i < opaque; ++i)
            sorted[i] = (*out)[keyed[i].second];
        std::copy(sorted.begin(), sorted.end(), out->begin());
    }
    std::vector<float> distance(boxes.size());
    for (uint32_t i : translucent) {
        const glm::vec3 d = 0.5f * (boxes[i].min + boxes[i].max) - eye;
        distance[i] = glm::dot(d, d);
    }
    std::stable_sort(translucent.begin(), translucent.end(),
                     [&](uint32_t a, uint32_t b) { return distance[a] > distance[b]; });
    for (uint32_t i : translucent)
        out->push_back(boxes[i]);
    return opaque;
}

void buildArcs(const std::vector<Arc>& arcs, float max_error_px, std::vector<ArcInstance>* out) {
    constexpr float kTwoPi = 2.0f * std::numbers::pi_v<float>;
    const float error = std::max(max_error_px, 0.01f);
    for (const Arc& arc : arcs) {
        const float r0 = std::max(arc.r0, 0.0f);
        if (!(arc.r1 > r0) || !(arc.a1 > arc.a0)) continue;
        const float span = std::min(arc.a1 - arc.a0, kTwoPi);
        // The largest segment angle whose chord stays within `error` of the outer circle.
        const float max_step = arc.r1 > error ? 2.0f * std::acos(1.0f - error / arc.r1) : kTwoPi;
        const float total_segments = std::ceil(span / max_step);
        const uint32_t pieces =
            std::clamp(static_cast<uint32_t>(
                           std::ceil(total_segments / static_cast<float>(gpu::kArcSegmentsPerInstance))),
                       1u, 256u);
        const float step = span / static_cast<float>(pieces);
        const auto segments = static_cast<uint32_t>(
            std::clamp(std::ceil(step / max_step), 1.0f, static_cast<float>(gpu::kArcSegmentsPerInstance)));
        for (uint32_t p = 0; p < pieces; ++p) {
            ArcInstance a;
            a.shape = {arc.center, r0, arc.r1};
            const float start = arc.a0 + step * static_cast<float>(p);
            const float end = p + 1 == pieces ? arc.a0 + span : start + step;
            a.angles = {start, end, arc.a0, arc.a0 + span};
            a.color = arc.color;
            a.flags = arc.flags;
            a.segments = segments;
            out->push_back(a);
        }
    }
}

LabelBox labelBox(const Font& font, const Label& label) {
    const glm::vec2 size{font.textWidth(label.text, label.size_px), label.size_px};
    glm::vec2 p = label.pos;
    switch (label.anchor) {
        case TextAnchor::kTopLeft: break;
        case TextAnchor::kCenter: p -= 0.5f * size; break;
        case TextAnchor::kTopCenter: p.x -= 0.5f * size.x; break;
        case TextAnchor::kLeftCenter: p.y -= 0.5f * size.y; break;
        case TextAnchor::kRightCenter: p -= glm::vec2(size.x, 0.5f * size.y); break;
    }
    return LabelBox{glm::round(p), size};
}

glm::vec2 labelPadding(float size_px) {
    return glm::round(glm::vec2(0.3f, 0.1f) * size_px);
}

void buildLabels(const Font& font, const std::vector<Label>& labels, std::vector<GlyphInstance>* out) {
    std::vector<GlyphQuad> quads;
    const glm::vec2 solid = font.solidUv();
    for (const Label& label : labels) {
        if (label.text.empty() || !(label.size_px > 0)) continue;
        const LabelBox box = labelBox(font, label);
        if (alphaOf(label.background) > 0) {
            const glm::vec2 pad = labelPadding(label.size_px);
            out->push_back(GlyphInstance{glm::vec4(box.top_left - pad, box.top_left + box.size + pad),
                                         glm::vec4(solid, solid), label.background});
        }
        if (alphaOf(label.color) == 0) continue;
        quads.clear();
        font.layout(label.text, label.size_px, box.top_left, &quads);
        for (const GlyphQuad& q : quads)
            out->push_back(GlyphInstance{glm::vec4(q.p0, q.p1), glm::vec4(q.uv0, q.uv1), label.color});
    }
}

glm::mat4 vulkanClipCorrection() {
    // Column-major: x' = x, y' = -y, z' = 0.5 z + 0.5 w, w' = w.
    return glm::mat4(1.0f, 0.0f, 0.0f, 0.0f,   //
                     0.0f, -1.0f, 0.0f, 0.0f,  //
                     0.0f, 0.0f, 0.5f, 0.0f,   //
                     0.0f, 0.0f, 0.5f, 1.0f);
}

}  // namespace memcity::render
