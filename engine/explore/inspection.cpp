#include "explore/inspection.h"

#include <chrono>
#include <memory>

#include "classify/diff.h"
#include "graph/heap_graph.h"
#include "scene/estimates.h"

namespace memcity::explore {
namespace {

const Error kCancelled{"the inspection was cancelled"};

// One rebuilt heap with its references (when loaded) and its classification tree.
struct ClassifiedHeap {
    std::unique_ptr<HeapState> state;
    std::unique_ptr<HeapGraph> graph;
    std::optional<HeapView> view;
    std::optional<ClassificationTree> tree;
};

Result<ClassifiedHeap> classifiedHeap(const HeapHistory& h, const ClassifierChain& chain, uint32_t gc,
                                      bool with_graph, unsigned threads) {
    ClassifiedHeap c;
    auto state = h.heapAt(gc);
    if (!state) return state.error();
    c.state = std::make_unique<HeapState>(std::move(*state));
    c.view.emplace(c.state->view());
    if (with_graph || chain.needsReferences()) {
        auto graph = loadGraph(h, *c.state);
        if (!graph) return graph.error();
        c.graph = std::move(*graph);
        c.view.emplace(c.state->view().withGraph(c.graph.get()));
    }
    TreeOptions to;
    to.threads = threads;
    c.tree.emplace(ClassificationTree::build(*c.view, chain, to));
    return c;
}

// The union of the groups' members; a group missing from the tree adds nothing and is reported
// through `missing`. No groups: every object the chain classifies.
Bitset groupOf(const ClassifiedHeap& c, const std::vector<std::vector<std::string>>& groups, unsigned threads,
               std::vector<size_t>* missing) {
    std::vector<uint32_t> nodes;
    for (size_t i = 0; i < groups.size(); ++i) {
        const uint32_t id = c.tree->find(groups[i]);
        if (id == kNoNode) {
            if (missing) missing->push_back(i);
        } else {
            nodes.push_back(id);
        }
    }
    if (groups.empty()) nodes.push_back(ClassificationTree::kRoot);
    Bitset group(c.view->positions());
    TreeOptions to;
    to.threads = threads;
    if (!nodes.empty())
        for (const Bitset& m : c.tree->members(*c.view, nodes, to))
            group |= m;
    return group;
}

// The request's group in `c`: its objects (those alive there) when it names objects, else the
// union of its groups (see groupOf).
Bitset requestGroup(const ClassifiedHeap& c, const InspectionRequest& r, std::vector<size_t>* missing) {
    if (r.objects.empty()) return groupOf(c, r.groups, r.threads, missing);
    Bitset group(c.view->positions());
    for (uint64_t id : r.objects)
        if (const size_t pos = c.view->find(id); pos < c.view->positions()) group.set(pos);
    return group;
}

std::string sizesText(const Sizes& s) {
    return std::to_string(s.objects) + " objects, " + std::to_string(s.bytes) + " B";
}

// A sampled recording's estimate of a cohort: "≈ 12400 objects, ≈ 1048576 B".
std::string estimatedSizesText(const Sizes& s) {
    return scene::estimateValue(static_cast<double>(s.objects), Metric::kObjects) + ", " +
           scene::estimateValue(static_cast<double>(s.bytes), Metric::kBytes);
}

// "≈ 12,400 objects (10,100–15,000), ≈ 1.2 MiB (0.9–1.6 MiB) from 37 samples".
std::string sampledText(const SampleSums& s) {
    return scene::estimateText(s, Metric::kObjects) + ", " + scene::estimateText(s, Metric::kBytes) +
           " from " + scene::samplesText(s.samples);
}

}  // namespace

std::string shortenPath(const std::string& text) {
    static const std::string kArrow = " \xe2\x86\x92 ";  // " → "
    std::vector<std::string> steps;
    for (size_t start = 0;;) {
        const size_t at = text.find(kArrow, start);
        steps.push_back(text.substr(start, at == std::string::npos ? std::string::npos : at - start));
        if (at == std::string::npos) break;
        start = at + kArrow.size();
    }
    if (steps.size() <= kPathShownSteps) return text;
    const size_t head = kPathShownSteps / 2, tail = kPathShownSteps - head - 1;
    std::string out;
    for (size_t i = 0; i < head; ++i)
        out += steps[i] + kArrow;
    out += "\xe2\x80\xa6 " + std::to_string(steps.size() - head - tail) + " more \xe2\x80\xa6";
    for (size_t i = steps.size() - tail; i < steps.size(); ++i)
        out += kArrow + steps[i];
    return out;
}

std::string formatInspection(const Inspection& in) {
    std::string out;
    auto line = [&out](const std::string& s) { out += s + "\n"; };
    for (const std::string& n : in.names)
        line("group: " + n);
    if (in.objects_sampled && in.heap_sampled)
        line("GC " + std::to_string(in.gc) + ": " + sampledText(*in.objects_sampled) + ", of " +
             sampledText(*in.heap_sampled));
    else
        line("GC " + std::to_string(in.gc) + ": " + sizesText(in.objects) + " of " + sizesText(in.heap));
    if (in.closure && in.closure_samples) {
        // Exact facts about the group's sampled objects, never the group's retained size.
        line("snapshot GC " + std::to_string(*in.snapshot_gc) + ": the whole heap " +
             sizesText(in.closure_heap) + " (exact)");
        line("its " + std::to_string(*in.closure_samples) + " sampled objects (exact for them): shallow " +
             sizesText(in.closure->shallow) + "; deep " + sizesText(in.closure->deep) + "; retained " +
             sizesText(in.closure->retained));
        if (in.closure->unreached.objects)
            line("alive, root not reported: " + sizesText(in.closure->unreached));
    } else if (in.closure) {
        line("snapshot GC " + std::to_string(*in.snapshot_gc));
        line("shallow: " + sizesText(in.closure->shallow));
        line("deep: " + sizesText(in.closure->deep));
        line("retained: " + sizesText(in.closure->retained));
        if (in.closure->unreached.objects)
            line("alive, root not reported: " + sizesText(in.closure->unreached));
    }
    for (const auto& [title, list] : {std::pair{"direct root", &in.direct_roots},
                                      {"closest root", &in.closest_roots},
                                      {"reaching root", &in.reaching_roots},
                                      {"retained type", &in.retained_by_type}})
        for (const CountedName& c : *list)
            line(std::string(title) + ": " + c.name + " (" + std::to_string(c.objects) + " objects, " +
                 std::to_string(c.bytes) + " B)");
    for (const InspectedPath& p : in.paths)
        line("path: " + p.text + " (" + std::to_string(p.objects) + " objects, " +
             std::to_string(p.shortest) + " references)");
    for (const InspectedObject& o : in.largest_objects)
        line("retainer: object " + std::to_string(o.id) + " " + o.type + " retains " + sizesText(o.retained));
    if (in.base_gc) {
        const auto text = in.objects_sampled ? estimatedSizesText : sizesText;
        line("since GC " + std::to_string(*in.base_gc) + ": born " + text(*in.born) + "; died " +
             text(*in.died) + "; permanent " + text(*in.permanent));
    }
    for (const std::string& n : in.notes)
        line("note: " + n);
    return out;
}

std::optional<uint32_t> snapshotGcFor(const HeapHistory& history, uint32_t gc) {
    const auto& gcs = history.gcs();
    if (gc < gcs.size() && gcs[gc].has_snapshot) return gc;
    for (uint32_t g = std::min<uint32_t>(gc, static_cast<uint32_t>(gcs.size())); g-- > 0;)
        if (gcs[g].has_snapshot) return g;
    for (size_t g = gc + size_t{1}; g < gcs.size(); ++g)
        if (gcs[g].has_snapshot) return static_cast<uint32_t>(g);
    return std::nullopt;
}

Result<Inspection> inspect(const HeapHistory& history, const ClassifierChain& chain,
                           const InspectionRequest& request, const CancelToken& token) {
    const auto start = std::chrono::steady_clock::now();
    if (request.gc >= history.gcCount()) return Error{history.gcRangeError(request.gc)};
    Inspection out;
    out.request = request.id;
    out.gc = request.gc;
    out.names = request.names;

    const std::optional<uint32_t> snap = snapshotGcFor(history, request.gc);
    const bool snap_here = snap && *snap == request.gc;
    auto here = classifiedHeap(history, chain, request.gc, snap_here, request.threads);
    if (!here) return here.error();
    if (token.cancelled()) return kCancelled;
    std::vector<size_t> missing;
    const Bitset group = requestGroup(*here, request, &missing);
    for (size_t i : missing)
        out.notes.push_back("'" + (i < request.names.size() ? request.names[i] : std::string("?")) +
                            "' holds nothing at GC " + std::to_string(request.gc));
    if (const size_t alive = group.count(); !request.objects.empty() && alive < request.objects.size())
        // A sampled trace's view holds the samples only: an object missing from it (a dominator
        // row's, of the whole heap at a snapshot) may be alive but not sampled.
        out.notes.push_back(std::to_string(request.objects.size() - alive) + " of the " +
                            std::to_string(request.objects.size()) + " objects are " +
                            (here->view->sampled() ? "not among the samples" : "not alive") + " at GC " +
                            std::to_string(request.gc));
    out.heap = {here->view->liveObjects(), here->view->liveBytes()};
    out.objects = sizesOf(*here->view, group);
    if (here->view->sampled()) {
        // The view counts the samples themselves: the estimates are what they stand for.
        const HeapView& view = *here->view;
        SampleSums sums;
        group.forEach([&](size_t pos) { sums.add(view.weight(pos), view.size(pos)); });
        out.objects_sampled = sums;
        out.heap_sampled = history.gcs()[request.gc].live_sampled;
        out.objects = {sums.roundedObjects(), sums.roundedBytes()};
        out.heap = {out.heap_sampled->roundedObjects(), out.heap_sampled->roundedBytes()};
    }

    if (!snap && history.sampled()) {
        out.notes.push_back("deep and retained sizes, GC roots and the paths to them: " +
                            std::string(scene::kNoSnapshotsReason));
    } else if (!snap) {
        out.notes.push_back(
            "the trace has no reference snapshot: record with --refs N to see GC roots and retained sizes");
    } else {
        std::optional<ClassifiedHeap> there;
        if (!snap_here) {
            auto t = classifiedHeap(history, chain, *snap, true, request.threads);
            if (!t) return t.error();
            there.emplace(std::move(*t));
            out.notes.push_back("GC " + std::to_string(request.gc) +
                                " has no reference snapshot: roots and retained sizes are those of GC " +
                                std::to_string(*snap));
        }
        const ClassifiedHeap& s = there ? *there : *here;
        const Bitset snap_group = there ? requestGroup(s, request, nullptr) : group;
        if (token.cancelled()) return kCancelled;
        GroupReportOptions ro;
        ro.threads = request.threads;
        ro.progress = token;
        // (A sampled trace's graph is of the heap made whole: the samples' positions come first.)
        auto report = buildGroupReport(*s.graph, s.graph->fit(snap_group), ro);
        if (!report) return token.cancelled() ? kCancelled : report.error();
        out.snapshot_gc = *snap;
        out.closure = report->closure;
        out.closure_heap = report->heap;
        if (s.graph->whole()) {
            out.closure_samples = report->closure.shallow.objects;
            out.notes.push_back(scene::sampledClosureNote(*out.closure_samples, *snap));
        }
        out.direct_roots = std::move(report->direct_roots);
        out.closest_roots = std::move(report->closest_roots);
        out.reaching_roots = std::move(report->reaching_roots);
        out.retained_by_type = std::move(report->retained_by_type);
        for (const RootPath& p : report->paths.paths)
            out.paths.push_back({shortenPath(describePath(*s.graph, p)), p.objects, p.shortest});
        out.other_paths = report->paths.other_paths;
        out.other_path_objects = report->paths.other_objects;
        out.unreached_objects = report->paths.unreached_objects;
        const SymbolTable& symbols = s.view->symbols();
        for (const SingleRetainer& r : report->largest_objects)
            out.largest_objects.push_back({r.id, symbols.type(r.type).name, r.retained});
    }

    if (request.base_gc && *request.base_gc < request.gc && !request.objects.empty()) {
        out.notes.push_back("born / died / permanent are of groups of the chain, not of single objects");
    } else if (request.base_gc && *request.base_gc < request.gc) {
        const uint32_t base = *request.base_gc;
        if (chain.needsReferences() && !history.gcs()[base].has_snapshot) {
            out.notes.push_back("born / died / permanent need a reference snapshot at the base GC " +
                                std::to_string(base) + " for this chain");
        } else {
            auto a = classifiedHeap(history, chain, base, false, request.threads);
            if (!a) return a.error();
            if (token.cancelled()) return kCancelled;
            TreeOptions to;
            to.threads = request.threads;
            const HeapDiff diff = HeapDiff::build(*a->view, *here->view, chain, to);
            Sizes born, died, permanent;
            std::vector<uint32_t> nodes;
            for (const auto& path : request.groups)
                if (const uint32_t id = diff.find(path); id != kNoNode) nodes.push_back(id);
            if (request.groups.empty()) nodes.push_back(HeapDiff::kRoot);
            for (uint32_t id : nodes) {
                const DiffNode& n = diff.node(id);
                born += n.born;
                died += n.died;
                permanent += n.permanent;
            }
            out.base_gc = base;
            out.born = born;
            out.died = died;
            out.permanent = permanent;
        }
    }
    out.seconds = std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
    return out;
}

Result<SizesResult> groupSizes(const HeapHistory& history, const ClassifierChain& chain, uint32_t gc,
                               const std::vector<std::vector<std::string>>& groups, unsigned threads,
                               const CancelToken& token) {
    // A group's retained size is not estimated from samples (what they retain is not what the
    // group does): the session asks for none (Session::sizesUnavailable).
    if (history.sampled()) return Error{scene::sampledSizesReason(history.gcs())};
    const std::optional<uint32_t> snap = snapshotGcFor(history, gc);
    if (!snap) return Error{"the trace has no reference snapshot"};
    auto heap = classifiedHeap(history, chain, *snap, true, threads);
    if (!heap) return heap.error();
    if (token.cancelled()) return kCancelled;
    SizesResult out;
    out.snapshot_gc = *snap;
    out.sizes.resize(groups.size());
    std::vector<uint32_t> nodes;
    std::vector<size_t> where;
    for (size_t i = 0; i < groups.size(); ++i)
        if (const uint32_t id = heap->tree->find(groups[i]); id != kNoNode) {
            nodes.push_back(id);
            where.push_back(i);
        }
    if (nodes.empty()) return out;
    TreeOptions to;
    to.threads = threads;
    const std::vector<Bitset> members = heap->tree->members(*heap->view, nodes, to);
    if (token.cancelled()) return kCancelled;
    const std::vector<GroupClosure> closures = closuresOf(*heap->graph, members, threads);
    for (size_t k = 0; k < closures.size(); ++k)
        out.sizes[where[k]] = GroupSizes{closures[k].deep, closures[k].retained};
    return out;
}

}  // namespace memcity::explore
