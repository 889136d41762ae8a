// Session, the inspector and the tree table's sizes: the selection's (or a dominator row's
// objects') inspection and the deep and retained sizes of the table's groups, computed in the
// background at the current GC.
#include <algorithm>

#include "explore/session.h"
#include "explore/session_pending.h"

namespace memcity::explore {

void Session::requestInspection() {
    if (!series_ || (selection_.empty() && objects_.empty())) return;
    if (churn_window_) {
        ++inspection_request_;
        inspection_.reset();
        inspection_error_ =
            "churn mode: these groups hold objects that died young; the inspector reads heaps";
        return;
    }
    InspectionRequest r;
    r.id = ++inspection_request_;
    r.gc = currentGc();
    r.threads = options_.threads;
    const uint32_t base = baseGc();
    if (base < r.gc) r.base_gc = base;
    if (!objects_.empty()) {
        r.objects = objects_;
        r.names.assign(1, objects_name_);
    }
    for (uint32_t id : objects_.empty() ? selection_ : std::vector<uint32_t>{}) {
        for (uint32_t node : nodesOf(id)) {
            if (node == TreeSeries::kRoot) {
                r.groups.clear();  // the whole heap
                r.names.assign(1, "Overall");
                break;
            }
            r.groups.push_back(labelsOf(node));
            r.names.push_back(nameOf(node));
        }
        if (!r.names.empty() && r.names.front() == "Overall" && r.groups.empty()) break;
    }
    inspection_wanted_ = r;
    const HeapHistory* h = history();
    if (!h) return;  // asked again once loaded
    std::shared_ptr<const ClassifierChain> chain = series_chain_;
    std::shared_ptr<Pending> pending = pending_;
    auto wake = options_.wake;
    auto failed = [id = r.id, pending, wake](const std::string& message) {
        {
            std::lock_guard lock(pending->mutex);
            pending->inspection_error = {id, message};
        }
        if (wake) wake();
    };
    inspect_worker_->submit(
        [h, chain, r, pending, wake](const CancelToken& token) {
            auto result = inspect(*h, *chain, r, token);
            if (token.cancelled()) return;
            {
                std::lock_guard lock(pending->mutex);
                if (result)
                    pending->inspection = std::move(*result);
                else
                    pending->inspection_error = {r.id, result.error().message};
            }
            if (wake) wake();
        },
        failed);
}

bool Session::inspectionCurrent() const {
    return inspection_ && inspection_->request == inspection_request_;
}

bool Session::inspecting() const {
    return !inspect_worker_->idle();
}

void Session::requestSizes(const std::vector<uint32_t>& nodes) {
    const HeapHistory* h = history();
    if (!h || !series_ || churn_window_ || !sizesUnavailable().empty()) return;
    const uint32_t gc = currentGc();
    if (gc != sizes_gc_) {
        sizes_.clear();
        sizes_requested_.clear();
        sizes_gc_ = gc;
    }
    std::vector<uint32_t> wanted;
    for (uint32_t id : nodes)
        if (!scene::isOtherId(id) && id < series_->size() && !sizes_.count(id) &&
            std::find(sizes_requested_.begin(), sizes_requested_.end(), id) == sizes_requested_.end())
            wanted.push_back(id);
    if (wanted.empty()) return;
    sizes_requested_.insert(sizes_requested_.end(), wanted.begin(), wanted.end());
    // Everything asked for at this GC and not known yet, in one pass over the heap.
    std::vector<uint32_t> ids;
    for (uint32_t id : sizes_requested_)
        if (!sizes_.count(id)) ids.push_back(id);
    std::vector<std::vector<std::string>> groups;
    for (uint32_t id : ids)
        groups.push_back(labelsOf(id));
    std::shared_ptr<const ClassifierChain> chain = series_chain_;
    std::shared_ptr<Pending> pending = pending_;
    auto wake = options_.wake;
    const unsigned threads = options_.threads;
    sizes_worker_->submit([h, chain, gc, ids, groups, threads, pending, wake](const CancelToken& token) {
        auto result = groupSizes(*h, *chain, gc, groups, threads, token);
        if (!result || token.cancelled()) return;
        std::map<uint32_t, GroupSizes> sizes;
        for (size_t i = 0; i < ids.size(); ++i)
            if (result->sizes[i]) sizes[ids[i]] = *result->sizes[i];
        {
            std::lock_guard lock(pending->mutex);
            pending->sizes = std::pair{gc, std::move(sizes)};
        }
        if (wake) wake();
    });
}

std::optional<GroupSizes> Session::sizesOf(uint32_t node) const {
    if (node == scene::kNoPick || currentGc() != sizes_gc_) return std::nullopt;
    auto it = sizes_.find(node);
    if (it == sizes_.end()) return std::nullopt;
    return it->second;
}

}  // namespace memcity::explore
