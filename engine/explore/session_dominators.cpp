// Session, the tree table's dominator view (dominator_model.h): shown or not, its rows'
// objects inspected in place of the selection, and the city's buildings that hold a row's
// retained objects.
#include "explore/session.h"
#include "explore/session_pending.h"

namespace memcity::explore {

void Session::showDominators(bool on) {
    dominators_shown_ = on;
    if (on && loaded()) dominators_->follow(history(), currentGc());
    if (!on) {
        // Hidden: the heap, its references and its tree are not kept (built again when shown).
        dominators_->release();
        dominator_highlight_.clear();
        dominator_highlight_text_.clear();
        dominator_highlight_last_.reset();
    }
}

void Session::inspectObjects(std::vector<uint64_t> ids, std::string name) {
    objects_row_.clear();
    setInspectedObjects(std::move(ids), std::move(name));
}

void Session::setInspectedObjects(std::vector<uint64_t> ids, std::string name) {
    if (ids.empty()) return;
    objects_ = std::move(ids);
    objects_name_ = std::move(name);
    selection_.clear();
    requestInspection();
}

// "HashMap#12 (dominator tree of GC 41)": the title of a dominator row's objects.
static std::string dominatorRowTitle(const DominatorTableRow& row, std::optional<uint32_t> gc) {
    return row.label + " (dominator tree of GC " + std::to_string(gc.value_or(0)) + ")";
}

Status Session::selectDominatorRow(const std::string& key) {
    if (!dominators_->select(key)) return Error{"no row '" + key + "' in the dominator view"};
    const DominatorTableRow* row = dominators_->selectedRow();
    std::vector<uint64_t> ids = dominators_->selectedObjects();
    if (ids.empty()) return Error{"the dominator view's row '" + row->label + "' stands for no objects"};
    setInspectedObjects(std::move(ids), dominatorRowTitle(*row, dominators_->shownGc()));
    objects_row_ = key;
    return {};
}

void Session::refreshDominatorObjects() {
    // The inspected row's objects and title are of the heap they were picked in: read them again
    // from the heap now shown, where the row (kept by its key) still is.
    if (objects_row_.empty() || dominators_->selected() != objects_row_) return;
    const DominatorTableRow* row = dominators_->selectedRow();
    if (!row) return;
    std::vector<uint64_t> ids = dominators_->selectedObjects();
    std::string name = dominatorRowTitle(*row, dominators_->shownGc());
    if (ids.empty() || (ids == objects_ && name == objects_name_)) return;
    setInspectedObjects(std::move(ids), std::move(name));
}

void Session::locateInDominators() {
    if (!dominators_shown_ || !series_ || selection_.size() != 1) return;
    std::vector<std::vector<std::string>> groups;
    for (uint32_t node : nodesOf(selection_.front())) {
        if (node == TreeSeries::kRoot) return;  // the whole heap: no one row
        groups.push_back(labelsOf(node));
    }
    if (!groups.empty()) dominators_->locate(std::move(groups), nameOf(selection_.front()), series_chain_);
}

void Session::adoptDominatorHighlight(DominatorModel::Highlight h) {
    dominator_highlight_.clear();
    dominator_highlight_text_.clear();
    dominator_highlight_last_.reset();
    if (h.key.empty()) return;
    dominator_highlight_last_ = h;
    const DominatorTableRow* row = dominators_->selectedRow();
    const std::string name = row ? row->label : h.key;
    if (!h.error.empty()) {
        dominator_highlight_text_ = "city: " + name + ": " + h.error;
        return;
    }
    if (!series_) return;
    uint64_t objects = 0, bytes = 0;
    for (const RangeGroup& g : h.groups) {
        const uint32_t id = series_->find(g.labels);
        if (id == kNoNode) continue;
        dominator_highlight_.push_back(id);
        objects += g.objects;
        bytes += g.bytes;
    }
    const size_t n = dominator_highlight_.size();
    dominator_highlight_text_ = "city: " + std::to_string(n) +
                                (n == 1 ? " building holds " : " buildings hold ") + std::to_string(objects) +
                                " objects, " + std::to_string(bytes) + " B of the " +
                                std::to_string(h.objects) + " objects, " + std::to_string(h.bytes) +
                                " B that " + name + " retains at GC " + std::to_string(h.gc);
    if (n < h.groups.size())
        dominator_highlight_text_ += " (" + std::to_string(h.groups.size() - n) + " groups not in the city)";
}

}  // namespace memcity::explore
