// The explorer's state and what a user can do with it, without a window: the open trace (loaded
// in the background), the tree series of the classifier chain (recomputed in the background when
// the chain or the time range changes), the time cursor, the view (city, sunburst, icicle) with
// its camera, the one selection every view and panel shares, the drill-down root, and the
// inspector's and the tree table's data (computed in the background for the selection).
//
// Threads: a Session is used from one thread (the window's); it owns a loader thread, a dump's
// import thread while one runs (DumpJob), and its workers (series, inspection, table sizes) and
// models (diff, heap map, dominators) whose results it adopts in update(). Node ids are
// those of the current series; when a new series replaces it, the selection and the drill root
// are carried over by their label paths, and what no longer exists is dropped.
#pragma once

#include <cstdint>
#include <functional>
#include <map>
#include <memory>
#include <mutex>
#include <optional>
#include <span>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include "classify/diff.h"
#include "classify/series.h"
#include "explore/chain_config.h"
#include "explore/diff_model.h"
#include "explore/dominator_model.h"
#include "explore/dump_job.h"
#include "explore/heap_map_model.h"
#include "explore/inspection.h"
#include "explore/live_link.h"
#include "explore/loader.h"
#include "explore/worker.h"
#include "render/draw_list.h"
#include "scene/cohorts.h"
#include "scene/screen.h"
#include "scene/views.h"
#include "util/result.h"

namespace memcity::explore {

struct SessionOptions {
    ChainConfig chain;  // the classifier chain to open traces with
    scene::ViewKind view = scene::ViewKind::kCity;
    unsigned threads = 1;        // threads for the history rebuild and each background job
    std::function<void()> wake;  // called from background threads when a result is ready
    scene::MeasureText measure;  // text widths for labels (the renderer's font); null: estimate
};

// An inclusive range of GC numbers (the timeline's selection).
// Where playback stops by itself (GCspy's event filters, GCspy02 §5.3): on reaching a GC that is
// full, that starts a suspicious window, or at which the selection grew by more than
// `grows_over` (the chain's metric) since the GC before.
struct PlayStops {
    bool full_gc = false;
    bool window_start = false;
    uint64_t grows_over = 0;  // 0: off
    bool any() const { return full_gc || window_start || grows_over > 0; }
    bool operator==(const PlayStops&) const = default;
};

struct GcRange {
    uint32_t from = 0, to = 0;
    bool operator==(const GcRange&) const = default;
};

// The tooltip of a view item.
struct ItemInfo {
    uint32_t id = 0;
    std::string name;               // the node's path, or "Other (N groups) under PATH"
    double objects = 0, bytes = 0;  // at the cursor's time (tweened)
    double growth = 0;              // in the metric, over the trend window (the views' colours)
    bool district = false;
    // A sampled recording's item: objects and bytes above are estimates, and these the sums
    // behind them at the cursor's time (their 95% interval, the samples; scene/estimates.h).
    std::optional<SampleSums> sampled;
};

class Session {
public:
    explicit Session(SessionOptions options = {});
    ~Session();
    Session(const Session&) = delete;
    Session& operator=(const Session&) = delete;

    // --- the trace --------------------------------------------------------------------------
    // Starts loading `path` (closing what was open). Progress shows in load().
    // Opens a trace, or a heap dump: its import from the cache, or (the first time) the trace
    // its import writes, followed as it is written (DumpJob).
    void open(const std::string& path);
    const std::string& path() const { return path_; }
    // While a dump opened is imported: "importing app.hprof (953.0 MiB): reading the dump 45%".
    std::optional<std::string> importing() const;
    const LoadProgress& load() const { return load_; }
    bool loaded() const { return load_.phase == LoadPhase::kReady; }
    // The history once loaded() (null before).
    const HeapHistory* history() const;

    // Adopts what the background threads finished (progress, GC records, a series, an
    // inspection, table sizes). Returns true when something changed that a frame shows.
    bool update();
    // Nothing is loading or being computed, and everything finished was adopted.
    // `live_ok`: a trace still being written counts as loaded once what has arrived is shown.
    bool settled(bool live_ok = false) const;
    // Blocks (calling update) until settled() (scripts and tests).
    void waitSettled();

    const std::vector<GcRecord>& gcs() const { return gcs_; }
    const std::vector<Window>& windows() const;

    // --- a sampled recording (heap/sampling.h, scene/estimates.h) ---------------------------------
    // Its interval in bytes, known once the trace is open; 0 for a recording of every allocation.
    // Every count and size the session then serves is an estimate (GcRecord::live_sampled,
    // ItemInfo::sampled, TableRow::sampled, Inspection::objects_sampled say how sure each is).
    // Its reference snapshots, where it took some, make the heap whole at their GCs: the
    // inspector shows what the selection's sampled objects reference and retain there
    // (Inspection::closure_samples). What reads addresses is unavailable for the reason
    // scene/estimates.h gives.
    uint64_t samplingInterval() const { return load_.sampling_interval; }
    bool sampled() const { return load_.sampling_interval != 0; }
    // Why the tree table's deep and retained sizes are not to be had ("" where they may be): a
    // sampled recording's would be the groups' retained sizes, which samples do not estimate
    // (scene::sampledSizesReason).
    std::string sizesUnavailable() const;
    // Why the classifiers that read references cannot be used here ("" where they can): a
    // sampled recording has references at its snapshot GCs only, not over the timeline
    // (scene::sampledReferencesReason names them).
    std::string referencesUnavailable() const;

    // --- the series and the chain -------------------------------------------------------------
    // The series shown (null until the first GC of a loading trace is classified).
    const TreeSeries* series() const { return series_.get(); }
    // The series will not change unless the chain or the range does (false while streaming).
    bool seriesFinal() const { return series_final_; }
    bool recomputing() const;
    // Why the last recomputation failed ("" when it did not).
    const std::string& seriesError() const { return series_error_; }
    const ChainConfig& chain() const { return chain_; }
    // Checks `config`; on success it becomes the chain and the series is recomputed in the
    // background (the old one stays shown until then). Error: checkChain's first problem (a
    // classifier that reads references, in a sampled recording, among them).
    Status applyChain(const ChainConfig& config);

    // --- time ---------------------------------------------------------------------------------
    scene::TimeCursor& cursor() { return cursor_; }
    const scene::TimeCursor& cursor() const { return cursor_; }
    // The held GC nearest the cursor.
    uint32_t currentGc() const;
    // Moves the cursor to GC `gc`. Error: a GC the trace does not have ("GC 99 is out of range:
    // the trace has 49 GCs (0..48)"), or one outside the series' range.
    Status goToGc(uint64_t gc);
    // The timeline's selected range, for the series' window and the inspector's base GC.
    const std::optional<GcRange>& range() const { return range_; }
    void setRange(std::optional<GcRange> range);
    // Selects suspicious window `index` (of windows()) as the range and builds the series over it.
    Status selectWindow(size_t index);

    // --- playback ------------------------------------------------------------------------------
    // Moves the cursor as playing does (TimeCursor::advance), stopping at the first GC reached
    // that meets playStops(); lastStop() then says why. Returns whether t changed.
    bool advance(double dt_seconds);
    const PlayStops& playStops() const { return stops_; }
    void setPlayStops(const PlayStops& stops) { stops_ = stops; }
    const std::string& lastStop() const { return last_stop_; }
    // The stop since the last call ("stopped: GC 12 is a full GC"), or "".
    std::string takeStop() { return std::exchange(new_stop_, {}); }
    // Recomputes the series over the selected range (the whole trace without one).
    Status seriesOverRange();
    // The GC born / died / permanent are counted from: the range's start, else the series' first GC.
    uint32_t baseGc() const;

    // --- the view ------------------------------------------------------------------------------
    scene::ViewKind view() const { return view_; }
    void setView(scene::ViewKind kind);
    // The sunburst's and icicle's extent: scaled follows the heap's size over time (the root
    // spans the circle or the width at the series' largest heap, STAG20 §5.2), unscaled fills
    // it at every GC.
    // (The timeline trees have their own, on by default.)
    bool scaled() const { return view_ == scene::ViewKind::kTimelineTrees ? trees_scaled_ : scaled_; }
    void setScaled(bool scaled);
    // The GCs pinned for the timeline trees (STAG20 §5.4), ascending. pin / unpin: false when
    // the GC is not in the series or (un)pinned already; togglePin: the nearest GC of the series.
    const std::vector<uint32_t>& pins() const { return pins_; }
    bool pin(uint32_t gc);
    // The timeline trees as small cities in a row (one layout for all) instead of sunbursts.
    bool treesCities() const { return trees_cities_; }
    void setTreesCities(bool cities);
    bool unpin(uint32_t gc);
    void togglePin(double gc_time);
    // Draws the view at the cursor into `rect` of a framebuffer of `framebuffer` pixels, appended
    // to `out` after clearing it. Returns what the frame held (empty before a series exists).
    scene::ViewFrameStats compose(scene::PixelRect rect, glm::vec2 framebuffer, render::DrawList& out);
    // What the framebuffer pixel shows in the last composed frame.
    std::optional<scene::ViewPick> pick(glm::vec2 pixel) const;
    // The city's camera (valid once a city frame was composed; null otherwise). Moving it marks
    // it as the user's: it is kept when the series changes.
    scene::OrbitCamera* camera();
    Status resetCamera(std::string_view preset);
    // Frames the selected buildings (the F key). False when nothing selected is in the city.
    bool frameSelection();
    // The city as laid out for the last frame (null when the city is not shown).
    const scene::CityLayout* cityLayout() const;
    // The bounds of the city (for camera speeds), zero when there is none.
    scene::Bounds cityBounds() const;
    void setHovered(uint32_t id) { hovered_ = id; }
    uint32_t hovered() const { return hovered_; }
    ItemInfo describe(uint32_t id) const;

    // --- the heap map (view kHeapMap) ---------------------------------------------------------
    // Its stream, tile size and history space (the toolbar's); what it drew last.
    HeapMapModel& heapMap() { return *heap_map_; }
    const HeapMapModel& heapMap() const { return *heap_map_; }
    // The heap map's tile at a framebuffer pixel of the last frame (none in another view).
    std::optional<scene::HeapTilePick> heapTileAt(glm::vec2 pixel) const;
    // Selects the groups of the chain whose objects start in the tile (at most kTileGroups, the
    // largest), once they are classified in the background; with `add` they join the selection.
    static constexpr size_t kTileGroups = 32;
    void selectTile(const scene::HeapTilePick& tile, bool add = false);
    // What the last thing done in the background came to ("selected 3 groups of ..."), once.
    std::string takeNotice() { return std::exchange(notice_, {}); }

    // --- selection and drill-down --------------------------------------------------------------
    const std::vector<uint32_t>& selection() const { return selection_; }
    // Selects `id` (a node or an Other id); with `add` it toggles `id` in the selection instead.
    void select(uint32_t id, bool add = false);
    void clearSelection();
    // Selects the nodes at label paths ("java.util / HashMap; byte[]", see parseNodePaths).
    // Error naming the first path the series does not hold.
    Status selectPath(const std::string& paths, bool add = false);
    uint32_t drillRoot() const { return drill_root_; }
    // The sunburst's and icicle's root; a leaf drills to its parent. Kept as time moves.
    void drill(uint32_t node);
    void drillUp();
    Status drillPath(const std::string& path);
    // The breadcrumb: the series root down to the drill root.
    std::vector<uint32_t> drillTrail() const;
    // Labels from the root's child down (empty for the root); Other ids: the parent's path.
    std::vector<std::string> labelsOf(uint32_t id) const;
    std::string nameOf(uint32_t id) const;

    // --- the tree table's dominator view (dominator_model.h) -----------------------------------
    // While shown, it follows the cursor: the heap of its snapshot GC (snapshotGcFor) and that
    // heap's dominator tree are built in the background, and settled() waits for them.
    bool dominatorsShown() const { return dominators_shown_; }
    void showDominators(bool on);
    DominatorModel& dominators() { return *dominators_; }
    const DominatorModel& dominators() const { return *dominators_; }
    // Inspects the objects with ids `ids` (a dominator row's, at least one) as one group titled
    // `name`, in place of the selection's groups, until select(), selectPath() or
    // clearSelection().
    void inspectObjects(std::vector<uint64_t> ids, std::string name);
    // Selects the dominator view's row `key` and inspects its objects (inspectObjects, titled by
    // the row's label and the shown GC); when the view follows the cursor to another snapshot GC,
    // the objects and the title are those of the row there. Error: no row has that key.
    Status selectDominatorRow(const std::string& key);
    // The objects inspected in place of the selection's groups, and their title (empty: none).
    const std::vector<uint64_t>& inspectedObjects() const { return objects_; }
    const std::string& inspectedObjectsName() const { return objects_name_; }
    // The city's buildings (series node ids) that hold the selected dominator row's retained
    // objects, drawn highlighted while the view is shown (computed in the background), and one line
    // on them: "city: 3 buildings hold the retained 27402 objects, 1150120 B of
    // HashMap#12 (GC 41)" ("" when no row is selected).
    const std::vector<uint32_t>& dominatorHighlight() const { return dominator_highlight_; }
    const std::string& dominatorHighlightText() const { return dominator_highlight_text_; }

    // --- the inspector -----------------------------------------------------------------------
    // The inspection of the selection at the current GC (requested when either changes); it may be
    // of an earlier request while a new one runs (inspectionCurrent() is false then).
    const std::optional<Inspection>& inspection() const { return inspection_; }
    bool inspectionCurrent() const;
    bool inspecting() const;
    const std::string& inspectionError() const { return inspection_error_; }
    // The selection's value at every GC of the series (the inspector's curve), in `metric`.
    std::vector<double> selectionCurve(Metric metric) const;

    // --- live control: a trace its recorder still writes, with a control channel (live_link.h) --
    // The channel's newest state (ended, with no status, when the trace has none).
    LiveState liveState() const;
    // Sends a request to the recording JVM's agent: pause at the next GC, step, resume. Returns
    // its number: LiveState::answered reaches it once the agent answered (0: no channel).
    uint64_t liveRequest(const live::Request& r);
    // The program pauses at the GCs `when` names, and where the selection grew by more than
    // `grows_by` bytes since the GC before (0: no such condition): the agent then pauses at every
    // GC, and the session resumes the program at each where no condition holds.
    // Returns the request's number, as liveRequest does.
    uint64_t setPauseConditions(const live::PauseConditions& when, uint64_t grows_by);
    const live::PauseConditions& pauseConditions() const { return live_when_; }
    uint64_t pauseGrowth() const { return live_grows_by_; }
    // Why the program is paused, as a sentence ("paused at GC 12: the selection grew by 1.2 MiB,
    // more than 1.0 MiB"); "" while it runs.
    const std::string& liveNote() const { return live_note_; }
    // Blocks until `done` holds for the live state, or `timeout_s` passes (scripts).
    bool waitLive(const std::function<bool(const LiveState&)>& done, double timeout_s);

    // --- the diff as a view (ICPE18 §5.3) -----------------------------------------------------
    // Shows the heap diff from baseGc() to the current GC: the views coloured by the cohort that
    // dominates each group (born, died, permanent), the table with those columns. The diff is
    // computed in the background whenever either GC or the series changes.
    bool diffShown() const { return diff_shown_; }
    void showDiff(bool on);
    // The diff laid onto the series (null until one is computed, or when it failed). It may be of
    // other GCs than baseGc() and currentGc() while the next one is computed (diffCurrent()).
    const std::shared_ptr<const scene::SeriesDiff>& diff() const { return diff_->laid(); }
    bool diffCurrent() const;
    // Why no diff is shown ("" when one is or is on its way).
    const std::string& diffError() const { return diff_->error(); }
    // A suspicious window's next step, one click, as `memcity windows` suggests it: a leak or
    // GC-overhead window's GCs become the range (an overhead window's from the GC before it), the
    // series is built over them, the cursor goes to the window's last GC and the diff is shown;
    // a churn window's range (from the GC before it) is shown in churn mode.
    Status windowNext(size_t index);

    // --- churn mode (VMIL19 §3.4.2, the short-lived objects analysis) -------------------------
    // Shows the range's short-lived objects instead of the heap: the series becomes churnSeries
    // over the range (the objects born after its first GC and dead by each GC of it, cumulative),
    // drawn by the same views and table, until turned off. The inspector and the table's sizes,
    // which read heaps, are off meanwhile. Errors: still loading, no range of two GCs or more, a
    // chain that reads references.
    bool churnShown() const { return churn_window_.has_value(); }
    const std::optional<GcRange>& churnWindow() const { return churn_window_; }
    Status showChurn(bool on);

    // --- the tree table's deep and retained sizes ----------------------------------------------
    // Sizes of `nodes` at the current GC's snapshot, asked for in the background; the known ones
    // come back through sizesOf as they arrive. Nothing is asked where sizesUnavailable() says why.
    void requestSizes(const std::vector<uint32_t>& nodes);
    std::optional<GroupSizes> sizesOf(uint32_t node) const;

private:
    struct Pending;
    void closeTrace();
    void openTrace(const std::string& trace);
    // A dump's import: its trace opened once the import writes it; its error shown if it fails.
    bool updateImport();
    void adoptSeries(std::shared_ptr<const TreeSeries> series, std::shared_ptr<const ClassifierChain> chain,
                     bool final);
    void recompute();
    void requestInspection();
    // The node ids an id stands for (an Other id: the folded children under the view's pruning).
    std::vector<uint32_t> nodesOf(uint32_t id) const;
    const PruneOptions& viewPrune() const;
    void invalidateView() { composer_.reset(); }

    SessionOptions options_;
    std::string path_;
    LoadProgress load_;
    uint64_t load_version_ = 0;
    std::vector<GcRecord> gcs_;
    uint64_t gcs_revision_ = 0;  // of the loader's records (TraceLoader::syncGcs)

    ChainConfig chain_;
    std::shared_ptr<const ClassifierChain> stream_chain_;  // what the loader classifies with
    std::shared_ptr<const ClassifierChain> series_chain_;  // the series' labels read it
    std::shared_ptr<const TreeSeries> series_;
    bool series_final_ = false;
    std::string series_error_;
    uint64_t series_request_ = 0;
    std::optional<GcRange> series_window_;

    scene::TimeCursor cursor_;
    std::optional<GcRange> range_;
    PlayStops stops_;
    std::string last_stop_, new_stop_;
    // Why playback stops at GC number `gc` ("" when it does not); `previous` is the GC before it.
    std::string stopReason(uint32_t gc, std::optional<uint32_t> previous) const;

    scene::ViewKind view_;
    bool scaled_ = false;
    bool trees_scaled_ = true;
    bool trees_cities_ = false;
    std::vector<uint32_t> pins_;
    std::optional<scene::ViewComposer> composer_;
    std::optional<scene::OrbitCamera> user_camera_;  // kept across new series
    scene::PixelRect view_rect_;
    glm::vec2 framebuffer_{0.0f};
    uint32_t hovered_ = scene::kNoPick;

    std::vector<uint32_t> selection_;
    uint32_t drill_root_ = TreeSeries::kRoot;

    std::optional<Inspection> inspection_;
    std::vector<uint64_t> objects_;  // inspectObjects'
    std::string objects_name_;
    bool dominators_shown_ = false;
    std::unique_ptr<DominatorModel> dominators_;
    std::vector<uint32_t> dominator_highlight_;
    std::string dominator_highlight_text_;
    // The highlight dominator_highlight_ was made from, to find its groups in the next series.
    std::optional<DominatorModel::Highlight> dominator_highlight_last_;
    std::string objects_row_;  // the dominator row objects_ are of ("" when they are not a row's)
    void adoptDominatorHighlight(DominatorModel::Highlight h);
    void setInspectedObjects(std::vector<uint64_t> ids, std::string name);
    void refreshDominatorObjects();
    // With the dominator view shown and one building selected: the view selects the top-level
    // row that retains the most of its objects (DominatorModel::locate).
    void locateInDominators();
    std::string inspection_error_;
    uint64_t inspection_request_ = 0;
    InspectionRequest inspection_wanted_;

    uint32_t sizes_gc_ = UINT32_MAX;
    std::map<uint32_t, GroupSizes> sizes_;
    std::vector<uint32_t> sizes_requested_;

    // Live control (session_live.cpp).
    bool updateLive();  // adopts the link's state; judges a pause at the selection's growth
    // The selection's value at GC `gc` of the series (0 outside it).
    double selectionValueAt(uint32_t gc, Metric metric) const;
    std::unique_ptr<LiveLink> live_;
    uint64_t live_version_ = 0;
    LiveState live_state_;
    live::PauseConditions live_when_;
    uint64_t live_grows_by_ = 0;
    int64_t live_judged_gc_ = -1;  // the last pause whose growth was judged
    std::string live_note_;

    // Asks diff_ for the diff of baseGc() and currentGc() by the series' chain (not in churn mode).
    void requestDiff();
    // Lays diff_'s diff onto the series, where the series is of the chain the diff read.
    void layDiff();
    // Leaves churn mode (the heap's series over the range follows); nothing outside it.
    void endChurn();
    // Suspicious window `index`, or an error naming it and how many there are.
    Result<Window> windowAt(size_t index) const;
    bool diff_shown_ = false;
    std::optional<uint32_t> goto_after_series_;  // windowNext: the GC to show once its series is in
    std::optional<GcRange> churn_window_;        // churn mode's window

    // The heap map's frame: the GCs around the cursor, the selection's paths, the chain.
    HeapMapFrame heapMapFrame() const;
    void adoptTileGroups(HeapMapModel::TileGroups groups);
    std::string notice_;

    std::shared_ptr<Pending> pending_;  // results the workers hand over
    // Declared last: destroyed first, so no thread outlives what it reads.
    std::unique_ptr<TraceLoader> loader_;
    std::unique_ptr<DumpJob> import_;  // the dump being imported (kept when the chain reopens it)
    std::unique_ptr<Worker> series_worker_, inspect_worker_, sizes_worker_;
    std::unique_ptr<HeapMapModel> heap_map_;
    std::unique_ptr<DiffModel> diff_;  // the diff view's (diff_model.h)
};

}  // namespace memcity::explore
