#include "graph/heap_graph.h"

#include <algorithm>
#include <map>
#include <string_view>
#include <unordered_map>

#include "graph/dominator_view.h"

namespace memcity {

namespace rootkey {
std::string label(const SymbolTable& symbols, uint64_t key) {
    const uint64_t i = id(key);
    const auto i32 = static_cast<uint32_t>(i);
    switch (tag(key)) {
        case kKind: return std::string(symbols.rootKindName(i32));
        case kClass: {
            const std::string& name = symbols.type(i32).name;
            return name.empty() ? "<type " + std::to_string(i) + ">" : name;
        }
        case kField: {
            const FieldInfo& f = symbols.field(i32);
            // The recorder could not name the field (id 0): say so rather than print a number.
            if (i == 0) return "(a field not recorded)";
            return f.name.empty() ? "<field " + std::to_string(i) + ">" : f.name;
        }
        case kThread: {
            const ThreadInfo& t = symbols.thread(i32);
            return t.name.empty() ? "<thread " + std::to_string(i) + ">" : t.name;
        }
        case kMethod: {
            const MethodInfo& m = symbols.method(i32);
            if (m.name.empty()) return "<method " + std::to_string(i) + ">";
            return m.class_name.empty() ? m.name : m.class_name + "." + m.name;
        }
        case kSpecial:
            if (key == kNotDirectlyRooted) return "not directly rooted";
            if (key == kRootNotReported) return "alive, root not reported";
            break;
        default: break;
    }
    return "<root key " + std::to_string(key) + ">";
}
}  // namespace rootkey

namespace {

// The identity path of one root: what names it, outermost first.
void identityOf(const RootRef& r, std::vector<uint64_t>& out) {
    using namespace rootkey;
    out.push_back(make(kKind, r.kind));
    auto detail = [&](uint32_t i) { return i < r.detail_count ? r.details[i] : 0; };
    switch (static_cast<format::RootKind>(r.kind)) {
        case format::RootKind::kStaticField:
            out.push_back(make(kClass, detail(0)));
            out.push_back(make(kField, detail(1)));
            break;
        case format::RootKind::kStackLocal:
            out.push_back(make(kThread, detail(0)));
            out.push_back(make(kMethod, detail(1)));
            break;
        case format::RootKind::kJniLocal:
        case format::RootKind::kThread: out.push_back(make(kThread, detail(0))); break;
        case format::RootKind::kSystemClass:
            // Held by the VM for a class it did not name (a root of its own): "system class".
            if (r.detail_count > 0 && r.details[0] != 0) out.push_back(make(kClass, detail(0)));
            break;
        default: break;
    }
}

// How long a root of this kind usually holds what it references, most lasting first: a static
// field or a system class for the program's life, a global or a thread for long, a local for one
// call. Kinds unknown to this build come last. `identity` is a root identity, its kind first.
int lastingRank(std::span<const uint64_t> identity) {
    switch (static_cast<format::RootKind>(rootkey::id(identity.front()))) {
        case format::RootKind::kStaticField: return 0;
        case format::RootKind::kSystemClass: return 1;
        case format::RootKind::kJniGlobal: return 2;
        case format::RootKind::kThread: return 3;
        case format::RootKind::kMonitor: return 4;
        case format::RootKind::kStackLocal: return 5;
        case format::RootKind::kJniLocal: return 6;
        case format::RootKind::kOther: return 7;
        default: return 8;
    }
}

}  // namespace

HeapGraph::HeapGraph(const HeapView& heap, HeapSnapshot snapshot)
    : heap_(heap), snapshot_(std::move(snapshot)) {
    // Root identities, and per rooted position the distinct identities referencing it.
    std::map<std::vector<uint64_t>, uint32_t> ids;
    std::vector<std::pair<uint32_t, uint32_t>> pos_id;  // (position, identity)
    std::vector<uint64_t> path;
    for (const RootRef& r : snapshot_.roots) {
        if (r.position >= heap_.positions()) continue;
        path.clear();
        identityOf(r, path);
        auto [it, added] = ids.try_emplace(path, static_cast<uint32_t>(identity_offsets_.size() - 1));
        if (added) {
            identity_keys_.insert(identity_keys_.end(), path.begin(), path.end());
            identity_offsets_.push_back(static_cast<uint32_t>(identity_keys_.size()));
        }
        pos_id.emplace_back(r.position, it->second);
    }
    std::sort(pos_id.begin(), pos_id.end());
    pos_id.erase(std::unique(pos_id.begin(), pos_id.end()), pos_id.end());
    for (size_t i = 0; i < pos_id.size(); ++i) {
        if (i == 0 || pos_id[i].first != pos_id[i - 1].first) {
            if (i != 0) direct_offsets_.push_back(static_cast<uint32_t>(direct_ids_.size()));
            rooted_positions_.push_back(pos_id[i].first);
        }
        direct_ids_.push_back(pos_id[i].second);
    }
    if (!pos_id.empty()) direct_offsets_.push_back(static_cast<uint32_t>(direct_ids_.size()));
}

HeapGraph::HeapGraph(std::unique_ptr<const WholeHeap> whole, HeapSnapshot snapshot)
    : HeapGraph(whole->view(), std::move(snapshot)) {
    whole_ = std::move(whole);  // (the view reads it where it is: moving the pointer keeps it there)
}

Bitset HeapGraph::fit(const Bitset& group) const {
    if (group.size() == size()) return group;
    Bitset out(size());
    for (size_t w = 0; w < group.words().size() && w < out.words().size(); ++w)
        out.words()[w] = group.words()[w];
    if (group.size() > size())  // (bits past the graph's heap, in the last word)
        for (size_t i = size(); i < std::min(group.size(), out.words().size() * 64); ++i)
            out.reset(i);
    return out;
}

const Bitset& HeapGraph::reachable() const {
    std::call_once(reachable_once_, [this] { computeReachable(); });
    return reachable_;
}

uint64_t HeapGraph::reachableObjects() const {
    reachable();
    return reachable_objects_;
}

uint64_t HeapGraph::reachableBytes() const {
    reachable();
    return reachable_bytes_;
}

void HeapGraph::computeReachable() const {
    std::vector<uint64_t> words;
    const ObjectStore& store = heap_.store();
    Reachability r = computeReachability(snapshot_, store, heap_.positions(), heap_.shapes(), heap_.symbols(),
                                         heap_.alignment(), &words);
    reachable_ = Bitset(heap_.positions());
    for (size_t w = 0; w < words.size() && w < reachable_.words().size(); ++w)
        reachable_.words()[w] = words[w];
    // Tombstones are not objects: a root never names one, but stay exact.
    for (size_t pos = 0; pos < heap_.positions(); ++pos)
        if (!heap_.alive(pos) && reachable_.test(pos)) reachable_.reset(pos);
    reachable_objects_ = r.reachable_objects;
    reachable_bytes_ = r.reachable_bytes;
}

std::string HeapGraph::rootIdentityLabel(uint32_t id) const {
    std::string s;
    const SymbolTable& symbols = heap_.symbols();
    std::span<const uint64_t> keys = rootIdentity(id);
    for (size_t i = 0; i < keys.size(); ++i) {
        // Static fields read "static field IdCache.idCache"; the rest are joined by spaces.
        const bool dotted = i == 2 && rootkey::tag(keys[i]) == rootkey::kField;
        s += (i == 0 ? "" : dotted ? "." : " ") + rootkey::label(symbols, keys[i]);
    }
    return s;
}

int HeapGraph::rootRank(uint32_t identity) const {
    return lastingRank(rootIdentity(identity));
}

uint32_t HeapGraph::pathRoot(size_t pos) const {
    return mostLasting(directRoots(pos));
}

uint32_t HeapGraph::mostLasting(std::span<const uint32_t> ids) const {
    uint32_t best = kNoPosition;
    int best_rank = 0;
    for (uint32_t id : ids) {
        const int rank = rootRank(id);
        if (best == kNoPosition || rank < best_rank) best = id, best_rank = rank;
    }
    return best;
}

std::span<const uint32_t> HeapGraph::directRoots(size_t pos) const {
    auto it =
        std::lower_bound(rooted_positions_.begin(), rooted_positions_.end(), static_cast<uint32_t>(pos));
    if (it == rooted_positions_.end() || *it != pos) return {};
    const auto i = static_cast<size_t>(it - rooted_positions_.begin());
    return {direct_ids_.data() + direct_offsets_[i], direct_ids_.data() + direct_offsets_[i + 1]};
}

const ReverseGraph& HeapGraph::reverse() const {
    std::call_once(reverse_once_, [this] {
        const size_t n = size();
        const RefGraph& g = refs();
        reverse_.offsets.assign(n + 1, 0);
        for (size_t p = 0; p < n; ++p)
            g.forEachTarget(p, [&](uint32_t t) { ++reverse_.offsets[t + 1]; });
        for (size_t p = 0; p < n; ++p)
            reverse_.offsets[p + 1] += reverse_.offsets[p];
        reverse_.sources.resize(reverse_.offsets[n]);
        std::vector<uint64_t> fill(reverse_.offsets.begin(), reverse_.offsets.end() - 1);
        // Sources in ascending order, so each list comes out sorted.
        for (size_t p = 0; p < n; ++p)
            g.forEachTarget(p, [&](uint32_t t) { reverse_.sources[fill[t]++] = static_cast<uint32_t>(p); });
    });
    return reverse_;
}

const Result<DominatorTree>& HeapGraph::dominators() const {
    std::call_once(dominators_once_,
                   [this] { dominators_.emplace(computeDominators(heap_, snapshot_, {2})); });
    return *dominators_;
}

std::span<const uint32_t> HeapGraph::topDominators() const {
    std::call_once(top_dominators_once_, [this] {
        if (const Result<DominatorTree>& tree = dominators(); tree)
            top_dominators_ = memcity::topDominators(*tree);
    });
    return top_dominators_;
}

// A breadth-first search from every root object at once, one level at a time. An object takes
// the root identities of every object of the previous level that references it (so ties between
// equally close roots are kept), interned as small sorted sets.
void HeapGraph::computeClosest() const {
    std::call_once(closest_once_, [this] {
        const size_t n = size();
        closest_set_.assign(n, kNoPosition);
        distance_.assign(n, kNoPosition);
        parent_.assign(n, kNoPosition);
        set_offsets_.assign(1, 0);
        set_ids_.clear();
        std::map<std::vector<uint32_t>, uint32_t> sets;
        auto intern = [&](const std::vector<uint32_t>& s) {
            auto [it, added] = sets.try_emplace(s, static_cast<uint32_t>(set_offsets_.size() - 1));
            if (added) {
                set_ids_.insert(set_ids_.end(), s.begin(), s.end());
                set_offsets_.push_back(static_cast<uint32_t>(set_ids_.size()));
            }
            return it->second;
        };
        auto members = [&](uint32_t set) {
            return std::vector<uint32_t>(set_ids_.begin() + set_offsets_[set],
                                         set_ids_.begin() + set_offsets_[set + 1]);
        };
        std::unordered_map<uint64_t, uint32_t> unions;  // (a, b) -> a ∪ b
        auto unite = [&](uint32_t a, uint32_t b) {
            if (a == b) return a;
            if (a > b) std::swap(a, b);
            auto [it, added] = unions.try_emplace((uint64_t{a} << 32) | b, 0);
            if (!added) return it->second;
            std::vector<uint32_t> x = members(a), y = members(b), u;
            std::set_union(x.begin(), x.end(), y.begin(), y.end(), std::back_inserter(u));
            if (u.size() > kMaxClosestRoots) u.resize(kMaxClosestRoots);
            return it->second = intern(u);
        };

        // Root objects held by lasting roots go first, so among equally short paths an object's
        // parent leads to the most lasting root (the order carries over to every level).
        std::vector<std::pair<int, uint32_t>> ranked;  // (rank of its most lasting root, position)
        ranked.reserve(rooted_positions_.size());
        for (size_t i = 0; i < rooted_positions_.size(); ++i) {
            const uint32_t pos = rooted_positions_[i];
            const std::span<const uint32_t> direct(direct_ids_.data() + direct_offsets_[i],
                                                   direct_ids_.data() + direct_offsets_[i + 1]);
            std::vector<uint32_t> s(direct.begin(), direct.end());
            if (s.size() > kMaxClosestRoots) s.resize(kMaxClosestRoots);
            closest_set_[pos] = intern(s);
            distance_[pos] = 0;
            ranked.emplace_back(rootRank(mostLasting(direct)), pos);
        }
        std::stable_sort(ranked.begin(), ranked.end(),
                         [](const auto& a, const auto& b) { return a.first < b.first; });
        std::vector<uint32_t> frontier, next;
        frontier.reserve(ranked.size());
        for (const auto& [rank, pos] : ranked)
            frontier.push_back(pos);
        const RefGraph& g = refs();
        for (uint32_t level = 0; !frontier.empty(); ++level) {
            next.clear();
            for (uint32_t u : frontier) {
                const uint32_t su = closest_set_[u];
                g.forEachTarget(u, [&](uint32_t v) {
                    if (distance_[v] == kNoPosition) {
                        distance_[v] = level + 1;
                        closest_set_[v] = su;
                        parent_[v] = u;
                        next.push_back(v);
                    } else if (distance_[v] == level + 1 && closest_set_[v] != su) {
                        closest_set_[v] = unite(closest_set_[v], su);
                    }
                });
            }
            frontier.swap(next);
        }
    });
}

std::span<const uint32_t> HeapGraph::closestRoots(size_t pos) const {
    computeClosest();
    const uint32_t s = closest_set_[pos];
    if (s == kNoPosition) return {};
    return {set_ids_.data() + set_offsets_[s], set_ids_.data() + set_offsets_[s + 1]};
}

uint32_t HeapGraph::rootDistance(size_t pos) const {
    computeClosest();
    return distance_[pos];
}

uint32_t HeapGraph::pathParent(size_t pos) const {
    computeClosest();
    return parent_[pos];
}

// ---- Containing data structures ----

namespace {

enum Role : uint8_t { kPlain = 0, kHead = 1, kInternal = 2, kRefArray = 3 };

bool endsWith(std::string_view s, std::string_view end) {
    return s.size() >= end.size() && s.substr(s.size() - end.size()) == end;
}

// What a type is to the data-structure walk: a collection (a head), a collection's internal
// node (HashMap$Node, its arrays), a reference array, or anything else.
Role roleOf(const TypeInfo& t) {
    const std::string_view name = t.name;
    const bool jdk = name.starts_with("java.util.");
    if (t.kind == format::TypeKind::kReferenceArray) {
        if (jdk && name.find('$') != std::string_view::npos) return kInternal;  // HashMap$Node[]
        return kRefArray;
    }
    if (t.kind != format::TypeKind::kInstance || !jdk) return kPlain;
    const size_t dollar = name.find('$');
    const std::string_view simple = name.substr(name.rfind(dollar == std::string_view::npos ? '.' : '$') + 1);
    static constexpr std::string_view kViews[] = {"KeySet",   "EntrySet",    "Values", "View",
                                                  "Iterator", "Spliterator", "Itr"};
    for (std::string_view v : kViews)
        if (simple.find(v) != std::string_view::npos) return kPlain;
    static constexpr std::string_view kCollections[] = {"Map",    "List",      "Set",   "Queue",     "Deque",
                                                        "Vector", "Hashtable", "Stack", "Properties"};
    for (std::string_view c : kCollections)
        if (endsWith(simple, c)) return kHead;
    static constexpr std::string_view kNodes[] = {"Node", "Entry", "TreeBin", "Segment", "Cell"};
    if (dollar != std::string_view::npos)
        for (std::string_view c : kNodes)
            if (endsWith(simple, c)) return kInternal;
    return kPlain;
}

}  // namespace

// Which data structure holds each object, in three steps:
//  1. Each collection head claims what it reaches through its internals (nodes, tables, the
//     arrays it references itself); the first non-internal object on a path is an element and
//     the walk stops there. Reference arrays no collection claimed are data structures of their
//     own, holding their direct elements. Each head holds itself.
//  2. A data structure held by another rolls up into it: the map of lists holds the lists'
//     elements too (the outermost data structure is the one a person can act on).
//  3. An object every referrer of which is held by one data structure is held by it as well
//     (the Date inside a cached Location), unless a root references it; one every referrer of
//     which is in several data structures is in several too.
// An object two data structures claim is in several.
void HeapGraph::computeContainers() const {
    std::call_once(containers_once_, [this] {
        const size_t n = size();
        container_.assign(n, kNoPosition);
        const SymbolTable& symbols = heap_.symbols();
        std::vector<Role> roles(symbols.types().size(), kPlain);
        for (size_t t = 0; t < roles.size(); ++t)
            roles[t] = roleOf(symbols.types()[t]);
        auto role = [&](size_t pos) {
            const uint32_t t = heap_.type(pos);
            return t < roles.size() ? roles[t] : Role{kPlain};
        };
        auto claim = [&](uint32_t pos, uint32_t head) {
            uint32_t& c = container_[pos];
            c = c == kNoPosition || c == head ? head : kMultipleContainers;
        };
        std::vector<uint32_t> visited(n, kNoPosition);  // the head whose walk last saw a position
        std::vector<uint8_t> is_head(n, 0);
        std::vector<uint32_t> stack;
        const RefGraph& g = refs();
        auto walk = [&](uint32_t head, bool through_internals) {
            visited[head] = head;
            is_head[head] = 1;
            auto push = [&](uint32_t from, uint32_t v) {
                if (visited[v] == head || !heap_.alive(v)) return;
                visited[v] = head;
                claim(v, head);
                const Role r = role(v);
                if (through_internals && (r == kInternal || (r == kRefArray && from == head))) {
                    is_head[v] = 2;  // a collection's internal: not a data structure of its own
                    stack.push_back(v);
                }
            };
            g.forEachTarget(head, [&](uint32_t v) { push(head, v); });
            while (!stack.empty()) {
                const uint32_t u = stack.back();
                stack.pop_back();
                g.forEachTarget(u, [&](uint32_t v) { push(u, v); });
            }
        };
        for (size_t pos = 0; pos < n; ++pos)
            if (heap_.alive(pos) && role(pos) == kHead) walk(static_cast<uint32_t>(pos), true);
        for (size_t pos = 0; pos < n; ++pos)
            if (heap_.alive(pos) && role(pos) == kRefArray && is_head[pos] == 0)
                walk(static_cast<uint32_t>(pos), false);

        // 2. The outermost data structure of each head (a cycle of heads stops where it closes).
        std::vector<uint32_t> top(n, kNoPosition);
        auto outermost = [&](uint32_t head) {
            uint32_t at = head;
            for (int steps = 0; steps < 64; ++steps) {
                if (top[at] != kNoPosition) return top[at];
                const uint32_t up = container_[at];
                if (up == kNoPosition || up == kMultipleContainers || up == at || is_head[up] != 1) break;
                at = up;
            }
            return top[head] = at;
        };
        for (size_t pos = 0; pos < n; ++pos)
            if (is_head[pos] == 1) outermost(static_cast<uint32_t>(pos));
        for (size_t pos = 0; pos < n; ++pos) {
            uint32_t& c = container_[pos];
            if (is_head[pos] == 1 && (c == kNoPosition || top[pos] != pos))
                c = top[pos];
            else if (c != kNoPosition && c != kMultipleContainers)
                c = top[c];
        }

        // 3. Objects held only by one data structure's objects.
        const ReverseGraph& rev = reverse();
        std::vector<uint32_t> work;
        for (size_t pos = 0; pos < n; ++pos)
            if (container_[pos] != kNoPosition) work.push_back(static_cast<uint32_t>(pos));
        while (!work.empty()) {
            const uint32_t u = work.back();
            work.pop_back();
            const uint32_t d = container_[u];
            g.forEachTarget(u, [&](uint32_t v) {
                if (container_[v] != kNoPosition || !heap_.alive(v) || rooted(v)) return;
                for (uint32_t p : rev.of(v))
                    if (container_[p] != d) return;
                container_[v] = d;
                work.push_back(v);
            });
        }
    });
}

uint32_t HeapGraph::container(size_t pos) const {
    computeContainers();
    return container_[pos];
}

size_t HeapGraph::memoryBytes() const {
    return snapshot_.memoryBytes() + reachable_.memoryBytes() + reverse_.memoryBytes() +
           (closest_set_.capacity() + distance_.capacity() + parent_.capacity() + container_.capacity() +
            top_dominators_.capacity()) *
               4 +
           (set_ids_.capacity() + set_offsets_.capacity() + direct_ids_.capacity() +
            direct_offsets_.capacity() + rooted_positions_.capacity()) *
               4 +
           identity_keys_.capacity() * 8;
}

std::optional<uint32_t> lastSnapshotGc(const HeapHistory& h) {
    for (size_t g = h.gcCount(); g-- > 0;)
        if (h.gcs()[g].has_snapshot) return static_cast<uint32_t>(g);
    return std::nullopt;
}

Result<std::unique_ptr<HeapGraph>> loadGraph(const HeapHistory& h, const HeapState& heap) {
    const uint32_t gc = heap.gc();
    if (!h.gcs()[gc].has_snapshot) {
        std::optional<uint32_t> before, after;
        for (uint32_t g = 0; g < h.gcCount(); ++g)
            if (h.gcs()[g].has_snapshot) {
                if (g < gc) before = g;
                if (g > gc && !after) after = g;
            }
        std::string msg = "GC " + std::to_string(gc) + " has no reference snapshot";
        if (!before && !after)
            return Error{msg + (h.sampled() ? ": this sampled recording has none"
                                            : ": the trace has none (record with --refs N)")};
        msg += "; the nearest ";
        if (before && after)
            msg += "are GCs " + std::to_string(*before) + " and " + std::to_string(*after);
        else
            msg += "is GC " + std::to_string(before ? *before : *after);
        return Error{msg + " ('memcity gcs' marks them)"};
    }
    if (h.sampled()) {
        auto whole = h.wholeSnapshotFor(heap);
        if (!whole) return whole.error();
        if (!*whole) return Error{"GC " + std::to_string(gc) + ": its reference snapshot is incomplete"};
        return std::make_unique<HeapGraph>(std::move((*whole)->heap), std::move((*whole)->snapshot));
    }
    auto snap = h.snapshotFor(heap);
    if (!snap) return snap.error();
    if (!*snap || (*snap)->gc != gc)
        return Error{"GC " + std::to_string(gc) + ": its reference snapshot is incomplete"};
    return std::make_unique<HeapGraph>(heap.view(), std::move(**snap));
}

bool hasSnapshotIn(const HeapHistory& h, uint32_t from, uint32_t to) {
    for (uint64_t g = from; g <= to && g < h.gcCount(); ++g)
        if (h.gcs()[g].has_snapshot) return true;
    return false;
}

}  // namespace memcity
