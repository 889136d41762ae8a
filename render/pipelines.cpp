#include "render/pipelines.h"

#include <cstddef>

#include "render/batches.h"
#include "render/draw_list.h"
#include "render/shader_code.h"
#include "render/vk_check.h"
#include "shaders/shared.h"

#include <imgui.h>

namespace memcity::render {
namespace {

constexpr VkFormat kVec2 = VK_FORMAT_R32G32_SFLOAT;
constexpr VkFormat kVec3 = VK_FORMAT_R32G32B32_SFLOAT;
constexpr VkFormat kVec4 = VK_FORMAT_R32G32B32A32_SFLOAT;
constexpr VkFormat kFloat = VK_FORMAT_R32_SFLOAT;
constexpr VkFormat kColor = VK_FORMAT_R8G8B8A8_UNORM;  // rgba() packed colours
constexpr VkFormat kUint = VK_FORMAT_R32_UINT;

struct PipelineDesc {
    ShaderId vertex, fragment;
    VkPrimitiveTopology topology;
    uint32_t stride;
    VkVertexInputRate rate;
    std::vector<VkVertexInputAttributeDescription> attributes;  // binding 0
    bool depth_test = false, depth_write = false;
    bool blend = true;
    VkCullModeFlags cull = VK_CULL_MODE_NONE;
    const char* name;
};

constexpr uint32_t offset(size_t value) {
    return static_cast<uint32_t>(value);
}

PipelineDesc describe(PipelineKind kind) {
    constexpr VkPrimitiveTopology kStrip = VK_PRIMITIVE_TOPOLOGY_TRIANGLE_STRIP;
    constexpr VkPrimitiveTopology kList = VK_PRIMITIVE_TOPOLOGY_TRIANGLE_LIST;
    constexpr VkVertexInputRate kInstance = VK_VERTEX_INPUT_RATE_INSTANCE;
    switch (kind) {
        case PipelineKind::kBoxOpaque:
        case PipelineKind::kBoxTranslucent: {
            PipelineDesc d{ShaderId::kBoxVert,
                           ShaderId::kBoxFrag,
                           kList,
                           sizeof(BoxInstance),
                           kInstance,
                           {{0, 0, kVec3, offset(offsetof(BoxInstance, min))},
                            {1, 0, kVec3, offset(offsetof(BoxInstance, max))},
                            {2, 0, kColor, offset(offsetof(BoxInstance, color))},
                            {3, 0, kUint, offset(offsetof(BoxInstance, flags))}}};
            d.depth_test = true;
            d.depth_write = kind == PipelineKind::kBoxOpaque;
            d.blend = kind == PipelineKind::kBoxTranslucent;
            d.cull = VK_CULL_MODE_BACK_BIT;
            d.name = kind == PipelineKind::kBoxOpaque ? "boxes (opaque)" : "boxes (translucent)";
            return d;
        }
        case PipelineKind::kWorldLine: {
            PipelineDesc d{ShaderId::kWorldLineVert,
                           ShaderId::kFlatFrag,
                           VK_PRIMITIVE_TOPOLOGY_LINE_LIST,
                           sizeof(WorldLine),
                           kInstance,
                           {{0, 0, kVec3, offset(offsetof(WorldLine, a))},
                            {1, 0, kVec3, offset(offsetof(WorldLine, b))},
                            {2, 0, kColor, offset(offsetof(WorldLine, color))}}};
            d.depth_test = true;
            d.name = "world lines";
            return d;
        }
        case PipelineKind::kRect: {
            PipelineDesc d{ShaderId::kRectVert,
                           ShaderId::kRectFrag,
                           kStrip,
                           sizeof(Rect),
                           kInstance,
                           {{0, 0, kVec4, offset(offsetof(Rect, min))},
                            {1, 0, kColor, offset(offsetof(Rect, color))},
                            {2, 0, kUint, offset(offsetof(Rect, flags))}}};
            d.name = "rects";
            return d;
        }
        case PipelineKind::kArc: {
            PipelineDesc d{ShaderId::kArcVert,
                           ShaderId::kArcFrag,
                           kStrip,
                           sizeof(ArcInstance),
                           kInstance,
                           {{0, 0, kVec4, offset(offsetof(ArcInstance, shape))},
                            {1, 0, kVec4, offset(offsetof(ArcInstance, angles))},
                            {2, 0, kColor, offset(offsetof(ArcInstance, color))},
                            {3, 0, kUint, offset(offsetof(ArcInstance, flags))},
                            {4, 0, kUint, offset(offsetof(ArcInstance, segments))}}};
            d.name = "arcs";
            return d;
        }
        case PipelineKind::kTriangle: {
            PipelineDesc d{ShaderId::kTriangleVert,
                           ShaderId::kFlatFrag,
                           kList,
                           sizeof(Vertex2D),
                           VK_VERTEX_INPUT_RATE_VERTEX,
                           {{0, 0, kVec2, offset(offsetof(Vertex2D, pos))},
                            {1, 0, kColor, offset(offsetof(Vertex2D, color))}}};
            d.name = "triangles";
            return d;
        }
        case PipelineKind::kLine: {
            PipelineDesc d{ShaderId::kLineVert,
                           ShaderId::kFlatFrag,
                           kStrip,
                           sizeof(Line2D),
                           kInstance,
                           {{0, 0, kVec4, offset(offsetof(Line2D, a))},
                            {1, 0, kFloat, offset(offsetof(Line2D, width))},
                            {2, 0, kColor, offset(offsetof(Line2D, color))}}};
            d.name = "lines";
            return d;
        }
        case PipelineKind::kGlyph: {
            PipelineDesc d{ShaderId::kGlyphVert,
                           ShaderId::kGlyphFrag,
                           kStrip,
                           sizeof(GlyphInstance),
                           kInstance,
                           {{0, 0, kVec4, offset(offsetof(GlyphInstance, rect))},
                            {1, 0, kVec4, offset(offsetof(GlyphInstance, uv))},
                            {2, 0, kColor, offset(offsetof(GlyphInstance, color))}}};
            d.name = "glyphs";
            return d;
        }
        case PipelineKind::kImGui:
        case PipelineKind::kCount: break;
    }
    PipelineDesc d{ShaderId::kImGuiVert,
                   ShaderId::kImGuiFrag,
                   kList,
                   sizeof(ImDrawVert),
                   VK_VERTEX_INPUT_RATE_VERTEX,
                   {{0, 0, kVec2, offset(offsetof(ImDrawVert, pos))},
                    {1, 0, kVec2, offset(offsetof(ImDrawVert, uv))},
                    {2, 0, kColor, offset(offsetof(ImDrawVert, col))}}};
    d.name = "imgui";
    return d;
}

// The DrawList layouts are read by the GPU as they are: keep them what the attributes expect.
static_assert(sizeof(BoxInstance) == 36 && offsetof(BoxInstance, flags) == 32);
static_assert(sizeof(WorldLine) == 28);
static_assert(sizeof(Rect) == 28 && offsetof(Rect, max) == offsetof(Rect, min) + 8);
static_assert(sizeof(Vertex2D) == 12);
static_assert(sizeof(Line2D) == 24 && offsetof(Line2D, b) == offsetof(Line2D, a) + 8);
static_assert(sizeof(ArcInstance) == 44 && sizeof(GlyphInstance) == 36);
static_assert(kFlagSelected == gpu::kGpuFlagSelected && kFlagHighlighted == gpu::kGpuFlagHighlighted);

}  // namespace

Pipelines::Pipelines(const Device& device) : device_(device) {
    VkDevice vk = device.device();
    VkDescriptorSetLayoutBinding binding{};
    binding.binding = MC_BINDING_TEXTURE;
    binding.descriptorType = VK_DESCRIPTOR_TYPE_COMBINED_IMAGE_SAMPLER;
    binding.descriptorCount = 1;
    binding.stageFlags = VK_SHADER_STAGE_FRAGMENT_BIT;
    VkDescriptorSetLayoutCreateInfo set_info{VK_STRUCTURE_TYPE_DESCRIPTOR_SET_LAYOUT_CREATE_INFO};
    set_info.bindingCount = 1;
    set_info.pBindings = &binding;
    VkDescriptorSetLayout set_layout = VK_NULL_HANDLE;
    VK_CHECK(vkCreateDescriptorSetLayout(vk, &set_info, nullptr, &set_layout));
    set_layout_ = UniqueDescriptorSetLayout(vk, set_layout);

    VkPushConstantRange push{VK_SHADER_STAGE_VERTEX_BIT | VK_SHADER_STAGE_FRAGMENT_BIT, 0,
                             sizeof(gpu::FramePush)};
    VkPipelineLayoutCreateInfo layout_info{VK_STRUCTURE_TYPE_PIPELINE_LAYOUT_CREATE_INFO};
    layout_info.setLayoutCount = 1;
    layout_info.pSetLayouts = &set_layout;
    layout_info.pushConstantRangeCount = 1;
    layout_info.pPushConstantRanges = &push;
    VkPipelineLayout layout = VK_NULL_HANDLE;
    VK_CHECK(vkCreatePipelineLayout(vk, &layout_info, nullptr, &layout));
    layout_ = UniquePipelineLayout(vk, layout);
    device.setName(VK_OBJECT_TYPE_PIPELINE_LAYOUT, layout, "frame layout");

    for (size_t i = 0; i < static_cast<size_t>(ShaderId::kCount); ++i) {
        const auto id = static_cast<ShaderId>(i);
        const std::span<const uint32_t> code = shaderCode(id);
        VkShaderModuleCreateInfo info{VK_STRUCTURE_TYPE_SHADER_MODULE_CREATE_INFO};
        info.codeSize = code.size_bytes();
        info.pCode = code.data();
        VkShaderModule module = VK_NULL_HANDLE;
        VK_CHECK(vkCreateShaderModule(vk, &info, nullptr, &module));
        device.setName(VK_OBJECT_TYPE_SHADER_MODULE, module, shaderName(id));
        modules_.emplace_back(vk, module);
    }
}

Pipelines::~Pipelines() = default;

VkPipeline Pipelines::get(const TargetFormats& formats, PipelineKind kind) {
    PipelineArray* set = nullptr;
    for (auto& [f, pipelines] : sets_)
        if (f == formats) set = pipelines.get();
    if (!set) {
        sets_.emplace_back(formats, std::make_unique<PipelineArray>());
        set = sets_.back().second.get();
    }
    UniquePipeline& p = (*set)[static_cast<size_t>(kind)];
    if (!p) p = build(formats, kind);
    return p.get();
}

UniquePipeline Pipelines::build(const TargetFormats& formats, PipelineKind kind) const {
    const PipelineDesc d = describe(kind);
    VkPipelineShaderStageCreateInfo stages[2] = {{VK_STRUCTURE_TYPE_PIPELINE_SHADER_STAGE_CREATE_INFO},
                                                 {VK_STRUCTURE_TYPE_PIPELINE_SHADER_STAGE_CREATE_INFO}};
    stages[0].stage = VK_SHADER_STAGE_VERTEX_BIT;
    stages[0].module = modules_[static_cast<size_t>(d.vertex)].get();
    stages[0].pName = "main";
    stages[1].stage = VK_SHADER_STAGE_FRAGMENT_BIT;
    stages[1].module = modules_[static_cast<size_t>(d.fragment)].get();
    stages[1].pName = "main";

    VkVertexInputBindingDescription binding{0, d.stride, d.rate};
    VkPipelineVertexInputStateCreateInfo vertex_input{
        VK_STRUCTURE_TYPE_PIPELINE_VERTEX_INPUT_STATE_CREATE_INFO};
    vertex_input.vertexBindingDescriptionCount = 1;
    vertex_input.pVertexBindingDescriptions = &binding;
    vertex_input.vertexAttributeDescriptionCount = static_cast<uint32_t>(d.attributes.size());
    vertex_input.pVertexAttributeDescriptions = d.attributes.data();

    VkPipelineInputAssemblyStateCreateInfo assembly{
        VK_STRUCTURE_TYPE_PIPELINE_INPUT_ASSEMBLY_STATE_CREATE_INFO};
    assembly.topology = d.topology;

    VkPipelineViewportStateCreateInfo viewport{VK_STRUCTURE_TYPE_PIPELINE_VIEWPORT_STATE_CREATE_INFO};
    viewport.viewportCount = 1;
    viewport.scissorCount = 1;

    VkPipelineRasterizationStateCreateInfo raster{VK_STRUCTURE_TYPE_PIPELINE_RASTERIZATION_STATE_CREATE_INFO};
    raster.polygonMode = VK_POLYGON_MODE_FILL;
    raster.cullMode = d.cull;
    // The box index buffer winds counter-clockwise seen from outside; vulkanClipCorrection()
    // flips y, which keeps that counter-clockwise in Vulkan's framebuffer terms.
    raster.frontFace = VK_FRONT_FACE_COUNTER_CLOCKWISE;
    raster.lineWidth = 1.0f;

    VkPipelineMultisampleStateCreateInfo multisample{
        VK_STRUCTURE_TYPE_PIPELINE_MULTISAMPLE_STATE_CREATE_INFO};
    multisample.rasterizationSamples = formats.samples;

    VkPipelineDepthStencilStateCreateInfo depth{VK_STRUCTURE_TYPE_PIPELINE_DEPTH_STENCIL_STATE_CREATE_INFO};
    depth.depthTestEnable = d.depth_test;
    depth.depthWriteEnable = d.depth_write;
    depth.depthCompareOp = VK_COMPARE_OP_LESS_OR_EQUAL;

    VkPipelineColorBlendAttachmentState blend{};
    blend.colorWriteMask = VK_COLOR_COMPONENT_R_BIT | VK_COLOR_COMPONENT_G_BIT | VK_COLOR_COMPONENT_B_BIT |
                           VK_COLOR_COMPONENT_A_BIT;
    if (d.blend) {
        blend.blendEnable = VK_TRUE;
        blend.srcColorBlendFactor = VK_BLEND_FACTOR_SRC_ALPHA;
        blend.dstColorBlendFactor = VK_BLEND_FACTOR_ONE_MINUS_SRC_ALPHA;
        blend.colorBlendOp = VK_BLEND_OP_ADD;
        blend.srcAlphaBlendFactor = VK_BLEND_FACTOR_ONE;
        blend.dstAlphaBlendFactor = VK_BLEND_FACTOR_ONE_MINUS_SRC_ALPHA;
        blend.alphaBlendOp = VK_BLEND_OP_ADD;
    }
    VkPipelineColorBlendStateCreateInfo color_blend{VK_STRUCTURE_TYPE_PIPELINE_COLOR_BLEND_STATE_CREATE_INFO};
    color_blend.attachmentCount = 1;
    color_blend.pAttachments = &blend;

    const VkDynamicState dynamic_states[] = {VK_DYNAMIC_STATE_VIEWPORT, VK_DYNAMIC_STATE_SCISSOR};
    VkPipelineDynamicStateCreateInfo dynamic{VK_STRUCTURE_TYPE_PIPELINE_DYNAMIC_STATE_CREATE_INFO};
    dynamic.dynamicStateCount = 2;
    dynamic.pDynamicStates = dynamic_states;

    VkPipelineRenderingCreateInfo rendering{VK_STRUCTURE_TYPE_PIPELINE_RENDERING_CREATE_INFO};
    rendering.colorAttachmentCount = 1;
    rendering.pColorAttachmentFormats = &formats.color;
    rendering.depthAttachmentFormat = formats.depth;

    VkGraphicsPipelineCreateInfo info{VK_STRUCTURE_TYPE_GRAPHICS_PIPELINE_CREATE_INFO};
    info.pNext = &rendering;
    info.stageCount = 2;
    info.pStages = stages;
    info.pVertexInputState = &vertex_input;
    info.pInputAssemblyState = &assembly;
    info.pViewportState = &viewport;
    info.pRasterizationState = &raster;
    info.pMultisampleState = &multisample;
    info.pDepthStencilState = &depth;
    info.pColorBlendState = &color_blend;
    info.pDynamicState = &dynamic;
    info.layout = layout_.get();
    VkPipeline pipeline = VK_NULL_HANDLE;
    VK_CHECK(vkCreateGraphicsPipelines(device_.device(), VK_NULL_HANDLE, 1, &info, nullptr, &pipeline));
    device_.setName(VK_OBJECT_TYPE_PIPELINE, pipeline, d.name);
    return UniquePipeline(device_.device(), pipeline);
}

}  // namespace memcity::render
