#include "fuzz/fuzz_pipeline.h"

#include <cstdlib>
#include <iterator>

#include "classify/churn.h"
#include "classify/classifier.h"
#include "classify/diff.h"
#include "classify/series.h"
#include "classify/tree.h"
#include "fuzz/one_line.h"
#include "graph/closure.h"
#include "graph/dominators.h"
#include "graph/group_report.h"
#include "graph/heap_graph.h"
#include "windows/windows.h"

namespace memcity::fuzz {

namespace {

// Chains with every built-in classifier, the reference classifiers (they need a snapshot) and
// expression classifiers among them; filters likewise.
constexpr const char* kChains[] = {
    "type",
    "package,type",
    "type,site(callers=2)",
    "site,thread,age",
    "kind(big=4),length(buckets=1),size",
    "calls",
    "domain-site(libraries=Main.),type",
    "rooted,type",
    "roots",
    "structure,type",
    "in-degree,out-degree",
    "points-to(type),type",
    "pointed-from(package,type)",
    "age,{site.method}",
    "{size > 1k},type,site",
    "package(depth=1),{kind}",
};
constexpr const char* kFilters[] = {"", "size > 16", "age >= 2 && kind != \"instance\"", "type ~ \"*[]\""};

// The analysis of one GC's heap: the tree, its groups' members, closures, a group report and
// the dominators (with a snapshot).
void analyseHeap(const HeapHistory& h, uint32_t gc, const ClassifierChain& chain, uint64_t& sum) {
    auto heap = h.heapAt(gc);
    if (!good(heap)) return;
    std::unique_ptr<HeapGraph> graph;
    if (auto g = loadGraph(h, *heap); g.ok())
        graph = std::move(*g);
    else
        oneLine(g.error());
    if (chain.needsReferences() && !graph) return;
    const HeapView view = heap->view().withGraph(graph.get());
    const ClassificationTree tree = ClassificationTree::build(view, chain);
    std::vector<uint32_t> nodes;
    for (uint32_t id = 0; id < tree.size() && nodes.size() < 16; ++id) {
        sum += tree.label(id).size() + tree.path(id).size() + tree.node(id).objects;
        nodes.push_back(id);
    }
    const std::vector<Bitset> members = tree.members(view, nodes);
    if (!graph) return;
    for (const GroupClosure& c : closuresOf(*graph, members, 1))
        sum += c.retained.bytes + c.deep.objects + c.unreached.objects;
    for (size_t k = 0; k < members.size() && k < 3; ++k) {
        auto report = buildGroupReport(*graph, graph->fit(members[k]));
        if (good(report)) {
            sum += report->closure.retained.bytes;
        }
    }
    if (auto paths = rootPaths(*graph, graph->fit(members.back()), 4); !paths.paths.empty())
        sum += describePath(*graph, paths.paths.front()).size();
    auto dominators = computeDominators(graph->heap(), graph->snapshot());
    if (good(dominators)) sum += dominators->positions();
}

}  // namespace

void analyseHistory(const HeapHistory& h, uint64_t choice) {
    if (h.gcCount() == 0) return;
    auto chain = parseChain(kChains[choice % std::size(kChains)]);
    if (!chain.ok()) std::abort();  // the specs above are right
    choice /= std::size(kChains);
    if (const char* text = kFilters[choice % std::size(kFilters)]; *text) {
        auto filter = parseFilter(text);
        if (!filter.ok()) std::abort();
        chain->filters.push_back(std::move(*filter));
    }
    choice /= std::size(kFilters);
    const auto last = static_cast<uint32_t>(h.gcCount() - 1);
    const auto gc = static_cast<uint32_t>(choice % h.gcCount());
    uint64_t sum = 0;

    if (auto windows = findWindows(h.gcs()); good(windows)) sum += windows->windows.size();
    analyseHeap(h, gc, *chain, sum);
    if (auto diff = HeapDiff::between(h, 0, last, *chain); good(diff)) sum += diff->size();
    if (last > 0 && !chain->needsReferences()) {
        if (auto churn = HeapChurn::build(h, 0, last, *chain); good(churn)) sum += churn->size();
        if (auto series = churnSeries(h, 0, last, *chain); good(series)) sum += series->size();
    }
    if (!chain->needsReferences()) {
        SeriesOptions options;
        options.lossless_path = std::vector<std::string>{};
        if (auto series = TreeSeries::build(h, *chain, options); good(series))
            for (uint32_t id = 0; id < series->size() && id < 16; ++id)
                sum += series->values(id, Metric::kBytes).size() + series->label(id).size();
    }
    static volatile uint64_t sink;
    sink = sum;  // keeps the work observable
}

const std::string& workDirectory() {
    static const std::string dir = [] {
        const char* tmp = std::getenv("TMPDIR");
        std::string d = std::string(tmp && *tmp ? tmp : "/tmp") + "/memcity-fuzz-XXXXXX";
        if (!::mkdtemp(d.data())) std::abort();
        return d;
    }();
    return dir;
}

}  // namespace memcity::fuzz
