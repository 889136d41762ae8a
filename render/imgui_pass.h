// Dear ImGui draw data drawn with our own pipeline (not imgui_impl_vulkan): the font atlas as a
// texture, the frame's vertices and indices, one indexed draw per ImDrawCmd with its scissor.
// Only ImGui's font texture is supported: every command samples it whatever its TextureId.
#pragma once

#include <vulkan/vulkan.h>

#include <cstddef>
#include <cstdint>

#include "render/device.h"
#include "render/resources.h"
#include "shaders/shared.h"

struct ImDrawData;

namespace memcity::render {

class ImGuiPass {
public:
    // `set` is a descriptor set of the pipelines' texture layout that this pass fills with the
    // font atlas; `sampler` samples it. Both outlive the pass.
    ImGuiPass(const Device& device, Allocator& allocator, VkDescriptorSet set, VkSampler sampler);

    // Uploads the current ImGui context's font atlas unless it is the one already uploaded
    // (recognised by the TexID this pass gave it). Contract: an ImGui context is current and
    // the GPU is not using the previous atlas (the renderer waits for idle first).
    Status uploadFonts();
    // True when the current context's atlas is not (yet) the uploaded one.
    bool needsUpload() const;

    // Bytes of vertex and index data `data` needs (each rounded up to 16).
    static size_t vertexBytes(const ImDrawData& data);
    static size_t indexBytes(const ImDrawData& data);
    // Copies every list's vertices and indices, back to back, to the two destinations.
    static void writeGeometry(const ImDrawData& data, void* vertices, void* indices);
    // The push-constant transform from display coordinates to clip space.
    static gpu::vec4 transform(const ImDrawData& data);

    // Records the draws: `buffer` holds the geometry at the offsets; the ImGui pipeline is bound
    // by this call, the frame's push constants were pushed before. Returns the draw calls made.
    uint32_t record(VkCommandBuffer cmd, const ImDrawData& data, VkPipeline pipeline, VkPipelineLayout layout,
                    VkBuffer buffer, VkDeviceSize vertex_offset, VkDeviceSize index_offset,
                    VkExtent2D framebuffer) const;

private:
    const Device& device_;
    Allocator& allocator_;
    VkDescriptorSet set_;
    VkSampler sampler_;
    Image2D font_texture_;
};

}  // namespace memcity::render
