// Labels on the GPU: the Font's glyph atlas as a texture (R8) and the glyph instances of a
// frame's labels (drawn by the kGlyph pipeline, one instanced draw for every label).
#pragma once

#include <vulkan/vulkan.h>

#include <vector>

#include "render/batches.h"
#include "render/device.h"
#include "render/font.h"
#include "render/resources.h"

namespace memcity::render {

class TextRenderer {
public:
    // Uploads `font`'s atlas (waits for the copy).
    static Result<TextRenderer> create(const Device& device, Allocator& allocator, Font font);

    const Font& font() const { return font_; }
    VkImageView atlasView() const { return atlas_.view(); }
    // Appends the glyph instances (backgrounds first, per label) of `labels`.
    void appendLabels(const std::vector<Label>& labels, std::vector<GlyphInstance>* out) const {
        buildLabels(font_, labels, out);
    }

private:
    TextRenderer(Font font, Image2D atlas) : font_(std::move(font)), atlas_(std::move(atlas)) {}
    Font font_;
    Image2D atlas_;
};

}  // namespace memcity::render
