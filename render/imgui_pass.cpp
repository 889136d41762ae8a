#include "render/imgui_pass.h"

#include <imgui.h>

#include <algorithm>
#include <cstring>

namespace memcity::render {
namespace {

size_t roundUp16(size_t n) {
    return (n + 15) / 16 * 16;
}

}  // namespace

ImGuiPass::ImGuiPass(const Device& device, Allocator& allocator, VkDescriptorSet set, VkSampler sampler)
    : device_(device), allocator_(allocator), set_(set), sampler_(sampler) {}

bool ImGuiPass::needsUpload() const {
    if (!ImGui::GetCurrentContext()) return false;
    return !font_texture_ ||
           ImGui::GetIO().Fonts->TexID != static_cast<ImTextureID>(const_cast<Image2D*>(&font_texture_));
}

Status ImGuiPass::uploadFonts() {
    if (!ImGui::GetCurrentContext()) return Error{"ImGui: no current context to take the font atlas from"};
    if (!needsUpload()) return {};
    ImFontAtlas* atlas = ImGui::GetIO().Fonts;
    unsigned char* pixels = nullptr;
    int width = 0, height = 0;
    atlas->GetTexDataAsRGBA32(&pixels, &width, &height);
    if (!pixels || width <= 0 || height <= 0) return Error{"ImGui: the font atlas is empty"};
    Result<Image2D> texture = createTexture(device_, allocator_, static_cast<uint32_t>(width),
                                            static_cast<uint32_t>(height), VK_FORMAT_R8G8B8A8_UNORM, pixels,
                                            size_t(width) * size_t(height) * 4, "imgui font atlas");
    if (!texture) return texture.error();
    font_texture_ = std::move(*texture);
    atlas->SetTexID(static_cast<ImTextureID>(&font_texture_));

    VkDescriptorImageInfo image{sampler_, font_texture_.view(), VK_IMAGE_LAYOUT_SHADER_READ_ONLY_OPTIMAL};
    VkWriteDescriptorSet write{VK_STRUCTURE_TYPE_WRITE_DESCRIPTOR_SET};
    write.dstSet = set_;
    write.dstBinding = MC_BINDING_TEXTURE;
    write.descriptorCount = 1;
    write.descriptorType = VK_DESCRIPTOR_TYPE_COMBINED_IMAGE_SAMPLER;
    write.pImageInfo = &image;
    vkUpdateDescriptorSets(device_.device(), 1, &write, 0, nullptr);
    return {};
}

size_t ImGuiPass::vertexBytes(const ImDrawData& data) {
    return roundUp16(size_t(data.TotalVtxCount) * sizeof(ImDrawVert));
}

size_t ImGuiPass::indexBytes(const ImDrawData& data) {
    return roundUp16(size_t(data.TotalIdxCount) * sizeof(ImDrawIdx));
}

void ImGuiPass::writeGeometry(const ImDrawData& data, void* vertices, void* indices) {
    auto* v = static_cast<uint8_t*>(vertices);
    auto* i = static_cast<uint8_t*>(indices);
    for (int n = 0; n < data.CmdListsCount; ++n) {
        const ImDrawList* list = data.CmdLists[n];
        const size_t vb = size_t(list->VtxBuffer.Size) * sizeof(ImDrawVert);
        const size_t ib = size_t(list->IdxBuffer.Size) * sizeof(ImDrawIdx);
        if (vb) std::memcpy(v, list->VtxBuffer.Data, vb);
        if (ib) std::memcpy(i, list->IdxBuffer.Data, ib);
        v += vb;
        i += ib;
    }
}

gpu::vec4 ImGuiPass::transform(const ImDrawData& data) {
    const float sx = data.DisplaySize.x > 0 ? 2.0f / data.DisplaySize.x : 0.0f;
    const float sy = data.DisplaySize.y > 0 ? 2.0f / data.DisplaySize.y : 0.0f;
    return gpu::vec4(sx, sy, -1.0f - data.DisplayPos.x * sx, -1.0f - data.DisplayPos.y * sy);
}

uint32_t ImGuiPass::record(VkCommandBuffer cmd, const ImDrawData& data, VkPipeline pipeline,
                           VkPipelineLayout layout, VkBuffer buffer, VkDeviceSize vertex_offset,
                           VkDeviceSize index_offset, VkExtent2D framebuffer) const {
    if (data.TotalIdxCount == 0 || !font_texture_) return 0;
    vkCmdBindPipeline(cmd, VK_PIPELINE_BIND_POINT_GRAPHICS, pipeline);
    vkCmdBindDescriptorSets(cmd, VK_PIPELINE_BIND_POINT_GRAPHICS, layout, 0, 1, &set_, 0, nullptr);
    vkCmdBindVertexBuffers(cmd, 0, 1, &buffer, &vertex_offset);
    vkCmdBindIndexBuffer(cmd, buffer, index_offset,
                         sizeof(ImDrawIdx) == 2 ? VK_INDEX_TYPE_UINT16 : VK_INDEX_TYPE_UINT32);

    const ImVec2 clip_off = data.DisplayPos;
    const ImVec2 clip_scale = data.FramebufferScale;
    const float fb_w = static_cast<float>(framebuffer.width), fb_h = static_cast<float>(framebuffer.height);
    uint32_t draws = 0;
    uint32_t global_vertex = 0, global_index = 0;
    for (int n = 0; n < data.CmdListsCount; ++n) {
        const ImDrawList* list = data.CmdLists[n];
        for (int c = 0; c < list->CmdBuffer.Size; ++c) {
            const ImDrawCmd& dc = list->CmdBuffer[c];
            if (dc.UserCallback)
                continue;  // callbacks are not supported (ImDrawCallback_ResetRenderState included)
            const float x0 = std::max((dc.ClipRect.x - clip_off.x) * clip_scale.x, 0.0f);
            const float y0 = std::max((dc.ClipRect.y - clip_off.y) * clip_scale.y, 0.0f);
            const float x1 = std::min((dc.ClipRect.z - clip_off.x) * clip_scale.x, fb_w);
            const float y1 = std::min((dc.ClipRect.w - clip_off.y) * clip_scale.y, fb_h);
            if (x1 <= x0 || y1 <= y0 || dc.ElemCount == 0) continue;
            VkRect2D scissor;
            scissor.offset = {static_cast<int32_t>(x0), static_cast<int32_t>(y0)};
            scissor.extent = {static_cast<uint32_t>(x1 - x0), static_cast<uint32_t>(y1 - y0)};
            if (scissor.extent.width == 0 || scissor.extent.height == 0) continue;
            vkCmdSetScissor(cmd, 0, 1, &scissor);
            vkCmdDrawIndexed(cmd, dc.ElemCount, 1, global_index + dc.IdxOffset,
                             static_cast<int32_t>(global_vertex + dc.VtxOffset), 0);
            draws++;
        }
        global_vertex += static_cast<uint32_t>(list->VtxBuffer.Size);
        global_index += static_cast<uint32_t>(list->IdxBuffer.Size);
    }
    return draws;
}

}  // namespace memcity::render
