#include "classify/tree.h"

#include <algorithm>
#include <cmath>
#include <thread>
#include <unordered_map>

#include "classify/tree_nodes.h"
#include "util/parallel.h"

namespace memcity {

std::string_view metricName(Metric metric) {
    return metric == Metric::kObjects ? "objects" : "bytes";
}

std::optional<Metric> parseMetric(std::string_view name) {
    if (name == "objects") return Metric::kObjects;
    if (name == "bytes") return Metric::kBytes;
    return std::nullopt;
}
namespace {

// Objects and bytes per signature, and one object of it to classify; a sampled heap's sums of
// what its samples stand for.
struct SignatureCount {
    uint64_t objects = 0, bytes = 0;
    size_t representative = 0;
    SampleSums sampled;
    uint64_t uncounted = 0;  // at a census GC: samples of types the census did not count
};

// Whether the object at `pos` of a sampled heap at a census GC is of a type the census counted.
bool uncounted(const HeapView& heap, size_t pos) {
    const SampleCalibration* c = heap.calibration();
    return c && !c->counted(heap.type(pos));
}

struct KeyVectorHash {
    size_t operator()(const std::vector<Key>& v) const {
        uint64_t h = 0x9e3779b97f4a7c15ull ^ v.size();
        for (Key k : v)
            h = (h ^ k) * 0xff51afd7ed558ccdull ^ (h >> 29);
        return static_cast<size_t>(h);
    }
};

// Runs work(0) .. work(threads - 1), each on a thread of its own but the first on this one.
template <class F>
void runSliced(unsigned threads, F& work) {
    runParts(threads, [&](size_t t) { work(static_cast<unsigned>(t)); });
}

// A child is found by its parent, its level and its key (the level keeps a one-to-hierarchy
// classifier's deeper values apart from the next classifier's values).
using ChildKey = std::pair<uint64_t, Key>;  // (parent | level << 32, key)
inline ChildKey childKey(uint32_t parent, uint32_t level, Key key) {
    return {parent | (uint64_t{level} << 32), key};
}
struct ChildHash {
    size_t operator()(const ChildKey& p) const {
        return static_cast<size_t>((p.second ^ (p.first << 24) ^ p.first) * 0x9e3779b97f4a7c15ull);
    }
};

// The pass over the objects when every classifier and filter reads only the shape: counts per
// shape id, in `threads` slices of the positions.
std::vector<SignatureCount> countByShape(const HeapView& heap, unsigned threads) {
    const size_t shapes = heap.shapes().size();
    const size_t n = heap.positions();
    threads = std::max(1u, std::min<unsigned>(threads, static_cast<unsigned>(n / 65536 + 1)));
    std::vector<std::vector<SignatureCount>> partial(threads, std::vector<SignatureCount>(shapes));
    auto work = [&](unsigned t) {
        std::vector<SignatureCount>& counts = partial[t];
        const size_t begin = n * t / threads, end = n * (t + 1) / threads;
        const ObjectStore& store = heap.store();
        const uint32_t* shape = store.shape.data();
        const ShapeTable& table = heap.shapes();
        const SampleModel* sampling = heap.sampling();
        for (size_t pos = begin; pos < end; ++pos) {
            const uint32_t s = shape[pos];
            if (s == ObjectStore::kDead) continue;
            SignatureCount& c = counts[s];
            if (c.objects++ == 0) c.representative = pos;
            const uint32_t instance_size = table[s].size;
            const uint64_t size = instance_size != 0 ? instance_size : heap.size(pos);
            c.bytes += size;
            if (sampling) {
                c.sampled.add(heap.weight(pos), size);
                c.uncounted += uncounted(heap, pos);
            }
        }
    };
    runSliced(threads, work);
    for (unsigned t = 1; t < threads; ++t)
        for (size_t s = 0; s < shapes; ++s) {
            const SignatureCount& p = partial[t][s];
            if (p.objects == 0) continue;
            SignatureCount& c = partial[0][s];
            if (c.objects == 0) c.representative = p.representative;
            c.objects += p.objects;
            c.bytes += p.bytes;
            c.sampled += p.sampled;
            c.uncounted += p.uncounted;
        }
    return std::move(partial[0]);
}

// The pass over the objects when some classifier or filter reads more than the shape. An
// object's signature is its values at every level, each level's list preceded by its length (so
// lists of different lengths cannot run into each other); the values of shape-only classifiers
// and the verdicts of shape-only filters are worked out once per shape and cached.
std::vector<SignatureCount> countBySignature(const HeapView& heap, const ClassifierChain& chain,
                                             const std::vector<const Filter*>& filters, unsigned threads,
                                             uint64_t* filtered_objects, uint64_t* filtered_bytes,
                                             SampleSums* filtered_sampled) {
    using SignatureMap = std::unordered_map<std::vector<Key>, uint32_t, KeyVectorHash>;
    struct Slice {
        SignatureMap ids;
        std::vector<SignatureCount> counts;
        uint64_t filtered_objects = 0, filtered_bytes = 0;
        SampleSums filtered_sampled;
    };
    const size_t n = heap.positions();
    threads = std::max(1u, std::min<unsigned>(threads, static_cast<unsigned>(n / 65536 + 1)));
    std::vector<Slice> slices(threads);
    auto work = [&](unsigned t) {
        Slice& slice = slices[t];
        // Per shape: whether the shape-only filters pass it (0 unknown, 1 yes, 2 no), and the
        // shape-only levels' values in signature form.
        std::vector<uint8_t> passes(heap.shapes().size(), 0);
        std::vector<std::vector<Key>> shape_keys(heap.shapes().size());
        std::vector<Key> sig, values;
        const size_t begin = n * t / threads, end = n * (t + 1) / threads;
        for (size_t pos = begin; pos < end; ++pos) {
            if (!heap.alive(pos)) continue;
            const uint32_t shape = heap.shapeId(pos);
            if (passes[shape] == 0) {
                passes[shape] = 1;
                for (const Filter* f : filters)
                    if (f->shapeOnly() && !f->accept(heap, pos)) passes[shape] = 2;
                std::vector<Key>& keys = shape_keys[shape];
                for (const auto& c : chain.classifiers) {
                    if (!c->shapeOnly()) continue;
                    values.clear();
                    c->classify(heap, pos, values);
                    keys.push_back(values.size());
                    keys.insert(keys.end(), values.begin(), values.end());
                }
            }
            bool accepted = passes[shape] == 1;
            for (size_t f = 0; accepted && f < filters.size(); ++f)
                if (!filters[f]->shapeOnly() && !filters[f]->accept(heap, pos)) accepted = false;
            const uint64_t bytes = heap.size(pos);
            if (!accepted) {
                ++slice.filtered_objects;
                slice.filtered_bytes += bytes;
                if (heap.sampled()) slice.filtered_sampled.add(heap.weight(pos), bytes);
                continue;
            }
            sig.clear();
            const std::vector<Key>& cached = shape_keys[shape];
            size_t next_cached = 0;
            for (const auto& c : chain.classifiers) {
                if (c->shapeOnly()) {
                    const auto len = static_cast<size_t>(cached[next_cached]);
                    sig.insert(sig.end(), cached.begin() + static_cast<ptrdiff_t>(next_cached),
                               cached.begin() + static_cast<ptrdiff_t>(next_cached + 1 + len));
                    next_cached += 1 + len;
                } else {
                    values.clear();
                    c->classify(heap, pos, values);
                    sig.push_back(values.size());
                    sig.insert(sig.end(), values.begin(), values.end());
                }
            }
            auto [it, added] = slice.ids.try_emplace(sig, static_cast<uint32_t>(slice.counts.size()));
            if (added) slice.counts.push_back({0, 0, pos, {}, 0});
            SignatureCount& c = slice.counts[it->second];
            ++c.objects;
            c.bytes += bytes;
            if (heap.sampled()) {
                c.sampled.add(heap.weight(pos), bytes);
                c.uncounted += uncounted(heap, pos);
            }
        }
    };
    runSliced(threads, work);
    // Merge the slices into the first.
    Slice& all = slices[0];
    for (unsigned t = 1; t < threads; ++t) {
        for (const auto& [sig, id] : slices[t].ids) {
            const SignatureCount& c = slices[t].counts[id];
            auto [it, added] = all.ids.try_emplace(sig, static_cast<uint32_t>(all.counts.size()));
            if (added) all.counts.push_back({0, 0, c.representative, {}, 0});
            all.counts[it->second].objects += c.objects;
            all.counts[it->second].bytes += c.bytes;
            all.counts[it->second].sampled += c.sampled;
            all.counts[it->second].uncounted += c.uncounted;
        }
        all.filtered_objects += slices[t].filtered_objects;
        all.filtered_bytes += slices[t].filtered_bytes;
        all.filtered_sampled += slices[t].filtered_sampled;
    }
    *filtered_objects += all.filtered_objects;
    *filtered_bytes += all.filtered_bytes;
    *filtered_sampled += all.filtered_sampled;
    return std::move(all.counts);
}

// Walks one object down the tree: every node it reaches, each once, in `reached`. `child`
// gives the node below a parent for a key (kNoNode: there is none, and that branch ends).
struct Descent {
    std::vector<uint32_t> current, next;
    std::vector<Key> keys;

    template <class Child>
    void run(const HeapView& heap, const ClassifierChain& chain, size_t pos, Child& child,
             std::vector<uint32_t>& reached) {
        current.assign(1, ClassificationTree::kRoot);
        reached.assign(1, ClassificationTree::kRoot);
        for (size_t level = 0; level < chain.classifiers.size() && !current.empty(); ++level) {
            const Classifier& c = *chain.classifiers[level];
            keys.clear();
            c.classify(heap, pos, keys);
            if (keys.empty()) keys.push_back(kNoValueKey);
            const Cardinality card = c.cardinality();
            if (card == Cardinality::kPaths && keys.back() != kPathEnd) keys.push_back(kPathEnd);
            const auto lvl = static_cast<uint32_t>(level + 1);
            next.clear();
            for (uint32_t node : current) {
                if (card == Cardinality::kHierarchy || card == Cardinality::kPaths) {
                    uint32_t at = node;
                    for (Key k : keys) {
                        if (k == kPathEnd) {
                            if (at != kNoNode && at != node) next.push_back(at);
                            at = node;
                            continue;
                        }
                        if (at == kNoNode) continue;
                        at = child(at, k, lvl);
                        if (at != kNoNode) reached.push_back(at);
                    }
                    if (card == Cardinality::kHierarchy && at != kNoNode) next.push_back(at);
                } else {
                    for (Key k : keys) {
                        const uint32_t at = child(node, k, lvl);
                        if (at == kNoNode) continue;
                        reached.push_back(at);
                        next.push_back(at);
                    }
                }
            }
            std::sort(next.begin(), next.end());
            next.erase(std::unique(next.begin(), next.end()), next.end());
            current.swap(next);
        }
        std::sort(reached.begin(), reached.end());
        reached.erase(std::unique(reached.begin(), reached.end()), reached.end());
    }
};

}  // namespace

ClassificationTree ClassificationTree::build(const HeapView& heap, const ClassifierChain& chain,
                                             const TreeOptions& options) {
    ClassificationTree tree;
    tree.chain_ = &chain;
    tree.symbols_ = &heap.symbols();
    tree.gc_ = heap.gc();
    tree.nodes_.emplace_back();

    // 1. Count objects per signature.
    std::vector<SignatureCount> signatures;
    std::vector<const Filter*> filters;
    for (const auto& f : chain.filters)
        filters.push_back(f.get());
    if (options.extra_filter) filters.push_back(options.extra_filter);
    const bool shape_only = chain.shapeOnly() && (!options.extra_filter || options.extra_filter->shapeOnly());
    if (shape_only) {
        signatures = countByShape(heap, options.threads);
    } else {
        signatures = countBySignature(heap, chain, filters, options.threads, &tree.filtered_objects_,
                                      &tree.filtered_bytes_, &tree.filtered_sampled_);
    }
    tree.sampled_ = heap.sampled();

    // 2. Classify one object per signature and add the signature's counts to every node it
    //    reaches, once each.
    std::unordered_map<ChildKey, uint32_t, ChildHash> child_index;
    auto child = [&](uint32_t parent, Key key, uint32_t level) {
        auto [it, added] =
            child_index.try_emplace(childKey(parent, level, key), static_cast<uint32_t>(tree.nodes_.size()));
        if (!added) return it->second;
        TreeNode n;
        n.parent = parent;
        n.level = level;
        n.key = key;
        tree.nodes_.push_back(std::move(n));
        tree.nodes_[parent].children.push_back(it->second);
        return it->second;
    };
    std::vector<uint32_t> reached;
    std::vector<uint64_t> uncounted_by_node;  // a census GC's: samples of types it did not count
    Descent descent;
    for (const SignatureCount& s : signatures) {
        if (s.objects == 0) continue;
        ++tree.signatures_;
        // In the shape-only pass the filters are left to here, one object per shape.
        bool accepted = true;
        for (const Filter* f : filters)
            if (shape_only && !f->accept(heap, s.representative)) accepted = false;
        if (!accepted) {
            tree.filtered_objects_ += s.objects;
            tree.filtered_bytes_ += s.bytes;
            tree.filtered_sampled_ += s.sampled;
            continue;
        }
        descent.run(heap, chain, s.representative, child, reached);
        if (uncounted_by_node.size() < tree.nodes_.size()) uncounted_by_node.resize(tree.nodes_.size(), 0);
        for (uint32_t id : reached) {
            tree.nodes_[id].objects += s.objects;
            tree.nodes_[id].bytes += s.bytes;
            tree.nodes_[id].sampled += s.sampled;
            uncounted_by_node[id] += s.uncounted;
        }
    }
    // 3. A sampled heap's nodes hold what their samples stand for. At a census GC, with nothing
    //    filtered out, a node of whole types (every level above it reads the type alone) is
    //    counted, and the root holds the types no sample stands for too: the whole heap.
    if (tree.sampled_) {
        const SampleCalibration* census = heap.calibration();
        if (census && filters.empty()) {
            uncounted_by_node.resize(tree.nodes_.size(), 0);
            std::vector<uint8_t> whole_types(tree.nodes_.size(), 1);  // the root: every type
            for (uint32_t id = 1; id < tree.nodes_.size(); ++id) {
                TreeNode& n = tree.nodes_[id];
                whole_types[id] = whole_types[n.parent] && chain.classifiers[n.level - 1]->typeOnly();
                // Counted: whole types, each of them counted by the census.
                if (!whole_types[id] || uncounted_by_node[id] != 0) continue;
                // Counted: the scaled weights add up to the census's whole numbers (but for
                // rounding).
                n.sampled.var_objects = n.sampled.var_bytes = 0;
                n.sampled.objects = std::round(n.sampled.objects);
                n.sampled.bytes = std::round(n.sampled.bytes);
            }
            SampleSums& root = tree.nodes_[kRoot].sampled;
            root.objects += static_cast<double>(census->unsampled_objects);
            root.bytes += static_cast<double>(census->unsampled_bytes);
            if (census->complete) {
                root.var_objects = root.var_bytes = 0;
                root.objects = std::round(root.objects);
                root.bytes = std::round(root.bytes);
            }
        }
        for (TreeNode& n : tree.nodes_) {
            n.objects = n.sampled.roundedObjects();
            n.bytes = n.sampled.roundedBytes();
        }
        tree.filtered_objects_ = tree.filtered_sampled_.roundedObjects();
        tree.filtered_bytes_ = tree.filtered_sampled_.roundedBytes();
    }
    return tree;
}

std::string ClassificationTree::label(uint32_t id) const {
    return tree_nodes::label(nodes_, *chain_, *symbols_, id);
}

std::vector<Bitset> ClassificationTree::members(const HeapView& heap, const std::vector<uint32_t>& nodes,
                                                const TreeOptions& options) const {
    const size_t n = heap.positions();
    std::vector<Bitset> out(nodes.size(), Bitset(n));
    if (nodes.empty() || chain_ == nullptr) return out;
    std::vector<std::vector<uint32_t>> wanted(nodes_.size());  // node -> indices into `nodes`
    for (size_t i = 0; i < nodes.size(); ++i)
        if (nodes[i] < nodes_.size()) wanted[nodes[i]].push_back(static_cast<uint32_t>(i));
    std::unordered_map<ChildKey, uint32_t, ChildHash> index;
    for (uint32_t id = 1; id < nodes_.size(); ++id)
        index.emplace(childKey(nodes_[id].parent, nodes_[id].level, nodes_[id].key), id);
    auto find = [&](uint32_t parent, Key key, uint32_t level) {
        auto it = index.find(childKey(parent, level, key));
        return it == index.end() ? kNoNode : it->second;
    };
    std::vector<const Filter*> filters;
    for (const auto& f : chain_->filters)
        filters.push_back(f.get());
    if (options.extra_filter) filters.push_back(options.extra_filter);
    const bool shape_only =
        chain_->shapeOnly() && (!options.extra_filter || options.extra_filter->shapeOnly());
    // Slices start at multiples of 64 positions, so no two threads write one word of a set.
    const unsigned threads =
        std::max(1u, std::min<unsigned>(options.threads, static_cast<unsigned>(n / 65536 + 1)));
    auto work = [&](unsigned t) {
        const size_t begin = (n * t / threads) & ~size_t{63};
        const size_t end = t + 1 == threads ? n : (n * (t + 1) / threads) & ~size_t{63};
        std::vector<std::vector<uint32_t>> by_shape(shape_only ? heap.shapes().size() : 0);
        std::vector<uint8_t> shape_done(by_shape.size(), 0);
        std::vector<uint32_t> reached;
        Descent descent;
        for (size_t pos = begin; pos < end; ++pos) {
            if (!heap.alive(pos)) continue;
            const std::vector<uint32_t>* path = &reached;
            if (shape_only) {
                const uint32_t shape = heap.shapeId(pos);
                if (!shape_done[shape]) {
                    shape_done[shape] = 1;
                    bool accepted = true;
                    for (const Filter* f : filters)
                        accepted = accepted && f->accept(heap, pos);
                    if (accepted) descent.run(heap, *chain_, pos, find, by_shape[shape]);
                }
                path = &by_shape[shape];
            } else {
                bool accepted = true;
                for (const Filter* f : filters)
                    accepted = accepted && f->accept(heap, pos);
                reached.clear();
                if (accepted) descent.run(heap, *chain_, pos, find, reached);
            }
            for (uint32_t id : *path)
                for (uint32_t i : wanted[id])
                    out[i].set(pos);
        }
    };
    runSliced(threads, work);
    return out;
}

std::string ClassificationTree::classifierSpec(uint32_t id) const {
    const TreeNode& n = nodes_[id];
    return n.level == 0 ? std::string() : chain_->classifiers[n.level - 1]->spec();
}

std::string ClassificationTree::path(uint32_t id) const {
    return tree_nodes::path(nodes_, id, [this](uint32_t n) { return label(n); });
}

uint32_t ClassificationTree::find(const std::vector<std::string>& labels) const {
    return tree_nodes::find(nodes_, labels, [this](uint32_t n) { return label(n); });
}

std::vector<uint32_t> ClassificationTree::sortedChildren(uint32_t id, Metric metric) const {
    std::vector<uint32_t> children = nodes_[id].children;
    std::stable_sort(children.begin(), children.end(), [&](uint32_t a, uint32_t b) {
        const uint64_t va = value(nodes_[a], metric), vb = value(nodes_[b], metric);
        if (va != vb) return va > vb;
        const uint64_t oa = value(nodes_[a], Metric::kObjects), ob = value(nodes_[b], Metric::kObjects);
        if (oa != ob) return oa > ob;
        return label(a) < label(b);
    });
    return children;
}

PrunedChildren ClassificationTree::prunedChildren(uint32_t id, Metric metric,
                                                  const PruneOptions& options) const {
    PrunedChildren out;
    const std::vector<uint32_t> children = sortedChildren(id, metric);
    const double total = static_cast<double>(value(nodes_[id], metric));
    uint64_t shown_value = 0;
    for (uint32_t c : children) {
        const bool fits = !options.enabled ||
                          (out.shown.size() < options.max_children &&
                           (out.shown.empty() || static_cast<double>(shown_value) < options.share * total));
        if (fits) {
            out.shown.push_back(c);
            shown_value += value(nodes_[c], metric);
        } else {
            ++out.other_groups;
            out.other_objects += nodes_[c].objects;
            out.other_bytes += nodes_[c].bytes;
            out.other_sampled += nodes_[c].sampled;
        }
    }
    return out;
}

std::vector<std::vector<std::string>> parseNodePaths(const std::string& text) {
    std::vector<std::vector<std::string>> nodes;
    auto trim = [](std::string s) {
        const size_t a = s.find_first_not_of(' '), b = s.find_last_not_of(' ');
        return a == std::string::npos ? std::string() : s.substr(a, b - a + 1);
    };
    size_t start = 0;
    while (start <= text.size()) {
        const size_t semi = text.find(';', start);
        const std::string one =
            text.substr(start, semi == std::string::npos ? std::string::npos : semi - start);
        std::vector<std::string> labels;
        size_t s = 0;
        while (s <= one.size()) {
            const size_t slash = one.find('/', s);
            std::string l = trim(one.substr(s, slash == std::string::npos ? std::string::npos : slash - s));
            if (!l.empty()) labels.push_back(l);
            if (slash == std::string::npos) break;
            s = slash + 1;
        }
        nodes.push_back(std::move(labels));
        if (semi == std::string::npos) break;
        start = semi + 1;
    }
    return nodes;
}

}  // namespace memcity
