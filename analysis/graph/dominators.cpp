#include "graph/dominators.h"

#include <algorithm>
#include <chrono>
#include <numeric>
#include <string>
#include <thread>

#include "util/parallel.h"

namespace memcity {
namespace {

using Clock = std::chrono::steady_clock;

// Depth-first number of a position not reached (yet).
constexpr uint32_t kUnseen = ~uint32_t{0};
// On the depth-first stack: the node on top of the open path has no more successors to visit.
constexpr uint32_t kEndOfList = ~uint32_t{0};

double secondsSince(Clock::time_point t0) {
    return std::chrono::duration<double>(Clock::now() - t0).count();
}

// The working arrays held at once, for DominatorStats::peak_bytes.
class MemoryTally {
public:
    template <class T>
    void hold(const std::vector<T>& v) {
        now_ += v.capacity() * sizeof(T);
        peak_ = std::max(peak_, now_);
    }
    template <class T>
    void release(std::vector<T>& v) {
        now_ -= v.capacity() * sizeof(T);
        std::vector<T>().swap(v);
    }
    // Something held only for a moment on top of what is held now.
    void passing(size_t bytes) { peak_ = std::max(peak_, now_ + bytes); }
    size_t peak() const { return peak_; }

private:
    size_t now_ = 0, peak_ = 0;
};

// Runs part(0) and, with two threads, part(1) on a second thread at the same time.
template <class F>
void inParallel(unsigned threads, F&& part) {
    if (threads < 2) {
        part(0u);
        return;
    }
    runParts(2, [&](size_t p) { part(static_cast<unsigned>(p)); });
}

}  // namespace

size_t DominatorTree::memoryBytes() const {
    return idom_.capacity() * sizeof(uint32_t) + retained_objects_.capacity() * sizeof(uint32_t) +
           retained_bytes_.capacity() * sizeof(uint64_t) + child_offset_.capacity() * sizeof(uint32_t) +
           children_.capacity() * sizeof(uint32_t);
}

Result<DominatorTree> computeDominators(const RefGraph& graph, std::span<const uint32_t> roots,
                                        const ShallowSizes& shallow_bytes, const DominatorOptions& options) {
    const size_t n = graph.nodeCount();
    if (n >= DominatorTree::kNone)
        return Error{"dominators: " + std::to_string(n) + " positions is too many (at most 2^32 - 2)"};
    if (graph.edgeCount() + roots.size() >= DominatorTree::kNone)
        return Error{"dominators: " + std::to_string(graph.edgeCount()) +
                     " references is too many (at most 2^32 - 2, the roots included)"};
    for (uint32_t r : roots)
        if (r >= n)
            return Error{"dominators: a root at position " + std::to_string(r) + ", outside the graph's " +
                         std::to_string(n) + " positions"};
    const unsigned threads = options.threads >= 2 ? 2 : 1;
    const auto super = static_cast<uint32_t>(n);
    DominatorTree tree;
    MemoryTally mem;

    // 1. Depth-first numbering from the super-root (number 0). A node's successors are pushed when
    // it is numbered and numbered when they are popped, so the parent of a node is the node that
    // was on top of the open path when it was popped: a genuine depth-first tree, without recursion.
    auto t0 = Clock::now();
    std::vector<uint32_t> num(n, kUnseen);  // position -> depth-first number
    std::vector<uint32_t> order;            // depth-first number -> position (the super-root: n)
    std::vector<uint32_t> parent;           // depth-first number -> its parent's number
    order.reserve(n + 1);
    parent.reserve(n + 1);
    mem.hold(num);
    mem.hold(order);
    mem.hold(parent);
    {
        std::vector<uint32_t> stack;  // positions to visit; kEndOfList closes the node on top of `path`
        std::vector<uint32_t> path;   // numbers of the open nodes, the super-root first
        order.push_back(super);
        parent.push_back(0);
        path.push_back(0);
        stack.push_back(kEndOfList);
        for (auto it = roots.rbegin(); it != roots.rend(); ++it)
            stack.push_back(*it);
        while (!stack.empty()) {
            const uint32_t p = stack.back();
            stack.pop_back();
            if (p == kEndOfList) {
                path.pop_back();
                continue;
            }
            if (num[p] != kUnseen) continue;
            const auto i = static_cast<uint32_t>(order.size());
            num[p] = i;
            order.push_back(p);
            parent.push_back(path.back());
            path.push_back(i);
            stack.push_back(kEndOfList);
            graph.forEachTarget(p, [&](uint32_t t) {
                if (num[t] == kUnseen) stack.push_back(t);
            });
        }
        mem.passing((stack.capacity() + path.capacity()) * sizeof(uint32_t));
    }
    const auto reached = static_cast<uint32_t>(order.size());  // the super-root included
    tree.stats_.dfs_seconds = secondsSince(t0);

    // 2. Predecessors in depth-first numbers (CSR). The super-root's successors are the distinct
    // rooted objects; an object's are its distinct targets other than itself. With two threads,
    // each half of the positions is counted into its own array and written into its own part of
    // every list, so no two threads touch the same counter.
    t0 = Clock::now();
    std::vector<uint32_t> root_nums;
    root_nums.reserve(roots.size());
    for (uint32_t r : roots)
        root_nums.push_back(num[r]);
    std::sort(root_nums.begin(), root_nums.end());
    root_nums.erase(std::unique(root_nums.begin(), root_nums.end()), root_nums.end());
    // Sources are visited in position order, which reads the graph front to back; each thread
    // takes half of the positions, the first one the super-root too.
    auto forEachEdge = [&](unsigned part, auto&& f) {
        if (part == 0)
            for (uint32_t r : root_nums)
                f(0u, r);
        const size_t from = part == 0 ? 0 : n / 2, to = threads == 1 || part == 1 ? n : n / 2;
        for (size_t p = from; p < to; ++p) {
            const uint32_t u = num[p];
            if (u == kUnseen) continue;
            uint32_t last = kUnseen;  // targets come ascending: a repeat follows its first
            graph.forEachTarget(p, [&](uint32_t t) {
                if (t == p || t == last) return;
                last = t;
                f(u, num[t]);
            });
        }
    };
    std::vector<uint32_t> offset(size_t{reached} + 1, 0);  // number -> start of its predecessors
    std::vector<uint32_t> upper;                           // the second thread's counters
    if (threads == 2) upper.assign(reached, 0);
    mem.hold(offset);
    mem.hold(upper);
    inParallel(threads, [&](unsigned part) {
        std::vector<uint32_t>& count = part == 0 ? offset : upper;
        forEachEdge(part, [&](uint32_t, uint32_t v) { ++count[v]; });
    });
    // Each list holds the first half's sources, then the second half's; both are written
    // backwards from the end of their part, so `offset` ends up at the start of every list.
    uint64_t total = 0;  // below 2^32: checked against the graph's references above
    for (uint32_t v = 0; v < reached; ++v) {
        total += offset[v];
        offset[v] = static_cast<uint32_t>(total);
        if (threads == 2) {
            total += upper[v];
            upper[v] = static_cast<uint32_t>(total);
        }
    }
    offset[reached] = static_cast<uint32_t>(total);
    std::vector<uint32_t> preds(total);
    mem.hold(preds);
    inParallel(threads, [&](unsigned part) {
        std::vector<uint32_t>& cursor = part == 0 ? offset : upper;
        forEachEdge(part, [&](uint32_t u, uint32_t v) { preds[--cursor[v]] = u; });
    });
    mem.release(upper);
    mem.release(num);
    tree.stats_.predecessor_edges = total;
    tree.stats_.reverse_seconds = secondsSince(t0);

    // 3. Semi-NCA. Semidominators in decreasing depth-first order: the nodes numbered above w
    // have been linked to their parents, so eval(v) of a linked v is the least semidominator on
    // the path from v up to, not including, the root of its linked tree (with path compression).
    // Then, in increasing order, idom(w) is the nearest common ancestor of parent(w) and semi(w)
    // in the dominator tree: walk up from parent(w) through the dominators already known.
    t0 = Clock::now();
    // Per node: its ancestor in the linked forest (at first its parent), and the least
    // semidominator on the path from it up to, not including, that ancestor's root (a value, not a
    // node, so no second lookup).
    struct Link {
        uint32_t ancestor, least_semi;
    };
    std::vector<Link> link(reached);
    std::vector<uint32_t> semi(reached);
    mem.hold(link);
    mem.hold(semi);
    for (uint32_t v = 0; v < reached; ++v)
        link[v] = {parent[v], v};
    std::vector<uint32_t> walk;
    auto eval = [&](uint32_t v, uint32_t last_linked) {
        if (link[v].ancestor < last_linked) return link[v].least_semi;
        walk.clear();
        uint32_t x = v;
        do {
            walk.push_back(x);
            x = link[x].ancestor;
        } while (link[x].ancestor >= last_linked);
        // Path compression: every node on the path now hangs off the root directly.
        const uint32_t root = link[x].ancestor;
        uint32_t least = link[x].least_semi;
        while (!walk.empty()) {
            Link& y = link[walk.back()];
            walk.pop_back();
            y.ancestor = root;
            least = std::min(least, y.least_semi);
            y.least_semi = least;
        }
        return least;
    };
    for (uint32_t w = reached - 1; w >= 1; --w) {
        uint32_t s = parent[w];
        for (uint32_t k = offset[w]; k < offset[w + 1]; ++k) {
            const uint32_t v = preds[k];
            // A predecessor numbered below w is not linked yet: it is its own candidate.
            s = std::min(s, v < w ? v : eval(v, w + 1));
        }
        semi[w] = s;
        link[w].least_semi = s;
    }
    mem.passing(walk.capacity() * sizeof(uint32_t));
    mem.release(link);
    mem.release(preds);
    mem.release(offset);
    std::vector<uint32_t>& idom = parent;  // rewritten in place, in increasing order
    for (uint32_t w = 1; w < reached; ++w) {
        uint32_t d = idom[w];
        while (d > semi[w])
            d = idom[d];
        idom[w] = d;
    }
    mem.release(semi);
    tree.stats_.dominators_seconds = secondsSince(t0);

    // 4. Back to positions; retained sizes as sums over dominator subtrees (an immediate
    // dominator is numbered below the nodes it dominates, so decreasing numbers finish every
    // subtree before it is added to its dominator); children lists.
    t0 = Clock::now();
    tree.idom_.assign(n, DominatorTree::kNone);
    mem.hold(tree.idom_);
    for (uint32_t w = 1; w < reached; ++w)
        tree.idom_[order[w]] = idom[w] == 0 ? super : order[idom[w]];
    mem.release(parent);
    tree.retained_objects_.assign(n, 0);
    mem.hold(tree.retained_objects_);
    tree.retained_bytes_.resize(n);
    mem.hold(tree.retained_bytes_);
    inParallel(threads, [&](unsigned part) {
        const size_t from = part == 0 ? 0 : n / 2, to = threads == 1 || part == 1 ? n : n / 2;
        if (from < to) shallow_bytes(from, to, tree.retained_bytes_.data() + from);
    });
    std::vector<uint32_t>& objects = tree.retained_objects_;
    std::vector<uint64_t>& bytes = tree.retained_bytes_;
    for (size_t p = 0; p < n; ++p) {
        if (tree.idom_[p] == DominatorTree::kNone)
            bytes[p] = 0;
        else
            objects[p] = 1;
    }
    for (uint32_t w = reached - 1; w >= 1; --w) {
        const uint32_t p = order[w];
        const uint32_t q = tree.idom_[p];
        if (q == super) {
            tree.reached_objects_ += objects[p];
            tree.reached_bytes_ += bytes[p];
        } else {
            objects[q] += objects[p];
            bytes[q] += bytes[p];
        }
    }
    mem.release(order);
    tree.child_offset_.assign(n + 2, 0);
    tree.children_.resize(reached - 1);
    mem.hold(tree.child_offset_);
    mem.hold(tree.children_);
    std::vector<uint32_t>& start = tree.child_offset_;
    for (size_t p = 0; p < n; ++p)
        if (tree.idom_[p] != DominatorTree::kNone) ++start[tree.idom_[p]];
    uint32_t running = 0;
    for (size_t node = 0; node <= n; ++node) {
        running += start[node];
        start[node] = running;
    }
    start[n + 1] = running;
    for (size_t p = n; p-- > 0;)
        if (tree.idom_[p] != DominatorTree::kNone)
            tree.children_[--start[tree.idom_[p]]] = static_cast<uint32_t>(p);
    tree.stats_.retained_seconds = secondsSince(t0);
    tree.stats_.peak_bytes = mem.peak();
    return tree;
}

Result<DominatorTree> computeDominators(const HeapView& heap, const HeapSnapshot& snapshot,
                                        const DominatorOptions& options) {
    const size_t n = heap.positions();
    if (snapshot.graph.nodeCount() != n)
        return Error{"dominators: the snapshot of GC " + std::to_string(snapshot.gc) + " was loaded for " +
                     std::to_string(snapshot.graph.nodeCount()) + " positions, the heap of GC " +
                     std::to_string(heap.gc()) + " has " + std::to_string(n)};
    std::vector<uint32_t> roots;
    roots.reserve(snapshot.roots.size());
    for (const RootRef& r : snapshot.roots)
        roots.push_back(r.position);
    auto sizes = [&](size_t begin, size_t end, uint64_t* out) {
        for (size_t p = begin; p < end; ++p)
            *out++ = heap.alive(p) ? heap.size(p) : 0;
    };
    return computeDominators(snapshot.graph, roots, sizes, options);
}

}  // namespace memcity
