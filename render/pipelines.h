// The graphics pipelines of every pass, their shared layout (one push-constant block and one
// sampled texture, see shaders/shared.h) and the shader modules they are built from. Pipelines
// are built per target format (offscreen RGBA8, the swapchain's format) and sample count, on
// first use, for dynamic rendering (no render pass objects).
#pragma once

#include <vulkan/vulkan.h>

#include <array>
#include <memory>
#include <vector>

#include "render/device.h"
#include "render/resources.h"

namespace memcity::render {

enum class PipelineKind : uint8_t {
    kBoxOpaque,       // opaque boxes: depth test and write, back faces culled
    kBoxTranslucent,  // translucent boxes: depth test, no depth write, alpha blending
    kWorldLine,       // world-space lines: depth test, no depth write, alpha blending
    kRect,            // 2D rectangles (no depth), alpha blending, as are all 2D kinds below
    kArc,             // 2D annular sector pieces
    kTriangle,        // 2D triangles
    kLine,            // 2D thick lines
    kGlyph,           // label glyphs and backgrounds, sampling the glyph atlas
    kImGui,           // Dear ImGui vertices, sampling the ImGui font atlas
    kCount,
};

// What the pipelines render into.
struct TargetFormats {
    VkFormat color = VK_FORMAT_UNDEFINED;
    VkFormat depth = VK_FORMAT_UNDEFINED;
    VkSampleCountFlagBits samples = VK_SAMPLE_COUNT_1_BIT;
    bool operator==(const TargetFormats&) const = default;
};

class Pipelines {
public:
    explicit Pipelines(const Device& device);
    ~Pipelines();
    Pipelines(const Pipelines&) = delete;
    Pipelines& operator=(const Pipelines&) = delete;

    VkPipelineLayout layout() const { return layout_.get(); }
    // Layout of descriptor set 0: one combined image sampler at MC_BINDING_TEXTURE.
    VkDescriptorSetLayout textureSetLayout() const { return set_layout_.get(); }
    // The pipeline of `kind` for `formats`, built on first use (a few ms to ~100 ms each on lavapipe).
    VkPipeline get(const TargetFormats& formats, PipelineKind kind);

private:
    using PipelineArray = std::array<UniquePipeline, static_cast<size_t>(PipelineKind::kCount)>;
    UniquePipeline build(const TargetFormats& formats, PipelineKind kind) const;

    const Device& device_;
    UniqueDescriptorSetLayout set_layout_;
    UniquePipelineLayout layout_;
    std::vector<UniqueShaderModule> modules_;  // by ShaderId
    std::vector<std::pair<TargetFormats, std::unique_ptr<PipelineArray>>> sets_;
};

}  // namespace memcity::render
