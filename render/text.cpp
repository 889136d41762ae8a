#include "render/text.h"

namespace memcity::render {

Result<TextRenderer> TextRenderer::create(const Device& device, Allocator& allocator, Font font) {
    const std::vector<uint8_t>& pixels = font.atlasPixels();
    Result<Image2D> atlas = createTexture(device, allocator, font.atlasWidth(), font.atlasHeight(),
                                          VK_FORMAT_R8_UNORM, pixels.data(), pixels.size(), "glyph atlas");
    if (!atlas) return atlas.error();
    return TextRenderer(std::move(font), std::move(*atlas));
}

}  // namespace memcity::render
