// Values per allocation stack (an allocation site with all its callers), the input of the
// collapsed-stack and pprof exports (`memcity export`). Each value is computed as the command it
// mirrors computes it, from the same tree over the chain `site(callers=K)` (K: the deepest
// recorded stack), so a stack's value is the value of its deepest node there:
//   live       the live objects of one heap, as `memcity report --classify site(callers=K)`
//   retained   the retained size of the objects of one stack, as `report --retained` gives it
//              for that group (retained sets of two stacks may overlap: they do not sum to the heap,
//              and SiteProfile gives no sum), for the top stacks by live bytes; the rest together
//              as one group
//   allocated  the objects born in a window (after GC `from` ended, by GC `to`): `memcity churn`'s
//              died within plus survived
//   churn      the objects born and dead in that window: `memcity churn`'s died within
#pragma once

#include <cstdint>
#include <string>
#include <string_view>
#include <vector>

#include "graph/heap_graph.h"
#include "heap/heap_history.h"
#include "heap/heap_state.h"
#include "trace/symbols.h"
#include "util/result.h"

namespace memcity {

enum class StackValue : uint8_t {
    kLive,       // alive at the heap's GC
    kRetained,   // what the stack's live objects retain together (their GC closure)
    kAllocated,  // born in the window
    kChurn,      // born and dead in the window
};
std::string_view stackValueName(StackValue what);  // "live", "retained", "allocated", "churn"

struct SiteStack {
    std::vector<Frame> frames;  // outermost first; empty: the objects' site is unknown (or `other`)
    uint64_t objects = 0, bytes = 0;
    bool other = false;  // kRetained: the stacks past SiteProfileOptions::retained_stacks, as one group
};

struct SiteProfile {
    std::vector<SiteStack> stacks;  // in tree order (depth first), `other` last; none with zero values
    // The sums over the stacks; 0 for kRetained (retained sets overlap: their sum is no total).
    uint64_t objects = 0, bytes = 0;
    size_t other_stacks = 0;  // kRetained: how many stacks the `other` one stands for
    bool sampled = false;     // of a sampled trace: every value is an estimate, rounded
};

struct SiteProfileOptions {
    unsigned threads = 1;
    // kRetained: the stacks, largest by live bytes first, whose retained size is computed one by
    // one (one GC closure each); the others are closed together as one `other` stack. At least 1.
    size_t retained_stacks = 200;
};

// `site(callers=K)` with K the most callers any site of `symbols` records: every stack whole.
std::string fullStackChain(const SymbolTable& symbols);

// kLive or kRetained at the heap's GC. Contract: for kRetained `graph` is the heap's reference
// graph (loadGraph) and the trace is not sampled; otherwise it may be null.
Result<SiteProfile> heapSiteProfile(const HeapView& heap, const HeapGraph* graph, StackValue what,
                                    const SiteProfileOptions& options = {});

// kAllocated or kChurn over the window (from, to]. Errors: HeapChurn::build's (from >= to, a
// range out of the history, a failed replay).
Result<SiteProfile> windowSiteProfile(const HeapHistory& history, uint32_t from, uint32_t to, StackValue what,
                                      const SiteProfileOptions& options = {});

}  // namespace memcity
