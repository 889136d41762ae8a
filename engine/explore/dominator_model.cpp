#include "explore/dominator_model.h"

#include <algorithm>
#include <cstdio>
#include <mutex>
#include <tuple>
#include <utility>

#include "classify/tree.h"
#include "explore/inspection.h"
#include "graph/dominator_view.h"
#include "graph/heap_graph.h"

namespace memcity::explore {

// One snapshot heap with its references and dominator tree (read-only once built).
struct DominatorModel::Heap {
    uint32_t gc = 0;
    std::unique_ptr<HeapState> state;
    std::unique_ptr<HeapGraph> graph;
    const DominatorTree* tree = nullptr;  // graph's
};

// A locate()'s answer: the top-level dominator that retains the most of the groups' objects.
struct DominatorModel::Located {
    uint64_t request = 0;
    std::shared_ptr<const Heap> heap;         // the heap it was found in (held: no address reuse)
    uint64_t objects = 0, bytes = 0;          // the groups' objects at that heap
    uint64_t reached = 0;                     // those a root reaches
    uint32_t top = kNoPosition;               // the top-level dominator retaining the most of them
    uint64_t top_objects = 0, top_bytes = 0;  // how many of them it retains
    std::string error;
};

struct DominatorModel::Pending {
    std::mutex mutex;
    std::shared_ptr<const Heap> heap;
    std::optional<std::pair<uint32_t, std::string>> error;                    // the GC and why it failed
    std::optional<std::pair<uint64_t, DominatorModel::Highlight>> highlight;  // the request's number
    std::optional<DominatorModel::Located> located;
};

DominatorModel::DominatorModel(std::function<void()> wake, unsigned threads)
    : worker_("memcity dominat"),
      wake_(std::move(wake)),
      threads_(std::max(1u, threads)),
      pending_(std::make_shared<Pending>()),
      highlight_worker_("memcity dom-hl"),
      locate_worker_("memcity dom-loc") {}

DominatorModel::~DominatorModel() {
    locate_worker_.cancel();
    highlight_worker_.cancel();
    worker_.cancel();
}

void DominatorModel::reset() {
    for (Worker* w : {&locate_worker_, &highlight_worker_, &worker_}) {
        w->cancel();
        w->waitIdle();
    }
    dropShown();  // the late answers of the last trace stay in the old Pending
    history_ = nullptr;
    cursor_gc_ = 0;
    expanded_.clear();
    selected_.clear();
    locate_groups_.clear();
    locate_name_.clear();
    locate_chain_.reset();
    locate_note_.clear();
    scroll_ = false;
}

void DominatorModel::release() {
    for (Worker* w : {&locate_worker_, &highlight_worker_, &worker_})
        w->cancel();
    dropShown();
}

void DominatorModel::dropShown() {
    pending_ = std::make_shared<Pending>();
    wanted_gc_.reset();
    heap_.reset();
    rows_.clear();
    members_.clear();
    error_.clear();
    rows_error_.clear();
    highlight_key_.clear();
    highlight_heap_.reset();
    highlight_chain_.reset();
}

void DominatorModel::follow(const HeapHistory* history, uint32_t gc) {
    if (history != history_) {
        reset();
        history_ = history;
    }
    cursor_gc_ = gc;
    if (!history_) return;
    const std::optional<uint32_t> snap = snapshotGcFor(*history_, gc);
    if (!snap || snap == wanted_gc_) return;
    wanted_gc_ = snap;
    error_.clear();
    if (heap_ && heap_->gc == *snap) {
        // Back to the heap shown: the build asked for since is not needed.
        worker_.cancel();
        runLocate();
        return;
    }
    const HeapHistory* h = history_;
    std::shared_ptr<Pending> pending = pending_;
    auto wake = wake_;
    const uint32_t want = *snap;
    auto failed = [pending, wake, want](const std::string& message) {
        {
            std::lock_guard lock(pending->mutex);
            pending->error = {want, message};
        }
        if (wake) wake();
    };
    worker_.submit(
        [h, pending, wake, want, failed](const CancelToken& token) {
            auto state = h->heapAt(want);
            if (!state) return failed(state.error().message);
            auto heap = std::make_shared<Heap>();
            heap->gc = want;
            heap->state = std::make_unique<HeapState>(std::move(*state));
            if (token.cancelled()) return;
            auto graph = loadGraph(*h, *heap->state);
            if (!graph) return failed(graph.error().message);
            heap->graph = std::move(*graph);
            if (token.cancelled()) return;
            const Result<DominatorTree>& tree = heap->graph->dominators();
            if (!tree) return failed(tree.error().message);
            heap->tree = &*tree;
            if (token.cancelled()) return;
            {
                std::lock_guard lock(pending->mutex);
                pending->heap = std::move(heap);
            }
            if (wake) wake();
        },
        failed);
}

bool DominatorModel::update() {
    bool changed = false;
    std::shared_ptr<const Heap> heap;
    std::optional<Located> located;
    {
        std::lock_guard lock(pending_->mutex);
        if (pending_->error) {
            if (pending_->error->first == wanted_gc_) error_ = pending_->error->second;
            pending_->error.reset();
            changed = true;
        }
        heap = std::move(pending_->heap);
        located = std::exchange(pending_->located, std::nullopt);
    }
    if (heap && heap->gc == wanted_gc_) {
        heap_ = std::move(heap);
        ++heaps_adopted_;
        rebuild();
        if (!locate_chain_) locate_note_.clear();  // of the last heap's
        runLocate();
        changed = true;
    }
    if (located && located->request == locate_request_ && located->heap == heap_ && heap_) {
        adoptLocated(*located);
        changed = true;
    }
    return changed;
}

bool DominatorModel::idle() const {
    if (!worker_.idle() || !highlight_worker_.idle() || !locate_worker_.idle()) return false;
    std::lock_guard lock(pending_->mutex);
    return !pending_->heap && !pending_->error && !pending_->highlight && !pending_->located;
}

Status DominatorModel::setGroupBy(std::optional<std::string> spec) {
    if (spec == group_by_spec_) return {};
    std::optional<ClassifierChain> chain;
    if (spec) {
        auto parsed = parseChain(*spec);
        if (!parsed) return Error{"group by '" + *spec + "': " + parsed.error().message};
        chain.emplace(std::move(*parsed));
    }
    group_by_spec_ = std::move(spec);
    group_by_ = std::move(chain);
    rebuild();
    return {};
}

std::optional<uint32_t> DominatorModel::shownGc() const {
    if (!heap_) return std::nullopt;
    return heap_->gc;
}

std::string DominatorModel::note() const {
    if (!history_) return "no trace";
    if (!wanted_gc_)
        return "the trace has no reference snapshot: record with --refs N to see the dominator tree";
    const std::string gc = std::to_string(*wanted_gc_);
    if (!error_.empty()) return "GC " + gc + ": " + error_;
    if (!heap_ || heap_->gc != *wanted_gc_)
        return "building the dominator tree of snapshot GC " + gc + "\u2026";
    if (*wanted_gc_ == cursor_gc_) return "";
    return "GC " + std::to_string(cursor_gc_) +
           " has no reference snapshot: the dominator tree of snapshot GC " + gc;
}

void DominatorModel::rebuild() {
    rows_.clear();
    members_.clear();
    rows_error_.clear();
    if (!heap_) return;
    addLevel(heap_->tree->superRoot(), nullptr, "", 0);
}

// The rows below `node` (a position or the super-root), or, with `members`, a group's member
// objects; each expanded one followed by its own.
void DominatorModel::addLevel(uint32_t node, const std::vector<uint32_t>* members,
                              const std::string& parent_key, uint32_t depth) {
    const HeapGraph& graph = *heap_->graph;
    const HeapView& view = graph.heap();
    const DominatorTree& tree = *heap_->tree;
    const double reached = static_cast<double>(std::max<uint64_t>(1, tree.reachedBytes()));
    std::vector<DominatorRow> level;
    if (members) {
        // A group's members come in order (dominatorRows sorts them by retained bytes): a row for
        // each of the first kMaxRowsPerLevel, the rest summed in one, however many there are.
        DominatorRow rest;
        for (size_t i = 0; i < members->size(); ++i) {
            const uint32_t pos = (*members)[i];
            DominatorRow& r = i < kMaxRowsPerLevel ? level.emplace_back() : rest;
            r.position = pos;
            r.objects += 1;
            r.shallow_bytes += view.size(pos);
            r.retained_objects += tree.retainedObjects(pos);
            r.retained_bytes += tree.retainedBytes(pos);
            if (i >= kMaxRowsPerLevel) ++rest.more;
        }
        if (rest.more > 0) level.push_back(std::move(rest));
    } else {
        DominatorRowOptions o;
        o.max_rows = kMaxRowsPerLevel;
        auto rows = dominatorRows(graph, tree, node, group_by_ ? &*group_by_ : nullptr, o);
        if (!rows) {
            rows_error_ = rows.error().message;
            return;
        }
        level = std::move(*rows);
    }
    DominatorTableRow more;
    more.more = true;
    more.depth = depth;
    more.key = parent_key + "/more";
    uint64_t more_rows = 0;
    for (size_t i = 0; i < level.size(); ++i) {
        DominatorRow& r = level[i];
        if (i >= kMaxRowsPerLevel || r.more > 0) {
            more_rows += r.more > 0 ? r.more : 1;
            more.objects += r.objects;
            more.shallow_bytes += r.shallow_bytes;
            more.retained_objects += r.retained_objects;
            more.retained_bytes += r.retained_bytes;
            continue;
        }
        DominatorTableRow row;
        const bool object = r.position != kNoPosition;
        if (object) {
            row.id = view.id(r.position);
            row.label = dominatorObjectLabel(graph, r.position);
            row.key = parent_key + "/#" + std::to_string(row.id);
            row.has_children = !tree.children(r.position).empty();
            r.members.assign(1, r.position);  // dominatorRows lists members for groups only
        } else {
            row.label = r.label;
            row.key = parent_key + "/g:" + r.label;
            row.has_children = !r.members.empty();
        }
        row.depth = depth;
        row.objects = r.objects;
        row.shallow_bytes = r.shallow_bytes;
        row.retained_objects = r.retained_objects;
        row.retained_bytes = r.retained_bytes;
        row.heap_share = 100.0 * static_cast<double>(r.retained_bytes) / reached;
        row.expanded = row.has_children && expanded_.count(row.key) > 0;
        const std::string key = row.key;
        const bool open = row.expanded;
        rows_.push_back(std::move(row));
        members_.push_back(std::move(r.members));
        if (!open) continue;
        if (object) {
            addLevel(r.position, nullptr, key, depth + 1);
        } else {
            const std::vector<uint32_t> group = members_.back();
            addLevel(node, &group, key, depth + 1);
        }
    }
    if (more_rows > 0) {
        more.label = "\u2026 " + std::to_string(more_rows) + " more";
        more.heap_share = 100.0 * static_cast<double>(more.retained_bytes) / reached;
        rows_.push_back(std::move(more));
        members_.emplace_back();
    }
}

bool DominatorModel::toggle(const std::string& key) {
    const auto it = std::find_if(rows_.begin(), rows_.end(), [&](const auto& r) { return r.key == key; });
    if (it == rows_.end()) return false;
    return expand(key, !it->expanded);
}

bool DominatorModel::expand(const std::string& key, bool on) {
    const auto it = std::find_if(rows_.begin(), rows_.end(), [&](const auto& r) { return r.key == key; });
    if (it == rows_.end() || !it->has_children) return false;
    if (on)
        expanded_.insert(key);
    else
        expanded_.erase(key);
    rebuild();
    return true;
}

bool DominatorModel::select(const std::string& key) {
    if (key.empty()) {
        selected_.clear();
        return true;
    }
    if (std::none_of(rows_.begin(), rows_.end(), [&](const auto& r) { return r.key == key; })) return false;
    selected_ = key;
    return true;
}

const DominatorTableRow* DominatorModel::selectedRow() const {
    if (selected_.empty()) return nullptr;
    for (const DominatorTableRow& r : rows_)
        if (r.key == selected_) return &r;
    return nullptr;
}

std::vector<uint64_t> DominatorModel::selectedObjects() const {
    std::vector<uint64_t> ids;
    const DominatorTableRow* row = selectedRow();
    if (!row || !heap_) return ids;
    const std::vector<uint32_t>& members = members_[static_cast<size_t>(row - rows_.data())];
    ids.reserve(members.size());
    for (uint32_t pos : members)
        ids.push_back(heap_->graph->heap().id(pos));
    std::sort(ids.begin(), ids.end());
    return ids;
}

std::string DominatorModel::findLabel(const std::string& label) const {
    for (const DominatorTableRow& r : rows_)
        if (r.label == label) return r.key;
    return "";
}

namespace {

// Accepts the objects at the positions set in a bit set (the dominated set of a row).
class DominatedFilter final : public Filter {
public:
    explicit DominatedFilter(const Bitset& positions) : positions_(positions) {}
    std::string spec() const override { return "(a dominator row's retained objects)"; }
    bool shapeOnly() const override { return false; }
    bool accept(const HeapView&, size_t pos) const override { return positions_.test(pos); }

private:
    const Bitset& positions_;
};

}  // namespace

void DominatorModel::requestHighlight(std::shared_ptr<const ClassifierChain> chain) {
    const DominatorTableRow* row = selectedRow();
    const std::string key = row && heap_ && chain ? row->key : std::string();
    std::shared_ptr<const Heap> heap = key.empty() ? nullptr : heap_;
    if (key.empty()) chain.reset();
    if (key == highlight_key_ && heap == highlight_heap_ && chain == highlight_chain_) return;
    highlight_key_ = key;
    highlight_heap_ = heap;
    highlight_chain_ = chain;
    const uint64_t request = ++highlight_request_;
    highlight_worker_.cancel();
    if (key.empty()) {
        std::lock_guard lock(pending_->mutex);
        pending_->highlight.emplace(request, Highlight{});
        return;
    }
    std::shared_ptr<const Heap> shown = heap_;
    std::vector<uint32_t> members = members_[static_cast<size_t>(row - rows_.data())];
    std::shared_ptr<Pending> pending = pending_;
    auto wake = wake_;
    const unsigned threads = threads_;
    auto failed = [pending, wake, key, request, chain](const std::string& message) {
        {
            std::lock_guard lock(pending->mutex);
            pending->highlight.emplace(request, Highlight{key, 0, {}, 0, 0, message, chain});
        }
        if (wake) wake();
    };
    highlight_worker_.submit(
        [shown, members, chain, key, request, pending, wake, threads](const CancelToken& token) {
            const HeapGraph& graph = *shown->graph;
            const DominatorTree& tree = *shown->tree;
            Highlight h;
            h.key = key;
            h.gc = shown->gc;
            h.chain = chain;
            // 1. The dominated set: every member's dominator subtree (members are siblings).
            Bitset dominated(graph.heap().positions());
            std::vector<uint32_t> stack(members.begin(), members.end());
            while (!stack.empty()) {
                const uint32_t pos = stack.back();
                stack.pop_back();
                dominated.set(pos);
                for (uint32_t child : tree.children(pos))
                    stack.push_back(child);
            }
            for (uint32_t pos : members) {
                h.objects += tree.retainedObjects(pos);
                h.bytes += tree.retainedBytes(pos);
            }
            if (token.cancelled()) return;
            // 2. Those objects classified as the city's series is: its leaves are the buildings.
            const HeapView view = chain->needsReferences() ? graph.heap().withGraph(&graph) : graph.heap();
            const DominatedFilter filter(dominated);
            TreeOptions options;
            options.threads = threads;
            options.extra_filter = &filter;
            const ClassificationTree classified = ClassificationTree::build(view, *chain, options);
            if (token.cancelled()) return;
            for (uint32_t id = 1; id < classified.size(); ++id) {
                const TreeNode& n = classified.node(id);
                if (!n.children.empty() || n.objects == 0) continue;
                RangeGroup g;
                g.objects = n.objects;
                g.bytes = n.bytes;
                for (uint32_t at = id; at != ClassificationTree::kRoot; at = classified.node(at).parent)
                    g.labels.push_back(classified.label(at));
                std::reverse(g.labels.begin(), g.labels.end());
                h.groups.push_back(std::move(g));
            }
            std::sort(h.groups.begin(), h.groups.end(), [](const RangeGroup& a, const RangeGroup& b) {
                return a.bytes != b.bytes ? a.bytes > b.bytes : a.labels < b.labels;
            });
            {
                std::lock_guard lock(pending->mutex);
                pending->highlight.emplace(request, std::move(h));
            }
            if (wake) wake();
        },
        failed);
}

std::optional<DominatorModel::Highlight> DominatorModel::takeHighlight() {
    std::lock_guard lock(pending_->mutex);
    auto h = std::exchange(pending_->highlight, std::nullopt);
    // One of an earlier request (the worker finished before it was cancelled): dropped.
    if (!h || h->first != highlight_request_) return std::nullopt;
    return std::move(h->second);
}

void DominatorModel::locate(std::vector<std::vector<std::string>> groups, std::string name,
                            std::shared_ptr<const ClassifierChain> chain) {
    ++locate_request_;
    locate_groups_ = std::move(groups);
    locate_name_ = std::move(name);
    locate_chain_ = std::move(chain);
    locate_note_.clear();
    locate_worker_.cancel();
    runLocate();
}

void DominatorModel::runLocate() {
    if (!locate_chain_ || !heap_ || heap_->gc != wanted_gc_) return;
    std::shared_ptr<const Heap> shown = heap_;
    std::shared_ptr<const ClassifierChain> chain = locate_chain_;  // kept until the answer is adopted
    std::shared_ptr<Pending> pending = pending_;
    auto wake = wake_;
    const unsigned threads = threads_;
    const uint64_t request = locate_request_;
    auto failed = [pending, wake, request, heap = shown](const std::string& message) {
        {
            std::lock_guard lock(pending->mutex);
            Located l;
            l.request = request;
            l.heap = heap;
            l.error = message;
            pending->located = std::move(l);
        }
        if (wake) wake();
    };
    locate_worker_.submit(
        [shown, chain, groups = locate_groups_, pending, wake, threads, request](const CancelToken& token) {
            const HeapGraph& graph = *shown->graph;
            const HeapView view = chain->needsReferences() ? graph.heap().withGraph(&graph) : graph.heap();
            Located l;
            l.request = request;
            l.heap = shown;
            // 1. The groups' objects at the shown heap, classified as the city's series is.
            TreeOptions options;
            options.threads = threads;
            const ClassificationTree classified = ClassificationTree::build(view, *chain, options);
            std::vector<uint32_t> nodes;
            for (const std::vector<std::string>& g : groups)
                if (const uint32_t id = classified.find(g); id != kNoNode) nodes.push_back(id);
            Bitset objects(view.positions());
            if (!nodes.empty())
                for (const Bitset& m : classified.members(view, nodes, options))
                    objects |= m;
            if (token.cancelled()) return;
            // 2. Per top-level dominator, how many of them it retains; the most objects win, then
            // the most bytes, then the lowest position.
            const std::span<const uint32_t> top = graph.topDominators();
            std::vector<std::pair<uint64_t, uint64_t>> held(top.size());
            objects.forEach([&](size_t pos) {
                ++l.objects;
                l.bytes += view.size(pos);
                const uint32_t t = top[pos];
                if (t == kNoPosition) return;
                ++l.reached;
                ++held[t].first;
                held[t].second += view.size(pos);
            });
            for (uint32_t pos = 0; pos < held.size(); ++pos)
                if (held[pos].first > 0 && (l.top == kNoPosition || held[pos] > held[l.top])) l.top = pos;
            if (l.top != kNoPosition) std::tie(l.top_objects, l.top_bytes) = held[l.top];
            if (token.cancelled()) return;
            {
                std::lock_guard lock(pending->mutex);
                pending->located = std::move(l);
            }
            if (wake) wake();
        },
        failed);
}

void DominatorModel::adoptLocated(const Located& l) {
    locate_chain_.reset();  // answered at the heap shown
    const std::string gc = std::to_string(heap_->gc);
    if (!l.error.empty()) {
        locate_note_ = locate_name_ + ": " + l.error;
        return;
    }
    if (l.objects == 0) {
        selected_.clear();
        locate_note_ = locate_name_ + " holds no object at snapshot GC " + gc;
        return;
    }
    const std::string of = std::to_string(l.objects) + (l.objects == 1 ? " object" : " objects");
    if (l.top == kNoPosition) {
        selected_.clear();
        locate_note_ = locate_name_ + ": none of its " + of + " at snapshot GC " + gc +
                       " has a dominating object: no reported root reaches them";
        return;
    }
    const std::string top_label = dominatorObjectLabel(*heap_->graph, l.top);
    locate_note_ = locate_name_ + ": " + top_label + " retains " + std::to_string(l.top_objects) +
                   " of its " + of + " (" + std::to_string(l.top_bytes) + " B)";
    // The top-level row that stands for it: the object's own, or the group it is in.
    for (size_t i = 0; i < rows_.size(); ++i) {
        if (rows_[i].depth != 0 || rows_[i].more) continue;
        const std::vector<uint32_t>& m = members_[i];
        if (std::find(m.begin(), m.end(), l.top) == m.end()) continue;
        selected_ = rows_[i].key;
        scroll_ = true;
        if (rows_[i].key.starts_with("/g:")) locate_note_ += ", in the group " + rows_[i].label;
        return;
    }
    selected_.clear();
    locate_note_ += ", in the top level's \"more\" row (past the first " + std::to_string(kMaxRowsPerLevel) +
                    "): no row selected";
}

std::string dominatorText(const DominatorModel& model) {
    std::string out;
    if (const auto gc = model.shownGc()) {
        out += "dominator tree of snapshot GC " + std::to_string(*gc);
        if (model.groupBy()) out += ", grouped by " + *model.groupBy();
        out += "\n";
    }
    if (const std::string note = model.note(); !note.empty()) out += "note: " + note + "\n";
    if (!model.rowsError().empty()) out += "error: " + model.rowsError() + "\n";
    if (!model.locateNote().empty()) out += "building: " + model.locateNote() + "\n";
    char share[32];
    for (const DominatorTableRow& r : model.rows()) {
        out += std::string(2 * r.depth, ' ');
        out += r.expanded ? "- " : r.has_children ? "+ " : "  ";
        std::snprintf(share, sizeof share, "%.1f%%", r.heap_share);
        out += r.label + ": retained " + std::to_string(r.retained_bytes) + " B, " +
               std::to_string(r.retained_objects) + (r.retained_objects == 1 ? " object, " : " objects, ") +
               share + "; shallow " + std::to_string(r.shallow_bytes) + " B, " + std::to_string(r.objects) +
               (r.objects == 1 ? " object" : " objects");
        if (r.key == model.selected()) out += " [selected]";
        out += "\n";
    }
    return out;
}

}  // namespace memcity::explore
