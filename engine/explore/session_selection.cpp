// Session, its selection and drill-down: node ids and their label paths and names, the one
// selection every view shares, the drill root and its trail, the selection's curve.
#include <algorithm>

#include "explore/session.h"
#include "explore/session_pending.h"
#include "scene/estimates.h"

namespace memcity::explore {

std::vector<std::string> Session::labelsOf(uint32_t id) const {
    std::vector<std::string> labels;
    if (!series_) return labels;
    uint32_t at = scene::isOtherId(id) ? scene::otherParentOf(id) : id;
    if (at >= series_->size()) return labels;
    for (; at != TreeSeries::kRoot; at = series_->node(at).parent)
        labels.push_back(series_->label(at));
    std::reverse(labels.begin(), labels.end());
    return labels;
}

std::string Session::nameOf(uint32_t id) const {
    if (!series_) return {};
    if (scene::isOtherId(id)) {
        const uint32_t parent = scene::otherParentOf(id);
        const size_t n = nodesOf(id).size();
        std::string under = parent == TreeSeries::kRoot ? "Overall" : series_->path(parent);
        return "Other (" + std::to_string(n) + " groups) under " + under;
    }
    if (id >= series_->size()) return {};
    return id == TreeSeries::kRoot ? "Overall" : series_->path(id);
}

std::vector<uint32_t> Session::nodesOf(uint32_t id) const {
    if (!series_) return {};
    if (!scene::isOtherId(id))
        return id < series_->size() ? std::vector<uint32_t>{id} : std::vector<uint32_t>{};
    const uint32_t parent = scene::otherParentOf(id);
    if (parent >= series_->size()) return {};
    return series_->prunedChildren(parent, chain_.sort, chain_.metric, viewPrune()).folded;
}

void Session::select(uint32_t id, bool add) {
    if (!series_) return;
    objects_.clear();
    objects_name_.clear();
    objects_row_.clear();
    if (!add) {
        selection_.assign(1, id);
    } else if (auto it = std::find(selection_.begin(), selection_.end(), id); it != selection_.end()) {
        selection_.erase(it);
    } else {
        selection_.push_back(id);
    }
    requestInspection();
    locateInDominators();
}

void Session::clearSelection() {
    selection_.clear();
    objects_.clear();
    objects_name_.clear();
    objects_row_.clear();
    inspection_.reset();
    inspection_error_.clear();
    inspect_worker_->cancel();
    dominators_->select("");  // and the city's highlight of its row goes with it (update)
}

Status Session::selectPath(const std::string& paths, bool add) {
    if (!series_) return Error{"nothing to select yet: the trace is still loading"};
    std::vector<uint32_t> ids;
    for (const auto& labels : parseNodePaths(paths)) {
        const uint32_t id = labels.empty() ? TreeSeries::kRoot : series_->find(labels);
        if (id == kNoNode) {
            std::string path;
            for (const std::string& l : labels)
                path += (path.empty() ? "" : " / ") + l;
            return Error{"no group '" + path + "' in the series by " + chain_.spec()};
        }
        ids.push_back(id);
    }
    if (!add) selection_.clear();
    objects_.clear();
    objects_name_.clear();
    objects_row_.clear();
    for (uint32_t id : ids)
        if (std::find(selection_.begin(), selection_.end(), id) == selection_.end()) selection_.push_back(id);
    requestInspection();
    locateInDominators();
    return {};
}

void Session::drill(uint32_t node) {
    if (!series_) return;
    if (scene::isOtherId(node)) node = scene::otherParentOf(node);
    if (node >= series_->size()) return;
    if (series_->node(node).children.empty() && node != TreeSeries::kRoot) node = series_->node(node).parent;
    drill_root_ = node;
}

void Session::drillUp() {
    if (series_ && drill_root_ != TreeSeries::kRoot) drill_root_ = series_->node(drill_root_).parent;
}

Status Session::drillPath(const std::string& path) {
    if (!series_) return Error{"nothing to drill into yet: the trace is still loading"};
    const auto paths = parseNodePaths(path);
    if (paths.size() != 1) return Error{"drill takes one group path, like 'java.util / java.util.HashMap'"};
    const uint32_t id = paths[0].empty() ? TreeSeries::kRoot : series_->find(paths[0]);
    if (id == kNoNode) return Error{"no group '" + path + "' in the series by " + chain_.spec()};
    drill(id);
    return {};
}

std::vector<uint32_t> Session::drillTrail() const {
    std::vector<uint32_t> trail;
    if (!series_) return trail;
    for (uint32_t at = drill_root_; at != kNoNode; at = series_->node(at).parent) {
        trail.push_back(at);
        if (at == TreeSeries::kRoot) break;
    }
    std::reverse(trail.begin(), trail.end());
    return trail;
}

std::vector<double> Session::selectionCurve(Metric metric) const {
    std::vector<double> curve;
    if (!series_) return curve;
    for (uint32_t g : series_->gcs())
        curve.push_back(selectionValueAt(g, metric));
    return curve;
}

double Session::selectionValueAt(uint32_t gc, Metric metric) const {
    if (!series_) return 0;
    std::vector<uint32_t> nodes;
    for (uint32_t id : selection_)
        for (uint32_t n : nodesOf(id))
            nodes.push_back(n);
    return static_cast<double>(series_->sum(nodes, gc, metric));
}

}  // namespace memcity::explore
