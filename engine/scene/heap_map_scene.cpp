#include "scene/heap_map_scene.h"

#include <algorithm>
#include <array>
#include <cinttypes>
#include <cmath>
#include <cstdio>

#include "scene/estimates.h"
#include "scene/palette.h"
#include "util/units.h"

namespace memcity::scene {
namespace {

constexpr float kTitleHeight = 28.0f;
constexpr float kMargin = 12.0f;
constexpr float kHeaderPx = 18.0f;  // a space's line above its tiles
constexpr float kLegendRowPx = 16.0f;
constexpr uint32_t kFreeTile = render::rgba(44, 48, 56);
constexpr uint32_t kCommitted = render::rgba(40, 44, 52);
constexpr uint32_t kBeforeExtent = render::rgba(96, 102, 114);  // the history's used extents
constexpr uint32_t kAfterExtent = render::rgba(150, 156, 168);

// The roles the legend lists, in G1's log's order (humongous: starts and continues as one).
constexpr RegionRole kLegendRoles[] = {RegionRole::kEden,    RegionRole::kSurvivor,
                                       RegionRole::kOld,     RegionRole::kHumongousStart,
                                       RegionRole::kArchive, RegionRole::kUnknown};

std::string roleLabel(RegionRole role) {
    return role == RegionRole::kHumongousStart ? "humongous" : std::string(regionRoleName(role));
}

std::string hex(uint64_t v) {
    char b[24];
    std::snprintf(b, sizeof b, "0x%" PRIx64, v);
    return b;
}

// The frame's largest objects count and mean age of a tile (what those streams are relative to).
double scaleOf(const HeapMap& map, HeapStream stream) {
    double scale = 0;
    for (const SpaceMap& s : map.spaces)
        for (const HeapTile& t : s.tiles) {
            if (stream == HeapStream::kObjects) scale = std::max(scale, static_cast<double>(t.objects));
            if (stream == HeapStream::kAge && t.bytes)
                scale = std::max(scale, static_cast<double>(t.age_bytes) / static_cast<double>(t.bytes));
        }
    return scale;
}

const char* streamTitle(HeapStream stream) {
    switch (stream) {
        case HeapStream::kUsed: return "used bytes";
        case HeapStream::kObjects: return "objects";
        case HeapStream::kAge: return "age (GCs lived through)";
        case HeapStream::kSelected: return "the selection's share";
        case HeapStream::kDying: return "dies at the next GC";
    }
    return "";
}

}  // namespace

std::string_view heapStreamName(HeapStream stream) {
    switch (stream) {
        case HeapStream::kUsed: return "used";
        case HeapStream::kObjects: return "objects";
        case HeapStream::kAge: return "age";
        case HeapStream::kSelected: return "selected";
        case HeapStream::kDying: return "dying";
    }
    return "used";
}

Result<HeapStream> parseHeapStream(std::string_view name) {
    for (int i = 0; i < kHeapStreamCount; ++i)
        if (heapStreamName(static_cast<HeapStream>(i)) == name) return static_cast<HeapStream>(i);
    return Error{"unknown stream '" + std::string(name.substr(0, 40)) +
                 "' (expected used, objects, age, selected or dying)"};
}

double tileValue(const HeapTile& t, HeapStream stream, uint64_t tile_bytes, double scale) {
    const double bytes = static_cast<double>(t.bytes);
    switch (stream) {
        case HeapStream::kUsed:
            return tile_bytes ? std::min(1.0, bytes / static_cast<double>(tile_bytes)) : 0;
        case HeapStream::kObjects: return scale > 0 ? static_cast<double>(t.objects) / scale : 0;
        case HeapStream::kAge:
            return scale > 0 && t.bytes ? static_cast<double>(t.age_bytes) / bytes / scale : 0;
        case HeapStream::kSelected: return t.bytes ? static_cast<double>(t.selected_bytes) / bytes : 0;
        case HeapStream::kDying: return t.bytes ? static_cast<double>(t.dying_bytes) / bytes : 0;
    }
    return 0;
}

uint32_t roleColor(RegionRole role) {
    switch (role) {
        case RegionRole::kFree: return kFreeTile;
        case RegionRole::kEden: return render::rgba(120, 220, 120);
        case RegionRole::kSurvivor: return render::rgba(90, 200, 240);
        case RegionRole::kOld: return render::rgba(180, 140, 255);
        case RegionRole::kHumongousStart:
        case RegionRole::kHumongousContinues: return render::rgba(255, 120, 200);
        case RegionRole::kArchive: return render::rgba(200, 170, 120);
        case RegionRole::kUnknown: break;
    }
    return render::rgba(255, 255, 255);
}

uint32_t heatColor(double value) {
    // Stops of a ramp that stays apart for the common colour-vision deficiencies.
    static constexpr uint32_t kStops[] = {render::rgba(30, 40, 90), render::rgba(30, 120, 150),
                                          render::rgba(120, 190, 110), render::rgba(240, 210, 70),
                                          render::rgba(230, 80, 50)};
    const double v = std::clamp(value, 0.0, 1.0) * 4.0;
    const auto i = static_cast<size_t>(std::min(3.0, std::floor(v)));
    return palette::mix(kStops[i], kStops[i + 1], static_cast<float>(v - static_cast<double>(i)));
}

HeapMapScene::HeapMapScene(HeapMapInputs inputs, HeapMapViewOptions options, glm::vec2 size)
    : inputs_(std::move(inputs)), options_(std::move(options)), size_(size) {}

PixelRect HeapMapScene::bandsRect() const {
    const float top = (options_.title_bar ? kTitleHeight : 0.0f) + options_.top_px + 8.0f;
    const float bottom = inputs_.history.empty() ? size_.y - 34.0f : std::round(size_.y * 0.64f);
    return {{kMargin, top}, {size_.x - kMargin, std::max(top + 1.0f, bottom)}};
}

void HeapMapScene::compose(const HeapMap& map, const HeapMap* next, double f, render::DrawList& out) {
    out.clear();
    out.clear_color = palette::kBackground;
    const HeapStream stream = options_.stream;
    // Tween only between maps of the same tiles.
    bool tween =
        next && f > 0 && next->tile_bytes == map.tile_bytes && next->spaces.size() == map.spaces.size();
    for (size_t i = 0; tween && i < map.spaces.size(); ++i)
        tween = map.spaces[i].tiles.size() == next->spaces[i].tiles.size();
    double scale = scaleOf(map, stream);
    if (tween) scale = std::max(scale, scaleOf(*next, stream));
    const uint32_t gc = map.gc;
    const GcRecord* record = gc < inputs_.gcs.size() ? &inputs_.gcs[gc] : nullptr;

    if (options_.title_bar) {
        out.rects.push_back({{0, 0}, {size_.x, kTitleHeight}, palette::kPanel, 0, 0});
        std::string title = inputs_.title + "  \xc2\xb7  heap map, GC " + std::to_string(gc);
        if (record) title += " (" + std::string(format::gcKindName(record->kind)) + ")";
        // (A sampled recording's maps have one stream: the room goes to why.)
        if (!inputs_.sampled) title += "  \xc2\xb7  colour: " + std::string(streamTitle(stream));
        title += "  \xc2\xb7  tiles of " + formatBytes(map.tile_bytes);
        const char* tops = map.region_bytes ? "each region's used bytes" : "the spaces' tops";
        if (!map.addresses && inputs_.sampled)
            title += "  \xc2\xb7  " + std::string(tops) + " only: " + std::string(kNoAddressesReason);
        else if (!map.addresses)
            title += "  \xc2\xb7  no addresses at this GC: " + std::string(tops);
        out.labels.push_back(
            {{kMargin, kTitleHeight / 2}, title, palette::kText, 14.0f, render::TextAnchor::kLeftCenter});
    }

    const PixelRect bands = bandsRect();
    const float px = std::max(2.0f, options_.tile_px);
    const float gap = px >= 5.0f ? 1.0f : 0.0f;
    const auto per_row = static_cast<size_t>(std::max(1.0f, std::floor(bands.width() / px)));
    bands_.clear();
    per_row_ = per_row;
    tile_px_ = px;
    tile_bytes_ = map.tile_bytes;
    float y = bands.min.y;
    for (size_t si = 0; si < map.spaces.size(); ++si) {
        const SpaceMap& s = map.spaces[si];
        if (y + kHeaderPx > bands.max.y) {
            out.labels.push_back({{bands.min.x, y},
                                  "(more spaces below: a larger tile size fits them)",
                                  palette::kTextDim,
                                  12.0f,
                                  render::TextAnchor::kTopLeft});
            break;
        }
        std::string line = s.name + "  ";
        if (s.state.kind != SpaceKind::kUnknown) line += std::string(spaceKindName(s.state.kind)) + "  ";
        line += formatBytes(s.state.used()) + " of " + formatBytes(s.state.capacity()) + " used  ";
        if (s.state.top_before >= s.state.bottom)
            line += "(" + formatBytes(s.state.usedBefore()) + " before the GC)  ";
        line += hex(s.state.bottom);
        if (map.region_bytes)
            line +=
                "  " + formatCount(map.region_roles.size()) + " regions of " + formatBytes(map.region_bytes);
        if (map.addresses)
            line += "  " + formatCount(s.objects) + " objects, " + formatBytes(s.bytes) + ", " +
                    formatBytes(s.gap_bytes) + " between them";
        out.labels.push_back(
            {{bands.min.x, y + 2}, line, palette::kText, 13.0f, render::TextAnchor::kTopLeft});
        y += kHeaderPx;
        Band& band = bands_.emplace_back(Band{y, 0, s.state.bottom, s.state.end});
        for (size_t t = 0; t < s.tiles.size(); ++t) {
            const float x0 = bands.min.x + static_cast<float>(t % per_row) * px;
            const float y0 = y + static_cast<float>(t / per_row) * px;
            if (y0 + px > bands.max.y) break;
            band.drawn = t + 1;
            const uint64_t from = s.state.bottom + t * map.tile_bytes;
            const HeapTile& tile = s.tiles[t];
            double v = tileValue(tile, stream, map.tile_bytes, scale);
            uint64_t bytes = tile.bytes;
            if (tween) {
                const HeapTile& other = next->spaces[si].tiles[t];
                v += (tileValue(other, stream, map.tile_bytes, scale) - v) * f;
                bytes = std::max(bytes, other.bytes);
            }
            // Under G1 a region's role says whether it is free; else what lies above the top.
            const RegionRole role = map.roleOfTile(t);
            const bool free =
                map.region_bytes ? role == RegionRole::kFree : bytes == 0 && from >= s.state.top;
            uint32_t flags = tile.selected_bytes ? render::kFlagSelected : render::kFlagNone;
            if (hovered_ && hovered_->space == si && hovered_->tile == t) flags |= render::kFlagHighlighted;
            const PixelRect r{{x0, y0}, {x0 + px - gap, y0 + px - gap}};
            // As GCspy does, a zero is a frame, told apart from a small value.
            const bool zero = !free && v <= 0.0 && px >= 5.0f;
            out.rects.push_back({r.min, r.max,
                                 free   ? kFreeTile
                                 : zero ? palette::kGrid
                                        : heatColor(v),
                                 0, flags});
            if (zero) out.rects.push_back({r.min + 1.0f, r.max - 1.0f, palette::kBackground, 0, 0});
            // The region's role: a band along the top, joined to the tile before where that one
            // is of the same region or of the same humongous object (and in the same row).
            if (map.region_bytes && !free) {
                const float band_px = std::max(1.0f, std::floor(px / 3.0f));
                const bool joined = t % per_row != 0 && ((t - 1) * map.tile_bytes / map.region_bytes ==
                                                             t * map.tile_bytes / map.region_bytes ||
                                                         role == RegionRole::kHumongousContinues);
                out.rects.push_back(
                    {{joined ? x0 - gap : x0, y0}, {r.max.x, y0 + band_px}, roleColor(role), 0, 0});
            }
        }
        const size_t rows = (s.tiles.size() + per_row - 1) / per_row;
        y += static_cast<float>(rows) * px + 8.0f;
    }

    // The legend's place: the ramp at the bottom right; under G1 the roles left of it, in as
    // many rows as they take (the history graph ends above them).
    const float lx = size_.x - kMargin - 280.0f, ly = size_.y - 24.0f;
    struct RoleItem {
        uint32_t color;
        std::string text;
        float x;
        size_t row;
    };
    std::vector<RoleItem> roles;
    size_t role_rows = 1;
    if (map.region_bytes) {
        std::array<uint32_t, kRegionRoleCount> count{};
        for (RegionRole role : map.region_roles)
            ++count[static_cast<size_t>(role)];
        float x = kMargin;
        auto add = [&](uint32_t color, std::string text) {
            const float w = 18.0f + textWidth(options_.measure, text, 12.0f) + 14.0f;
            if (x > kMargin && x + w > lx - 20.0f) x = kMargin, ++role_rows;
            roles.push_back({color, std::move(text), x, role_rows - 1});
            x += w;
        };
        add(kFreeTile, "free " + formatCount(count[static_cast<size_t>(RegionRole::kFree)]));
        for (RegionRole role : kLegendRoles) {
            uint64_t n = count[static_cast<size_t>(role)];
            if (role == RegionRole::kHumongousStart)
                n += count[static_cast<size_t>(RegionRole::kHumongousContinues)];
            if (n == 0 && (role == RegionRole::kArchive || role == RegionRole::kUnknown)) continue;
            std::string text = roleLabel(role) + " " + formatCount(n);
            if (role == RegionRole::kHumongousStart && n)
                text += " (" + formatCount(count[static_cast<size_t>(role)]) + " objects)";
            add(roleColor(role), std::move(text));
        }
    }
    if (!inputs_.history.empty())
        drawHistory(gc,
                    {{kMargin, bands.max.y + 10.0f},
                     {size_.x - kMargin, size_.y - 34.0f - static_cast<float>(role_rows - 1) * kLegendRowPx}},
                    out);

    // The legend: the ramp, and what its ends mean.
    for (int i = 0; i < 20; ++i)
        out.rects.push_back({{lx + static_cast<float>(i) * 10.0f, ly},
                             {lx + static_cast<float>(i + 1) * 10.0f, ly + 12.0f},
                             heatColor(i / 19.0),
                             0,
                             0});
    std::string high = "100%";
    if (stream == HeapStream::kObjects) high = formatCount(static_cast<uint64_t>(scale)) + " objects";
    if (stream == HeapStream::kAge) {
        char b[32];
        std::snprintf(b, sizeof b, "%.1f GCs", scale);
        high = b;
    }
    out.labels.push_back(
        {{lx - 6.0f, ly + 6.0f}, "0", palette::kTextDim, 12.0f, render::TextAnchor::kRightCenter});
    out.labels.push_back(
        {{lx + 206.0f, ly + 6.0f}, high, palette::kTextDim, 12.0f, render::TextAnchor::kLeftCenter});
    if (!map.region_bytes) {
        out.rects.push_back({{kMargin, ly}, {kMargin + 12.0f, ly + 12.0f}, kFreeTile, 0, 0});
        out.labels.push_back({{kMargin + 18.0f, ly + 6.0f},
                              "free (committed, above the space's top)",
                              palette::kTextDim,
                              12.0f,
                              render::TextAnchor::kLeftCenter});
        return;
    }
    // G1: each role's band colour and its regions, in rows left of the ramp (the lowest at the
    // ramp's line).
    for (size_t i = 0; i < roles.size(); ++i) {
        const float row_y = ly - static_cast<float>(role_rows - 1 - roles[i].row) * kLegendRowPx;
        out.rects.push_back({{roles[i].x, row_y}, {roles[i].x + 12.0f, row_y + 12.0f}, roles[i].color, 0, 0});
        out.labels.push_back({{roles[i].x + 18.0f, row_y + 6.0f},
                              roles[i].text,
                              palette::kTextDim,
                              12.0f,
                              render::TextAnchor::kLeftCenter});
    }
}

std::optional<HeapTilePick> HeapMapScene::pick(glm::vec2 pixel) const {
    const PixelRect rect = bandsRect();
    if (!rect.contains(pixel) || tile_px_ <= 0) return std::nullopt;
    const auto column = static_cast<size_t>((pixel.x - rect.min.x) / tile_px_);
    if (column >= per_row_) return std::nullopt;
    for (size_t i = 0; i < bands_.size(); ++i) {
        const Band& b = bands_[i];
        if (pixel.y < b.top) continue;
        const auto row = static_cast<size_t>((pixel.y - b.top) / tile_px_);
        const size_t tile = row * per_row_ + column;
        if (tile >= b.drawn) continue;
        const uint64_t from = b.bottom + tile * tile_bytes_;
        return HeapTilePick{i, tile, from, std::min(b.end, from + tile_bytes_)};
    }
    return std::nullopt;
}

void HeapMapScene::drawHistory(uint32_t gc, PixelRect rect, render::DrawList& out) const {
    const auto& h = inputs_.history;
    // G1's grid: each region's role before and after each GC (the bands' colours), not extents.
    const bool roles =
        std::any_of(h.begin(), h.end(), [](const SpaceHistoryRow& r) { return !r.roles_after.empty(); });
    const bool tiles =
        !roles && std::any_of(h.begin(), h.end(), [](const SpaceHistoryRow& r) { return r.addresses; });
    const HeapStream stream = options_.stream;
    const std::string title =
        "history of " + inputs_.history_space + ", GC " + std::to_string(h.front().gc) + " to " +
        std::to_string(h.back().gc) +
        (roles ? ": each region's role before and after each GC" : ": before and after each GC");
    out.labels.push_back({rect.min, title, palette::kText, 13.0f, render::TextAnchor::kTopLeft});
    // What the columns show, in the header: the used extents, and the tiles coloured as above
    // after the GCs with addresses.
    const float kx = rect.max.x - (tiles ? 330.0f : 170.0f);
    if (!roles) out.rects.push_back({{kx, rect.min.y + 2}, {kx + 10, rect.min.y + 12}, kBeforeExtent, 0, 0});
    if (!roles) {
        out.labels.push_back(
            {{kx + 14, rect.min.y + 7}, "before", palette::kTextDim, 12.0f, render::TextAnchor::kLeftCenter});
        out.rects.push_back({{kx + 66, rect.min.y + 2}, {kx + 76, rect.min.y + 12}, kAfterExtent, 0, 0});
        out.labels.push_back(
            {{kx + 80, rect.min.y + 7}, "after", palette::kTextDim, 12.0f, render::TextAnchor::kLeftCenter});
    }
    if (tiles) {
        for (int i = 0; i < 4; ++i)
            out.rects.push_back({{kx + 126 + static_cast<float>(i) * 5, rect.min.y + 2},
                                 {kx + 131 + static_cast<float>(i) * 5, rect.min.y + 12},
                                 heatColor(i / 3.0),
                                 0,
                                 0});
        out.labels.push_back({{kx + 150, rect.min.y + 7},
                              "after, by " + std::string(heapStreamName(stream)) + " per tile",
                              palette::kTextDim,
                              12.0f,
                              render::TextAnchor::kLeftCenter});
    }
    const PixelRect area{{rect.min.x + 84.0f, rect.min.y + kHeaderPx}, rect.max};
    if (area.empty()) return;
    uint64_t lo = UINT64_MAX, hi = 0;
    for (const SpaceHistoryRow& e : h) {
        lo = std::min(lo, e.state.bottom);
        hi = std::max(hi, e.state.end);
    }
    if (hi <= lo) return;
    const double span = static_cast<double>(hi - lo);
    // Low addresses at the bottom: a space that fills grows upwards.
    auto yOf = [&](uint64_t address) {
        return area.max.y - static_cast<float>(static_cast<double>(address - lo) / span) * area.height();
    };
    // The streams relative to the fullest or oldest tile of the whole history.
    double scale = 0;
    for (const SpaceHistoryRow& r : h)
        for (const HeapTile& t : r.tiles) {
            if (stream == HeapStream::kObjects) scale = std::max(scale, static_cast<double>(t.objects));
            if (stream == HeapStream::kAge && t.bytes)
                scale = std::max(scale, static_cast<double>(t.age_bytes) / static_cast<double>(t.bytes));
        }
    // Tiles into bins of at least 2 pixels: each bin's mean value.
    const auto bins = static_cast<size_t>(std::max(1.0f, std::floor(area.height() / 2.0f)));
    const double bin_bytes = span / static_cast<double>(bins);
    std::vector<double> sum;
    std::vector<uint32_t> count;
    std::vector<uint8_t> held;  // some tile of the bin holds bytes (drawn, at value 0 too)
    out.rects.push_back({area.min, area.max, palette::kPanel, 0, 0});
    const float col = area.width() / static_cast<float>(2 * h.size());
    for (size_t k = 0; k < h.size(); ++k) {
        const SpaceState& s = h[k].state;
        for (int half = 0; half < 2; ++half) {
            const float x0 = area.min.x + static_cast<float>(2 * k + static_cast<size_t>(half)) * col;
            const float x1 = x0 + std::max(1.0f, col - (half == 1 && col >= 3.0f ? 1.0f : 0.0f));
            out.rects.push_back({{x0, yOf(s.end)}, {x1, yOf(s.bottom)}, kCommitted, 0, 0});
            if (const std::vector<RegionRole>& rr = half == 0 ? h[k].roles_before : h[k].roles_after;
                !rr.empty() && h[k].region_bytes) {
                // Runs of one role, one rectangle each; free ones stay the committed colour.
                for (size_t i = 0; i < rr.size();) {
                    size_t j = i;
                    while (j < rr.size() && rr[j] == rr[i])
                        ++j;
                    const uint64_t from = s.bottom + i * h[k].region_bytes,
                                   to = s.bottom + j * h[k].region_bytes;
                    if (rr[i] != RegionRole::kFree && from >= lo && to <= hi)
                        out.rects.push_back({{x0, yOf(to)}, {x1, yOf(from)}, roleColor(rr[i]), 0, 0});
                    i = j;
                }
                continue;
            }
            if (half == 1 && h[k].addresses) {
                sum.assign(bins + 1, 0.0);
                count.assign(bins + 1, 0);
                held.assign(bins + 1, 0);
                // A tile counts in every bin it covers (a bin holds many tiles, or a tile spans bins).
                const uint64_t tile_bytes = std::max<uint64_t>(h[k].tile_bytes, 1);
                auto binOf = [&](uint64_t address) {
                    return std::min(bins, static_cast<size_t>(static_cast<double>(address - lo) / bin_bytes));
                };
                for (size_t t = 0; t < h[k].tiles.size(); ++t) {
                    const uint64_t at = s.bottom + t * tile_bytes;
                    if (at < lo || at >= hi) continue;
                    const double v = tileValue(h[k].tiles[t], stream, tile_bytes, scale);
                    const uint64_t last = std::min(hi, at + std::min(tile_bytes, hi - at)) - 1;
                    for (size_t b = binOf(at); b <= binOf(last); ++b) {
                        sum[b] += v;
                        ++count[b];
                        held[b] |= h[k].tiles[t].bytes != 0;
                    }
                }
                for (size_t b = 0; b <= bins; ++b) {
                    if (!held[b]) continue;
                    const auto from = lo + static_cast<uint64_t>(static_cast<double>(b) * bin_bytes);
                    const auto to =
                        std::min(hi, lo + static_cast<uint64_t>(static_cast<double>(b + 1) * bin_bytes));
                    out.rects.push_back({{x0, yOf(to)},
                                         {x1, yOf(from)},
                                         heatColor(sum[b] / static_cast<double>(count[b])),
                                         0,
                                         0});
                }
                continue;
            }
            const uint64_t top = half == 0 ? s.top_before : s.top;
            if (top > s.bottom)
                out.rects.push_back(
                    {{x0, yOf(top)}, {x1, yOf(s.bottom)}, half == 0 ? kBeforeExtent : kAfterExtent, 0, 0});
        }
        if (h[k].gc == gc) {
            const float x0 = area.min.x + static_cast<float>(2 * k) * col;
            out.lines.push_back({{x0, area.min.y}, {x0, area.max.y}, 1.0f, palette::kSelection});
            out.lines.push_back(
                {{x0 + 2 * col, area.min.y}, {x0 + 2 * col, area.max.y}, 1.0f, palette::kSelection});
        }
    }
    out.labels.push_back({{area.min.x - 6.0f, area.min.y + 6.0f},
                          hex(hi),
                          palette::kTextDim,
                          11.0f,
                          render::TextAnchor::kRightCenter});
    out.labels.push_back({{area.min.x - 6.0f, area.max.y - 6.0f},
                          hex(lo),
                          palette::kTextDim,
                          11.0f,
                          render::TextAnchor::kRightCenter});
}

}  // namespace memcity::scene
