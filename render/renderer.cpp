#include "render/renderer.h"

#include <imgui.h>

#include <algorithm>
#include <array>
#include <bit>
#include <chrono>
#include <cstring>
#include <optional>

#include "render/batches.h"
#include "render/device.h"
#include "render/font.h"
#include "render/imgui_pass.h"
#include "render/offscreen.h"
#include "render/pipelines.h"
#include "render/resources.h"
#include "render/swapchain.h"
#include "render/text.h"
#include "render/vk_check.h"
#include "shaders/shared.h"

namespace memcity::render {
namespace {

using Clock = std::chrono::steady_clock;

constexpr uint32_t kFramesInFlight = 2;
constexpr VkFormat kOffscreenFormat = VK_FORMAT_R8G8B8A8_UNORM;
constexpr VkDeviceSize kMinUploadBytes = VkDeviceSize{256} << 10;
constexpr float kArcMaxErrorPx = 0.2f;

// The box index buffer: 3 quads over the 7 corners nearest the eye (see shaders/box.vert).
constexpr uint16_t kBoxIndices[gpu::kBoxIndexCount] = {0, 2, 6, 0, 6, 4, 0, 4, 5, 0, 5, 1, 0, 1, 3, 0, 3, 2};

double msSince(Clock::time_point t0) {
    return std::chrono::duration<double, std::milli>(Clock::now() - t0).count();
}

VkDeviceSize alignUp(VkDeviceSize v, VkDeviceSize a) {
    return (v + a - 1) / a * a;
}

// What one frame in flight owns. The frame's fence guards everything in it.
struct FrameContext {
    UniqueCommandPool pool;
    VkCommandBuffer cmd = VK_NULL_HANDLE;
    UniqueFence fence;
    UniqueSemaphore acquired;  // swapchain image ready
    UniqueQueryPool timestamps;
    bool timestamps_written = false;
    Buffer upload;  // this frame's vertex, instance and index data
};

// Where this frame's pieces lie in the upload buffer.
struct UploadLayout {
    VkDeviceSize box_indices = 0, boxes = 0, world_lines = 0, rects = 0, arcs = 0, triangles = 0, lines = 0,
                 glyphs = 0, imgui_vertices = 0, imgui_indices = 0, total = 0;
};

// The single-sample image a frame ends in and what happens to it afterwards.
struct FrameTarget {
    const RenderTarget* attachments = nullptr;  // MSAA colour and depth
    VkImage color = VK_NULL_HANDLE;             // offscreen colour or swapchain image
    VkImageView color_view = VK_NULL_HANDLE;
    VkFormat format = VK_FORMAT_UNDEFINED;
    VkExtent2D extent{};
    bool readback = false;  // copy to the readback buffer
    bool present = false;   // leave in PRESENT_SRC
};

}  // namespace

struct Renderer::Impl {
    RendererOptions options;
    std::unique_ptr<Device> device;  // first: destroyed last
    std::unique_ptr<Allocator> allocator;
    std::unique_ptr<Pipelines> pipelines;
    std::optional<TextRenderer> text;
    UniqueSampler sampler;
    UniqueDescriptorPool descriptor_pool;
    VkDescriptorSet text_set = VK_NULL_HANDLE;
    VkDescriptorSet imgui_set = VK_NULL_HANDLE;
    std::unique_ptr<ImGuiPass> imgui;
    VkSampleCountFlagBits samples = VK_SAMPLE_COUNT_1_BIT;
    std::array<FrameContext, kFramesInFlight> frames;
    uint32_t frame_index = 0;
    RenderTarget offscreen;

    // Swapchain state.
    VkSurfaceKHR surface = VK_NULL_HANDLE;
    Swapchain swapchain;
    RenderTarget swap_attachments;
    std::vector<UniqueSemaphore> render_done;  // per swapchain image
    uint32_t swap_width = 0, swap_height = 0;
    bool vsync = true;
    bool swap_stale = false;

    FrameStats last;
    // Scratch arrays reused from frame to frame.
    std::vector<BoxInstance> boxes;  // opaque first, then translucent back to front
    uint32_t opaque_boxes = 0;
    std::vector<ArcInstance> arcs;
    std::vector<GlyphInstance> glyphs;

    ~Impl() {
        if (device) vkDeviceWaitIdle(device->device());
        swapchain.reset();
        if (surface) vkDestroySurfaceKHR(device->instance(), surface, nullptr);
    }

    void createFrames() {
        VkDevice vk = device->device();
        for (FrameContext& f : frames) {
            VkCommandPoolCreateInfo pool{VK_STRUCTURE_TYPE_COMMAND_POOL_CREATE_INFO};
            pool.flags = VK_COMMAND_POOL_CREATE_RESET_COMMAND_BUFFER_BIT;
            pool.queueFamilyIndex = device->queueFamily();
            VkCommandPool p = VK_NULL_HANDLE;
            VK_CHECK(vkCreateCommandPool(vk, &pool, nullptr, &p));
            f.pool = UniqueCommandPool(vk, p);
            VkCommandBufferAllocateInfo alloc{VK_STRUCTURE_TYPE_COMMAND_BUFFER_ALLOCATE_INFO};
            alloc.commandPool = p;
            alloc.level = VK_COMMAND_BUFFER_LEVEL_PRIMARY;
            alloc.commandBufferCount = 1;
            VK_CHECK(vkAllocateCommandBuffers(vk, &alloc, &f.cmd));
            VkFenceCreateInfo fence{VK_STRUCTURE_TYPE_FENCE_CREATE_INFO};
            fence.flags = VK_FENCE_CREATE_SIGNALED_BIT;
            VkFence fe = VK_NULL_HANDLE;
            VK_CHECK(vkCreateFence(vk, &fence, nullptr, &fe));
            f.fence = UniqueFence(vk, fe);
            VkSemaphoreCreateInfo sem{VK_STRUCTURE_TYPE_SEMAPHORE_CREATE_INFO};
            VkSemaphore s = VK_NULL_HANDLE;
            VK_CHECK(vkCreateSemaphore(vk, &sem, nullptr, &s));
            f.acquired = UniqueSemaphore(vk, s);
            if (device->hasTimestamps()) {
                VkQueryPoolCreateInfo query{VK_STRUCTURE_TYPE_QUERY_POOL_CREATE_INFO};
                query.queryType = VK_QUERY_TYPE_TIMESTAMP;
                query.queryCount = 2;
                VkQueryPool q = VK_NULL_HANDLE;
                VK_CHECK(vkCreateQueryPool(vk, &query, nullptr, &q));
                f.timestamps = UniqueQueryPool(vk, q);
            }
        }
    }

    // Waits for the frame's previous use and collects its GPU time.
    void waitFrame(FrameContext& f) {
        VkFence fence = f.fence.get();
        VK_CHECK(vkWaitForFences(device->device(), 1, &fence, VK_TRUE, UINT64_MAX));
        if (f.timestamps && f.timestamps_written) {
            uint64_t ticks[2] = {0, 0};
            if (vkGetQueryPoolResults(device->device(), f.timestamps.get(), 0, 2, sizeof(ticks), ticks,
                                      sizeof(uint64_t), VK_QUERY_RESULT_64_BIT) == VK_SUCCESS)
                last.gpu_ms = static_cast<double>(ticks[1] - ticks[0]) *
                              static_cast<double>(device->properties().limits.timestampPeriod) * 1e-6;
            f.timestamps_written = false;
        }
    }

    Status ensureUpload(FrameContext& f, VkDeviceSize bytes) {
        if (f.upload && f.upload.size() >= bytes) return {};
        f.upload.reset();  // the frame's fence has been waited for: the GPU is done with it
        const VkDeviceSize size = std::bit_ceil(std::max(bytes, kMinUploadBytes));
        Result<Buffer> b = Buffer::create(
            *device, *allocator, size, VK_BUFFER_USAGE_VERTEX_BUFFER_BIT | VK_BUFFER_USAGE_INDEX_BUFFER_BIT,
            MemoryUsage::kUpload, "frame upload");
        if (!b) return b.error();
        f.upload = std::move(*b);
        return {};
    }

    Status prepareImGui(const ImDrawData* data) {
        if (!data || !imgui->needsUpload()) return {};
        vkDeviceWaitIdle(device->device());  // the old atlas may be in use
        return imgui->uploadFonts();
    }

    // Builds the instance arrays and writes everything into the frame's upload buffer.
    Result<UploadLayout> upload(FrameContext& f, const DrawList& list, const ImDrawData* data) {
        boxes.clear();
        arcs.clear();
        glyphs.clear();
        opaque_boxes = orderBoxes(list.boxes, list.camera.eye, &boxes);
        buildArcs(list.arcs, kArcMaxErrorPx, &arcs);
        text->appendLabels(list.labels, &glyphs);

        UploadLayout l;
        VkDeviceSize at = 0;
        auto place = [&](VkDeviceSize bytes) {
            const VkDeviceSize offset = at;
            at = alignUp(at + bytes, 16);
            return offset;
        };
        l.box_indices = place(sizeof(kBoxIndices));
        l.boxes = place(boxes.size() * sizeof(BoxInstance));
        l.world_lines = place(list.world_lines.size() * sizeof(WorldLine));
        l.rects = place(list.rects.size() * sizeof(Rect));
        l.arcs = place(arcs.size() * sizeof(ArcInstance));
        l.triangles = place(list.triangles.size() * sizeof(Vertex2D));
        l.lines = place(list.lines.size() * sizeof(Line2D));
        l.glyphs = place(glyphs.size() * sizeof(GlyphInstance));
        if (data) {
            l.imgui_vertices = place(ImGuiPass::vertexBytes(*data));
            l.imgui_indices = place(ImGuiPass::indexBytes(*data));
        }
        l.total = at;
        if (Status st = ensureUpload(f, l.total); !st) return st.error();

        auto* base = static_cast<uint8_t*>(f.upload.mapped());
        auto copy = [&](VkDeviceSize offset, const void* src, size_t bytes) {
            if (bytes) std::memcpy(base + offset, src, bytes);
        };
        copy(l.box_indices, kBoxIndices, sizeof(kBoxIndices));
        copy(l.boxes, boxes.data(), boxes.size() * sizeof(BoxInstance));
        copy(l.world_lines, list.world_lines.data(), list.world_lines.size() * sizeof(WorldLine));
        copy(l.rects, list.rects.data(), list.rects.size() * sizeof(Rect));
        copy(l.arcs, arcs.data(), arcs.size() * sizeof(ArcInstance));
        copy(l.triangles, list.triangles.data(), list.triangles.size() * sizeof(Vertex2D));
        copy(l.lines, list.lines.data(), list.lines.size() * sizeof(Line2D));
        copy(l.glyphs, glyphs.data(), glyphs.size() * sizeof(GlyphInstance));
        if (data) ImGuiPass::writeGeometry(*data, base + l.imgui_vertices, base + l.imgui_indices);
        return l;
    }

    gpu::FramePush push(const DrawList& list, VkExtent2D extent, const ImDrawData* data) const {
        gpu::FramePush p;
        p.view_proj = vulkanClipCorrection() * list.camera.projection * list.camera.view;
        p.eye = glm::vec4(list.camera.eye, 1.0f);
        glm::vec3 light = list.light_dir;
        light = glm::dot(light, light) > 1e-12f ? glm::normalize(light) : glm::vec3(0.0f, -1.0f, 0.0f);
        p.light = glm::vec4(light, std::clamp(options.ambient, 0.0f, 1.0f));
        const glm::vec2 size(static_cast<float>(extent.width), static_cast<float>(extent.height));
        p.viewport = glm::vec4(size, 1.0f / size);
        p.imgui = data ? ImGuiPass::transform(*data) : glm::vec4(0.0f);
        return p;
    }

    // Records the whole frame into f.cmd.
    void record(FrameContext& f, const DrawList& list, const ImDrawData* data, const FrameTarget& target,
                const UploadLayout& l, uint32_t* draw_calls) {
        VkCommandBuffer cmd = f.cmd;
        VK_CHECK(vkResetCommandBuffer(cmd, 0));
        VkCommandBufferBeginInfo begin{VK_STRUCTURE_TYPE_COMMAND_BUFFER_BEGIN_INFO};
        begin.flags = VK_COMMAND_BUFFER_USAGE_ONE_TIME_SUBMIT_BIT;
        VK_CHECK(vkBeginCommandBuffer(cmd, &begin));
        if (f.timestamps) {
            vkCmdResetQueryPool(cmd, f.timestamps.get(), 0, 2);
            vkCmdWriteTimestamp2(cmd, VK_PIPELINE_STAGE_2_TOP_OF_PIPE_BIT, f.timestamps.get(), 0);
        }

        // Layouts for rendering; the previous frame's writes and copies come first.
        const RenderTarget& a = *target.attachments;
        const VkPipelineStageFlags2 color_stages =
            VK_PIPELINE_STAGE_2_COLOR_ATTACHMENT_OUTPUT_BIT | VK_PIPELINE_STAGE_2_COPY_BIT;
        const VkPipelineStageFlags2 depth_stages =
            VK_PIPELINE_STAGE_2_EARLY_FRAGMENT_TESTS_BIT | VK_PIPELINE_STAGE_2_LATE_FRAGMENT_TESTS_BIT;
        const VkAccessFlags2 color_access =
            VK_ACCESS_2_COLOR_ATTACHMENT_WRITE_BIT | VK_ACCESS_2_COLOR_ATTACHMENT_READ_BIT;
        const VkAccessFlags2 depth_access =
            VK_ACCESS_2_DEPTH_STENCIL_ATTACHMENT_WRITE_BIT | VK_ACCESS_2_DEPTH_STENCIL_ATTACHMENT_READ_BIT;
        std::vector<ImageBarrier> barriers;
        barriers.push_back({target.color, VK_IMAGE_ASPECT_COLOR_BIT, VK_IMAGE_LAYOUT_UNDEFINED,
                            VK_IMAGE_LAYOUT_COLOR_ATTACHMENT_OPTIMAL, color_stages,
                            VK_PIPELINE_STAGE_2_COLOR_ATTACHMENT_OUTPUT_BIT,
                            VK_ACCESS_2_COLOR_ATTACHMENT_WRITE_BIT, color_access});
        if (a.msaaColor())
            barriers.push_back({a.msaaColor().handle(), VK_IMAGE_ASPECT_COLOR_BIT, VK_IMAGE_LAYOUT_UNDEFINED,
                                VK_IMAGE_LAYOUT_COLOR_ATTACHMENT_OPTIMAL,
                                VK_PIPELINE_STAGE_2_COLOR_ATTACHMENT_OUTPUT_BIT,
                                VK_PIPELINE_STAGE_2_COLOR_ATTACHMENT_OUTPUT_BIT,
                                VK_ACCESS_2_COLOR_ATTACHMENT_WRITE_BIT, color_access});
        barriers.push_back({a.depth().handle(), VK_IMAGE_ASPECT_DEPTH_BIT, VK_IMAGE_LAYOUT_UNDEFINED,
                            VK_IMAGE_LAYOUT_DEPTH_ATTACHMENT_OPTIMAL, depth_stages, depth_stages,
                            VK_ACCESS_2_DEPTH_STENCIL_ATTACHMENT_WRITE_BIT, depth_access});
        imageBarriers(cmd, barriers.data(), static_cast<uint32_t>(barriers.size()));

        const uint32_t c = list.clear_color;
        VkRenderingAttachmentInfo color{VK_STRUCTURE_TYPE_RENDERING_ATTACHMENT_INFO};
        color.imageLayout = VK_IMAGE_LAYOUT_COLOR_ATTACHMENT_OPTIMAL;
        color.loadOp = VK_ATTACHMENT_LOAD_OP_CLEAR;
        color.clearValue.color = {
            {static_cast<float>(c & 0xFF) / 255.0f, static_cast<float>((c >> 8) & 0xFF) / 255.0f,
             static_cast<float>((c >> 16) & 0xFF) / 255.0f, static_cast<float>((c >> 24) & 0xFF) / 255.0f}};
        if (a.msaaColor()) {
            color.imageView = a.msaaColor().view();
            color.storeOp = VK_ATTACHMENT_STORE_OP_DONT_CARE;
            color.resolveMode = VK_RESOLVE_MODE_AVERAGE_BIT;
            color.resolveImageView = target.color_view;
            color.resolveImageLayout = VK_IMAGE_LAYOUT_COLOR_ATTACHMENT_OPTIMAL;
        } else {
            color.imageView = target.color_view;
            color.storeOp = VK_ATTACHMENT_STORE_OP_STORE;
        }
        VkRenderingAttachmentInfo depth{VK_STRUCTURE_TYPE_RENDERING_ATTACHMENT_INFO};
        depth.imageView = a.depth().view();
        depth.imageLayout = VK_IMAGE_LAYOUT_DEPTH_ATTACHMENT_OPTIMAL;
        depth.loadOp = VK_ATTACHMENT_LOAD_OP_CLEAR;
        depth.storeOp = VK_ATTACHMENT_STORE_OP_DONT_CARE;
        depth.clearValue.depthStencil = {1.0f, 0};
        VkRenderingInfo rendering{VK_STRUCTURE_TYPE_RENDERING_INFO};
        rendering.renderArea = {{0, 0}, target.extent};
        rendering.layerCount = 1;
        rendering.colorAttachmentCount = 1;
        rendering.pColorAttachments = &color;
        rendering.pDepthAttachment = &depth;
        vkCmdBeginRendering(cmd, &rendering);

        const VkViewport viewport{
            0.0f, 0.0f, static_cast<float>(target.extent.width), static_cast<float>(target.extent.height),
            0.0f, 1.0f};
        const VkRect2D full{{0, 0}, target.extent};
        vkCmdSetViewport(cmd, 0, 1, &viewport);
        vkCmdSetScissor(cmd, 0, 1, &full);
        const gpu::FramePush constants = push(list, target.extent, data);
        vkCmdPushConstants(cmd, pipelines->layout(),
                           VK_SHADER_STAGE_VERTEX_BIT | VK_SHADER_STAGE_FRAGMENT_BIT, 0, sizeof(constants),
                           &constants);

        const TargetFormats formats{target.format, device->depthFormat(), samples};
        const VkBuffer buffer = f.upload.handle();
        uint32_t draws = 0;
        auto bind = [&](PipelineKind kind, VkDeviceSize offset) {
            vkCmdBindPipeline(cmd, VK_PIPELINE_BIND_POINT_GRAPHICS, pipelines->get(formats, kind));
            vkCmdBindVertexBuffers(cmd, 0, 1, &buffer, &offset);
        };
        auto count = [](size_t n) { return static_cast<uint32_t>(n); };

        // 3D: opaque boxes, world lines, translucent boxes.
        const uint32_t opaque = opaque_boxes;
        const uint32_t translucent = count(boxes.size()) - opaque;
        if (!boxes.empty()) vkCmdBindIndexBuffer(cmd, buffer, l.box_indices, VK_INDEX_TYPE_UINT16);
        if (opaque) {
            bind(PipelineKind::kBoxOpaque, l.boxes);
            vkCmdDrawIndexed(cmd, gpu::kBoxIndexCount, opaque, 0, 0, 0);
            draws++;
        }
        if (!list.world_lines.empty()) {
            bind(PipelineKind::kWorldLine, l.world_lines);
            vkCmdDraw(cmd, 2, count(list.world_lines.size()), 0, 0);
            draws++;
        }
        if (translucent) {
            bind(PipelineKind::kBoxTranslucent, l.boxes);
            vkCmdBindIndexBuffer(cmd, buffer, l.box_indices, VK_INDEX_TYPE_UINT16);
            vkCmdDrawIndexed(cmd, gpu::kBoxIndexCount, translucent, 0, 0, opaque);
            draws++;
        }
        // 2D overlay.
        if (!list.rects.empty()) {
            bind(PipelineKind::kRect, l.rects);
            vkCmdDraw(cmd, gpu::kQuadVertices, count(list.rects.size()), 0, 0);
            draws++;
        }
        if (!arcs.empty()) {
            bind(PipelineKind::kArc, l.arcs);
            vkCmdDraw(cmd, gpu::kArcVerticesPerInstance, count(arcs.size()), 0, 0);
            draws++;
        }
        if (!list.triangles.empty()) {
            bind(PipelineKind::kTriangle, l.triangles);
            vkCmdDraw(cmd, count(list.triangles.size() / 3 * 3), 1, 0, 0);
            draws++;
        }
        if (!list.lines.empty()) {
            bind(PipelineKind::kLine, l.lines);
            vkCmdDraw(cmd, gpu::kQuadVertices, count(list.lines.size()), 0, 0);
            draws++;
        }
        if (!glyphs.empty()) {
            bind(PipelineKind::kGlyph, l.glyphs);
            vkCmdBindDescriptorSets(cmd, VK_PIPELINE_BIND_POINT_GRAPHICS, pipelines->layout(), 0, 1,
                                    &text_set, 0, nullptr);
            vkCmdDraw(cmd, gpu::kQuadVertices, count(glyphs.size()), 0, 0);
            draws++;
        }
        if (data)
            draws +=
                imgui->record(cmd, *data, pipelines->get(formats, PipelineKind::kImGui), pipelines->layout(),
                              buffer, l.imgui_vertices, l.imgui_indices, target.extent);
        vkCmdEndRendering(cmd);

        if (target.readback) {
            imageBarrier(cmd, {target.color, VK_IMAGE_ASPECT_COLOR_BIT,
                               VK_IMAGE_LAYOUT_COLOR_ATTACHMENT_OPTIMAL, VK_IMAGE_LAYOUT_TRANSFER_SRC_OPTIMAL,
                               VK_PIPELINE_STAGE_2_COLOR_ATTACHMENT_OUTPUT_BIT, VK_PIPELINE_STAGE_2_COPY_BIT,
                               VK_ACCESS_2_COLOR_ATTACHMENT_WRITE_BIT, VK_ACCESS_2_TRANSFER_READ_BIT});
            a.recordReadback(cmd);
        }
        if (target.present)
            imageBarrier(
                cmd, {target.color, VK_IMAGE_ASPECT_COLOR_BIT, VK_IMAGE_LAYOUT_COLOR_ATTACHMENT_OPTIMAL,
                      VK_IMAGE_LAYOUT_PRESENT_SRC_KHR, VK_PIPELINE_STAGE_2_COLOR_ATTACHMENT_OUTPUT_BIT,
                      VK_PIPELINE_STAGE_2_NONE, VK_ACCESS_2_COLOR_ATTACHMENT_WRITE_BIT, VK_ACCESS_2_NONE});
        if (f.timestamps) {
            vkCmdWriteTimestamp2(cmd, VK_PIPELINE_STAGE_2_BOTTOM_OF_PIPE_BIT, f.timestamps.get(), 1);
            f.timestamps_written = true;
        }
        VK_CHECK(vkEndCommandBuffer(cmd));
        last.boxes_drawn = opaque + translucent;
        *draw_calls = draws;
    }

    void submit(FrameContext& f, VkSemaphore wait, VkSemaphore signal) {
        VkCommandBufferSubmitInfo cmd_info{VK_STRUCTURE_TYPE_COMMAND_BUFFER_SUBMIT_INFO};
        cmd_info.commandBuffer = f.cmd;
        VkSemaphoreSubmitInfo wait_info{VK_STRUCTURE_TYPE_SEMAPHORE_SUBMIT_INFO};
        wait_info.semaphore = wait;
        wait_info.stageMask = VK_PIPELINE_STAGE_2_COLOR_ATTACHMENT_OUTPUT_BIT;
        VkSemaphoreSubmitInfo signal_info{VK_STRUCTURE_TYPE_SEMAPHORE_SUBMIT_INFO};
        signal_info.semaphore = signal;
        signal_info.stageMask = VK_PIPELINE_STAGE_2_ALL_COMMANDS_BIT;
        VkSubmitInfo2 info{VK_STRUCTURE_TYPE_SUBMIT_INFO_2};
        info.commandBufferInfoCount = 1;
        info.pCommandBufferInfos = &cmd_info;
        if (wait) {
            info.waitSemaphoreInfoCount = 1;
            info.pWaitSemaphoreInfos = &wait_info;
        }
        if (signal) {
            info.signalSemaphoreInfoCount = 1;
            info.pSignalSemaphoreInfos = &signal_info;
        }
        VkFence fence = f.fence.get();
        VK_CHECK(vkResetFences(device->device(), 1, &fence));
        VK_CHECK(vkQueueSubmit2(device->queue(), 1, &info, fence));
    }

    Result<bool> offscreenFrame(const DrawList& list, uint32_t width, uint32_t height, const ImDrawData* data,
                                Image* out) {
        const Clock::time_point t0 = Clock::now();
        if (!offscreen || offscreen.width() != width || offscreen.height() != height) {
            TargetOptions o;
            o.width = width;
            o.height = height;
            o.color_format = kOffscreenFormat;
            o.depth_format = device->depthFormat();
            o.samples = samples;
            vkDeviceWaitIdle(device->device());  // the old target may be in use
            Result<RenderTarget> t = RenderTarget::create(*device, *allocator, o);
            if (!t) return t.error();
            offscreen = std::move(*t);
        }
        if (Status st = prepareImGui(data); !st) return st.error();
        FrameContext& f = frames[frame_index];
        frame_index = (frame_index + 1) % kFramesInFlight;
        waitFrame(f);
        Result<UploadLayout> l = upload(f, list, data);
        if (!l) return l.error();
        FrameTarget target;
        target.attachments = &offscreen;
        target.color = offscreen.color().handle();
        target.color_view = offscreen.color().view();
        target.format = kOffscreenFormat;
        target.extent = {width, height};
        target.readback = out != nullptr;
        uint32_t draws = 0;
        record(f, list, data, target, *l, &draws);
        submit(f, VK_NULL_HANDLE, VK_NULL_HANDLE);
        last.cpu_ms = msSince(t0);
        last.draw_calls = draws;
        waitFrame(f);
        last.wall_ms = msSince(t0);
        if (out) *out = offscreen.readPixels();
        return true;
    }

    Status recreateSwapchain() {
        vkDeviceWaitIdle(device->device());
        swap_stale = false;
        if (swap_width == 0 || swap_height == 0) return {};  // minimised: wait for a size
        SwapchainOptions o;
        o.width = swap_width;
        o.height = swap_height;
        o.vsync = vsync;
        Result<Swapchain> s = Swapchain::create(*device, surface, o, swapchain.handle());
        if (!s) return s.error();
        swapchain = std::move(*s);
        TargetOptions t;
        t.width = swapchain.extent().width;
        t.height = swapchain.extent().height;
        t.color_format = swapchain.format();
        t.depth_format = device->depthFormat();
        t.samples = samples;
        t.own_color = false;
        t.readback = false;
        Result<RenderTarget> target = RenderTarget::create(*device, *allocator, t);
        if (!target) return target.error();
        swap_attachments = std::move(*target);
        render_done.clear();
        for (uint32_t i = 0; i < swapchain.imageCount(); ++i) {
            VkSemaphoreCreateInfo sem{VK_STRUCTURE_TYPE_SEMAPHORE_CREATE_INFO};
            VkSemaphore s2 = VK_NULL_HANDLE;
            VK_CHECK(vkCreateSemaphore(device->device(), &sem, nullptr, &s2));
            render_done.emplace_back(device->device(), s2);
        }
        return {};
    }
};

Renderer::Renderer(std::unique_ptr<Impl> impl) : impl_(std::move(impl)) {}
Renderer::~Renderer() = default;

Result<std::unique_ptr<Renderer>> Renderer::create(const RendererOptions& options) {
    Result<Font> font = Font::load(options.font_path);
    if (!font) return Error{"renderer: " + font.error().message};
    auto impl = std::make_unique<Impl>();
    impl->options = options;
    DeviceOptions device_options;
    device_options.validation = options.validation;
    device_options.instance_extensions = options.instance_extensions;
    device_options.device_name = options.device_name;
    Result<std::unique_ptr<Device>> device = Device::create(device_options);
    if (!device) return Error{"renderer: " + device.error().message};
    impl->device = std::move(*device);
    const Device& d = *impl->device;
    VkDevice vk = d.device();
    impl->samples = d.clampSamples(options.samples);
    impl->allocator = std::make_unique<Allocator>(d);
    impl->pipelines = std::make_unique<Pipelines>(d);

    VkSamplerCreateInfo sampler{VK_STRUCTURE_TYPE_SAMPLER_CREATE_INFO};
    sampler.magFilter = VK_FILTER_LINEAR;
    sampler.minFilter = VK_FILTER_LINEAR;
    sampler.mipmapMode = VK_SAMPLER_MIPMAP_MODE_NEAREST;
    sampler.addressModeU = sampler.addressModeV = sampler.addressModeW =
        VK_SAMPLER_ADDRESS_MODE_CLAMP_TO_EDGE;
    sampler.maxLod = 0.0f;
    VkSampler s = VK_NULL_HANDLE;
    VK_CHECK(vkCreateSampler(vk, &sampler, nullptr, &s));
    impl->sampler = UniqueSampler(vk, s);

    VkDescriptorPoolSize pool_size{VK_DESCRIPTOR_TYPE_COMBINED_IMAGE_SAMPLER, 2};
    VkDescriptorPoolCreateInfo pool{VK_STRUCTURE_TYPE_DESCRIPTOR_POOL_CREATE_INFO};
    pool.maxSets = 2;
    pool.poolSizeCount = 1;
    pool.pPoolSizes = &pool_size;
    VkDescriptorPool p = VK_NULL_HANDLE;
    VK_CHECK(vkCreateDescriptorPool(vk, &pool, nullptr, &p));
    impl->descriptor_pool = UniqueDescriptorPool(vk, p);
    VkDescriptorSetLayout layouts[2] = {impl->pipelines->textureSetLayout(),
                                        impl->pipelines->textureSetLayout()};
    VkDescriptorSetAllocateInfo alloc{VK_STRUCTURE_TYPE_DESCRIPTOR_SET_ALLOCATE_INFO};
    alloc.descriptorPool = p;
    alloc.descriptorSetCount = 2;
    alloc.pSetLayouts = layouts;
    VkDescriptorSet sets[2] = {VK_NULL_HANDLE, VK_NULL_HANDLE};
    VK_CHECK(vkAllocateDescriptorSets(vk, &alloc, sets));
    impl->text_set = sets[0];
    impl->imgui_set = sets[1];

    Result<TextRenderer> text = TextRenderer::create(d, *impl->allocator, std::move(*font));
    if (!text) return Error{"renderer: " + text.error().message};
    impl->text.emplace(std::move(*text));
    VkDescriptorImageInfo image{s, impl->text->atlasView(), VK_IMAGE_LAYOUT_SHADER_READ_ONLY_OPTIMAL};
    VkWriteDescriptorSet write{VK_STRUCTURE_TYPE_WRITE_DESCRIPTOR_SET};
    write.dstSet = impl->text_set;
    write.dstBinding = MC_BINDING_TEXTURE;
    write.descriptorCount = 1;
    write.descriptorType = VK_DESCRIPTOR_TYPE_COMBINED_IMAGE_SAMPLER;
    write.pImageInfo = &image;
    vkUpdateDescriptorSets(vk, 1, &write, 0, nullptr);

    impl->imgui = std::make_unique<ImGuiPass>(d, *impl->allocator, impl->imgui_set, s);
    impl->createFrames();
    // Build the offscreen pipelines now rather than inside the first frame.
    const TargetFormats formats{kOffscreenFormat, d.depthFormat(), impl->samples};
    for (size_t k = 0; k < static_cast<size_t>(PipelineKind::kCount); ++k)
        impl->pipelines->get(formats, static_cast<PipelineKind>(k));
    return std::unique_ptr<Renderer>(new Renderer(std::move(impl)));
}

Result<Image> Renderer::renderToImage(const DrawList& list, uint32_t width, uint32_t height,
                                      const ImDrawData* imgui) {
    Image image;
    Result<bool> r = impl_->offscreenFrame(list, width, height, imgui, &image);
    if (!r) return r.error();
    return image;
}

Status Renderer::renderOffscreen(const DrawList& list, uint32_t width, uint32_t height,
                                 const ImDrawData* imgui) {
    Result<bool> r = impl_->offscreenFrame(list, width, height, imgui, nullptr);
    if (!r) return r.error();
    return {};
}

VkInstance Renderer::instance() const {
    return impl_->device->instance();
}

Status Renderer::attachSurface(VkSurfaceKHR surface, uint32_t width, uint32_t height, bool vsync) {
    Impl& m = *impl_;
    if (!m.device->hasSwapchain()) {
        vkDestroySurfaceKHR(m.device->instance(), surface, nullptr);
        return Error{"renderer: " + deviceName() + " has no VK_KHR_swapchain"};
    }
    vkDeviceWaitIdle(m.device->device());
    m.swapchain.reset();
    m.swap_attachments = RenderTarget();
    if (m.surface) vkDestroySurfaceKHR(m.device->instance(), m.surface, nullptr);
    m.surface = surface;
    m.swap_width = width;
    m.swap_height = height;
    m.vsync = vsync;
    return m.recreateSwapchain();
}

Status Renderer::resize(uint32_t width, uint32_t height) {
    Impl& m = *impl_;
    if (!m.surface) return Error{"renderer: resize without a surface (attachSurface first)"};
    m.swap_width = width;
    m.swap_height = height;
    return m.recreateSwapchain();
}

Status Renderer::setVsync(bool vsync) {
    Impl& m = *impl_;
    if (!m.surface) return Error{"renderer: setVsync without a surface (attachSurface first)"};
    m.vsync = vsync;
    return m.recreateSwapchain();
}

Status Renderer::renderToSwapchain(const DrawList& list, const ImDrawData* imgui) {
    Impl& m = *impl_;
    if (!m.surface) return Error{"renderer: renderToSwapchain without a surface (attachSurface first)"};
    const Clock::time_point t0 = Clock::now();
    if (m.swap_stale || !m.swapchain.handle()) {
        if (Status st = m.recreateSwapchain(); !st) return st;
        if (!m.swapchain.handle()) return {};  // minimised
    }
    if (Status st = m.prepareImGui(imgui); !st) return st;
    FrameContext& f = m.frames[m.frame_index];
    m.waitFrame(f);
    uint32_t index = 0;
    const SwapchainStatus acquired = m.swapchain.acquire(f.acquired.get(), &index);
    if (acquired == SwapchainStatus::kOutOfDate) {
        m.swap_stale = true;  // recreated at the next frame; this one is skipped
        return {};
    }
    m.frame_index = (m.frame_index + 1) % kFramesInFlight;
    Result<UploadLayout> l = m.upload(f, list, imgui);
    if (!l) return l.error();
    FrameTarget target;
    target.attachments = &m.swap_attachments;
    target.color = m.swapchain.image(index);
    target.color_view = m.swapchain.view(index);
    target.format = m.swapchain.format();
    target.extent = m.swapchain.extent();
    target.present = true;
    uint32_t draws = 0;
    m.record(f, list, imgui, target, *l, &draws);
    m.submit(f, f.acquired.get(), m.render_done[index].get());
    const SwapchainStatus presented = m.swapchain.present(m.render_done[index].get(), index);
    if (acquired != SwapchainStatus::kOk || presented != SwapchainStatus::kOk) m.swap_stale = true;
    m.last.cpu_ms = msSince(t0);
    m.last.wall_ms = 0;
    m.last.draw_calls = draws;
    return {};
}

void Renderer::waitIdle() {
    vkDeviceWaitIdle(impl_->device->device());
}

Status Renderer::uploadImGuiFonts() {
    if (!ImGui::GetCurrentContext())
        return Error{"renderer: no current ImGui context to take the fonts from"};
    if (!impl_->imgui->needsUpload()) return {};
    vkDeviceWaitIdle(impl_->device->device());  // the old atlas may be in use
    return impl_->imgui->uploadFonts();
}

float Renderer::textWidth(std::string_view text, float size_px) const {
    return impl_->text->font().textWidth(text, size_px);
}

const Font& Renderer::font() const {
    return impl_->text->font();
}

std::string Renderer::deviceName() const {
    return impl_->device->properties().deviceName;
}

uint32_t Renderer::sampleCount() const {
    return static_cast<uint32_t>(impl_->samples);
}

uint64_t Renderer::validationMessages() const {
    return impl_->device->validationMessages();
}

FrameStats Renderer::lastFrame() const {
    return impl_->last;
}

MemoryStats Renderer::memoryStats() const {
    const AllocatorStats s = impl_->allocator->stats();
    return MemoryStats{s.blocks, s.block_bytes, s.live_allocations, s.live_bytes};
}

std::vector<std::pair<std::string, uint64_t>> Renderer::memoryAllocations() const {
    std::vector<std::pair<std::string, uint64_t>> out;
    for (auto& [name, size] : impl_->allocator->liveAllocations())
        out.emplace_back(name, size);
    return out;
}

}  // namespace memcity::render
