// The tree table's dominator view (MAT's dominator tree): the immediate-dominator tree of the
// heap at the reference snapshot nearest the cursor, one level at a time (graph/dominator_view.h
// makes each level's rows), as the table's flat list of visible rows.
//
// Threads: the heap, its references and its dominator tree are built on a worker (follow()
// asks, update() adopts); rows() and the commands run on the caller's (the window's) thread.
// Expansion and selection are kept by identity (object ids and group labels, see
// DominatorTableRow::key), so they carry over to the next snapshot GC where the objects still
// exist there.
#pragma once

#include <cstdint>
#include <functional>
#include <memory>
#include <optional>
#include <set>
#include <string>
#include <utility>
#include <vector>

#include "classify/classifier.h"
#include "classify/heap_map_at.h"
#include "explore/worker.h"
#include "heap/heap_history.h"
#include "util/result.h"

namespace memcity::explore {

struct DominatorTableRow {
    // The row's identity, kept across heaps: its parents' keys and its own, '/'-separated; an
    // object's own part is "#" and its object id, a group's "g:" and its label ("/#12/g:Foo/#40").
    std::string key;
    std::string label;   // dominatorObjectLabel ("Type#id"), or the group's label
    uint64_t id = 0;     // the object's id; 0 for a group or a "more" row
    uint32_t depth = 0;  // 0 for the rows below the roots
    bool has_children = false, expanded = false;
    uint64_t objects = 0;        // 1 for an object, the members of a group
    uint64_t shallow_bytes = 0;  // the object's size, the sum of a group's
    uint64_t retained_objects = 0, retained_bytes = 0;
    double heap_share = 0;  // retained bytes in % of the bytes the roots reach
    bool more = false;      // "… N more": the level's rows past kMaxRowsPerLevel, summed
};

class DominatorModel {
public:
    // A level shows its largest rows; the rest are summed in one "more" row.
    static constexpr size_t kMaxRowsPerLevel = 200;

    // `wake` is called from the worker when a heap is ready (may be empty).
    DominatorModel(std::function<void()> wake, unsigned threads);
    ~DominatorModel();
    DominatorModel(const DominatorModel&) = delete;
    DominatorModel& operator=(const DominatorModel&) = delete;

    // Shows the heap of the snapshot GC an inspection of `gc` reads (snapshotGcFor), building it
    // in the background when it is not the one shown. Null `history`: nothing (a closed trace).
    // Contract: `history` outlives the model or the next follow() with another one.
    void follow(const HeapHistory* history, uint32_t gc);
    // Forgets the trace: stops the workers and waits for them (their jobs read the history), then
    // drops the heap, the rows, the selection, the expansion, the locate request and the
    // highlight. Call before the history follow() was given is freed; follow() calls it when the
    // history changes. The grouping (a choice of the user's) stays.
    void reset();
    // The view is hidden: stops building (without waiting) and drops the heap, its references
    // and its dominator tree (GBs at 10 M objects); the selection and the expansion stay, and
    // the next follow() builds the heap again.
    void release();
    // How many heaps the view has adopted since it was made (each a build of the worker's).
    uint64_t heapsAdopted() const { return heaps_adopted_; }
    // Adopts a heap the worker finished; true when the rows changed.
    bool update();
    bool idle() const;
    void waitIdle() const { worker_.waitIdle(); }

    // Groups each level by the classifier `spec` ("type"), or lists plain objects (nullopt).
    // Error: a spec that does not parse.
    Status setGroupBy(std::optional<std::string> spec);
    const std::optional<std::string>& groupBy() const { return group_by_spec_; }

    // The visible rows, parents before their children, each level by retained bytes, descending.
    const std::vector<DominatorTableRow>& rows() const { return rows_; }
    // The snapshot GC the rows are of (none before a heap is built or without snapshots).
    std::optional<uint32_t> shownGc() const;
    // One line on what is shown: "GC 7 has no reference snapshot: the dominator tree of snapshot
    // GC 5", "building the dominator tree of GC 5…", "the trace has no reference snapshot", or
    // "" when the rows are of the cursor's own GC.
    std::string note() const;
    // Why the heap could not be built, or a level's rows made ("" when they were).
    const std::string& error() const { return rows_error_.empty() ? error_ : rows_error_; }
    const std::string& rowsError() const { return rows_error_; }

    // Expands or collapses the row with `key`; false when no row has it.
    bool toggle(const std::string& key);
    bool expand(const std::string& key, bool on);
    // Selects the row with `key` ("" clears); false when no row has it.
    bool select(const std::string& key);
    const std::string& selected() const { return selected_; }
    // The selected row (null when none is selected or it is not among the rows).
    const DominatorTableRow* selectedRow() const;
    // The object ids the selected row stands for: the object, or a group's members.
    std::vector<uint64_t> selectedObjects() const;
    // The key of the first visible row labelled `label` (depth first), or "".
    std::string findLabel(const std::string& label) const;

    // What the selected row retains (the object's dominator subtree; a group's: the union over
    // its members) as the leaves of a chain's tree at the shown GC: the city's buildings that hold
    // it, most bytes first. Computed in the background (requestHighlight), handed over once
    // (takeHighlight).
    struct Highlight {
        std::string key;  // the row's (DominatorTableRow::key)
        uint32_t gc = 0;  // the shown snapshot GC
        std::vector<RangeGroup> groups;
        uint64_t objects = 0, bytes = 0;  // the retained objects, also those the chain's filters drop
        std::string error;
        std::shared_ptr<const ClassifierChain> chain;  // the one `groups` are labelled by
    };
    // Asks for the selected row's Highlight classified by `chain` (null or no selected row: none
    // is wanted; takeHighlight() then hands an empty one over once). Cheap when nothing changed
    // since the last request: the window calls it every frame.
    // Contract: `chain` labels the series the city is drawn from.
    void requestHighlight(std::shared_ptr<const ClassifierChain> chain);
    std::optional<Highlight> takeHighlight();

    // A building clicked in the city: finds, in the background, the top-level row that retains the
    // most of the objects of the chain's groups `groups` (label paths below the root: a building's)
    // at the shown heap, most objects first, then most bytes, and selects it once update() adopts
    // the answer (then takeScroll() is true once). Asked before a heap is shown: answered for the
    // first one. `name` titles the groups in locateNote().
    // Contract: `chain` is the one the labels are of.
    void locate(std::vector<std::vector<std::string>> groups, std::string name,
                std::shared_ptr<const ClassifierChain> chain);
    // One line on the last locate()'s answer ("" before one, cleared when another heap is shown):
    // "ShopServer$AuditEntry: ConcurrentHashMap#11690 retains 2500 of its 2500 objects (80000 B),
    // in the group ConcurrentHashMap", or why no row is selected (the building holds nothing
    // there, no reported root reaches its objects, the row is in the level's "more").
    const std::string& locateNote() const { return locate_note_; }
    // True once after locate() selected a row: the table scrolls to it.
    bool takeScroll() { return std::exchange(scroll_, false); }

private:
    struct Heap;
    struct Located;
    // Drops what the view shows and what is on its way (the heap, its rows and errors, the
    // highlight, the answers pending): what reset() and release() both forget.
    void dropShown();
    void rebuild();
    void runLocate();
    void adoptLocated(const Located& l);
    void addLevel(uint32_t node, const std::vector<uint32_t>* members, const std::string& parent_key,
                  uint32_t depth);

    mutable Worker worker_;
    std::function<void()> wake_;
    unsigned threads_ = 1;
    const HeapHistory* history_ = nullptr;
    uint32_t cursor_gc_ = 0;
    std::optional<uint32_t> wanted_gc_;  // the snapshot GC asked for
    std::shared_ptr<const Heap> heap_;   // the one shown
    std::optional<std::string> group_by_spec_;
    std::optional<ClassifierChain> group_by_;
    std::set<std::string> expanded_;
    std::string selected_;
    std::vector<DominatorTableRow> rows_;
    std::vector<std::vector<uint32_t>> members_;  // per row: its positions in the shown heap
    std::string error_;                           // the heap's
    std::string rows_error_;                      // the last rebuild's

    struct Pending;
    std::shared_ptr<Pending> pending_;

    mutable Worker highlight_worker_;
    // What the last requestHighlight asked for: the row, the heap and the chain (held, so that
    // a new one made at a freed one's address is not taken for it), and its number.
    std::string highlight_key_;
    std::shared_ptr<const Heap> highlight_heap_;
    std::shared_ptr<const ClassifierChain> highlight_chain_;
    uint64_t highlight_request_ = 0;
    uint64_t heaps_adopted_ = 0;

    mutable Worker locate_worker_;
    uint64_t locate_request_ = 0;  // the last locate()'s number
    std::vector<std::vector<std::string>> locate_groups_;
    std::string locate_name_;
    // Set from locate() until its answer at the shown heap is adopted (asked again for each heap
    // shown before that).
    std::shared_ptr<const ClassifierChain> locate_chain_;
    std::string locate_note_;
    bool scroll_ = false;
};

// The view as scripts print it: "dominator tree of snapshot GC 5" (and the grouping), its note,
// then a line per row, indented by depth, "+" before a closed row that dominates more, "-" before
// an open one: "- HashMap#17: retained 448 B, 9 objects, 61.5%; shallow 48 B, 1 object".
std::string dominatorText(const DominatorModel& model);

}  // namespace memcity::explore
