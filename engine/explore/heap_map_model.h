// The explorer's heap map (docs/heapmap.md): the maps of the GCs the cursor stands between,
// built in the background from each GC's heap and its objects' addresses, the scene that draws
// them into the main view (tweened as the cursor moves), and what a tile holds: its types for
// the tooltip, its groups for a click. The session owns one and hands it the trace, the cursor,
// the selection and the chain at each frame.
//
// Threads: used from the window's thread; three workers (the maps, a tile's groups, the history
// graph's tiles) hand their results over to update().
#pragma once

#include <cstdint>
#include <functional>
#include <map>
#include <memory>
#include <mutex>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "classify/heap_map_at.h"
#include "explore/worker.h"
#include "render/draw_list.h"
#include "scene/heap_map_scene.h"
#include "scene/screen.h"

namespace memcity::explore {

// What the frame shows: the GCs around the cursor and the selection the map outlines.
struct HeapMapFrame {
    uint32_t gc = 0;                                 // the held GC at or before the cursor
    uint32_t next_gc = 0;                            // the one after it (the same at the end)
    double fraction = 0;                             // how far the cursor is between them
    std::vector<uint32_t> held;                      // the GCs of the series (the history graph's columns)
    std::vector<std::vector<std::string>> selected;  // label paths of the selected groups
    std::shared_ptr<const ClassifierChain> chain;    // what the paths are of
};

// What the pointer's tile holds (HeapMapModel::describe).
struct HeapTileInfo {
    uint32_t gc = 0;
    std::string space;
    uint64_t from = 0, to = 0;
    HeapTile tile;                        // as the map counted it
    bool addresses = false;               // false: the GC has the spaces' tops only
    RangeContents contents;               // by type (with addresses)
    std::vector<std::string> type_names;  // of contents.types, in order
};

class HeapMapModel {
public:
    static constexpr int kMaxZoom = 8;  // tile sizes from the fitted one / 2^8 to * 2^8

    HeapMapModel(unsigned threads, std::function<void()> wake, scene::MeasureText measure);
    ~HeapMapModel();
    HeapMapModel(const HeapMapModel&) = delete;
    HeapMapModel& operator=(const HeapMapModel&) = delete;

    // Drops everything of the trace shown (another trace opens).
    void reset();

    // --- what the toolbar changes -----------------------------------------------------------
    scene::HeapStream stream() const { return stream_; }
    void setStream(scene::HeapStream stream);
    // Why `stream` cannot be drawn ("" where it can): a sampled recording has no object addresses,
    // so its maps hold the spaces' tops (the used stream) and no objects. Its maps draw the used
    // stream whatever stream() says.
    static std::string_view streamUnavailable(scene::HeapStream stream, bool sampled);
    // Magnification: 0 fits the largest GC's spaces into the view; each step in halves the tile.
    int zoom() const { return zoom_; }
    void setZoom(int zoom);
    // The tile size the maps are built with (0 until known).
    uint64_t tileBytes() const;
    // The history graph's space ("": the largest at the cursor's GC), and the spaces there are.
    const std::string& historySpace() const { return space_; }
    void setHistorySpace(std::string name);
    std::vector<std::string> spaceNames(const HeapHistory& history) const;
    // Pixels left free above the bands (for the window's toolbar); the title bar goes.
    void setTopInset(float px) { top_px_ = px; }

    // Draws the frame into `rect` of a framebuffer (appended to `out`, which the caller cleared),
    // asking the workers for the maps it lacks. A text stands where no map is ready yet.
    void compose(const HeapHistory& history, const std::string& title, const HeapMapFrame& frame,
                 scene::PixelRect rect, glm::vec2 framebuffer, render::DrawList& out);
    // Adopts finished maps and groups. True when the picture changes.
    bool update();
    bool idle() const;
    // Why the last map could not be built ("" when it could).
    const std::string& error() const { return error_; }
    // The map drawn last (null before one is).
    const HeapMap* shown() const { return shown_.get(); }
    // How long the last map adopted took in the background: the heap rebuilt, its addresses read
    // and sorted (0 when an earlier one was reused), then the map (milliseconds).
    struct BuildTimes {
        uint32_t gc = 0;
        double place_ms = 0, map_ms = 0;
    };
    const std::optional<BuildTimes>& lastBuild() const { return last_build_; }

    // The tile at framebuffer pixel `pixel` of the last frame, and what it holds.
    std::optional<scene::HeapTilePick> pick(glm::vec2 pixel) const;
    void setHovered(std::optional<scene::HeapTilePick> tile);
    std::optional<HeapTileInfo> describe(const scene::HeapTilePick& tile, const SymbolTable& symbols) const;
    // Classifies the tile's objects by the frame's chain in the background; takeGroups() then
    // hands over the groups (label paths, most bytes first) once, with `add` as asked.
    void requestGroups(const HeapHistory& history, const scene::HeapTilePick& tile, bool add);
    struct TileGroups {
        std::vector<RangeGroup> groups;
        bool add = false;
        std::string error;
    };
    std::optional<TileGroups> takeGroups();

private:
    struct Pending;
    struct MapKey {
        uint32_t gc = 0;
        uint64_t tile_bytes = 0;
        bool dying = false;
        std::vector<std::vector<std::string>> selected;
        std::shared_ptr<const ClassifierChain> chain;
        bool operator==(const MapKey&) const = default;
    };
    void prepareScene(const HeapHistory& history, const std::string& title, const HeapMapFrame& frame,
                      glm::vec2 size);
    // The history graph's tiles for the scene's space and GCs (and the stream's selection or
    // deaths), asked for in the background.
    void requestHistory(const HeapHistory& history, const HeapMapFrame& frame);
    MapKey keyFor(uint32_t gc, const HeapMapFrame& frame) const;
    // The stream drawn: stream(), or used for a sampled recording (streamUnavailable).
    scene::HeapStream drawnStream() const { return sampled_ ? scene::HeapStream::kUsed : stream_; }
    void request(const HeapHistory& history, std::vector<MapKey> keys);
    std::shared_ptr<const HeapMap> cached(const MapKey& key) const;

    unsigned threads_;
    std::function<void()> wake_;
    scene::MeasureText measure_;

    scene::HeapStream stream_ = scene::HeapStream::kUsed;
    bool sampled_ = false;  // the last frame's trace is a sampled recording
    int zoom_ = 0;
    std::string space_;
    float top_px_ = -1;  // < 0: a title bar instead

    // The scene, made again when what it was made for changes.
    std::optional<scene::HeapMapScene> scene_;
    struct SceneKey {
        glm::vec2 size{0.0f};
        scene::HeapStream stream{};
        std::string space, title;
        std::vector<uint32_t> held;
        float top_px = 0;
        bool operator==(const SceneKey&) const = default;
    } scene_key_;
    uint64_t fitted_ = 0;  // the tile size that fits (0: not known yet, a trace without spaces)
    scene::PixelRect rect_;
    std::shared_ptr<const ClassifierChain> chain_;  // the last frame's

    std::map<uint32_t, std::pair<MapKey, std::shared_ptr<const HeapMap>>> maps_;  // by GC
    std::map<uint32_t, std::shared_ptr<const PlacedHeap>> placed_;                // by GC, at most 2
    std::vector<MapKey> asked_;
    struct HistoryKey {
        std::string space;
        uint32_t from = 0, to = 0;
        uint64_t tile_bytes = 0;
        bool dying = false;                              // the dying stream's
        std::vector<std::vector<std::string>> selected;  // the selected stream's
        std::shared_ptr<const ClassifierChain> chain;
        bool operator==(const HistoryKey&) const = default;
        // Whether rows of this key draw `want`'s stream too (used, objects and age need no
        // deaths or selection: leaving dying for used replays nothing).
        bool covers(const HistoryKey& want) const {
            return space == want.space && from == want.from && to == want.to &&
                   tile_bytes == want.tile_bytes && (dying || !want.dying) &&
                   (want.selected.empty() || (selected == want.selected && chain == want.chain));
        }
    };
    std::optional<HistoryKey> history_asked_, history_key_;  // asked for; of history_rows_
    std::vector<SpaceHistoryRow> history_rows_;
    bool scene_has_history_ = false;
    std::shared_ptr<const HeapMap> shown_;
    std::string error_;
    std::optional<MapKey> failed_;  // the last map that could not be built
    std::optional<TileGroups> groups_;
    std::optional<BuildTimes> last_build_;

    std::shared_ptr<Pending> pending_;
    std::unique_ptr<Worker> map_worker_, tile_worker_, history_worker_;  // last: stopped first
};

}  // namespace memcity::explore
